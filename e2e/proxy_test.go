package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// proxyAddr is where the tests run "ctxtrim proxy", beside the stub, on the
// namespace's loopback.
const proxyAddr = "127.0.0.1:18081"

// proxyKey is the API key Codex sends; it must never reach the proxy's log.
const proxyKey = "sk-e2e-proxy-secret-7f3a"

// withProxy wraps a client command: it starts ctxtrim proxy in the
// background with flags, forwarding to the stub, waits until it listens,
// runs cmd, stops the proxy and exits with cmd's status. The proxy's
// stderr goes to logPath.
func withProxy(ctxtrim, logPath string, flags []string, cmd string) string {
	q := shellQuote
	args := []string{q(ctxtrim), "proxy", "-listen", proxyAddr, "-upstream", "http://" + stubAddr + "/v1"}
	for _, f := range flags {
		args = append(args, q(f))
	}
	return strings.Join(args, " ") + " 2>>" + q(logPath) + " & P=$!\n" +
		"i=0; until grep -q 'proxy listening' " + q(logPath) + "; do i=$((i+1)); if [ $i -gt 200 ]; then echo 'the proxy did not start' >&2; exit 96; fi; sleep 0.05; done\n" +
		cmd + "\nrc=$?\nkill -TERM $P; wait $P\nexit $rc\n"
}

// proxyHome is a CODEX_HOME whose provider is the proxy (or, direct, the
// stub itself), for a model Codex believes has a window of 1M tokens, so
// that Codex never compacts on its own: only the server's smaller window
// limits the session.
func proxyHome(t *testing.T, model string, direct bool) string {
	t.Helper()
	cfg := codexConfig{model: model, window: 1 << 20, autoCompact: 1 << 20, provider: proxyAddr}
	if direct {
		cfg.provider = ""
	}
	return codexHome(t, cfg)
}

// TestCodexProxySession runs a real multi-turn Codex session ("codex exec",
// then "codex exec resume" twice) whose history outgrows the server's
// window (32k; Codex is told 1M, as when a provider serves a model with a
// smaller window than its client expects). Straight to the stub the second
// turn fails with Codex's context-window error; through ctxtrim proxy
// (restarted each turn, so it cannot carry what it learnt from one turn to
// the next), which re-fits on the stub's overflow error and retries, every
// turn succeeds within the window, and the rollout on disk keeps the whole
// history, unpruned. The overflow error is the Responses API's, which
// states no window: the proxy must re-fit from the size it sent.
func TestCodexProxySession(t *testing.T) {
	ns, codex, ctxtrim, counter := startClientTest(t, codexCLI)
	q := shellQuote
	// Codex's fixed prompt is about 7.6k tokens: each turn fits alone, two
	// do not.
	const turnTokens = 13000
	dir := t.TempDir()
	in1, in2 := filepath.Join(dir, "turn1.txt"), filepath.Join(dir, "turn2.txt")
	writeFiles(t, "/", map[string]string{
		in1: "Why are requests slow in this log?\n" + serverLog(counter, 1, turnTokens),
		in2: "And in this one?\n" + serverLog(counter, 2, turnTokens),
	})
	followUp := " 'Thanks. In one line: which worker is slowest?' </dev/null"

	session := func(t *testing.T, direct bool) (home string, results []result, recs [][]stubRecord, proxyLog string) {
		home = proxyHome(t, codexModel, direct)
		env := append(codexEnv(home), "CTXTRIM_E2E_STUB_KEY="+proxyKey)
		runner := &clientRunner{ns: ns, work: t.TempDir(), env: env, window: codexWindow, logDir: t.TempDir()}
		logPath := filepath.Join(t.TempDir(), "proxy.log")
		wrap := func(cmd string) string {
			if direct {
				return cmd
			}
			return withProxy(ctxtrim, logPath, nil, cmd)
		}
		r, rs := runner.run(t, wrap(q(codex)+" exec --skip-git-repo-check - <"+q(in1)))
		results, recs = append(results, r), append(recs, rs)
		m := sessionIDRE.FindStringSubmatch(r.stderr)
		if r.code != 0 || m == nil {
			t.Fatalf("want the first turn to succeed: %s\nrequests: %s", r, summarize(rs))
		}
		for _, cmd := range []string{" - <" + q(in2), followUp} {
			r, rs = runner.run(t, wrap(q(codex)+" exec --skip-git-repo-check resume "+m[1]+cmd))
			results, recs = append(results, r), append(recs, rs)
			if r.code != 0 {
				break
			}
		}
		b, _ := os.ReadFile(logPath)
		return home, results, recs, string(b)
	}

	t.Run("without the proxy", func(t *testing.T) {
		_, results, recs, _ := session(t, true)
		r := results[1]
		if r.code == 0 || !strings.Contains(r.stderr, "ran out of room") {
			t.Fatalf("want the second turn to fail with Codex's context-window error: %s", r)
		}
		if last := recs[1][len(recs[1])-1]; last.Status != 400 || last.Tokens <= codexWindow {
			t.Errorf("want the stub to refuse an over-window request, got %s", summarize(recs[1]))
		}
	})

	t.Run("through the proxy", func(t *testing.T) {
		home, results, recs, plog := session(t, false)
		t.Logf("proxy log:\n%s", plog)
		if len(results) != 3 {
			t.Fatalf("want three turns, got %d: %s", len(results), results[len(results)-1])
		}
		for i, r := range results {
			if r.code != 0 || !strings.Contains(r.stdout, "STUB-OK") {
				t.Fatalf("turn %d failed: %s\nrequests: %s", i+1, r, summarize(recs[i]))
			}
		}
		// Turns 2 and 3: refused once by the stub (the proxy's table says
		// 1M), then re-fitted and accepted; every request valid.
		for i, rs := range recs {
			for _, r := range rs {
				if r.Invalid != "" {
					t.Errorf("turn %d: request %d is invalid: %s", i+1, r.N, r.Invalid)
				}
			}
			last := rs[len(rs)-1]
			if last.Status != 200 || last.Tokens > codexWindow {
				t.Errorf("turn %d: want the last request accepted within %d tokens: %s", i+1, codexWindow, summarize(rs))
			}
			if i > 0 && (len(rs) != 2 || rs[0].Status != 400) {
				t.Errorf("turn %d: want one overflow then the re-fitted request: %s", i+1, summarize(rs))
			}
		}
		for _, want := range []string{"model=gpt-5.5 tokens=", "attempts=2", "overflow", "status=200"} {
			if !strings.Contains(plog, want) {
				t.Errorf("the proxy log lacks %q", want)
			}
		}
		for _, secret := range []string{proxyKey, "worker-1 request", "Why are requests slow"} {
			if strings.Contains(plog, secret) {
				t.Errorf("the proxy log carries %q (content or a credential)", secret)
			}
		}
		// The rollout keeps what Codex sent: the whole history, unpruned.
		m := sessionIDRE.FindStringSubmatch(results[0].stderr)
		rollout, err := os.ReadFile(findRollout(t, home, m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(rollout), "[ctxtrim") || !strings.Contains(string(rollout), "END OF LOG 1") || !strings.Contains(string(rollout), "END OF LOG 2") {
			t.Errorf("the rollout is not Codex's whole history: it must hold both logs and no ctxtrim placeholder")
		}
	})
}

// TestCodexProxyFallback: the primary model answers every request with
// "Selected model is at capacity" (503). Straight to the stub, Codex fails;
// through ctxtrim proxy -fallback gpt-5.5=backup-20k, each turn of a
// two-turn session is answered by the backup, whose 20k window (from the
// -config file) is respected before anything is sent: no request is
// refused for its size.
func TestCodexProxyFallback(t *testing.T) {
	ns, codex, ctxtrim, counter := startClientTest(t, codexCLI)
	q := shellQuote
	const backup, backupWindow = "backup-20k", 20000
	models := stubModelsEnv + "=" + codexModel + "=capacity;" + backup + "=" + fmt.Sprint(backupWindow)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ctxtrim.toml")
	in1, in2 := filepath.Join(dir, "turn1.txt"), filepath.Join(dir, "turn2.txt")
	writeFiles(t, "/", map[string]string{
		cfg: fmt.Sprintf("[models.%q]\nfamily = \"openai\"\nwindow = %d\nmax_output = 2000\n", backup, backupWindow),
		// About 7.6k of Codex's own and 6k each: the first turn fits the
		// backup, the two together do not.
		in1: "Why are requests slow in this log?\n" + serverLog(counter, 1, 6000),
		in2: "And in this one?\n" + serverLog(counter, 2, 6000),
	})

	t.Run("without the proxy", func(t *testing.T) {
		home := proxyHome(t, codexModel, true)
		runner := &clientRunner{ns: ns, work: t.TempDir(), env: append(codexEnv(home), models), window: codexWindow, logDir: t.TempDir()}
		r, recs := runner.run(t, q(codex)+" exec --skip-git-repo-check - <"+q(in1))
		if r.code == 0 || len(recs) == 0 || recs[0].Status != 503 {
			t.Fatalf("want Codex to fail on the capacity error: %s\nrequests: %s", r, summarize(recs))
		}
	})

	t.Run("through the proxy", func(t *testing.T) {
		home := proxyHome(t, codexModel, false)
		runner := &clientRunner{ns: ns, work: t.TempDir(), env: append(codexEnv(home), models), window: codexWindow, logDir: t.TempDir()}
		logPath := filepath.Join(t.TempDir(), "proxy.log")
		flags := []string{"-fallback", codexModel + "=" + backup, "-config", cfg}
		r, recs := runner.run(t, withProxy(ctxtrim, logPath, flags, q(codex)+" exec --skip-git-repo-check - <"+q(in1)))
		m := sessionIDRE.FindStringSubmatch(r.stderr)
		if r.code != 0 || m == nil || !strings.Contains(r.stdout, "STUB-OK") {
			t.Fatalf("want the first turn answered by the backup: %s\nrequests: %s", r, summarize(recs))
		}
		all := recs
		r, recs = runner.run(t, withProxy(ctxtrim, logPath, flags, q(codex)+" exec --skip-git-repo-check resume "+m[1]+" - <"+q(in2)))
		if r.code != 0 || !strings.Contains(r.stdout, "STUB-OK") {
			t.Fatalf("want the second turn answered by the backup: %s\nrequests: %s", r, summarize(recs))
		}
		all = append(all, recs...)
		plog, _ := os.ReadFile(logPath)
		t.Logf("proxy log:\n%s", plog)
		var primary, onBackup int
		for _, rec := range all {
			switch {
			case rec.Model == codexModel && rec.Status == 503:
				primary++
			case rec.Model == backup && rec.Status == 200 && rec.Tokens <= backupWindow:
				onBackup++
			default:
				t.Errorf("unexpected request: model %s, status %d, %d tokens (backup window %d)", rec.Model, rec.Status, rec.Tokens, backupWindow)
			}
		}
		if primary != 2 || onBackup != 2 {
			t.Errorf("want each turn tried on the primary once, then answered by the backup: %s", summarize(all))
		}
		if !strings.Contains(string(plog), "model=gpt-5.5→"+backup) || !strings.Contains(string(plog), `pruned="`) {
			t.Errorf("the proxy log does not show the switch to the backup and the pruning for its window")
		}
	})
}
