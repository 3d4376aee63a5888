package cli

import (
	"bytes"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/slicer"
	"github.com/ctxtrim/ctxtrim/split"
)

// TestExitCode pins the mapping from errors to exit codes, and that Run
// prints an error once and a status never.
func TestExitCode(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("context: %w", err) }
	tests := []struct {
		name    string
		err     error
		code    int
		printed bool
	}{
		{"nil", nil, exitOK, false},
		{"plain", errors.New("boom"), exitError, true},
		{"usage", usageError(errors.New("bad flag")), exitUsage, true},
		{"bad input", badInputError(errors.New("binary")), exitBadInput, true},
		{"no fit", noFitError(errors.New("over")), exitNoFit, true},
		{"usage beats a library sentinel", usageError(wrap(budget.ErrNoFit)), exitUsage, true},
		{"broken pipe", wrap(syscall.EPIPE), exitOK, false},
		{"broken pipe in a usage error", usageError(wrap(syscall.EPIPE)), exitOK, false},
		{"trimmed", exitStatus(exitTrimmed), exitTrimmed, false},
		// Ctrl-C in select: exit 130 was silent.
		{"interrupt", exitStatus(exitInterrupt), exitInterrupt, true},
		{"interrupt described", interruptError("interrupted after writing 1 of 2 parts"), exitInterrupt, true},
		{"fit marker", wrap(budget.ErrBudgetTooSmall), exitNoFit, true},
		{"history no fit", wrap(history.ErrNoFit), exitNoFit, true},
		{"history bad input", wrap(history.ErrBadInput), exitBadInput, true},
		{"split no fit", wrap(split.ErrNoFit), exitNoFit, true},
		{"split too many parts", wrap(split.ErrTooManyParts), exitNoFit, true},
		{"select task too large", wrap(slicer.ErrTaskTooLarge), exitNoFit, true},
		{"budget no fit", wrap(&budget.NoFitError{Pinned: 2, Budget: 1}), exitNoFit, true},
		{"task too large", &budget.TaskTooLargeError{What: "x", Need: 2, Budget: 1}, exitNoFit, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			e := &env{stderr: &stderr}
			if got := e.report(tc.err); got != tc.code {
				t.Errorf("exit %d, want %d", got, tc.code)
			}
			if printed := stderr.Len() > 0; printed != tc.printed {
				t.Errorf("stderr %q, printed = %v, want %v", stderr.String(), printed, tc.printed)
			}
			want := fmt.Sprintf("ctxtrim: %v\n", tc.err)
			if tc.name == "interrupt" {
				want = "ctxtrim: interrupted\n"
			}
			if tc.printed && stderr.String() != want {
				t.Errorf("stderr %q, want one prefixed line", stderr.String())
			}
		})
	}
}

// TestCommandTable: the table is sorted (help lists it in order) and
// every name is unique.
func TestCommandTable(t *testing.T) {
	names := commandNames()
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("command table not sorted or duplicate: %q before %q", names[i-1], names[i])
		}
	}
	if len(names) != 11 {
		t.Errorf("%d commands, want 11: %q", len(names), names)
	}
}
