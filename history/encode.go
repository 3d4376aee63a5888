package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Encode writes the conversation in its input format. When nothing was
// changed it writes the input unchanged, byte for byte; otherwise only the
// changed items and the containers holding them are re-encoded (compactly),
// and every other byte is the input's.
//
// A rollout is written line by line, straight from the input where a line
// is unchanged: the output of a rollout of half a gigabyte is never held
// whole in memory.
func (c *Conversation) Encode(w io.Writer) error {
	if c.changed && c.shape == shapeRollout {
		bw := bufio.NewWriterSize(w, 256<<10)
		if err := c.writeRollout(bw); err != nil {
			return err
		}
		if len(c.src) > 0 && c.src[len(c.src)-1] == '\n' {
			bw.WriteByte('\n')
		}
		return bw.Flush()
	}
	out := c.bytes()
	_, err := w.Write(out)
	return err
}

// bytes is the encoded form of a conversation that is not a changed
// rollout.
func (c *Conversation) bytes() []byte {
	if !c.changed {
		return c.src
	}
	nl := len(c.src) > 0 && c.src[len(c.src)-1] == '\n'
	var out []byte
	switch c.shape {
	case shapeBare:
		out = c.itemsArray()
	case shapeBody:
		out = encodeObject(set(c.top, c.itemsKey, c.itemsArray()))
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
	return out
}

func (c *Conversation) itemsArray() []byte {
	elems := make([]json.RawMessage, len(c.items))
	for i, it := range c.items {
		elems[i] = it.raw
	}
	return encodeArray(elems)
}

// writeRollout writes the rebuilt rollout, without its final newline:
// response_item lines of dropped items are removed, edited ones get their
// new payload, the compacted record gets its new replacement_history (and
// the matching metadata entries), and the last token_count record its
// lowered last_token_usage (usage.go). Every other line is written as it
// is in the input.
func (c *Conversation) writeRollout(b *bufio.Writer) error {
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
	size := 0 // bytes written
	for i, l := range c.lines {
		if c.isResponseItemLine(i) {
			p, ok := payload[i]
			if !ok {
				continue // dropped
			}
			ms, err := parseObject(l)
			if err != nil {
				return fmt.Errorf("rollout line %d: %w", i+1, err)
			}
			if !bytes.Equal(get(ms, "payload"), p) {
				l = encodeObject(set(ms, "payload", p))
			}
		} else if i == c.compactLine {
			ms, err := parseObject(l)
			if err != nil {
				return fmt.Errorf("rollout line %d: %w", i+1, err)
			}
			pm, err := parseObject(get(ms, "payload"))
			if err != nil {
				return fmt.Errorf("rollout line %d: payload: %w", i+1, err)
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
				return fmt.Errorf("rollout line %d: token_count: %w", i+1, err)
			}
			l = u
		}
		if i > 0 {
			b.WriteByte('\n')
			size++
		}
		b.Write(l)
		size += len(l)
	}
	next := -1
	if len(added) > 0 {
		next = c.nextOrdinal()
	}
	for _, p := range added {
		if size > 0 {
			b.WriteByte('\n')
			size++
		}
		r := c.addedRecord(p, next)
		b.Write(r)
		size += len(r)
		if next >= 0 {
			next++
		}
	}
	return nil
}

// isResponseItemLine reports whether line i holds an item of the history
// Codex rebuilds (a response_item after the last compaction).
func (c *Conversation) isResponseItemLine(i int) bool {
	return i >= c.histStart && i < len(c.itemLine) && c.itemLine[i]
}
