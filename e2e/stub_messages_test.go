package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// serveMessages answers Anthropic's Messages API the way Claude Code uses
// it: POST /v1/messages (?beta=true), streamed with server-sent events or
// not, and POST /v1/messages/count_tokens. It refuses what Anthropic
// refuses as malformed (validMessages: the first message not the user's,
// tool uses and results unpaired), with Anthropic's own 400. It enforces
// the model's window
// as Anthropic does: an input over the window gets "prompt is too long: N
// tokens > W maximum", an input that fits but leaves less than max_tokens
// gets "input length and `max_tokens` exceed context limit: …" (from which
// Claude Code recovers by itself, lowering max_tokens). Otherwise it
// answers with the next scripted tool call, counted among the requests
// that offer tools (a request without tools is one of Claude Code's side
// requests, a title or a summary, and does not use up the script), or with
// a text that says what the stub counted.
//
// Token counting: the claude estimate over the system prompt, every
// message's texts (anthropicTexts) and the tool definitions as JSON, plus
// stubItemOverhead per message.
func (s *stubServer) serveMessages(w http.ResponseWriter, r *http.Request, body []byte, rec *stubRecord) {
	var req struct {
		Model     string          `json:"model"`
		MaxTokens int             `json:"max_tokens"`
		Stream    bool            `json:"stream"`
		System    json.RawMessage `json:"system"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
		Thinking *struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		rec.Status = http.StatusBadRequest
		anthropicError(w, http.StatusBadRequest, "could not parse the JSON body: "+err.Error())
		return
	}
	if t := req.Thinking; t != nil && t.Type == "enabled" {
		// Anthropic's checks of extended thinking: a budget of at least
		// 1,024 and below max_tokens (Claude Code sends 31999 with
		// 32000, so lowering max_tokens alone breaks the request).
		msg := ""
		switch {
		case t.BudgetTokens < 1024:
			msg = "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
		case t.BudgetTokens >= req.MaxTokens:
			msg = "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
		}
		if msg != "" {
			rec.Status, rec.Invalid = http.StatusBadRequest, msg
			anthropicError(w, http.StatusBadRequest, msg)
			return
		}
	}
	rec.Model, rec.Tools = req.Model, len(req.Tools)
	roles := make([]string, len(req.Messages))
	contents := make([]json.RawMessage, len(req.Messages))
	for i, m := range req.Messages {
		roles[i], contents[i] = m.Role, m.Content
	}
	if msg := validMessages(roles, contents); msg != "" {
		rec.Status, rec.Invalid = http.StatusBadRequest, msg
		anthropicError(w, http.StatusBadRequest, msg)
		return
	}
	rec.InstructionsTokens = s.claude.Count(strings.Join(anthropicTexts(req.System), ""))
	for _, t := range req.Tools {
		rec.ToolsTokens += s.claude.Count(string(t))
	}
	rec.Tokens = rec.InstructionsTokens + rec.ToolsTokens
	for _, m := range req.Messages {
		text := strings.Join(anthropicTexts(m.Content), "")
		it := newItemInfo("message", m.Role, text, s.claude.Count(text)+stubItemOverhead)
		rec.Items = append(rec.Items, it)
		rec.Tokens += it.Tokens
		if m.Role == "user" {
			rec.LastUserText = text
		}
	}
	rec.Status = http.StatusOK
	if strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, rec.Tokens)
		return
	}
	window := s.windowOf(req.Model)
	if rec.Tokens > window {
		rec.Status = http.StatusBadRequest
		anthropicError(w, http.StatusBadRequest, fmt.Sprintf("prompt is too long: %d tokens > %d maximum", rec.Tokens, window))
		return
	}
	if rec.Tokens+req.MaxTokens > window {
		rec.Status = http.StatusBadRequest
		anthropicError(w, http.StatusBadRequest, fmt.Sprintf("input length and `max_tokens` exceed context limit: %d + %d > %d, decrease input length or `max_tokens` and try again", rec.Tokens, req.MaxTokens, window))
		return
	}

	reply := fmt.Sprintf("STUB-OK: request %d had %d input tokens of %d.", rec.N, rec.Tokens, window)
	block := map[string]any{"type": "text", "text": reply}
	stop, out := "end_turn", s.claude.Count(reply)
	if len(req.Tools) > 0 {
		turn := s.turn(s.toolN.Add(1))
		if n := len(req.Messages); turn == nil && n > 0 && req.Messages[n-1].Role == "user" && !strings.Contains(string(req.Messages[n-1].Content), `"tool_result"`) {
			turn = s.eachTurnCall(rec.LastUserText)
		}
		if turn != nil {
			name, input := messagesToolCall(turn, req.Tools)
			block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d", rec.N), "name": name, "input": input}
			stop, out = "tool_use", s.claude.Count(string(input))
			rec.Reply = "tool_use " + name
		}
	}
	id := fmt.Sprintf("msg_%d", rec.N)
	usage := map[string]any{"input_tokens": rec.Tokens, "output_tokens": out}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		w.Write(b)
		return
	}
	start, delta := map[string]any{"type": "text", "text": ""}, map[string]any{"type": "text_delta", "text": reply}
	if block["type"] == "tool_use" {
		start = map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(block["input"].(json.RawMessage))}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	for _, ev := range []map[string]any{
		{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": rec.Tokens, "output_tokens": 1}}},
		{"type": "content_block_start", "index": 0, "content_block": start},
		{"type": "content_block_delta", "index": 0, "delta": delta},
		{"type": "content_block_stop", "index": 0},
		{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": out}},
		{"type": "message_stop"},
	} {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
		if fl != nil {
			fl.Flush() // event by event, as Anthropic streams
		}
	}
}

// messagesToolCall is the tool name and input of what turn says to call:
// Claude Code's ToolSearch for the query, or the offered tool whose name
// ends with turn.Call (Claude Code names MCP tools mcp__<server>__<tool>).
func messagesToolCall(turn *stubTurn, tools []json.RawMessage) (string, json.RawMessage) {
	if turn.ToolSearch != "" {
		q, _ := json.Marshal(turn.ToolSearch)
		return "ToolSearch", json.RawMessage(fmt.Sprintf(`{"query":%s,"max_results":5}`, q))
	}
	name := turn.Call
	for _, raw := range tools {
		var t struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &t) == nil && strings.HasSuffix(t.Name, turn.Call) {
			name = t.Name
		}
	}
	input := turn.Arguments
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	return name, input
}

// anthropicTexts returns the texts of a Messages content value as the
// model reads them: a string, or blocks' text and thinking, a tool call's
// input (as JSON) and a tool result's content (a string or blocks).
func anthropicTexts(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var blocks []struct {
		Text     string          `json:"text"`
		Thinking string          `json:"thinking"`
		Input    json.RawMessage `json:"input"`
		Content  json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		for _, t := range []string{b.Text, b.Thinking, string(b.Input)} {
			if t != "" {
				out = append(out, t)
			}
		}
		out = append(out, anthropicTexts(b.Content)...)
	}
	return out
}

func anthropicError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
	w.Write(b)
}

// validMessages returns the error Anthropic answers a messages array with
// that it refuses as malformed, or "" for a valid one. The rules, with
// Anthropic's wordings:
//
//   - The first message is the user's: 'messages: first message must use
//     the "user" role' (the Messages API's rule as Bedrock and Vertex still
//     enforce it; anthropics/anthropic-sdk-typescript#622).
//   - Consecutive messages of one role are one turn: the API combines them
//     (the Messages API reference, "messages"), so the rules below apply to
//     turns, and the stub merges before it checks.
//   - Every tool_result answers a tool_use of the turn just before it:
//     "messages.N.content.K: unexpected `tool_use_id` found in
//     `tool_result` blocks: ID. Each `tool_result` block must have a
//     corresponding `tool_use` block in the previous message."
//     (anthropics/claude-code#13460).
//   - Every tool_use is answered by a tool_result in the turn just after
//     it: "messages.N: `tool_use` ids were found without `tool_result`
//     blocks immediately after: ID. Each `tool_use` block must have a
//     corresponding `tool_result` block in the next message."
//     (anthropics/claude-code#8210).
//
// N and K index the messages and blocks as sent.
func validMessages(roles []string, contents []json.RawMessage) string {
	if len(roles) == 0 {
		return ""
	}
	if roles[0] != "user" {
		return `messages: first message must use the "user" role`
	}
	type block struct {
		msg, idx  int
		typ, id   string
		toolUseID string
	}
	type turn struct {
		role   string
		first  int // index of its first message
		blocks []block
	}
	var turns []turn
	for i, role := range roles {
		if len(turns) == 0 || turns[len(turns)-1].role != role {
			turns = append(turns, turn{role: role, first: i})
		}
		var bs []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
		}
		if json.Unmarshal(contents[i], &bs) != nil {
			continue // a string: text only
		}
		t := &turns[len(turns)-1]
		for k, b := range bs {
			t.blocks = append(t.blocks, block{msg: i, idx: k, typ: b.Type, id: b.ID, toolUseID: b.ToolUseID})
		}
	}
	for n, t := range turns {
		uses := map[string]bool{}
		if n > 0 {
			for _, b := range turns[n-1].blocks {
				if b.typ == "tool_use" {
					uses[b.id] = true
				}
			}
		}
		for _, b := range t.blocks {
			if b.typ == "tool_result" && !uses[b.toolUseID] {
				return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", b.msg, b.idx, b.toolUseID)
			}
		}
		results := map[string]bool{}
		if n+1 < len(turns) {
			for _, b := range turns[n+1].blocks {
				if b.typ == "tool_result" {
					results[b.toolUseID] = true
				}
			}
		}
		var missing []string
		last := t.first
		for _, b := range t.blocks {
			if b.typ == "tool_use" && !results[b.id] {
				missing, last = append(missing, b.id), b.msg
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", last, strings.Join(missing, ", "))
		}
	}
	return ""
}
