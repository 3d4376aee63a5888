package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestStagedRenameOneSource: after "git mv" of a 4,000-line file, check
// -staged-diff and split -staged read the same staged diff, a rename of a
// few tokens. Before, check ran git diff --cached (26 tokens) while split
// diffed with go-git without rename detection (15 parts of 115k tokens).
func TestStagedRenameOneSource(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, "func f%d() int { return %d * %d }\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("big.go"); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	if _, err := wt.Commit("big", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Move("big.go", "moved.go"); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code := runBuf(t, "", "check", "-C", dir, "-staged-diff", "-budget", "2000")
	if code != exitOK || !strings.Contains(stdout, "fits one review request") {
		t.Fatalf("check -staged-diff: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	m := regexp.MustCompile(`staged diff: (\d+) tokens in 1 files`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("check -staged-diff: no token count for one file in %q", stdout)
	}
	if n, _ := strconv.Atoi(m[1]); n > 100 {
		t.Errorf("check -staged-diff: the rename is %d tokens, want a header of under 100", n)
	}

	stdout, stderr, code = runBuf(t, "", "split", "-C", dir, "-staged", "-budget", "2000", "-v")
	if code != exitOK || !strings.Contains(stderr, "ctxtrim: 1 parts") {
		t.Fatalf("split -staged: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"rename from big.go\n", "rename to moved.go\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("split -staged output lacks %q:\n%s", want, stdout)
		}
	}
}
