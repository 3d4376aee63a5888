package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
)

// codexVersion pins the Codex CLI the tests run (npm @openai/codex).
const codexVersion = "0.171.0"

var (
	codexOnce sync.Once
	codexPath string
	codexSkip string
)

// needCodex installs @openai/codex@codexVersion with npm into the run's
// scratch directory (npm's download cache is kept across runs in the
// system temp directory) and returns the codex executable; it skips when npm
// is missing or the install fails.
func needCodex(t *testing.T) string {
	t.Helper()
	codexOnce.Do(func() {
		codexPath, codexSkip = npmInstall(t, "@openai/codex@"+codexVersion, "codex")
	})
	if codexSkip != "" {
		t.Skip(codexSkip)
	}
	return codexPath
}

// npmInstall installs pkg (name@version) with npm into a directory of the
// run's scratch directory of its own and returns the path of its
// executable bin, or why it cannot (npm missing, the install failing).
func npmInstall(t *testing.T, pkg, bin string) (path, skip string) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		return "", "npm is not installed: cannot install " + pkg
	}
	prefix := filepath.Join(scratch, "npm-"+strings.NewReplacer("@", "", "/", "-").Replace(pkg))
	cache := filepath.Join(os.TempDir(), "ctxtrim-e2e-npm-cache")
	r := runCmd(t, 10*time.Minute, "", nil, "", "npm", "install", "--no-audit", "--no-fund", "--no-save",
		"--prefix", prefix, "--cache", cache, pkg)
	if r.code != 0 {
		return "", fmt.Sprintf("npm install %s failed: %s", pkg, r)
	}
	t.Logf("npm install %s: %v", pkg, r.elapsed.Round(time.Second))
	return filepath.Join(prefix, "node_modules", ".bin", bin), ""
}

// codexHome writes a private CODEX_HOME whose only provider is the stub.
func codexHome(t *testing.T, model string, window, autoCompact int) string {
	t.Helper()
	home := t.TempDir()
	writeCodexConfig(t, home, model, window, autoCompact)
	return home
}

// writeCodexConfig writes home/config.toml: the stub as the only provider,
// model with the given context window and auto-compaction limit.
func writeCodexConfig(t *testing.T, home, model string, window, autoCompact int) {
	t.Helper()
	cfg := fmt.Sprintf(`model = %q
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
`, model, window, autoCompact, stubAddr)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

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

// writeBigRepo fills dir with a Go project of about files×3k tokens, one file
// of which (retry/retry.go) is what the task is about.
func writeBigRepo(t *testing.T, dir string, files int) {
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
	for f := 0; f < files; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg%d\n\n", f)
		for i := 0; i < 120; i++ {
			w1, w2, w3 := words[(f+i)%10], words[(f*7+i*3)%10], words[(i*i+f)%10]
			fmt.Fprintf(&b, "// %s%d%d converts a %s into a %s for the %s report.\nfunc %s%d%d(x int) int { return x*%d + %d }\n\n",
				strings.ToUpper(w1[:1])+w1[1:], f, i, w2, w3, w1, strings.ToUpper(w1[:1])+w1[1:], f, i, i+1, f)
		}
		m[fmt.Sprintf("pkg%d/pkg%d.go", f, f)] = b.String()
	}
	writeFiles(t, dir, m)
}

// codexRunner runs shell scripts (Codex commands) in one work directory
// with one CODEX_HOME, inside the namespace, against a stub of a given
// window; each run gets a fresh stub log and keeps the request bodies.
type codexRunner struct {
	ns     *netns
	work   string
	env    []string // codexEnv(home)
	window int      // the stub's context window
	logDir string
	n      int
}

// run runs script and returns its result with the stub's records of the
// requests it made (readStubInput reads their bodies).
func (c *codexRunner) run(t *testing.T, script string) (result, []stubRecord) {
	t.Helper()
	c.n++
	logPath := filepath.Join(c.logDir, fmt.Sprintf("stub%d.jsonl", c.n))
	dump := filepath.Join(c.logDir, fmt.Sprintf("stub%d.d", c.n))
	if err := os.MkdirAll(dump, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(append([]string{}, c.env...), stubDumpEnv+"="+dump)
	r := c.ns.run(t, 3*time.Minute, c.work, env, c.window, logPath, script)
	recs, err := readStubLog(logPath)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	t.Logf("%s: exit %d in %v; requests: %s", script[:min(len(script), 60)], r.code, r.elapsed.Round(time.Millisecond), summarize(recs))
	return r, recs
}

var sessionIDRE = regexp.MustCompile(`session id: ([0-9a-f-]{36})`)

// TestCodexPipe runs "echo task | ctxtrim | codex exec -" against a stub
// model with a 32k window, inside a network namespace with loopback only.
func TestCodexPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test; skipped with -short")
	}
	t.Parallel()
	ns := needNetns(t)
	codex := needCodex(t)
	ctxtrim := ctxtrimBinary(t)
	counter, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"select"} {
		if r := runCmd(t, time.Minute, "", nil, "", ctxtrim, c, "-h"); r.code != 0 {
			t.Skipf("ctxtrim %s has not landed: %s", c, r)
		}
	}

	home := codexHome(t, codexModel, codexWindow, codexAutoCompact)
	env := codexEnv(home)
	work, git := gitRepo(t)
	writeBigRepo(t, work, 30)
	git("add", ".")
	git("commit", "-q", "-m", "shop")
	codexRun := (&codexRunner{ns: ns, work: work, env: env, window: codexWindow, logDir: t.TempDir()}).run
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
			t.Skip("no session from the trimmed run to compare with")
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
		if r := runCmd(t, time.Minute, "", nil, "", ctxtrim, "history", "-h"); r.code != 0 {
			t.Skipf("ctxtrim history has not landed: %s", r)
		}
		logText := func(seed, tokens int) string {
			var b strings.Builder
			for i := 0; counter.Count(b.String()) < tokens; i++ {
				for k := 0; k < 50; k++ {
					fmt.Fprintf(&b, "2026-11-29T17:%02d:%02d.%03dZ worker-%d request id=%d status=%d latency=%dms\n",
						(i+k)%60, (seed*7+k)%60, (i*k)%1000, seed, i*50+k, 200+(i+k)%5, (i*31+k*7)%900)
				}
			}
			return b.String()
		}
		turnTokens := (codexWindow - fixed) * 55 / 100 // one turn fits, two do not
		in1 := filepath.Join(t.TempDir(), "turn1.txt")
		in2 := filepath.Join(t.TempDir(), "turn2.txt")
		writeFiles(t, "/", map[string]string{
			in1: "Why are requests slow in this log?\n" + logText(1, turnTokens),
			in2: "And in this one?\n" + logText(2, turnTokens),
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
	models := os.Getenv("CTXTRIM_E2E_CODEX_MODELS")
	if models == "" {
		t.Skip("set CTXTRIM_E2E_CODEX_MODELS to measure Codex's fixed prompt per model")
	}
	ns := needNetns(t)
	codex := needCodex(t)
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
			work, git := gitRepo(t)
			writeFiles(t, work, files)
			git("add", ".")
			git("commit", "-q", "-m", "init")
			home := codexHome(t, model, codexWindow, codexAutoCompact)
			f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(extra)
			f.Close()
			logPath := filepath.Join(t.TempDir(), "stub.jsonl")
			r := ns.run(t, 3*time.Minute, work, codexEnv(home), codexWindow, logPath, shellQuote(codex)+" exec 'Say OK.' </dev/null")
			recs, err := readStubLog(logPath)
			if err != nil || r.code != 0 || len(recs) != 1 {
				t.Fatalf("%s: %v %s", model, err, r)
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
