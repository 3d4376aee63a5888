package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
)

// The client CLIs the tests run, pinned (npm).
const (
	// codexVersion is @openai/codex's.
	codexVersion = "0.171.0"
	// claudeVersion is @anthropic-ai/claude-code's. Its package asks for
	// Node.js 22, but the CLI is the native binary of
	// @anthropic-ai/claude-code-linux-x64, which npm installs beside it as
	// an optional dependency and which runs whatever the Node.js version.
	claudeVersion = "2.1.332"
)

// npmCLI is a client CLI installed from npm once per run.
type npmCLI struct {
	pkg, version, bin string

	once sync.Once
	path string
	err  error // why the CLI cannot run here
}

var (
	codexCLI  = &npmCLI{pkg: "@openai/codex", version: codexVersion, bin: "codex"}
	claudeCLI = &npmCLI{pkg: "@anthropic-ai/claude-code", version: claudeVersion, bin: "claude"}
)

// need installs the CLI with npm into a directory of its own in the run's
// scratch directory (npm's download cache is kept across runs in the
// system temp directory) and returns its executable once "--version",
// run with a private home, names the pinned version. It fails the test
// when npm is missing, the install fails or the CLI does not start: a test
// that was asked to run (needE2E) and cannot has not passed.
func (c *npmCLI) need(t *testing.T) string {
	t.Helper()
	c.once.Do(func() {
		pkg := c.pkg + "@" + c.version
		if _, err := exec.LookPath("npm"); err != nil {
			c.err = fmt.Errorf("npm is not installed: cannot install %s", pkg)
			return
		}
		prefix := filepath.Join(scratch, "npm-"+strings.NewReplacer("@", "", "/", "-").Replace(pkg))
		cache := filepath.Join(os.TempDir(), "ctxtrim-e2e-npm-cache")
		r := runCmd(t, 10*time.Minute, "", nil, "", "npm", "install", "--no-audit", "--no-fund", "--no-save",
			"--prefix", prefix, "--cache", cache, pkg)
		if r.code != 0 {
			c.err = fmt.Errorf("npm install %s failed: %s", pkg, r)
			return
		}
		t.Logf("npm install %s: %v", pkg, r.elapsed.Round(time.Second))
		path := filepath.Join(prefix, "node_modules", ".bin", c.bin)
		home := t.TempDir()
		v := runCmd(t, time.Minute, "", []string{"HOME=" + home, "CODEX_HOME=" + home}, "", path, "--version")
		if v.code != 0 || !strings.Contains(v.stdout, c.version) {
			c.err = fmt.Errorf("%s --version does not run here: %s", c.bin, v)
			return
		}
		c.path = path
	})
	if c.err != nil {
		t.Fatal(c.err)
	}
	return c.path
}

// e2eEnv opts in to the end-to-end tests of clients: they install the Codex
// CLI and Claude Code from npm and Debian's pre-commit, so a plain "go test
// ./..." must not run them.
const e2eEnv = "CTXTRIM_E2E"

// needE2E skips t unless the end-to-end tests were asked for (e2eEnv=1) and
// -short is not set. Once asked for, a test that cannot run fails.
func needE2E(t *testing.T) {
	t.Helper()
	if os.Getenv(e2eEnv) != "1" {
		t.Skip("end-to-end test: set CTXTRIM_E2E=1 to run it (it installs the Codex CLI, Claude Code and pre-commit)")
	}
	if testing.Short() {
		t.Skip("end-to-end test; skipped with -short")
	}
}

// startClientTest begins an end-to-end test of a client CLI: it skips
// unless needE2E lets it run, marks t parallel, fails where no network
// namespace can be made, and returns the namespace, the client's executable (installed
// by cli.need), the built ctxtrim and an o200k_base counter.
func startClientTest(t *testing.T, cli *npmCLI) (ns *netns, client, ctxtrim string, counter budget.Counter) {
	t.Helper()
	needE2E(t)
	t.Parallel()
	ns = needNetns(t)
	client = cli.need(t)
	ctxtrim = ctxtrimBinary(t)
	counter, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return ns, client, ctxtrim, counter
}

// clientRunner runs shell scripts (client commands) in one work directory
// with one environment, inside the namespace, against a stub of a given
// window; each run gets a fresh stub log and keeps the request bodies.
type clientRunner struct {
	ns     *netns
	work   string
	env    []string // the client's: codexEnv(home), claudeEnv(…)
	window int      // the stub's context window
	logDir string
	n      int
}

// run runs script and returns its result with the stub's records of the
// requests it made (readStubInput reads their bodies).
func (c *clientRunner) run(t *testing.T, script string) (result, []stubRecord) {
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

// claudeEnv is Claude Code's environment: home as its HOME (settings,
// sessions), the API at base (the stub, or the proxy in front of it) with
// key, and nothing sent anywhere else.
func claudeEnv(home, base, key string) []string {
	return []string{"HOME=" + home, "ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=" + key,
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "NO_COLOR=1"}
}

// serverLog is text of about tokens tokens that reads like a server log;
// seed makes each one different, and its last line says which it is.
func serverLog(c budget.Counter, seed, tokens int) string {
	var b strings.Builder
	for i := 0; c.Count(b.String()) < tokens; i++ {
		for k := 0; k < 50; k++ {
			fmt.Fprintf(&b, "2026-11-29T17:%02d:%02d.%03dZ worker-%d request id=%d status=%d latency=%dms\n",
				(i+k)%60, (seed*7+k)%60, (i*k)%1000, seed, i*50+k, 200+(i+k)%5, (i*31+k*7)%900)
		}
	}
	fmt.Fprintf(&b, "END OF LOG %d\n", seed)
	return b.String()
}
