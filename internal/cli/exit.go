package cli

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/slicer"
	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/ctxtrim/ctxtrim/split"
)

// Exit codes, decided in one place (exitCode). Scripts may rely on them.
const (
	exitOK        = 0   // success, including a closed output pipe
	exitError     = 1   // runtime failure
	exitUsage     = 2   // bad flags, unknown model, absurd budget
	exitTrimmed   = 3   // success, but content had to be cut to fit
	exitBadInput  = 4   // input that cannot be processed (binary, malformed)
	exitNoFit     = 5   // even the pinned minimum does not fit the budget
	exitInterrupt = 130 // interrupted by a signal
)

// kindError gives an error the exit code of its kind. Commands mark the
// errors whose kind only they know (a budget flag's error is a usage
// error) with usageError, badInputError or noFitError; exitCode maps the
// libraries' sentinel errors itself.
type kindError struct {
	code int
	err  error
}

func (k *kindError) Error() string { return k.err.Error() }
func (k *kindError) Unwrap() error { return k.err }

// usageError marks err as a mistake in how ctxtrim was called: exit 2.
func usageError(err error) error { return &kindError{exitUsage, err} }

// badInputError marks err as input that cannot be processed: exit 4.
func badInputError(err error) error { return &kindError{exitBadInput, err} }

// noFitError marks err as content that does not fit its budget: exit 5.
func noFitError(err error) error { return &kindError{exitNoFit, err} }

// exitStatus is an outcome that needs no message, or whose messages the
// command has already written (count reports each file): Run exits with
// it and prints nothing.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// exitCode maps an error to the process's exit code. It is the one place
// that decides them.
func exitCode(err error) int {
	var status exitStatus
	var kind *kindError
	var input *inputError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, syscall.EPIPE):
		// A closed output pipe is not an error: the reader has what it
		// wanted (ctxtrim … | head).
		return exitOK
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &input):
		// The table of input problems (input.go) decides, even when a
		// command marked the error as a usage error.
		return input.problem.exit()
	case errors.As(err, &kind):
		return kind.code
	case errors.Is(err, budget.ErrNoFit), errors.Is(err, budget.ErrBudgetTooSmall), errors.Is(err, history.ErrNoFit),
		errors.Is(err, split.ErrNoFit), errors.Is(err, split.ErrTooManyParts),
		errors.Is(err, slicer.ErrTaskTooLarge):
		return exitNoFit
	case errors.Is(err, history.ErrBadInput):
		return exitBadInput
	case errors.Is(err, index.ErrBareRepository):
		// The directory named is the wrong kind: a usage error, as a
		// file named for -repo is.
		return exitUsage
	}
	return exitError
}

// interruptError is an interrupt that msg describes ("interrupted after
// writing 3 of 5 parts …"): exit 130, and msg printed once.
func interruptError(msg string) error { return &kindError{exitInterrupt, errors.New(msg)} }

// report prints err once, prefixed, unless it needs no message, and
// returns its exit code. An interrupt that no message describes
// (exitStatus(exitInterrupt): select stopped by Ctrl-C) is said in one
// line, "ctxtrim: interrupted", so that exit 130 never comes silently.
func (e *env) report(err error) int {
	code := exitCode(err)
	var status exitStatus
	switch {
	case err == nil || code == exitOK:
	case errors.As(err, &status):
		if status == exitInterrupt {
			fmt.Fprintln(e.stderr, "ctxtrim: interrupted")
		}
	default:
		fmt.Fprintf(e.stderr, "ctxtrim: %v\n", err)
	}
	return code
}
