package e2e

import (
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

// longSession is a session of turns run as one script inside one network
// namespace: one stub (and, through the proxy, one ctxtrim proxy) serves
// every turn, as one proxy serves a user's whole session. Each turn's
// command runs under turnTimeout, reads stdin from /dev/null and writes its streams and exit code
// to files the test reads back; the session stops at the first turn that
// fails.
type longSession struct {
	ns      *netns
	work    string   // the client's working directory
	env     []string // the client's environment
	window  int      // the stub's window
	timeout time.Duration
}

// turnTimeout bounds each turn of a long session (coreutils' timeout; exit
// 124), within the session's own deadline.
const turnTimeout = 5 * time.Minute

// turnOut is one turn of a long session: the client's result.
type turnOut struct {
	result
	ran bool // false when an earlier turn failed
}

// brief is the turn's exit code and the ends of its streams (a client
// echoes the logs its tools read).
func (o turnOut) brief() string {
	tail := func(s string) string { return s[max(0, len(s)-600):] }
	return fmt.Sprintf("exit %d\n--- stdout (end)\n%s\n--- stderr (end)\n%s", o.code, tail(o.stdout), tail(o.stderr))
}

// run runs the turns (shell commands; a later one may use $ID, the session
// id the first printed, as idRE finds it in its stdout or stderr), wrapped
// by wrap (withProxy, or nothing), and returns each turn's outcome and the
// stub's records of the whole session.
func (s *longSession) run(t *testing.T, turns []string, idRE string, wrap func(string) string) ([]turnOut, []stubRecord) {
	t.Helper()
	dir := t.TempDir()
	dump := filepath.Join(dir, "dump")
	if err := os.MkdirAll(dump, 0o755); err != nil {
		t.Fatal(err)
	}
	q := shellQuote
	var b strings.Builder
	fmt.Fprintf(&b, "D=%s\n", q(dir))
	for i, cmd := range turns {
		n := i + 1
		fmt.Fprintf(&b, "timeout -k 5 %d %s </dev/null >\"$D/%d.out\" 2>\"$D/%d.err\"; echo $? >\"$D/%d.rc\"\n", int(turnTimeout/time.Second), cmd, n, n, n)
		fmt.Fprintf(&b, "[ \"$(cat \"$D/%d.rc\")\" = 0 ] || exit 0\n", n)
		if n == 1 {
			fmt.Fprintf(&b, "ID=$(cat \"$D/1.out\" \"$D/1.err\" | sed -n %s | head -n 1)\n", q("s/.*"+idRE+".*/\\1/p"))
		}
	}
	logPath := filepath.Join(dir, "stub.jsonl")
	env := append(append([]string{}, s.env...), stubDumpEnv+"="+dump)
	start := time.Now()
	// A subshell, so that "exit" ends the turns, not what wrap adds after
	// them (stopping the proxy).
	r := s.ns.run(t, s.timeout, s.work, env, s.window, logPath, wrap("(\n"+b.String()+")"))
	if r.code != 0 {
		t.Errorf("the session script: %s", r)
	}
	out := make([]turnOut, len(turns))
	for i := range turns {
		n := i + 1
		rc, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.rc", n)))
		if err != nil {
			break
		}
		stdout, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.out", n)))
		stderr, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.err", n)))
		code, _ := strconv.Atoi(strings.TrimSpace(string(rc)))
		out[i] = turnOut{result: result{code: code, stdout: string(stdout), stderr: string(stderr)}, ran: true}
	}
	recs, err := readStubLog(logPath)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	t.Logf("session of %d turns: %v, %d requests", len(turns), time.Since(start).Round(time.Second), len(recs))
	return out, recs
}

// writeEachTurn writes a stubEachTurn and returns the environment naming it.
func writeEachTurn(t *testing.T, e stubEachTurn) string {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "each.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return stubEachTurnEnv + "=" + p
}

// sessionFigures are what a long session is judged and reported by.
type sessionFigures struct {
	requests, accepted, overflows, invalid int
	marked                                 int   // accepted requests that hold the marker
	tokens                                 []int // of every accepted request
	invalidMsgs                            []string
}

// measure counts recs; judged says which accepted requests must hold
// marker (all, when nil).
func measure(t *testing.T, recs []stubRecord, marker string, judged func(stubRecord) bool) sessionFigures {
	t.Helper()
	var f sessionFigures
	for _, r := range recs {
		f.requests++
		if r.Invalid != "" {
			f.invalid++
			f.invalidMsgs = append(f.invalidMsgs, fmt.Sprintf("request %d: %s", r.N, r.Invalid))
			continue
		}
		switch r.Status {
		case 400:
			f.overflows++
		case 200:
			if judged != nil && !judged(r) {
				continue
			}
			f.accepted++
			f.tokens = append(f.tokens, r.Tokens)
			body, err := os.ReadFile(r.Dump)
			if err != nil {
				t.Fatalf("request %d: %v", r.N, err)
			}
			if strings.Contains(string(body), marker) {
				f.marked++
			}
		}
	}
	return f
}

func (f sessionFigures) String() string {
	cover := 0.0
	if f.accepted > 0 {
		cover = 100 * float64(f.marked) / float64(f.accepted)
	}
	return fmt.Sprintf("%d requests: %d accepted (judged), %d refused for size, %d invalid; marker in %d of %d accepted (%.0f%%); tokens per accepted request %v",
		f.requests, f.accepted, f.overflows, f.invalid, f.marked, f.accepted, cover, f.tokens)
}

// TestCodexProxyLongSession runs a Codex session of codexLongTurns turns
// ("codex exec", then "codex exec resume") on a model the stub serves with
// a 24k window while Codex is told 1M (proxyHome), so only the server's
// window limits the session. Every turn the stub, playing the model, calls
// exec_command to cat a log of about codexLongFile tokens, then answers:
// the history grows by a log a turn and outgrows the window around the
// sixth. The work directory's AGENTS.md holds a marker line.
//
// Straight to the stub, the session dies with Codex's context-window
// error. Through "ctxtrim proxy -upstream …" alone (no budget flags, as
// the README starts it; the Responses API's overflow error states no
// window, so the proxy must learn the window from the sizes refused and
// accepted) every turn completes, no turn fails, the stub refuses at most
// 2 requests of the whole session for their size, every request is valid
// (tool calls and outputs paired), and every accepted request still
// carries AGENTS.md.
func TestCodexProxyLongSession(t *testing.T) {
	ns, codex, ctxtrim, counter := startClientTest(t, codexCLI)
	const (
		window         = 24000
		codexLongTurns = 12
		codexLongFile  = 3000
		marker         = "AGENTS-MARKER-7d41: answer in one line."
		maxOverflows   = 2
	)
	work := t.TempDir()
	files := map[string]string{"AGENTS.md": "# Agents\n\n" + marker + "\n"}
	var turns []string
	q := shellQuote
	for i := 1; i <= codexLongTurns; i++ {
		files[fmt.Sprintf("logs/day%02d.log", i)] = serverLog(counter, i, codexLongFile)
		prompt := fmt.Sprintf("Turn %d: which worker is slowest in logs/day%02d.log", i, i)
		cmd := q(codex) + " exec --skip-git-repo-check "
		if i > 1 {
			cmd += "resume \"$ID\" "
		}
		turns = append(turns, cmd+q(prompt))
	}
	writeFiles(t, work, files)
	each := writeEachTurn(t, stubEachTurn{Call: "exec_command", Arguments: json.RawMessage(`{"cmd":"cat $ARG","yield_time_ms":10000}`), ArgPattern: `logs/day[0-9]+\.log`})

	session := func(t *testing.T, direct bool) ([]turnOut, []stubRecord, string) {
		home := proxyHome(t, codexModel, direct)
		s := &longSession{ns: ns, work: work, env: append(codexEnv(home), each), window: window, timeout: 10 * time.Minute}
		logPath := filepath.Join(t.TempDir(), "proxy.log")
		wrap := func(cmd string) string { return cmd }
		if !direct {
			wrap = func(cmd string) string { return withProxy(ctxtrim, logPath, nil, cmd) }
		}
		out, recs := s.run(t, turns, `session id: \([0-9a-f-]\{36\}\)`, wrap)
		plog, _ := os.ReadFile(logPath)
		return out, recs, string(plog)
	}

	t.Run("without the proxy", func(t *testing.T) {
		t.Parallel()
		out, recs, _ := session(t, true)
		failed := -1
		for i, o := range out {
			if o.ran && o.code != 0 {
				failed = i
				break
			}
		}
		if failed < 0 {
			t.Fatalf("want the session to fail once its history outgrows the %d-token window; every turn succeeded: %s", window, summarize(recs))
		}
		t.Logf("turn %d of %d failed: %s", failed+1, codexLongTurns, out[failed].brief())
		if !strings.Contains(out[failed].stderr, "ran out of room") {
			t.Errorf("turn %d failed, but not with Codex's context-window error: %s", failed+1, out[failed].brief())
		}
		if last := recs[len(recs)-1]; last.Status != 400 || last.Invalid != "" || last.Tokens <= window {
			t.Errorf("want the stub's last answer to be an overflow: %s", summarize(recs[max(0, len(recs)-3):]))
		}
	})

	t.Run("through the proxy", func(t *testing.T) {
		t.Parallel()
		out, recs, plog := session(t, false)
		t.Logf("proxy log:\n%s", plog)
		completed, failures := 0, 0
		for i, o := range out {
			switch {
			case !o.ran:
				t.Errorf("turn %d did not run: an earlier turn failed", i+1)
			case o.code != 0 || !strings.Contains(o.stdout, "STUB-OK"):
				failures++
				t.Errorf("turn %d failed: %s", i+1, o.brief())
			default:
				completed++
			}
		}
		f := measure(t, recs, marker, nil)
		t.Logf("%d of %d turns completed, %d client-visible failures; %s", completed, codexLongTurns, failures, f)
		if f.overflows > maxOverflows {
			t.Errorf("the stub refused %d requests for their size; want at most %d in the whole session", f.overflows, maxOverflows)
		}
		if f.invalid > 0 {
			t.Errorf("%d requests were invalid: %s", f.invalid, strings.Join(f.invalidMsgs, "; "))
		}
		if f.accepted == 0 || f.marked != f.accepted {
			t.Errorf("AGENTS.md's marker is in %d of %d accepted requests; want all", f.marked, f.accepted)
		}
		// A tool call every turn: the turn's log came back as the call's
		// output, in the request that answered it.
		for i := 1; i <= completed; i++ {
			if !codexOutputSeen(t, recs, fmt.Sprintf("END OF LOG %d\n", i)) {
				t.Errorf("turn %d: no accepted request carries the output of its cat of logs/day%02d.log", i, i)
			}
		}
	})
}

// codexOutputSeen reports whether an accepted request carries a
// function_call_output holding want.
func codexOutputSeen(t *testing.T, recs []stubRecord, want string) bool {
	t.Helper()
	for _, r := range recs {
		if r.Status != 200 {
			continue
		}
		items, err := readStubInput(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if it.Type == "function_call_output" && strings.Contains(it.Text(), want) {
				return true
			}
		}
	}
	return false
}

// claudeCompactRE matches what Claude Code sends when it compacts: its
// request for a summary, and the summary that then opens the history.
var claudeCompactRE = regexp.MustCompile(`(?i)create a detailed summary of the conversation|session is being continued from a previous conversation`)

// TestClaudeProxyLongSession runs a Claude Code session of claudeLongTurns
// turns ("claude -p", then "claude -p --continue") through "ctxtrim proxy
// -upstream …" alone, against the Anthropic stub with a 70k window (Claude
// Code believes 200k, and asks max_tokens 32000, which the stub and the
// proxy keep free: about 12k of history fit beside Claude Code's fixed
// prompt). Every turn the stub, playing the model, has Claude Code Read a
// log of about claudeLongFile tokens, then answers; the history outgrows
// the window by the fourth turn. The work directory's CLAUDE.md holds a
// marker line. Every turn must complete; Claude Code must never compact
// (it does when it sees "prompt is too long": TestClaudeProxySession), so
// no request asks for or carries a summary and the transcript has no
// compact boundary; every request is valid; and every accepted request of
// Claude Code's main loop (those that offer tools; its side requests, a
// title, carry no CLAUDE.md) carries the marker.
func TestClaudeProxyLongSession(t *testing.T) {
	ns, claude, ctxtrim, counter := startClientTest(t, claudeCLI)
	const (
		window          = 70000
		claudeLongTurns = 8
		claudeLongFile  = 3000 // o200k tokens; Read numbers the lines, which adds more
		marker          = "CLAUDE-MARKER-2b9e: answer in one line."
		model           = "claude-sonnet-4-5"
	)
	work := t.TempDir()
	files := map[string]string{"CLAUDE.md": "# Project\n\n" + marker + "\n"}
	var turns []string
	q := shellQuote
	// The prompt comes first: --allowedTools would take it for a tool.
	opts := " --model " + model + " --output-format json --allowedTools Read"
	for i := 1; i <= claudeLongTurns; i++ {
		name := fmt.Sprintf("logs/day%02d.log", i)
		files[name] = serverLog(counter, i, claudeLongFile)
		prompt := fmt.Sprintf("Turn %d: which worker is slowest in %s", i, filepath.Join(work, name))
		cmd := q(claude) + " -p " + q(prompt) + opts
		if i > 1 {
			cmd += " --continue"
		}
		turns = append(turns, cmd)
	}
	writeFiles(t, work, files)
	home := t.TempDir()
	env := append(claudeEnv(home, "http://"+proxyAddr, proxyKey), writeEachTurn(t, stubEachTurn{
		Call: "Read", Arguments: json.RawMessage(`{"file_path":"$ARG"}`), ArgPattern: `/\S+/logs/day[0-9]+\.log`}))
	s := &longSession{ns: ns, work: work, env: env, window: window, timeout: 10 * time.Minute}
	logPath := filepath.Join(t.TempDir(), "proxy.log")
	out, recs := s.run(t, turns, `"session_id":"\([0-9a-f-]\{36\}\)"`, func(cmd string) string { return withProxy(ctxtrim, logPath, nil, cmd) })
	plog, _ := os.ReadFile(logPath)
	t.Logf("proxy log:\n%s", plog)

	completed := 0
	for i, o := range out {
		switch {
		case !o.ran:
			t.Errorf("turn %d did not run: an earlier turn failed", i+1)
		case o.code != 0 || !strings.Contains(o.stdout, "STUB-OK"):
			t.Errorf("turn %d failed: %s", i+1, o.brief())
		default:
			completed++
		}
	}
	main := func(r stubRecord) bool { return r.Tools > 0 && !strings.HasSuffix(r.Path, "/count_tokens") }
	f := measure(t, recs, marker, main)
	t.Logf("%d of %d turns completed; main loop: %s", completed, claudeLongTurns, f)
	if f.invalid > 0 {
		t.Errorf("%d requests were invalid: %s", f.invalid, strings.Join(f.invalidMsgs, "; "))
	}
	if f.accepted == 0 || f.marked != f.accepted {
		t.Errorf("CLAUDE.md's marker is in %d of %d accepted main-loop requests; want all", f.marked, f.accepted)
	}
	var reads int
	for _, r := range recs {
		if strings.HasPrefix(r.Reply, "tool_use Read") {
			reads++
		}
		if r.Dump == "" {
			continue
		}
		body, err := os.ReadFile(r.Dump)
		if err != nil {
			t.Fatal(err)
		}
		if claudeCompactRE.Match(body) {
			t.Errorf("request %d (%d messages) asks for or carries a summary: Claude Code compacted", r.N, len(r.Items))
		}
	}
	if reads < completed {
		t.Errorf("the stub answered %d requests with a Read for %d completed turns; want one a turn", reads, completed)
	}
	// Claude Code's transcript: no compaction, and the whole history.
	if len(out) > 0 && out[0].ran {
		tr := claudeTranscript(t, home, out[0].stdout)
		if strings.Contains(tr, "compact_boundary") {
			t.Errorf("the transcript has a compact boundary: Claude Code compacted")
		}
		for i := 1; i <= completed; i++ {
			if !strings.Contains(string(tr), fmt.Sprintf("END OF LOG %d", i)) {
				t.Errorf("the transcript lacks turn %d's log", i)
			}
		}
	}
}
