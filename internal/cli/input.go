package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/ctxtrim/ctxtrim/internal/badutf8"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// Input problems. Every command reads its inputs through openInput,
// readFileFlag, checkDir and checkText, so that the same problem gives the
// same exit code and the same kind of message everywhere:
//
//	problem                                          exit  example
//	a path named on the command line does not exist  2     count nope.txt, -C /nonexistent, -instructions x.md
//	a path is a directory where a file is wanted,    2     history DIR, -C FILE
//	  or a file where a directory is
//	a file cannot be read                            1     permission denied, an I/O error
//	empty input where content is required            4     select, split, history on empty stdin
//	binary content (a NUL byte, as git decides)      4     a PNG piped in
//	not valid UTF-8                                  4     a Latin-1 file
//	not the structure expected                       4     not JSON, a JSON shape that is no conversation,
//	                                                       a body that is not the -format named
//	larger than the command can hold                 4     fit of more than 1 GiB
//
// A wrong path is a mistake in how ctxtrim was called, like a bad flag
// (2); a file that exists but cannot be read is a failure of the
// environment (1); content that cannot be processed is 4. fit and count
// accept empty input (fit passes it through, count counts 0 tokens): they
// are filters whose empty result is meaningful.
type problem int

const (
	probMissing     problem = iota + 1 // the path does not exist
	probKind                           // a directory for a file, or a file for a directory
	probUnreadable                     // exists, cannot be read
	probEmpty                          // empty where content is required
	probBinary                         // a NUL byte in the sniffed prefix
	probNotUTF8                        // invalid UTF-8
	probMalformed                      // not the structure expected
	probWrongFormat                    // a valid input, but not of the format named
	probTooLarge                       // larger than the command can hold
)

// exit is the exit code of a problem: the table above.
func (p problem) exit() int {
	switch p {
	case probMissing, probKind:
		return exitUsage
	case probUnreadable:
		return exitError
	}
	return exitBadInput
}

// inputError is one input problem: what (the problem and its detail),
// where (a path, "(stdin)", or a flag and its value) and what to do (hint).
// Its message is one line: "where: detail; hint".
type inputError struct {
	problem problem
	where   string
	detail  string
	hint    string
	err     error // the cause, if any
}

func (e *inputError) Error() string {
	msg := e.detail
	if e.where != "" {
		msg = e.where + ": " + msg
	}
	if e.hint != "" {
		msg += "; " + e.hint
	}
	return msg
}

func (e *inputError) Unwrap() error { return e.err }

// inputProblem returns an inputError.
func inputProblem(p problem, where, detail, hint string) *inputError {
	return &inputError{problem: p, where: where, detail: detail, hint: hint}
}

// openError classifies the error of opening or reading the file at where.
func openError(where string, err error, hint string) error {
	var pe *fs.PathError
	detail := err.Error()
	if errors.As(err, &pe) {
		detail = pe.Err.Error()
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &inputError{problem: probMissing, where: where, detail: "no such file or directory", hint: "check the path", err: err}
	case errors.Is(err, fs.ErrPermission):
		return &inputError{problem: probUnreadable, where: where, detail: "permission denied", hint: "check its permissions", err: err}
	}
	return &inputError{problem: probUnreadable, where: where, detail: detail, hint: hint, err: err}
}

// stdinName is how messages name standard input.
const stdinName = "(stdin)"

// openInput opens a command's input: stdin for "" or "-", else the file
// name. what names the input for the terminal note ("the conversation").
// It returns the reader, the name messages use for it, and a function that
// closes it. A directory is a probKind problem whose hint is dirHint (or a
// generic one when empty).
func openInput(e *env, name, what, dirHint string) (io.Reader, string, func(), error) {
	if name == "" || name == "-" {
		if stdinIsTerminal(e) {
			fmt.Fprintf(e.stderr, "ctxtrim: reading %s from the terminal; end it with Ctrl-D\n", what)
		}
		return e.stdin, stdinName, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, name, nil, openError(name, err, "")
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		if dirHint == "" {
			dirHint = "name a file"
		}
		return nil, name, nil, inputProblem(probKind, name, "is a directory", dirHint)
	}
	return f, name, func() { f.Close() }, nil
}

// readAll reads r, named where, classifying a read error (reading a
// directory, EIO) as probUnreadable.
func readAll(r io.Reader, where string) ([]byte, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, openError(where, err, "")
	}
	return b, nil
}

// readFileFlag reads the file at path that a flag names (-instructions
// FILE, -from-error @FILE); where is the flag as given ("-instructions
// x.md").
func readFileFlag(where, path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, openError(where, err, "")
	}
	if st.IsDir() {
		return nil, inputProblem(probKind, where, "is a directory", "name a file")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, openError(where, err, "")
	}
	return b, nil
}

// checkDir checks that the directory a flag names (-C DIR) exists.
func checkDir(flagName, dir string) error {
	where := fmt.Sprintf("%s %s", flagName, dir)
	st, err := os.Stat(dir)
	if err != nil {
		return openError(where, err, "")
	}
	if !st.IsDir() {
		return inputProblem(probKind, where, "not a directory", "name the repository's directory")
	}
	return nil
}

// textRules says which content checkText rejects.
type textRules struct {
	nonEmpty bool   // empty (or only white space) is probEmpty
	what     string // what the input should be, for hints: "a conversation", "text"
}

// checkText applies the content rows of the table to data, named where:
// binary (index.BinaryAt, the one binary check), invalid UTF-8 and, when
// rules.nonEmpty, empty input.
func checkText[T string | []byte](where string, data T, rules textRules) error {
	what := rules.what
	if what == "" {
		what = "text"
	}
	if rules.nonEmpty && len(trimSpace(data)) == 0 {
		detail := "empty input"
		if len(data) > 0 {
			detail = "input is only white space"
		}
		return inputProblem(probEmpty, where, detail, "pass "+what)
	}
	if i := index.BinaryAt([]byte(data[:min(len(data), index.BinarySniffBytes)])); i >= 0 {
		return inputProblem(probBinary, where, fmt.Sprintf("binary input (NUL byte at offset %d)", i), "pass "+what)
	}
	if i := badutf8.Offset(data); i < len(data) {
		return inputProblem(probNotUTF8, where, fmt.Sprintf("not valid UTF-8 (first bad byte at offset %d)", i),
			"convert it to UTF-8 first (iconv -f LATIN1 -t UTF-8)")
	}
	return nil
}

// trimSpace trims ASCII white space, without copying.
func trimSpace[T string | []byte](b T) T {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// readText reads r, named where, into a string, at most limit+1 bytes (a
// longer result means the input is over limit), holding it once: from a
// regular file the string is sized once; from a pipe it grows fivefold
// each time it fills. Growing allocates without zeroing (strings.Builder),
// so the room not yet read into costs no memory, and the earlier, fifth as
// large buffers are all that is held twice; io.ReadAll's 1.25× steps, and
// string(data) after it, held a gigabyte input four times over. fit and
// split of a gigabyte need this.
func readText(r io.Reader, where string, limit int64) (string, error) {
	var sb strings.Builder
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			sb.Grow(int(min(st.Size(), limit+1)))
		}
	}
	buf := make([]byte, readTextBuf)
	lr := io.LimitReader(r, limit+1)
	for {
		n, err := lr.Read(buf)
		if n > 0 {
			if sb.Cap()-sb.Len() < n {
				sb.Grow(max(4*sb.Cap(), readTextBuf))
			}
			sb.Write(buf[:n])
		}
		if err == io.EOF {
			return sb.String(), nil
		}
		if err != nil {
			return "", openError(where, err, "")
		}
	}
}

// readBytes is readText for a caller that wants bytes (history parses
// them in place): the same single hold, grown the same way.
func readBytes(r io.Reader, where string) ([]byte, error) {
	var b []byte
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			b = make([]byte, 0, st.Size()+1) // +1: the read that sees EOF needs room
		}
	}
	for {
		if len(b) == cap(b) {
			nb := make([]byte, len(b), max(4*cap(b), readTextBuf))
			copy(nb, b)
			b = nb
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, openError(where, err, "")
		}
	}
}

// readTextBuf is readText's read size.
const readTextBuf = 256 << 10
