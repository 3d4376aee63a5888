package history

import "encoding/json"

// Field returns the value of a top-level member of a request body (for
// example "model" or "max_tokens"), as the input's bytes; nil when the
// conversation is not a request body or has no such member. A proxy that
// has parsed a request reads its other fields without parsing it again.
// The slice must not be modified.
func (c *Conversation) Field(key string) json.RawMessage {
	if c.shape != shapeBody {
		return nil
	}
	return get(c.top, key)
}
