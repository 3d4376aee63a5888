package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Item edits. Each takes an item's bytes and returns new bytes in which only
// the edited value is new: the other members keep their bytes and order.

// resultText returns the text of a tool result and whether the result is
// text only (no images or other parts that a string would lose).
func resultText(f Format, raw json.RawMessage, block int) (string, bool) {
	ms, err := parseObject(raw)
	if err != nil {
		return "", false
	}
	switch f {
	case FormatChat:
		return partsText(get(ms, "content"))
	case FormatAnthropic:
		b, err := blockAt(get(ms, "content"), block)
		if err != nil {
			return "", false
		}
		return partsText(get(b, "content"))
	default:
		return partsText(get(ms, "output"))
	}
}

// partsText flattens a string or an array of text parts.
func partsText(raw json.RawMessage) (string, bool) {
	if s, ok := str(raw); ok {
		return s, true
	}
	if kindOf(raw) != '[' {
		return "", kindOf(raw) == 0 || kindOf(raw) == 'n'
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for i, p := range parts {
		if p.Text == nil {
			return "", false
		}
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(*p.Text)
	}
	return b.String(), true
}

func blockAt(content json.RawMessage, i int) ([]member, error) {
	blocks, err := parseArray(content)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(blocks) {
		return nil, fmt.Errorf("content block %d out of range", i)
	}
	return parseObject(blocks[i])
}

// setResult replaces the output of a tool result with text, keeping the
// result's id and every other field.
func setResult(f Format, raw json.RawMessage, block int, text string) (json.RawMessage, error) {
	ms, err := parseObject(raw)
	if err != nil {
		return nil, err
	}
	switch f {
	case FormatChat:
		return encodeObject(set(ms, "content", encodeString(text))), nil
	case FormatAnthropic:
		blocks, err := parseArray(get(ms, "content"))
		if err != nil {
			return nil, err
		}
		if block < 0 || block >= len(blocks) {
			return nil, fmt.Errorf("content block %d out of range", block)
		}
		bm, err := parseObject(blocks[block])
		if err != nil {
			return nil, err
		}
		blocks = append([]json.RawMessage(nil), blocks...)
		blocks[block] = encodeObject(set(bm, "content", encodeString(text)))
		return encodeObject(set(ms, "content", encodeArray(blocks))), nil
	default:
		return encodeObject(set(ms, "output", encodeString(text))), nil
	}
}

// textSlot is a text value in a message's content: the whole content when
// part is -1, else the "text" of content[part].
type textSlot struct {
	part int
	text string
}

// textSlots lists the plain-text values of a message's content. Thinking,
// reasoning, tool calls and tool results are not text slots.
func textSlots(raw json.RawMessage) []textSlot {
	ms, err := parseObject(raw)
	if err != nil {
		return nil
	}
	content := get(ms, "content")
	if s, ok := str(content); ok {
		return []textSlot{{-1, s}}
	}
	if kindOf(content) != '[' {
		return nil
	}
	elems, err := parseArray(content)
	if err != nil {
		return nil
	}
	var out []textSlot
	for i, e := range elems {
		var p struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(e, &p) != nil || p.Text == nil {
			continue
		}
		switch p.Type {
		case "text", "input_text", "output_text":
			out = append(out, textSlot{i, *p.Text})
		}
	}
	return out
}

// setText replaces one text slot of a message's content.
func setText(raw json.RawMessage, part int, text string) (json.RawMessage, error) {
	ms, err := parseObject(raw)
	if err != nil {
		return nil, err
	}
	if part < 0 {
		return encodeObject(set(ms, "content", encodeString(text))), nil
	}
	elems, err := parseArray(get(ms, "content"))
	if err != nil {
		return nil, err
	}
	if part >= len(elems) {
		return nil, errors.New("content part out of range")
	}
	pm, err := parseObject(elems[part])
	if err != nil {
		return nil, err
	}
	elems = append([]json.RawMessage(nil), elems...)
	elems[part] = encodeObject(set(pm, "text", encodeString(text)))
	return encodeObject(set(ms, "content", encodeArray(elems))), nil
}

// imageParts lists the indexes of image parts in a message's content.
func imageParts(raw json.RawMessage) []int {
	ms, err := parseObject(raw)
	if err != nil {
		return nil
	}
	content := get(ms, "content")
	if kindOf(content) != '[' {
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return nil
	}
	var out []int
	for i, p := range parts {
		switch p.Type {
		case "image_url", "input_image", "image":
			out = append(out, i)
		}
	}
	return out
}

// textPart is a text content part in the format's vocabulary.
func textPart(f Format, role, text string) json.RawMessage {
	typ := "text"
	if f == FormatResponses || f == FormatCodex {
		typ = "input_text"
		if role == "assistant" {
			typ = "output_text"
		}
	}
	return encodeObject([]member{{"type", encodeString(typ)}, {"text", encodeString(text)}})
}

// replacePart replaces content[part] with a new part.
func replacePart(raw json.RawMessage, part int, with json.RawMessage) (json.RawMessage, error) {
	ms, err := parseObject(raw)
	if err != nil {
		return nil, err
	}
	elems, err := parseArray(get(ms, "content"))
	if err != nil {
		return nil, err
	}
	if part < 0 || part >= len(elems) {
		return nil, errors.New("content part out of range")
	}
	elems = append([]json.RawMessage(nil), elems...)
	elems[part] = with
	return encodeObject(set(ms, "content", encodeArray(elems))), nil
}

// noticeItem is the message that says what was dropped. Chat and Anthropic
// get a user message (Anthropic requires the first message to be the
// user's); Responses and Codex get a developer message, which Codex does not
// count as a user turn.
func noticeItem(f Format, text string) json.RawMessage {
	switch f {
	case FormatChat, FormatAnthropic:
		return encodeObject([]member{{"role", encodeString("user")}, {"content", encodeString(text)}})
	default:
		return encodeObject([]member{
			{"type", encodeString("message")},
			{"role", encodeString("developer")},
			{"content", encodeArray([]json.RawMessage{textPart(f, "developer", text)})},
		})
	}
}

// mergeNotice adds the notice to an Anthropic user message as a text block
// after its leading tool_result blocks (the API wants those first), with
// the blocks of lead (context carried from a dropped message) before it.
func mergeNotice(raw json.RawMessage, lead []json.RawMessage, text string) (json.RawMessage, error) {
	ms, err := parseObject(raw)
	if err != nil {
		return nil, err
	}
	content := get(ms, "content")
	note := textPart(FormatAnthropic, "user", text)
	if s, ok := str(content); ok {
		arr := encodeArray(append(append(append([]json.RawMessage(nil), lead...), note), textPart(FormatAnthropic, "user", s)))
		return encodeObject(set(ms, "content", arr)), nil
	}
	elems, err := parseArray(content)
	if err != nil {
		return nil, err
	}
	at := 0
	for at < len(elems) {
		var p struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(elems[at], &p) != nil || p.Type != "tool_result" {
			break
		}
		at++
	}
	out := make([]json.RawMessage, 0, len(elems)+len(lead)+1)
	out = append(out, elems[:at]...)
	out = append(out, lead...)
	out = append(out, note)
	out = append(out, elems[at:]...)
	return encodeObject(set(ms, "content", encodeArray(out))), nil
}

// setContent replaces a message's content with the blocks given.
func setContent(raw json.RawMessage, blocks []json.RawMessage) (json.RawMessage, error) {
	ms, err := parseObject(raw)
	if err != nil {
		return nil, err
	}
	return encodeObject(set(ms, "content", encodeArray(blocks))), nil
}

// resultImages lists the image parts inside a tool result's output: an
// Anthropic tool_result block's content, or a Responses output array.
func resultImages(f Format, raw json.RawMessage, block int) []int {
	out, _, err := resultOutput(f, raw, block)
	if err != nil || kindOf(out) != '[' {
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(out, &parts) != nil {
		return nil
	}
	var idx []int
	for i, p := range parts {
		switch p.Type {
		case "image", "input_image", "image_url":
			idx = append(idx, i)
		}
	}
	return idx
}

// resultOutput returns the output value of a tool result and its key.
func resultOutput(f Format, raw json.RawMessage, block int) (json.RawMessage, string, error) {
	ms, err := parseObject(raw)
	if err != nil {
		return nil, "", err
	}
	switch f {
	case FormatChat:
		return get(ms, "content"), "content", nil
	case FormatAnthropic:
		b, err := blockAt(get(ms, "content"), block)
		if err != nil {
			return nil, "", err
		}
		return get(b, "content"), "content", nil
	default:
		return get(ms, "output"), "output", nil
	}
}

// replaceResultPart replaces part i of a tool result's output array.
func replaceResultPart(f Format, raw json.RawMessage, block, i int, with json.RawMessage) (json.RawMessage, error) {
	out, key, err := resultOutput(f, raw, block)
	if err != nil {
		return nil, err
	}
	parts, err := parseArray(out)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(parts) {
		return nil, errors.New("output part out of range")
	}
	parts = append([]json.RawMessage(nil), parts...)
	parts[i] = with
	newOut := encodeArray(parts)
	ms, _ := parseObject(raw)
	if f != FormatAnthropic {
		return encodeObject(set(ms, key, newOut)), nil
	}
	blocks, err := parseArray(get(ms, "content"))
	if err != nil {
		return nil, err
	}
	bm, err := parseObject(blocks[block])
	if err != nil {
		return nil, err
	}
	blocks = append([]json.RawMessage(nil), blocks...)
	blocks[block] = encodeObject(set(bm, key, newOut))
	return encodeObject(set(ms, "content", encodeArray(blocks))), nil
}
