package history_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
)

// chatRequest builds an OpenAI Chat Completions request body: an agent that
// read a large log with a tool, answered, and is now asked a follow-up.
func chatRequest() string {
	var log strings.Builder
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&log, "2026-11-29T17:%02d:%02dZ worker-%d GET /orders/%d 200 %dms\n", i/60%60, i%60, i%7, 1000+i, 20+i*13%700)
	}
	args, _ := json.Marshal(map[string]string{"path": "logs/api.log"})
	req := map[string]any{
		"model": "gpt-4.1",
		"messages": []any{
			map[string]any{"role": "system", "content": "You are an SRE assistant. Be brief."},
			map[string]any{"role": "user", "content": "Why was the API slow this afternoon?"},
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": "call_1", "type": "function",
				"function": map[string]any{"name": "read_file", "arguments": string(args)}}}},
			map[string]any{"role": "tool", "tool_call_id": "call_1", "content": log.String()},
			map[string]any{"role": "assistant", "content": "worker-3 served the slowest requests (up to 700 ms)."},
			map[string]any{"role": "user", "content": "Which endpoint should we cache first?"},
		},
	}
	b, _ := json.Marshal(req)
	return string(b)
}

// Prune cuts a conversation down to a budget, cheapest loss first: here the
// old tool output is replaced by a placeholder, the call and its result stay
// paired, and the system prompt and the latest question are kept.
func ExamplePrune() {
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		fmt.Println(err)
		return
	}
	conv, err := history.Parse(strings.NewReader(chatRequest()))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := history.Prune(conv, c, &history.Options{Budget: 1000, KeepLast: 1, MaskAfter: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d items, %d → %d tokens (limit %d)\n", conv.Format(), conv.Len(), res.Before, res.After, res.Limit)
	for _, s := range res.Steps {
		if s.Edits > 0 {
			fmt.Printf("step %s: %d edits\n", s.Name, s.Edits)
		}
	}
	fmt.Println("valid request:", res.Conversation.Validate() == nil)
	var out bytes.Buffer
	if err := res.Conversation.Encode(&out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("latest question kept:", strings.Contains(out.String(), "Which endpoint should we cache first?"))
	// Output:
	// chat: 6 items, 11279 → 93 tokens (limit 1000)
	// step mask: 1 edits
	// valid request: true
	// latest question kept: true
}

// provider stands for a model API whose window is smaller than the builder
// assumed: it rejects longer requests with OpenAI's error text.
type provider struct {
	window int
	c      budget.Counter
}

func (p provider) send(conv *history.Conversation) (string, error) {
	if n := history.Tokens(conv, p.c); n > p.window {
		return "", fmt.Errorf(`400 Bad Request: {"error":{"message":"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.","type":"invalid_request_error","code":"context_length_exceeded"}}`, p.window, n)
	}
	return "cache GET /orders/{id}", nil
}

// A request builder that learns the real window from the provider: it
// budgets the request for the model it was told about, and when the
// provider answers with a context-length error it reads the window from the
// message with budget.FromError, prunes the history to the new input limit
// and retries once.
func Example_retryAfterContextLengthError() {
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		fmt.Println(err)
		return
	}
	conv, err := history.Parse(strings.NewReader(chatRequest()))
	if err != nil {
		fmt.Println(err)
		return
	}
	api := provider{window: 2048, c: c} // a local model served with a 2k context

	limits := budget.Limits{Window: 8192, Reserve: 512} // what the builder assumed
	for attempt := 1; attempt <= 2; attempt++ {
		limit, err := limits.Input()
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := history.Prune(conv, c, &history.Options{Budget: limit})
		if err != nil {
			fmt.Println(err)
			return
		}
		answer, err := api.send(res.Conversation)
		if err == nil {
			fmt.Printf("attempt %d: input limit %d, sent %d tokens: %s\n", attempt, limit, res.After, answer)
			return
		}
		ov, perr := budget.FromError(err.Error())
		if errors.Is(perr, budget.ErrNotOverflow) {
			fmt.Println("not a context-length error:", err)
			return
		}
		fmt.Printf("attempt %d: input limit %d, sent %d tokens: rejected, window is %d\n", attempt, limit, res.After, ov.Window)
		limits.Window = ov.Window
	}
	// Output:
	// attempt 1: input limit 7516, sent 7512 tokens: rejected, window is 2048
	// attempt 2: input limit 1495, sent 1464 tokens: cache GET /orders/{id}
}
