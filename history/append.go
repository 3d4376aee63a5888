package history

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Instructions returns the text the model sees once per request outside
// the message list, in order: Anthropic's "system", Responses'
// "instructions", a Codex rollout's base instructions (and, after an old
// compaction without replacement history, its summary and the user
// messages before it). System and developer messages inside the list are
// items (Items). The slice is a copy.
func (c *Conversation) Instructions() []string { return append([]string(nil), c.fixed...) }

// Tools returns the request's tool definitions as written (a JSON array in
// the format's vocabulary), or nil when it has none. It must not be
// modified.
func (c *Conversation) Tools() json.RawMessage {
	if kindOf(c.tools) != '[' {
		return nil
	}
	return c.tools
}

// Append adds a text message from role at the end of the conversation, in
// its format's own shape: {"role", "content"} for Chat and Anthropic, a
// Responses message item with an input_text (output_text for the
// assistant) part for Responses and Codex rollouts. It modifies c; see
// AppendItem.
func (c *Conversation) Append(role, text string) error {
	var raw json.RawMessage
	switch c.format {
	case FormatChat, FormatAnthropic:
		raw = encodeObject([]member{{"role", encodeString(role)}, {"content", encodeString(text)}})
	default:
		raw = encodeObject([]member{
			{"type", encodeString("message")},
			{"role", encodeString(role)},
			{"content", encodeArray([]json.RawMessage{textPart(c.format, role, text)})},
		})
	}
	return c.AppendItem(raw)
}

// AppendItem adds one message or item, as JSON in the conversation's
// format (a Chat message, an Anthropic message, a Responses item; for a
// Codex rollout a response_item payload), at the end. It is checked as
// Parse checks items; an error leaves c unchanged. A Codex rollout gets a
// new response_item record at its end, stamped with the current time
// (and the next ordinal when the rollout's records carry one), which
// Codex reads back on resume.
//
// Append and AppendItem modify c: a Conversation is not safe for
// concurrent use while one runs. Prune and Encode see the new items; Prune
// may drop them like any other.
func (c *Conversation) AppendItem(raw json.RawMessage) error {
	if kindOf(raw) != '{' {
		return fmt.Errorf("%w: append: want a JSON object, got %.40s", ErrBadInput, raw)
	}
	raw = append(json.RawMessage(nil), raw...)
	if !json.Valid(raw) {
		return fmt.Errorf("%w: append: invalid JSON", ErrBadInput)
	}
	it := item{raw: raw, elem: -1}
	if c.shape == shapeRollout {
		it.line = len(c.lines) + len(c.items) // past every input line: an added record
	}
	if err := c.classify(&it); err != nil {
		return fmt.Errorf("%w: append: %w", ErrBadInput, err)
	}
	c.items = append(c.items, it)
	c.changed = true
	return nil
}

// added reports whether it was appended to a rollout (AppendItem), not
// read from one of its lines.
func (c *Conversation) added(it item) bool { return it.elem < 0 && it.line >= len(c.lines) }

// addedRecord renders an appended item as a rollout record line.
func (c *Conversation) addedRecord(payload json.RawMessage, ordinal int) []byte {
	ms := []member{{"timestamp", encodeString(time.Now().UTC().Format("2006-01-02T15:04:05.000Z"))}}
	if ordinal >= 0 {
		ms = append(ms, member{"ordinal", []byte(strconv.Itoa(ordinal))})
	}
	ms = append(ms, member{"type", encodeString("response_item")}, member{"payload", payload})
	return encodeObject(ms)
}

// nextOrdinal returns the ordinal after the rollout's last, or -1 when its
// records carry none (Codex before 0.16x).
func (c *Conversation) nextOrdinal() int {
	for i := len(c.lines) - 1; i >= 0; i-- {
		ms, err := parseObject(c.lines[i])
		if err != nil {
			continue
		}
		if o := get(ms, "ordinal"); o != nil {
			n, err := strconv.Atoi(string(o))
			if err != nil {
				return -1
			}
			return n + 1
		}
		return -1
	}
	return -1
}
