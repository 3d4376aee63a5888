package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
)

var claudeSessionRE = regexp.MustCompile(`"session_id":"([0-9a-f-]{36})"`)

// TestClaudeProxySession runs a real three-turn Claude Code session
// ("claude -p", then "claude -p --continue" twice) against the Anthropic
// stub, whose 120k window the history outgrows on the second turn. Claude
// Code sends a fixed prompt of about 26k tokens (by ctxtrim's claude
// estimate, which the stub counts with) and max_tokens 32000; each turn
// pastes a log of about 50k. Straight to the stub the second turn fails
// ("prompt is too long"); through ctxtrim proxy, which reads the window
// from that error, re-fits (keeping max_tokens free) and retries, every
// turn succeeds, and Claude Code's transcript on disk keeps the whole
// history.
func TestClaudeProxySession(t *testing.T) {
	ns, claude, ctxtrim, counter := startClientTest(t, claudeCLI)
	const window, model = 120000, "claude-sonnet-4-5"
	m, err := budget.Lookup(model)
	if err != nil {
		t.Fatal(err)
	}
	logTokens := int(50000 / m.Factor) // o200k tokens of 50k estimated Claude tokens
	q := shellQuote
	dir := t.TempDir()
	in1, in2 := filepath.Join(dir, "turn1.txt"), filepath.Join(dir, "turn2.txt")
	writeFiles(t, "/", map[string]string{
		in1: "Why are requests slow in this log? Answer in one line.\n" + serverLog(counter, 1, logTokens),
		in2: "And in this one? Answer in one line.\n" + serverLog(counter, 2, logTokens),
	})

	session := func(t *testing.T, direct bool) (home string, results []result, recs [][]stubRecord, proxyLog string) {
		home = t.TempDir()
		base := "http://" + proxyAddr
		if direct {
			base = "http://" + stubAddr
		}
		runner := &clientRunner{ns: ns, work: t.TempDir(), env: claudeEnv(home, base, proxyKey), window: window, logDir: t.TempDir()}
		logPath := filepath.Join(t.TempDir(), "proxy.log")
		wrap := func(cmd string) string {
			if direct {
				return cmd
			}
			return withProxy(ctxtrim, logPath, nil, cmd)
		}
		cl := q(claude) + " -p --model " + model + " --output-format json"
		for i, cmd := range []string{cl + " <" + q(in1), cl + " --continue <" + q(in2), cl + " --continue 'Thanks. Which worker is slowest?' </dev/null"} {
			r, rs := runner.run(t, wrap(cmd))
			results, recs = append(results, r), append(recs, rs)
			if r.code != 0 || (i == 0 && !claudeSessionRE.MatchString(r.stdout)) {
				break
			}
		}
		b, _ := os.ReadFile(logPath)
		return home, results, recs, string(b)
	}

	t.Run("without the proxy", func(t *testing.T) {
		_, results, recs, _ := session(t, true)
		if results[0].code != 0 || len(results) < 2 {
			t.Fatalf("want the first turn to succeed: %s\nrequests: %s", results[0], summarize(recs[0]))
		}
		// Claude Code recovers from "prompt is too long" by compacting:
		// more requests, its context replaced by a summary.
		rs := recs[1]
		for _, r := range rs {
			t.Logf("  %d: %d tokens, %d messages, last user text %.60q", r.Status, r.Tokens, len(r.Items), r.LastUserText)
		}
		if len(rs) < 2 || rs[0].Status != 400 || len(rs[len(rs)-1].Items) >= len(rs[0].Items) {
			t.Fatalf("want the stub to refuse the second turn and Claude Code to answer it only after compacting: %s", summarize(rs))
		}
		// What TestClaudeProxyLongSession looks for to tell a compaction
		// (claudeCompactRE) is in what Claude Code sent here.
		compacted := false
		for _, r := range rs {
			body, err := os.ReadFile(r.Dump)
			if err != nil {
				t.Fatal(err)
			}
			compacted = compacted || claudeCompactRE.Match(body)
		}
		if !compacted {
			t.Errorf("no request of the compacting turn matches claudeCompactRE: the long session could not see a compaction")
		}
	})

	t.Run("through the proxy", func(t *testing.T) {
		home, results, recs, plog := session(t, false)
		t.Logf("proxy log:\n%s", plog)
		if len(results) != 3 {
			t.Fatalf("want three turns, got %d: %s\nrequests: %s", len(results), results[len(results)-1], summarize(recs[len(recs)-1]))
		}
		for i, r := range results {
			if r.code != 0 || !strings.Contains(r.stdout, "STUB-OK") {
				t.Fatalf("turn %d failed: %s\nrequests: %s", i+1, r, summarize(recs[i]))
			}
			// One request from Claude Code: at most the refused attempt and
			// the proxy's re-fitted retry of it, with the same messages.
			rs := recs[i]
			if last := rs[len(rs)-1]; last.Status != 200 || len(rs) > 2 || len(last.Items) != len(rs[0].Items) {
				t.Errorf("turn %d: want one request of Claude Code's, answered whole (no compaction): %s", i+1, summarize(rs))
			}
		}
		if !strings.Contains(plog, "overflow (window 120000)") || !strings.Contains(plog, "model="+model) {
			t.Errorf("the proxy log does not show the re-fit to the stated window")
		}
		for _, secret := range []string{proxyKey, "worker-1 request", "Why are requests slow"} {
			if strings.Contains(plog, secret) {
				t.Errorf("the proxy log carries %q (content or a credential)", secret)
			}
		}
		// Claude Code's transcript keeps the whole history, unpruned.
		tr := claudeTranscript(t, home, results[0].stdout)
		if strings.Contains(tr, "[ctxtrim") || !strings.Contains(tr, "END OF LOG 1") || !strings.Contains(tr, "END OF LOG 2") {
			t.Errorf("the transcript is not Claude Code's whole history: it must hold both logs and no ctxtrim placeholder")
		}
	})
}

// claudeTranscript returns the transcript Claude Code keeps under home for
// the session whose first turn printed stdout (claude -p --output-format
// json).
func claudeTranscript(t *testing.T, home, stdout string) string {
	t.Helper()
	m := claudeSessionRE.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no session id in the first turn's output: %s", stdout)
	}
	matches, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", m[1]+".jsonl"))
	if len(matches) != 1 {
		t.Fatalf("no transcript for session %s under %s", m[1], home)
	}
	tr, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(tr)
}
