package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStubValidation checks the stub's validation against the rules of the
// real APIs it plays, so that a test that asserts "every request valid"
// asserts something: each malformed history is refused with the API's own
// wording, each well-formed one accepted. It runs in-process, without
// CTXTRIM_E2E.
func TestStubValidation(t *testing.T) {
	responses := []struct {
		name, input, want string
	}{
		{"paired", `[{"type":"message","role":"user","content":"hi"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"x"}]`, ""},
		{"output without its call", `[{"type":"message","role":"user","content":"hi"},{"type":"function_call_output","call_id":"c1","output":"x"}]`,
			"No tool call found for function call output with call_id c1."},
		{"output before its call", `[{"type":"function_call_output","call_id":"c1","output":"x"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}]`,
			"No tool call found for function call output with call_id c1."},
		{"call without its output", `[{"type":"message","role":"user","content":"hi"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}]`,
			"No tool output found for function call c1."},
		{"custom tool output of a function call", `[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"custom_tool_call_output","call_id":"c1","output":"x"}]`,
			"No tool call found for custom tool call output with call_id c1."},
		{"tool search paired", `[{"type":"tool_search_call","call_id":"s1"},{"type":"tool_search_output","call_id":"s1","tools":[]}]`, ""},
	}
	for _, tc := range responses {
		t.Run("responses/"+tc.name, func(t *testing.T) {
			var input []json.RawMessage
			if err := json.Unmarshal([]byte(tc.input), &input); err != nil {
				t.Fatal(err)
			}
			if got := validResponsesInput(input); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}

	messages := []struct {
		name, msgs, want string
	}{
		{"paired", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]`, ""},
		{"assistant first", `[{"role":"assistant","content":"hi"},{"role":"user","content":"hi"}]`, `messages: first message must use the "user" role`},
		{"result without its use", `[{"role":"user","content":"hi"},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]`,
			"messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: t1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."},
		{"use without its result", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]},{"role":"user","content":"go on"}]`,
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1. Each `tool_use` block must have a corresponding `tool_result` block in the next message."},
		{"result two turns later", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]`,
			"messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."},
		// Consecutive messages of one role are one turn: a result in the
		// second of two user messages answers the use before them.
		{"consecutive user messages merged", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]},{"role":"user","content":"note"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}]`, ""},
	}
	for _, tc := range messages {
		t.Run("messages/"+tc.name, func(t *testing.T) {
			var msgs []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			}
			if err := json.Unmarshal([]byte(tc.msgs), &msgs); err != nil {
				t.Fatal(err)
			}
			var roles []string
			var contents []json.RawMessage
			for _, m := range msgs {
				roles, contents = append(roles, m.Role), append(contents, m.Content)
			}
			if got := validMessages(roles, contents); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}

	chat := []struct {
		name, msgs, want string
	}{
		{"paired", `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"x"}]`, ""},
		{"tool message without its call", `[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c1","content":"x"}]`,
			"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."},
		{"call without its tool message", `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"go on"}]`,
			"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c1"},
	}
	for _, tc := range chat {
		t.Run("chat/"+tc.name, func(t *testing.T) {
			var msgs []chatMessage
			if err := json.Unmarshal([]byte(tc.msgs), &msgs); err != nil {
				t.Fatal(err)
			}
			if got := validChat(msgs); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStubOverflow checks the stub's overflow answers on each route: the
// Responses API's states no number, Chat Completions' states the window
// and the input's size, vLLM's (a model served ":vllm") the window and the
// input and completion requested, Anthropic's the input's size and the
// window; and a request the stub refuses as malformed is recorded so.
func TestStubOverflow(t *testing.T) {
	var log bytes.Buffer
	stub, err := newStubWith(1<<20, &log, "small=100;tiny-vllm=100:vllm", "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("overflow ", 300)
	for _, tc := range []struct {
		name, path, body string
		want             string // in the body
		not              string // not in the body
	}{
		{"responses", "/v1/responses", `{"model":"small","input":[{"type":"message","role":"user","content":"` + big + `"}]}`,
			`{"error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model. Please adjust your input and try again.","param":"input","type":"invalid_request_error"}}`, "100"},
		{"chat", "/v1/chat/completions", `{"model":"small","messages":[{"role":"user","content":"` + big + `"}]}`,
			"This model's maximum context length is 100 tokens. However, your messages resulted in 304 tokens. Please reduce the length of the messages.", ""},
		{"chat vllm", "/v1/chat/completions", `{"model":"tiny-vllm","max_tokens":50,"messages":[{"role":"user","content":"` + big + `"}]}`,
			`"message":"This model's maximum context length is 100 tokens. However, you requested 354 tokens (304 in the messages, 50 in the completion). Please reduce the length of the messages or completion.","object":"error","param":null,"type":"BadRequestError"`, ""},
		{"messages", "/v1/messages", `{"model":"small","max_tokens":10,"messages":[{"role":"user","content":"` + big + `"}]}`,
			"prompt is too long: ", ""},
		{"thinking budget not below max_tokens", "/v1/messages", `{"model":"big","max_tokens":20000,"thinking":{"type":"enabled","budget_tokens":31999},"messages":[{"role":"user","content":"hi"}]}`,
			"`max_tokens` must be greater than `thinking.budget_tokens`", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			stub.ServeHTTP(w, httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body)))
			body := w.Body.String()
			if w.Code != http.StatusBadRequest || !strings.Contains(body, tc.want) || (tc.not != "" && strings.Contains(body, tc.not)) {
				t.Errorf("got %d %s\nwant 400 with %s", w.Code, body, tc.want)
			}
		})
	}

	log.Reset()
	w := httptest.NewRecorder()
	stub.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/responses",
		strings.NewReader(`{"model":"small","input":[{"type":"function_call_output","call_id":"c9","output":"x"}]}`)))
	var rec stubRecord
	if err := json.Unmarshal(log.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusBadRequest || rec.Status != http.StatusBadRequest || !strings.Contains(rec.Invalid, "call_id c9") {
		t.Errorf("an orphan output: got %d, record %+v; want 400 recorded as invalid", w.Code, rec)
	}
}
