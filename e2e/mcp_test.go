package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
)

// codexMCPConfig is the README's Codex snippet: the ctxtrim server in
// config.toml, started by Codex with "ctxtrim mcp" in its working directory.
func codexMCPConfig(ctxtrim string) string {
	return fmt.Sprintf("\n[mcp_servers.ctxtrim]\ncommand = %q\nargs = [\"mcp\"]\n", ctxtrim)
}

// claudeMCPConfig is the README's Claude Code snippet: .mcp.json at the
// project root.
func claudeMCPConfig(ctxtrim string) string {
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		"ctxtrim": map[string]any{"command": ctxtrim, "args": []string{"mcp"}},
	}}, "", "  ")
	return string(b) + "\n"
}

// writeScript writes a stub script and returns the environment naming it.
func writeScript(t *testing.T, turns []stubTurn) string {
	t.Helper()
	b, err := json.Marshal(turns)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return stubScriptEnv + "=" + p
}

// selectResult is the part of select_context's result the tests read.
type selectResult struct {
	Prompt string `json:"prompt"`
	Budget int    `json:"budget"`
	Files  []struct {
		Path string `json:"path"`
	} `json:"files"`
	Index string `json:"index"`
}

// checkSelectResult decodes a select_context result as the model received
// it (JSON) and checks it against the budget asked for: its tokens
// (o200k_base) at most budget, retry/retry.go first.
func checkSelectResult(t *testing.T, what, js string, budgetTokens int, c budget.Counter) selectResult {
	t.Helper()
	var out selectResult
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		t.Fatalf("%s: the tool output is not select_context's JSON: %v\n%.300s", what, err, js)
	}
	n := c.Count(js)
	t.Logf("%s: %d tokens, %d bytes as the model got it; budget %d; %d files, index %s", what, n, len(js), out.Budget, len(out.Files), out.Index)
	if out.Budget != budgetTokens || n > budgetTokens {
		t.Errorf("%s: budget %d, %d tokens; want the budget asked for, %d, and no more tokens", what, out.Budget, n, budgetTokens)
	}
	if len(out.Files) == 0 || out.Files[0].Path != "retry/retry.go" || !strings.Contains(out.Prompt, "func Do(attempts int") {
		t.Errorf("%s: want retry/retry.go first, with retry.Do in the prompt; got %+v", what, out.Files)
	}
	if strings.Contains(js, "tokens truncated") {
		t.Errorf("%s: the client truncated the result", what)
	}
	return out
}

// TestCodexMCP runs Codex with ctxtrim as an MCP server (config.toml's
// [mcp_servers.ctxtrim]) against the stub: the stub, playing the model,
// searches Codex's deferred tools for select_context, calls it with a
// budget, then without one; the test checks that Codex started the server
// (its tool came back from the search), called it, and sent the tool's
// output, within the budget asked for, with the next request.
func TestCodexMCP(t *testing.T) {
	ns, codex, ctxtrim, c := startClientTest(t, codexCLI)
	work := shopRepo(t, nil)
	cfg := codexDefault
	cfg.extra = codexMCPConfig(ctxtrim)
	home := codexHome(t, cfg)

	const asked = 6000
	task := "retry.Do drops the request body after the first attempt; fix it."
	args := func(b int) json.RawMessage {
		m := map[string]any{"task": task}
		if b > 0 {
			m["budget"] = b
		}
		js, _ := json.Marshal(m)
		return js
	}
	env := append(codexEnv(home), writeScript(t, []stubTurn{
		{ToolSearch: "select_context"},
		{Call: "select_context", Arguments: args(asked)},
		{Call: "select_context", Arguments: args(0)},
	}))
	runner := &clientRunner{ns: ns, work: work, env: env, window: codexWindow, logDir: t.TempDir()}
	r, recs := runner.run(t, shellQuote(codex)+" exec 'Find and fix the bug in retry.Do.' </dev/null")
	if r.code != 0 || !strings.Contains(r.stdout, "STUB-OK") {
		t.Fatalf("want codex exec to succeed: %s\nrequests: %s", r, summarize(recs))
	}
	if len(recs) != 4 {
		t.Fatalf("want 4 requests (search, two calls, answer), got %s", summarize(recs))
	}

	// Codex started the server: the search found its tool.
	body2, err := os.ReadFile(recs[1].Dump)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body2), `"tool_search_output"`) || !strings.Contains(string(body2), `"name":"mcp__ctxtrim"`) || !strings.Contains(string(body2), `"name":"select_context"`) {
		t.Fatalf("request 2 lacks the tool search's output naming mcp__ctxtrim/select_context: Codex did not list the server's tools")
	}

	// Each call's output is in the next request, within the budget asked.
	for k, want := range map[int]int{2: asked, 3: 10_000} {
		items, err := readStubInput(recs[k])
		if err != nil {
			t.Fatal(err)
		}
		callID := fmt.Sprintf("call_%d", k)
		var output string
		for _, it := range items {
			if it.Type == "function_call_output" && it.CallID == callID {
				output = it.Text()
			}
		}
		if output == "" {
			t.Fatalf("request %d carries no output of %s: Codex did not call the tool", k+1, callID)
		}
		// Codex prefixes the output with the call's wall time.
		_, js, ok := strings.Cut(output, "Output:\n")
		if !ok {
			js = output
		}
		checkSelectResult(t, fmt.Sprintf("call %d (budget %d)", k-1, want), js, want, c)
		if recs[k].Status != 200 || recs[k].Tokens > codexWindow {
			t.Errorf("request %d: status %d, %d tokens; want it accepted within the window %d", k+1, recs[k].Status, recs[k].Tokens, codexWindow)
		}
	}
}

// TestClaudeCodeMCP runs Claude Code (claude -p) with ctxtrim in the
// project's .mcp.json against the stub of the Messages API: the stub loads
// the deferred tool with ToolSearch, calls select_context with a budget,
// and the test checks the tool result in the next request.
func TestClaudeCodeMCP(t *testing.T) {
	ns, claude, ctxtrim, c := startClientTest(t, claudeCLI)
	work := shopRepo(t, map[string]string{".mcp.json": claudeMCPConfig(ctxtrim)})

	const asked = 6000
	args, _ := json.Marshal(map[string]any{"task": "retry.Do drops the request body after the first attempt; fix it.", "budget": asked})
	env := append(claudeEnv(t.TempDir(), "http://"+stubAddr, "sk-ant-stub"), writeScript(t, []stubTurn{
		{ToolSearch: "select:mcp__ctxtrim__select_context"},
		{Call: "select_context", Arguments: args},
	}))
	runner := &clientRunner{ns: ns, work: work, env: env, window: 1 << 30, logDir: t.TempDir()}
	r, recs := runner.run(t, shellQuote(claude)+" -p 'Find and fix the bug in retry.Do.' --output-format json"+
		" --allowedTools mcp__ctxtrim__select_context,ToolSearch </dev/null")
	if r.code != 0 || !strings.Contains(r.stdout, "STUB-OK") {
		t.Fatalf("want claude -p to succeed: %s\nrequests: %s", r, summarize(recs))
	}
	// The request after the call carries its tool_result.
	var result string
	for _, rec := range recs {
		body, err := os.ReadFile(rec.Dump)
		if err != nil {
			continue
		}
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &req)
		for _, m := range req.Messages {
			var blocks []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					if texts := anthropicTexts(b.Content); len(texts) > 0 && strings.Contains(texts[0], `"prompt"`) {
						result = strings.Join(texts, "")
					}
				}
			}
		}
	}
	if result == "" {
		t.Fatalf("no request carries select_context's result: Claude Code did not start or call the server\nrequests: %s", summarize(recs))
	}
	checkSelectResult(t, "claude code call", result, asked, c)
}
