package inflight

import (
	"fmt"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
)

// Target is what a request is fitted to: how to count it and how large a
// request its model takes.
type Target struct {
	Counter budget.Counter // required
	Window  int            // context window in tokens; 0 when unknown (then only Options.Budget limits)
	Reserve int            // tokens kept for the output when the request states less
	Margin  int            // as budget.Limits.Margin: 0 is the default margin, budget.NoMargin none
}

// limit returns the input limit of a request to t that states an output
// cap of stated tokens, capped at cap when positive: 0 when there is no
// limit at all, -1 when the window leaves no room for input.
func (t Target) limit(stated, cap int) int {
	n := 0
	if t.Window > 0 {
		in, err := t.limits(stated).Input()
		if err != nil {
			return -1
		}
		n = in
	}
	if cap > 0 && (n == 0 || cap < n) {
		n = cap
	}
	return n
}

// limits are t's limits for a request that states an output cap of
// stated tokens.
func (t Target) limits(stated int) budget.Limits {
	return budget.Limits{Window: t.Window, Reserve: max(t.Reserve, stated), Margin: t.Margin}
}

// Models resolves model names to Targets with a model table and a budget
// policy: the one resolution the proxy, the CLI's budget flags and request
// builders share. The zero value resolves with the built-in table and
// every default. It is safe for concurrent use; do not change it after
// first use.
type Models struct {
	// Table is the model table; nil means budget.DefaultTable().
	Table *budget.Table
	// Policy holds the caller's choices. Policy.Window, when positive,
	// replaces the window of every model, table or not (a deployment
	// serving a known model with a smaller window); a smaller window
	// stated by an overflow error still wins. Reserve and Margin are as
	// budget.Policy says.
	Policy budget.Policy
	// Default names the table model whose row (tokenizer, window) a
	// model missing from the table takes; "" means none, and then such a
	// model resolves only when Policy.Window is set, counted with
	// o200k_base.
	Default string
	// Encoding, when set, counts with this encoding instead of the
	// model's tokenizer.
	Encoding string
}

// Resolve returns the target of model. learned, when positive, is a
// window an overflow error stated for it (the smaller of it and
// Policy.Window applies), with the output reserve
// budget.LearnedReserveDivisor sets unless the policy chose one.
func (ms Models) Resolve(model string, learned int) (Target, error) {
	table := ms.Table
	if table == nil {
		table = budget.DefaultTable()
	}
	m, err := table.Lookup(model)
	if err != nil {
		name := strings.TrimSpace(ms.Default)
		switch fm, ferr := table.Lookup(name); {
		case name != "" && ferr == nil:
			m = fm
		case ms.Policy.Window > 0:
			m = budget.Model{Name: model, Encoding: budget.O200kBase}
		default:
			return Target{}, err
		}
	}
	m = m.WithEncoding(ms.Encoding)
	pol := ms.Policy
	// budget's plan is the one place a model becomes a counter and limits.
	plan, err := m.Plan(&pol, budget.Overflow{Window: learned})
	if err != nil {
		return Target{}, fmt.Errorf("model %s: %w", model, err)
	}
	return Target{Counter: plan.Counter, Window: plan.Limits.Window, Reserve: plan.Limits.Reserve, Margin: plan.Limits.Margin}, nil
}

// DefaultResolve resolves a model with the built-in model table and every
// default: Models{}.Resolve.
func DefaultResolve(model string, learned int) (Target, error) {
	return Models{}.Resolve(model, learned)
}
