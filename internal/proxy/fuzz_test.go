package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/inflight"
	"github.com/ctxtrim/ctxtrim/internal/testreq"
)

// recorder is an upstream transport that keeps the last body it was sent
// and answers 200, so that the fuzz target runs the whole proxy without a
// network.
type recorder struct {
	mu   sync.Mutex
	body []byte
	n    int
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.body, r.n = b, r.n+1
	r.mu.Unlock()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{}`)), Request: req}, nil
}

// FuzzProxy sends arbitrary bodies through the whole proxy: it never
// panics, answers 200 (forwarded) or its own 400/413, and what it forwards
// is the body itself or a request of the route's format that parses, fits
// the limit and is valid whenever the body was.
func FuzzProxy(f *testing.F) {
	for i, fm := range formats {
		f.Add(uint8(i), testreq.Agent{Format: string(fm), Model: "m", Steps: 8, OutTokens: 80}.Body())
		f.Add(uint8(i), testreq.Agent{Format: string(fm), Model: "m", Steps: 1, OutTokens: 5}.Body())
	}
	f.Add(uint8(0), []byte(`{"model":"m","input":[{"type":"function_call_output","call_id":"x","output":"y"}]}`))
	f.Add(uint8(1), []byte(`{"model":"m","messages":[{"role":"tool","content":"orphan"}]}`))
	f.Add(uint8(2), []byte(`{"model":"m","max_tokens":100000,"messages":[{"role":"user","content":"hi"}]}`))
	const limit = 600
	rec := &recorder{}
	c, _ := budget.NewEncodingCounter(budget.O200kBase)
	p, err := New(&Options{Upstream: "http://upstream.invalid", Transport: rec, MaxBody: 1 << 20,
		Resolve: func(string, int) (inflight.Target, error) {
			return inflight.Target{Counter: c, Window: limit, Margin: budget.NoMargin}, nil
		}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		fm := formats[int(route)%len(formats)]
		rec.mu.Lock()
		before := rec.n
		rec.mu.Unlock()
		w := httptest.NewRecorder()
		p.ServeHTTP(w, httptest.NewRequest(http.MethodPost, pathOf(fm), bytes.NewReader(body)))
		rec.mu.Lock()
		sent, forwarded := rec.body, rec.n > before
		rec.mu.Unlock()
		switch {
		case w.Code == 400 || w.Code == 413:
			if forwarded || w.Header().Get("X-Ctxtrim-Proxy-Error") == "" {
				t.Fatalf("status %d: forwarded %v, %s", w.Code, forwarded, w.Body)
			}
			return
		case w.Code != 200 || !forwarded:
			t.Fatalf("status %d, forwarded %v", w.Code, forwarded)
		}
		if bytes.Equal(sent, body) {
			return
		}
		in, inErr := history.ParseFormat(bytes.NewReader(body), fm)
		out, err := history.ParseFormat(bytes.NewReader(sent), fm)
		if inErr != nil || err != nil {
			t.Fatalf("a changed request from an unparsable body (%v), or one that does not parse (%v)", inErr, err)
		}
		if n := history.Tokens(out, c); n > limit {
			t.Fatalf("forwarded %d tokens over the limit %d", n, limit)
		}
		if in.Validate() == nil && out.Validate() != nil {
			t.Fatalf("forwarded an invalid request: %v", out.Validate())
		}
	})
}
