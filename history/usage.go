package history

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Codex's token usage records.
//
// Codex writes an event_msg record of type token_count after every model
// response: info.total_token_usage (the session's cumulative usage),
// info.last_token_usage (the usage of the last request: input and output,
// the size of the context the model last saw) and
// info.model_context_window. On resume Codex restores its usage from the
// last such record that has info (codex-rs last_token_info_from_rollout),
// and before the next turn it decides whether to auto-compact from
// last_token_usage.total_tokens plus its estimate of the items after the
// last model output (get_total_token_usage); total_token_usage plays no part
// in that. A rollout pruned to fit therefore still gets an immediate, lossy
// auto-compaction on resume when the stale count was above
// model_auto_compact_token_limit (checked with Codex 0.171 by
// e2e.TestCodexResumeStaleUsage).
//
// Pruning therefore rewrites that one record: last_token_usage's
// input_tokens and total_tokens lose what pruning removed from the items
// the request before it held, counted by ctxtrim (usageCut). Dropping the
// token_count records would not be better: with no usage info Codex counts
// the context as only the items after the last model output, close to
// zero, so a pruned history still over the auto-compaction limit (a budget
// above it) would not be compacted before it overflows the window, and
// the session's cumulative usage (total_token_usage, which /status shows)
// would be lost. Subtracting keeps what Codex itself measured and ctxtrim
// cannot see (its tool schemas, instructions and context, counted by the
// provider's tokenizer) and takes out only the items ctxtrim removed.
// Every other byte of the record, and every other token_count record (Codex
// reads only the last), is kept. token_usage_record records (per-response
// accounting, Codex 0.169 and later) are passed through too: Codex 0.171
// resumes a pruned rollout whose token_usage_record lines still carry the
// stale counts without compacting (the same e2e test).
//
// The cut counts only items before that record: the usage of the items
// after it (an interrupted turn's tool outputs) is Codex's own estimate from
// the rebuilt, already pruned history. When dropping turns there adds more
// (the notice) than it removes, the record is left as it is.

// isUsageRecord reports whether an event_msg payload is a token_count
// event with usage info (an integer last_token_usage.total_tokens), the
// kind Codex restores its usage from.
func isUsageRecord(payload json.RawMessage) bool {
	pm, err := parseObject(payload)
	if err != nil {
		return false
	}
	if t, _ := str(get(pm, "type")); t != "token_count" {
		return false
	}
	info, err := parseObject(get(pm, "info"))
	if err != nil {
		return false
	}
	last, err := parseObject(get(info, "last_token_usage"))
	if err != nil {
		return false
	}
	_, err = strconv.ParseInt(string(get(last, "total_tokens")), 10, 64)
	return err == nil
}

// usageCut returns what pruning took out of the items before rollout line
// usageLine (the request Codex's last usage record describes), in tokens
// counted by a (exact) and scaled to the caller's units, and ctxtrim's count
// of what remains of them with the fixed part (a lower bound for the
// rewritten count).
func usageCut(a accountant, scaled func(int) int, before, after *Conversation) (cut, kept int) {
	if before.shape != shapeRollout || before.usageLine < 0 {
		return 0, 0
	}
	sum := func(items []item) (n int) {
		for _, it := range items {
			if it.line < before.usageLine {
				n += a.item(it.raw)
			}
		}
		return n
	}
	kept = sum(after.items)
	return scaled(sum(before.items)) - scaled(kept), scaled(kept + a.fixedTokens(after))
}

// rewriteUsage returns the token_count record l with info.last_token_usage
// lowered by cut tokens (input_tokens and total_tokens; cached_input_tokens
// capped by the new input_tokens), total_tokens never below floor.
func rewriteUsage(l []byte, cut, floor int) ([]byte, error) {
	ms, err := parseObject(l)
	if err != nil {
		return nil, err
	}
	pm, err := parseObject(get(ms, "payload"))
	if err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	info, err := parseObject(get(pm, "info"))
	if err != nil {
		return nil, fmt.Errorf("info: %w", err)
	}
	last, err := parseObject(get(info, "last_token_usage"))
	if err != nil {
		return nil, fmt.Errorf("last_token_usage: %w", err)
	}
	num := func(key string) (int64, bool) {
		n, err := strconv.ParseInt(string(get(last, key)), 10, 64)
		return n, err == nil
	}
	total, ok := num("total_tokens")
	if !ok {
		return nil, fmt.Errorf("last_token_usage.total_tokens is not an integer: %s", compact(get(last, "total_tokens")))
	}
	if total <= 0 {
		return l, nil // nothing to lower
	}
	newTotal := max(total-int64(cut), min(int64(floor), total))
	removed := total - newTotal
	last = set(last, "total_tokens", []byte(strconv.FormatInt(newTotal, 10)))
	if in, ok := num("input_tokens"); ok {
		in = max(in-removed, 0)
		last = set(last, "input_tokens", []byte(strconv.FormatInt(in, 10)))
		if cached, ok := num("cached_input_tokens"); ok && cached > in {
			last = set(last, "cached_input_tokens", []byte(strconv.FormatInt(in, 10)))
		}
	}
	info = set(info, "last_token_usage", encodeObject(last))
	pm = set(pm, "info", encodeObject(info))
	return encodeObject(set(ms, "payload", encodeObject(pm))), nil
}
