package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCodexResumeStaleUsage shows that a session pruned below Codex's
// auto-compaction limit resumes without a compaction. Codex restores its
// token usage on resume from the rollout's last token_count record
// (last_token_usage.total_tokens) and compacts before the next turn when
// that is over model_auto_compact_token_limit; ctxtrim history lowers that
// record by what it pruned. The test:
//
//  1. makes a real session whose last request was over the limit (a pasted
//     log, then a short follow-up), with auto-compaction out of the way;
//  2. prunes its rollout with ctxtrim history far below the limit;
//  3. the pruned rollout as ctxtrim wrote it must resume with one request,
//     the answer, within the limit, and no compaction;
//  4. control: the pruned rollout with its last token_count record put
//     back as Codex wrote it must make Codex compact first (a request
//     without tools, whose input ends with Codex's compaction prompt),
//     or the case tests nothing.
func TestCodexResumeStaleUsage(t *testing.T) {
	ns, codex, ctxtrim, counter := startClientTest(t, codexCLI)
	q := shellQuote

	// 1. A session whose last request is between the auto-compaction limit
	// and the window; Codex may not compact while it is made.
	cfg := codexDefault
	cfg.autoCompact = 1 << 20
	home := codexHome(t, cfg)
	runner := &clientRunner{ns: ns, work: t.TempDir(), env: codexEnv(home), window: codexWindow, logDir: t.TempDir()}
	var log strings.Builder
	for i := 0; counter.Count(log.String()) < 17000; i++ {
		for k := 0; k < 50; k++ {
			fmt.Fprintf(&log, "2026-11-29T18:%02d:%02d.%03dZ worker-%d request id=%d status=%d latency=%dms\n",
				(i+k)%60, (i*7+k)%60, (i*k)%1000, k%9, i*50+k, 200+(i+k)%5, (i*31+k*7)%900)
		}
	}
	in := filepath.Join(t.TempDir(), "turn1.txt")
	writeFiles(t, "/", map[string]string{in: "Why are requests slow in this log?\n" + log.String()})
	r, recs := runner.run(t, q(codex)+" exec --skip-git-repo-check - <"+q(in))
	m := sessionIDRE.FindStringSubmatch(r.stderr)
	if r.code != 0 || m == nil || len(recs) != 1 || recs[0].Status != 200 {
		t.Fatalf("want the first turn to succeed with one request: %s\nrequests: %s", r, summarize(recs))
	}
	session := m[1]
	r, recs = runner.run(t, q(codex)+" exec --skip-git-repo-check resume "+session+" 'Thanks. In one line: which worker is slowest?' </dev/null")
	if r.code != 0 || len(recs) != 1 || recs[0].Status != 200 {
		t.Fatalf("want the follow-up to succeed with one request: %s\nrequests: %s", r, summarize(recs))
	}
	if n := recs[0].Tokens; n <= codexAutoCompact || n >= codexWindow {
		t.Fatalf("the follow-up request has %d tokens, want between the auto-compaction limit %d and the window %d", n, codexAutoCompact, codexWindow)
	}
	rolloutPath := findRollout(t, home, session)
	original, err := os.ReadFile(rolloutPath)
	if err != nil {
		t.Fatal(err)
	}
	origUsage, origLine := lastUsage(t, original)
	if origUsage <= codexAutoCompact {
		t.Fatalf("the rollout's last token_count says %d tokens, want more than the auto-compaction limit %d", origUsage, codexAutoCompact)
	}

	// 2. Prune the history far below the limit.
	const histBudget = 6000
	pr := runCmd(t, time.Minute, "", nil, string(original), ctxtrim, "history", "-format", "codex",
		"-budget", strconv.Itoa(histBudget), "-keep-last", "1", "-explain")
	if pr.code != 3 {
		t.Fatalf("ctxtrim history: want exit 3 (pruned): %s", pr)
	}
	t.Logf("ctxtrim history -budget %d -explain:\n%s", histBudget, strings.TrimSpace(pr.stderr))
	pruned := []byte(pr.stdout)
	newUsage, newLine := lastUsage(t, pruned)
	t.Logf("last token_count: last_token_usage.total_tokens %d → %d (token_usage_record lines, passed through: %d)",
		origUsage, newUsage, bytes.Count(pruned, []byte(`"type":"token_usage_record"`)))
	if newUsage >= codexAutoCompact {
		t.Errorf("the pruned rollout still says %d tokens, over the auto-compaction limit %d", newUsage, codexAutoCompact)
	}

	// Codex now has its real auto-compaction limit.
	writeCodexConfig(t, home, codexDefault)
	resume := q(codex) + " exec --skip-git-repo-check resume " + session + " 'What next?' </dev/null"

	// 3. The rollout as ctxtrim wrote it: no compaction, one answer.
	if err := os.WriteFile(rolloutPath, pruned, 0o644); err != nil {
		t.Fatal(err)
	}
	r, recs = runner.run(t, resume)
	if r.code != 0 || !strings.Contains(r.stdout, "STUB-OK") {
		t.Fatalf("want codex exec resume to succeed on the pruned rollout: %s\nrequests: %s", r, summarize(recs))
	}
	for _, rec := range recs {
		if isCompaction(rec) {
			t.Errorf("Codex compacted the pruned session (token count %d in the rollout): %s", newUsage, summarize(recs))
		}
	}
	if len(recs) != 1 || recs[0].Status != 200 || recs[0].Tokens > codexAutoCompact {
		t.Errorf("want one accepted request within the auto-compaction limit %d, got %s", codexAutoCompact, summarize(recs))
	} else {
		t.Logf("pruned: one request of %d tokens; the rollout's rewritten count was %d", recs[0].Tokens, newUsage)
	}

	// 4. Control: the same rollout with the stale record put back makes
	// Codex compact first, so the case tests what it claims.
	stale := bytes.Replace(pruned, newLine, origLine, 1)
	if bytes.Equal(stale, pruned) {
		t.Fatalf("ctxtrim left the last token_count record as it was (step 3 ran the control)")
	}
	if err := os.WriteFile(rolloutPath, stale, 0o644); err != nil {
		t.Fatal(err)
	}
	r, recs = runner.run(t, resume)
	if r.code != 0 || len(recs) < 2 || !isCompaction(recs[0]) {
		t.Fatalf("control: with the stale token count, want Codex to compact before answering: %s\nrequests: %s", r, summarize(recs))
	}
	t.Logf("control (stale count %d): %d requests, the first a compaction of %d tokens", origUsage, len(recs), recs[0].Tokens)
}

// lastUsage returns last_token_usage.total_tokens of the last token_count
// record with usage info in a rollout, and that record's line.
func lastUsage(t *testing.T, rollout []byte) (int, []byte) {
	t.Helper()
	var (
		total int
		line  []byte
	)
	for _, l := range bytes.Split(rollout, []byte("\n")) {
		var rec struct {
			Type    string `json:"type"`
			Payload struct {
				Type string `json:"type"`
				Info *struct {
					LastTokenUsage struct {
						TotalTokens int `json:"total_tokens"`
					} `json:"last_token_usage"`
				} `json:"info"`
			} `json:"payload"`
		}
		if len(bytes.TrimSpace(l)) == 0 || json.Unmarshal(l, &rec) != nil {
			continue
		}
		if rec.Type == "event_msg" && rec.Payload.Type == "token_count" && rec.Payload.Info != nil {
			total, line = rec.Payload.Info.LastTokenUsage.TotalTokens, l
		}
	}
	if line == nil {
		t.Fatalf("no token_count record with usage info in the rollout")
	}
	return total, line
}

// isCompaction reports whether a request is Codex's local compaction: no
// tools, and its last input item is Codex's compaction prompt (which asks
// for a "CONTEXT CHECKPOINT" handoff summary; the stub answers it with a
// summary).
func isCompaction(rec stubRecord) bool {
	return rec.Tools == 0 && strings.Contains(rec.LastUserText, "CONTEXT CHECKPOINT")
}
