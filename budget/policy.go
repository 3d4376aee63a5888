package budget

import (
	"errors"
	"fmt"
)

// The budget policy: how the limits of a request are chosen for a model,
// the same for a request builder as for the ctxtrim CLI.
//
//	window  = the smaller of Policy.Window and the overflow error's window,
//	          else either, else the model's
//	reserve = Policy.Reserve, else the output the overflow error requested,
//	          else DefaultReserve(model, window), at most an eighth of a
//	          window the error stated (LearnedReserveDivisor)
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
// so that input keeps most of the room, as for a model whose max output is
// unknown; and none when the model's output does not share its window
// (Gemini).
func DefaultReserve(m Model, window int) int {
	switch {
	case m.SeparateOutput:
		return 0
	case m.MaxOutput <= 0:
		// A model described by a window alone (-window N -encoding E):
		// its max output is unknown, so it may take half the window or
		// more, and the rule for such a model applies.
		return window / 4
	case m.MaxOutput*2 >= window:
		return window / 4
	}
	return m.MaxOutput
}

// LearnedReserveDivisor sets the output reserve for a window learned from
// an overflow error, smaller than the model's own, when neither the caller
// nor the error chose one: an eighth of the window, or the model's default when that is smaller. A
// provider that serves a model with a smaller window than the table's (a
// self-hosted 24k deployment) would otherwise have the model's table
// reserve (a quarter of such a window) eat the room an agent's history
// needs. The clients measured state their own output cap when they need
// one (Claude Code sends max_tokens 32000, which is kept free), and Codex
// states none, its turns being tool calls and short answers.
const LearnedReserveDivisor = 8

// Limits returns the limits of a request to m, after an overflow error ov
// (the zero Overflow when there was none), by the policy above. Its error
// wraps ErrNoWindow when no window is known, and ErrNoFit when the reserve
// and margin leave no room for input.
func (p Policy) Limits(m Model, ov Overflow) (Limits, error) {
	window := m.Window
	switch {
	case p.Window > 0 && ov.Window > 0:
		// A provider that states a smaller window than the caller's is
		// the truth; a larger one does not lift the caller's choice.
		window = min(p.Window, ov.Window)
	case p.Window > 0:
		window = p.Window
	case ov.Window > 0:
		window = ov.Window
	}
	if window <= 0 {
		return Limits{}, fmt.Errorf("model %q: %w", m.Name, ErrNoWindow)
	}
	reserve := DefaultReserve(m, window)
	if ov.Window > 0 && window == ov.Window && (m.Window == 0 || ov.Window < m.Window) && !m.SeparateOutput {
		// A smaller window learned from the provider: see
		// LearnedReserveDivisor.
		reserve = min(reserve, max(window/LearnedReserveDivisor, 1))
	}
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
// counter and the limits, with the input limit worked out, and what the
// provider's answers taught so far. It is immutable; AfterError and
// Accepted return new Plans.
type Plan struct {
	Model   Model   // the table's row
	Counter Counter // exact for tiktoken models, the encoding × Model.Factor otherwise
	Limits  Limits
	// Input is the most tokens the request's input may take:
	// Limits.Input(), lowered to Learned.Ceiling() when an overflow error
	// stating no window taught one.
	Input   int
	Policy  Policy  // the choices it was made with
	Learned Learned // what overflow errors and accepted requests taught
	// Refits counts the overflow errors since the last accepted request;
	// AfterError gives ErrGiveUp past MaxRefits.
	Refits int
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
	var l Learned
	l.Refuse(0, ov)
	return m.plan(p, l)
}

// plan returns the plan for m under policy p with what was learned: the
// smallest stated window, and the ceiling of sizes.
func (m Model) plan(p *Policy, learned Learned) (*Plan, error) {
	var pol Policy
	if p != nil {
		pol = *p
	}
	c, err := m.Counter()
	if err != nil {
		return nil, err
	}
	l, err := pol.Limits(m, Overflow{Window: learned.Window, Output: learned.Output})
	if err != nil {
		return nil, err
	}
	in, err := l.Input()
	if err != nil {
		return nil, err
	}
	return &Plan{Model: m, Counter: c, Limits: l, Input: learned.Cap(in), Policy: pol, Learned: learned}, nil
}

// AfterError returns the plan for a retry after the provider rejected a
// request of the plan's with errText. An error that states a window (and
// the requested output, taken as the reserve) replaces the model's window
// with the smallest window stated so far; the policy's own choices still
// win. An error that states no window (OpenAI Responses, Bedrock) lowers
// the input limit to the ceiling learned from the sizes refused and
// accepted (Learned.Ceiling), taking the refused request to have been as
// large as the plan allowed. Text that is not an overflow error gives
// ErrNotOverflow (wrapped) and no plan; an overflow past MaxRefits
// retries, or one after which the limit would not shrink, gives ErrGiveUp
// (wrapped): stop and report the provider's error.
func (p *Plan) AfterError(errText string) (*Plan, error) {
	ov, err := FromError(errText)
	if err != nil {
		return nil, err
	}
	if p.Refits >= MaxRefits {
		return nil, fmt.Errorf("%d overflow errors in a row: %w", p.Refits+1, ErrGiveUp)
	}
	learned := p.Learned
	learned.Refuse(p.Input, ov)
	next, err := p.Model.plan(&p.Policy, learned)
	if err != nil {
		return nil, err
	}
	if next.Input >= p.Input {
		return nil, fmt.Errorf("the error leaves the input limit at %d tokens: %w", p.Input, ErrGiveUp)
	}
	next.Refits = p.Refits + 1
	return next, nil
}

// Accepted returns the plan after the provider accepted a request whose
// input was tokens (the plan's count): the size is learned, and the
// count of overflow retries starts again.
func (p *Plan) Accepted(tokens int) *Plan {
	next := *p
	next.Learned.Accept(tokens)
	next.Refits = 0
	return &next
}
