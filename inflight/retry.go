package inflight

import (
	"strings"
	"time"
)

// Retry bounds the retries on capacity answers (Options.Fallback). The zero
// value is valid: every field has a default.
type Retry struct {
	// Attempts is the number of upstream attempts in all, the first one
	// included. 0 means DefaultAttempts.
	Attempts int
	// MaxElapsed bounds the time from the first attempt to the start of
	// the last: a wait that would end later is not made. 0 means
	// DefaultMaxElapsed.
	MaxElapsed time.Duration
	// Base is the backoff before the second attempt; it doubles with each
	// further one. 0 means DefaultBackoff.
	Base time.Duration
	// Max caps one backoff (not a Retry-After). 0 means DefaultMaxBackoff.
	Max time.Duration
}

// Retry defaults, each with its reason.
const (
	// DefaultAttempts: the primary and up to three more, enough to go
	// through a primary and two backups and come back once.
	DefaultAttempts = 4
	// DefaultMaxElapsed stays well below the clients' own patience for a
	// response to start (Codex's stream idle timeout is 300 s, Claude
	// Code's request timeout 600 s), so the client, not the proxy, decides
	// when to give up after that.
	DefaultMaxElapsed = 30 * time.Second
	// DefaultBackoff is short: the next attempt usually goes to another
	// model, which has not been asked yet.
	DefaultBackoff = 250 * time.Millisecond
	// DefaultMaxBackoff caps the doubling (250 ms × 2⁵).
	DefaultMaxBackoff = 8 * time.Second
)

func (r Retry) withDefaults() Retry {
	if r.Attempts <= 0 {
		r.Attempts = DefaultAttempts
	}
	if r.MaxElapsed <= 0 {
		r.MaxElapsed = DefaultMaxElapsed
	}
	if r.Base <= 0 {
		r.Base = DefaultBackoff
	}
	if r.Max <= 0 {
		r.Max = DefaultMaxBackoff
	}
	return r
}

// backoff returns the wait before attempt n (n ≥ 1 is the second attempt):
// "full jitter" (AWS Architecture Blog, "Exponential Backoff And Jitter"),
// a uniform draw in [0, min(Max, Base×2^(n−1))] with u in [0, 1), so that
// clients that failed together do not retry together.
func (r Retry) backoff(n int, u float64) time.Duration {
	ceil := r.Base
	for i := 1; i < n && ceil < r.Max; i++ {
		ceil *= 2
	}
	ceil = min(ceil, r.Max)
	return time.Duration(u * float64(ceil))
}

// Chain returns the models a request for model may go to, in order: model,
// then its backups in fallback (matched case-insensitively), without
// repeats. A model without backups gives a chain of one.
func Chain(model string, fallback map[string][]string) []string {
	out := []string{model}
	seen := map[string]bool{strings.ToLower(model): true}
	for k, backups := range fallback {
		if !strings.EqualFold(strings.TrimSpace(k), model) {
			continue
		}
		for _, b := range backups {
			b = strings.TrimSpace(b)
			if b != "" && !seen[strings.ToLower(b)] {
				seen[strings.ToLower(b)] = true
				out = append(out, b)
			}
		}
	}
	return out
}

// schedule decides, after a capacity answer, which model the next attempt
// goes to and when. It is pure: time and randomness are passed in.
type schedule struct {
	r         Retry // with defaults
	chain     []string
	start     time.Time
	attempts  int                  // attempts made so far
	notBefore map[string]time.Time // per model, from its Retry-After
}

func newSchedule(r Retry, chain []string, start time.Time) *schedule {
	return &schedule{r: r.withDefaults(), chain: chain, start: start, notBefore: map[string]time.Time{}}
}

// next records that model answered at capacity at now (with its
// Retry-After, 0 for none) and returns the model of the next attempt and
// the wait before it; ok is false when the request should stop here: a
// chain of one model (no fallback), the attempts used up, or a wait that
// would end after MaxElapsed.
func (s *schedule) next(model string, retryAfter time.Duration, now time.Time, u float64) (next string, wait time.Duration, ok bool) {
	s.attempts++
	if retryAfter > 0 {
		s.notBefore[strings.ToLower(model)] = now.Add(retryAfter)
	}
	if len(s.chain) < 2 || s.attempts >= s.r.Attempts {
		return "", 0, false
	}
	next = s.chain[s.attempts%len(s.chain)]
	wait = s.r.backoff(s.attempts, u)
	if nb, found := s.notBefore[strings.ToLower(next)]; found && nb.Sub(now) > wait {
		wait = nb.Sub(now)
	}
	if now.Add(wait).Sub(s.start) > s.r.MaxElapsed {
		return "", 0, false
	}
	return next, wait, true
}
