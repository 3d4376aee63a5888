// Package mcpserver serves ctxtrim's jobs to coding agents over the Model
// Context Protocol, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): `ctxtrim mcp` runs it on stdio,
// where stdout carries JSON-RPC only and every diagnostic goes to the
// injected Logf.
//
// # Tools
//
// Each tool has typed input and output structs; the SDK derives the JSON
// schemas from them (descriptions from the jsonschema tags) and validates
// every call against the input schema before the handler runs.
//
//   - select_context: the repository files and definitions a task needs,
//     rendered as one markdown prompt, plus the structured selection (each
//     file with its granularity, line ranges and the definitions shown,
//     and what was left out), taken from slicer.Selection's fields;
//     include and exclude patterns scope it, so that a second call can
//     ask for what comes after the files a first one showed.
//   - count_tokens: exact token counts of a text and/or files, with a
//     model's tokenizer (an estimate for non-OpenAI models) or an encoding.
//   - fit_text: a text trimmed to a budget at line boundaries, keeping its
//     head and tail around a marker that says what was dropped.
//   - split_task: a diff, files or text too large for one request cut into
//     parts that each fit; returns the manifest, or one part's text.
//   - check_prompt_files: the repository's agent prompt files (the AGENTS.md
//     chain Codex assembles, CLAUDE.md, …) against their budgets.
//
// There is no prune_history tool: neither Codex nor Claude Code hands its own
// conversation to a tool (MCP has no request for it; sampling goes the other
// way), so a tool could only prune a copy the model pasted in, which does
// not shrink the client's context.
//
// # Results fit the client
//
// Both clients measured (Codex 0.171.0, Claude Code 2.1.332) give the model
// a result's structuredContent as JSON text when it has one, and ignore its
// content; other clients read content. So every result carries both, and
// the budget holds for the larger: the whole result serialized as JSON
// counts at most the budget's tokens, and its text content (a subset) less.
// What a client accepts is a table (limits.go) keyed by the name the client
// sends in initialize, each limit with its source: Codex cuts the middle of
// a result over its 10,000-token truncation policy (about 48,000 bytes in
// 0.171.0), Claude Code diverts a text result over MAX_MCP_OUTPUT_TOKENS
// (25,000) or 50,000 characters to a file. A result is kept under the
// client's byte limit as well as under the token budget: select_context and
// fit_text build for 72% of the budget first (JSON escapes of code cost a
// third more tokens: 1.33-1.39 times on moby), then scale the budget by the
// measured ratio until the JSON fits both and uses at least 90% of one
// (fitResult); each round is counted exactly, never estimated, and one is
// the rule. split_task, whose parts must not change between calls, reports
// a part that does not fit as an error.
//
// # Budgets and models
//
// A call may name a model (its tokenizer counts, its window bounds the
// budget) or an encoding; without either the client's own tokenizer is
// estimated (Claude's for Claude Code, o200k_base otherwise). The default
// budget is the client's (limits.go); an explicit budget is honoured up to
// the model's window. Unknown models, budgets out of range, a missing
// repository and a task that alone exceeds the budget are tool errors
// (IsError results) with the same messages the CLI prints.
//
// # Repositories
//
// The repository is the call's repo argument (relative to the default
// root), else the client's first root when it lists one, else the server's
// working directory (Options.Dir). Its index is built once and kept for the
// life of the server (at most maxIndexes repositories, least recently used
// dropped first). Every call checks it with one stat per indexed and
// skipped file, per directory holding one, and of the git index, HEAD and
// its ref (stamp.go): any difference in size or mtime, or an entry that
// was modified while the index was being built, rebuilds it, which the
// slicer's blob-hash cache makes a warm index. A new untracked file in a
// directory that holds no indexed file is not seen until something else
// changes.
//
// # Concurrency and failures
//
// The SDK handles calls concurrently. Index builds and refreshes of one
// repository are serialized (one entry lock), selections run in parallel on
// the immutable index snapshot. A panic in a handler is recovered: the call
// returns a tool error naming the tool and the panic, the stack goes to
// Logf, and the server keeps serving.
package mcpserver
