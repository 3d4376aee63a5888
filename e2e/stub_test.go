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
	script  []stubTurn // replies to the first requests, in order
	mu      sync.Mutex
	log     io.Writer
	n       atomic.Int64
	toolN   atomic.Int64 // Messages requests that offer tools
}

// stubScriptEnv names a JSON file holding a []stubTurn: the stub's replies
// to its first requests, in order, instead of its text answer; after the
// script it answers with text as usual.
const stubScriptEnv = "CTXTRIM_E2E_STUB_SCRIPT"

// stubTurn is one scripted reply: a tool call as a model would make it.
type stubTurn struct {
	// ToolSearch answers with a call of the client's tool search for this
	// query: Codex's tool_search (executed by Codex) and Claude Code's
	// ToolSearch ("select:NAME") both defer MCP tools behind one.
	ToolSearch string `json:"tool_search,omitempty"`
	// Call answers with a call of the tool whose name ends with Call, as
	// the request offers it (in its tools, or in a namespace an earlier
	// tool search returned), with Arguments.
	Call      string          `json:"call,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// loadStubScript reads the script named by stubScriptEnv, if any.
func loadStubScript() ([]stubTurn, error) {
	p := os.Getenv(stubScriptEnv)
	if p == "" {
		return nil, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var script []stubTurn
	if err := json.Unmarshal(data, &script); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return script, nil
}

// turn returns the scripted reply to request n (1-based), or nil.
func (s *stubServer) turn(n int64) *stubTurn {
	if n < 1 || n > int64(len(s.script)) {
		return nil
	}
	return &s.script[n-1]
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
	// Reply is the scripted tool call the stub answered with, if any.
	Reply string `json:"reply,omitempty"`
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
	if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/messages") {
		s.serveMessages(w, r, body, &rec)
		return
	}
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
	added := map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id, "status": "in_progress", "content": []any{}}
	if turn := s.turn(rec.N); turn != nil {
		item = responsesToolCall(turn, rec.N, req.Tools, req.Input)
		added, reply = item, ""
		rec.Reply = fmt.Sprintf("%s %s", item["type"], item["name"])
	}
	events := []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": id}},
		{"type": "response.output_item.added", "output_index": 0, "item": added},
	}
	if reply != "" {
		events = append(events, map[string]any{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": "msg_" + id, "delta": reply})
	}
	events = append(events,
		map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item},
		map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{
			"input_tokens": rec.Tokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": outTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": rec.Tokens + outTokens}}},
	)
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

// responsesToolCall is a Responses API output item calling what turn says:
// Codex's client-side tool_search, or a function found among the request's
// tools or in a namespace an earlier tool_search output holds (Codex 0.171
// defers MCP tools there: namespace "mcp__<server>", function "<tool>").
func responsesToolCall(turn *stubTurn, n int64, tools, input []json.RawMessage) map[string]any {
	if turn.ToolSearch != "" {
		return map[string]any{"type": "tool_search_call", "id": fmt.Sprintf("ts_%d", n), "call_id": fmt.Sprintf("search_%d", n),
			"execution": "client", "status": "completed", "arguments": map[string]any{"query": turn.ToolSearch, "limit": 8}}
	}
	type fn struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	name, namespace := turn.Call, ""
	look := func(raw json.RawMessage) {
		var f fn
		if json.Unmarshal(raw, &f) != nil {
			return
		}
		switch f.Type {
		case "function":
			if strings.HasSuffix(f.Name, turn.Call) {
				name, namespace = f.Name, ""
			}
		case "namespace":
			for _, t := range f.Tools {
				if strings.HasSuffix(t.Name, turn.Call) {
					name, namespace = t.Name, f.Name
				}
			}
		}
	}
	for _, t := range tools {
		look(t)
	}
	for _, raw := range input {
		var it struct {
			Type  string            `json:"type"`
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(raw, &it) == nil && it.Type == "tool_search_output" {
			for _, t := range it.Tools {
				look(t)
			}
		}
	}
	item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
		"name": name, "arguments": string(turn.Arguments), "status": "completed"}
	if namespace != "" {
		item["namespace"] = namespace
	}
	return item
}

// serveMessages answers the Anthropic Messages API the way Claude Code
// uses it (POST /v1/messages, streamed; /v1/messages/count_tokens): with
// the scripted tool calls, then text. Token counts are the stub's o200k
// counts of the request body's text, which is all Claude Code compares
// with its limits.
func (s *stubServer) serveMessages(w http.ResponseWriter, r *http.Request, body []byte, rec *stubRecord) {
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		System   json.RawMessage
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		rec.Status = http.StatusBadRequest
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad JSON"}}`, http.StatusBadRequest)
		return
	}
	rec.Model = req.Model
	rec.Tools = len(req.Tools)
	rec.Tokens = s.counter.Count(string(body))
	rec.Status = http.StatusOK
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, rec.Tokens)
		return
	}
	for _, m := range req.Messages {
		it := stubItemInfo{Type: "message", Role: m.Role}
		texts := anthropicTexts(m.Content)
		text := strings.Join(texts, "")
		it.Tokens = s.counter.Count(text) + stubItemOverhead
		it.Head = text[:min(len(text), 80)]
		rec.Items = append(rec.Items, it)
		if m.Role == "user" && len(texts) > 0 {
			rec.LastUserText = texts[len(texts)-1]
		}
	}
	// A request without tools is one of Claude Code's side requests (a
	// title, a summary): it gets text, and does not use up the script.
	var block map[string]any
	stop := "end_turn"
	if turn := s.turn(s.toolRequest(len(req.Tools) > 0)); turn != nil {
		name, input := turn.Call, turn.Arguments
		if turn.ToolSearch != "" {
			name, input = "ToolSearch", json.RawMessage(fmt.Sprintf(`{"query":%q,"max_results":5}`, turn.ToolSearch))
		} else {
			for _, raw := range req.Tools {
				var t struct {
					Name string `json:"name"`
				}
				if json.Unmarshal(raw, &t) == nil && strings.HasSuffix(t.Name, turn.Call) {
					name = t.Name
				}
			}
		}
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d", rec.N), "name": name, "input": input}
		stop = "tool_use"
		rec.Reply = "tool_use " + name
	} else {
		block = map[string]any{"type": "text", "text": fmt.Sprintf("STUB-OK: request %d had %d tokens.", rec.N, rec.Tokens)}
	}
	id := fmt.Sprintf("msg_%d", rec.N)
	usage := map[string]any{"input_tokens": rec.Tokens, "output_tokens": 10}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		w.Write(b)
		return
	}
	start, delta := map[string]any{"type": "text", "text": ""}, map[string]any{"type": "text_delta", "text": block["text"]}
	if block["type"] == "tool_use" {
		start = map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}
		b, _ := json.Marshal(block["input"])
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(b)}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	for _, ev := range []map[string]any{
		{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}},
		{"type": "content_block_start", "index": 0, "content_block": start},
		{"type": "content_block_delta", "index": 0, "delta": delta},
		{"type": "content_block_stop", "index": 0},
		{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}},
		{"type": "message_stop"},
	} {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(bw, "event: %s\ndata: %s\n\n", ev["type"], b)
	}
	bw.Flush()
}

// toolRequest numbers the Messages requests that offer tools (the main
// conversation), for the script: it returns the number of this one, or 0
// for a side request without tools.
func (s *stubServer) toolRequest(hasTools bool) int64 {
	if !hasTools {
		return 0
	}
	return s.toolN.Add(1)
}

// anthropicTexts returns the texts of a Messages content value: a string,
// or blocks with "text", or tool_result blocks whose content is either.
func anthropicTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		switch {
		case b.Type == "tool_result" && len(b.Content) > 0:
			out = append(out, anthropicTexts(b.Content)...)
		case b.Text != "":
			out = append(out, b.Text)
		}
	}
	return out
}
