package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal (progress goes only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// stdinIsTerminal reports whether stdin is an interactive terminal, where a
// filter waiting for input would otherwise look hung.
func stdinIsTerminal(e *env) bool {
	f, ok := e.stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
