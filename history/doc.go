// Package history prunes conversation histories to a token budget without
// ever producing a request the API would reject.
//
// # Formats
//
// Parse reads four formats and detects which one it has: an OpenAI Chat
// Completions request body ("messages"; a SWE-agent .traj, whose "history"
// is Chat-shaped with "tool_call_ids" lists, is read the same way), an
// OpenAI Responses request body ("input" items), an Anthropic Messages
// request body ("messages" with a top-level "system" or Anthropic content
// blocks), a Codex CLI session rollout (JSONL records with "type" and
// "payload"), and a bare JSON array of messages or items. Nothing is decoded
// into Go structs and re-encoded: objects are kept as ordered lists of keys
// with their values' original bytes, so every field ctxtrim does not
// understand stays byte for byte in its place, and only the values that
// pruning changes (and the containers that hold them) are re-encoded. An
// unpruned conversation is written back exactly as it was read.
//
// A Codex rollout is a log, not a request: on resume Codex rebuilds the
// model's history from the replacement_history of the last "compacted"
// record followed by the "response_item" records after it. Those items are
// the conversation; pruning edits or removes exactly those records (and the
// matching replacement_history_metadata entries) and passes every other
// record (session_meta, turn_context, event_msg, world_state, record types
// not yet known, and everything before the last compaction) through
// unchanged, so the result is still a rollout Codex can resume (checked
// with Codex CLI 0.171 by scripts/history-codex-resume.sh). One exception:
// Codex restores its token usage from the last token_count record and
// auto-compacts on resume when that is over its limit, so a pruned rollout
// gets that record's last_token_usage lowered by the tokens pruned before
// it (usage.go says why this rather than dropping the records). A remote
// compaction's "compaction" item and Codex's ghost snapshots (undo state,
// never sent to the model) are never dropped. After a compaction without
// replacement_history (older Codex), Codex rebuilds the history from the
// earlier user messages and the summary: those are counted as fixed. The
// base instructions in session_meta are counted as fixed; Codex's tool
// schemas and the context it adds on resume are not in the rollout, so
// reserve room for them with the budget.
//
// # Accounting
//
// A request is counted as the API sees it: every text the model reads
// (message text, tool call names and arguments, tool outputs, reasoning
// summaries, thinking), the per-message overhead, the tool schemas and
// the instructions. The framing is budget's (budget/request.go, shared
// with split): the OpenAI cookbook's for Chat, named constants chosen on
// the high side for what providers do not publish, budget.ImageTokens per
// image.
//
// Tokens and Prune are one accounting. With an estimate counter (a
// budget.Scaled one, such as the Claude family's), every part is counted
// with the exact counter under it (budget.Exact), the parts are summed, and
// the sum is scaled once (budget.ScaleCount), framing included; Prune
// works in those exact counts against budget.ExactLimit of its budget. So a
// request Prune returns is within the budget by Tokens, and every figure
// of Result and of a NoFitError is in Tokens' units. (Scaling each part
// instead, the sum ran 160 tokens above Tokens on a 128k-token Claude Code
// request, and Prune could return a request Tokens put over the budget.)
//
// # Turns and pins
//
// Items are grouped into turns, the atoms of pruning: a tool call with all
// its results (and whatever lies between them), a reasoning item with the
// item it produced, or a single message. A result answers the nearest call
// with its id before it (real transcripts reuse ids). Pinned, never
// touched: system and developer messages, the context the client injects
// (below), the turn holding the latest user message, and the last
// KeepLast turns (the in-flight tool step among them). The other steps of
// an in-flight tool loop are not pinned: agent trajectories (SWE-agent,
// Codex exec) are one long loop after one user message, which could then
// never be pruned. They are masked, truncated or dropped like older turns,
// after them, and always as whole turns. If the pinned part alone exceeds
// the budget, Prune fails with ErrNoFit and says what is pinned and how
// big it is (injected context counts with the system and developer
// messages).
//
// Injected context is what an agent CLI adds to the conversation on the
// user's behalf, which the model needs for as long as the session lasts:
//
//   - Codex puts AGENTS.md ("# AGENTS.md instructions for …" …
//     "</INSTRUCTIONS>") and <environment_context> in user messages of
//     their own. In a rollout any user message whose every part starts
//     with a tag, that header or Codex's compaction-summary prefix is
//     taken for it. In a Responses request, which any client may send,
//     only messages whose every part is one of the fragments Codex
//     recognises itself, opened and closed by its own pair of markers
//     (AGENTS.md, <environment_context>, <user_instructions>,
//     <skills_instructions>), wherever it stands: typed text that merely
//     starts with "<" is pruned as usual.
//   - Claude Code puts CLAUDE.md, the environment, git status, the date,
//     the deferred-tool list and skills in <system-reminder> text blocks
//     at the head of the first user message, whose last block is the
//     user's first prompt. Those blocks are pinned, the prompt is not: it
//     may be a paste of any size (a 50k-token log piped into claude -p),
//     which, pinned with them, would make every later request of the
//     session fail to fit. When that message's turn is dropped, its
//     <system-reminder> blocks stay, byte for byte, at the head of the
//     first message, together with the notice (see step 4). The rule
//     applies only when the first message carries such blocks: a first
//     message without them is an ordinary turn.
//
// # Policy
//
// Prune applies four steps, cheapest loss first, each only as far as the
// budget needs and each oldest first:
//
//  1. mask: replace the outputs of tool calls older than the last
//     MaskAfter turns with a placeholder naming the tool and the size
//     removed ("[ctxtrim: output of get_user_details omitted (412
//     tokens)]"). The call and its result stay, so the pairing is valid.
//  2. supersede: replace outputs made stale by later ones — a read of a
//     file read again later, a call repeated later with the same
//     arguments, an output identical to a later one — and replace images
//     with a placeholder.
//  3. truncate: cut the middle out of items larger than MaxItem tokens
//     (tool outputs, pasted text), keeping the head and the tail around a
//     marker, never below MaxItem.
//  4. drop: remove whole turns, oldest first, and put one notice where the
//     first one was ("[ctxtrim: 7 earlier turns were omitted …]"); in
//     Anthropic requests the notice joins a neighbouring user message when
//     a separate one would break the alternation of roles, and a dropped
//     first message's injected blocks go with it, ahead of it. The first
//     user message (in agent runs, the task; SWE-agent demonstrations
//     marked is_demo do not count) is dropped last, except in Anthropic
//     requests, where dropping strictly oldest first keeps a single gap to
//     mend.
//
// Thinking blocks and reasoning items are never edited: they are kept
// byte for byte or dropped with their turn. The result is checked before it
// is returned: its count by Tokens is at most the budget, and if the input
// passed Validate, so does the output.
//
// Concurrency: Prune, Tokens, Encode, Validate and the accessors only read
// a Conversation (Prune returns a new one), so any number of them may run
// on one Conversation at once; Append and AppendItem modify it and must
// not run alongside anything else on it. Options and Result are plain
// values: Prune reads its Options and never keeps them.
package history
