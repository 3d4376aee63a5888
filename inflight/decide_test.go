package inflight

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/internal/testreq"
	"github.com/google/go-cmp/cmp"
)

func TestClassify(t *testing.T) {
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	for _, tc := range []struct {
		name   string
		status int
		h      http.Header
		body   string
		want   Answer
	}{
		{"success", 200, nil, `{"usage":{}}`, Answer{}},
		{"openai overflow", 400, nil, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens.","code":"context_length_exceeded"}}`,
			Answer{Kind: Overflow, Overflow: budget.Overflow{Provider: "openai", Window: 128000, Used: 130001}}},
		{"responses overflow, no numbers", 400, nil, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","code":"context_length_exceeded"}}`,
			Answer{Kind: Overflow, Overflow: budget.Overflow{Provider: "openai"}}},
		{"anthropic overflow, > escaped", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens \u003e 200000 maximum"}}`,
			Answer{Kind: Overflow, Overflow: budget.Overflow{Provider: "anthropic", Window: 200000, Used: 210000}}},
		{"anthropic input + max_tokens", 400, nil, `{"type":"error","error":{"message":"input length and ` + "`max_tokens`" + ` exceed context limit: 188240 + 21333 > 200000, decrease input length or ` + "`max_tokens`" + `"}}`,
			Answer{Kind: Overflow, Overflow: budget.Overflow{Provider: "anthropic", Window: 200000, Used: 209573, Prompt: 188240, Output: 21333}}},
		{"other 400", 400, nil, `{"error":{"message":"Invalid value for 'temperature'"}}`, Answer{}},
		{"overflow wording on a 500 is not an overflow", 500, nil, `maximum context length is 4096 tokens`, Answer{}},
		{"503", 503, hdr("Retry-After", "7"), `upstream connect error`, Answer{Kind: Capacity, RetryAfter: 7 * time.Second}},
		{"529 overloaded", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, Answer{Kind: Capacity}},
		{"429 capacity", 429, nil, `{"error":{"message":"The engine is currently overloaded, please try again later"}}`, Answer{Kind: Capacity}},
		{"429 rate limit", 429, hdr("Retry-After", "1"), `{"error":{"message":"Rate limit reached for gpt-4o on tokens per min"}}`, Answer{RetryAfter: time.Second}},
		{"429 quota", 429, nil, `{"error":{"message":"You exceeded your current quota","code":"insufficient_quota"}}`, Answer{}},
		{"codex at capacity, any status", 500, nil, `{"error":{"message":"Selected model is at capacity. Please try a different model."}}`, Answer{Kind: Capacity}},
		{"retry-after-ms", 503, hdr("Retry-After-Ms", "1500"), ``, Answer{Kind: Capacity, RetryAfter: 1500 * time.Millisecond}},
		{"404", 404, nil, `not found`, Answer{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.h
			if h == nil {
				h = http.Header{}
			}
			if diff := cmp.Diff(tc.want, Classify(tc.status, h, []byte(tc.body))); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"-1", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"99999999", maxRetryAfter},
	} {
		h := http.Header{}
		if tc.v != "" {
			h.Set("Retry-After", tc.v)
		}
		if got := retryAfter(h, now); got != tc.want {
			t.Errorf("Retry-After %q: got %v, want %v", tc.v, got, tc.want)
		}
	}
}

// The backoff is full jitter over Base×2^(n−1), capped at Max.
func TestBackoff(t *testing.T) {
	r := Retry{}.withDefaults()
	for _, tc := range []struct {
		n    int
		u    float64
		want time.Duration
	}{
		{1, 0.5, DefaultBackoff / 2},
		{1, 0, 0},
		{2, 0.5, DefaultBackoff},
		{3, 0.999, time.Duration(0.999 * float64(4*DefaultBackoff))},
		{6, 1, DefaultMaxBackoff},
		{40, 1, DefaultMaxBackoff},
	} {
		if got := r.backoff(tc.n, tc.u); got != tc.want {
			t.Errorf("backoff(%d, %v) = %v, want %v", tc.n, tc.u, got, tc.want)
		}
	}
}

func TestChain(t *testing.T) {
	fb := map[string][]string{"gpt-5.5": {"gpt-5.4-mini", " GPT-5.5 ", "o4-mini", "gpt-5.4-mini"}}
	if diff := cmp.Diff([]string{"GPT-5.5", "gpt-5.4-mini", "o4-mini"}, Chain("GPT-5.5", fb)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"claude"}, Chain("claude", fb)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// schedule: the chain in rounds, Retry-After per model, bounded attempts
// and time.
func TestSchedule(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type step struct {
		model      string        // the model that answered at capacity
		retryAfter time.Duration // its Retry-After
		at         time.Duration // when, after t0
		next       string        // "" for stop
		wait       time.Duration
	}
	for _, tc := range []struct {
		name  string
		r     Retry
		chain []string
		steps []step
	}{
		{"no fallback", Retry{}, []string{"a"}, []step{{"a", 0, 0, "", 0}}},
		{"rounds, attempts bounded", Retry{Attempts: 4}, []string{"a", "b"}, []step{
			{"a", 0, 0, "b", DefaultBackoff / 2},
			{"b", 0, time.Second, "a", DefaultBackoff},
			{"a", 0, 2 * time.Second, "b", 2 * DefaultBackoff},
			{"b", 0, 3 * time.Second, "", 0},
		}},
		{"retry-after of the model tried next", Retry{}, []string{"a", "b"}, []step{
			{"a", 5 * time.Second, 0, "b", DefaultBackoff / 2},
			{"b", 0, time.Second, "a", 4 * time.Second},
		}},
		{"a wait past MaxElapsed stops", Retry{MaxElapsed: 3 * time.Second}, []string{"a", "b"}, []step{
			{"a", 10 * time.Second, 0, "b", DefaultBackoff / 2},
			{"b", 0, time.Second, "", 0},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSchedule(tc.r, tc.chain, t0)
			for i, st := range tc.steps {
				next, wait, ok := s.next(st.model, st.retryAfter, t0.Add(st.at), 0.5)
				if next != st.next || wait != st.wait || ok != (st.next != "") {
					t.Errorf("step %d: got (%q, %v, %v), want (%q, %v)", i, next, wait, ok, st.next, st.wait)
				}
			}
		})
	}
}

func TestStableLimit(t *testing.T) {
	for _, tc := range []struct {
		total, limit, step, want int
	}{
		{900, 1000, 100, 1000}, // fits: unchanged
		{1001, 1000, 100, 901}, // 1 over: free a whole step
		{1100, 1000, 100, 1000},
		{1101, 1000, 100, 901},
		{1050, 1000, 0, 1000}, // no step: just enough
	} {
		if got := StableLimit(tc.total, tc.limit, tc.step); got != tc.want {
			t.Errorf("StableLimit(%d, %d, %d) = %d, want %d", tc.total, tc.limit, tc.step, got, tc.want)
		}
	}
}

// StableLimit's invariants: never above the limit, frees a multiple of
// the step, and requests that grow within one step free the same amount.
func FuzzStableLimit(f *testing.F) {
	f.Add(5000, 4000, 500, 30)
	f.Fuzz(func(t *testing.T, total, limit, step, growth int) {
		if total < 0 || limit < 1 || step < 1 || growth < 0 || total > 1e9 || limit > 1e9 || step > 1e9 || growth > 1e9 {
			return
		}
		got := StableLimit(total, limit, step)
		if got > limit {
			t.Fatalf("StableLimit(%d, %d, %d) = %d above the limit", total, limit, step, got)
		}
		if total <= limit {
			return
		}
		freed := total - got
		if freed%step != 0 || freed < total-limit || freed >= total-limit+step {
			t.Fatalf("frees %d for an excess of %d with step %d", freed, total-limit, step)
		}
		// Growth that stays within the step frees the same amount.
		if g := total + growth; total-got >= g-limit {
			if freed2 := g - StableLimit(g, limit, step); freed2 != freed {
				t.Fatalf("grown by %d: frees %d, not %d", growth, freed2, freed)
			}
		}
	})
}

func TestTargetLimit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		t           Target
		stated, cap int
		want        int
	}{
		{"window less default margin", Target{Window: 10000}, 0, 0, 9800},
		{"reserve", Target{Window: 10000, Reserve: 2000}, 0, 0, 7800},
		{"stated output over the reserve", Target{Window: 10000, Reserve: 2000}, 3000, 0, 6800},
		{"stated output under the reserve", Target{Window: 10000, Reserve: 2000}, 1000, 0, 7800},
		{"no margin", Target{Window: 10000, Margin: budget.NoMargin}, 0, 0, 10000},
		{"cap below", Target{Window: 10000}, 0, 5000, 5000},
		{"cap above", Target{Window: 10000}, 0, 50000, 9800},
		{"cap only", Target{}, 0, 5000, 5000},
		{"nothing", Target{}, 0, 0, 0},
		{"no room", Target{Window: 1000}, 5000, 0, -1},
	} {
		if got := tc.t.limit(tc.stated, tc.cap); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestSetModel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"model":"a","input":[]}`, `{"model":"b","input":[]}`},
		{`{ "input" : [1], "model" :  "a" , "x":{"model":"keep"}}`, `{ "input" : [1], "model" :  "b" , "x":{"model":"keep"}}`},
		{`{"input":[]}`, `{"model":"b","input":[]}`},
		{`{}`, `{"model":"b"}`},
		{"{\n  \"model\": null\n}", "{\n  \"model\": \"b\"\n}"},
	} {
		got, err := setModel([]byte(tc.in), "b")
		if err != nil || string(got) != tc.want {
			t.Errorf("setModel(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`[1]`, `{"model":`, ``} {
		if _, err := setModel([]byte(bad), "b"); err == nil {
			t.Errorf("setModel(%q): want an error", bad)
		}
	}
}

// FuzzFit: whatever the body, fitting never panics, and what it would send
// is the body itself, or a request of the route's format that parses, is
// within the limit, and is valid whenever the input was.
func FuzzFit(f *testing.F) {
	for _, fm := range formats {
		f.Add(string(fm), testreq.Agent{Format: string(fm), Model: "m", Steps: 6, OutTokens: 60}.Body(), 400)
		f.Add(string(fm), testreq.Agent{Format: string(fm), Model: "m", Steps: 1, OutTokens: 10}.Body(), 50)
	}
	f.Add("chat", []byte(`{"model":"m","messages":[{"role":"user","content":"hi"},]}`), 10)
	f.Add("responses", []byte(`{"input":"just a string","model":"m"}`), 5)
	f.Add("anthropic", []byte(`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"x","name":"n","input":{}}]}]}`), 20)
	c, _ := budget.NewEncodingCounter(budget.O200kBase)
	// The remembered pruned forms carry over from input to input, so that
	// reuse is fuzzed too.
	ft := fitter{sticky: newSticky(1 << 20)}
	f.Fuzz(func(t *testing.T, format string, body []byte, limit int) {
		fm := history.Format(format)
		if fm != history.FormatChat && fm != history.FormatResponses && fm != history.FormatAnthropic {
			return
		}
		if limit < -1 || limit > 1e6 {
			return
		}
		conv, err := history.ParseFormat(bytes.NewReader(body), fm)
		if _, herr := parseHead(body); herr != nil {
			conv, err = nil, herr
		}
		res := ft.fit("m", body, conv, err, c, limit)
		if !res.changed {
			if !bytes.Equal(res.body, body) {
				t.Fatalf("unchanged but the body differs")
			}
			return
		}
		if res.reject != nil {
			t.Fatalf("a rejected request has a changed body")
		}
		out, err := history.ParseFormat(bytes.NewReader(res.body), fm)
		if err != nil {
			t.Fatalf("the pruned request does not parse: %v\n%s", err, res.body)
		}
		if !json.Valid(res.body) {
			t.Fatalf("the pruned request is not JSON")
		}
		if n := history.Tokens(out, c); n > limit || n != res.after {
			t.Fatalf("pruned to %d tokens (reported %d), limit %d", n, res.after, limit)
		}
		if conv.Validate() == nil {
			if err := out.Validate(); err != nil {
				t.Fatalf("pruning broke a valid conversation: %v", err)
			}
		}
		if _, err := parseHead(res.body); err != nil {
			t.Fatalf("the pruned request's head: %v", err)
		}
	})
}

// With an estimate counter, fit's result is within the limit by
// history.Tokens' count (which scales the whole request once) on this
// Claude Code-shaped conversation, where history.Prune once refused its own
// result ("pruned request has N tokens, over the budget") because it summed
// parts scaled one by one; history's TestPruneEstimateCounter holds Prune
// itself to it.
func TestFitEstimateCounter(t *testing.T) {
	c, err := budget.NewCounter("claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	body := testreq.ClaudeCodeLogs()
	conv, err := history.ParseFormat(bytes.NewReader(body), history.FormatAnthropic)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{81921, 100000, 145709} {
		res := fitter{}.fit("m", body, conv, nil, c, limit)
		out, err := history.ParseFormat(bytes.NewReader(res.body), history.FormatAnthropic)
		if err != nil || !res.changed || res.note != "" || history.Tokens(out, c) > limit || res.after != history.Tokens(out, c) {
			t.Errorf("limit %d: changed %v, note %q, %d tokens", limit, res.changed, res.note, res.after)
		}
	}
}

func TestLowerThinking(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		max        int
		want       string
		budget     int
		ok         bool
	}{
		{"no thinking", `{"max_tokens":5000}`, 4000, `{"max_tokens":5000}`, 0, true},
		{"disabled", `{"thinking":{"type":"disabled"}}`, 4000, `{"thinking":{"type":"disabled"}}`, 0, true},
		{"budget already below", `{"thinking":{"type":"enabled","budget_tokens":2000}}`, 4000, `{"thinking":{"type":"enabled","budget_tokens":2000}}`, 0, true},
		{"lowered, other bytes kept", `{"a":1, "thinking": {"type":"enabled", "budget_tokens": 31999, "display":"omitted"}}`, 29000,
			`{"a":1, "thinking": {"type":"enabled", "budget_tokens": 28999, "display":"omitted"}}`, 28999, true},
		{"too small for thinking", `{"thinking":{"type":"enabled","budget_tokens":31999}}`, 1000, `{"thinking":{"type":"enabled","budget_tokens":31999}}`, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, budget, ok := lowerThinking([]byte(tc.body), tc.max)
			if string(out) != tc.want || budget != tc.budget || ok != tc.ok {
				t.Errorf("got %s, %d, %v; want %s, %d, %v", out, budget, ok, tc.want, tc.budget, tc.ok)
			}
		})
	}
}
