package inflight

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
)

// DefaultStepDivisor sets the default pruning step (Options.Step) to the
// limit / 8: each step frees an eighth of the window beyond what the
// request needs, which in an agent's tool loop (a few thousand tokens a
// turn) keeps the prefix unchanged for several turns, at the cost of old
// tool outputs the model is unlikely to need.
const DefaultStepDivisor = 8

// minStep keeps the step useful on tiny limits.
const minStep = 256

// head is what the proxy reads of a request body besides its conversation.
type head struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	// Output caps: Responses, Chat (new and legacy), Anthropic.
	MaxOutputTokens     *int `json:"max_output_tokens"`
	MaxCompletionTokens *int `json:"max_completion_tokens"`
	MaxTokens           *int `json:"max_tokens"`
}

// statedOutput is the output cap the request states and the field that
// states it; 0 and "" for none.
func (h head) statedOutput() (int, string) {
	for _, f := range []struct {
		p   *int
		key string
	}{{h.MaxOutputTokens, "max_output_tokens"}, {h.MaxCompletionTokens, "max_completion_tokens"}, {h.MaxTokens, "max_tokens"}} {
		if f.p != nil && *f.p > 0 {
			return *f.p, f.key
		}
	}
	return 0, ""
}

// parseHead reads the request's model and output cap.
func parseHead(body []byte) (head, error) {
	var h head
	if err := json.Unmarshal(body, &h); err != nil {
		return head{}, jsonError(body, err)
	}
	return h, nil
}

// headOf reads the head from a parsed request's top-level fields, which
// saves decoding the body a second time.
func headOf(conv *history.Conversation) (head, error) {
	var h head
	for _, f := range []struct {
		key string
		dst any
	}{
		{"model", &h.Model}, {"stream", &h.Stream},
		{"max_output_tokens", &h.MaxOutputTokens}, {"max_completion_tokens", &h.MaxCompletionTokens}, {"max_tokens", &h.MaxTokens},
	} {
		if raw := conv.Field(f.key); raw != nil {
			if err := json.Unmarshal(raw, f.dst); err != nil {
				return head{}, fmt.Errorf("field %q: %w", f.key, err)
			}
		}
	}
	return h, nil
}

// jsonError describes why body is not a JSON request, with a line and
// column for syntax errors.
func jsonError(body []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := min(int(se.Offset), len(body))
		line := 1 + bytes.Count(body[:off], []byte("\n"))
		col := off - bytes.LastIndexByte(body[:off], '\n')
		return fmt.Errorf("line %d, column %d: %v", line, col, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %q: want %s, got JSON %s", te.Field, te.Type, te.Value)
	}
	return err
}

// StableLimit is the limit the proxy asks history to prune a request of
// total tokens to, for an input limit of limit and a step of step tokens:
// the excess rounded up to a multiple of step is freed, so that requests
// that grow by less than what a step left over free the same tokens (see
// the package documentation). A step below 1 frees just the excess.
func StableLimit(total, limit, step int) int {
	if total <= limit {
		return limit
	}
	if step < 1 {
		return limit
	}
	over := total - limit
	steps := (over + step - 1) / step
	return total - steps*step
}

// stepFor is the pruning step for a limit: Options.Step, else the
// default.
func stepFor(opt, limit int) int {
	switch {
	case opt < 0:
		return 0
	case opt > 0:
		return opt
	}
	return max(limit/DefaultStepDivisor, minStep)
}

// fitResult is the outcome of fitting one request body to a limit.
type fitResult struct {
	body          []byte // what to send: the input itself when !changed
	changed       bool
	before, after int    // request tokens (0 when not counted)
	steps         string // what was pruned, "" for nothing
	// reject is set when the request needed pruning but could not be
	// parsed: the proxy answers 400 with it.
	reject error
	// note says why a request over its limit went out unchanged, or
	// that it went out in its smallest valid form.
	note string
	// minimal is set when the pinned minimum is over the limit and body
	// is the smallest valid form: after is then over the limit.
	minimal bool
}

// fitter fits conversations. It is safe for concurrent use.
type fitter struct {
	step   int             // Options.Step
	hopts  history.Options // history's knobs (Logf unused)
	sticky *sticky         // nil: every request is pruned afresh
}

// fit fits body, a request for model whose conversation is conv (nil with
// parseErr when it could not be parsed), to limit tokens counted by c.
// limit ≤ 0 means no limit. It never modifies body or conv. A request over
// its limit that extends one pruned before (same model and limit) goes out
// as that pruned form plus its new items when they fit; else it is pruned
// afresh, in steps.
func (ft fitter) fit(model string, body []byte, conv *history.Conversation, parseErr error, c budget.Counter, limit int) fitResult {
	res := fitResult{body: body}
	switch {
	case limit == 0:
		return res
	case limit < 0:
		// Nothing can fit: the provider's answer is the truth.
		res.note = "the window leaves no room for input"
		return res
	}
	if conv == nil {
		// Not a conversation: the raw text bounds its count from above.
		res.before = c.Count(string(body))
		res.after = res.before
		if res.before <= limit {
			return res
		}
		res.reject = parseErr
		return res
	}
	res.before = history.Tokens(conv, c)
	res.after = res.before
	if res.before <= limit {
		return res
	}
	var hs [][32]byte
	if ft.sticky != nil {
		hs = chain(conv.Items())
		if out, after, added, ok := ft.sticky.reuse(model, conv, hs, c, limit); ok {
			var b bytes.Buffer
			if err := out.Encode(&b); err == nil {
				ft.sticky.store(model, limit, hs[len(hs)-1], out.Items())
				res.body, res.changed, res.after = b.Bytes(), true, after
				res.steps = fmt.Sprintf("as before + %d new items", added)
				return res
			}
		}
	}
	// Prune counts as history.Tokens does, estimate counters included: a
	// request it returns within a budget is within it by Tokens.
	prune := func(budget int) (*history.Result, error) {
		opts := ft.hopts
		opts.Budget, opts.Logf = budget, nil
		return history.Prune(conv, c, &opts)
	}
	lim, step := limit, stepFor(ft.step, limit)
	target := StableLimit(res.before, lim, step)
	pr, err := prune(target)
	if err != nil && target < lim && errors.Is(err, history.ErrNoFit) {
		pr, err = prune(lim)
	}
	if err == nil && step > 0 && pr.DroppedTurns > 0 {
		// Turns had to be dropped: every earlier step ran to its end, so
		// the drop's own need is what is left over the limit. Rounded up
		// to a step of its own, the same turns are dropped (and the same
		// notice written) while the history grows, although the masking
		// of outputs that age into it frees more each turn.
		if pre := beforeStep(pr, history.StepDrop); pre > lim {
			if t2 := StableLimit(pre, lim, step); t2 != target {
				if pr2, err2 := prune(t2); err2 == nil {
					pr = pr2
				}
			}
		}
	}
	var nf *budget.NoFitError
	if err != nil && errors.As(err, &nf) && nf.Pinned > limit {
		// Even the pinned minimum is over the limit. The request as it
		// is must fail; its smallest valid form (every turn that may go
		// dropped) may still fit the real window, which a limit shrunk
		// by a reserve or a margin understates.
		if pr, err = prune(nf.Pinned); err == nil {
			res.minimal = true
			res.note = fmt.Sprintf("pinned minimum %d is over the limit %d: sent the smallest valid form", nf.Pinned, limit)
		}
	}
	if err != nil {
		res.note = "cannot fit: " + shortError(err)
		return res
	}
	after := history.Tokens(pr.Conversation, c)
	if after > limit && !res.minimal {
		res.note = fmt.Sprintf("cannot fit: pruned to %d tokens, over the limit of %d", after, limit)
		return res
	}
	var out bytes.Buffer
	if err := pr.Conversation.Encode(&out); err != nil {
		res.note = "cannot encode the pruned request: " + err.Error()
		return res
	}
	res.body, res.changed, res.after = out.Bytes(), pr.Changed(), after
	res.steps = describeSteps(pr)
	// The smallest valid form is not a pruned form to extend: the next
	// request, larger, cannot fit the limit either.
	if ft.sticky != nil && res.changed && !res.minimal {
		ft.sticky.store(model, limit, hs[len(hs)-1], pr.Conversation.Items())
	}
	return res
}

// beforeStep is the request's size before the step named name, 0 when
// the step did not run.
func beforeStep(r *history.Result, name string) int {
	for _, s := range r.Steps {
		if s.Name == name {
			return s.Before
		}
	}
	return 0
}

// shortError is the first clause of err, for a log line.
func shortError(err error) string {
	s := err.Error()
	if i := strings.Index(s, " ("); i > 0 {
		s = s[:i]
	}
	return s
}

// describeSteps says what Prune did: "mask 12, truncate 1, drop 3 turns".
func describeSteps(r *history.Result) string {
	var parts []string
	for _, s := range r.Steps {
		if s.Edits == 0 {
			continue
		}
		if s.Name == history.StepDrop {
			noun := "turns"
			if r.DroppedTurns == 1 {
				noun = "turn"
			}
			parts = append(parts, fmt.Sprintf("drop %d %s", r.DroppedTurns, noun))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d", s.Name, s.Edits))
	}
	return strings.Join(parts, ", ")
}

// errNotObject is returned by setModel for a body that is not a JSON
// object.
var errNotObject = errors.New("request body is not a JSON object")

// setModel returns body with its top-level "model" set to model; every
// other byte is kept. body must be a valid JSON object.
func setModel(body []byte, model string) ([]byte, error) {
	val, err := json.Marshal(model)
	if err != nil {
		return nil, err
	}
	return setField(body, "model", val)
}

// setField returns body with its top-level field key set to the JSON
// value val (added at the front when absent); every other byte is kept.
// body must be a valid JSON object.
func setField(body []byte, key string, val []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(body, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, jsonError(body, err)
		}
		var raw json.RawMessage
		start := dec.InputOffset()
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonError(body, err)
		}
		if k, _ := kt.(string); k == key {
			end := dec.InputOffset()
			// start is just past the key; the value starts after the colon.
			vs := start + int64(bytes.IndexByte(body[start:end], ':')) + 1
			for vs < end && isSpace(body[vs]) {
				vs++
			}
			out := make([]byte, 0, len(body)+len(val))
			out = append(append(append(out, body[:vs]...), val...), body[end:]...)
			return out, nil
		}
	}
	// No such field: add one at the front.
	i := bytes.IndexByte(body, '{') + 1
	sep := []byte(",")
	if rest := bytes.TrimSpace(body[i:]); len(rest) > 0 && rest[0] == '}' {
		sep = nil
	}
	out := make([]byte, 0, len(body)+len(val)+10)
	out = append(out, body[:i]...)
	kb, _ := json.Marshal(key)
	out = append(append(append(append(out, kb...), ':'), val...), sep...)
	return append(out, body[i:]...), nil
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
