package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxtrim/ctxtrim/budget"
)

// stubServer is a minimal OpenAI-compatible model server speaking the
// Responses API the way Codex uses it (POST …/responses with stream=true,
// answered with server-sent events). It enforces a context window: a request
// whose input counts more than window tokens gets the real overflow error
// (HTTP 400, code context_length_exceeded). Every request is logged as one
// JSON line, so tests can measure what Codex sent.
//
// Token counting: o200k_base over the text the model would read —
// instructions, every input item's text (message content, function call
// arguments and outputs, reasoning summaries) and the tool definitions as
// JSON (the request's "tools", or the "additional_tools" input item newer
// Codex models get) — plus a per-item overhead of stubItemOverhead tokens, like OpenAI's
// per-message overhead.
type stubServer struct {
	window  int
	counter budget.Counter
	mu      sync.Mutex
	log     io.Writer
	n       atomic.Int64
}

// stubDumpEnv names a directory where the stub writes every request body
// (request-N.json, its path logged as the record's Dump), for tests that
// look at what the model read and for debugging.
const stubDumpEnv = "CTXTRIM_E2E_STUB_DUMP"

// stubItemOverhead is the per-item framing cost the stub adds (OpenAI
// documents 3 tokens per chat message).
const stubItemOverhead = 3

// stubRecord is one logged request.
type stubRecord struct {
	N                  int64          `json:"n"`
	Path               string         `json:"path"`
	Status             int            `json:"status"`
	Tokens             int            `json:"tokens"`
	InstructionsTokens int            `json:"instructions_tokens"`
	ToolsTokens        int            `json:"tools_tokens"`
	Tools              int            `json:"tools"`
	Items              []stubItemInfo `json:"items"`
	BodyBytes          int            `json:"body_bytes"`
	Model              string         `json:"model"`
	// LastUserText is the text of the last user message, to identify
	// which request is which.
	LastUserText string `json:"last_user_text"`
	// Dump is the file holding the request body, when the stub was told
	// to keep bodies (stubDumpEnv).
	Dump string `json:"dump,omitempty"`
}

type stubItemInfo struct {
	Type   string `json:"type"`
	Role   string `json:"role,omitempty"`
	Tokens int    `json:"tokens"`
	Head   string `json:"head"` // first 80 chars of its text
}

func (s *stubServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := stubRecord{N: s.n.Add(1), Path: r.URL.Path, BodyBytes: len(body)}
	if dir := os.Getenv(stubDumpEnv); dir != "" {
		rec.Dump = filepath.Join(dir, fmt.Sprintf("request-%d.json", rec.N))
		if err := os.WriteFile(rec.Dump, body, 0o644); err != nil {
			rec.Dump = ""
		}
	}
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		b, _ := json.Marshal(rec)
		fmt.Fprintf(s.log, "%s\n", b)
	}()
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		rec.Status = http.StatusNotFound
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model        string            `json:"model"`
		Instructions string            `json:"instructions"`
		Input        []json.RawMessage `json:"input"`
		Tools        []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		rec.Status = http.StatusBadRequest
		writeAPIError(w, http.StatusBadRequest, "invalid_json", "could not parse the JSON body: "+err.Error())
		return
	}
	rec.Model = req.Model
	rec.InstructionsTokens = s.counter.Count(req.Instructions)
	rec.Tools = len(req.Tools)
	for _, t := range req.Tools {
		rec.ToolsTokens += s.counter.Count(string(t))
	}
	rec.Tokens = rec.InstructionsTokens + rec.ToolsTokens
	for _, raw := range req.Input {
		it := itemInfo(raw, s.counter)
		rec.Items = append(rec.Items, it.info)
		rec.Tokens += it.info.Tokens
		if it.info.Type == "message" && it.info.Role == "user" {
			rec.LastUserText = it.text
		}
	}
	if rec.Tokens > s.window {
		rec.Status = http.StatusBadRequest
		writeAPIError(w, http.StatusBadRequest, "context_length_exceeded", fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.",
			s.window, rec.Tokens))
		return
	}
	rec.Status = http.StatusOK
	id := fmt.Sprintf("resp_%d", rec.N)
	reply := fmt.Sprintf("STUB-OK: request %d had %d input tokens of %d.", rec.N, rec.Tokens, s.window)
	if strings.Contains(rec.LastUserText, "CONTEXT CHECKPOINT") || strings.Contains(req.Instructions, "CONTEXT CHECKPOINT") {
		reply = "Summary: the user asked questions about a large context; all were answered."
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id, "status": "completed",
		"content": []map[string]any{{"type": "output_text", "text": reply, "annotations": []any{}}}}
	outTokens := s.counter.Count(reply)
	events := []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": id}},
		{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id, "status": "in_progress", "content": []any{}}},
		{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": "msg_" + id, "delta": reply},
		{"type": "response.output_item.done", "output_index": 0, "item": item},
		{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{
			"input_tokens": rec.Tokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": outTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": rec.Tokens + outTokens}}},
	}
	for _, ev := range events {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(bw, "event: %s\ndata: %s\n\n", ev["type"], b)
	}
	bw.Flush()
}

func writeAPIError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": "input", "code": code}})
	w.Write(b)
}

type itemResult struct {
	info stubItemInfo
	text string
}

// itemInfo counts one input item's text.
func itemInfo(raw json.RawMessage, c budget.Counter) itemResult {
	var it struct {
		Type      string          `json:"type"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Arguments string          `json:"arguments"`
		Input     string          `json:"input"`
		Output    json.RawMessage `json:"output"`
		Summary   []struct {
			Text string `json:"text"`
		} `json:"summary"`
		EncryptedContent string          `json:"encrypted_content"`
		Name             string          `json:"name"`
		Tools            json.RawMessage `json:"tools"` // "additional_tools" items of newer models
	}
	json.Unmarshal(raw, &it)
	if it.Type == "" && it.Role != "" {
		it.Type = "message"
	}
	var parts []string
	parts = append(parts, textOf(it.Content)...)
	parts = append(parts, textOf(it.Output)...)
	for _, s := range it.Summary {
		parts = append(parts, s.Text)
	}
	parts = append(parts, it.Arguments, it.Input, it.Name, it.EncryptedContent, string(it.Tools))
	text := strings.Join(parts, "")
	head := text
	if len(head) > 80 {
		head = head[:80]
	}
	return itemResult{
		info: stubItemInfo{Type: it.Type, Role: it.Role, Tokens: c.Count(text) + stubItemOverhead, Head: head},
		text: text,
	}
}

// textOf returns the texts of a content value: a string, or an array of
// parts with "text" (input_text, output_text) fields.
func textOf(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		out := make([]string, 0, len(parts))
		for _, p := range parts {
			out = append(out, p.Text)
		}
		return out
	}
	return nil
}

// readStubLog parses the stub's JSON-lines log.
func readStubLog(path string) ([]stubRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []stubRecord
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var r stubRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("stub log: %w", err)
		}
		out = append(out, r)
	}
	return out, nil
}

// stubInputItem is one input item of a request, as far as the tests read it.
type stubInputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	CallID  string          `json:"call_id"`
	Name    string          `json:"name"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"`
}

// Text is the item's message content or tool output as the model reads it.
func (it stubInputItem) Text() string {
	return strings.Join(append(textOf(it.Content), textOf(it.Output)...), "")
}

// readStubInput returns the input items of a request the stub dumped.
func readStubInput(rec stubRecord) ([]stubInputItem, error) {
	if rec.Dump == "" {
		return nil, fmt.Errorf("request %d: the stub kept no body (set %s)", rec.N, stubDumpEnv)
	}
	data, err := os.ReadFile(rec.Dump)
	if err != nil {
		return nil, err
	}
	var req struct {
		Input []stubInputItem `json:"input"`
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return nil, fmt.Errorf("request %d: %w", rec.N, err)
	}
	return req.Input, nil
}
