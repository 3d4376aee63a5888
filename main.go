// Command ctxtrim makes requests to language models small, relevant and
// guaranteed to fit a token budget. See package internal/cli for the
// commands, or run "ctxtrim help".
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/ctxtrim/ctxtrim/internal/cli"
)

func main() {
	// A write to a closed stdout (ctxtrim … | head) must fail with EPIPE,
	// which cli.Run reports as success, instead of killing the process
	// with SIGPIPE: Go's runtime does that for fd 1 and 2 unless SIGPIPE is
	// ignored.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
