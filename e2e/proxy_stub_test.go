package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxtrim/ctxtrim/budget"
)

// stubModelsEnv gives the stub a behaviour per model, for the proxy tests:
// "MODEL=WINDOW" serves the model with that window, "MODEL=capacity"
// answers it with the capacity error Codex's backend sends (HTTP 503,
// "Selected model is at capacity"); several are separated by ";". A model
// not listed gets the stub's window. Unset, the stub is the plain one.
const stubModelsEnv = "CTXTRIM_E2E_STUB_MODELS"

// stubHandler is the handler netnsHelper serves: for Anthropic's
// /v1/messages the anthropicStub, for the rest the plain stubServer or,
// per model (stubModelsEnv), a stubServer of the model's window or a
// capacity failure; all log to log.
func stubHandler(window int, c budget.Counter, log io.Writer) (http.Handler, error) {
	script, err := loadStubScript()
	if err != nil {
		return nil, err
	}
	lw := &lockedWriter{w: log}
	var responses http.Handler = &stubServer{window: window, counter: c, script: script, log: lw}
	if spec := os.Getenv(stubModelsEnv); spec != "" {
		h := &modelStub{byModel: map[string]*stubServer{}, capacity: map[string]bool{}, log: lw,
			other: &stubServer{window: window, counter: c, log: lw}}
		for _, kv := range strings.Split(spec, ";") {
			model, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("%s: %q: want MODEL=WINDOW or MODEL=capacity", stubModelsEnv, kv)
			}
			if v == "capacity" {
				h.capacity[model] = true
				continue
			}
			w, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %v", stubModelsEnv, kv, err)
			}
			h.byModel[model] = &stubServer{window: w, counter: c, log: lw}
		}
		responses = h
	}
	// Claude's tokenizer is not public: the stub counts as ctxtrim
	// estimates it (o200k_base × the claude family's factor), so that its
	// window means what the proxy's table means.
	cc, err := budget.NewCounter("claude-sonnet-4-5")
	if err != nil {
		return nil, err
	}
	anthropic := &anthropicStub{window: window, counter: cc, log: lw}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A scripted Claude Code session (the MCP tests) is the
		// stubServer's: it plays the tool calls.
		if strings.HasSuffix(r.URL.Path, "/messages") && script == nil {
			anthropic.ServeHTTP(w, r)
			return
		}
		responses.ServeHTTP(w, r)
	}), nil
}

// lockedWriter serialises the log lines of several stubServers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type modelStub struct {
	byModel  map[string]*stubServer
	capacity map[string]bool
	other    *stubServer
	log      io.Writer
}

func (m *modelStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body, &req)
	if m.capacity[req.Model] {
		b, _ := json.Marshal(stubRecord{Path: r.URL.Path, Status: http.StatusServiceUnavailable, Model: req.Model, BodyBytes: len(body)})
		fmt.Fprintf(m.log, "%s\n", b)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"Selected model is at capacity. Please try a different model.","type":"server_error","code":"server_is_overloaded"}}`)
		return
	}
	s := m.byModel[req.Model]
	if s == nil {
		s = m.other
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.ServeHTTP(w, r)
}

// anthropicStub is a minimal Anthropic Messages API server, as Claude Code
// uses it (POST /v1/messages?beta=true, stream=true, answered with
// server-sent events). It enforces the window as Anthropic does: an input
// over the window gets "prompt is too long: N tokens > W maximum", an input
// that fits but leaves less than max_tokens gets "input length and
// `max_tokens` exceed context limit: …" (from which Claude Code recovers
// by itself, lowering max_tokens). Token counting: the counter over the
// system prompt, every content block's text (text, tool inputs and
// results, thinking) and the tool definitions as JSON, plus
// stubItemOverhead per message.
type anthropicStub struct {
	window  int
	counter budget.Counter
	log     io.Writer
	n       atomic.Int64
}

func (s *anthropicStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := stubRecord{N: s.n.Add(1), Path: r.URL.Path, BodyBytes: len(body)}
	if dir := os.Getenv(stubDumpEnv); dir != "" {
		rec.Dump = filepath.Join(dir, fmt.Sprintf("messages-%d.json", rec.N))
		if err := os.WriteFile(rec.Dump, body, 0o644); err != nil {
			rec.Dump = ""
		}
	}
	defer func() {
		b, _ := json.Marshal(rec)
		fmt.Fprintf(s.log, "%s\n", b)
	}()
	var req struct {
		Model     string          `json:"model"`
		MaxTokens int             `json:"max_tokens"`
		System    json.RawMessage `json:"system"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []json.RawMessage `json:"tools"`
	}
	if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil {
		rec.Status = http.StatusBadRequest
		anthropicError(w, http.StatusBadRequest, "could not parse the request")
		return
	}
	rec.Model, rec.Tools = req.Model, len(req.Tools)
	text := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var blocks []map[string]json.RawMessage
		json.Unmarshal(raw, &blocks)
		var parts []string
		for _, b := range blocks {
			for _, k := range []string{"text", "thinking", "input", "content"} {
				if v, ok := b[k]; ok {
					var t string
					if json.Unmarshal(v, &t) == nil {
						parts = append(parts, t)
					} else if k == "content" {
						parts = append(parts, textOf(v)...)
					} else {
						parts = append(parts, string(v))
					}
				}
			}
		}
		return strings.Join(parts, "")
	}
	rec.InstructionsTokens = s.counter.Count(text(req.System))
	for _, t := range req.Tools {
		rec.ToolsTokens += s.counter.Count(string(t))
	}
	rec.Tokens = rec.InstructionsTokens + rec.ToolsTokens
	for _, m := range req.Messages {
		t := text(m.Content)
		n := s.counter.Count(t) + stubItemOverhead
		rec.Tokens += n
		head := t
		if len(head) > 80 {
			head = head[:80]
		}
		rec.Items = append(rec.Items, stubItemInfo{Type: "message", Role: m.Role, Tokens: n, Head: head})
		if m.Role == "user" {
			rec.LastUserText = t
		}
	}
	if rec.Tokens > s.window {
		rec.Status = http.StatusBadRequest
		anthropicError(w, http.StatusBadRequest, fmt.Sprintf("prompt is too long: %d tokens > %d maximum", rec.Tokens, s.window))
		return
	}
	if rec.Tokens+req.MaxTokens > s.window {
		rec.Status = http.StatusBadRequest
		anthropicError(w, http.StatusBadRequest, fmt.Sprintf("input length and `max_tokens` exceed context limit: %d + %d > %d, decrease input length or `max_tokens` and try again", rec.Tokens, req.MaxTokens, s.window))
		return
	}
	rec.Status = http.StatusOK
	reply := fmt.Sprintf("STUB-OK: request %d had %d input tokens of %d.", rec.N, rec.Tokens, s.window)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	msg := map[string]any{"id": fmt.Sprintf("msg_%d", rec.N), "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": rec.Tokens, "output_tokens": 1}}
	for _, ev := range []map[string]any{
		{"type": "message_start", "message": msg},
		{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}},
		{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": reply}},
		{"type": "content_block_stop", "index": 0},
		{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": s.counter.Count(reply)}},
		{"type": "message_stop"},
	} {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
		if fl != nil {
			fl.Flush()
		}
	}
}

func anthropicError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
	w.Write(b)
}
