package inflight

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
)

// Kind is what an upstream answer means to the proxy.
type Kind int

// Kinds of upstream answers.
const (
	Pass     Kind = iota // success or an error the client must see as it is
	Overflow             // the request did not fit the model's context window
	Capacity             // the model is overloaded or at capacity: another may answer
)

// String is the kind's name in the proxy's log: pass, overflow or capacity.
func (k Kind) String() string {
	switch k {
	case Overflow:
		return "overflow"
	case Capacity:
		return "capacity"
	}
	return "pass"
}

// StatusOverloaded is Anthropic's "overloaded_error" status.
const StatusOverloaded = 529

// capacityWords mark a 429 that is about the provider's capacity rather than
// the caller's rate limit or quota (which another model would not lift):
// Anthropic's overloaded_error, OpenAI's "engine is currently overloaded",
// and Codex's "Selected model is at capacity. Please try a different model."
var capacityWords = []string{"capacity", "overloaded", "server_is_overloaded"}

// atCapacity is the wording Codex's backend uses whatever the status.
const atCapacity = "selected model is at capacity"

// Answer is a classified upstream answer.
type Answer struct {
	Kind       Kind
	Overflow   budget.Overflow // for Overflow
	RetryAfter time.Duration   // from the Retry-After header, 0 when absent
}

// Classify reads an upstream answer: its status, headers and (the start of)
// its body, which is only looked at for error statuses. It never panics.
func Classify(status int, h http.Header, body []byte) Answer {
	a := Answer{RetryAfter: retryAfter(h, time.Now())}
	if status < 400 {
		return a
	}
	text := string(body)
	if msg := errorMessage(body); msg != "" {
		// The message decoded: JSON encoders may escape "<", ">" and "&".
		text = msg + "\n" + text
	}
	lower := strings.ToLower(text)
	if status >= 400 && status < 500 && status != http.StatusTooManyRequests {
		if ov, err := budget.FromError(text); err == nil {
			a.Kind, a.Overflow = Overflow, ov
			return a
		}
	}
	switch {
	case strings.Contains(lower, atCapacity),
		status == StatusOverloaded,
		status == http.StatusServiceUnavailable:
		a.Kind = Capacity
	case status == http.StatusTooManyRequests:
		for _, w := range capacityWords {
			if strings.Contains(lower, w) {
				a.Kind = Capacity
			}
		}
	}
	return a
}

// errorMessage returns the message of a JSON error body in the shapes
// providers use ({"error":{"message":…}}, {"message":…}, {"error":"…"}),
// or "".
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	var e struct {
		Message string `json:"message"`
	}
	var s string
	switch {
	case json.Unmarshal(v.Error, &e) == nil && e.Message != "":
		return e.Message
	case json.Unmarshal(v.Error, &s) == nil && s != "":
		return s
	}
	return v.Message
}

// maxRetryAfter bounds a Retry-After the proxy will honour; longer ones are
// clamped (and then exceed any sensible Retry.MaxElapsed anyway).
const maxRetryAfter = time.Hour

// retryAfter reads a Retry-After header (seconds or an HTTP date), or the
// retry-after-ms header some providers send; 0 when absent or malformed.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return min(time.Duration(ms*float64(time.Millisecond)), maxRetryAfter)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return min(time.Duration(s*float64(time.Second)), maxRetryAfter)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, maxRetryAfter)
		}
	}
	return 0
}
