// Command ctxtrim makes requests to language models small, relevant and
// guaranteed to fit a token budget.
//
// Usage:
//
//	ctxtrim [flags] [TASK...] < task   select repository context for a task (the main job)
//	ctxtrim index [flags]              summarise the repository index
//	ctxtrim history [flags] [FILE]     prune a conversation history to a budget
//	ctxtrim split [flags] [FILE]       cut an oversized task into requests that each fit
//	ctxtrim check [flags] [FILE...]    check agent prompt files against their budgets
//	ctxtrim count [flags] [FILE...]    count tokens, like wc
//	ctxtrim models [MODEL]             list the model table
//	ctxtrim fit [flags] < text         trim text to a budget
//
// Run "ctxtrim help COMMAND" or "ctxtrim COMMAND -h" for the flags of each
// command.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
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

func main() {
	// A write to a closed stdout (ctxtrim … | head) must fail with EPIPE,
	// which env.fail reports as success, instead of killing the process
	// with SIGPIPE: Go's runtime does that for fd 1 and 2 unless SIGPIPE is
	// ignored.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole CLI; it never calls os.Exit.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		return commands["select"].run(e, args)
	}
	name := args[0]
	switch {
	case name == "help" || name == "-h" || name == "-help" || name == "--help":
		// Help that was asked for is the result: it goes to stdout.
		if len(args) > 1 && name == "help" {
			c, ok := commands[args[1]]
			if !ok {
				return e.fail(exitUsage, fmt.Errorf("help: unknown command %q (known: %s)", args[1], strings.Join(commandNames(), ", ")))
			}
			return c.run(&env{stdin: stdin, stdout: stdout, stderr: stdout}, []string{"-h"})
		}
		usage(stdout)
		return exitOK
	case strings.HasPrefix(name, "-"):
		return commands["select"].run(e, args)
	}
	if c, ok := commands[name]; ok {
		return c.run(e, args[1:])
	}
	// A lone word that is nearly a command name is a typo, not a task.
	if len(args) == 1 {
		if near := nearestCommand(name); near != "" {
			return e.fail(exitUsage, fmt.Errorf("unknown command %q; did you mean %q? (a task is read from stdin, or given as several words)", name, near))
		}
	}
	// Otherwise the words are the task of the default job.
	return commands["select"].run(e, args)
}

// nearestCommand returns the command name within edit distance 2 of word,
// or "".
func nearestCommand(word string) string {
	best, bestD := "", 3
	for _, n := range commandNames() {
		if d := editDistance(word, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
	fmt.Fprintln(w, "\nWithout a command, ctxtrim selects repository context for the task read from\nstdin (or given as words). Run \"ctxtrim help COMMAND\" for a command's flags.")
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
