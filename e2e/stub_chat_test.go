package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// serveChat answers OpenAI's Chat Completions API (POST
// …/chat/completions), streamed (server-sent chunks, then "data: [DONE]")
// or not. It refuses what OpenAI refuses as malformed (validChat), and an
// input over the model's window with OpenAI's Chat wording, which states
// the window and the input's size, or, for a model stubModelsEnv marks
// ":vllm", with vLLM's, which also counts the requested completion
// (max_tokens or max_completion_tokens) against the window, as vLLM does.
// Otherwise it answers with the scripted tool call or a text saying what
// it counted.
//
// Token counting: o200k_base over every message's text (content, tool call
// names and arguments) and the tool definitions as JSON, plus
// stubItemOverhead per message.
func (s *stubServer) serveChat(w http.ResponseWriter, body []byte, rec *stubRecord) {
	var req struct {
		Model               string            `json:"model"`
		Stream              bool              `json:"stream"`
		MaxTokens           int               `json:"max_tokens"`
		MaxCompletionTokens int               `json:"max_completion_tokens"`
		Messages            []chatMessage     `json:"messages"`
		Tools               []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		rec.Status = http.StatusBadRequest
		writeOpenAIError(w, http.StatusBadRequest, "could not parse the JSON body: "+err.Error(), "", nil)
		return
	}
	rec.Model, rec.Tools = req.Model, len(req.Tools)
	if msg := validChat(req.Messages); msg != "" {
		rec.Status, rec.Invalid = http.StatusBadRequest, msg
		writeOpenAIError(w, http.StatusBadRequest, msg, "messages", nil)
		return
	}
	for _, t := range req.Tools {
		rec.ToolsTokens += s.counter.Count(string(t))
	}
	rec.Tokens = rec.ToolsTokens
	for _, m := range req.Messages {
		text := strings.Join(textOf(m.Content), "")
		for _, c := range m.ToolCalls {
			text += c.Function.Name + c.Function.Arguments
		}
		it := newItemInfo("message", m.Role, text, s.counter.Count(text)+stubItemOverhead)
		rec.Items = append(rec.Items, it)
		rec.Tokens += it.Tokens
		if m.Role == "user" {
			rec.LastUserText = text
		}
	}
	window := s.windowOf(req.Model)
	completion := max(req.MaxTokens, req.MaxCompletionTokens)
	if s.wording[req.Model] == "vllm" {
		if rec.Tokens+completion > window {
			rec.Status = http.StatusBadRequest
			vllmOverflow(w, window, rec.Tokens, completion)
			return
		}
	} else if rec.Tokens > window {
		// OpenAI's Chat Completions wording (quoted in
		// webtimemachine/wtm2#579 and rahul2002m/ChatPDF#6, param
		// "messages").
		rec.Status = http.StatusBadRequest
		writeOpenAIError(w, http.StatusBadRequest, fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.",
			window, rec.Tokens), "messages", "context_length_exceeded")
		return
	}
	rec.Status = http.StatusOK

	id := fmt.Sprintf("chatcmpl-%d", rec.N)
	msg := map[string]any{"role": "assistant", "content": fmt.Sprintf("STUB-OK: request %d had %d input tokens of %d.", rec.N, rec.Tokens, window)}
	finish := "stop"
	if turn := s.turn(s.okN.Add(1)); turn != nil && turn.Call != "" {
		name := turn.Call
		for _, raw := range req.Tools {
			var t struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			}
			if json.Unmarshal(raw, &t) == nil && strings.HasSuffix(t.Function.Name, turn.Call) {
				name = t.Function.Name
			}
		}
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_%d", rec.N), "type": "function",
			"function": map[string]any{"name": name, "arguments": string(turn.Arguments)}}}}
		finish, rec.Reply = "tool_calls", "tool_call "+name
	}
	usage := map[string]any{"prompt_tokens": rec.Tokens, "completion_tokens": 10, "total_tokens": rec.Tokens + 10}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, ch := range []map[string]any{
		{"index": 0, "delta": msg, "finish_reason": nil},
		{"index": 0, "delta": map[string]any{}, "finish_reason": finish},
	} {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "model": req.Model, "choices": []any{ch}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// chatMessage is one Chat Completions message, as far as the stub reads it.
type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// validChat returns the error OpenAI answers a Chat Completions messages
// array with whose tool calls and tool messages are not paired, or "" for a
// valid one. Its wordings (the first misspelt as OpenAI spells it):
// "Invalid parameter: messages with role 'tool' must be a response to a
// preceeding message with 'tool_calls'." for a tool message that answers
// no call of the assistant message before the run of tool messages it is
// in, and "An assistant message with 'tool_calls' must be followed by tool
// messages responding to each 'tool_call_id'. The following tool_call_ids
// did not have response messages: …" for a call left unanswered
// (router-for-me/CLIProxyAPI#2798 quotes the body).
func validChat(msgs []chatMessage) string {
	for i, m := range msgs {
		if m.Role == "tool" {
			// The assistant message before this run of tool messages.
			j := i - 1
			for j >= 0 && msgs[j].Role == "tool" {
				j--
			}
			found := false
			if j >= 0 {
				for _, c := range msgs[j].ToolCalls {
					found = found || c.ID == m.ToolCallID
				}
			}
			if !found {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
			}
		}
		if len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for j := i + 1; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			answered[msgs[j].ToolCallID] = true
		}
		var missing []string
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				missing = append(missing, c.ID)
			}
		}
		if len(missing) > 0 {
			return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(missing, ", ")
		}
	}
	return ""
}
