// Package cli is the ctxtrim command: it parses flags and configuration,
// calls the library packages (budget, slicer, history, split) and the
// prompt-file checker (internal/check), writes the result to stdout and
// diagnostics to stderr, and maps errors to exit codes in one place
// (exitCode). It never calls os.Exit: Run returns the code, so tests drive
// the whole CLI on buffers.
//
// Usage:
//
//	ctxtrim [flags] [TASK...] < task   select repository context for a task (the main job)
//	ctxtrim index [flags]              summarise the repository index
//	ctxtrim mcp [flags]                serve the tools to a coding agent over MCP (stdio)
//	ctxtrim history [flags] [FILE]     prune a conversation history to a budget
//	ctxtrim split [flags] [FILE]       cut an oversized task into requests that each fit
//	ctxtrim check [flags] [FILE...]    check agent prompt files against their budgets
//	ctxtrim count [flags] [FILE...]    count tokens, like wc
//	ctxtrim models [MODEL]             list the model table
//	ctxtrim fit [flags] < text         trim text to a budget
//	ctxtrim proxy -upstream URL        fit every request of a running agent, in flight
//	ctxtrim version                    print the version (also --version)
//
// Run "ctxtrim help COMMAND" or "ctxtrim COMMAND -h" for the flags of each
// command.
//
// Layout: a file per command (check.go, count.go, …) holding its flags and
// output; flags.go the flags every budgeted command shares and the budget
// they resolve to; config.go the one configuration loader; exit.go the
// exit codes and the error kinds that choose them.
package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ctxtrim/ctxtrim/internal/editdist"
)

// env carries the process's streams so tests can run commands on buffers.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// logf returns the Logf the libraries are given: lines "ctxtrim: …" on
// stderr when on (-v), nothing otherwise.
func (e *env) logf(on bool) func(format string, args ...any) {
	if !on {
		return func(string, ...any) {}
	}
	return func(format string, args ...any) { fmt.Fprintf(e.stderr, "ctxtrim: "+format+"\n", args...) }
}

// command is one subcommand. run returns nil on success, or an error that
// Run reports once, prefixed "ctxtrim: ", and maps to an exit code
// (exitCode).
type command struct {
	name    string
	summary string
	run     func(e *env, args []string) error
}

// commandTable lists the subcommands, sorted by name (help lists them in
// this order). It is a function, not a variable, so that the CLI holds no
// package state.
func commandTable() []command {
	return []command{
		{"check", "check agent prompt files (AGENTS.md, CLAUDE.md, …) or the staged diff against their budgets", runCheck},
		{"count", "count tokens per file and in total, like wc", runCount},
		{"fit", "trim text from stdin to the budget, keeping head and tail", runFit},
		{"history", "prune a conversation (Chat, Responses, Anthropic, Codex rollout) to a budget", runHistory},
		{"index", "index a repository and summarize files, languages, symbols, skips", runIndex},
		{"mcp", "serve the tools to a coding agent over MCP (stdio): Codex, Claude Code, …", runMCP},
		{"models", "list the model table: windows, max output, encodings", runModels},
		{"proxy", "serve an HTTP proxy that fits every request of an agent to its model", runProxy},
		{"select", "select repository context for a task, within a token budget (the default)", runSelect},
		{"split", "cut an oversized task into requests that each fit the budget", runSplit},
		{"version", "print ctxtrim's version and VCS revision (also --version)", runVersion},
	}
}

// lookup returns the command named name.
func lookup(name string) (command, bool) {
	for _, c := range commandTable() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// Run is the whole CLI: it runs the command args name (select when args
// start with a flag or are a task) on the given streams and returns the
// exit code. It never calls os.Exit.
//
// A caller writing to a real pipe should ignore SIGPIPE first (as
// ctxtrim's main does), so that a closed stdout is an EPIPE error, which
// Run reports as success.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	return e.report(dispatch(e, args))
}

// dispatch picks the command and runs it.
func dispatch(e *env, args []string) error {
	sel, _ := lookup("select")
	if len(args) == 0 {
		return sel.run(e, args)
	}
	name := args[0]
	switch {
	case name == "--version" || name == "-version":
		return runVersion(e, args[1:])
	case name == "help" || name == "-h" || name == "-help" || name == "--help":
		// Help that was asked for is the result: it goes to stdout.
		if len(args) > 1 && name == "help" {
			c, ok := lookup(args[1])
			if !ok {
				return usageError(fmt.Errorf("help: unknown command %q (known: %s)", args[1], strings.Join(commandNames(), ", ")))
			}
			return c.run(&env{stdin: e.stdin, stdout: e.stdout, stderr: e.stdout}, []string{"-h"})
		}
		usage(e.stdout)
		return nil
	case strings.HasPrefix(name, "-"):
		return sel.run(e, args)
	}
	if c, ok := lookup(name); ok {
		return c.run(e, args[1:])
	}
	// A first word that is nearly a command name is a typo, not the start
	// of a task: "ctxtrim spilt -budget 8000 big.log" must not send the
	// task "spilt big.log" to the model. A task that does start with such a
	// word can be quoted, given to select, or piped in.
	if near := nearestCommand(name); near != "" {
		return usageError(fmt.Errorf("unknown command %q; did you mean %q? (for a task starting with %q, quote it, run ctxtrim select %s …, or pipe it in)", name, near, name, name))
	}
	// Otherwise the words are the task of the default job.
	return sel.run(e, args)
}

// Typos. A word is a typo of a command name when it is within
// maxTypoDistance edits of it (Levenshtein, case folded). For names shorter
// than minFuzzyName letters (fit) that would take in most short words,
// tasks' first words among them ("fix", "get", "set", "edit", "init"), so
// a typo of those must also be made of the name's letters ("fti", "fitt").
const (
	maxTypoDistance = 2
	minFuzzyName    = 5
)

// nearestCommand returns the command name word is a typo of, or "".
// Words with spaces (a quoted task) are never typos.
func nearestCommand(word string) string {
	if strings.ContainsAny(word, " \t\n") || word == "" {
		return ""
	}
	word = strings.ToLower(word)
	var long, short []string
	for _, n := range commandNames() {
		if len(n) >= minFuzzyName {
			long = append(long, n)
		} else if sameLetters(word, n) {
			short = append(short, n)
		}
	}
	if near := editdist.Closest(word, append(long, short...), 1, maxTypoDistance); len(near) > 0 {
		return near[0]
	}
	return ""
}

// sameLetters reports whether a and b use the same set of letters.
func sameLetters(a, b string) bool {
	set := func(s string) string {
		var seen [256]bool
		var out []byte
		for i := 0; i < len(s); i++ {
			if !seen[s[i]] {
				seen[s[i]] = true
				out = append(out, s[i])
			}
		}
		slices.Sort(out)
		return string(out)
	}
	return set(a) == set(b)
}

// commandNames returns the command names, sorted.
func commandNames() []string {
	var names []string
	for _, c := range commandTable() {
		names = append(names, c.name)
	}
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ctxtrim [COMMAND] [flags]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commandTable() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nWithout a command, ctxtrim selects repository context for the task read from\nstdin (or given as words). Run \"ctxtrim help COMMAND\" for a command's flags.")
}
