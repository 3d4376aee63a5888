package slicer

import (
	"context"
	"fmt"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// commitFiles commits files (path → content) to repo's work tree and
// returns the commit's id.
func commitFiles(t *testing.T, repo *git.Repository, msg string, files map[string]string) plumbing.Hash {
	t.Helper()
	w, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		f, err := w.Filesystem.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(c)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, err := w.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	h, err := w.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestSelectNamedCommit: a commit the task names points at the files it
// changed and at the lines it wrote, though no word of the task is in
// them ("This reverts commit …"); an id the repository lacks names
// nothing, and a file changed since the commit is named without lines.
func TestSelectNamedCommit(t *testing.T) {
	var deep strings.Builder
	deep.WriteString("package store\n")
	for k := 0; k < 12; k++ {
		fmt.Fprintf(&deep, "\n// step%d does step %d of the pipeline.\nfunc step%d(xs []int) int {\n\tn := 0\n\tfor _, x := range xs {\n\t\tn += x * %d\n\t}\n\treturn n\n}\n", k, k, k, k+2)
	}
	before := deep.String()
	added := "\n// clampAll bounds every value to the limit.\nfunc clampAll(xs []int) {\n\tfor i := range xs {\n\t\txs[i] = min(xs[i], 9)\n\t}\n}\n"
	after := before + added
	files := map[string]string{
		"pkg/deep.go":    after,
		"pkg/timeout.go": "package store\n\n// Timeout is how long a request may wait before it is ignored.\nvar Timeout = 30\n",
		"pkg/retry.go":   "package store\n\n// Retry retries after a timeout.\nfunc Retry() { _ = Timeout }\n",
	}
	repo, err := git.Init(memory.NewStorage(), memfs.New())
	if err != nil {
		t.Fatal(err)
	}
	commitFiles(t, repo, "start", map[string]string{"pkg/deep.go": before, "pkg/timeout.go": files["pkg/timeout.go"], "pkg/retry.go": "package store\n"})
	named := commitFiles(t, repo, "clamp", map[string]string{"pkg/deep.go": after, "pkg/retry.go": "package store\n\nfunc Retry() {}\n"})
	commitFiles(t, repo, "retry", map[string]string{"pkg/retry.go": files["pkg/retry.go"]})
	line := strings.Count(before, "\n") + 2 // the doc comment of clampAll

	got := resolveCommits(context.Background(), "", repo, []commitMention{{ID: named.String()[:9]}, {ID: "0123456789abcdef"}})
	if len(got) != 1 || len(got[0].Files) != 2 {
		t.Fatalf("resolveCommits = %+v; want the named commit with its two files", got)
	}
	for _, f := range got[0].Files {
		want := f.Path == "pkg/deep.go" // pkg/retry.go changed since: no lines
		if has := len(f.Lines) > 0; has != want || want && f.Lines[0] != line {
			t.Errorf("%s lines %v; want line %d: %v", f.Path, f.Lines, line, want)
		}
	}

	for _, tc := range []struct {
		id    string
		named bool
	}{
		{named.String()[:9], true},
		{"0123456789abcdef", false},
	} {
		t.Run(tc.id, func(t *testing.T) {
			ix, read := memIndex(t, files)
			task := "Revert \"speed up the parser\"\n\nThis reverts commit " + tc.id + "."
			sel, err := Select(context.Background(), ix, task, testCounter(t), &SelectOptions{Budget: 600, ReadFile: read, Repository: repo})
			if err != nil {
				t.Fatal(err)
			}
			shown := false
			for _, f := range sel.Files {
				for _, rg := range f.Ranges {
					shown = shown || f.Path == "pkg/deep.go" && rg.Start <= line+2 && line+2 <= rg.End
				}
			}
			if shown != tc.named {
				var got []string
				for _, f := range sel.Files {
					got = append(got, f.Path+":"+formatRanges(f.Ranges))
				}
				t.Errorf("pkg/deep.go line %d shown: %v, want %v (shown: %v)", line+2, shown, tc.named, got)
			}
		})
	}
}

// TestResolveCommitsCLI: git's cat-file and go-git resolve the same ids
// to the same files and lines, on a repository on disk.
func TestResolveCommitsCLI(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	commitFiles(t, repo, "start", map[string]string{"a.go": "package a\n\nfunc A() {}\n", "b.go": "package a\n"})
	h := commitFiles(t, repo, "grow", map[string]string{"a.go": "package a\n\nfunc A() {}\n\nfunc B() {}\n", "b.go": "package a\n\nvar x = 1\n"})
	commitFiles(t, repo, "again", map[string]string{"b.go": "package a\n\nvar x = 2\n"})
	named := []commitMention{{ID: h.String()[:7]}, {ID: "abcdef0123"}, {ID: h.String()}}
	ids := commitIDsCLI(context.Background(), dir, named)
	if want := map[string]plumbing.Hash{h.String()[:7]: h, h.String(): h}; !reflect.DeepEqual(ids, want) {
		t.Errorf("commitIDsCLI = %v, want %v", ids, want)
	}
	cli := resolveCommits(context.Background(), dir, repo, named)
	gogit := resolveCommits(context.Background(), "", repo, named)
	want := []commitFile{{Path: "a.go", Lines: []int{5}}, {Path: "b.go"}}
	if len(cli) != 1 || !reflect.DeepEqual(cli[0].Files, want) || !reflect.DeepEqual(cli, gogit) {
		t.Errorf("with git: %+v\nwith go-git: %+v\nwant once %+v", cli, gogit, want)
	}
}

func TestParseZeroContextDiff(t *testing.T) {
	patch := "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n@@ -3,0 +4,3 @@ func A() {\n+\n+\n+\tb()\n@@ -9,2 +11,0 @@\n-\tc()\n-\td()\n" +
		"diff --git a/gone.go b/gone.go\ndeleted file mode 100644\n--- a/gone.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-package gone\n" +
		"diff --git a/bin.png b/bin.png\nBinary files a/bin.png and b/bin.png differ\n" +
		"diff --git \"a/sp ace\\tx.go\" \"b/sp ace\\tx.go\"\n--- \"a/sp ace\\tx.go\"\n+++ \"b/sp ace\\tx.go\"\n@@ -1 +1 @@\n-a\n+b\n"
	want := []commitFile{{Path: "x.go", Lines: []int{6, 12}}, {Path: "sp ace\tx.go", Lines: []int{1}}}
	if got := parseZeroContextDiff(patch); !reflect.DeepEqual(got, want) {
		t.Errorf("parseZeroContextDiff = %+v, want %+v", got, want)
	}
}

// FuzzParseZeroContextDiff: any text parses without panic, into files
// with at most maxCommitHunks lines each, every one at least 1.
func FuzzParseZeroContextDiff(f *testing.F) {
	f.Add("diff --git a/x b/x\n+++ b/x\n@@ -1,0 +2,2 @@\n+\n+a\n")
	f.Add("+++ b/y\n@@ -5 +0,0 @@\n@@ bad\n+z\n")
	f.Add("+++ b/y\n@@ -1 +-5,0 @@\n@@ -1 +0,2 @@\n+z\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, cf := range parseZeroContextDiff(s) {
			if len(cf.Lines) > maxCommitHunks {
				t.Fatalf("%d lines for %s", len(cf.Lines), cf.Path)
			}
			for _, l := range cf.Lines {
				if l < 1 {
					t.Fatalf("line %d for %s from %q", l, cf.Path, s)
				}
			}
		}
	})
}
