package history

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
)

// Request accounting: the framing constants and the provider-specific
// costs (Anthropic's tool prompt, images, tool calls and results) are
// budget's (budget/request.go), shared with split, so that every package
// frames a request the same way.

// accountant counts items as the API sees them.
type accountant struct {
	f Format
	c budget.Counter
}

// fixedTokens counts what is sent once per request: instructions, tool
// schemas and the reply priming.
func (a accountant) fixedTokens(conv *Conversation) int {
	n := budget.ReplyPrimingTokens
	for _, s := range conv.fixed {
		n += budget.InstructionsTokens(a.c, s)
	}
	if kindOf(conv.tools) != '[' {
		return n
	}
	if conv.format == FormatChat {
		// Chat tools are counted the way budget.CountChat does (OpenAI
		// cookbook), when the schemas are ones it can read.
		body := append(append([]byte(`{"messages":[],"tools":`), conv.tools...), '}')
		if _, tools, err := budget.ParseChatRequest(body); err == nil && len(tools) > 0 {
			return n + budget.OverheadOf(a.c).Tools(a.c, tools)
		}
	}
	tools, err := parseArray(conv.tools)
	if err != nil {
		return n + a.c.Count(string(conv.tools))
	}
	schemas := make([]string, len(tools))
	for i, t := range tools {
		schemas[i] = compact(t)
	}
	if conv.format == FormatAnthropic {
		return n + budget.AnthropicToolTokens(a.c, schemas)
	}
	return n + budget.ToolSchemaTokens(a.c, schemas)
}

// item counts one message or item.
func (a accountant) item(raw json.RawMessage) int {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return budget.PerMessageTokens + a.c.Count(string(raw))
	}
	switch a.f {
	case FormatChat:
		return a.chat(raw)
	case FormatAnthropic:
		return a.anthropic(m)
	default:
		return a.responses(m)
	}
}

func (a accountant) text(raw json.RawMessage) int {
	if s, ok := str(raw); ok {
		return a.c.Count(s)
	}
	return 0
}

// chat counts a Chat message with budget's chat accounting (the OpenAI
// cookbook's, with the overhead of the counter's encoding): the message is
// read by budget.ParseChatMessage, as count -chat reads it, so that both
// count a request the same.
func (a accountant) chat(raw json.RawMessage) int {
	msg, err := budget.ParseChatMessage(raw)
	if err != nil {
		return budget.PerMessageTokens + a.c.Count(string(raw))
	}
	return budget.OverheadOf(a.c).Message(a.c, msg)
}

// parts counts a content value: a string, or an array of typed parts in
// any of the three APIs' vocabularies. Unknown part types are counted as
// their whole JSON text.
func (a accountant) parts(raw json.RawMessage) int {
	switch kindOf(raw) {
	case '"':
		return a.text(raw)
	case '[':
	default:
		return 0
	}
	elems, err := parseArray(raw)
	if err != nil {
		return a.c.Count(string(raw))
	}
	n := 0
	for _, e := range elems {
		n += a.part(e)
	}
	return n
}

func (a accountant) part(raw json.RawMessage) int {
	var p map[string]json.RawMessage
	if json.Unmarshal(raw, &p) != nil {
		if s, ok := str(raw); ok {
			return a.c.Count(s)
		}
		return a.c.Count(string(raw))
	}
	typ, _ := str(p["type"])
	switch typ {
	case "text", "input_text", "output_text", "summary_text", "reasoning_text":
		return a.text(p["text"])
	case "refusal":
		return a.text(p["refusal"])
	case "image_url", "input_image", "image":
		return budget.ImageTokens
	case "thinking":
		return a.text(p["thinking"])
	case "redacted_thinking":
		return a.text(p["data"])
	case "tool_use", "server_tool_use":
		return budget.PerToolCallTokens + a.text(p["name"]) + a.c.Count(compact(p["input"]))
	case "tool_result":
		return budget.PerToolResultTokens + a.parts(p["content"])
	}
	return a.c.Count(string(raw))
}

func (a accountant) anthropic(m map[string]json.RawMessage) int {
	role, _ := str(m["role"])
	return budget.MessageFraming(a.c, role) + a.parts(m["content"])
}

func (a accountant) responses(m map[string]json.RawMessage) int {
	typ, _ := str(m["type"])
	switch {
	case typ == "message" || (typ == "" && m["role"] != nil):
		role, _ := str(m["role"])
		return budget.MessageFraming(a.c, role) + a.parts(m["content"])
	case typ == "ghost_snapshot":
		return 0 // Codex keeps undo snapshots in its history but never sends them
	case typ == "reasoning" || typ == "compaction" || typ == "compaction_summary":
		// Encrypted reasoning stands for tokens the model sees again; its
		// size is unknown, so the opaque text is counted, which is more.
		return budget.PerMessageTokens + a.parts(m["summary"]) + a.parts(m["content"]) + a.text(m["encrypted_content"])
	case strings.HasSuffix(typ, "_call_output"):
		out := m["output"]
		if kindOf(out) == '[' {
			return budget.PerToolResultTokens + a.parts(out)
		}
		if s, ok := str(out); ok {
			return budget.PerToolResultTokens + a.c.Count(s)
		}
		return budget.PerToolResultTokens + a.c.Count(compact(out))
	case strings.HasSuffix(typ, "_call"):
		n := budget.PerToolCallTokens + a.text(m["name"]) + a.text(m["arguments"]) + a.text(m["input"])
		if act := m["action"]; act != nil {
			n += a.c.Count(compact(act))
		}
		return n
	}
	// Unknown item types are counted whole.
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "id" && k != "type" && k != "status" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.Write(m[k])
	}
	return budget.PerMessageTokens + a.c.Count(b.String())
}

// result counts the output of one tool result (an Anthropic tool_result
// block's content, a Chat tool message's content, a Responses output), as
// the model sees it: images at budget.ImageTokens.
func (a accountant) result(raw json.RawMessage, block int) int {
	ms, err := parseObject(raw)
	if err != nil {
		return 0
	}
	var out json.RawMessage
	switch a.f {
	case FormatChat:
		out = get(ms, "content")
	case FormatAnthropic:
		b, err := blockAt(get(ms, "content"), block)
		if err != nil {
			return 0
		}
		out = get(b, "content")
	default:
		out = get(ms, "output")
	}
	if kindOf(out) == '{' {
		return a.c.Count(compact(out))
	}
	return a.parts(out)
}
