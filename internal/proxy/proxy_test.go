package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/inflight"
	"github.com/ctxtrim/ctxtrim/internal/testreq"
)

var formats = []history.Format{history.FormatResponses, history.FormatChat, history.FormatAnthropic}

// A request that fits goes upstream byte for byte, with the client's
// headers, and its answer comes back as the upstream sent it.
func TestFitsUnchanged(t *testing.T) {
	for _, f := range formats {
		for _, stream := range []bool{false, true} {
			t.Run(string(f)+map[bool]string{true: "/stream", false: ""}[stream], func(t *testing.T) {
				s := newStub(map[string]int{"m": 100000})
				r := newRig(t, s, Options{Resolve: fixedResolve(map[string]int{"m": 100000})})
				body := testreq.Agent{Format: string(f), Model: "m", Steps: 3, OutTokens: 200, Stream: stream, Secret: "SECRET-TASK-TEXT"}.Body()
				// Odd formatting that a re-encoder would change.
				body = append([]byte("  "), body...)
				st, hdr, ans := r.post(t, pathOf(f), body, map[string]string{"Authorization": "Bearer sk-SECRET-KEY", "X-Api-Key": "SECRET-KEY-2"})
				if st != 200 {
					t.Fatalf("status %d: %s", st, ans)
				}
				recs := s.recs()
				if len(recs) != 1 || recs[0].Hash != bodyHash(body) {
					t.Fatalf("the upstream did not get the body unchanged: %+v", recs)
				}
				if recs[0].Auth != "Bearer sk-SECRET-KEYSECRET-KEY-2" {
					t.Errorf("credentials not forwarded: %q", recs[0].Auth)
				}
				if stream {
					ev := sseEvents(ans)
					if len(ev) != 6 || hdr.Get("Content-Type") != "text/event-stream" {
						t.Errorf("want 6 events as text/event-stream, got %d (%s)", len(ev), hdr.Get("Content-Type"))
					}
				} else if !bytes.Contains(ans, []byte(recs[0].Hash)) {
					t.Errorf("answer not passed through: %s", ans)
				}
				logs := r.log.String()
				for _, secret := range []string{"SECRET"} {
					if strings.Contains(logs, secret) {
						t.Errorf("the log carries content or a credential: %s", logs)
					}
				}
				if !regexp.MustCompile(`POST /v1/\S+ model=m tokens=\d+ limit=\d+ status=200 latency=`).MatchString(logs) {
					t.Errorf("log line: %s", logs)
				}
			})
		}
	}
}

// A request over the window is pruned by history, stays valid, and fits.
func TestPrunedWhenOver(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			const window = 3000
			s := newStub(map[string]int{"m": window})
			r := newRig(t, s, Options{Resolve: fixedResolve(map[string]int{"m": window})})
			body := testreq.Agent{Format: string(f), Model: "m", Steps: 12, OutTokens: 400, Secret: "SECRET-TASK-TEXT"}.Body()
			if n := tokensOf(t, f, body); n <= window {
				t.Fatalf("the request (%d tokens) must be over the window", n)
			}
			st, _, ans := r.post(t, pathOf(f), body, nil)
			if st != 200 {
				t.Fatalf("status %d: %s", st, ans)
			}
			recs := s.recs()
			if len(recs) != 1 || recs[0].Status != 200 || recs[0].Tokens > window {
				t.Fatalf("want one accepted request within %d tokens, got %+v", window, recs)
			}
			if logs := r.log.String(); !strings.Contains(logs, `pruned="mask `) || strings.Contains(logs, "SECRET") {
				t.Errorf("log line: %s", logs)
			}
		})
	}
}

// A request stated to need more output room is fitted to what is left.
func TestStatedOutputReserved(t *testing.T) {
	const window = 6000
	s := newStub(nil)
	r := newRig(t, s, Options{Resolve: fixedResolve(map[string]int{"m": window})})
	body := testreq.Agent{Format: string(history.FormatAnthropic), Model: "m", Steps: 12, OutTokens: 400}.Body() // max_tokens 1024
	r.post(t, "/v1/messages", body, nil)
	if recs := s.recs(); len(recs) != 1 || recs[0].Tokens > window-1024 {
		t.Fatalf("want a request within window − max_tokens = %d, got %+v", window-1024, recs)
	}
}

// The provider's overflow error makes the proxy re-fit and retry; what it
// learned fits the next request at once. An error that states the window
// (Chat, Anthropic) is met in one retry; OpenAI Responses' error states no
// numbers, so the proxy shrinks geometrically, within budget.MaxRefits.
func TestOverflowRetry(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			const real = 3000
			s := newStub(map[string]int{"m": real})
			r := newRig(t, s, Options{Resolve: fixedResolve(map[string]int{"m": 200000})})
			body := testreq.Agent{Format: string(f), Model: "m", Steps: 12, OutTokens: 400}.Body()
			st, _, ans := r.post(t, pathOf(f), body, nil)
			if st != 200 {
				t.Fatalf("status %d: %s\nlog: %s", st, ans, r.log)
			}
			recs := s.recs()
			maxAttempts := 2
			if f == history.FormatResponses {
				maxAttempts = 1 + budget.MaxRefits
			}
			last := recs[len(recs)-1]
			if len(recs) < 2 || len(recs) > maxAttempts || last.Status != 200 || last.Tokens > real {
				t.Fatalf("want refused requests then one within %d tokens, in at most %d attempts: %+v", real, maxAttempts, recs)
			}
			for i := 1; i < len(recs); i++ {
				if recs[i-1].Status != 400 || recs[i].Tokens >= recs[i-1].Tokens {
					t.Errorf("attempt %d: want each retry smaller than the refused one: %+v", i+1, recs)
				}
			}
			if !strings.Contains(r.log.String(), fmt.Sprintf("attempts=%d", len(recs))) {
				t.Errorf("log: %s", r.log)
			}
			// The next request is fitted before it is sent.
			n := len(recs)
			r.post(t, pathOf(f), body, nil)
			if recs := s.recs(); len(recs) != n+1 || recs[n].Status != 200 {
				t.Fatalf("want what was learned to fit the next request at once: %+v", recs)
			}
		})
	}
}

// A provider that counts far more than the proxy: the retries are bounded
// (1 + budget.MaxRefits attempts, each smaller), then the provider's error
// reaches the client as the provider wrote it.
func TestOverflowRetryBounded(t *testing.T) {
	for _, f := range []history.Format{history.FormatResponses, history.FormatChat} {
		t.Run(string(f), func(t *testing.T) {
			s := newStub(map[string]int{"m": 3000})
			s.extra = 2900 // a fixed cost the proxy cannot see: every re-fitted request is refused too
			r := newRig(t, s, Options{Resolve: fixedResolve(map[string]int{"m": 200000})})
			body := testreq.Agent{Format: string(f), Model: "m", Steps: 30, OutTokens: 400}.Body()
			st, _, ans := r.post(t, pathOf(f), body, nil)
			recs := s.recs()
			if st != 400 || len(recs) < 2 || len(recs) > 1+budget.MaxRefits {
				t.Fatalf("want the provider's 400 after 2 to %d attempts: status %d, %d attempts", 1+budget.MaxRefits, st, len(recs))
			}
			for i := 1; i < len(recs); i++ {
				if recs[i].Tokens >= recs[i-1].Tokens {
					t.Errorf("attempt %d (%d tokens) is not smaller than the one refused before (%d)", i+1, recs[i].Tokens, recs[i-1].Tokens)
				}
			}
			var e struct {
				Error struct{ Code, Message string }
			}
			if json.Unmarshal(ans, &e) != nil || e.Error.Code != "context_length_exceeded" {
				t.Errorf("want the provider's error body, got %s", ans)
			}
		})
	}
}

// Capacity answers go to the backup with its window, after a backoff that
// honours Retry-After; without a fallback they pass through untouched.
func TestFallback(t *testing.T) {
	const backupWindow = 3000
	s := newStub(map[string]int{"primary": 100000, "backup": backupWindow})
	s.capacity["primary"] = http.StatusServiceUnavailable
	s.retryAfter = "2"
	windows := map[string]int{"primary": 100000, "backup": backupWindow}
	body := testreq.Agent{Format: string(history.FormatResponses), Model: "primary", Steps: 12, OutTokens: 400, Stream: true}.Body()

	t.Run("with fallback", func(t *testing.T) {
		r := newRig(t, s, Options{Resolve: fixedResolve(windows), Fallback: map[string][]string{"primary": {"backup"}}})
		st, _, ans := r.post(t, "/v1/responses", body, nil)
		if st != 200 {
			t.Fatalf("status %d: %s", st, ans)
		}
		recs := s.recs()
		if len(recs) != 2 || recs[0].Model != "primary" || recs[1].Model != "backup" || recs[1].Status != 200 || recs[1].Tokens > backupWindow {
			t.Fatalf("want primary refused, then backup within %d tokens: %+v", backupWindow, recs)
		}
		// The backoff for a different model does not wait for the
		// primary's Retry-After: half of 250 ms with the test's jitter.
		if len(r.waits) != 1 || r.waits[0] != "125ms" {
			t.Errorf("waits %v, want [125ms]", r.waits)
		}
		if logs := r.log.String(); !strings.Contains(logs, "model=primary→backup") || !strings.Contains(logs, "attempts=2") {
			t.Errorf("log: %s", logs)
		}
	})
	t.Run("without fallback", func(t *testing.T) {
		s.records = nil
		r := newRig(t, s, Options{Resolve: fixedResolve(windows)})
		st, hdr, ans := r.post(t, "/v1/responses", body, nil)
		if st != 503 || hdr.Get("Retry-After") != "2" || !bytes.Contains(ans, []byte("Selected model is at capacity")) {
			t.Fatalf("want the 503 passed through with its headers: %d %v %s", st, hdr, ans)
		}
		if len(s.recs()) != 1 {
			t.Errorf("want one attempt, got %d", len(s.recs()))
		}
	})
	t.Run("all at capacity", func(t *testing.T) {
		s.records = nil
		s.capacity["backup"] = inflight.StatusOverloaded
		defer delete(s.capacity, "backup")
		r := newRig(t, s, Options{Resolve: fixedResolve(windows), Fallback: map[string][]string{"primary": {"backup"}}})
		st, _, _ := r.post(t, "/v1/responses", body, nil)
		recs := s.recs()
		if st != inflight.StatusOverloaded || len(recs) != inflight.DefaultAttempts {
			t.Fatalf("want %d attempts then the last answer (529), got %d after %d", inflight.DefaultAttempts, st, len(recs))
		}
		// primary, backup, primary (after its 2 s Retry-After), backup.
		want := []string{"primary", "backup", "primary", "backup"}
		for i, rec := range recs {
			if rec.Model != want[i] {
				t.Errorf("attempt %d went to %s, want %s", i+1, rec.Model, want[i])
			}
		}
		// The primary's Retry-After (2 s) less the 125 ms already waited
		// for the backup.
		if len(r.waits) != 3 || r.waits[1] != "1.875s" {
			t.Errorf("waits %v: want the rest of the primary's Retry-After (1.875s) before its second attempt", r.waits)
		}
	})
}

// Errors that are neither overflow nor capacity pass through untouched.
func TestErrorPassThrough(t *testing.T) {
	s := newStub(map[string]int{"m": 100000})
	r := newRig(t, s, Options{Resolve: fixedResolve(map[string]int{"m": 100000}), Fallback: map[string][]string{"m": {"n"}}})
	st, hdr, ans := r.post(t, "/v1/responses", testreq.Agent{Format: string(history.FormatResponses), Model: "m", Steps: 1}.Body(), map[string]string{"X-Stub-Fault": "500"})
	if st != 500 || hdr.Get("X-Stub-Detail") != "kept" || string(ans) != `{"error":{"message":"internal error","type":"server_error"}}` {
		t.Fatalf("want the 500 as sent: %d %v %s", st, hdr, ans)
	}
	if len(s.recs()) != 1 {
		t.Errorf("a 500 must not be retried")
	}
}

func TestMaxBody(t *testing.T) {
	s := newStub(nil)
	r := newRig(t, s, Options{MaxBody: 1000})
	st, _, ans := r.post(t, "/v1/chat/completions", testreq.Agent{Format: string(history.FormatChat), Model: "m", Steps: 5, OutTokens: 100}.Body(), nil)
	if st != http.StatusRequestEntityTooLarge || !bytes.Contains(ans, []byte("1000-byte limit")) {
		t.Fatalf("want 413 naming the limit: %d %s", st, ans)
	}
	if len(s.recs()) != 0 {
		t.Errorf("an oversized body must not go upstream")
	}
}

// Malformed bodies go upstream unchanged when they may fit, and get a 400
// from the proxy when they needed pruning.
func TestMalformed(t *testing.T) {
	s := newStub(nil)
	r := newRig(t, s, Options{Budget: 50})
	small := []byte(`{"model": "m", "messages": [ {"role": "user", "content": "hi"}, ]}`)
	st, _, ans := r.post(t, "/v1/chat/completions", small, nil)
	if recs := s.recs(); st != 400 || len(recs) != 1 || recs[0].Hash != bodyHash(small) {
		t.Fatalf("want the malformed body forwarded unchanged and the provider's 400: %d %s %+v", st, ans, recs)
	}
	big := []byte(`{"model": "m", "messages": [{"role": "user", "content": "` + strings.ReplaceAll(testreq.Words(1, 200), "\n", " ") + `"}, ]}`)
	st, hdr, ans := r.post(t, "/v1/chat/completions", big, nil)
	if st != 400 || hdr.Get("X-Ctxtrim-Proxy-Error") == "" || !bytes.Contains(ans, []byte("cannot be parsed")) || !bytes.Contains(ans, []byte("line 1, column")) {
		t.Fatalf("want the proxy's 400 saying what could not be parsed: %d %s", st, ans)
	}
	if len(s.recs()) != 1 {
		t.Errorf("a body that needed pruning and could not be parsed went upstream")
	}
	// Valid JSON that is not a conversation.
	odd := []byte(`{"model":"m","messages":"` + strings.ReplaceAll(testreq.Words(2, 200), "\n", " ") + `"}`)
	if st, _, ans := r.post(t, "/v1/chat/completions", odd, nil); st != 400 || !bytes.Contains(ans, []byte("ctxtrim proxy")) {
		t.Fatalf("want the proxy's 400: %d %s", st, ans)
	}
}

// Unknown routes and models are forwarded as they are.
func TestForwardedAsIs(t *testing.T) {
	s := newStub(nil)
	r := newRig(t, s, Options{})
	resp, err := r.front.Client().Get(r.front.URL + "/v1/models?x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("X-Stub-Route") != "none" {
		t.Errorf("GET /v1/models: want the stub's 404, got %d", resp.StatusCode)
	}
	body := testreq.Agent{Format: string(history.FormatAnthropic), Model: "no-such-model", Steps: 40, OutTokens: 400}.Body()
	st, _, _ := r.post(t, "/v1/messages", body, nil)
	if recs := s.recs(); st != 200 || len(recs) != 2 || recs[1].Hash != bodyHash(body) {
		t.Errorf("an unknown model's request must go unchanged: %d %+v", st, recs)
	}
	if !strings.Contains(r.log.String(), `note="not fitted: unknown model`) {
		t.Errorf("log: %s", r.log)
	}
}

// A path cannot inject lines into the log.
func TestLogPathSafe(t *testing.T) {
	r := newRig(t, newStub(nil), Options{})
	resp, err := r.front.Client().Get(r.front.URL + "/v1/x%0Afake%20line")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if logs := r.log.String(); strings.Contains(logs, "\n") || !strings.Contains(logs, "/v1/x_fake_line") {
		t.Errorf("log: %q", logs)
	}
}

func TestHealthz(t *testing.T) {
	r := newRig(t, newStub(nil), Options{})
	resp, err := r.front.Client().Get(r.front.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok\n" || len(r.stub.recs()) != 0 {
		t.Errorf("healthz: %d %q", resp.StatusCode, b)
	}
}

// Dry run: what would be pruned is logged, the request goes unchanged.
func TestDryRun(t *testing.T) {
	s := newStub(nil)
	r := newRig(t, s, Options{Resolve: fixedResolve(map[string]int{"m": 3000}), DryRun: true})
	body := testreq.Agent{Format: string(history.FormatChat), Model: "m", Steps: 12, OutTokens: 400}.Body()
	r.post(t, "/v1/chat/completions", body, nil)
	if recs := s.recs(); len(recs) != 1 || recs[0].Hash != bodyHash(body) {
		t.Fatalf("dry run changed the request")
	}
	if !strings.Contains(r.log.String(), "dry run: would prune mask") {
		t.Errorf("log: %s", r.log)
	}
}

// DefaultResolve uses the model table; -budget-like caps apply whatever
// the model.
func TestDefaultResolveAndBudget(t *testing.T) {
	s := newStub(nil)
	r := newRig(t, s, Options{Budget: 2000})
	body := testreq.Agent{Format: string(history.FormatAnthropic), Model: "claude-sonnet-4-5", Steps: 12, OutTokens: 400}.Body()
	st, _, _ := r.post(t, "/v1/messages", body, nil)
	m, _ := budget.Lookup("claude-sonnet-4-5")
	if recs := s.recs(); st != 200 || len(recs) != 1 || float64(recs[0].Tokens)*m.Factor > 2000 {
		t.Fatalf("want one request within the budget of 2000 (claude count): %+v", recs)
	}
	if !strings.Contains(r.log.String(), "limit=2000") {
		t.Errorf("log: %s", r.log)
	}
}
