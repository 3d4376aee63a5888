// Package e2e holds end-to-end tests that run the real ctxtrim binary with
// the tools people use it with: pre-commit (through "pre-commit try-repo"
// against this checkout), the Codex CLI (against a stub Responses API
// server on 127.0.0.1, inside a network namespace with loopback only): the
// pipe into "codex exec", with "--for codex" and without, "codex exec
// resume" of rollouts pruned by "ctxtrim history" (dropped turns, a
// compaction, masked outputs, and a session whose stale token count would
// make Codex compact on resume), Codex calling "ctxtrim mcp" as its MCP
// server, and Codex sessions through "ctxtrim proxy" (a history that
// outgrows the server's window, a primary model at capacity with a backup
// of a smaller window); and Claude Code, against a stub of the Anthropic
// Messages API on the same address, calling "ctxtrim mcp" and in a session
// through "ctxtrim proxy". Each is checked on the requests the client then
// sends; the stub can play a model that calls tools (stubTurn).
//
// The tests build ctxtrim once per run into a temporary directory. They
// install what they need from package registries (Debian's pre-commit,
// npm's @openai/codex and @anthropic-ai/claude-code at pinned versions)
// and skip with a clear message when that is impossible (no apt-get, no
// npm, no unshare). Every external command runs under a deadline.
//
// The package has no non-test code apart from this comment.
package e2e
