package mcpserver

// clientLimit is what one MCP client accepts in a tool result, and the
// defaults the tools use for it.
type clientLimit struct {
	// name is the client's name in its initialize request (clientInfo.name).
	name string
	// maxBytes bounds a result's JSON (structuredContent, which both
	// measured clients give the model) and its text content.
	maxBytes int
	// budget is the default token budget of select_context and fit_text;
	// split_task's parts default to splitShare of it.
	budget int
	// countModel names the model whose tokenizer estimates the client's
	// count when a call names no model or encoding; "" means o200k_base.
	countModel string
	// source says where the numbers come from.
	source string
}

// splitShare is the share of the client's budget a split_task part gets by
// default, in percent: a part's text is JSON-escaped in the result (about
// one byte in ten more for code), and a part that does not fit the client
// is an error, not a smaller part, so that parts stay the same between the
// calls that fetch them.
const splitShare = 80

// clientLimits returns the known clients' limits; the last entry, with no
// name, is for every other client: the smallest of the known limits, so
// that a result fits wherever it goes.
func clientLimits() []clientLimit {
	return []clientLimit{
		{
			name: "codex-mcp-client", maxBytes: 40_000, budget: 10_000,
			source: "Codex 0.171.0: every model's truncation_policy is 10,000 tokens (its embedded models.json; " +
				"tool_output_token_limit in config.toml overrides it); measured: a 62,400-byte result reaches the model " +
				"as its first and last 24,000 bytes around a \"…tokens truncated…\" marker, so 40,000 bytes keeps clear of it",
		},
		{
			name: "claude-code", maxBytes: 50_000, budget: 20_000, countModel: "claude-opus-5-5",
			source: "Claude Code 2.1.332: a text result over MAX_MCP_OUTPUT_TOKENS (default 25,000, counted by the API) " +
				"is replaced by a file path, one over 50,000 characters by a file path and a 2 KB preview (measured with " +
				"60,000 characters); counted with the tokenizer estimate of its default model, claude-opus-5-5",
		},
		{name: "", maxBytes: 40_000, budget: 10_000, source: "the smallest known client limit (Codex's)"},
	}
}

// limitFor returns the limits of the client named name.
func limitFor(name string) clientLimit {
	ls := clientLimits()
	for _, l := range ls {
		if l.name == name {
			return l
		}
	}
	return ls[len(ls)-1]
}
