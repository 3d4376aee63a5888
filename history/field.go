package history

import (
	"encoding/json"
	"errors"
	"fmt"
)

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

// WithItems returns the request body c with its messages (or Responses
// items) replaced by items, every other member kept byte for byte, parsed
// anew: the result is classified, counted and validated like any input,
// and Encode writes it compactly. It is how a proxy sends an earlier
// pruned form of a conversation followed by the items added since. It
// fails for a conversation that is not a request body, and for items the
// format cannot read (wrapping ErrBadInput).
func (c *Conversation) WithItems(items []json.RawMessage) (*Conversation, error) {
	if c.shape != shapeBody || c.itemsKey == "" {
		return nil, errors.New("not a request body with messages or items")
	}
	body := encodeObject(set(c.top, c.itemsKey, encodeArray(items)))
	out, err := parse(body, c.format)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return out, nil
}
