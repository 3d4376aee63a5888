package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/inflight"
)

// stub is a model server for the tests and benchmarks, on loopback: the
// three routes, a context window per model enforced with the providers'
// real overflow errors, capacity failures per model, server-sent events
// flushed one by one, faults on demand (request header X-Stub-Fault), and a
// prefix cache that reports, per request, how many tokens of it an earlier
// request had already sent (usage cached_tokens, header X-Stub-Cached).
//
// Counting: history's accounting with o200k_base, times scale (a provider
// that counts more than the proxy does), so that a request the proxy
// fitted is accepted unless a test wants otherwise.
type stub struct {
	c       budget.Counter
	windows map[string]int // model → window; a model not listed has no limit
	scale   float64        // 0 means 1
	extra   int            // tokens added to every count
	// capacity maps a model to the status it fails with (429, 503, 529);
	// retryAfter is sent with it when set.
	capacity   map[string]int
	retryAfter string
	events     int           // SSE events per streamed answer; 0 means 5
	eventGap   time.Duration // pause between events
	// hold, when set, keeps a stream after its first event until it is
	// closed: what the client reads before then the proxy did not buffer.
	hold      chan struct{}
	eventSize int // bytes of filler per event

	mu      sync.Mutex
	records []stubRecord
	prefix  map[[32]byte]int // hash of a segment chain → tokens up to its end
	wg      sync.WaitGroup   // handlers in flight
}

type stubRecord struct {
	Path     string
	Model    string
	Status   int
	Tokens   int    // the stub's count (scaled)
	Units    int    // prefix-cache units (tokens of the segments)
	Cached   int    // units of the longest prefix sent before
	Hash     string // sha256 of the body received
	Canceled bool   // the request's context ended before the handler did
	Auth     string // the Authorization or x-api-key header received
}

func newStub(windows map[string]int) *stub {
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		panic(err)
	}
	return &stub{c: c, windows: windows, prefix: map[[32]byte]int{}, capacity: map[string]int{}}
}

func (s *stub) recs() []stubRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]stubRecord(nil), s.records...)
}

func (s *stub) record(r stubRecord) {
	s.mu.Lock()
	s.records = append(s.records, r)
	s.mu.Unlock()
}

func bodyHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.wg.Add(1)
	defer s.wg.Done()
	body, _ := io.ReadAll(r.Body)
	rec := stubRecord{Path: r.URL.Path, Hash: bodyHash(body), Auth: r.Header.Get("Authorization") + r.Header.Get("X-Api-Key")}
	defer func() {
		if r.Context().Err() != nil {
			rec.Canceled = true
		}
		s.record(rec)
	}()
	var f history.Format
	switch {
	case strings.HasSuffix(r.URL.Path, "/responses"):
		f = history.FormatResponses
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		f = history.FormatChat
	case strings.HasSuffix(r.URL.Path, "/messages"):
		f = history.FormatAnthropic
	default:
		rec.Status = http.StatusNotFound
		w.Header().Set("X-Stub-Route", "none")
		http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
		return
	}
	fault := r.Header.Get("X-Stub-Fault")
	switch fault {
	case "reset":
		reset(w)
		return
	case "stall":
		<-r.Context().Done()
		return
	case "500":
		rec.Status = 500
		w.Header().Set("X-Stub-Detail", "kept")
		w.WriteHeader(500)
		io.WriteString(w, `{"error":{"message":"internal error","type":"server_error"}}`)
		return
	}
	var h struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(body, &h); err != nil {
		rec.Status = 400
		apiError(w, f, 400, "invalid_request_error", "could not parse the JSON body: "+err.Error())
		return
	}
	rec.Model = h.Model
	if st := s.capacity[h.Model]; st != 0 {
		rec.Status = st
		if s.retryAfter != "" {
			w.Header().Set("Retry-After", s.retryAfter)
		}
		msg := "Selected model is at capacity. Please try a different model."
		if st == inflight.StatusOverloaded {
			msg = "Overloaded"
		}
		apiError(w, f, st, "overloaded_error", msg)
		return
	}
	conv, err := history.ParseFormat(bytes.NewReader(body), f)
	if err != nil {
		rec.Status = 400
		apiError(w, f, 400, "invalid_request_error", err.Error())
		return
	}
	if err := conv.Validate(); err != nil {
		rec.Status = 400
		apiError(w, f, 400, "invalid_request_error", "invalid conversation: "+err.Error())
		return
	}
	rec.Tokens = history.Tokens(conv, s.c)
	if s.scale > 1 {
		rec.Tokens = int(float64(rec.Tokens) * s.scale)
	}
	rec.Tokens += s.extra
	rec.Units, rec.Cached = s.cache(body, conv)
	if win, ok := s.windows[h.Model]; ok && rec.Tokens > win {
		rec.Status = 400
		switch f {
		case history.FormatAnthropic:
			apiError(w, f, 400, "invalid_request_error", fmt.Sprintf("prompt is too long: %d tokens > %d maximum", rec.Tokens, win))
		case history.FormatResponses:
			// OpenAI's Responses API states no window, nor the size.
			apiErrorCode(w, 400, "context_length_exceeded", responsesOverflow)
		default:
			apiErrorCode(w, 400, "context_length_exceeded", fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", win, rec.Tokens))
		}
		return
	}
	rec.Status = 200
	w.Header().Set("X-Stub-Cached", strconv.Itoa(rec.Cached))
	w.Header().Set("X-Stub-Tokens", strconv.Itoa(rec.Tokens))
	if !h.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "stub", "hash": rec.Hash, "usage": map[string]any{
			"input_tokens": rec.Tokens, "cached_tokens": rec.Cached}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	fl := w.(http.Flusher)
	n := s.events
	if n == 0 {
		n = 5
	}
	filler := strings.Repeat("x", s.eventSize)
	for i := 0; i < n; i++ {
		if fault == "close-mid" && i == n/2 {
			closeConn(w)
			return
		}
		if fault == "reset-mid" && i == n/2 {
			reset(w)
			return
		}
		if fault == "stall-mid" && i == 1 {
			<-r.Context().Done()
			return
		}
		fmt.Fprintf(w, "event: delta\ndata: {\"seq\":%d,\"hash\":%q,\"fill\":%q}\n\n", i, rec.Hash, filler)
		fl.Flush()
		if i == 0 && s.hold != nil {
			select {
			case <-s.hold:
			case <-r.Context().Done():
				return
			}
		}
		if s.eventGap > 0 {
			select {
			case <-time.After(s.eventGap):
			case <-r.Context().Done():
				return
			}
		}
	}
	fmt.Fprintf(w, "event: done\ndata: {\"seq\":%d,\"hash\":%q,\"cached\":%d}\n\n", n, rec.Hash, rec.Cached)
	fl.Flush()
}

// cache returns the request's prefix-cache units (the tokens of its
// segments: everything but the items, then each item, as compact JSON)
// and how many of them form a prefix some earlier request sent, and adds
// its prefixes to the cache.
func (s *stub) cache(body []byte, conv *history.Conversation) (units, cached int) {
	var top map[string]json.RawMessage
	json.Unmarshal(body, &top)
	delete(top, "messages")
	delete(top, "input")
	delete(top, "stream")
	fixed, _ := json.Marshal(top) // sorted keys: a stable rendering
	segs := [][]byte{fixed}
	for _, it := range conv.Items() {
		var b bytes.Buffer
		json.Compact(&b, it)
		segs = append(segs, b.Bytes())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var h [32]byte
	hit := true
	for _, seg := range segs {
		h = sha256.Sum256(append(h[:], seg...))
		units += s.c.Count(string(seg))
		if _, ok := s.prefix[h]; ok && hit {
			cached = units
		} else {
			hit = false
			s.prefix[h] = units
		}
	}
	return units, cached
}

// responsesOverflow is the message of OpenAI's Responses API for an input
// over the model's window (HTTP 400, code context_length_exceeded): it
// states no numbers.
const responsesOverflow = "Your input exceeds the context window of this model. Please adjust your input and try again."

func apiError(w http.ResponseWriter, f history.Format, status int, typ, msg string) {
	if f != history.FormatAnthropic {
		apiErrorCode(w, status, typ, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

func apiErrorCode(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": "input", "code": code}})
}

// closeConn closes the connection under a response in progress.
func closeConn(w http.ResponseWriter) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	buf.Flush()
	conn.Close()
}

// reset closes the connection with a TCP RST.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}
