package inflight

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/internal/testreq"
)

// responsesOverflow is OpenAI's Responses API message for an input over
// the window (HTTP 400, code context_length_exceeded): no numbers.
const responsesOverflow = "Your input exceeds the context window of this model. Please adjust your input and try again."

// provider is a model server for the Fitter's tests: a window per model
// (input only, as OpenAI checks it; for Anthropic, input plus max_tokens
// too), with the providers' own overflow errors, capacity failures per
// model, and a record of every request.
type provider struct {
	t        testing.TB
	c        budget.Counter
	windows  map[string]int
	capacity map[string]bool

	mu   sync.Mutex
	reqs []provReq
}

type provReq struct {
	model     string
	tokens    int
	maxTokens int
	status    int
	body      []byte
}

func newProvider(t testing.TB, windows map[string]int) *provider {
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return &provider{t: t, c: c, windows: windows, capacity: map[string]bool{}}
}

func (p *provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f, _ := FormatOf(r.URL.Path)
	rec := provReq{body: body}
	defer func() {
		p.mu.Lock()
		p.reqs = append(p.reqs, rec)
		p.mu.Unlock()
	}()
	conv, err := history.ParseFormat(bytes.NewReader(body), f)
	if err == nil {
		err = conv.Validate()
	}
	if err != nil {
		rec.status = 400
		http.Error(w, `{"error":{"message":"invalid request: `+err.Error()+`","type":"invalid_request_error"}}`, 400)
		return
	}
	var h struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Thinking  *struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
	}
	json.Unmarshal(body, &h)
	rec.model, rec.maxTokens = h.Model, h.MaxTokens
	if t := h.Thinking; f == history.FormatAnthropic && t != nil && t.Type == "enabled" && (t.BudgetTokens >= h.MaxTokens || t.BudgetTokens < 1024) {
		// Anthropic's own checks of an extended-thinking request.
		rec.status = 400
		w.WriteHeader(400)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"`+"`max_tokens` must be greater than `thinking.budget_tokens`"+`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"}}`)
		return
	}
	rec.tokens = history.Tokens(conv, p.c)
	w.Header().Set("Content-Type", "application/json")
	if p.capacity[h.Model] {
		rec.status = 503
		w.WriteHeader(503)
		io.WriteString(w, `{"error":{"message":"Selected model is at capacity. Please try a different model.","type":"server_error","code":"server_is_overloaded"}}`)
		return
	}
	win := p.windows[h.Model]
	switch {
	case win > 0 && rec.tokens > win && f == history.FormatAnthropic:
		rec.status = 400
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: %d tokens > %d maximum"}}`, rec.tokens, win)
	case win > 0 && f == history.FormatAnthropic && rec.tokens+h.MaxTokens > win:
		rec.status = 400
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"input length and `+"`max_tokens`"+` exceed context limit: %d + %d > %d, decrease input length or `+"`max_tokens`"+` and try again"}}`, rec.tokens, h.MaxTokens, win)
	case win > 0 && rec.tokens > win && f == history.FormatResponses:
		rec.status = 400
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`, responsesOverflow)
	case win > 0 && rec.tokens > win:
		rec.status = 400
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":{"message":"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, win, rec.tokens)
	default:
		rec.status = 200
		fmt.Fprintf(w, `{"id":"ok","model":%q,"usage":{"input_tokens":%d}}`, h.Model, rec.tokens)
	}
}

func (p *provider) requests() []provReq {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]provReq(nil), p.reqs...)
}

// tableOf resolves every model to o200k_base with the given windows (a
// model not listed: 1M tokens, as a table may claim), no margin, no
// reserve beyond what a learned window takes.
func tableOf(windows map[string]int) func(string, int) (Target, error) {
	c, _ := budget.NewEncodingCounter(budget.O200kBase)
	return func(model string, learned int) (Target, error) {
		w, ok := windows[model]
		if !ok {
			w = 1 << 20
		}
		t := Target{Counter: c, Window: w, Margin: budget.NoMargin}
		if learned > 0 {
			t.Window, t.Reserve = min(w, learned), learned/budget.LearnedReserveDivisor
		}
		return t, nil
	}
}

func postTo(t testing.TB, f *Fitter, url string, format history.Format, body []byte) (int, *Exchange) {
	t.Helper()
	path := map[history.Format]string{history.FormatResponses: "/v1/responses", history.FormatChat: "/v1/chat/completions", history.FormatAnthropic: "/v1/messages"}[format]
	req, err := http.NewRequest(http.MethodPost, url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, x, err := f.Do(nil, req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, x
}

// TestSessionWithoutNumbers plays an agent's session whose history grows
// past a window the provider never states (OpenAI Responses' error): every
// turn is answered, at most two requests of the whole session are
// refused, none is sent above a size already refused, and every request
// is valid.
func TestSessionWithoutNumbers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		out   int // tokens of each tool output
		first int // steps of the first request
	}{
		{"grows gradually", 700, 1},
		{"first request already over", 700, 40},
		{"large steps", 2500, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const window = 24000
			prov := newProvider(t, map[string]int{"m": window})
			srv := httptest.NewServer(prov)
			defer srv.Close()
			f, err := New(&Options{Resolve: tableOf(nil)})
			if err != nil {
				t.Fatal(err)
			}
			for turn := 0; turn < 40; turn++ {
				body := testreq.Agent{Format: "responses", Model: "m", Steps: tc.first + turn, OutTokens: tc.out}.Body()
				st, x := postTo(t, f, srv.URL, history.FormatResponses, body)
				if st != 200 {
					t.Fatalf("turn %d: status %d after %d attempts: %v", turn+1, st, x.Attempts, x.Notes)
				}
			}
			refused, smallest := 0, 0
			for i, r := range prov.requests() {
				if smallest > 0 && r.tokens >= smallest {
					t.Errorf("request %d: %d tokens, not below the %d refused before", i+1, r.tokens, smallest)
				}
				if r.status == 400 {
					refused++
					if smallest == 0 || r.tokens < smallest {
						smallest = r.tokens
					}
				}
			}
			t.Logf("%d requests, %d refused; learned %+v", len(prov.requests()), refused, f.Learned("m"))
			if refused > 2 {
				t.Errorf("%d requests refused in the session, want at most 2 (learned %+v)", refused, f.Learned("m"))
			}
			if l := f.Learned("m"); l.Ceiling() == 0 || l.Ceiling() > window {
				t.Errorf("learned %+v: want a ceiling within the window %d", l, window)
			}
		})
	}
}

// TestOverflowNeverLoops: a provider that refuses whatever it is sent,
// with no numbers: the request is sent at most 1 + budget.MaxRefits times,
// each smaller, and the provider's error is the answer.
func TestOverflowNeverLoops(t *testing.T) {
	prov := newProvider(t, map[string]int{"m": 1})
	srv := httptest.NewServer(prov)
	defer srv.Close()
	f, _ := New(&Options{Resolve: tableOf(nil)})
	body := testreq.Agent{Format: "responses", Model: "m", Steps: 30, OutTokens: 300}.Body()
	st, x := postTo(t, f, srv.URL, history.FormatResponses, body)
	reqs := prov.requests()
	if st != 400 || len(reqs) != 1+budget.MaxRefits || x.Attempts != len(reqs) {
		t.Fatalf("status %d after %d requests (%d attempts), want 400 after %d", st, len(reqs), x.Attempts, 1+budget.MaxRefits)
	}
	for i := 1; i < len(reqs); i++ {
		if reqs[i].tokens >= reqs[i-1].tokens {
			t.Errorf("attempt %d: %d tokens, not below %d", i+1, reqs[i].tokens, reqs[i-1].tokens)
		}
	}
}

// claudeCodeLike is an Anthropic request as Claude Code sends it: a large
// system prompt, max_tokens 32000, a tool loop of steps outputs.
func claudeCodeLike(system, steps, out int) []byte {
	var msgs []any
	msgs = append(msgs, map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "<system-reminder>\nCLAUDE.md: MARKER-7\n</system-reminder>"},
		map[string]any{"type": "text", "text": "Fix the retry bug."}}})
	for i := 0; i < steps; i++ {
		id := fmt.Sprintf("toolu_%02d", i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": fmt.Sprintf("f%d.go", i)}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": testreq.Words(i, out)}}})
	}
	return testreq.MustJSON(map[string]any{"model": "claude", "max_tokens": 32000, "stream": false,
		"thinking": map[string]any{"type": "enabled", "budget_tokens": 31999},
		"system":   []any{map[string]any{"type": "text", "text": testreq.Words(99, system)}}, "messages": msgs})
}

// TestSmallestValidForm: Claude Code states max_tokens 32000 (and a
// thinking budget of 31999) on a 70k window, so the input limit (70k − 32k − margin) is below the request's
// pinned minimum. The request would be refused as it is; the Fitter sends
// its smallest valid form with max_tokens lowered to what the window
// leaves, and the provider accepts it at the first attempt.
func TestSmallestValidForm(t *testing.T) {
	const window = 70000
	prov := newProvider(t, map[string]int{"claude": window})
	srv := httptest.NewServer(prov)
	defer srv.Close()
	c, _ := budget.NewEncodingCounter(budget.O200kBase)
	f, _ := New(&Options{Resolve: func(string, int) (Target, error) {
		return Target{Counter: c, Window: window}, nil // default margin: 2%
	}})
	// A 37k system prompt: pinned, over 70000 − 32000 − 1400.
	body := claudeCodeLike(37000, 12, 2000)
	st, x := postTo(t, f, srv.URL, history.FormatAnthropic, body)
	reqs := prov.requests()
	if st != 200 || len(reqs) != 1 {
		t.Fatalf("status %d after %d requests, want one accepted: notes %q", st, len(reqs), x.Notes)
	}
	r := reqs[0]
	if r.maxTokens >= 32000 || r.tokens+r.maxTokens > window || r.maxTokens < 1 {
		t.Errorf("sent %d tokens with max_tokens %d: want max_tokens lowered to fit the %d window", r.tokens, r.maxTokens, window)
	}
	if !strings.Contains(string(r.body), "MARKER-7") {
		t.Errorf("the smallest form lost the injected CLAUDE.md")
	}
	var sent struct {
		Thinking struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
	}
	json.Unmarshal(r.body, &sent)
	if sent.Thinking.Type != "enabled" || sent.Thinking.BudgetTokens != r.maxTokens-1 {
		t.Errorf("thinking %+v with max_tokens %d: want the budget just below max_tokens", sent.Thinking, r.maxTokens)
	}
	if !strings.Contains(strings.Join(x.Notes, "; "), "smallest valid form") || !strings.Contains(strings.Join(x.Notes, "; "), "max_tokens 32000 →") {
		t.Errorf("notes %q do not say what was done", x.Notes)
	}
}

// TestStatedWindowChained: an error stating a window is kept; a later
// error stating none does not bring back the table's window.
func TestStatedWindowChained(t *testing.T) {
	prov := newProvider(t, map[string]int{"m": 16000})
	srv := httptest.NewServer(prov)
	defer srv.Close()
	f, _ := New(&Options{Resolve: tableOf(nil)})
	body := testreq.Agent{Format: "chat", Model: "m", Steps: 40, OutTokens: 500}.Body()
	if st, x := postTo(t, f, srv.URL, history.FormatChat, body); st != 200 || x.Attempts != 2 {
		t.Fatalf("status %d after %d attempts: %v", st, x.Attempts, x.Notes)
	}
	if l := f.Learned("m"); l.Window != 16000 {
		t.Fatalf("learned %+v, want the stated window 16000", l)
	}
	// The next request is fitted to the learned window at once.
	n := len(prov.requests())
	if st, x := postTo(t, f, srv.URL, history.FormatChat, body); st != 200 || x.Attempts != 1 || x.Limit > 16000 {
		t.Errorf("status %d after %d attempts, limit %d: want one attempt within 16000", st, x.Attempts, x.Limit)
	}
	if got := len(prov.requests()) - n; got != 1 {
		t.Errorf("%d requests for the second, want 1", got)
	}
}

// TestCapacityFallback: the primary is at capacity; the request lands on
// the backup, re-fitted to the backup's smaller window, after a backoff.
func TestCapacityFallback(t *testing.T) {
	prov := newProvider(t, map[string]int{"backup": 6000})
	prov.capacity["primary"] = true
	srv := httptest.NewServer(prov)
	defer srv.Close()
	var waited []time.Duration
	f, _ := New(&Options{Resolve: tableOf(map[string]int{"primary": 100000, "backup": 6000}),
		Fallback: map[string][]string{"primary": {"backup"}},
		Sleep:    func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil },
		Rand:     func() float64 { return 0.5 }})
	body := testreq.Agent{Format: "responses", Model: "primary", Steps: 20, OutTokens: 500}.Body()
	st, x := postTo(t, f, srv.URL, history.FormatResponses, body)
	reqs := prov.requests()
	if st != 200 || len(reqs) != 2 || reqs[0].status != 503 || reqs[1].model != "backup" || reqs[1].tokens > 6000 {
		t.Fatalf("status %d, requests %+v", st, reqs)
	}
	if x.Sent != "backup" || len(waited) != 1 || waited[0] != DefaultBackoff/2 {
		t.Errorf("sent to %q after waits %v, want backup after %v", x.Sent, waited, DefaultBackoff/2)
	}
}
