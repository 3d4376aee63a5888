package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
)

// DefaultMaxBody is the request body limit when Options.MaxBody is 0: the
// providers' own (Anthropic's Messages API takes 32 MB), so that the proxy
// refuses nothing a provider would take.
const DefaultMaxBody = 32 << 20

// maxCached bounds the resolved targets and learned windows kept, which
// are keyed by model names that clients send.
const maxCached = 1024

// maxErrorBody bounds what the proxy reads of an upstream error body to
// classify it; the rest is passed on unread.
const maxErrorBody = 1 << 20

// Options configures a Proxy. Only Upstream is required; New does not
// modify Options, nor keep references into it apart from its funcs and
// maps, which must not change afterwards.
type Options struct {
	// Upstream is the provider's base URL ("https://api.openai.com/v1",
	// "https://api.anthropic.com", "http://127.0.0.1:8080").
	Upstream string
	// Resolve returns the target of a model, with its window replaced by
	// window when window > 0 (one stated by an overflow error). Its result
	// is cached per (model, window). nil means DefaultResolve. An error
	// leaves the request unfitted unless Budget is set.
	Resolve func(model string, window int) (Target, error)
	// Budget caps every request's input at this many tokens, whatever its
	// model; 0 means no cap beyond the window.
	Budget int
	// Fallback maps a model to its backups, tried in order on capacity
	// answers. nil: capacity answers pass through.
	Fallback map[string][]string
	// Retry bounds the fallback retries; the zero value is valid.
	Retry Retry
	// Step is the pruning step in tokens (see the package documentation);
	// 0 means limit/DefaultStepDivisor, a negative value prunes just
	// enough (no cache-aware steps).
	Step int
	// StickyBytes bounds the memory of the pruned forms of recent
	// requests, which later requests of the same conversation reuse (see
	// the package documentation); 0 means DefaultStickyBytes, a negative
	// value remembers nothing.
	StickyBytes int64
	// History tunes history.Prune (KeepLast, MaskAfter, MaxItem); its
	// Budget (each request's limit) and Logf are not used.
	History history.Options
	// DryRun forwards every request unchanged and once, logging what
	// would have been pruned.
	DryRun bool
	// MaxBody is the largest request body accepted, in bytes; larger ones
	// get 413. 0 means DefaultMaxBody.
	MaxBody int64
	// Transport sends upstream requests; nil means a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Logf receives one line per request and nothing else; nil discards.
	Logf func(format string, args ...any)
}

// DefaultResolve resolves a model with the built-in model table and
// budget's policy (budget.Policy): its counter, its window (or window when
// positive), budget.DefaultReserve for the output and the default margin.
func DefaultResolve(model string, window int) (Target, error) {
	return ResolveWith(budget.DefaultTable(), model, window)
}

// ResolveWith is DefaultResolve with the model table t.
func ResolveWith(t *budget.Table, model string, window int) (Target, error) {
	m, err := t.Lookup(model)
	if err != nil {
		return Target{}, err
	}
	c, err := m.Counter()
	if err != nil {
		return Target{}, err
	}
	l, err := budget.Policy{Window: window}.Limits(m, budget.Overflow{})
	if err != nil {
		return Target{}, err
	}
	return Target{Counter: c, Window: l.Window, Reserve: l.Reserve, Margin: l.Margin}, nil
}

// Proxy is the in-flight fitter, an http.Handler. It is safe for
// concurrent use.
type Proxy struct {
	upstream *url.URL
	opts     Options
	fit      fitter
	rp       *httputil.ReverseProxy
	base     http.RoundTripper
	logf     func(format string, args ...any)
	o200k    budget.Counter

	targets  sync.Map // targetKey → targetEntry
	ntargets atomic.Int64
	mu       sync.Mutex
	learned  map[string]int // lower-case model → window stated by an overflow error

	// Test hooks: the jitter source, the wait and the clock that
	// measures it (a test's clock moves with its waits alone, so a
	// Retry-After's remainder does not depend on the machine's load).
	rand  func() float64
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
}

type targetKey struct {
	model  string
	window int
}

type targetEntry struct {
	t   Target
	err error
}

// New returns a Proxy for opts.
func New(opts *Options) (*Proxy, error) {
	if opts == nil || opts.Upstream == "" {
		return nil, errors.New("no upstream URL")
	}
	u, err := url.Parse(opts.Upstream)
	if err != nil {
		return nil, fmt.Errorf("upstream %q: %w", opts.Upstream, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("upstream %q: want an http:// or https:// URL with a host", opts.Upstream)
	}
	if opts.Budget < 0 || opts.MaxBody < 0 {
		return nil, fmt.Errorf("negative budget (%d) or body limit (%d)", opts.Budget, opts.MaxBody)
	}
	p := &Proxy{upstream: u, opts: *opts, learned: map[string]int{}, rand: rand.Float64, sleep: sleepCtx, now: time.Now}
	p.fit = fitter{step: opts.Step, hopts: opts.History}
	switch {
	case opts.StickyBytes == 0:
		p.fit.sticky = newSticky(DefaultStickyBytes)
	case opts.StickyBytes > 0:
		p.fit.sticky = newSticky(opts.StickyBytes)
	}
	if p.opts.MaxBody == 0 {
		p.opts.MaxBody = DefaultMaxBody
	}
	if p.opts.Resolve == nil {
		p.opts.Resolve = DefaultResolve
	}
	p.logf = opts.Logf
	if p.logf == nil {
		p.logf = func(string, ...any) {}
	}
	p.base = opts.Transport
	if p.base == nil {
		p.base = http.DefaultTransport.(*http.Transport).Clone()
	}
	if p.o200k, err = budget.NewEncodingCounter(budget.O200kBase); err != nil {
		return nil, err
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      roundTripper(p.roundTrip),
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		// ReverseProxy's own notes (a copy error it suppresses) go to
		// Logf, never to the standard logger.
		ErrorLog: log.New(logWriter(p.logf), "proxy: ", 0),
	}
	return p, nil
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type logWriter func(format string, args ...any)

func (l logWriter) Write(b []byte) (int, error) {
	l("%s", strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// route is a fitted API route.
type route struct {
	name   string // for logs and errors: "responses", "chat", "messages"
	format history.Format
}

var routes = []struct {
	suffix string
	route  route
}{
	{"/v1/responses", route{"responses", history.FormatResponses}},
	{"/v1/chat/completions", route{"chat", history.FormatChat}},
	{"/v1/messages", route{"messages", history.FormatAnthropic}},
}

// routeOf returns the fitted route of r, or nil.
func routeOf(r *http.Request) *route {
	if r.Method != http.MethodPost {
		return nil
	}
	p := strings.TrimSuffix(r.URL.Path, "/")
	for _, rt := range routes {
		if strings.HasSuffix(p, rt.suffix) {
			return &rt.route
		}
	}
	return nil
}

// exchange is one client request and what the proxy did with it; it
// carries the log line's fields.
type exchange struct {
	start    time.Time
	route    *route
	method   string
	path     string
	model    string // as the client sent it
	sent     string // the model of the last attempt
	stream   bool
	stated   int
	body     []byte // the client's body
	conv     *history.Conversation
	parseErr error

	in, out  int // tokens before and after fitting (last attempt)
	limit    int
	pruned   string
	notes    []string
	send     []byte // body of the current attempt
	attempts int
	status   int
	err      string
	ttfb     time.Duration
}

type ctxKey struct{}

// ServeHTTP answers /healthz itself, forwards a request of a route it does
// not fit unchanged, and fits the body of one it does to the model's input
// limit (fitFor) before forwarding it; roundTrip retries on an overflow or
// capacity answer. Every exchange is logged once, a panic included.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/healthz" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
		return
	}
	ex := &exchange{start: p.now(), route: routeOf(r), method: r.Method, path: r.URL.Path}
	defer func() {
		if v := recover(); v != nil {
			if ex.err == "" {
				ex.err = "response aborted"
			}
			p.logLine(ex)
			panic(v)
		}
		p.logLine(ex)
	}()
	if ex.route == nil {
		ex.notes = append(ex.notes, "not a fitted route")
		p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, ex)))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, p.opts.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			ex.status = http.StatusRequestEntityTooLarge
			p.writeError(w, ex, http.StatusRequestEntityTooLarge, "request_too_large",
				fmt.Sprintf("ctxtrim proxy: request body over the %d-byte limit (-max-body)", p.opts.MaxBody))
			return
		}
		ex.status, ex.err = http.StatusBadRequest, "read request body: "+err.Error()
		p.writeError(w, ex, http.StatusBadRequest, "invalid_request", "ctxtrim proxy: cannot read the request body: "+err.Error())
		return
	}
	ex.body = body
	p.prepare(ex)
	res := p.fitFor(ex, ex.model, 0)
	if res.reject != nil {
		ex.status = http.StatusBadRequest
		p.writeError(w, ex, http.StatusBadRequest, "invalid_request",
			fmt.Sprintf("ctxtrim proxy: the request needs pruning to fit %d tokens, but its body cannot be parsed as a %s request: %v", ex.limit, ex.route.name, res.reject))
		return
	}
	ex.send = res.body
	out := r.Clone(context.WithValue(r.Context(), ctxKey{}, ex))
	out.Body = io.NopCloser(bytes.NewReader(ex.send))
	out.ContentLength = int64(len(ex.send))
	p.rp.ServeHTTP(w, out)
}

// prepare parses the request's conversation and head once.
func (p *Proxy) prepare(ex *exchange) {
	conv, convErr := history.ParseFormat(bytes.NewReader(ex.body), ex.route.format)
	var h head
	var err error
	if convErr == nil {
		h, err = headOf(conv)
	} else {
		h, err = parseHead(ex.body)
	}
	if err != nil {
		ex.parseErr = err
		return
	}
	ex.model, ex.stream, ex.stated = h.Model, h.Stream, h.statedOutput()
	if convErr != nil {
		ex.parseErr = convErr
		return
	}
	ex.conv = conv
}

// target resolves model (cached), with a learned window if any.
func (p *Proxy) target(model string, window int) (Target, error) {
	if window <= 0 {
		p.mu.Lock()
		window = p.learned[strings.ToLower(model)]
		p.mu.Unlock()
	}
	k := targetKey{model, window}
	if e, ok := p.targets.Load(k); ok {
		e := e.(targetEntry)
		return e.t, e.err
	}
	t, err := p.opts.Resolve(model, window)
	if err == nil && t.Counter == nil {
		err = fmt.Errorf("model %s: no counter", model)
	}
	// Model names come from clients: the cache is bounded.
	if p.ntargets.Load() < maxCached {
		if _, loaded := p.targets.LoadOrStore(k, targetEntry{t, err}); !loaded {
			p.ntargets.Add(1)
		}
	}
	return t, err
}

// fitFor fits the client's body for model (the client's or a backup),
// with window overriding the model's when positive, and records the
// outcome in ex. The body's model field is set to model when it differs
// from the client's.
func (p *Proxy) fitFor(ex *exchange, model string, window int) fitResult {
	ex.sent = model
	t, err := p.target(model, window)
	if err != nil {
		if p.opts.Budget == 0 {
			ex.limit, ex.in, ex.out = 0, 0, 0
			ex.notes = append(ex.notes, "not fitted: "+shortError(err))
			return p.withModel(ex, fitResult{body: ex.body}, model)
		}
		t = Target{Counter: p.o200k}
	}
	ex.limit = t.limit(ex.stated, p.opts.Budget)
	res := p.fit.fit(model, ex.body, ex.conv, ex.parseErr, t.Counter, ex.limit)
	ex.in, ex.out = res.before, res.after
	if res.note != "" {
		ex.notes = append(ex.notes, res.note)
	}
	if p.opts.DryRun {
		if res.changed {
			ex.notes = append(ex.notes, fmt.Sprintf("dry run: would prune %s to %d tokens", res.steps, res.after))
		}
		if res.reject != nil {
			ex.notes = append(ex.notes, "dry run: would answer 400: "+res.reject.Error())
		}
		ex.out = ex.in
		return fitResult{body: ex.body}
	}
	ex.pruned = res.steps
	return p.withModel(ex, res, model)
}

// withModel sets the model of res's body when it is not the client's.
func (p *Proxy) withModel(ex *exchange, res fitResult, model string) fitResult {
	if model == ex.model || res.reject != nil {
		return res
	}
	b, err := setModel(res.body, model)
	if err != nil {
		res.reject = err
		return res
	}
	res.body = b
	return res
}

// rewrite points the outgoing request at the upstream.
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	u := *p.upstream
	base, path := strings.TrimSuffix(u.Path, "/"), pr.In.URL.Path
	if strings.HasSuffix(base, "/v1") && (path == "/v1" || strings.HasPrefix(path, "/v1/")) {
		path = strings.TrimPrefix(path, "/v1")
	}
	u.Path = base + path
	u.RawPath = ""
	u.RawQuery = pr.In.URL.RawQuery
	pr.Out.URL = &u
	pr.Out.Host = ""
	// The proxy's transport negotiates compression itself, so that it can
	// read error bodies; the client gets the body uncompressed.
	pr.Out.Header.Del("Accept-Encoding")
}

// roundTrip sends a request upstream, retrying on overflow and capacity
// answers as the package documentation says.
func (p *Proxy) roundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(ctxKey{}).(*exchange)
	if ex == nil || ex.route == nil {
		return p.base.RoundTrip(req)
	}
	var sched *schedule
	refitted := false
	for {
		ex.attempts++
		out := req.Clone(req.Context())
		out.Body = io.NopCloser(bytes.NewReader(ex.send))
		out.ContentLength = int64(len(ex.send))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(ex.send)), nil }
		resp, err := p.base.RoundTrip(out)
		if err != nil || resp.StatusCode < 400 || p.opts.DryRun {
			return resp, err
		}
		// Read the start of the error body to classify it, and put it
		// back in front of the rest.
		peek, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(peek), resp.Body), resp.Body}
		if rerr != nil {
			return resp, nil
		}
		a := Classify(resp.StatusCode, resp.Header, peek)
		switch a.Kind {
		case Overflow:
			if refitted || ex.conv == nil {
				return resp, nil
			}
			refitted = true
			res, ok := p.refit(ex, a.Overflow)
			if !ok {
				return resp, nil
			}
			resp.Body.Close()
			ex.send = res.body
			continue
		case Capacity:
			if sched == nil {
				sched = newSchedule(p.opts.Retry, Chain(ex.model, p.opts.Fallback), ex.start)
			}
			next, wait, ok := sched.next(ex.sent, a.RetryAfter, p.now(), p.rand())
			if !ok {
				if len(sched.chain) > 1 {
					ex.notes = append(ex.notes, fmt.Sprintf("capacity: gave up after %d attempts", ex.attempts))
				}
				return resp, nil
			}
			resp.Body.Close()
			ex.notes = append(ex.notes, fmt.Sprintf("%s at capacity (%d), trying %s in %v", ex.sent, resp.StatusCode, next, wait.Round(time.Millisecond)))
			if err := p.sleep(req.Context(), wait); err != nil {
				return nil, err
			}
			res := p.fitFor(ex, next, 0)
			if res.reject != nil {
				return nil, fmt.Errorf("fit the request for %s: %w", next, res.reject)
			}
			ex.send = res.body
			refitted = false // the overflow retry is once per model
			continue
		}
		return resp, nil
	}
}

// refit re-fits the request after an overflow answer for ex.sent; ok is
// false when there is nothing better to send.
func (p *Proxy) refit(ex *exchange, ov budget.Overflow) (fitResult, bool) {
	sent := ex.out // the proxy's count of what was refused
	if sent <= 0 {
		return fitResult{}, false
	}
	if ov.Window > 0 {
		p.mu.Lock()
		k := strings.ToLower(ex.sent)
		if w, ok := p.learned[k]; (!ok && len(p.learned) < maxCached) || (ok && ov.Window < w) {
			p.learned[k] = ov.Window
		}
		p.mu.Unlock()
	}
	t, err := p.target(ex.sent, ov.Window)
	if err != nil {
		t = Target{Counter: p.o200k, Window: ov.Window}
	}
	limit := 0
	if ov.Window > 0 {
		limit = t.limit(max(ex.stated, ov.Output), p.opts.Budget)
		// The provider counted more than the proxy did: scale the limit
		// by the ratio, so that the retry fits by the provider's count.
		if prompt := promptTokens(ov); prompt > sent && limit > 0 {
			limit = int(int64(limit) * int64(sent) / int64(prompt))
		}
	}
	if limit <= 0 || limit >= sent {
		// No window stated, or one the refused request already fit by
		// the proxy's count: cut to a share of what was refused.
		limit = sent * RefitPercent / 100
	}
	ex.limit = limit
	res := p.fit.fit(ex.sent, ex.body, ex.conv, nil, t.Counter, limit)
	if res.note != "" {
		ex.notes = append(ex.notes, "refit: "+res.note)
	}
	if !res.changed {
		return res, false
	}
	ex.notes = append(ex.notes, fmt.Sprintf("overflow (window %d): refit %d → %d tokens", ov.Window, sent, res.after))
	ex.in, ex.out, ex.pruned = res.before, res.after, res.steps
	res = p.withModel(ex, res, ex.sent)
	return res, res.reject == nil
}

// promptTokens is the prompt size an overflow error states, 0 for none.
func promptTokens(ov budget.Overflow) int {
	if ov.Prompt > 0 {
		return ov.Prompt
	}
	if ov.Used > ov.Output {
		return ov.Used - ov.Output
	}
	return 0
}

type readCloser struct {
	io.Reader
	io.Closer
}

func (p *Proxy) modifyResponse(resp *http.Response) error {
	if ex, _ := resp.Request.Context().Value(ctxKey{}).(*exchange); ex != nil {
		ex.status = resp.StatusCode
		ex.ttfb = p.now().Sub(ex.start)
	}
	return nil
}

// errorHandler answers when the upstream could not be reached or the
// response could not be started: 502 with a message, or nothing when the
// client has gone away.
func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	ex, _ := r.Context().Value(ctxKey{}).(*exchange)
	if ex == nil {
		ex = &exchange{route: routeOf(r)}
	}
	if r.Context().Err() != nil {
		ex.err = "client went away"
		return
	}
	ex.status, ex.err = http.StatusBadGateway, "upstream: "+upstreamError(err)
	p.writeError(w, ex, http.StatusBadGateway, "upstream_unreachable", "ctxtrim proxy: upstream request failed: "+upstreamError(err))
}

// upstreamError describes err without the URL (which may carry a key in
// its query).
func upstreamError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout: " + err.Error()
	}
	return err.Error()
}

// writeError writes an error of the proxy's own in the route's API shape.
func (p *Proxy) writeError(w http.ResponseWriter, ex *exchange, status int, code, msg string) {
	var body any
	if ex.route != nil && ex.route.format == history.FormatAnthropic {
		body = map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}}
	} else {
		body = map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": code}}
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Ctxtrim-Proxy-Error", code)
	w.WriteHeader(status)
	w.Write(b)
}

// logLine writes the request's one log line: no content, no header value.
func (p *Proxy) logLine(ex *exchange) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", ex.method, safe(ex.path))
	if ex.model != "" {
		fmt.Fprintf(&b, " model=%s", safe(ex.model))
		if ex.sent != "" && ex.sent != ex.model {
			fmt.Fprintf(&b, "→%s", safe(ex.sent))
		}
	}
	if ex.route != nil && ex.in > 0 {
		fmt.Fprintf(&b, " tokens=%d", ex.in)
		if ex.out != ex.in {
			fmt.Fprintf(&b, "→%d", ex.out)
		}
		if ex.limit > 0 {
			fmt.Fprintf(&b, " limit=%d", ex.limit)
		}
	}
	if ex.pruned != "" {
		fmt.Fprintf(&b, " pruned=%q", ex.pruned)
	}
	fmt.Fprintf(&b, " status=%d", ex.status)
	if ex.attempts > 1 {
		fmt.Fprintf(&b, " attempts=%d", ex.attempts)
	}
	fmt.Fprintf(&b, " latency=%v", p.now().Sub(ex.start).Round(time.Millisecond))
	if ex.ttfb > 0 && ex.stream {
		fmt.Fprintf(&b, " ttfb=%v", ex.ttfb.Round(time.Millisecond))
	}
	if ex.err != "" {
		fmt.Fprintf(&b, " error=%q", ex.err)
	}
	for _, n := range ex.notes {
		fmt.Fprintf(&b, " note=%q", n)
	}
	p.logf("%s", b.String())
}

// safe keeps a client-supplied name or path printable, on one line and
// short in a log line.
func safe(s string) string {
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == ' ' {
			return '_'
		}
		return r
	}, s)
}
