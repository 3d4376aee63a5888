// Package testreq builds request bodies that tests of several packages
// share, so that each shape has one definition.
package testreq

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ClaudeCodeLogs returns a Claude Code–shaped Anthropic Messages request:
// a long system prompt (15,001 o200k_base tokens), two user turns each
// carrying a 2,500-line log (about 76,500 tokens each), a short answer
// after each, and a short latest question. Pruning it to a budget between the pinned part and
// the whole is where an estimate counter's rounding once went wrong
// (history's TestPruneEstimateCounter, proxy's TestFitEstimateCounter).
// The body is the same on every call.
func ClaudeCodeLogs() []byte {
	logText := func(seed, n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "2026-11-29T17:%02d:%02d.%03dZ worker-%d request id=%d status=%d latency=%dms\n", i%60, (seed*7+i)%60, (i*7)%1000, seed, i, 200+i%5, (i*31)%900)
		}
		return b.String()
	}
	blocks := func(texts ...string) []any {
		var out []any
		for _, s := range texts {
			out = append(out, map[string]any{"type": "text", "text": s})
		}
		return out
	}
	body, err := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 32000,
		"system": []any{map[string]any{"type": "text", "text": strings.Repeat("You are Claude Code. ", 3000)}},
		"messages": []any{
			map[string]any{"role": "user", "content": blocks("<system-reminder>ctx</system-reminder>", "Why slow?\n"+logText(1, 2500))},
			map[string]any{"role": "assistant", "content": blocks("STUB-OK one")},
			map[string]any{"role": "user", "content": blocks("And this?\n" + logText(2, 2500))},
			map[string]any{"role": "assistant", "content": blocks("STUB-OK two")},
			map[string]any{"role": "user", "content": blocks("<system-reminder>x</system-reminder>", "Thanks. Which worker?")},
		}})
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	return body
}
