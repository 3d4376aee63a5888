package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ctxtrim/ctxtrim/internal/jsonerr"
)

// Format names a conversation format.
type Format string

// The formats Parse understands.
const (
	FormatChat      Format = "chat"      // OpenAI Chat Completions request (or SWE-agent .traj)
	FormatResponses Format = "responses" // OpenAI Responses API request
	FormatAnthropic Format = "anthropic" // Anthropic Messages request
	FormatCodex     Format = "codex"     // Codex CLI session rollout JSONL
)

// Formats lists the formats Parse understands, for flag help and error
// messages.
func Formats() []Format {
	return []Format{FormatChat, FormatResponses, FormatAnthropic, FormatCodex}
}

// ErrBadInput is wrapped by every error Parse returns for input it cannot
// understand (as opposed to a failing reader).
var ErrBadInput = errors.New("bad input")

// FormatError is the error (wrapped with ErrBadInput) of ParseFormat when
// the input is not of the format named: rather than read it as that format
// and lose what the format has no place for (Anthropic has no system
// messages in its list, Chat no tool_use blocks), it says what the input
// is and what shows it.
type FormatError struct {
	Named Format // the format asked for
	Found Format // the format the input shows
	// Evidence says what shows it, with where: `messages[0] has role "system"`.
	Evidence string
}

// Error names the format found, the one named, and the evidence.
func (e *FormatError) Error() string {
	return fmt.Sprintf("input is %s, not %s: %s", formatTitle(e.Found), formatTitle(e.Named), e.Evidence)
}

// formatTitle names a format for messages.
func formatTitle(f Format) string {
	switch f {
	case FormatChat:
		return "an OpenAI Chat Completions conversation"
	case FormatResponses:
		return "an OpenAI Responses conversation"
	case FormatAnthropic:
		return "an Anthropic Messages conversation"
	case FormatCodex:
		return "a Codex rollout"
	}
	return string(f)
}

// shape is how the items are wrapped.
type shape int

const (
	shapeBody    shape = iota // a request body object with an items array
	shapeBare                 // a bare JSON array of items
	shapeRollout              // Codex rollout JSONL
)

// Conversation is a parsed conversation. It keeps the original bytes of the
// whole input and of every item, so that Encode writes untouched parts back
// byte for byte. A Conversation is never modified after Parse returns; Prune
// returns a new one. It is safe for concurrent use.
type Conversation struct {
	format   Format
	shape    shape
	src      []byte   // the input, written back unchanged when nothing changed
	changed  bool     // whether Encode must rebuild the output
	top      []member // shapeBody: top-level members in order
	itemsKey string   // shapeBody: "messages", "input" or "history"
	items    []item
	fixed    []string        // text the model sees once per request: system, instructions
	tools    json.RawMessage // tool schemas, counted once

	// indent is the input's indentation unit when the input is exactly
	// json.Indent's rendering of itself with it; the output is then
	// indented the same way.
	indent string

	// shapeRollout
	lines       [][]byte // input lines without their "\n"
	itemLine    []bool   // lines holding a response_item record with an object payload
	histStart   int      // first line after the last compacted record (0 without one)
	compactLine int      // that compacted record's line if it has replacement_history, else -1
	meta        []json.RawMessage
	// usageLine is the last event_msg token_count record with usage info
	// (the one Codex restores its token usage from on resume), or -1.
	usageLine int
	// usageCut is what pruning removed, in tokens, from the items before
	// usageLine: the request that record describes shrinks by that much
	// (see rewriteUsage).
	usageCut int
	// usageFloor is ctxtrim's count of the fixed part and the items left
	// before usageLine: the rewritten count never goes below it.
	usageFloor int
}

// item is one message or Responses item.
type item struct {
	raw   json.RawMessage
	line  int // shapeRollout: the line it came from
	elem  int // shapeRollout: index in replacement_history, or -1 for a response_item line
	role  string
	typ   string // Responses item type ("message", "function_call", ...)
	sys   bool   // instructions: system/developer message or Codex context; always kept
	user  bool   // carries text the user typed: a turn boundary
	reas  bool   // a reasoning item, bound to the item that follows it
	calls []call
	res   []result
	// injected lists the content blocks of an Anthropic request's first
	// user message that the client injected (Claude Code's
	// <system-reminder> blocks): pinned even when the rest of the message,
	// the user's own first prompt, is pruned.
	injected []int
	// notice marks the item ctxtrim inserted to say what was dropped.
	notice bool
}

// call is a tool call issued by an item.
type call struct{ id, name, args string }

// result is a tool result carried by an item; block is its index in an
// Anthropic content array, or -1 when the whole item is the result.
type result struct {
	id    string
	block int
}

// Format reports the conversation's format.
func (c *Conversation) Format() Format { return c.format }

// Len reports the number of messages or items that the model sees.
func (c *Conversation) Len() int { return len(c.items) }

// Items returns the messages or items the model sees, in order, as JSON (for
// a Codex rollout: the rebuilt history's response items). A request builder
// that holds its messages in memory can decode them back into its own types.
// The slices must not be modified.
func (c *Conversation) Items() []json.RawMessage {
	out := make([]json.RawMessage, len(c.items))
	for i, it := range c.items {
		out[i] = it.raw
	}
	return out
}

// Parse reads a conversation and detects its format: a Codex rollout
// (JSONL whose records have "type" and "payload"), a request body with
// "messages" (Anthropic when it has a top-level "system" or Anthropic
// content blocks, else Chat), "input" (Responses) or "history" (a SWE-agent
// trajectory, Chat-shaped), or a bare array of messages or items.
func Parse(r io.Reader) (*Conversation, error) { return ParseFormat(r, "") }

// ParseFormat is Parse with the format given; the empty format detects it.
func ParseFormat(r io.Reader, f Format) (*Conversation, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read conversation: %w", err)
	}
	return ParseBytes(src, f)
}

// ParseBytes is ParseFormat on the whole input src, which it keeps rather
// than copies: src must not be modified while the Conversation, or one
// Prune returns, is in use. It saves a copy of the input when the caller
// has already read it (to check it, or from a file).
func ParseBytes(src []byte, f Format) (*Conversation, error) {
	c, err := parse(src, f)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return c, nil
}

// ParseFormatName validates a format name given by a user.
func ParseFormatName(s string) (Format, error) {
	if s == "" || s == "auto" {
		return "", nil
	}
	all := Formats()
	for _, f := range all {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(all))
	for i, f := range all {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (known: auto, %s)", s, strings.Join(names, ", "))
}

// notRollout says why JSON named as a Codex rollout is not one.
const notRollout = `line 1 is not a rollout record (a JSON object with "type" and "payload")`

func parse(src []byte, f Format) (*Conversation, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		return nil, errors.New("empty input")
	}
	rollout := looksLikeRollout(trimmed)
	switch {
	case f == FormatCodex && !rollout:
		if json.Valid(trimmed) {
			c, err := parseJSON(src, trimmed, "")
			if err != nil {
				// Neither a rollout nor another conversation. Not %w: the
				// error may be a FormatError between two other formats,
				// which would misname the format the user asked for.
				return nil, fmt.Errorf("%s, nor a valid conversation: %v", notRollout, err)
			}
			return nil, &FormatError{Named: f, Found: c.format, Evidence: notRollout}
		}
		line, _, _ := bytes.Cut(trimmed, []byte("\n"))
		if _, err := parseObject(line); err == nil {
			return nil, errors.New(`rollout line 1 is not a Codex rollout record (a JSON object with "type" and "payload")`)
		}
		return parseRollout(src) // its error says what is wrong with line 1
	case rollout && f != "" && f != FormatCodex:
		return nil, &FormatError{Named: f, Found: FormatCodex, Evidence: `line 1 is a rollout record (a JSON object with "type" and "payload")`}
	case f == FormatCodex || (f == "" && rollout):
		return parseRollout(src)
	}
	if !json.Valid(trimmed) {
		return nil, syntaxError(src, trimmed)
	}
	c, err := parseJSON(src, trimmed, f)
	if err != nil {
		return nil, err
	}
	c.indent = indentOf(src)
	return c, nil
}

// syntaxError describes why trimmed, a slice of src, is not JSON, with the
// line and column in src of the first bad byte.
func syntaxError(src, trimmed []byte) error {
	var v any
	err := json.Unmarshal(trimmed, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return errors.New("not valid JSON")
	}
	off := cap(src) - cap(trimmed) + int(se.Offset) // trimmed is src[lead:…]
	if off > 0 && !strings.HasPrefix(se.Error(), "unexpected end") {
		off-- // Offset is just past the bad byte (at the end, past the input)
	}
	off = min(off, len(src))
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := 1 + utf8.RuneCount(src[bytes.LastIndexByte(src[:off], '\n')+1:off])
	return fmt.Errorf("line %d, column %d: %s", line, col, se.Error())
}

// indentOf returns the indentation unit of a JSON document that is exactly
// what json.Indent makes of it (as Python's json.dump(indent=N) writes), or
// "" when it is not.
func indentOf(src []byte) string {
	nl := bytes.IndexByte(src, '\n')
	if nl < 0 || nl+1 >= len(src) {
		return ""
	}
	rest := src[nl+1:]
	unit := rest[:len(rest)-len(bytes.TrimLeft(rest, " \t"))]
	if len(unit) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, src) != nil {
		return ""
	}
	var ind bytes.Buffer
	if json.Indent(&ind, b.Bytes(), "", string(unit)) != nil {
		return ""
	}
	if !bytes.Equal(bytes.TrimRight(src, "\n"), ind.Bytes()) {
		return ""
	}
	return string(unit)
}

func parseJSON(src, trimmed []byte, f Format) (*Conversation, error) {
	switch trimmed[0] {
	case '[':
		elems, err := parseArray(trimmed)
		if err != nil {
			return nil, err
		}
		c := &Conversation{src: src, shape: shapeBare, compactLine: -1}
		if f == "" {
			f = detectItems(elems)
		} else if err := checkNamed(f, nil, "", elems); err != nil {
			return nil, err
		}
		c.format = f
		return c, c.classifyAll(elems)
	case '{':
		top, err := parseObject(trimmed)
		if err != nil {
			return nil, err
		}
		return parseBody(src, top, f)
	}
	return nil, errors.New("want a JSON object, a JSON array or Codex rollout JSONL")
}

func looksLikeRollout(b []byte) bool {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	ms, err := parseObject(line)
	if err != nil {
		return false
	}
	return get(ms, "type") != nil && get(ms, "payload") != nil
}

func parseBody(src []byte, top []member, f Format) (*Conversation, error) {
	c := &Conversation{src: src, shape: shapeBody, top: top, compactLine: -1}
	for _, k := range []string{"messages", "input", "history"} {
		if get(top, k) != nil {
			c.itemsKey = k
			break
		}
	}
	if c.itemsKey == "" {
		return nil, errors.New(`request body has no "messages", "input" or "history" array`)
	}
	raw := get(top, c.itemsKey)
	if c.itemsKey == "input" && kindOf(raw) == '"' {
		// Responses input given as one string: nothing to prune.
		s, _ := str(raw)
		c.format = FormatResponses
		c.fixed = append(c.fixed, s)
		c.tools = get(top, "tools")
		if ins, ok := str(get(top, "instructions")); ok {
			c.fixed = append(c.fixed, ins)
		}
		return c, f.mustBe(FormatResponses)
	}
	elems, err := parseArray(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.itemsKey, err)
	}
	detected := FormatChat
	switch {
	case c.itemsKey == "input":
		detected = FormatResponses
	case c.itemsKey == "messages" && (get(top, "system") != nil || detectItems(elems) == FormatAnthropic):
		detected = FormatAnthropic
	}
	auto := f == ""
	if auto {
		f = detected
	}
	if (f == FormatResponses) != (c.itemsKey == "input") {
		return nil, &FormatError{Named: f, Found: detected, Evidence: fmt.Sprintf("the request body holds its items in %q", c.itemsKey)}
	}
	if err := checkNamed(f, top, c.itemsKey, elems); err != nil {
		var fe *FormatError
		if auto && errors.As(err, &fe) {
			// No format was named: the body shows the signs of two.
			// A FormatError would say the user named the first.
			return nil, fmt.Errorf("input mixes formats: it reads as %s, but %s, as %s does", formatTitle(fe.Named), fe.Evidence, formatTitle(fe.Found))
		}
		return nil, err
	}
	c.format = f
	c.tools = get(top, "tools")
	switch f {
	case FormatAnthropic:
		sys := get(top, "system")
		if s, ok := str(sys); ok {
			c.fixed = append(c.fixed, s)
		} else if kindOf(sys) == '[' {
			var blocks []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(sys, &blocks); err != nil {
				return nil, fmt.Errorf("system: %w", err)
			}
			for _, b := range blocks {
				c.fixed = append(c.fixed, b.Text)
			}
		}
	case FormatResponses:
		if s, ok := str(get(top, "instructions")); ok {
			c.fixed = append(c.fixed, s)
		}
	}
	return c, c.classifyAll(elems)
}

func (f Format) mustBe(want Format) error {
	if f != "" && f != want {
		return &FormatError{Named: f, Found: want, Evidence: `"input" is a string`}
	}
	return nil
}

// checkNamed checks that a request body (top, its items under key) or a
// bare array of items (top nil) named as format f shows nothing of another
// format (evidence). A body that fits two formats (plain user and
// assistant text is both Chat and Anthropic) is read as the one named.
func checkNamed(f Format, top []member, key string, elems []json.RawMessage) error {
	found, what := evidence(f, top, key, elems)
	if found == "" || found == f {
		return nil
	}
	return &FormatError{Named: f, Found: found, Evidence: what}
}

// evidence returns the first sign in a body (or bare array, key "") that
// it is not of format f: the format it shows and where, or "" when there
// is none. Signs are what only one format has: Anthropic's top-level
// "system", its content blocks (tool_use, tool_result, thinking, image
// with a source) and its two roles; Chat's system, developer, tool and
// function roles, tool_calls, tool_call_id and its part types (image_url,
// input_audio); Responses' typed items and part types (input_text,
// output_text, input_image).
func evidence(f Format, top []member, key string, elems []json.RawMessage) (Format, string) {
	if f != FormatAnthropic && top != nil && get(top, "system") != nil {
		return FormatAnthropic, `the request body has a top-level "system"`
	}
	at := func(i int) string {
		if key == "" {
			return fmt.Sprintf("item %d", i)
		}
		return fmt.Sprintf("%s[%d]", key, i)
	}
	for i, e := range elems {
		var m struct {
			Type       *string         `json:"type"`
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCalls  json.RawMessage `json:"tool_calls"`
			ToolCallID json.RawMessage `json:"tool_call_id"`
		}
		if json.Unmarshal(e, &m) != nil {
			continue // classify reports it
		}
		switch {
		case f != FormatResponses && m.Type != nil:
			return FormatResponses, fmt.Sprintf("%s has a \"type\" (%q)", at(i), *m.Type)
		case f == FormatAnthropic && m.Role != "user" && m.Role != "assistant" && m.Role != "":
			return FormatChat, fmt.Sprintf("%s has role %q (Anthropic messages are user or assistant; its system prompt is a top-level \"system\")", at(i), m.Role)
		case f == FormatAnthropic && (m.ToolCalls != nil || m.ToolCallID != nil):
			return FormatChat, fmt.Sprintf("%s has Chat tool calls (tool_calls, tool_call_id)", at(i))
		}
		if kindOf(m.Content) != '[' {
			continue
		}
		var blocks []struct {
			Type   string          `json:"type"`
			Source json.RawMessage `json:"source"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for j, b := range blocks {
			var shows Format
			switch b.Type {
			case "tool_use", "tool_result", "thinking", "redacted_thinking", "document":
				shows = FormatAnthropic
			case "image":
				if b.Source != nil {
					shows = FormatAnthropic
				}
			case "image_url", "input_audio":
				shows = FormatChat
			case "input_text", "output_text", "input_image", "input_file":
				shows = FormatResponses
			}
			if shows != "" && shows != f {
				return shows, fmt.Sprintf("%s content part %d is of type %q", at(i), j, b.Type)
			}
		}
	}
	return "", ""
}

// detectItems guesses the format of a list of messages or items.
func detectItems(elems []json.RawMessage) Format {
	for _, e := range elems {
		var m struct {
			Type    *string         `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(e, &m) != nil {
			continue
		}
		if m.Type != nil {
			return FormatResponses
		}
		if kindOf(m.Content) == '[' {
			var blocks []struct {
				Type   string          `json:"type"`
				Source json.RawMessage `json:"source"`
			}
			if json.Unmarshal(m.Content, &blocks) == nil {
				for _, b := range blocks {
					switch b.Type {
					case "tool_use", "tool_result", "thinking", "redacted_thinking", "document":
						return FormatAnthropic
					case "image":
						if b.Source != nil {
							return FormatAnthropic
						}
					case "input_text", "output_text", "input_image":
						return FormatResponses
					}
				}
			}
		}
	}
	return FormatChat
}

func (c *Conversation) classifyAll(elems []json.RawMessage) error {
	c.items = make([]item, 0, len(elems))
	for i, e := range elems {
		it := item{raw: e, line: -1, elem: -1}
		if err := c.classify(&it); err != nil {
			return fmt.Errorf("%s item %d: %w", c.format, i, err)
		}
		c.items = append(c.items, it)
	}
	if c.format == FormatAnthropic {
		markInjected(c.items)
	}
	return nil
}

// markInjected finds the context Claude Code injects into an Anthropic
// conversation: the <system-reminder> text blocks of the first message,
// when it is the user's (see isSystemReminder). Only the first message:
// Claude Code puts CLAUDE.md, the environment, git status, the date, the
// deferred-tool list and skills there, once; the reminders of later
// messages are per-turn notes (tokens left, a file changed) that go with
// their turn.
func markInjected(items []item) {
	if len(items) == 0 || items[0].role != "user" {
		return
	}
	items[0].injected = nil
	for _, sl := range textSlots(items[0].raw) {
		// part -1 is a string content: Claude Code sends blocks.
		if sl.part >= 0 && isSystemReminder(sl.text) {
			items[0].injected = append(items[0].injected, sl.part)
		}
	}
}

// isSystemReminder reports whether text is one of Claude Code's
// <system-reminder> blocks: it opens and closes with the tag (around
// whitespace), so that a prompt that merely mentions the tag is not one.
func isSystemReminder(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "<system-reminder>") && strings.HasSuffix(t, "</system-reminder>")
}

// classify fills in what the pruner needs to know about an item.
func (c *Conversation) classify(it *item) error {
	switch c.format {
	case FormatChat:
		return classifyChat(it)
	case FormatAnthropic:
		return classifyAnthropic(it)
	default:
		return classifyResponses(it, c.format == FormatCodex)
	}
}

// legacyFunctionID pairs a legacy "function_call" with the "function"
// message after it, which carry no ids.
const legacyFunctionID = "\x00function_call"

func classifyChat(it *item) error {
	var m struct {
		Role        string          `json:"role"`
		Content     json.RawMessage `json:"content"`
		ToolCallID  *string         `json:"tool_call_id"`
		ToolCallIDs []string        `json:"tool_call_ids"` // SWE-agent
		IsDemo      bool            `json:"is_demo"`       // SWE-agent demonstration
		FuncCall    *struct {
			Name string `json:"name"`
		} `json:"function_call"` // legacy functions API
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
			Custom struct {
				Name  string `json:"name"`
				Input string `json:"input"`
			} `json:"custom"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(it.raw, &m); err != nil {
		return jsonerr.Describe(err)
	}
	if m.Role == "" {
		return errors.New(`message has no "role"`)
	}
	if err := contentKind(m.Content); err != nil {
		return err
	}
	it.role = m.Role
	switch m.Role {
	case "system", "developer":
		it.sys = true
	case "user":
		it.user = !m.IsDemo
	case "assistant":
		if m.FuncCall != nil {
			it.calls = append(it.calls, call{legacyFunctionID, m.FuncCall.Name, ""})
		}
		for _, tc := range m.ToolCalls {
			name, args := tc.Function.Name, tc.Function.Arguments
			if name == "" {
				name, args = tc.Custom.Name, tc.Custom.Input
			}
			it.calls = append(it.calls, call{tc.ID, name, args})
		}
	case "function":
		it.res = append(it.res, result{legacyFunctionID, -1})
	case "tool":
		if m.ToolCallID != nil {
			it.res = append(it.res, result{*m.ToolCallID, -1})
		}
		for _, id := range m.ToolCallIDs {
			it.res = append(it.res, result{id, -1})
		}
	}
	return nil
}

// contentKind checks that a message's content is what every API takes: a
// string, null (or absent), or an array of parts.
func contentKind(raw json.RawMessage) error {
	switch kindOf(raw) {
	case 0, '"', 'n', '[':
		return nil
	}
	return errors.New("content: want a string or an array of parts")
}

func classifyAnthropic(it *item) error {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(it.raw, &m); err != nil {
		return jsonerr.Describe(err)
	}
	if m.Role == "" {
		return errors.New(`message has no "role"`)
	}
	if err := contentKind(m.Content); err != nil {
		return err
	}
	it.role = m.Role
	if kindOf(m.Content) != '[' {
		it.user = m.Role == "user"
		return nil
	}
	var blocks []struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
	}
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return fmt.Errorf("content: %w", jsonerr.Describe(err))
	}
	for i, b := range blocks {
		switch {
		case b.Type == "tool_use" && m.Role == "assistant":
			it.calls = append(it.calls, call{b.ID, b.Name, compact(b.Input)})
		case b.Type == "tool_result" && m.Role == "user":
			it.res = append(it.res, result{b.ToolUseID, i})
		case m.Role == "user":
			it.user = true
		}
	}
	return nil
}

// classifyResponses classifies a Responses item, of a Codex rollout when
// rollout is set (which decides how Codex's context is recognised: see
// isCodexContext).
func classifyResponses(it *item, rollout bool) error {
	var m struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		CallID  string          `json:"call_id"`
		Name    string          `json:"name"`
		Args    string          `json:"arguments"`
		Input   string          `json:"input"`
		Action  json.RawMessage `json:"action"`
	}
	if err := json.Unmarshal(it.raw, &m); err != nil {
		return jsonerr.Describe(err)
	}
	it.typ, it.role = m.Type, m.Role
	switch {
	case m.Type == "message" || (m.Type == "" && m.Role != ""):
		switch m.Role {
		case "system", "developer":
			it.sys = true
		case "user":
			it.user = true
			if isCodexContext(m.Content, rollout) {
				it.user, it.sys = false, true
			}
		}
	case m.Type == "":
		return errors.New(`item has neither "type" nor "role"`)
	case m.Type == "reasoning":
		it.reas = true
	case m.Type == "compaction" || m.Type == "compaction_summary" || m.Type == "ghost_snapshot":
		// A remote compaction's encrypted history, and Codex's undo
		// snapshots: never edited or dropped.
		it.sys = true
	case strings.HasSuffix(m.Type, "_call_output"):
		it.res = append(it.res, result{m.CallID, -1})
	case strings.HasSuffix(m.Type, "_call") && m.CallID != "":
		name, args := m.Name, m.Args
		if name == "" {
			name = strings.TrimSuffix(m.Type, "_call")
		}
		if args == "" {
			args = m.Input
		}
		if args == "" && m.Action != nil {
			args = compact(m.Action)
		}
		it.calls = append(it.calls, call{m.CallID, name, args})
	}
	return nil
}

// codexSummaryPrefix opens the user message in which Codex hands the
// summary of a compaction to the model (codex-rs SUMMARY_PREFIX).
const codexSummaryPrefix = "Another language model started to solve this problem"

// codexContextMarkers open and close each context fragment Codex injects
// as a user message of its Responses requests: AGENTS.md ("# AGENTS.md
// instructions for <dir>" … "</INSTRUCTIONS>") and <environment_context>,
// as Codex CLI 0.171 sends them (testdata/requests), and the
// <user_instructions> and <skills_instructions> of earlier versions. Codex
// itself recognises its context by these pairs, case-insensitively.
var codexContextMarkers = [...]struct{ open, close string }{
	{"# AGENTS.md instructions", "</INSTRUCTIONS>"},
	{"<environment_context>", "</environment_context>"},
	{"<user_instructions>", "</user_instructions>"},
	{"<skills_instructions>", "</skills_instructions>"},
}

// isCodexContext reports whether a user message is context Codex injects
// (AGENTS.md, environment, skills, a compaction summary) rather than text
// the user typed: every text part must be such context, so that typed
// text sharing a message with it stays prunable.
//
// In a rollout the file is Codex's own, and a part that starts with a
// tag, the AGENTS.md header or the summary prefix is enough. A Responses
// request may come from any client, and a user may paste text that starts
// with "<" (HTML, XML, a log): there a part counts only when it is one of
// the fragments of codexContextMarkers, opened and closed by its pair.
// The pairs, not position (the items before the first model output):
// Codex also sends an <environment_context> later in a conversation, when
// the turn's working directory, date or network policy changes, and that
// copy is the one in force; and a paste before any model output is still
// a paste.
func isCodexContext(content json.RawMessage, rollout bool) bool {
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil || len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		t := strings.TrimSpace(p.Text)
		if rollout {
			if !strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "# AGENTS.md instructions") && !strings.HasPrefix(t, codexSummaryPrefix) {
				return false
			}
			continue
		}
		if !isCodexFragment(t) {
			return false
		}
	}
	return true
}

// isCodexFragment reports whether t opens and closes with one of
// codexContextMarkers' pairs, compared as Codex compares them, ignoring
// ASCII case.
func isCodexFragment(t string) bool {
	for _, m := range codexContextMarkers {
		if len(t) >= len(m.open)+len(m.close) &&
			strings.EqualFold(t[:len(m.open)], m.open) && strings.EqualFold(t[len(t)-len(m.close):], m.close) {
			return true
		}
	}
	return false
}

// parseRollout reads Codex rollout JSONL. The history Codex rebuilds on
// resume is the replacement_history of the last compacted record followed by
// the response_item records after it; those are the items. Every other
// record, and every record before that compaction, is kept as it is.
func parseRollout(src []byte) (*Conversation, error) {
	c := &Conversation{src: src, shape: shapeRollout, format: FormatCodex, compactLine: -1, usageLine: -1}
	body := src
	if len(body) > 0 && body[len(body)-1] == '\n' {
		body = body[:len(body)-1]
	}
	c.lines = bytes.Split(body, []byte("\n"))
	type rec struct {
		typ     string
		payload json.RawMessage
	}
	recs := make([]rec, len(c.lines))
	c.itemLine = make([]bool, len(c.lines))
	for i, l := range c.lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		ms, err := parseObject(l)
		if err != nil {
			return nil, fmt.Errorf("rollout line %d: %w", i+1, err)
		}
		t, _ := str(get(ms, "type"))
		recs[i] = rec{t, get(ms, "payload")}
		c.itemLine[i] = t == "response_item" && kindOf(recs[i].payload) == '{'
		if t == "compacted" {
			c.histStart, c.compactLine = i+1, -1
			if pm, err := parseObject(recs[i].payload); err == nil && kindOf(get(pm, "replacement_history")) == '[' {
				c.compactLine = i
			}
		}
		if t == "event_msg" && isUsageRecord(recs[i].payload) {
			c.usageLine = i
		}
		if t == "session_meta" {
			var p struct {
				BaseInstructions struct {
					Text string `json:"text"`
				} `json:"base_instructions"`
			}
			if json.Unmarshal(recs[i].payload, &p) == nil && p.BaseInstructions.Text != "" {
				c.fixed = append(c.fixed, p.BaseInstructions.Text)
			}
		}
	}
	if c.histStart > 0 && c.compactLine < 0 {
		// A compaction without replacement_history (older Codex): Codex
		// rebuilds the history from the user messages before it and the
		// summary. They cannot be pruned here; count them as fixed.
		var p struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(recs[c.histStart-1].payload, &p)
		c.fixed = append(c.fixed, p.Message)
		for i := 0; i < c.histStart-1; i++ {
			if recs[i].typ != "response_item" {
				continue
			}
			it := item{raw: recs[i].payload}
			if classifyResponses(&it, true) == nil && it.user {
				for _, sl := range textSlots(it.raw) {
					c.fixed = append(c.fixed, sl.text)
				}
			}
		}
	}
	if c.compactLine >= 0 {
		pm, _ := parseObject(recs[c.compactLine].payload)
		elems, err := parseArray(get(pm, "replacement_history"))
		if err != nil {
			return nil, fmt.Errorf("rollout line %d: replacement_history: %w", c.compactLine+1, err)
		}
		if md := get(pm, "replacement_history_metadata"); kindOf(md) == '[' {
			if meta, err := parseArray(md); err == nil && len(meta) == len(elems) {
				c.meta = meta
			}
		}
		for j, e := range elems {
			it := item{raw: e, line: c.compactLine, elem: j}
			if err := classifyResponses(&it, true); err != nil {
				return nil, fmt.Errorf("rollout line %d: replacement_history item %d: %w", c.compactLine+1, j, err)
			}
			c.items = append(c.items, it)
		}
	}
	for i := c.histStart; i < len(recs); i++ {
		if recs[i].typ != "response_item" || kindOf(recs[i].payload) != '{' {
			continue
		}
		it := item{raw: recs[i].payload, line: i, elem: -1}
		if err := classifyResponses(&it, true); err != nil {
			return nil, fmt.Errorf("rollout line %d: %w", i+1, err)
		}
		c.items = append(c.items, it)
	}
	return c, nil
}
