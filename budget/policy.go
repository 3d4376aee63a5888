package budget

import (
	"errors"
	"fmt"
)

// The budget policy: how the limits of a request are chosen for a model,
// the same for a request builder as for the ctxtrim CLI.
//
//	window  = Policy.Window, else the overflow error's window, else the model's
//	reserve = Policy.Reserve, else the output the overflow error requested,
//	          else DefaultReserve(model, window)
//	margin  = Policy.Margin (0: DefaultMarginPercent of the window)
//	counter = the model's encoding, × its family's Factor when an estimate

// NoReserve asks Policy for no output reserve at all (Reserve 0 means the
// default).
const NoReserve = -1

// ErrNoWindow is returned (wrapped) by Policy.Limits when no window is
// known: the model has none (a name the table does not hold) and neither
// the policy nor the overflow error gives one.
var ErrNoWindow = errors.New("no context window known")

// Policy holds a caller's choices of the budget policy. The zero value
// takes every default.
type Policy struct {
	Window  int // context window; 0: the overflow error's, else the model's
	Reserve int // tokens kept for the output; 0: the default (see above), NoReserve: none
	Margin  int // safety margin; 0: DefaultMarginPercent of the window, NoMargin: none
}

// DefaultReserve is the output reserve when nothing else sets one: the
// model's max output, the only value that can never overflow; but when the
// max output would take half the window or more (GPT-4's 8192 of 8192,
// o3's 100K of 200K, or any model behind a server configured with a
// smaller window, as an overflow error reports), a quarter of the window,
// so that input keeps most of the room; and none when the model's output
// does not share its window (Gemini).
func DefaultReserve(m Model, window int) int {
	switch {
	case m.SeparateOutput:
		return 0
	case m.MaxOutput*2 >= window:
		return window / 4
	}
	return m.MaxOutput
}

// Limits returns the limits of a request to m, after an overflow error ov
// (the zero Overflow when there was none), by the policy above. Its error
// wraps ErrNoWindow when no window is known, and ErrNoFit when the reserve
// and margin leave no room for input.
func (p Policy) Limits(m Model, ov Overflow) (Limits, error) {
	window := m.Window
	switch {
	case p.Window > 0:
		window = p.Window
	case ov.Window > 0:
		window = ov.Window
	}
	if window <= 0 {
		return Limits{}, fmt.Errorf("model %q: %w", m.Name, ErrNoWindow)
	}
	reserve := DefaultReserve(m, window)
	switch {
	case p.Reserve == NoReserve:
		reserve = 0
	case p.Reserve > 0:
		reserve = p.Reserve
	case p.Reserve < 0:
		return Limits{}, fmt.Errorf("reserve %d is negative", p.Reserve)
	case ov.Output > 0:
		reserve = ov.Output
	}
	l := Limits{Window: window, Reserve: reserve, Margin: p.Margin}
	if _, err := l.Input(); err != nil {
		return Limits{}, err
	}
	return l, nil
}

// Plan is what a request builder needs for requests to one model: the
// counter and the limits, with the input limit worked out. It is
// immutable; AfterError returns a new Plan.
type Plan struct {
	Model   Model   // the table's row
	Counter Counter // exact for tiktoken models, the encoding × Model.Factor otherwise
	Limits  Limits
	Input   int    // Limits.Input(): the most tokens the request's input may take
	Policy  Policy // the choices it was made with
}

// PlanFor returns the plan for model in the built-in table under policy p
// (nil: every default); see Table.Plan.
func PlanFor(model string, p *Policy) (*Plan, error) { return DefaultTable().Plan(model, p) }

// Plan returns the plan for model (looked up as Lookup does) under policy
// p (nil: every default). Its errors wrap ErrUnknownModel, ErrNoWindow or
// ErrNoFit.
func (t *Table) Plan(model string, p *Policy) (*Plan, error) {
	m, err := t.Lookup(model)
	if err != nil {
		return nil, err
	}
	return m.Plan(p, Overflow{})
}

// Plan returns the plan for m under policy p (nil: every default) after
// the overflow ov (the zero Overflow for none).
func (m Model) Plan(p *Policy, ov Overflow) (*Plan, error) {
	var pol Policy
	if p != nil {
		pol = *p
	}
	c, err := m.Counter()
	if err != nil {
		return nil, err
	}
	l, err := pol.Limits(m, ov)
	if err != nil {
		return nil, err
	}
	in, err := l.Input()
	if err != nil {
		return nil, err
	}
	return &Plan{Model: m, Counter: c, Limits: l, Input: in, Policy: pol}, nil
}

// AfterError returns the plan for a retry after the provider rejected a
// request with errText: the window (and the requested output, as the
// reserve) the error states, FromError's reading of it, replace the
// model's; the policy's own choices still win. Text that is not an
// overflow error gives ErrNotOverflow (wrapped) and no plan.
func (p *Plan) AfterError(errText string) (*Plan, error) {
	ov, err := FromError(errText)
	if err != nil {
		return nil, err
	}
	return p.Model.Plan(&p.Policy, ov)
}
