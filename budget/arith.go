package budget

import (
	"errors"
	"fmt"
)

// Budget arithmetic.
//
// A request must fit the model's context window, which holds the input and
// the output together:
//
//	input limit = window − reserve − margin
//
// reserve is kept for the model's reply (DefaultReserve: the model's max
// output, the only value that can never overflow), and margin absorbs
// what a text count does not see: chat framing, tool definitions, a
// provider's tokenizer drifting from ours. Margin defaults to
// DefaultMarginPercent of the window.
//
// The input limit is then split between the sections of a request by
// Allocate:
//
//  1. The system prompt (instructions) and the task are pinned: they get
//     what they need, or the request cannot be built (ErrNoFit).
//  2. The rest R is shared by the two flexible sections, conversation
//     history and repository context. Each is guaranteed its share of R
//     (HistoryShare percent for history, the remainder for context); what
//     one section does not need flows to the other.
//
// A section's need is its full size in tokens; Allocate never grants more
// than a section needs, so Sections.Total() ≤ the input limit always.

// DefaultMarginPercent is the margin kept free when Limits.Margin is 0: 2%
// of the window covers the per-message framing of a long chat (3–4 tokens a
// message) and a tokenizer revision, while costing little on any window.
const DefaultMarginPercent = 2

// NoMargin asks Limits for no safety margin at all.
const NoMargin = -1

// HistoryShare is the percentage of the flexible budget guaranteed to
// conversation history; repository context is guaranteed the rest. Context
// gets the larger share because it is what a coding request is about, and
// old history can be summarised or dropped with less loss.
const HistoryShare = 40

// ErrNoFit is returned (wrapped) when the fixed parts of a request leave no
// room: the window is smaller than reserve + margin, or the pinned sections
// exceed the input limit.
var ErrNoFit = errors.New("does not fit")

// Limits are the fixed quantities of a budget. The zero value has no window
// and Input reports an error for it.
type Limits struct {
	Window  int // context window in tokens, input and output together
	Reserve int // tokens kept for the output; 0 keeps none
	Margin  int // safety margin in tokens; 0 means DefaultMarginPercent of Window, NoMargin means none
}

// MarginTokens returns the margin in tokens, applying the default.
func (l Limits) MarginTokens() int {
	switch {
	case l.Margin == NoMargin:
		return 0
	case l.Margin == 0:
		return (l.Window*DefaultMarginPercent + 99) / 100
	}
	return l.Margin
}

// Input returns the input token limit, Window − Reserve − margin. It
// rejects negative or absurd values and a result below 1 (wrapping ErrNoFit).
func (l Limits) Input() (int, error) {
	switch {
	case l.Window <= 0:
		return 0, fmt.Errorf("window %d must be positive", l.Window)
	case l.Window > maxWindow:
		return 0, fmt.Errorf("window %d is absurd (limit %d)", l.Window, maxWindow)
	case l.Reserve < 0:
		return 0, fmt.Errorf("reserve %d is negative", l.Reserve)
	case l.Margin < NoMargin:
		return 0, fmt.Errorf("margin %d is negative", l.Margin)
	}
	m := l.MarginTokens()
	in := l.Window - l.Reserve - m
	if in < 1 {
		return 0, fmt.Errorf("window %d − reserve %d − margin %d leaves no room for input: %w", l.Window, l.Reserve, m, ErrNoFit)
	}
	return in, nil
}

// Sections are token amounts for the parts of a request: what each part
// needs (the input of Allocate) or what it may use (the output).
type Sections struct {
	System  int // system prompt and instructions (pinned)
	Task    int // the user's task or question (pinned)
	History int // earlier conversation turns (flexible)
	Context int // repository context: files, snippets (flexible)
}

// Total returns the sum of the sections.
func (s Sections) Total() int { return s.System + s.Task + s.History + s.Context }

// Allocate splits the input limit between sections that need the given
// amounts, by the policy in the package documentation. The result never
// exceeds need in any section, and its Total never exceeds input.
func Allocate(input int, need Sections) (Sections, error) {
	if input < 0 || input > maxWindow {
		return Sections{}, fmt.Errorf("input limit %d out of range [0, %d]", input, maxWindow)
	}
	if need.System < 0 || need.Task < 0 || need.History < 0 || need.Context < 0 {
		return Sections{}, fmt.Errorf("negative section need %+v", need)
	}
	if need.System > input || need.Task > input-need.System { // no overflow
		return Sections{}, fmt.Errorf("system %d + task %d tokens exceed the input limit %d: %w", need.System, need.Task, input, ErrNoFit)
	}
	rest := input - need.System - need.Task
	histShare := rest * HistoryShare / 100
	ctxShare := rest - histShare

	out := Sections{System: need.System, Task: need.Task}
	out.History = min(need.History, histShare)
	out.Context = min(need.Context, ctxShare)
	// Unused share flows to the other flexible section.
	spare := rest - out.History - out.Context
	if more := min(need.History-out.History, spare); more > 0 {
		out.History += more
		spare -= more
	}
	if more := min(need.Context-out.Context, spare); more > 0 {
		out.Context += more
	}
	return out, nil
}

// Prompt returns the tokens of one text that holds the task and the
// context together, as slicer.Select renders them: Task + Context. Pass it
// (not Context) as Select's budget, or the task is counted twice.
func (s Sections) Prompt() int { return s.Task + s.Context }
