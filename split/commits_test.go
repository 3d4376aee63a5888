package split

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"github.com/google/go-cmp/cmp"
)

// commitLog makes a repository of four commits, each touching files whose
// paths do not sort in commit order, and returns its "git log -p" and
// "git format-patch --stdout" output. It skips without git.
func commitLog(t *testing.T) (logP, formatPatch string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	hermeticGit(t)
	dir := t.TempDir()
	git := func(args ...string) string { return txtartest.Git(t, dir, args...) }
	git("init", "-q")
	body := func(n int) string {
		var b strings.Builder
		for i := range 60 {
			fmt.Fprintf(&b, "line %d of version %d\n", i, n)
		}
		return b.String()
	}
	for i, files := range [][]string{{"zeta/a.go", "alpha/b.go"}, {"mid/c.go"}, {"alpha/b.go", "zeta/a.go", "beta/d_test.go"}, {"alpha/a.go"}} {
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body(i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", ".")
		git("commit", "-q", "-m", fmt.Sprintf("change %d\n\nThe body of commit %d.", i, i))
	}
	return git("log", "-p", "--no-color"), git("format-patch", "--stdout", "--no-color", "--root", "HEAD")
}

// markers lists the commit and file-section lines of text, in order.
func markers(text string) []string {
	return regexp.MustCompile(`(?m)^(commit [0-9a-f]{40}|From [0-9a-f]{40}|diff --git \S+)`).FindAllString(text, -1)
}

// TestSplitKeepsCommitsInOrder: the parts of a git log -p or git
// format-patch input hold its commits in order, each commit's files after
// its own header. Before, later commit headers stayed in the previous
// file's last hunk and files were sorted across commits.
func TestSplitKeepsCommitsInOrder(t *testing.T) {
	logP, patches := commitLog(t)
	for name, text := range map[string]string{"git log -p": logP, "git format-patch": patches} {
		t.Run(name, func(t *testing.T) {
			want := markers(text)
			if len(want) < 11 {
				t.Fatalf("%d markers in the input, want 4 commits and 7 files:\n%s", len(want), text)
			}
			for _, b := range []int{100000, 900, 400} {
				in := Input{Kind: Diff, Sources: []Source{{Name: "log", Text: text}}}
				res, err := Split(context.Background(), in, lenCounterForCommits{}, &Options{Budget: b})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, p := range res.Parts {
					got = append(got, markers(p.Payload)...)
				}
				// A file cut across parts repeats its header: keep the first.
				got = dedupAdjacent(got)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("budget %d, %d parts: commits and files out of order (-input +parts):\n%s", b, len(res.Parts), diff)
				}
				if err := Verify(in, res, lenCounterForCommits{}, &Options{Budget: b}); err != nil {
					t.Errorf("budget %d: %v", b, err)
				}
			}
		})
	}
}

func dedupAdjacent(ss []string) []string {
	var out []string
	for _, s := range ss {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// lenCounterForCommits counts a token per 4 bytes, so budgets are plain.
type lenCounterForCommits struct{}

func (lenCounterForCommits) Count(s string) int { return (len(s) + 3) / 4 }
