package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Texts ctxtrim history writes into a pruned conversation (history/prune.go).
var (
	noticeRE      = regexp.MustCompile(`^\[ctxtrim: (\d+) earlier turns? (?:were|was) omitted to fit the context budget\]$`)
	placeholderRE = regexp.MustCompile(`^\[ctxtrim: output of \S+ omitted \(\d+ tokens\)\]$`)
	explainRE     = regexp.MustCompile(`history: codex, \d+ items, (\d+) tokens`)
	droppedRE     = regexp.MustCompile(`history: pruned to \d+ tokens, (\d+) turns? dropped`)
)

// resumeCase is one rollout that "ctxtrim history" prunes and "codex exec
// resume" carries on.
type resumeCase struct {
	name    string
	rollout string // a Codex rollout JSONL
	budget  int    // ctxtrim history -budget
	custom  bool   // from CTXTRIM_E2E_ROLLOUT: report, do not require
	// What the case is about, checked so that it cannot silently test
	// something else:
	dropped   bool // ctxtrim drops turns (and writes the notice)
	masked    bool // masked-output placeholders reach the model
	compacted bool // the rollout has a compacted record with replacement_history
}

// TestCodexResumePruned prunes Codex 0.169 rollouts with "ctxtrim history"
// and resumes them with the real Codex CLI ("codex exec resume") against
// the stub, inside the loopback-only namespace. For each case:
//
//  1. the unpruned rollout is resumed against a stub with no practical
//     limit, which gives the request it makes (U tokens) and Codex's own
//     share of it (U minus ctxtrim's count of the history);
//  2. the stub's window is set to the budget plus Codex's share plus
//     codexMargin, which the unpruned request must exceed;
//  3. the pruned rollout replaces it and is resumed with the same prompt,
//     Codex configured with that window:
//     Codex must exit 0 after one request, accepted within the window, in
//     which every function_call has its function_call_output (as the
//     pruned rollout has it, not a stand-in Codex made up), no call that
//     ctxtrim dropped comes back, and the notice and placeholders ctxtrim
//     wrote reach the model.
//
// CTXTRIM_E2E_ROLLOUT and CTXTRIM_E2E_BUDGET add a case for any rollout
// (scripts/history-codex-resume.sh runs it; -v lists what Codex sent).
func TestCodexResumePruned(t *testing.T) {
	ns, codex, ctxtrim, _ := startClientTest(t, codexCLI)
	transcripts := filepath.Join(checkoutRoot(t), "history", "testdata", "transcripts")
	cases := []resumeCase{
		{name: "dropped turns with the notice", rollout: filepath.Join(transcripts, "codex-0.169-multiturn.jsonl"), budget: 6000, dropped: true, masked: true},
		{name: "auto-compacted then pruned", rollout: filepath.Join(transcripts, "codex-0.169-compaction.jsonl"), budget: 5813, dropped: true, compacted: true},
		{name: "masked tool outputs", rollout: filepath.Join(transcripts, "codex-0.169-multiturn.jsonl"), budget: 6900, masked: true},
	}
	if p := os.Getenv("CTXTRIM_E2E_ROLLOUT"); p != "" {
		b, err := strconv.Atoi(os.Getenv("CTXTRIM_E2E_BUDGET"))
		if err != nil {
			t.Fatalf("CTXTRIM_E2E_BUDGET: %v", err)
		}
		cases = []resumeCase{{name: "CTXTRIM_E2E_ROLLOUT", rollout: p, budget: b, custom: true}}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			original, err := os.ReadFile(tc.rollout)
			if err != nil {
				t.Fatal(err)
			}
			pr := runCmd(t, time.Minute, "", nil, string(original), ctxtrim, "history", "-format", "codex",
				"-budget", strconv.Itoa(tc.budget), "-keep-last", "1", "-explain")
			if pr.code != 3 && !(tc.custom && pr.code == 0) {
				t.Fatalf("ctxtrim history: want exit 3 (pruned): %s", pr)
			}
			t.Logf("ctxtrim history -budget %d -explain:\n%s", tc.budget, strings.TrimSpace(pr.stderr))
			before := explainRE.FindStringSubmatch(pr.stderr)
			if before == nil {
				t.Fatalf("no token count in ctxtrim's -explain report")
			}
			histTokens, _ := strconv.Atoi(before[1])
			dropped := 0
			if m := droppedRE.FindStringSubmatch(pr.stderr); m != nil {
				dropped, _ = strconv.Atoi(m[1])
			}
			pruned := pr.stdout
			outputs, compacted := rolloutOutputs(t, pruned)
			if !tc.custom && ((dropped > 0) != tc.dropped || compacted != tc.compacted) {
				t.Fatalf("the case wants dropped turns %v and a compaction %v; got %d dropped, compaction %v", tc.dropped, tc.compacted, dropped, compacted)
			}

			home := codexHome(t, codexConfig{model: codexModel, window: 1 << 20, autoCompact: 1 << 20})
			session, rolloutPath := installRollout(t, home, original)
			runner := &clientRunner{ns: ns, work: t.TempDir(), env: codexEnv(home), window: 1 << 30, logDir: t.TempDir()}
			resume := shellQuote(codex) + " exec --skip-git-repo-check resume " + session + " 'What next?' </dev/null"

			// 1. Unpruned, against an unlimited stub: the request Codex makes.
			r, recs := runner.run(t, resume)
			if r.code != 0 || len(recs) != 1 || recs[0].Status != 200 {
				t.Fatalf("want the unpruned rollout to resume with one request: %s\nrequests: %s", r, summarize(recs))
			}
			unpruned := recs[0]
			unprunedItems, err := readStubInput(unpruned)
			if err != nil {
				t.Fatal(err)
			}

			// 2. The window: the budget plus what Codex adds to the history.
			codexShare := unpruned.Tokens - histTokens
			runner.window = tc.budget + codexShare + codexMargin
			t.Logf("unpruned resume: %d tokens (ctxtrim counts the history as %d; Codex adds %d: tools %d, new prompt…); stub window = budget %d + %d + margin %d = %d",
				unpruned.Tokens, histTokens, codexShare, unpruned.ToolsTokens, tc.budget, codexShare, codexMargin, runner.window)
			if unpruned.Tokens <= runner.window && !tc.custom {
				t.Fatalf("the unpruned request (%d tokens) fits the window %d: the case tests nothing", unpruned.Tokens, runner.window)
			}

			// 3. Pruned, against the window, which Codex now knows too
			// (auto-compaction only beyond it, so that the one request
			// sent is the pruned history).
			writeCodexConfig(t, home, codexConfig{model: codexModel, window: runner.window, autoCompact: runner.window})
			if err := os.WriteFile(rolloutPath, []byte(pruned), 0o644); err != nil {
				t.Fatal(err)
			}
			r, recs = runner.run(t, resume)
			if r.code != 0 || !strings.Contains(r.stdout, "STUB-OK") {
				t.Fatalf("want codex exec resume to succeed on the pruned rollout: %s\nrequests: %s", r, summarize(recs))
			}
			if len(recs) != 1 || recs[0].Status != 200 {
				t.Fatalf("want one accepted request (no compaction, no retry), got %s", summarize(recs))
			}
			rec := recs[0]
			t.Logf("pruned resume: %d tokens of window %d; items Codex sent: %s", rec.Tokens, runner.window, itemsText(rec.Items))
			if rec.Tokens > runner.window {
				t.Errorf("request of %d tokens > window %d", rec.Tokens, runner.window)
			}
			items, err := readStubInput(rec)
			if err != nil {
				t.Fatal(err)
			}
			checkPairing(t, items, outputs)

			// Nothing ctxtrim dropped comes back.
			calls := func(items []stubInputItem) (n int) {
				for _, it := range items {
					if it.Type == "function_call" {
						n++
					}
				}
				return n
			}
			for _, it := range items {
				if it.Type == "function_call" {
					if _, ok := outputs[it.CallID]; !ok {
						t.Errorf("call %s reached the model but is not in the pruned rollout", it.CallID)
					}
				}
			}
			if n, u := calls(items), calls(unprunedItems); dropped > 0 && n >= u || dropped == 0 && n != u {
				t.Errorf("function calls sent: %d after pruning, %d before; ctxtrim dropped %d turns", n, u, dropped)
			}

			// ctxtrim's texts reach the model: the notice (with the count
			// that ctxtrim reported) and the placeholders.
			var notices, placeholders int
			for _, it := range items {
				text := it.Text()
				if m := noticeRE.FindStringSubmatch(text); m != nil {
					notices++
					if m[1] != strconv.Itoa(dropped) {
						t.Errorf("notice %q: ctxtrim reported %d turns dropped", text, dropped)
					}
				}
				if placeholderRE.MatchString(text) {
					placeholders++
				}
			}
			if want := min(dropped, 1); notices != want {
				t.Errorf("the model read %d omitted-turns notices, want %d", notices, want)
			}
			if tc.masked && placeholders == 0 {
				t.Errorf("no masked-output placeholder reached the model")
			}
			t.Logf("%d → %d tokens; %d → %d function calls; notice %d, placeholders %d",
				unpruned.Tokens, rec.Tokens, calls(unprunedItems), calls(items), notices, placeholders)
		})
	}
}

// checkPairing reports every function_call without exactly one
// function_call_output after it, every output without its call before it,
// and every output whose text is not the one the rollout holds (outputs, by
// call id): Codex stands in "aborted" for a missing output when it rebuilds
// a history, which would hide a broken pair.
func checkPairing(t *testing.T, items []stubInputItem, outputs map[string]string) {
	t.Helper()
	called := map[string]int{} // call id → outputs seen
	for i, it := range items {
		switch it.Type {
		case "function_call":
			if _, dup := called[it.CallID]; dup {
				t.Errorf("item %d: call %s sent twice", i, it.CallID)
			}
			called[it.CallID] = 0
		case "function_call_output":
			n, ok := called[it.CallID]
			if !ok {
				t.Errorf("item %d: output for %s without its call before it", i, it.CallID)
				continue
			}
			called[it.CallID] = n + 1
			if want, ok := outputs[it.CallID]; ok && it.Text() != want {
				t.Errorf("item %d: output for %s is %.80q, the rollout has %.80q", i, it.CallID, it.Text(), want)
			}
		}
	}
	for id, n := range called {
		if n != 1 {
			t.Errorf("call %s has %d outputs, want 1", id, n)
		}
	}
}

// rolloutLine is the part of a rollout line these tests read.
type rolloutLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   struct {
		ID                 string          `json:"id"`
		Type               string          `json:"type"`
		CallID             string          `json:"call_id"`
		Output             json.RawMessage `json:"output"`
		ReplacementHistory []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"replacement_history"`
	} `json:"payload"`
}

// rolloutOutputs maps the call id of every function_call in a rollout
// (response items and compaction replacement histories) to its output text,
// and tells whether the rollout has a compacted record with a replacement
// history.
func rolloutOutputs(t *testing.T, rollout string) (outputs map[string]string, compacted bool) {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(rollout))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l rolloutLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("rollout line: %v", err)
		}
		p := l.Payload
		if l.Type == "response_item" && p.Type == "function_call_output" {
			out[p.CallID] = strings.Join(textOf(p.Output), "")
		}
		compacted = compacted || l.Type == "compacted" && len(p.ReplacementHistory) > 0
		for _, it := range p.ReplacementHistory {
			if it.Type == "function_call_output" {
				out[it.CallID] = strings.Join(textOf(it.Output), "")
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out, compacted
}

// installRollout writes rollout into home/sessions under the name Codex
// looks sessions up by (sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl, from
// its session_meta line) and returns the session id and the file.
func installRollout(t *testing.T, home string, rollout []byte) (session, path string) {
	t.Helper()
	first, _, _ := bytes.Cut(rollout, []byte("\n"))
	var meta rolloutLine
	if err := json.Unmarshal(first, &meta); err != nil || meta.Type != "session_meta" || meta.Payload.ID == "" || len(meta.Timestamp) < 19 {
		t.Fatalf("rollout does not start with a session_meta line with an id and a timestamp (%v): %.200s", err, first)
	}
	stamp := strings.ReplaceAll(meta.Timestamp[:19], ":", "-") // 2026-11-29T15-13-47
	path = filepath.Join(home, "sessions", stamp[:4], stamp[5:7], stamp[8:10], fmt.Sprintf("rollout-%s-%s.jsonl", stamp, meta.Payload.ID))
	writeFiles(t, "/", map[string]string{path: string(rollout)})
	return meta.Payload.ID, path
}
