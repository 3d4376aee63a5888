// Package e2e holds end-to-end tests that run the real ctxtrim binary with
// the tools people use it with: pre-commit (through "pre-commit try-repo"
// against this checkout) and the Codex CLI (against a stub Responses API
// server on 127.0.0.1, inside a network namespace with loopback only): the
// pipe into "codex exec", and "codex exec resume" of rollouts pruned by
// "ctxtrim history" (dropped turns, a compaction, masked outputs, and a
// session whose stale token count would make Codex compact on resume),
// checked on the requests Codex then sends; and Codex sessions through
// "ctxtrim proxy" (a history that outgrows the server's window, a primary
// model at capacity with a backup of a smaller window), and a Claude Code
// session through it against a stub of the Anthropic Messages API.
//
// The tests build ctxtrim once per run into a temporary directory. They
// install what they need from package registries (Debian's pre-commit,
// npm's @openai/codex and @anthropic-ai/claude-code at pinned versions)
// and skip with a clear message when that is impossible (no apt-get, no
// npm, no unshare). Every external command runs under a deadline.
//
// The package has no non-test code apart from this comment.
package e2e
