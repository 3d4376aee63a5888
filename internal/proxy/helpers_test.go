package proxy

import (
	"bufio"
	"bytes"
	"context"
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
	"github.com/ctxtrim/ctxtrim/inflight"
)

func pathOf(f history.Format) string {
	switch f {
	case history.FormatChat:
		return "/v1/chat/completions"
	case history.FormatAnthropic:
		return "/v1/messages"
	}
	return "/v1/responses"
}

// tokensOf counts a body as the stub does (unscaled).
func tokensOf(t testing.TB, f history.Format, body []byte) int {
	t.Helper()
	conv, err := history.ParseFormat(bytes.NewReader(body), f)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := budget.NewEncodingCounter(budget.O200kBase)
	return history.Tokens(conv, c)
}

// logBuf collects log lines, safe for concurrent use.
type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// rig is a stub upstream and a proxy in front of it, both on loopback.
type rig struct {
	stub     *stub
	upstream *httptest.Server
	proxy    *Proxy
	front    *httptest.Server
	log      *logBuf
	waits    []string // the proxy's backoff waits, as "model:duration"
	mu       sync.Mutex
}

// fixedResolve resolves every model to o200k_base with the given windows
// (the proxy's idea of them), no reserve and no margin.
func fixedResolve(windows map[string]int) func(string, int) (inflight.Target, error) {
	c, _ := budget.NewEncodingCounter(budget.O200kBase)
	return func(model string, window int) (inflight.Target, error) {
		w, ok := windows[model]
		if window > 0 {
			w, ok = window, true
		}
		if !ok {
			return inflight.Target{}, fmt.Errorf("%w %q", budget.ErrUnknownModel, model)
		}
		return inflight.Target{Counter: c, Window: w, Margin: budget.NoMargin}, nil
	}
}

func newRig(t testing.TB, s *stub, opts Options) *rig {
	t.Helper()
	r := &rig{stub: s, log: &logBuf{}}
	r.upstream = httptest.NewServer(s)
	opts.Upstream = r.upstream.URL
	if opts.Logf == nil {
		opts.Logf = r.log.logf
	}
	opts.Rand = func() float64 { return 0.5 }
	// The proxy's clock moves by its waits alone: a wait computed from a
	// Retry-After is then exact, however long the loopback round trips
	// take on a loaded machine.
	clock := time.Now()
	opts.Sleep = func(ctx context.Context, d time.Duration) error {
		r.mu.Lock()
		r.waits = append(r.waits, d.String())
		clock = clock.Add(d)
		r.mu.Unlock()
		return ctx.Err()
	}
	opts.Now = func() time.Time {
		r.mu.Lock()
		defer r.mu.Unlock()
		return clock
	}
	p, err := New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	r.proxy = p
	r.front = httptest.NewServer(p)
	t.Cleanup(func() {
		r.front.Close()
		r.upstream.Close()
	})
	return r
}

// post sends body to the proxy and returns the status, headers and the
// whole answer.
func (r *rig) post(t testing.TB, path string, body []byte, hdr map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.front.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := r.front.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	return resp.StatusCode, resp.Header, b
}

// sseEvents parses an event stream into its data lines.
func sseEvents(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}
