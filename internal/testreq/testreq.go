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

// Words returns about n tokens of varied text, seeded so that outputs
// differ from each other.
func Words(seed, n int) string {
	vocab := []string{"retry", "request", "body", "attempt", "drops", "backoff", "client", "timeout", "payload", "resend", "worker", "latency"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(vocab[(seed*7+i*i+i)%len(vocab)])
		if i%13 == 12 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// Agent describes a tool-loop conversation: a system prompt, one task,
// then steps of (call, output of OutTokens tokens).
type Agent struct {
	// Format is a history.Format's name ("chat", "anthropic", anything
	// else for Responses): testreq cannot import history, whose tests use it.
	Format    string
	Model     string
	Steps     int
	OutTokens int
	Stream    bool
	Secret    string // text put in the task, which must never reach a log
}

// Body renders the conversation as a request body of its format.
func (a Agent) Body() []byte {
	task := "Fix the retry bug. " + a.Secret
	var msgs []any
	switch a.Format {
	case "chat":
		msgs = append(msgs, map[string]any{"role": "system", "content": "You are a coding agent."},
			map[string]any{"role": "user", "content": task})
		for i := 0; i < a.Steps; i++ {
			id := fmt.Sprintf("call_%d", i)
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function",
					"function": map[string]any{"name": "shell", "arguments": fmt.Sprintf(`{"cmd":"cat file%d.go"}`, i)}}}},
				map[string]any{"role": "tool", "tool_call_id": id, "content": Words(i, a.OutTokens)})
		}
		return MustJSON(map[string]any{"model": a.Model, "stream": a.Stream, "messages": msgs})
	case "anthropic":
		msgs = append(msgs, map[string]any{"role": "user", "content": task})
		for i := 0; i < a.Steps; i++ {
			id := fmt.Sprintf("toolu_%d", i)
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "bash",
					"input": map[string]any{"command": fmt.Sprintf("cat file%d.go", i)}}}},
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": Words(i, a.OutTokens)}}})
		}
		return MustJSON(map[string]any{"model": a.Model, "max_tokens": 1024, "stream": a.Stream, "system": "You are a coding agent.", "messages": msgs})
	default:
		msgs = append(msgs, map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": task}}})
		for i := 0; i < a.Steps; i++ {
			id := fmt.Sprintf("call_%d", i)
			msgs = append(msgs,
				map[string]any{"type": "function_call", "call_id": id, "name": "shell", "arguments": fmt.Sprintf(`{"cmd":"cat file%d.go"}`, i)},
				map[string]any{"type": "function_call_output", "call_id": id, "output": Words(i, a.OutTokens)})
		}
		return MustJSON(map[string]any{"model": a.Model, "stream": a.Stream, "instructions": "You are a coding agent.", "input": msgs})
	}
}

// MustJSON marshals v, which must marshal.
func MustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
