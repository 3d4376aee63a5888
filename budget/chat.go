package budget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctxtrim/ctxtrim/internal/jsonerr"
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
// The extensions are estimates, not cookbook figures: a nested property
// schema (object or array) costs the tokens of its compact JSON; an
// assistant message's tool calls cost PerToolCall plus the tokens of the
// function name and arguments (PerToolCallTokens for custom and legacy
// calls); an image part costs ImageTokens; a refusal and any other part
// cost their tokens (the part as compact JSON).

// Message is one chat message.
type Message struct {
	Role      string     // "system", "developer", "user", "assistant", "tool"
	Name      string     // optional participant name (any role, tool messages included)
	Content   string     // text content; parts are concatenated
	ToolCalls []ToolCall // an assistant's function calls
	// Images is the number of image parts, ImageTokens each (their pixel
	// size is not read).
	Images int
	// Extra holds other text the model sees that the cookbook has no rule
	// for: a refusal, and each part other than text and images as its
	// compact JSON. Each is counted as its tokens.
	Extra []string
}

// ToolCall is a function call made by the assistant.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text, as sent (a custom tool's input)
	// Custom marks a call outside the cookbook's method (a custom tool
	// call, a legacy function_call): it is framed by PerToolCallTokens
	// instead of Overhead.PerToolCall.
	Custom bool
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

// OverheadOf returns the chat overhead for the encoding c counts with
// (EncodingOf): o200k_base's when c does not say.
func OverheadOf(c Counter) Overhead { return OverheadFor(EncodingOf(c)) }

// CountChat returns the prompt tokens of a chat request with messages and
// tools, with the overhead of c's encoding (OverheadOf). It is exact for
// OpenAI models with plain-text messages and flat tool schemas, to the
// extent of the cookbook's method. It is the one accounting of a Chat
// request: count -chat, history and split count with it.
func CountChat(c Counter, msgs []Message, tools []Tool) int {
	return OverheadOf(c).Count(c, msgs, tools)
}

// Count returns the prompt tokens of msgs and tools under overhead o. With
// an estimate counter (Scaled) the request is counted unscaled and the
// total scaled once (Total), so that rounding does not add up per message.
func (o Overhead) Count(c Counter, msgs []Message, tools []Tool) int {
	return Total(c, func(c Counter) int {
		n := o.ReplyPriming
		for _, m := range msgs {
			n += o.Message(c, m)
		}
		return n + o.Tools(c, tools)
	})
}

// Message returns the tokens of one message, framing included.
func (o Overhead) Message(c Counter, m Message) int {
	n := o.PerMessage + c.Count(m.Role) + c.Count(m.Content)
	if m.Name != "" {
		n += c.Count(m.Name) + o.PerName
	}
	for _, tc := range m.ToolCalls {
		framing := o.PerToolCall
		if tc.Custom {
			framing = PerToolCallTokens
		}
		n += framing + c.Count(tc.Name) + c.Count(tc.Arguments)
	}
	n += m.Images * ImageTokens
	for _, x := range m.Extra {
		n += c.Count(x)
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
// A bare JSON array of messages is read as a body holding only them, as
// history reads it. A body without a "messages" array is an error, as is a
// message that is not an object with a "role".
func ParseChatRequest(data []byte) (msgs []Message, tools []Tool, err error) {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    []struct {
			Type     string       `json:"type"`
			Function jsonFunction `json:"function"`
		} `json:"tools"`
		Functions []jsonFunction `json:"functions"`
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	var target any = &req
	if len(trimmed) > 0 && trimmed[0] == '[' {
		target = &req.Messages
	}
	if err := json.Unmarshal(data, target); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, int(se.Offset), strings.HasPrefix(se.Error(), "unexpected end"))
			return nil, nil, fmt.Errorf("parse chat request: line %d, column %d: %w", line, col, err)
		}
		if len(trimmed) > 0 && trimmed[0] != '{' && trimmed[0] != '[' {
			return nil, nil, errors.New(`parse chat request: want a JSON object with "messages" or an array of messages`)
		}
		return nil, nil, fmt.Errorf("parse chat request: %w", jsonerr.Describe(err))
	}
	if req.Messages == nil {
		return nil, nil, errors.New(`parse chat request: no "messages" array`)
	}
	for i, raw := range req.Messages {
		msg, err := ParseChatMessage(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("parse chat request: message %d: %w", i, err)
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
		return t, fmt.Errorf("parameters: %w", jsonerr.Describe(err))
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
			return t, fmt.Errorf("property %s: %w", k, jsonerr.Describe(err))
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

// ParseChatMessage reads one message of a Chat Completions request: role,
// name, content (a string, null, or an array of parts: text parts are
// concatenated into Content, image parts counted in Images, a refusal and
// other parts kept in Extra), tool_calls (function calls, and custom tool
// calls marked Custom), a refusal and a legacy function_call (a Custom
// call). It is what ParseChatRequest reads each message with, and what
// history counts a Chat message with, so that both count it the same.
func ParseChatMessage(raw []byte) (Message, error) {
	var m struct {
		Role      string          `json:"role"`
		Name      string          `json:"name"`
		Content   json.RawMessage `json:"content"`
		Refusal   *string         `json:"refusal"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function *struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
			Custom *struct {
				Name  string `json:"name"`
				Input string `json:"input"`
			} `json:"custom"`
		} `json:"tool_calls"`
		FunctionCall *struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function_call"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return Message{}, jsonerr.Describe(err)
	}
	if m.Role == "" {
		return Message{}, errors.New(`message has no "role"`)
	}
	msg := Message{Role: m.Role, Name: m.Name}
	if err := msg.readContent(m.Content); err != nil {
		return Message{}, err
	}
	if m.Refusal != nil && *m.Refusal != "" {
		msg.Extra = append(msg.Extra, *m.Refusal)
	}
	for _, tc := range m.ToolCalls {
		switch {
		case tc.Function != nil:
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		case tc.Custom != nil:
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Custom.Name, Arguments: tc.Custom.Input, Custom: true})
		}
	}
	if fc := m.FunctionCall; fc != nil {
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{Name: fc.Name, Arguments: fc.Arguments, Custom: true})
	}
	return msg, nil
}

// readContent fills Content, Images and Extra from a message's content: a
// string, null, or an array of parts.
func (msg *Message) readContent(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, &msg.Content); err == nil {
		return nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return fmt.Errorf("content is neither a string nor an array of parts")
	}
	var b strings.Builder
	for _, raw := range parts {
		var p struct {
			Type    string  `json:"type"`
			Text    *string `json:"text"`
			Refusal *string `json:"refusal"`
		}
		if json.Unmarshal(raw, &p) != nil {
			msg.Extra = append(msg.Extra, compactJSON(raw))
			continue
		}
		switch {
		case p.Text != nil && (p.Type == "text" || p.Type == ""):
			b.WriteString(*p.Text)
		case p.Type == "image_url":
			msg.Images++
		case p.Type == "refusal" && p.Refusal != nil:
			msg.Extra = append(msg.Extra, *p.Refusal)
		default:
			msg.Extra = append(msg.Extra, compactJSON(raw))
		}
	}
	msg.Content = b.String()
	return nil
}

// compactJSON returns raw without insignificant white space (raw itself
// when it is not valid JSON).
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
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

// ContentBudget returns how many tokens the content of one more message
// with role may take in a Chat request of at most limit tokens whose other
// messages are msgs: limit minus the request's reply priming, msgs and
// the new message's framing, all as CountChat counts them. It is the
// budget of text placed inside a message (slicer.Select's prompt as the
// user message): a content of that many tokens makes a request of at most
// limit. It is negative when msgs alone leave no room.
func ContentBudget(c Counter, limit int, role string, msgs ...Message) int {
	frame := append(append([]Message(nil), msgs...), Message{Role: role})
	return limit - CountChat(c, frame, nil)
}
