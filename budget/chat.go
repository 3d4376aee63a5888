package budget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Chat accounting.
//
// A chat request costs more than the text of its messages: each message is
// framed by special tokens, and tool (function) definitions are rendered
// into the prompt. CountChat follows OpenAI's cookbook "How to count tokens
// with tiktoken" (github.com/openai/openai-cookbook,
// examples/How_to_count_tokens_with_tiktoken.ipynb), whose figures the
// cookbook checks against the API's usage.prompt_tokens:
//
//   - every message costs PerMessage (3) tokens of framing plus the tokens
//     of its role and content; a name costs its tokens plus PerName (1);
//   - the reply is primed with <|start|>assistant<|message|>: ReplyPriming
//     (3) tokens, once per request;
//   - tool definitions (section 7, num_tokens_for_tools): FuncInit per
//     function, plus the tokens of "name:description" (one final period
//     dropped); if the function has properties, PropInit once, then per
//     property PropKey plus the tokens of "key:type:description" (final
//     period dropped) and, for an enum, EnumInit once plus EnumItem and the
//     item's tokens per item; FuncEnd once when any tool is present.
//
// The cookbook's constants are those of GPT-4o (o200k_base: FuncInit 7) and
// GPT-4/3.5 (cl100k_base: FuncInit 10); OverheadFor picks them by encoding.
// Two extensions are estimates, not cookbook figures: a nested property
// schema (object or array) costs the tokens of its compact JSON, and an
// assistant message's tool calls cost PerToolCall plus the tokens of the
// function name and arguments. Image parts are not counted.

// Message is one chat message.
type Message struct {
	Role      string     // "system", "developer", "user", "assistant", "tool"
	Name      string     // optional participant name
	Content   string     // text content; parts are concatenated
	ToolCalls []ToolCall // an assistant's function calls
}

// ToolCall is a function call made by the assistant.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text, as sent
}

// Tool is a function definition offered to the model.
type Tool struct {
	Name        string
	Description string
	Properties  []Property // the parameters' top-level properties, in order
}

// Property is one parameter of a Tool.
type Property struct {
	Name        string
	Type        string
	Description string
	Enum        []string
	Nested      string // compact JSON of a nested schema (properties/items), counted as text
}

// Overhead holds the framing costs of a chat format, in tokens.
type Overhead struct {
	PerMessage   int // per message: <|start|>{role}<|message|>…<|end|>
	PerName      int // extra when a message has a name
	ReplyPriming int // <|start|>assistant<|message|>, once
	PerToolCall  int // per tool call in an assistant message (estimate)

	FuncInit, PropInit, PropKey, EnumInit, EnumItem, FuncEnd int // tool definitions
}

// Overheads from the cookbook (see the comment above). Values, not
// variables, so that no caller can change them for another.
func overheadO200k() Overhead {
	return Overhead{PerMessage: 3, PerName: 1, ReplyPriming: 3, PerToolCall: 3,
		FuncInit: 7, PropInit: 3, PropKey: 3, EnumInit: -3, EnumItem: 3, FuncEnd: 12}
}

func overheadCl100k() Overhead {
	return Overhead{PerMessage: 3, PerName: 1, ReplyPriming: 3, PerToolCall: 3,
		FuncInit: 10, PropInit: 3, PropKey: 3, EnumInit: -3, EnumItem: 3, FuncEnd: 12}
}

// OverheadFor returns the chat overhead for an encoding: cl100k_base's for
// GPT-4 and GPT-3.5, o200k_base's (GPT-4o and later) for anything else.
func OverheadFor(encoding string) Overhead {
	if encoding == Cl100kBase {
		return overheadCl100k()
	}
	return overheadO200k()
}

// CountChat returns the prompt tokens of a chat request with messages and
// tools, with the o200k_base overhead (GPT-4o and later). It is exact for
// OpenAI models with plain-text messages and flat tool schemas, to the
// extent of the cookbook's method.
func CountChat(c Counter, msgs []Message, tools []Tool) int {
	return overheadO200k().Count(c, msgs, tools)
}

// Count returns the prompt tokens of msgs and tools under overhead o. With
// an estimate counter (Scaled) the request is counted unscaled and the
// total scaled once, so that rounding does not add up per message.
func (o Overhead) Count(c Counter, msgs []Message, tools []Tool) int {
	if s, ok := c.(scaledCounter); ok {
		return s.countOf(o.Count(s.c, msgs, tools))
	}
	n := o.ReplyPriming
	for _, m := range msgs {
		n += o.Message(c, m)
	}
	return n + o.Tools(c, tools)
}

// Message returns the tokens of one message, framing included.
func (o Overhead) Message(c Counter, m Message) int {
	n := o.PerMessage + c.Count(m.Role) + c.Count(m.Content)
	if m.Name != "" {
		n += c.Count(m.Name) + o.PerName
	}
	for _, tc := range m.ToolCalls {
		n += o.PerToolCall + c.Count(tc.Name) + c.Count(tc.Arguments)
	}
	return n
}

// Tools returns the tokens of the tool definitions, 0 for none.
func (o Overhead) Tools(c Counter, tools []Tool) int {
	if len(tools) == 0 {
		return 0
	}
	n := 0
	for _, t := range tools {
		n += o.FuncInit + c.Count(t.Name+":"+strings.TrimSuffix(t.Description, "."))
		if len(t.Properties) > 0 {
			n += o.PropInit
		}
		for _, p := range t.Properties {
			n += o.PropKey
			if p.Enum != nil {
				n += o.EnumInit
				for _, e := range p.Enum {
					n += o.EnumItem + c.Count(e)
				}
			}
			n += c.Count(p.Name + ":" + p.Type + ":" + strings.TrimSuffix(p.Description, "."))
			if p.Nested != "" {
				n += c.Count(p.Nested)
			}
		}
	}
	return n + o.FuncEnd
}

// ParseChatRequest reads an OpenAI Chat Completions request body (the JSON
// sent to /v1/chat/completions): its messages, with string or array-of-parts
// content, and its tools (or legacy functions). Other fields are ignored.
func ParseChatRequest(data []byte) (msgs []Message, tools []Tool, err error) {
	var req struct {
		Messages []struct {
			Role      string          `json:"role"`
			Name      string          `json:"name"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string       `json:"type"`
			Function jsonFunction `json:"function"`
		} `json:"tools"`
		Functions []jsonFunction `json:"functions"`
	}
	if err := json.Unmarshal(data, &req); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, int(se.Offset), strings.HasPrefix(se.Error(), "unexpected end"))
			return nil, nil, fmt.Errorf("parse chat request: line %d, column %d: %w", line, col, err)
		}
		return nil, nil, fmt.Errorf("parse chat request: %w", err)
	}
	for i, m := range req.Messages {
		content, err := contentText(m.Content)
		if err != nil {
			return nil, nil, fmt.Errorf("parse chat request: message %d: %w", i, err)
		}
		msg := Message{Role: m.Role, Name: m.Name, Content: content}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		msgs = append(msgs, msg)
	}
	fns := req.Functions
	for _, t := range req.Tools {
		fns = append(fns, t.Function)
	}
	for i, f := range fns {
		t, err := f.tool()
		if err != nil {
			return nil, nil, fmt.Errorf("parse chat request: tool %d (%s): %w", i, f.Name, err)
		}
		tools = append(tools, t)
	}
	return msgs, tools, nil
}

type jsonFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// tool converts a function definition, keeping the order of properties as
// written (the rendered prompt follows it).
func (f jsonFunction) tool() (Tool, error) {
	t := Tool{Name: f.Name, Description: f.Description}
	if len(f.Parameters) == 0 || string(f.Parameters) == "null" {
		return t, nil
	}
	var params struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(f.Parameters, &params); err != nil {
		return t, err
	}
	keys, raws, err := orderedObject(params.Properties)
	if err != nil {
		return t, err
	}
	for i, k := range keys {
		var p struct {
			Type        any             `json:"type"`
			Description string          `json:"description"`
			Enum        []any           `json:"enum"`
			Properties  json.RawMessage `json:"properties"`
			Items       json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(raws[i], &p); err != nil {
			return t, fmt.Errorf("property %s: %w", k, err)
		}
		prop := Property{Name: k, Type: typeName(p.Type), Description: p.Description}
		if p.Enum != nil {
			prop.Enum = make([]string, len(p.Enum))
			for j, e := range p.Enum {
				if s, ok := e.(string); ok {
					prop.Enum[j] = s
				} else {
					prop.Enum[j] = fmt.Sprint(e)
				}
			}
		}
		for _, nested := range []json.RawMessage{p.Properties, p.Items} {
			if len(nested) > 0 {
				var buf bytes.Buffer
				if err := json.Compact(&buf, nested); err == nil {
					prop.Nested += buf.String()
				}
			}
		}
		t.Properties = append(t.Properties, prop)
	}
	return t, nil
}

// typeName renders a JSON-schema type, which may be a list.
func typeName(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, "|")
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// orderedObject returns the keys of a JSON object in document order with
// their raw values.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("properties is not an object")
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return keys, vals, nil
}

// contentText flattens message content: a string, null, or an array of
// parts whose "text" fields are concatenated (other parts, such as images,
// are skipped).
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor an array of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// position returns the line and column (in runes, from 1) of the byte at
// offset, as json.SyntaxError reports it: just past the bad byte, or past
// the end of the input when atEnd.
func position(data []byte, offset int, atEnd bool) (line, col int) {
	if offset > 0 && !atEnd {
		offset--
	}
	offset = min(max(offset, 0), len(data))
	line = 1 + bytes.Count(data[:offset], []byte("\n"))
	col = 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:offset], '\n')+1:offset])
	return line, col
}
