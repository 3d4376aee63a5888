package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/inflight"
)

// DefaultMaxBody is the request body limit when Options.MaxBody is 0: the
// providers' own (Anthropic's Messages API takes 32 MB), so that the proxy
// refuses nothing a provider would take.
const DefaultMaxBody = 32 << 20

// Options configures a Proxy. Only Upstream is required; New does not
// modify Options, nor keep references into it apart from its funcs and
// maps, which must not change afterwards.
type Options struct {
	// Upstream is the provider's base URL ("https://api.openai.com/v1",
	// "https://api.anthropic.com", "http://127.0.0.1:8080").
	Upstream string
	// Resolve returns the target of a model, with its window replaced by
	// window when window > 0 (one stated by an overflow error). Its result
	// is cached per (model, window). nil means inflight.DefaultResolve. An error
	// leaves the request unfitted unless Budget is set.
	Resolve func(model string, window int) (inflight.Target, error)
	// Budget caps every request's input at this many tokens, whatever its
	// model; 0 means no cap beyond the window.
	Budget int
	// Fallback maps a model to its backups, tried in order on capacity
	// answers. nil: capacity answers pass through.
	Fallback map[string][]string
	// Retry bounds the fallback retries; the zero value is valid.
	Retry inflight.Retry
	// Step is the pruning step in tokens (see the package documentation);
	// 0 means limit/inflight.DefaultStepDivisor, a negative value prunes just
	// enough (no cache-aware steps).
	Step int
	// StickyBytes bounds the memory of the pruned forms of recent
	// requests, which later requests of the same conversation reuse (see
	// the package documentation); 0 means inflight.DefaultStickyBytes, a negative
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
	// Sleep, Now and Rand are inflight.Options': the wait between
	// attempts, the clock (which also times the log's latency) and the
	// backoff's jitter; nil for the defaults. Tests set them.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	Rand  func() float64
}

// Proxy is the in-flight fitter, an http.Handler. It is safe for
// concurrent use.
type Proxy struct {
	upstream *url.URL
	opts     Options
	fit      *inflight.Fitter
	rp       *httputil.ReverseProxy
	base     http.RoundTripper
	logf     func(format string, args ...any)
	now      func() time.Time // Options.Now, else time.Now
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
	p := &Proxy{upstream: u, opts: *opts, now: opts.Now}
	if p.now == nil {
		p.now = time.Now
	}
	if p.opts.MaxBody == 0 {
		p.opts.MaxBody = DefaultMaxBody
	}
	p.fit, err = inflight.New(&inflight.Options{
		Resolve: opts.Resolve, Budget: opts.Budget, Fallback: opts.Fallback, Retry: opts.Retry,
		Step: opts.Step, StickyBytes: opts.StickyBytes, History: opts.History, DryRun: opts.DryRun,
		Sleep: opts.Sleep, Now: opts.Now, Rand: opts.Rand,
	})
	if err != nil {
		return nil, err
	}
	p.logf = opts.Logf
	if p.logf == nil {
		p.logf = func(string, ...any) {}
	}
	p.base = opts.Transport
	if p.base == nil {
		p.base = http.DefaultTransport.(*http.Transport).Clone()
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

// routeOf returns the format of a fitted route, "" for a request that is
// not fitted.
func routeOf(r *http.Request) history.Format {
	if r.Method != http.MethodPost {
		return ""
	}
	f, _ := inflight.FormatOf(r.URL.Path)
	return f
}

// routeName names a format's route in the proxy's own errors.
func routeName(f history.Format) string {
	switch f {
	case history.FormatChat:
		return "chat"
	case history.FormatAnthropic:
		return "messages"
	}
	return "responses"
}

// exchange is one client request and what the proxy did with it; it
// carries the log line's fields.
type exchange struct {
	start  time.Time
	route  history.Format // "" for a route not fitted
	method string
	path   string
	x      *inflight.Exchange // nil until the body was read
	status int
	err    string
	notes  []string
	ttfb   time.Duration
}

type ctxKey struct{}

// ServeHTTP answers /healthz itself, forwards a request of a route it does
// not fit unchanged, and fits the body of one it does to its model
// (inflight.Fitter.Start) before forwarding it; roundTrip sends it and
// retries as the fitter decides. Every exchange is logged once, a panic
// included.
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
	if ex.route == "" {
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
	ex.x = p.fit.Start(ex.route, body)
	if ex.x.Reject != nil {
		ex.status = http.StatusBadRequest
		p.writeError(w, ex, http.StatusBadRequest, "invalid_request",
			fmt.Sprintf("ctxtrim proxy: the request needs pruning to fit %d tokens, but its body cannot be parsed as a %s request: %v", ex.x.Limit, routeName(ex.route), ex.x.Reject))
		return
	}
	out := r.Clone(context.WithValue(r.Context(), ctxKey{}, ex))
	out.Body = io.NopCloser(bytes.NewReader(ex.x.Send))
	out.ContentLength = int64(len(ex.x.Send))
	p.rp.ServeHTTP(w, out)
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

// roundTrip sends a fitted request upstream through the fitter, which
// retries on overflow and capacity answers as the package documentation
// says; any other request goes as it is.
func (p *Proxy) roundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(ctxKey{}).(*exchange)
	if ex == nil || ex.x == nil {
		return p.base.RoundTrip(req)
	}
	return p.fit.Send(req.Context(), ex.x, inflight.Via(req, p.base.RoundTrip))
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

// writeError writes an error of the proxy's own in the route's API shape,
// with the error type the provider uses for its status (errorType), so that
// a client's SDK retries what it would retry from the provider itself.
func (p *Proxy) writeError(w http.ResponseWriter, ex *exchange, status int, code, msg string) {
	var body any
	if ex.route == history.FormatAnthropic {
		body = map[string]any{"type": "error", "error": map[string]any{"type": errorType(history.FormatAnthropic, status), "message": msg}}
	} else {
		body = map[string]any{"error": map[string]any{"message": msg, "type": errorType(ex.route, status), "code": code}}
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Ctxtrim-Proxy-Error", code)
	w.WriteHeader(status)
	w.Write(b)
}

// errorType is the provider's error type for a status: Anthropic's
// documented types (api_error for a server fault, request_too_large for
// 413), OpenAI's server_error for 5xx; invalid_request_error, which SDKs
// do not retry, only for the client's own faults.
func errorType(f history.Format, status int) string {
	switch {
	case f == history.FormatAnthropic && status >= 500:
		return "api_error"
	case f == history.FormatAnthropic && status == http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// logLine writes the request's one log line: no content, no header value.
func (p *Proxy) logLine(ex *exchange) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", ex.method, safe(ex.path))
	x := ex.x
	if x == nil {
		x = &inflight.Exchange{}
	}
	if x.Model != "" {
		fmt.Fprintf(&b, " model=%s", safe(x.Model))
		if x.Sent != "" && x.Sent != x.Model {
			fmt.Fprintf(&b, "→%s", safe(x.Sent))
		}
	}
	if x.In > 0 {
		fmt.Fprintf(&b, " tokens=%d", x.In)
		if x.Out != x.In {
			fmt.Fprintf(&b, "→%d", x.Out)
		}
		if x.Limit > 0 {
			fmt.Fprintf(&b, " limit=%d", x.Limit)
		}
	}
	if x.Pruned != "" {
		fmt.Fprintf(&b, " pruned=%q", x.Pruned)
	}
	fmt.Fprintf(&b, " status=%d", ex.status)
	if x.Attempts > 1 {
		fmt.Fprintf(&b, " attempts=%d", x.Attempts)
	}
	fmt.Fprintf(&b, " latency=%v", p.now().Sub(ex.start).Round(time.Millisecond))
	if ex.ttfb > 0 && x.Stream {
		fmt.Fprintf(&b, " ttfb=%v", ex.ttfb.Round(time.Millisecond))
	}
	if ex.err != "" {
		fmt.Fprintf(&b, " error=%q", ex.err)
	}
	for _, n := range append(append([]string(nil), x.Notes...), ex.notes...) {
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
