package history

import (
	"encoding/json"
	"fmt"
)

// Validate checks the rules the APIs enforce on a conversation's tool calls:
// every tool result answers a call that is present, every call has all its
// results, in the order and adjacency the format requires (Chat: the
// results right after the assistant message; Anthropic: tool_result blocks
// in the very next user message, and the first message from the user;
// Responses and Codex: each call's output after it, each reasoning item
// followed by the item it produced). It returns nil for a valid
// conversation and describes the first problem otherwise.
func (c *Conversation) Validate() error { return validate(c) }

func validate(c *Conversation) error {
	switch c.format {
	case FormatChat:
		return validateChat(c.items)
	case FormatAnthropic:
		return validateAnthropic(c.items)
	default:
		return validateResponses(c.items)
	}
}

func validateChat(items []item) error {
	pending := map[string]bool{}
	for i, it := range items {
		if it.role == "tool" || it.role == "function" {
			if len(it.res) == 0 {
				return fmt.Errorf("message %d: tool message without tool_call_id", i)
			}
			for _, r := range it.res {
				if !pending[r.id] {
					return fmt.Errorf("message %d: tool result %q does not answer a call of the assistant message before it", i, r.id)
				}
				delete(pending, r.id)
			}
			continue
		}
		for id := range pending {
			return fmt.Errorf("message %d: tool call %q has no result before it", i, id)
		}
		pending = map[string]bool{}
		for _, c := range it.calls {
			pending[c.id] = true
		}
	}
	for id := range pending {
		return fmt.Errorf("tool call %q has no result", id)
	}
	return nil
}

func validateAnthropic(items []item) error {
	if len(items) > 0 && items[0].role != "user" {
		return fmt.Errorf("the first message is from %q, not the user", items[0].role)
	}
	for i, it := range items {
		var prevCalls map[string]bool
		if i > 0 && items[i-1].role == "assistant" {
			prevCalls = map[string]bool{}
			for _, c := range items[i-1].calls {
				prevCalls[c.id] = true
			}
		}
		answered := map[string]bool{}
		for _, r := range it.res {
			if !prevCalls[r.id] {
				return fmt.Errorf("message %d: tool_result %q does not answer a tool_use of the message before it", i, r.id)
			}
			answered[r.id] = true
		}
		if len(it.res) > 0 {
			if err := resultsFirst(it.raw); err != nil {
				return fmt.Errorf("message %d: %w", i, err)
			}
		}
		if len(it.calls) > 0 {
			if i+1 >= len(items) {
				return fmt.Errorf("message %d: tool_use without a following user message", i)
			}
			next := map[string]bool{}
			for _, r := range items[i+1].res {
				next[r.id] = true
			}
			for _, c := range it.calls {
				if !next[c.id] {
					return fmt.Errorf("message %d: tool_use %q has no tool_result in the next message", i, c.id)
				}
			}
		}
	}
	return nil
}

// resultsFirst checks that tool_result blocks come before other blocks.
func resultsFirst(raw json.RawMessage) error {
	var m struct {
		Content []struct {
			Type string `json:"type"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	other := false
	for _, b := range m.Content {
		if b.Type == "tool_result" && other {
			return fmt.Errorf("tool_result block after a %s block", "non-tool_result")
		}
		other = other || b.Type != "tool_result"
	}
	return nil
}

func validateResponses(items []item) error {
	calls := map[string]bool{}
	answered := map[string]bool{}
	for i, it := range items {
		for _, c := range it.calls {
			calls[c.id] = true
		}
		for _, r := range it.res {
			if !calls[r.id] {
				return fmt.Errorf("item %d: output for call %q, which is not before it", i, r.id)
			}
			answered[r.id] = true
		}
		if it.reas {
			if i+1 >= len(items) {
				continue // the model's last output, e.g. a reasoning-only reply
			}
			next := items[i+1]
			if next.user || next.sys || next.notice || len(next.res) > 0 {
				return fmt.Errorf("item %d: reasoning item is not followed by the item it produced", i)
			}
		}
	}
	for id := range calls {
		if !answered[id] {
			return fmt.Errorf("call %q has no output", id)
		}
	}
	return nil
}
