package cli

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/codex"
	"github.com/ctxtrim/ctxtrim/internal/txtartest"
)

// codexHome writes a CODEX_HOME with config and points the test at it.
func codexHome(t *testing.T, config string) string {
	t.Helper()
	h := t.TempDir()
	if err := os.WriteFile(filepath.Join(h, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", h)
	return h
}

// TestPlanForCodexCounter: the model Codex runs counts the prompt (its
// encoding, its family's factor), an OpenAI model the table lacks counts
// with o200k_base, and -encoding overrides both, exactly.
func TestPlanForCodexCounter(t *testing.T) {
	t.Chdir(t.TempDir())
	tests := []struct {
		name, config, encoding string
		wantEnc                string
		wantFactor             float64
	}{
		{"known, exact", "model = \"gpt-4-turbo\"\n", "", budget.Cl100kBase, 1},
		{"known, estimated", "model = \"claude-sonnet-4-5\"\n", "", budget.O200kBase, 1.35},
		{"unknown OpenAI model", "model = \"gpt-9-preview\"\nmodel_context_window = 64000\n", "", budget.O200kBase, 1},
		{"-encoding over the model's", "model = \"claude-sonnet-4-5\"\n", budget.Cl100kBase, budget.Cl100kBase, 1},
		{"-encoding, unknown model", "model = \"gpt-9-preview\"\nmodel_context_window = 64000\n", budget.Cl100kBase, budget.Cl100kBase, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			codexHome(t, tc.config)
			b := &budgetFlags{encoding: tc.encoding}
			p, err := b.planForCodex(budget.DefaultTable())
			if err != nil {
				t.Fatal(err)
			}
			if p.encName != tc.wantEnc || p.factor != tc.wantFactor {
				t.Errorf("counts with %s × %.2f, want %s × %.2f", p.encName, p.factor, tc.wantEnc, tc.wantFactor)
			}
			exact, err := budget.NewEncodingCounter(tc.wantEnc)
			if err != nil {
				t.Fatal(err)
			}
			text := "func Retry(ctx context.Context) error { return nil } // ünïcode"
			if want := int(math.Ceil(float64(exact.Count(text)) * tc.wantFactor)); p.counter.Count(text) != want {
				t.Errorf("count %d, want %d", p.counter.Count(text), want)
			}
		})
	}
}

// TestForCodex runs select and split with -for codex in a repository with
// an AGENTS.md chain: the budget is codex.Budget's for the config read from
// CODEX_HOME and the chain counted in the working directory.
func TestForCodex(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	agents := "Run go test ./... before every commit.\n"
	sub := "In svc/, keep handlers small and log every retry.\n"
	dir := txtartest.Repo(t, txtar.Parse([]byte(selectRepo+"-- AGENTS.md --\n"+agents+"-- svc/AGENTS.md --\n"+sub+"-- svc/svc.go --\npackage svc\n")))
	t.Chdir(filepath.Join(dir, "svc")) // where codex exec will run
	codexHome(t, "model = \"gpt-5.5\"\nmodel_context_window = 32000\nmodel_auto_compact_token_limit = 24000\n")
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	window, compact := 32000, 24000
	plan, err := codex.Budget(&codex.Config{Model: "gpt-5.5", ContextWindow: &window, AutoCompactLimit: &compact},
		c.Count(agents+"\n\n"+sub), 0)
	if err != nil {
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	if code := Run([]string{"--for", "codex", "-C", dir, "-explain", "retry on 503 loses the request body"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := fmt.Sprintf("for codex: budget %d = min(window 32000 × 95%% = 30400", plan.Budget)
	if !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), fmt.Sprintf("AGENTS.md %d", plan.Agents)) {
		t.Errorf("-explain lacks %q and the AGENTS.md chain (%d):\n%s", want, plan.Agents, stderr.String())
	}
	if n := c.Count(stdout.String()); n > plan.Budget || !strings.Contains(stdout.String(), "retry/retry.go") {
		t.Errorf("prompt of %d tokens (budget %d), or without retry/retry.go", n, plan.Budget)
	}

	// split: one part per codex exec, each within the same budget.
	stdout.Reset()
	stderr.Reset()
	big := strings.Repeat("Paragraph about retries and request bodies that must not be lost.\n\n", 3000)
	if code := Run([]string{"split", "--for", "codex", "-v"}, strings.NewReader(big), &stdout, &stderr); code != exitOK {
		t.Fatalf("split: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("for codex: budget %d", plan.Budget)) {
		t.Errorf("split -v lacks the plan:\n%s", stderr.String())
	}
	roomParts := strings.Split(stdout.String(), unescape(defaultDelimiter))
	for i, part := range roomParts {
		if n := c.Count(part); n > plan.Budget {
			t.Errorf("part %d: %d tokens > %d", i+1, n, plan.Budget)
		}
	}

	// -budget beside it caps the parts further.
	stdout.Reset()
	stderr.Reset()
	if code := Run([]string{"split", "--for", "codex", "-budget", "3000"}, strings.NewReader(big), &stdout, &stderr); code != exitOK {
		t.Fatalf("split -budget 3000: exit %d: %s", code, stderr.String())
	}
	parts := strings.Split(stdout.String(), unescape(defaultDelimiter))
	for i, part := range parts {
		if n := c.Count(part); n > 3000 {
			t.Errorf("split -budget 3000: part %d: %d tokens", i+1, n)
		}
	}
	if len(parts) <= len(roomParts) {
		t.Errorf("split -budget 3000: %d parts, not more than the %d within what Codex leaves (%d)", len(parts), len(roomParts), plan.Budget)
	}
}

func TestForCodexErrors(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := txtartest.Repo(t, txtar.Parse([]byte(selectRepo)))
	t.Chdir(dir)
	for _, tc := range []struct {
		name, config string
		args         []string
		code         int
		stderr       string
	}{
		{"with -window", "", []string{"--for", "codex", "-window", "100000", "retry"}, exitUsage, "-window contradicts it"},
		{"-budget over the room", "model = \"gpt-5.5\"\nmodel_context_window = 16000\n", []string{"--for", "codex", "-budget", "900000", "-explain", "retry"}, exitOK, "for codex: budget "},
		{"unknown client", "", []string{"--for", "claude", "retry"}, exitUsage, `unknown -for "claude" (known: codex)`},
		{"no room", "model = \"gpt-5.5\"\nmodel_context_window = 8000\n", []string{"--for", "codex", "retry"}, exitNoFit, "no room for a prompt: budget -"},
		{"malformed config", "model = = 1\n", []string{"--for", "codex", "retry"}, exitUsage, "config.toml:1:"},
		{"unknown model, no window", "model = \"my-model\"\n", []string{"--for", "codex", "retry"}, exitUsage, "set model_context_window in"},
		{"split with -window", "", []string{"split", "--for", "codex", "-window", "9000"}, exitUsage, "-window contradicts it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			codexHome(t, tc.config)
			var stdout, stderr bytes.Buffer
			code := Run(tc.args, strings.NewReader("text"), &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, tc.code, stderr.String(), tc.stderr)
			}
		})
	}
}

// TestForCodexSaysWhichConfig: -for codex prints one line naming the Codex
// config it read, or saying that none was and why, with the model and
// where it came from. Before, CODEX_HOME=/nonexistent silently gave
// Codex's defaults, and the default model, which ctxtrim models does not
// list, was named nowhere.
func TestForCodexSaysWhichConfig(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := txtartest.Repo(t, txtar.Parse([]byte(selectRepo)))
	t.Chdir(dir)
	read := codexHome(t, "model = \"gpt-5.5\"\n")
	missing := filepath.Join(t.TempDir(), "nonexistent")
	for _, tc := range []struct {
		name, home string
		args       []string
		want       string
	}{
		{"read", read, nil, "ctxtrim: for codex: read " + filepath.Join(read, "config.toml") + "; model gpt-5.5 (config.toml)\n"},
		{"-model", read, []string{"-model", "gpt-6.1-sol"}, "ctxtrim: for codex: read " + filepath.Join(read, "config.toml") +
			"; model gpt-6.1-sol (-model)\n"},
		{"CODEX_HOME does not exist", missing, nil, "ctxtrim: for codex: no config read: CODEX_HOME " + missing +
			" does not exist (codex exec refuses to start without it); model " + codex.DefaultModel + " (Codex " + codex.Version +
			"'s default)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CODEX_HOME", tc.home)
			for _, cmd := range [][]string{{"select"}, {"split"}} {
				var stdout, stderr bytes.Buffer
				args := append(append(append(cmd, "--for", "codex"), tc.args...), "retry")
				if cmd[0] == "split" {
					args = args[:len(args)-1] // the input comes from stdin
				}
				if code := Run(args, strings.NewReader("retry the request"), &stdout, &stderr); code != exitOK {
					t.Fatalf("%s: exit %d: %s", cmd[0], code, stderr.String())
				}
				var got []string
				for _, l := range strings.SplitAfter(stderr.String(), "\n") {
					if strings.HasPrefix(l, "ctxtrim: for codex:") {
						got = append(got, l)
					}
				}
				if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
					t.Errorf("%s: stderr lines about the Codex config (-want +got):\n%s", cmd[0], diff)
				}
			}
		})
	}
}
