package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// scratch is a per-run directory shared by the tests: the ctxtrim binary and
// the npm install live there, so each is built or installed once per run.
var scratch string

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == helperNetns {
		// Re-executed inside "unshare -n": see netnsHelper.
		os.Exit(netnsHelper(os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "ctxtrim-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scratch = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// checkoutRoot is the root of the ctxtrim source tree this test runs from.
func checkoutRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd) // the package lives in <root>/e2e
}

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// binEnv names a ctxtrim binary to test instead of building this checkout
// (a build of another revision, to compare proxies).
const binEnv = "CTXTRIM_E2E_BIN"

// ctxtrimBinary builds the CLI from this checkout once per run, or returns
// the binary binEnv names.
func ctxtrimBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(binEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v", binEnv, err)
		}
		return p
	}
	buildOnce.Do(func() {
		buildPath = filepath.Join(scratch, "bin", "ctxtrim")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", buildPath, ".")
		cmd.Dir = checkoutRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// result is the outcome of one external command.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("exit %d after %v\n--- stdout\n%s\n--- stderr\n%s", r.code, r.elapsed.Round(time.Millisecond), r.stdout, r.stderr)
}

// runCmd runs name with args in dir under a deadline, with env added to the
// process environment and stdin from the given string. A deadline overrun
// fails the test; a non-zero exit does not (the caller asserts on it).
func runCmd(t *testing.T, timeout time.Duration, dir string, env []string, stdin string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	// Run in a process group of its own and kill the whole group on the
	// deadline, so that nothing (codex under unshare, a go build under
	// pre-commit) outlives the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%s %s: timed out after %v\n%s", name, strings.Join(args, " "), timeout, r)
	}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: %v", name, err)
		}
		r.code = ee.ExitCode()
	}
	return r
}

// gitRepo makes a fresh git repository with a committer identity.
func gitRepo(t *testing.T) (dir string, git func(args ...string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed")
	}
	dir = t.TempDir()
	git = func(args ...string) {
		t.Helper()
		r := runCmd(t, time.Minute, dir, []string{"GIT_CONFIG_NOSYSTEM=1"}, "", "git",
			append([]string{"-c", "user.email=e2e@ctxtrim.test", "-c", "user.name=e2e", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		if r.code != 0 {
			t.Fatalf("git %v: %s", args, r)
		}
	}
	git("init", "-q")
	return dir, git
}

// committedRepo commits files to a new git repository and returns its
// directory.
func committedRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, git := gitRepo(t)
	writeFiles(t, dir, files)
	git("add", ".")
	git("commit", "-q", "-m", "init")
	return dir
}

// writeFiles writes files (slash paths relative to root) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
