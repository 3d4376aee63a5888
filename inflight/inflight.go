package inflight

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
)

// maxCached bounds the resolved targets and learned limits kept, which are
// keyed by model names that clients send.
const maxCached = 1024

// maxErrorBody bounds what Send reads of an error body to classify it; the
// rest is passed on unread.
const maxErrorBody = 1 << 20

// Options configures a Fitter. The zero value is valid: the built-in model
// table, every default, no fallback. New copies it; its funcs and maps must
// not change afterwards.
type Options struct {
	// Resolve returns the target of a model; learned, when positive, is
	// a window an overflow error stated for it. Its result is cached per
	// (model, learned). nil means DefaultResolve. An error leaves the
	// request unfitted unless Budget is set.
	Resolve func(model string, learned int) (Target, error)
	// Budget caps every request's input at this many tokens, whatever
	// its model; 0 means no cap beyond the window.
	Budget int
	// Fallback maps a model to its backups, tried in order on capacity
	// answers. nil: capacity answers are final.
	Fallback map[string][]string
	// Retry bounds the fallback retries; the zero value is valid.
	Retry Retry
	// Step is the pruning step in tokens (see the package
	// documentation); 0 means limit/DefaultStepDivisor, a negative value
	// prunes just enough.
	Step int
	// StickyBytes bounds the memory of the pruned forms of recent
	// requests (see the package documentation); 0 means
	// DefaultStickyBytes, a negative value remembers nothing.
	StickyBytes int64
	// History tunes history.Prune (KeepLast, MaskAfter, MaxItem); its
	// Budget and Logf are not used.
	History history.Options
	// DryRun sends every request unchanged and once, and notes what
	// would have been pruned.
	DryRun bool
	// Sleep waits d before an attempt, or returns ctx's error; nil means
	// a timer. Now is the clock that measures Retry.MaxElapsed and a
	// Retry-After; nil means time.Now. Rand draws the backoff's jitter
	// in [0, 1); nil means math/rand/v2. Callers with their own scheduler
	// (and tests) set them.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	Rand  func() float64
}

// Fitter applies the in-flight policy to requests for one provider. It
// remembers, for the life of the Fitter, what the provider's answers
// taught of each model's limit (budget.Learned): use one Fitter per
// provider endpoint. It is safe for concurrent use.
type Fitter struct {
	opts  Options
	fit   fitter
	o200k budget.Counter

	targets  sync.Map // targetKey → targetEntry
	ntargets atomic.Int64
	mu       sync.Mutex
	learned  map[string]*budget.Learned // lower-case model → what its answers taught

	// Options.Rand, Sleep and Now, or their defaults.
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

// New returns a Fitter for opts (nil: the zero Options).
func New(opts *Options) (*Fitter, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Budget < 0 {
		return nil, fmt.Errorf("negative budget %d", o.Budget)
	}
	if o.Resolve == nil {
		o.Resolve = DefaultResolve
	}
	f := &Fitter{opts: o, learned: map[string]*budget.Learned{}, rand: o.Rand, sleep: o.Sleep, now: o.Now}
	if f.rand == nil {
		f.rand = rand.Float64
	}
	if f.sleep == nil {
		f.sleep = sleepCtx
	}
	if f.now == nil {
		f.now = time.Now
	}
	f.fit = fitter{step: o.Step, hopts: o.History}
	switch {
	case o.StickyBytes == 0:
		f.fit.sticky = newSticky(DefaultStickyBytes)
	case o.StickyBytes > 0:
		f.fit.sticky = newSticky(o.StickyBytes)
	}
	var err error
	if f.o200k, err = budget.NewEncodingCounter(budget.O200kBase); err != nil {
		return nil, err
	}
	return f, nil
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

// Exchange is one request on its way through the policy: what the client
// sent, and what the last attempt sends. Start makes it; Answer and Send
// move it on. Its exported fields are for reading (a log line); only the
// Fitter changes them. An Exchange is used by one goroutine at a time.
type Exchange struct {
	Format history.Format
	Body   []byte // the client's body; never modified
	Model  string // the model the client asked for
	Stream bool
	Stated int // the output cap the request states, 0 for none

	// The last attempt.
	Send     []byte   // the body to send
	Sent     string   // the model it goes to
	In, Out  int      // request tokens before and after fitting (0: not counted)
	Limit    int      // the input limit it was fitted to (0: none)
	Pruned   string   // what was pruned ("mask 3, drop 2 turns"), "" for nothing
	Notes    []string // what else happened, for a log line
	Attempts int      // attempts made so far
	// Reject is set when the request needed pruning but its body could
	// not be parsed: it must not be sent as it is (the proxy answers 400).
	Reject error

	statedKey string
	conv      *history.Conversation
	parseErr  error
	start     time.Time
	sched     *schedule
	refits    int // overflow retries on the current model
}

// Start parses body, a request of format, and fits it for its model: the
// returned Exchange's Send is the first attempt's body (the client's own
// when it fits or cannot be fitted).
func (f *Fitter) Start(format history.Format, body []byte) *Exchange {
	x := &Exchange{Format: format, Body: body, start: f.now()}
	conv, convErr := history.ParseFormat(bytes.NewReader(body), format)
	var h head
	var err error
	if convErr == nil {
		h, err = headOf(conv)
	} else {
		h, err = parseHead(body)
	}
	switch {
	case err != nil:
		x.parseErr = err
	case convErr != nil:
		x.parseErr = convErr
	default:
		x.conv = conv
	}
	if err == nil {
		x.Model, x.Stream = h.Model, h.Stream
		x.Stated, x.statedKey = h.statedOutput()
	}
	f.fitFor(x, x.Model, 0)
	return x
}

// target resolves model (cached), with its learned window if any.
func (f *Fitter) target(model string, window int) (Target, error) {
	if window <= 0 {
		window = f.learnedOf(model).Window
	}
	k := targetKey{model, window}
	if e, ok := f.targets.Load(k); ok {
		e := e.(targetEntry)
		return e.t, e.err
	}
	t, err := f.opts.Resolve(model, window)
	if err == nil && t.Counter == nil {
		err = fmt.Errorf("model %s: no counter", model)
	}
	// Model names come from clients: the cache is bounded.
	if f.ntargets.Load() < maxCached {
		if _, loaded := f.targets.LoadOrStore(k, targetEntry{t, err}); !loaded {
			f.ntargets.Add(1)
		}
	}
	return t, err
}

// learnedOf returns a copy of what model's answers taught.
func (f *Fitter) learnedOf(model string) budget.Learned {
	f.mu.Lock()
	defer f.mu.Unlock()
	if l := f.learned[strings.ToLower(model)]; l != nil {
		return *l
	}
	return budget.Learned{}
}

// Learned returns what the provider's answers taught of model's limit so
// far (the zero value when nothing).
func (f *Fitter) Learned(model string) budget.Learned { return f.learnedOf(model) }

// learn updates what model's answers taught.
func (f *Fitter) learn(model string, update func(*budget.Learned)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := strings.ToLower(model)
	l := f.learned[k]
	if l == nil {
		if len(f.learned) >= maxCached {
			return
		}
		l = &budget.Learned{}
		f.learned[k] = l
	}
	update(l)
}

// limitOf is the input limit of a request stating an output cap of stated
// tokens to model, resolved as t: the target's, capped by Options.Budget
// and by the ceiling the model's answers taught; 0 for none, -1 when the
// window leaves no room.
func (f *Fitter) limitOf(model string, t Target, stated int) int {
	return f.learnedOf(model).Cap(t.limit(stated, f.opts.Budget))
}

// fitFor fits x's body for model (the client's or a backup), with window
// overriding the model's when positive, and records the outcome in x. The
// body's model field is set to model when it differs from the client's.
func (f *Fitter) fitFor(x *Exchange, model string, window int) {
	x.Sent, x.Pruned, x.Reject = model, "", nil
	t, err := f.target(model, window)
	if err != nil {
		if f.opts.Budget == 0 && f.learnedOf(model).Ceiling() == 0 {
			x.Limit, x.In, x.Out = 0, 0, 0
			x.Notes = append(x.Notes, "not fitted: "+shortError(err))
			f.withModel(x, fitResult{body: x.Body}, model)
			return
		}
		t = Target{Counter: f.o200k}
	}
	x.Limit = f.limitOf(model, t, x.Stated)
	res := f.fit.fit(model, x.Body, x.conv, x.parseErr, t.Counter, x.Limit)
	f.apply(x, t, res)
}

// apply records res, a fit of x for x.Sent to target t, in x.
func (f *Fitter) apply(x *Exchange, t Target, res fitResult) {
	x.In, x.Out = res.before, res.after
	if res.note != "" {
		x.Notes = append(x.Notes, res.note)
	}
	if f.opts.DryRun {
		if res.changed {
			x.Notes = append(x.Notes, fmt.Sprintf("dry run: would prune %s to %d tokens", res.steps, res.after))
		}
		if res.reject != nil {
			x.Notes = append(x.Notes, "dry run: would refuse: "+res.reject.Error())
		}
		x.Out = x.In
		x.Send = x.Body
		return
	}
	f.take(x, t, res)
}

// take makes res, a fit of x for x.Sent to target t, x's next attempt:
// a smallest valid form with its output cap lowered, the body's model set.
func (f *Fitter) take(x *Exchange, t Target, res fitResult) {
	if res.minimal {
		res = f.lowerOutput(x, t, res)
	}
	x.Pruned = res.steps
	f.withModel(x, res, x.Sent)
}

// lowerOutput lowers the output cap of a request sent in its smallest
// valid form to what the window leaves, where the request states one and
// the window is known: the provider refuses input plus stated output over
// the window (Anthropic's "input length and `max_tokens` exceed context
// limit"), and a shorter answer beats a refused request.
func (f *Fitter) lowerOutput(x *Exchange, t Target, res fitResult) fitResult {
	if x.Stated <= 0 || x.statedKey == "" || t.Window <= 0 {
		return res
	}
	room := t.Window - t.limits(0).MarginTokens() - res.after
	if room >= x.Stated {
		return res
	}
	if room < 1 {
		x.Notes = append(x.Notes, fmt.Sprintf("the smallest valid form (%d tokens) leaves no room for output in the %d-token window", res.after, t.Window))
		return res
	}
	b, err := setField(res.body, x.statedKey, []byte(strconv.Itoa(room)))
	if err != nil {
		return res
	}
	b, thinking, ok := lowerThinking(b, room)
	if !ok {
		x.Notes = append(x.Notes, fmt.Sprintf("the smallest valid form (%d tokens) leaves %d tokens of output, too few for its thinking budget", res.after, room))
		return res
	}
	note := fmt.Sprintf("%s %d → %d (what the window leaves)", x.statedKey, x.Stated, room)
	if thinking > 0 {
		note += fmt.Sprintf(", thinking.budget_tokens → %d", thinking)
	}
	x.Notes = append(x.Notes, note)
	res.body = b
	return res
}

// minThinkingBudget is Anthropic's smallest thinking.budget_tokens.
const minThinkingBudget = 1024

// lowerThinking keeps an Anthropic request valid after its max_tokens was
// lowered to maxTokens: the API refuses a thinking.budget_tokens that is
// not below max_tokens ("`max_tokens` must be greater than
// `thinking.budget_tokens`"), and Claude Code sends 31999 with 32000. The
// budget becomes maxTokens − 1 (returned; 0 when nothing changed); ok is
// false when that is below the API's minimum of 1,024.
func lowerThinking(body []byte, maxTokens int) (out []byte, budget int, ok bool) {
	// The body is decoded once, for its thinking object alone; the
	// object's bytes are then both read and rewritten.
	var h struct {
		Thinking json.RawMessage `json:"thinking"`
	}
	var t struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	}
	if json.Unmarshal(body, &h) != nil || len(h.Thinking) == 0 || json.Unmarshal(h.Thinking, &t) != nil ||
		t.Type != "enabled" || t.BudgetTokens < maxTokens {
		return body, 0, true
	}
	budget = maxTokens - 1
	if budget < minThinkingBudget {
		return body, 0, false
	}
	// Every other byte, of thinking's included, is kept.
	th, err := setField(h.Thinking, "budget_tokens", []byte(strconv.Itoa(budget)))
	if err != nil {
		return body, 0, false
	}
	if out, err = setField(body, "thinking", th); err != nil {
		return body, 0, false
	}
	return out, budget, true
}

// withModel records res's body in x, with its model set to model when it
// is not the client's.
func (f *Fitter) withModel(x *Exchange, res fitResult, model string) {
	x.Send, x.Reject = res.body, res.reject
	if model == x.Model || res.reject != nil {
		return
	}
	b, err := setModel(res.body, model)
	if err != nil {
		x.Reject = err
		return
	}
	x.Send = b
}

// Action is what to do with an upstream answer.
type Action int

// Actions.
const (
	// Stop: hand the answer to the caller as it is (success, or an error
	// that retrying cannot help).
	Stop Action = iota
	// Resend: send the Exchange's Send to its Sent model, after Wait.
	Resend
)

// String names the action: stop or resend.
func (a Action) String() string {
	if a == Resend {
		return "resend"
	}
	return "stop"
}

// Decision is what Answer decided.
type Decision struct {
	Action Action
	Kind   Kind          // what the answer was
	Wait   time.Duration // before resending
}

// Answer reads the upstream answer to x's last attempt (its status,
// headers and the start of its body, which is read only for errors) and
// decides: Stop, or Resend with x's Send and Sent set for the next
// attempt. An accepted answer teaches the size sent; an overflow error is
// re-fitted to what it states or, stating nothing, to the ceiling learned
// from the sizes refused and accepted, at most budget.MaxRefits times per
// model; a capacity answer goes to the next model of the fallback chain,
// re-fitted to it. It never loops: every Resend sends something smaller or
// to another model, within bounded attempts.
func (f *Fitter) Answer(x *Exchange, status int, h http.Header, body []byte) Decision {
	if f.opts.DryRun {
		return Decision{}
	}
	if status < 400 {
		if status < 300 && x.Out > 0 {
			f.learn(x.Sent, func(l *budget.Learned) { l.Accept(x.Out) })
		}
		return Decision{}
	}
	a := Classify(status, h, body)
	d := Decision{Kind: a.Kind}
	switch a.Kind {
	case Overflow:
		if x.conv == nil {
			return d
		}
		if x.refits >= budget.MaxRefits {
			x.Notes = append(x.Notes, fmt.Sprintf("overflow: gave up after %d re-fits", x.refits))
			return d
		}
		if !f.refit(x, a.Overflow) {
			return d
		}
		x.refits++
		d.Action = Resend
	case Capacity:
		if x.sched == nil {
			x.sched = newSchedule(f.opts.Retry, Chain(x.Model, f.opts.Fallback), x.start)
		}
		next, wait, ok := x.sched.next(x.Sent, a.RetryAfter, f.now(), f.rand())
		if !ok {
			if len(x.sched.chain) > 1 {
				x.Notes = append(x.Notes, fmt.Sprintf("capacity: gave up after %d attempts", x.Attempts))
			}
			return d
		}
		x.Notes = append(x.Notes, fmt.Sprintf("%s at capacity (%d), trying %s in %v", x.Sent, status, next, wait.Round(time.Millisecond)))
		f.fitFor(x, next, 0)
		if x.Reject != nil {
			x.Notes = append(x.Notes, fmt.Sprintf("cannot fit the request for %s: %v", next, x.Reject))
			return d
		}
		x.refits = 0 // the overflow retries are per model
		d.Action, d.Wait = Resend, wait
	}
	return d
}

// refit re-fits x after an overflow answer for x.Sent; false when there is
// nothing smaller to send.
func (f *Fitter) refit(x *Exchange, ov budget.Overflow) bool {
	t, err := f.target(x.Sent, ov.Window)
	if err != nil {
		t = Target{Counter: f.o200k, Window: ov.Window}
	}
	sent := x.Out // the count of what was refused
	if sent <= 0 {
		sent = history.Tokens(x.conv, t.Counter)
	}
	if sent <= 0 {
		return false
	}
	f.learn(x.Sent, func(l *budget.Learned) { l.Refuse(sent, ov) })
	limit := f.limitOf(x.Sent, t, max(x.Stated, ov.Output))
	if ov.Window > 0 {
		// The provider counted more than we did: scale the limit by the
		// ratio, so that the retry fits by the provider's count.
		if prompt := promptTokens(ov); prompt > sent && limit > 0 {
			limit = int(int64(limit) * int64(sent) / int64(prompt))
		}
	}
	if limit <= 0 || limit >= sent {
		// A window the refused request already fit by our count: cut a
		// geometric step below what was refused.
		limit = sent * budget.RefitPercent / 100
	}
	x.Limit = limit
	res := f.fit.fit(x.Sent, x.Body, x.conv, nil, t.Counter, limit)
	if res.note != "" {
		x.Notes = append(x.Notes, "refit: "+res.note)
	}
	if !res.changed || res.after >= sent {
		return false
	}
	what := fmt.Sprintf("window %d", ov.Window)
	if ov.Window == 0 {
		what = fmt.Sprintf("no window stated; ceiling %d", f.learnedOf(x.Sent).Ceiling())
	}
	x.Notes = append(x.Notes, fmt.Sprintf("overflow (%s): refit %d → %d tokens", what, sent, res.after))
	x.In, x.Out = res.before, res.after
	f.take(x, t, res)
	return x.Reject == nil
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

// SendFunc sends one attempt's body upstream.
type SendFunc func(ctx context.Context, body []byte) (*http.Response, error)

// Via returns the SendFunc that sends each attempt as req (its method, URL
// and headers) with the attempt's body, through do: an http.Client's Do, a
// RoundTripper's RoundTrip.
func Via(req *http.Request, do func(*http.Request) (*http.Response, error)) SendFunc {
	return func(ctx context.Context, body []byte) (*http.Response, error) {
		out := req.Clone(ctx)
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.ContentLength = int64(len(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		return do(out)
	}
}

// Send sends x's attempts with send until an answer is final (Answer
// says Stop), waiting between attempts as it says, and returns that
// answer, its body unread but for the start Answer looked at (put back in
// front). An error from send or a cancelled ctx ends it.
func (f *Fitter) Send(ctx context.Context, x *Exchange, send SendFunc) (*http.Response, error) {
	if x.Reject != nil {
		return nil, fmt.Errorf("the request needs pruning to fit %d tokens, but its body cannot be parsed as a %s request: %w", x.Limit, x.Format, x.Reject)
	}
	for {
		x.Attempts++
		resp, err := send(ctx, x.Send)
		if err != nil {
			return nil, err
		}
		var peek []byte
		if resp.StatusCode >= 400 && !f.opts.DryRun {
			// Read the start of the error body to classify it, and put
			// it back in front of the rest.
			var rerr error
			peek, rerr = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			resp.Body = readCloser{io.MultiReader(bytes.NewReader(peek), resp.Body), resp.Body}
			if rerr != nil {
				return resp, nil
			}
		}
		d := f.Answer(x, resp.StatusCode, resp.Header, peek)
		if d.Action == Stop {
			return resp, nil
		}
		resp.Body.Close()
		if err := f.sleep(ctx, d.Wait); err != nil {
			return nil, err
		}
	}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// FormatOf returns the request format of an API path: OpenAI Responses
// (…/v1/responses), Chat Completions (…/v1/chat/completions) or Anthropic
// Messages (…/v1/messages); ok is false for any other path.
func FormatOf(path string) (f history.Format, ok bool) {
	p := strings.TrimSuffix(path, "/")
	for _, r := range []struct {
		suffix string
		f      history.Format
	}{
		{"/v1/responses", history.FormatResponses},
		{"/v1/chat/completions", history.FormatChat},
		{"/v1/messages", history.FormatAnthropic},
	} {
		if strings.HasSuffix(p, r.suffix) {
			return r.f, true
		}
	}
	return "", false
}

// ErrNotFitted is returned by Do for a request whose path is not one of
// FormatOf's.
var ErrNotFitted = errors.New("not a Responses, Chat Completions or Messages request")

// Do sends req, a POST of a Responses, Chat Completions or Messages body
// (its URL's path tells which), through the policy with client (nil:
// http.DefaultClient): fitted to its model, re-fitted after overflow
// errors, and moved to a backup model on capacity answers. It returns the
// final answer, as Send does, and the Exchange that says what was done.
// req's body is read and closed; its headers go with every attempt.
func (f *Fitter) Do(client *http.Client, req *http.Request) (*http.Response, *Exchange, error) {
	format, ok := FormatOf(req.URL.Path)
	if !ok {
		return nil, nil, fmt.Errorf("%s: %w", req.URL.Path, ErrNotFitted)
	}
	if client == nil {
		client = http.DefaultClient
	}
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("read the request body: %w", err)
		}
	}
	x := f.Start(format, body)
	resp, err := f.Send(req.Context(), x, Via(req, client.Do))
	return resp, x, err
}
