package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Encode writes the conversation in its input format. When nothing was
// changed it writes the input unchanged, byte for byte; otherwise only the
// changed items and the containers holding them are re-encoded (compactly),
// and every other byte is the input's.
func (c *Conversation) Encode(w io.Writer) error {
	out, err := c.bytes()
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

func (c *Conversation) bytes() ([]byte, error) {
	if !c.changed {
		return c.src, nil
	}
	nl := len(c.src) > 0 && c.src[len(c.src)-1] == '\n'
	var out []byte
	switch c.shape {
	case shapeBare:
		out = c.itemsArray()
	case shapeBody:
		out = encodeObject(set(c.top, c.itemsKey, c.itemsArray()))
	case shapeRollout:
		b, err := c.rolloutBytes()
		if err != nil {
			return nil, err
		}
		out = b
	}
	if c.indent != "" {
		var b bytes.Buffer
		if err := json.Indent(&b, out, "", c.indent); err == nil {
			out = b.Bytes()
		}
	}
	if nl {
		out = append(out, '\n')
	}
	return out, nil
}

func (c *Conversation) itemsArray() []byte {
	elems := make([]json.RawMessage, len(c.items))
	for i, it := range c.items {
		elems[i] = it.raw
	}
	return encodeArray(elems)
}

// rolloutBytes rebuilds the rollout: response_item lines of dropped items
// are removed, edited ones get their new payload, the compacted record
// gets its new replacement_history (and the matching metadata entries), and
// the last token_count record its lowered last_token_usage (usage.go).
func (c *Conversation) rolloutBytes() ([]byte, error) {
	payload := map[int]json.RawMessage{} // line → new payload
	var hist, meta []json.RawMessage
	var added []json.RawMessage
	for _, it := range c.items {
		if c.added(it) {
			added = append(added, it.raw)
			continue
		}
		if it.elem >= 0 {
			hist = append(hist, it.raw)
			if c.meta != nil {
				meta = append(meta, c.meta[it.elem])
			}
			continue
		}
		payload[it.line] = it.raw
	}
	var b bytes.Buffer
	for i, l := range c.lines {
		if c.isResponseItemLine(i) {
			p, ok := payload[i]
			if !ok {
				continue // dropped
			}
			ms, err := parseObject(l)
			if err != nil {
				return nil, fmt.Errorf("rollout line %d: %w", i+1, err)
			}
			if !bytes.Equal(get(ms, "payload"), p) {
				l = encodeObject(set(ms, "payload", p))
			}
		} else if i == c.compactLine {
			ms, err := parseObject(l)
			if err != nil {
				return nil, fmt.Errorf("rollout line %d: %w", i+1, err)
			}
			pm, err := parseObject(get(ms, "payload"))
			if err != nil {
				return nil, fmt.Errorf("rollout line %d: payload: %w", i+1, err)
			}
			if hist == nil {
				hist = []json.RawMessage{}
			}
			pm = set(pm, "replacement_history", encodeArray(hist))
			if c.meta != nil {
				if meta == nil {
					meta = []json.RawMessage{}
				}
				pm = set(pm, "replacement_history_metadata", encodeArray(meta))
			}
			l = encodeObject(set(ms, "payload", encodeObject(pm)))
		} else if i == c.usageLine && c.usageCut > 0 {
			u, err := rewriteUsage(l, c.usageCut, c.usageFloor)
			if err != nil {
				return nil, fmt.Errorf("rollout line %d: token_count: %w", i+1, err)
			}
			l = u
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.Write(l)
	}
	next := -1
	if len(added) > 0 {
		next = c.nextOrdinal()
	}
	for _, p := range added {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.Write(c.addedRecord(p, next))
		if next >= 0 {
			next++
		}
	}
	return b.Bytes(), nil
}

// isResponseItemLine reports whether line i holds an item of the history
// Codex rebuilds (a response_item after the last compaction).
func (c *Conversation) isResponseItemLine(i int) bool {
	if i < c.histStart {
		return false
	}
	ms, err := parseObject(c.lines[i])
	if err != nil {
		return false
	}
	t, _ := str(get(ms, "type"))
	return t == "response_item" && kindOf(get(ms, "payload")) == '{'
}
