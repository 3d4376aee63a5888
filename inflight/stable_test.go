package inflight

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/internal/testreq"
)

// breaks replays a tool loop that grows one step a turn, fits every turn
// to limit with the given step, and counts the turns whose request is not
// the previous request with items appended (a lost cached prefix), and
// the tokens sent in all, and by how many tokens the unpruned request grew
// from the first turn that was pruned to the last.
func breaks(t *testing.T, f history.Format, turns, limit, step int, remember bool) (n, sent, growth int) {
	t.Helper()
	c, _ := budget.NewEncodingCounter(budget.O200kBase)
	ft := fitter{step: step}
	if remember {
		ft.sticky = newSticky(DefaultStickyBytes)
	}
	var prev []json.RawMessage
	first := 0
	for turn := 1; turn <= turns; turn++ {
		body := testreq.Agent{Format: string(f), Model: "m", Steps: turn, OutTokens: 300}.Body()
		conv, err := history.ParseFormat(bytes.NewReader(body), f)
		if err != nil {
			t.Fatal(err)
		}
		res := ft.fit("m", body, conv, nil, c, limit)
		if res.reject != nil {
			t.Fatalf("turn %d: %v", turn, res.reject)
		}
		if res.note != "" || res.after > limit {
			t.Fatalf("turn %d: %s (%d tokens, limit %d)", turn, res.note, res.after, limit)
		}
		sent += res.after
		if res.changed {
			if first == 0 {
				first = res.before
			}
			growth = res.before - first
		}
		out, err := history.ParseFormat(bytes.NewReader(res.body), f)
		if err != nil {
			t.Fatal(err)
		}
		items := out.Items()
		shared := 0
		for shared < len(prev) && shared < len(items) && bytes.Equal(prev[shared], items[shared]) {
			shared++
		}
		if shared < len(prev) {
			n++
		}
		prev = items
	}
	return n, sent, growth
}

// Pruning in steps keeps the prefix for many turns; pruning just enough
// breaks it nearly every turn once over the limit.
func TestStablePruningKeepsPrefix(t *testing.T) {
	// Each turn adds a call and an output of about 350 tokens. Once over
	// the limit, pruning just enough masks one more output nearly every
	// turn; a step frees step tokens at once, which last for step tokens
	// of growth: the first pruned request loses the prefix, then one step
	// per step tokens of growth.
	const turns, limit, step = 40, 6000, 1500
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			stable, sentStable, growth := breaks(t, f, turns, limit, step, false)
			sticky, sentSticky, _ := breaks(t, f, turns, limit, step, true)
			greedy, sentGreedy, _ := breaks(t, f, turns, limit, -1, false)
			t.Logf("%s: %d turns, limit %d: prefix lost %d times in steps of %d (%d tokens sent), %d times reusing the pruned form too (%d sent), %d times pruning just enough (%d tokens sent)",
				f, turns, limit, stable, step, sentStable, sticky, sentSticky, greedy, sentGreedy)
			if greedy < turns/2 {
				t.Errorf("pruning just enough broke the prefix only %d times: the scenario does not test anything", greedy)
			}
			bound := 1 + (growth+step-1)/step
			if stable > bound {
				t.Errorf("steps of %d broke the prefix %d times over %d tokens of growth, want at most %d (pruning just enough: %d)", step, stable, growth, bound, greedy)
			}
			if sticky > bound {
				t.Errorf("steps with reuse broke the prefix %d times, want at most %d", sticky, bound)
			}
		})
	}
}

// The proxy reuses a pruned form only for the conversation it came from:
// a request that changed an earlier item is pruned afresh.
func TestStickyOnlyExtends(t *testing.T) {
	c, _ := budget.NewEncodingCounter(budget.O200kBase)
	ft := fitter{sticky: newSticky(DefaultStickyBytes)}
	f := history.FormatChat
	fit := func(a testreq.Agent) fitResult {
		body := a.Body()
		conv, err := history.ParseFormat(bytes.NewReader(body), f)
		if err != nil {
			t.Fatal(err)
		}
		return ft.fit("m", body, conv, nil, c, 4000)
	}
	a := testreq.Agent{Format: string(f), Model: "m", Steps: 14, OutTokens: 300}
	if r := fit(a); !r.changed || strings.HasPrefix(r.steps, "as before") {
		t.Fatalf("first: want a fresh prune, got %q", r.steps)
	}
	a.Steps++
	if r := fit(a); !strings.HasPrefix(r.steps, "as before + 2 new items") {
		t.Fatalf("next turn: want the pruned form reused, got %q", r.steps)
	}
	a.Secret = "an edited task"
	if r := fit(a); strings.HasPrefix(r.steps, "as before") {
		t.Fatalf("edited history: want a fresh prune, got %q", r.steps)
	}
}

func TestStickyEvicts(t *testing.T) {
	s := newSticky(100)
	item := func(n int) []json.RawMessage { return []json.RawMessage{json.RawMessage(strings.Repeat("x", n))} }
	s.store("m", 1, [32]byte{1}, item(60))
	s.store("m", 1, [32]byte{2}, item(60))  // evicts the first
	s.store("m", 1, [32]byte{3}, item(200)) // too large: not kept
	if len(s.entries) != 1 || s.size != 60 || s.entries[stickyKey{"m", 1, [32]byte{2}}] == nil {
		t.Errorf("entries %d, size %d", len(s.entries), s.size)
	}
}
