package history

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/testreq"
)

// claudeCounter is an estimate counter: o200k counts scaled by the Claude
// family's factor, rounded up (budget.Scaled).
func claudeCounter(tb testing.TB) budget.Counter {
	tb.Helper()
	c, err := budget.NewCounter("claude-sonnet-4-5")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := budget.NewEncodingCounter(budget.EncodingOf(c)); err != nil || budget.EncodingOf(c) == "" {
		tb.Fatalf("claude counter has no encoding: %v", err)
	}
	return c
}

// logRequest is testreq.ClaudeCodeLogs, parsed.
func logRequest(tb testing.TB) *Conversation {
	tb.Helper()
	conv, err := ParseFormat(bytes.NewReader(testreq.ClaudeCodeLogs()), FormatAnthropic)
	if err != nil {
		tb.Fatal(err)
	}
	return conv
}

// TestPruneEstimateCounter: under an estimate counter, Prune and Tokens
// are one accounting. Before is Tokens of the input, After is Tokens of the
// output, and a budget Prune accepts is one its output meets by Tokens:
// Prune never rejects its own result. (With the parts scaled one by one,
// Prune counted this request 160 tokens above Tokens and, at 81,921, cut to
// a request Tokens put over the budget: "internal error: pruned request has
// … tokens, over the budget".)
func TestPruneEstimateCounter(t *testing.T) {
	c := claudeCounter(t)
	conv := logRequest(t)
	full := Tokens(conv, c)
	for _, limit := range []int{81921, 100000, 145709} {
		res, err := Prune(conv, c, &Options{Budget: limit})
		if err != nil {
			t.Errorf("limit %d: %v", limit, err)
			continue
		}
		if res.Before != full {
			t.Errorf("limit %d: Result.Before = %d, Tokens(input) = %d", limit, res.Before, full)
		}
		if got := Tokens(res.Conversation, c); got > limit || got != res.After {
			t.Errorf("limit %d: Tokens(output) = %d, Result.After = %d", limit, got, res.After)
		}
	}
}

// TestPruneEstimateFixtures holds the same accounting on every fixture,
// at budgets from the pinned minimum to the full size: Prune succeeds at
// every budget from Result.Pinned up, fails with ErrNoFit below it, and
// its figures are Tokens' (Before of the input, After of the output).
func TestPruneEstimateFixtures(t *testing.T) {
	c := claudeCounter(t)
	for _, p := range fixtures(t) {
		conv, _ := parseFile(t, p)
		full := Tokens(conv, c)
		probe, err := Prune(conv, c, &Options{Budget: max(full-1, 1), KeepLast: 1})
		var nf *budget.NoFitError
		switch {
		case errors.As(err, &nf):
			if nf.Pinned < full {
				t.Errorf("%s: pinned %d below the full %d, yet no fit at %d", p, nf.Pinned, full, full-1)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", p, err)
			continue
		}
		pinned := probe.Pinned
		sum := 0
		if _, err := Prune(conv, c, &Options{Budget: pinned - 1, KeepLast: 1}); !errors.As(err, &nf) {
			t.Errorf("%s: budget %d, one below the pinned minimum: err = %v, want a NoFitError", p, pinned-1, err)
		} else {
			for _, s := range nf.Breakdown {
				sum += s.Tokens
			}
			if nf.Pinned != pinned || sum != pinned {
				t.Errorf("%s: NoFitError.Pinned %d, breakdown sums to %d; Result.Pinned %d", p, nf.Pinned, sum, pinned)
			}
		}
		for _, f := range []float64{0, 0.01, 0.3, 0.7, 0.99} {
			limit := pinned + int(f*float64(full-pinned))
			res, err := Prune(conv, c, &Options{Budget: limit, KeepLast: 1})
			if err != nil {
				t.Errorf("%s: budget %d (pinned %d, full %d): %v", p, limit, pinned, full, err)
				continue
			}
			if res.Before != full || res.Pinned != pinned {
				t.Errorf("%s: budget %d: Before %d, Pinned %d; want %d, %d", p, limit, res.Before, res.Pinned, full, pinned)
			}
			if got := Tokens(res.Conversation, c); got > limit || got != res.After {
				t.Errorf("%s: budget %d: Tokens(output) = %d, Result.After = %d", p, limit, got, res.After)
			}
			for _, s := range res.Steps {
				if s.After > s.Before {
					t.Errorf("%s: budget %d: step %s grew the request %d → %d", p, limit, s.Name, s.Before, s.After)
				}
			}
			if n := len(res.Steps); n > 0 && (res.Steps[0].Before != full || res.Steps[n-1].After != res.After) {
				t.Errorf("%s: budget %d: steps run %d → %d, the request %d → %d", p, limit, res.Steps[0].Before, res.Steps[n-1].After, full, res.After)
			}
		}
	}
}
