package budget

import "errors"

// What a caller learns of a model's limit from the provider's answers.
//
// An overflow error that states the window (Chat Completions, Anthropic,
// vLLM, Gemini, llama.cpp, …) is the truth: the window becomes the smaller
// of the stated ones. An error that states no numbers (OpenAI's Responses
// API: "Your input exceeds the context window of this model. Please adjust
// your input and try again."; Bedrock; Codex) says only that a request of
// the size sent was too large. Then the caller works from sizes, in its own
// count of the input:
//
//	refused  = the smallest input refused without a stated window
//	accepted = the largest input accepted
//	ceiling  = max(accepted, refused × RefitPercent / 100), below refused
//
// No request above the ceiling is sent again. Because the ceiling is the
// largest size known to pass (or a geometric step below the smallest known
// to fail), a client whose requests grow gradually loses nothing to the
// search: its largest accepted request was close to the window before the
// first refusal. A client whose first request is already over the window
// shrinks by RefitPercent per refusal, so MaxRefits retries reach
// RefitPercent² of the refused size (56%).

// RefitPercent is the geometric step after an overflow error that states
// no window: the next attempt is at most this share of the smallest size
// refused. Three quarters reaches any window above 56% of the first
// refused size within MaxRefits retries, while cutting a request that was
// only just over its window by a quarter rather than a half.
const RefitPercent = 75

// MaxRefits bounds the retries of one request after overflow errors:
// with the first attempt, a request is sent at most 1 + MaxRefits times,
// so a caller never loops on an error it cannot read.
const MaxRefits = 2

// ErrGiveUp is returned (wrapped) when retrying after an overflow error
// cannot help: the retries are used up, or nothing smaller can be sent.
// The caller stops and reports the provider's error.
var ErrGiveUp = errors.New("the request cannot be made to fit: stop retrying")

// Learned is what a caller has learned of one model's input limit at one
// provider. The zero value knows nothing. It is a plain value: copy it to
// keep a snapshot; it is not safe for concurrent mutation.
type Learned struct {
	Window   int // the smallest window an overflow error stated; 0 for none
	Output   int // the output that error said was requested; 0 for none
	Refused  int // the smallest input refused by an error stating no window; 0 for none
	Accepted int // the largest input the provider accepted; 0 for none
}

// Accept records that an input of tokens was accepted.
func (l *Learned) Accept(tokens int) {
	if tokens > l.Accepted {
		l.Accepted = tokens
	}
}

// Refuse records that an input of tokens (the caller's count of what was
// sent; 0 when unknown) was refused with the overflow error ov.
func (l *Learned) Refuse(tokens int, ov Overflow) {
	if ov.Window > 0 {
		if l.Window == 0 || ov.Window < l.Window {
			l.Window, l.Output = ov.Window, ov.Output
		}
		return
	}
	if tokens > 0 && (l.Refused == 0 || tokens < l.Refused) {
		l.Refused = tokens
	}
}

// Ceiling returns the largest input believed to fit from the sizes
// refused and accepted (see above): 0 when no input was refused without a
// stated window, else a size below every refused one.
func (l Learned) Ceiling() int {
	if l.Refused == 0 {
		return 0
	}
	c := l.Refused * RefitPercent / 100
	if l.Accepted < l.Refused && l.Accepted > c {
		c = l.Accepted
	}
	return max(c, 1)
}

// Cap returns the input limit lowered to the ceiling when there is one:
// no limit (0) becomes the ceiling; a limit that leaves no room (negative)
// stays as it is.
func (l Learned) Cap(limit int) int {
	if c := l.Ceiling(); c > 0 && limit >= 0 && (limit == 0 || c < limit) {
		return c
	}
	return limit
}
