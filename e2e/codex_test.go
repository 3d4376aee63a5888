package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
)

// codexConfig is what a CODEX_HOME's config.toml says: the model, with
// the context window and auto-compaction limit Codex is told, served by one
// provider.
type codexConfig struct {
	model               string
	window, autoCompact int
	provider            string // the provider's address; "" is the stub's, stubAddr
	extra               string // TOML appended (an [mcp_servers] table)
}

// codexDefault is the Codex scenario's configuration (codexWindow, …).
var codexDefault = codexConfig{model: codexModel, window: codexWindow, autoCompact: codexAutoCompact}

// codexHome writes a private CODEX_HOME configured as cfg says.
func codexHome(t *testing.T, cfg codexConfig) string {
	t.Helper()
	home := t.TempDir()
	writeCodexConfig(t, home, cfg)
	return home
}

// writeCodexConfig writes home/config.toml: cfg's provider (the stub by
// default) as the only one, its model with cfg's window and
// auto-compaction limit, then cfg.extra.
func writeCodexConfig(t *testing.T, home string, cfg codexConfig) {
	t.Helper()
	provider := cfg.provider
	if provider == "" {
		provider = stubAddr
	}
	toml := fmt.Sprintf(`model = %q
model_provider = "stub"
model_context_window = %d
model_auto_compact_token_limit = %d
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.stub]
name = "ctxtrim e2e stub"
base_url = "http://%s/v1"
env_key = "CTXTRIM_E2E_STUB_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
apps = false
`, cfg.model, cfg.window, cfg.autoCompact, provider) + cfg.extra
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// codexEnv is Codex's environment for the CODEX_HOME home.
func codexEnv(home string) []string {
	return []string{"CODEX_HOME=" + home, "CTXTRIM_E2E_STUB_KEY=stub", "RUST_LOG=error", "NO_COLOR=1"}
}

// The Codex scenario's numbers. The window is small so that the test's
// repository overflows it cheaply; the ratios are what a 272k-token model
// with a 244k auto-compaction limit sees at scale.
const (
	codexWindow      = 32000 // the stub's (and Codex's configured) context window
	codexAutoCompact = 24000 // model_auto_compact_token_limit
	codexReserve     = 2000  // kept for the model's answer
	codexMargin      = 500   // slack for what varies between runs (paths, dates)
	codexModel       = "gpt-5.5"
)

// codexBudget is the -budget to give ctxtrim for a prompt that Codex wraps in
// fixed tokens of its own: the request must stay below both the window (less
// the answer) and the auto-compaction limit, or the next turn starts by
// compacting.
func codexBudget(fixed int) int {
	return min(codexWindow-codexReserve, codexAutoCompact) - fixed - codexMargin
}

// shopFiles is how many files of about 3k tokens the shop has besides
// retry/retry.go.
const shopFiles = 30

// shopRepo commits a Go project of about shopFiles×3k tokens, one file of
// which (retry/retry.go) is what the task is about, and the files of extra,
// to a new git repository, and returns its directory.
func shopRepo(t *testing.T, extra map[string]string) string {
	t.Helper()
	// The words overlap the task's, so that every file is somewhat relevant
	// and the selection fills whatever budget it gets.
	words := []string{"retry", "request", "body", "attempt", "drops", "backoff", "client", "timeout", "payload", "resend"}
	m := map[string]string{
		"go.mod": "module example.com/shop\n\ngo 1.22\n",
		"retry/retry.go": `package retry

// Do calls fn until it succeeds or attempts run out. BUG: it drops the
// request body after the first attempt, so retried POSTs are sent empty.
func Do(attempts int, fn func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); err == nil {
			return nil
		}
	}
	return err
}
`,
	}
	for f := 0; f < shopFiles; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg%d\n\n", f)
		for i := 0; i < 120; i++ {
			w1, w2, w3 := words[(f+i)%10], words[(f*7+i*3)%10], words[(i*i+f)%10]
			fmt.Fprintf(&b, "// %s%d%d converts a %s into a %s for the %s report.\nfunc %s%d%d(x int) int { return x*%d + %d }\n\n",
				strings.ToUpper(w1[:1])+w1[1:], f, i, w2, w3, w1, strings.ToUpper(w1[:1])+w1[1:], f, i, i+1, f)
		}
		m[fmt.Sprintf("pkg%d/pkg%d.go", f, f)] = b.String()
	}
	for p, c := range extra {
		m[p] = c
	}
	return committedRepo(t, m)
}

var sessionIDRE = regexp.MustCompile(`session id: ([0-9a-f-]{36})`)

// TestCodexPipe runs "echo task | ctxtrim | codex exec -" against a stub
// model with a 32k window, inside a network namespace with loopback only.
func TestCodexPipe(t *testing.T) {
	ns, codex, ctxtrim, counter := startClientTest(t, codexCLI)
	home := codexHome(t, codexDefault)
	env := codexEnv(home)
	work := shopRepo(t, nil)
	codexRun := (&clientRunner{ns: ns, work: work, env: env, window: codexWindow, logDir: t.TempDir()}).run
	q := shellQuote
	task := "retry.Do drops the request body after the first attempt; fix it."

	// 1. Codex's fixed prompt: everything it sends besides the user's text.
	var fixed, toolsTokens int
	t.Run("measure fixed prompt", func(t *testing.T) {
		r, recs := codexRun(t, q(codex)+" exec 'Say OK.' </dev/null")
		if r.code != 0 || len(recs) != 1 || recs[0].Status != 200 {
			t.Fatalf("want one successful request: %s", r)
		}
		rec := recs[0]
		last := rec.Items[len(rec.Items)-1]
		fixed = rec.Tokens - last.Tokens
		toolsTokens = rec.ToolsTokens
		t.Logf("Codex %s fixed prompt (model %s): %d tokens = tools %d (%d tools as JSON) + instructions %d + items %s; body %d bytes",
			codexVersion, codexModel, fixed, rec.ToolsTokens, rec.Tools, rec.InstructionsTokens, itemsText(rec.Items[:len(rec.Items)-1]), rec.BodyBytes)
		if fixed < 2000 || fixed > 30000 {
			t.Fatalf("fixed prompt of %d tokens is implausible", fixed)
		}
	})
	if fixed == 0 {
		t.FailNow()
	}
	budgetTokens := codexBudget(fixed)
	t.Logf("ctxtrim budget = min(window %d - reserve %d, auto-compact %d) - fixed %d - margin %d = %d",
		codexWindow, codexReserve, codexAutoCompact, fixed, codexMargin, budgetTokens)

	// 2. The whole repository pasted into the prompt overflows the window.
	t.Run("untrimmed fails", func(t *testing.T) {
		r, recs := codexRun(t, "{ echo "+q(task)+"; git ls-files | xargs cat; } | "+q(codex)+" exec -")
		if r.code == 0 {
			t.Fatalf("want Codex to fail: %s", r)
		}
		if !strings.Contains(r.stderr, "ran out of room in the model's context window") {
			t.Errorf("stderr lacks Codex's context-window error: %s", r)
		}
		if len(recs) == 0 || recs[0].Status != 400 || recs[0].Tokens <= codexWindow {
			t.Errorf("want the stub to reject an over-window request, got %s", summarize(recs))
		}
	})

	// 3. A budget that forgets Codex's fixed prompt is not enough.
	t.Run("budget without the fixed prompt", func(t *testing.T) {
		naive := codexWindow - codexReserve
		out := runCmd(t, time.Minute, work, nil, task, ctxtrim, "-budget", fmt.Sprint(naive))
		if out.code != 0 {
			t.Fatalf("ctxtrim: %s", out)
		}
		got := counter.Count(out.stdout)
		r, recs := codexRun(t, "echo "+q(task)+" | "+q(ctxtrim)+" -budget "+fmt.Sprint(naive)+" | "+q(codex)+" exec -")
		t.Logf("naive budget %d: ctxtrim wrote %d tokens; Codex exit %d", naive, got, r.code)
		if got+fixed > codexWindow && (r.code == 0 || len(recs) == 0 || recs[0].Status != 400) {
			t.Errorf("%d + %d tokens > window %d, yet Codex did not fail: %s", got, fixed, codexWindow, r)
		}
	})

	// 4. Through ctxtrim with the right budget, the request fits.
	var fitSession string
	t.Run("trimmed succeeds", func(t *testing.T) {
		r, recs := codexRun(t, "echo "+q(task)+" | "+q(ctxtrim)+" -budget "+fmt.Sprint(budgetTokens)+" | "+q(codex)+" exec -")
		if r.code != 0 || !strings.Contains(r.stdout, "STUB-OK") {
			t.Fatalf("want Codex to succeed: %s", r)
		}
		if len(recs) != 1 || recs[0].Tokens > min(codexWindow, codexAutoCompact) {
			t.Errorf("want one request within the window and the auto-compaction limit, got %s", summarize(recs))
		}
		if len(recs) > 0 && !strings.Contains(recs[0].LastUserText, "retry/retry.go") {
			t.Errorf("the prompt lacks retry/retry.go, the file the task is about")
		}
		if m := sessionIDRE.FindStringSubmatch(r.stderr); m != nil {
			fitSession = m[1]
		}
	})

	// 4b. Why the auto-compaction limit is in the budget: a first turn that
	// fits the window but passes model_auto_compact_token_limit makes Codex
	// compact the conversation (one more model request, and the context
	// replaced by a summary) before it answers the next turn.
	t.Run("auto-compaction limit", func(t *testing.T) {
		over := codexWindow - codexReserve - fixed - codexMargin // ignores the limit
		r, recs := codexRun(t, "echo "+q(task)+" | "+q(ctxtrim)+" -budget "+fmt.Sprint(over)+" | "+q(codex)+" exec -")
		m := sessionIDRE.FindStringSubmatch(r.stderr)
		if r.code != 0 || m == nil || len(recs) != 1 || recs[0].Tokens <= codexAutoCompact {
			t.Fatalf("want one request between the auto-compaction limit and the window: %s\nrequests: %s", r, summarize(recs))
		}
		followUp := " 'Thanks. Anything else?' </dev/null"
		r, recs = codexRun(t, q(codex)+" exec resume "+m[1]+followUp)
		t.Logf("resume after a turn over the limit: exit %d, requests %s; first: tools %d, items %s",
			r.code, summarize(recs), recs[0].Tools, itemsText(recs[0].Items))
		if r.code != 0 || len(recs) != 2 || recs[0].Tools != 0 {
			t.Errorf("want a compaction request (no tools) before the answer")
		}
		if fitSession == "" {
			t.Fatal("no session from the trimmed run to compare with: it failed above")
		}
		r, recs = codexRun(t, q(codex)+" exec resume "+fitSession+followUp)
		if r.code != 0 || len(recs) != 1 {
			t.Errorf("resume after a turn within the limit: want one request, got %s", summarize(recs))
		}
	})

	// 5. A session that grew: a first turn with a pasted log and a short
	// follow-up; a third turn with another log overflows the window when the
	// session is resumed. "ctxtrim
	// history" prunes the rollout so that "codex exec resume" works again.
	t.Run("history keeps the session resumable", func(t *testing.T) {
		turnTokens := (codexWindow - fixed) * 55 / 100 // one turn fits, two do not
		in1 := filepath.Join(t.TempDir(), "turn1.txt")
		in2 := filepath.Join(t.TempDir(), "turn2.txt")
		writeFiles(t, "/", map[string]string{
			in1: "Why are requests slow in this log?\n" + serverLog(counter, 1, turnTokens),
			in2: "And in this one?\n" + serverLog(counter, 2, turnTokens),
		})
		r, recs := codexRun(t, q(codex)+" exec - <"+q(in1))
		m := sessionIDRE.FindStringSubmatch(r.stderr)
		if r.code != 0 || m == nil || len(recs) != 1 || recs[0].Status != 200 {
			t.Fatalf("want the first turn to succeed: %s", r)
		}
		session := m[1]
		r, recs = codexRun(t, q(codex)+" exec resume "+session+" 'Thanks. In one line: which worker is slowest?' </dev/null")
		if r.code != 0 || len(recs) != 1 || recs[0].Status != 200 {
			t.Fatalf("want a small second turn to succeed: %s", r)
		}
		rollout := findRollout(t, home, session)
		saved, err := os.ReadFile(rollout)
		if err != nil {
			t.Fatal(err)
		}
		resume := q(codex) + " exec resume " + session + " - <" + q(in2)
		r, recs = codexRun(t, resume)
		if r.code == 0 || len(recs) == 0 || recs[len(recs)-1].Status != 400 {
			t.Fatalf("want the resumed third turn to overflow: %s\nrequests: %s", r, summarize(recs))
		}
		if !strings.Contains(r.stderr, "ran out of room") {
			t.Errorf("stderr lacks Codex's context-window error")
		}

		// Prune the rollout as it was before the failed attempt, to leave
		// room for the second turn: the window less the answer, the margin,
		// the tool definitions (sent with every request, not in the
		// rollout) and the new turn.
		turn2 := recs[len(recs)-1].Items[len(recs[len(recs)-1].Items)-1].Tokens
		hist := codexWindow - codexReserve - codexMargin - toolsTokens - turn2
		pr := runCmd(t, time.Minute, "", nil, string(saved), ctxtrim, "history", "-format", "codex", "-budget", fmt.Sprint(hist), "-keep-last", "1", "-explain")
		if pr.code != 0 && pr.code != 3 {
			t.Fatalf("ctxtrim history: %s", pr)
		}
		t.Logf("rollout %d → %d bytes with -budget %d; ctxtrim history -explain:\n%s", len(saved), len(pr.stdout), hist, strings.TrimSpace(pr.stderr))
		if err := os.WriteFile(rollout, []byte(pr.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		r, recs = codexRun(t, resume)
		if r.code != 0 || !strings.Contains(r.stdout, "STUB-OK") {
			t.Fatalf("want the resumed session to work after pruning: %s\nrequests: %s", r, summarize(recs))
		}
		if last := recs[len(recs)-1]; last.Status != 200 || last.Tokens > codexWindow || len(recs) != 1 {
			t.Errorf("want one resumed request within the window, got %s", summarize(recs))
		}
	})
}

// findRollout returns the rollout file of session under home/sessions.
func findRollout(t *testing.T, home, session string) string {
	t.Helper()
	var found string
	filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), session) && strings.HasSuffix(p, ".jsonl") {
			found = p
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no rollout for session %s under %s", session, home)
	}
	return found
}

func summarize(recs []stubRecord) string {
	var parts []string
	for _, r := range recs {
		parts = append(parts, fmt.Sprintf("[%s %d: %d tokens, %d items]", r.Path, r.Status, r.Tokens, len(r.Items)))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

func itemsText(items []stubItemInfo) string {
	var parts []string
	for _, it := range items {
		head := it.Head
		if i := strings.IndexAny(head, "\n"); i >= 0 {
			head = head[:i]
		}
		parts = append(parts, fmt.Sprintf("%s/%s %d (%.30q)", it.Type, it.Role, it.Tokens, head))
	}
	return strings.Join(parts, ", ")
}

// TestCodexFixedPrompt measures Codex's fixed prompt for the models named
// in CTXTRIM_E2E_CODEX_MODELS (comma-separated), and what an AGENTS.md and
// an MCP server add to it; it is a measurement, run on demand:
//
//	CTXTRIM_E2E_CODEX_MODELS=gpt-5.5,gpt-6.1-sol go test ./e2e -run FixedPrompt -v
//
// The figures are the constants of ctxtrim --for codex (internal/codex).
func TestCodexFixedPrompt(t *testing.T) {
	needE2E(t)
	models := os.Getenv("CTXTRIM_E2E_CODEX_MODELS")
	if models == "" {
		t.Skip("set CTXTRIM_E2E_CODEX_MODELS to measure Codex's fixed prompt per model")
	}
	ns := needNetns(t)
	codex := codexCLI.need(t)
	ctxtrim := ctxtrimBinary(t)
	counter, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	const agents = "Run go test ./... before every commit, and keep functions short.\n"
	for _, model := range strings.Split(models, ",") {
		// fixed returns the tokens Codex sends besides the user's text, in a
		// repository with the given files and with the config extra.
		fixed := func(files map[string]string, extra string) (int, stubRecord) {
			cfg := codexDefault
			cfg.model, cfg.extra = model, extra
			runner := &clientRunner{ns: ns, work: committedRepo(t, files), env: codexEnv(codexHome(t, cfg)), window: codexWindow, logDir: t.TempDir()}
			r, recs := runner.run(t, shellQuote(codex)+" exec 'Say OK.' </dev/null")
			if r.code != 0 || len(recs) != 1 {
				t.Fatalf("%s: %s", model, r)
			}
			rec := recs[0]
			return rec.Tokens - rec.Items[len(rec.Items)-1].Tokens, rec
		}
		base, rec := fixed(map[string]string{"README.md": "probe\n"}, "")
		t.Logf("%s: fixed %d tokens = tools %d (%d) + instructions %d + %s",
			model, base, rec.ToolsTokens, rec.Tools, rec.InstructionsTokens, itemsText(rec.Items[:len(rec.Items)-1]))
		withAgents, _ := fixed(map[string]string{"README.md": "probe\n", "AGENTS.md": agents}, "")
		t.Logf("%s: an AGENTS.md of %d tokens adds %d: its frame is %d", model, counter.Count(agents), withAgents-base, withAgents-base-counter.Count(agents))
		withMCP, rec := fixed(map[string]string{"README.md": "probe\n"}, codexMCPConfig(ctxtrim))
		t.Logf("%s: an MCP server adds %d (%d tools)", model, withMCP-base, rec.Tools)
	}
}
