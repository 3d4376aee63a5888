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
// of a smaller window, and a session of a dozen turns with a tool call
// each); Claude Code, against a stub of the Anthropic Messages API on the
// same address, calling "ctxtrim mcp" and in sessions through "ctxtrim
// proxy" (three turns, and eight with a tool call each); and the proxy's
// Chat Completions route against the stub in OpenAI's and vLLM's
// wordings. Each is checked on the requests the client then sends; the
// stub can play a model that calls tools (stubTurn, stubEachTurn).
//
// The stub must be no kinder than the real APIs, or the tests pass where
// real sessions fail: it answers an overflow with the provider's own error
// and wording (the Responses API's states no window; Chat Completions',
// vLLM's and Anthropic's state it), and refuses with the provider's own 400
// a history the real API refuses (a tool output without its call, a call
// without its output, a first message not the user's), recording the
// refusal as invalid (stubRecord.Invalid). TestStubValidation and
// TestStubOverflow check the stub itself and run in any "go test".
//
// The tests of clients (Codex, Claude Code, pre-commit, MCP, the proxy) are
// opt-in: without CTXTRIM_E2E=1 they skip, saying so, and a plain "go test
// ./..." downloads and installs nothing. With it they install what they
// need (Debian's pre-commit, after "apt-get update"; npm's @openai/codex
// and @anthropic-ai/claude-code at pinned versions), and a test that
// cannot run (no npm, a failed install, no unshare or ip, no network
// namespace, no pre-commit) fails with the reason: it never skips. CI
// runs them (.ci/run):
//
//	CTXTRIM_E2E=1 go test -count=1 -timeout 60m ./e2e/
//
// The tests build ctxtrim once per run into a temporary directory
// (CTXTRIM_E2E_BIN names a binary to test instead). They run in parallel,
// and every external command runs under a deadline.
//
// The package has no non-test code apart from this comment.
package e2e
