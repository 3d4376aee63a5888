// Command ctxtrim makes requests to language models small, relevant and
// guaranteed to fit a token budget.
//
// Usage:
//
//	ctxtrim [flags] < task            select repository context for a task (the main job)
//	ctxtrim count [flags] [FILE...]   count tokens, like wc
//	ctxtrim models                    list the model table
//	ctxtrim fit [flags] < text        trim text to a budget
//
// Run "ctxtrim help" or "ctxtrim COMMAND -h" for the flags of each command.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"
)

// Exit codes, decided in one place. Scripts may rely on them.
const (
	exitOK        = 0   // success, including a closed output pipe
	exitError     = 1   // runtime failure
	exitUsage     = 2   // bad flags, unknown model, absurd budget
	exitTrimmed   = 3   // success, but content had to be cut to fit
	exitBadInput  = 4   // input that cannot be processed (binary, malformed)
	exitNoFit     = 5   // even the pinned minimum does not fit the budget
	exitInterrupt = 130 // interrupted by a signal
)

// env carries the process's streams so tests can run commands on buffers.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand. run returns an exit code; it reports its own
// errors through env.fail so that the "ctxtrim: " prefix is added once.
type command struct {
	summary string
	run     func(e *env, args []string) int
}

// commands maps subcommand names to their implementations. Each lives in its
// own cmd_*.go file.
var commands = map[string]command{}

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// run is the whole CLI; it never calls os.Exit.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) > 0 {
		switch name := args[0]; {
		case name == "help" || name == "-h" || name == "-help" || name == "--help":
			usage(stderr)
			return exitOK
		case !strings.HasPrefix(name, "-") && name != "":
			if c, ok := commands[name]; ok {
				return c.run(e, args[1:])
			}
			if _, ok := commands["select"]; !ok {
				e.fail(exitUsage, fmt.Errorf("unknown command %q (known: %s)", name, strings.Join(commandNames(), ", ")))
				return exitUsage
			}
		}
	}
	// No subcommand: the default job.
	if c, ok := commands["select"]; ok {
		return c.run(e, args)
	}
	if c, ok := commands["fit"]; ok {
		return c.run(e, args)
	}
	usage(stderr)
	return exitUsage
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ctxtrim [COMMAND] [flags]")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nWithout a command, ctxtrim selects repository context for the task read from stdin.")
}

// fail prints err once, prefixed, and returns code. A closed output pipe is
// not an error: the reader has what it wanted.
func (e *env) fail(code int, err error) int {
	if errors.Is(err, syscall.EPIPE) {
		return exitOK
	}
	fmt.Fprintf(e.stderr, "ctxtrim: %v\n", err)
	return code
}
