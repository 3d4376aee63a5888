package budget

import (
	"fmt"
	"strings"
)

// Structured "does not fit" errors. Both wrap ErrNoFit (through the
// package sentinel in Err, when a package has its own), so that
// errors.Is(err, ErrNoFit) holds for every such failure of every package,
// and errors.As gives the numbers.

// TaskTooLargeError is returned when something a request must carry whole
// (the task, the instructions of every part) leaves no room within the
// budget.
type TaskTooLargeError struct {
	What   string // what must fit whole, e.g. "the instructions and part header"
	Need   int    // the tokens it takes
	Budget int    // the tokens available
	Err    error  // the sentinel wrapped: ErrNoFit, or a package's own that wraps it
}

// Error says what does not fit, in how many tokens, and by how many.
func (e *TaskTooLargeError) Error() string {
	return fmt.Sprintf("%v: %s take %d of the %d-token budget, leaving no room for input (%d tokens short)",
		e.sentinel(), e.What, e.Need, e.Budget, e.Need-e.Budget+1)
}

// Unwrap returns the sentinel, ErrNoFit unless Err names another.
func (e *TaskTooLargeError) Unwrap() error { return e.sentinel() }

func (e *TaskTooLargeError) sentinel() error {
	if e.Err == nil {
		return ErrNoFit
	}
	return e.Err
}

// Share is a named part of a token amount.
type Share struct {
	Name   string
	Tokens int
}

// NoFitError is returned when the part of a request that may not be cut
// (its pinned minimum) exceeds the budget.
type NoFitError struct {
	Pinned    int     // the pinned minimum in tokens
	Budget    int     // the budget it exceeds
	Breakdown []Share // what the pinned tokens are, in order; they sum to Pinned
	Err       error   // the sentinel wrapped: ErrNoFit, or a package's own that wraps it
}

// Error says what the pinned sections take and the budget they exceed.
func (e *NoFitError) Error() string {
	parts := make([]string, len(e.Breakdown))
	for i, s := range e.Breakdown {
		parts[i] = fmt.Sprintf("%s %d", s.Name, s.Tokens)
	}
	return fmt.Sprintf("%v: pinned minimum is %d tokens (%s) and the budget is %d; raise the budget",
		e.sentinel(), e.Pinned, strings.Join(parts, ", "), e.Budget)
}

// Unwrap returns the sentinel, ErrNoFit unless Err names another.
func (e *NoFitError) Unwrap() error { return e.sentinel() }

func (e *NoFitError) sentinel() error {
	if e.Err == nil {
		return ErrNoFit
	}
	return e.Err
}

// NoFitSentinel is an error value a package declares as its own "does not
// fit" sentinel (history.ErrNoFit, split.ErrNoFit) that is also ErrNoFit
// for errors.Is.
type NoFitSentinel string

// Error returns the sentinel's text.
func (s NoFitSentinel) Error() string { return string(s) }

// Is reports whether target is ErrNoFit.
func (s NoFitSentinel) Is(target error) bool { return target == ErrNoFit }
