package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCodexForCodex pipes "ctxtrim --for codex" into "codex exec -" in a
// repository with an AGENTS.md chain, against the stub with a 32k window
// and a 24k auto-compaction limit: ctxtrim reads the same CODEX_HOME and
// chain Codex does, so the request fits under both and the session resumes
// without a compaction; "-budget <window>" (the hand arithmetic left out)
// fails.
func TestCodexForCodex(t *testing.T) {
	ns, codex, ctxtrim, counter := startClientTest(t, codexCLI)
	// About 2,000 tokens of instructions, which Codex sends with the first turn.
	var agents strings.Builder
	for i := 0; counter.Count(agents.String()) < 2000; i++ {
		fmt.Fprintf(&agents, "- Rule %d: retried requests must resend the body, and every backoff is logged with its attempt number.\n", i)
	}
	work := shopRepo(t, map[string]string{"AGENTS.md": agents.String()})
	home := codexHome(t, codexDefault)
	env := codexEnv(home)
	runner := &clientRunner{ns: ns, work: work, env: env, window: codexWindow, logDir: t.TempDir()}
	q := shellQuote
	task := "retry.Do drops the request body after the first attempt; fix it."

	var session string
	t.Run("for codex fits", func(t *testing.T) {
		out := runCmd(t, time.Minute, work, env, task, ctxtrim, "--for", "codex", "-explain")
		if out.code != 0 {
			t.Fatalf("ctxtrim --for codex: %s", out)
		}
		t.Logf("%s", firstLine(out.stderr, "for codex:"))
		r, recs := runner.run(t, "echo "+q(task)+" | "+q(ctxtrim)+" --for codex | "+q(codex)+" exec -")
		if r.code != 0 || !strings.Contains(r.stdout, "STUB-OK") {
			t.Fatalf("want codex exec to succeed: %s", r)
		}
		if len(recs) != 1 || recs[0].Status != 200 || recs[0].Tokens > min(codexWindow, codexAutoCompact) {
			t.Fatalf("want one request within the window and the auto-compaction limit, got %s", summarize(recs))
		}
		t.Logf("the request: %d tokens (window %d, auto-compaction %d); items %s", recs[0].Tokens, codexWindow, codexAutoCompact, itemsText(recs[0].Items))
		if !strings.Contains(recs[0].LastUserText, "retry/retry.go") {
			t.Errorf("the prompt lacks retry/retry.go")
		}
		if m := sessionIDRE.FindStringSubmatch(r.stderr); m != nil {
			session = m[1]
		}
	})
	t.Run("resume without compaction", func(t *testing.T) {
		if session == "" {
			t.Fatal("no session: the first turn failed above")
		}
		r, recs := runner.run(t, q(codex)+" exec resume "+session+" 'Thanks. Anything else?' </dev/null")
		if r.code != 0 || len(recs) != 1 || isCompaction(recs[0]) {
			t.Errorf("want the resumed turn to be one request, no compaction: %s", summarize(recs))
		}
	})
	t.Run("budget of the window fails", func(t *testing.T) {
		r, recs := runner.run(t, "echo "+q(task)+" | "+q(ctxtrim)+fmt.Sprintf(" -budget %d | ", codexWindow)+q(codex)+" exec -")
		if r.code == 0 || len(recs) == 0 || recs[0].Status != 400 {
			t.Errorf("want -budget %d to overflow the window: %s\nrequests: %s", codexWindow, r, summarize(recs))
		}
		if !strings.Contains(r.stderr, "ran out of room") {
			t.Errorf("stderr lacks Codex's context-window error")
		}
	})
}

// firstLine returns the first line of s starting with prefix, or "".
func firstLine(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
