package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ensurePreCommit returns the pre-commit executable, installing Debian's
// package when it is missing and this process may (root with apt-get):
// "apt-get update" first, since a fresh machine (CI) has no package lists.
// It fails the test with the reason when pre-commit cannot be had.
func ensurePreCommit(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("pre-commit"); err == nil {
		return p
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Fatal("pre-commit is not installed and apt-get is unavailable to install it")
	}
	if os.Geteuid() != 0 {
		t.Fatal("pre-commit is not installed and installing it with apt-get needs root")
	}
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	if r := runCmd(t, 5*time.Minute, "", env, "", "apt-get", "update", "-q"); r.code != 0 {
		t.Fatalf("pre-commit is not installed and apt-get update failed:\n%s", r)
	}
	r := runCmd(t, 10*time.Minute, "", env, "", "apt-get", "install", "-y", "-q", "--no-install-recommends", "pre-commit")
	p, err := exec.LookPath("pre-commit")
	if r.code != 0 || err != nil {
		t.Fatalf("pre-commit is not installed and apt-get could not install it:\n%s", r)
	}
	t.Logf("installed pre-commit with apt-get in %v", r.elapsed.Round(time.Second))
	return p
}

// TestPreCommitTryRepo runs this checkout's hooks with "pre-commit try-repo"
// in a fresh repository, as a user trying the hooks would. try-repo clones
// the checkout at the given ref, so it tests the committed state (HEAD), and
// pre-commit builds ctxtrim with "go install ./..." (language: golang).
func TestPreCommitTryRepo(t *testing.T) {
	needE2E(t)
	t.Parallel()
	preCommit := ensurePreCommit(t)
	src := checkoutRoot(t)
	if _, err := os.Stat(filepath.Join(src, ".git")); err != nil {
		t.Fatalf("%s is not a git checkout, so pre-commit try-repo cannot clone it", src)
	}
	head := runCmd(t, time.Minute, src, nil, "", "git", "rev-parse", "HEAD")
	if head.code != 0 {
		t.Fatalf("cannot resolve HEAD of %s: %s", src, head)
	}
	ref := strings.TrimSpace(head.stdout)
	if r := runCmd(t, time.Minute, src, nil, "", "git", "cat-file", "-e", ref+":.pre-commit-hooks.yaml"); r.code != 0 {
		t.Fatalf(".pre-commit-hooks.yaml is not committed at HEAD %s", ref)
	}
	gomodcache := runCmd(t, time.Minute, src, nil, "", "go", "env", "GOMODCACHE")
	env := []string{
		// One pre-commit home per run: the hook environment is built once.
		"PRE_COMMIT_HOME=" + filepath.Join(scratch, "pre-commit-home"),
		// pre-commit points GOPATH at its environment; keep the machine's
		// module cache so the build needs no download when it is warm.
		"GOMODCACHE=" + strings.TrimSpace(gomodcache.stdout),
		"GOTOOLCHAIN=local",
		"PRE_COMMIT_COLOR=never",
	}

	tryRepo := func(t *testing.T, dir, hook string, extra ...string) result {
		t.Helper()
		args := append([]string{"try-repo", src, hook, "--ref", ref, "--verbose"}, extra...)
		return runCmd(t, 15*time.Minute, dir, env, "", preCommit, args...)
	}

	big := strings.Repeat("- Keep every handler small and tested; log with slog.\n", 700) // 37,800 bytes

	// The first run builds the hook's environment (go install); the others
	// reuse it and run in parallel.
	t.Run("check passes", func(t *testing.T) {
		dir, git := gitRepo(t)
		writeFiles(t, dir, map[string]string{
			"AGENTS.md":         "# Agents\nRun `go test ./...` before you finish.\n",
			"svc/AGENTS.md":     "Handlers live in handlers.go.\n",
			"CLAUDE.md":         "See AGENTS.md.\n",
			"prompts/review.md": "Review this diff for bugs.\n",
		})
		git("add", ".")
		r := tryRepo(t, dir, "ctxtrim-check", "--all-files")
		t.Logf("try-repo (build + check) took %v", r.elapsed.Round(time.Second))
		if r.code != 0 || !strings.Contains(r.stdout, "Passed") {
			t.Fatalf("want the hook to pass: %s", r)
		}
	})

	t.Run("check fails on a truncated AGENTS.md chain", func(t *testing.T) {
		t.Parallel()
		dir, git := gitRepo(t)
		writeFiles(t, dir, map[string]string{
			"AGENTS.md":     "# Agents\nRun `go test ./...` before you finish.\n",
			"svc/AGENTS.md": big,
		})
		git("add", ".")
		r := tryRepo(t, dir, "ctxtrim-check", "--all-files")
		for _, want := range []string{"Failed", "svc/AGENTS.md", "Codex silently cuts the last", "1 of 2 prompt files over budget"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("output lacks %q", want)
			}
		}
		if r.code == 0 {
			t.Errorf("want a non-zero exit")
		}
		if t.Failed() {
			t.Log(r)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "svc", "AGENTS.md")); err != nil || string(b) != big {
			t.Errorf("the hook modified svc/AGENTS.md")
		}
	})

	t.Run("check honours .ctxtrim.toml", func(t *testing.T) {
		t.Parallel()
		dir, git := gitRepo(t)
		writeFiles(t, dir, map[string]string{
			"svc/AGENTS.md": big,
			".ctxtrim.toml": "[check]\nproject_doc_max_bytes = 65536 # as in our Codex config.toml\n",
		})
		git("add", ".")
		if r := tryRepo(t, dir, "ctxtrim-check", "--all-files"); r.code != 0 {
			t.Fatalf("want the hook to pass with the raised limit: %s", r)
		}
	})

	t.Run("review budget reports and fails above review_max_parts", func(t *testing.T) {
		t.Parallel()
		dir, git := gitRepo(t)
		writeFiles(t, dir, map[string]string{"README.md": "hello\n"})
		git("add", ".")
		git("commit", "-q", "-m", "init")
		writeFiles(t, dir, map[string]string{"a.txt": big, "b.txt": big})
		git("add", ".")
		r := tryRepo(t, dir, "ctxtrim-review-budget")
		if r.code != 0 || !strings.Contains(r.stdout, "fits one review request") {
			t.Fatalf("want a passing report: %s", r)
		}
		writeFiles(t, dir, map[string]string{".ctxtrim.toml": "[check]\nreview_budget = 4000\nreview_max_parts = 2\n"})
		git("add", ".")
		r = tryRepo(t, dir, "ctxtrim-review-budget")
		if r.code == 0 || !strings.Contains(r.stdout, "needs splitting") || !strings.Contains(r.stdout, "more than -max-parts 2") {
			t.Fatalf("want a failing report: %s", r)
		}
	})
}
