package inflight_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/inflight"
)

// A request builder sends a growing Responses conversation to a provider
// whose window it does not know and whose overflow error states none (as
// OpenAI's Responses API does). The Fitter learns a ceiling from the first
// refusal and fits every later request under it; the builder's code is one
// call per request.
func ExampleFitter_Do() {
	const window = 3000
	c, _ := budget.NewEncodingCounter(budget.O200kBase)
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		conv, err := history.ParseFormat(bytes.NewReader(body), history.FormatResponses)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if history.Tokens(conv, c) > window {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`)
			return
		}
		io.WriteString(w, `{"status":"completed"}`)
	}))
	defer provider.Close()

	// gpt-4o's table window is 128k; this deployment serves 3k.
	f, err := inflight.New(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	input := []any{map[string]any{"role": "user", "content": "Why is the build slow?"}}
	for turn := 1; turn <= 6; turn++ {
		input = append(input,
			map[string]any{"type": "function_call", "call_id": fmt.Sprint("c", turn), "name": "shell", "arguments": `{"cmd":"make -d"}`},
			map[string]any{"type": "function_call_output", "call_id": fmt.Sprint("c", turn), "output": strings.Repeat("make: considering target file. ", 120)})
		body, _ := json.Marshal(map[string]any{"model": "gpt-4o", "input": input})
		req, _ := http.NewRequest(http.MethodPost, provider.URL+"/v1/responses", bytes.NewReader(body))
		resp, x, err := f.Do(nil, req)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Printf("turn %d: %d after %d attempt(s), %d → %d tokens\n", turn, resp.StatusCode, x.Attempts, x.In, x.Out)
	}
	fmt.Printf("learned ceiling: %d tokens\n", f.Learned("gpt-4o").Ceiling())
	// Output:
	// turn 1: 200 after 1 attempt(s), 754 → 754 tokens
	// turn 2: 200 after 1 attempt(s), 1495 → 1495 tokens
	// turn 3: 200 after 1 attempt(s), 2236 → 2236 tokens
	// turn 4: 200 after 1 attempt(s), 2977 → 2977 tokens
	// turn 5: 200 after 2 attempt(s), 3718 → 2306 tokens
	// turn 6: 200 after 1 attempt(s), 4459 → 2338 tokens
	// learned ceiling: 2977 tokens
}
