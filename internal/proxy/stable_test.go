package proxy

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
)

// breaks replays a tool loop that grows one step a turn, fits every turn
// to limit with the given step, and counts the turns whose request is not
// the previous request with items appended (a lost cached prefix), and
// the tokens sent in all, and by how many tokens the unpruned request grew
// from the first turn that was pruned to the last.
func breaks(t *testing.T, f history.Format, turns, limit, step int) (n, sent, growth int) {
	t.Helper()
	c, _ := budget.NewEncodingCounter(budget.O200kBase)
	ft := fitter{step: step}
	var prev []json.RawMessage
	first := 0
	for turn := 1; turn <= turns; turn++ {
		body := agent{format: f, model: "m", steps: turn, outTokens: 300}.body()
		conv, err := history.ParseFormat(bytes.NewReader(body), f)
		if err != nil {
			t.Fatal(err)
		}
		res := ft.fit(body, conv, nil, c, limit)
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
			stable, sentStable, growth := breaks(t, f, turns, limit, step)
			greedy, sentGreedy, _ := breaks(t, f, turns, limit, -1)
			t.Logf("%s: %d turns, limit %d: prefix lost %d times in steps of %d (%d tokens sent), %d times pruning just enough (%d tokens sent)",
				f, turns, limit, stable, step, sentStable, greedy, sentGreedy)
			if greedy < turns/2 {
				t.Errorf("pruning just enough broke the prefix only %d times: the scenario does not test anything", greedy)
			}
			if bound := 1 + (growth+step-1)/step; stable > bound {
				t.Errorf("steps of %d broke the prefix %d times over %d tokens of growth, want at most %d (pruning just enough: %d)", step, stable, growth, bound, greedy)
			}
		})
	}
}
