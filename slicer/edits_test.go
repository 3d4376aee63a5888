package slicer

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/diff"
	linediff "github.com/go-git/go-git/v5/utils/diff"
	"golang.org/x/tools/txtar"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// hunkStartsOf diffs two texts by lines, as editedLines does.
func hunkStartsOf(old, cur string) []int {
	d := linediff.Do(old, cur)
	chunks := make([]diff.Chunk, len(d))
	for k := range d {
		chunks[k] = lineChunk{d[k]}
	}
	return hunkStarts(chunks)
}

func TestHunkStartsOfLineDiff(t *testing.T) {
	numbered := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	// Every third line of 40 changed: 13 hunks, of which the first
	// maxCommitHunks count.
	var many strings.Builder
	var manyWant []int
	for i := 1; i <= 40; i++ {
		if i%3 == 0 {
			fmt.Fprintf(&many, "changed %d\n", i)
			if len(manyWant) < maxCommitHunks {
				manyWant = append(manyWant, i)
			}
			continue
		}
		fmt.Fprintf(&many, "line %d\n", i)
	}
	for _, tc := range []struct {
		name     string
		old, cur string
		want     []int
	}{
		{"same", "a\nb\nc\n", "a\nb\nc\n", nil},
		{"changed line", "a\nb\nc\n", "a\nB\nc\n", []int{2}},
		{"inserted lines", "a\nb\n", "a\nx\ny\nb\n", []int{2}},
		{"inserted after a blank line", "a\nb\n", "a\n\nfunc x() {}\nb\n", []int{3}},
		{"deleted line", "a\nb\nc\n", "a\nc\n", []int{2}},
		{"two hunks", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", []int{1, 5}},
		{"no final newline", "a\nb", "a\nc", []int{2}},
		{"appended", "a\n", "a\nb\nc\n", []int{2}},
		{"every third line", numbered(40), many.String(), manyWant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hunkStartsOf(tc.old, tc.cur); !slices.Equal(got, tc.want) {
				t.Errorf("hunkStarts = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEditedLines builds a repository whose work tree changes files every
// way git tells apart, and checks which lines editedLines reports.
func TestEditedLines(t *testing.T) {
	ar := txtar.Parse([]byte(`staged s.go n.go
untracked u.go n.go
-- a.go --
package a

func A() int {
	return 1
}

func B() int {
	return 2
}
-- a.go --
package a

func A() int {
	return 1
}

func B() int {
	return 3
}
-- c.go --
package a

func C() {}
-- t.go --
package a

func T() {}

func Gone() {}
-- t.go --
package a

func T() {}
-- s.go --
package a

func S() int { return 1 }
-- s.go --
package a

// S is staged.
func S() int { return 1 }
-- k.go --
package a

const key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7yn3bRHQ5FHMQO2O3PSmnzYHc3FLBaexZSrZb4oTKOvfbG1U\n-----END RSA PRIVATE KEY-----"

func K() int { return 1 }
-- k.go --
package a

const key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7yn3bRHQ5FHMQO2O3PSmnzYHc3FLBaexZSrZb4oTKOvfbG1U\n-----END RSA PRIVATE KEY-----"

func K() int { return 2 }
-- w.go --
package a

func W() int {
	return 1
}
-- w.go --
package a

func W() int {
	return 2
}
-- u.go --
package a

func U() {}
-- n.go --
package a

func N() {}
`))
	// w.go's work-tree copy ends its lines with CRLF, as a checkout with
	// core.autocrlf writes them (a raw string cannot hold a CR).
	seen := false
	for k := range ar.Files {
		if ar.Files[k].Name == "w.go" {
			if seen {
				ar.Files[k].Data = bytes.ReplaceAll(ar.Files[k].Data, []byte("\n"), []byte("\r\n"))
			}
			seen = true
		}
	}
	dir := txtartest.Repo(t, ar)
	// A user's diff settings must not change what is read: without the
	// a/ and b/ prefixes, git's patch names no file parseZeroContextDiff
	// knows.
	if git, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command(git, "-C", dir, "config", "diff.noprefix", "true").CombinedOutput(); err != nil {
			t.Fatalf("git config: %v: %s", err, out)
		}
	}
	ix, err := index.New(context.Background(), &index.Options{Dir: dir, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want []int
	}{
		{"a.go", []int{8}}, // modified in the work tree
		{"c.go", nil},      // clean
		{"t.go", []int{3}}, // its end deleted: the new last line
		{"w.go", []int{4}}, // its line ends converted: only the line changed counts
		{"s.go", []int{3}}, // staged: the index and the work tree differ from HEAD alike
		{"k.go", []int{5}}, // the redacted key is the same on both sides
		{"u.go", nil},      // untracked: nothing to compare with
		{"n.go", nil},      // staged but new: not in HEAD
	}
	// The hunks come from git diff, or from go-git's HEAD copies where git
	// is not installed.
	for _, withGit := range []bool{true, false} {
		t.Run(fmt.Sprintf("git=%v", withGit), func(t *testing.T) {
			if !withGit {
				t.Setenv("PATH", t.TempDir())
			} else if _, err := exec.LookPath("git"); err != nil {
				t.Skip("git is not installed")
			}
			p, _, _, err := prepare(context.Background(), ix, "anything", testCounter(t), &SelectOptions{Budget: 4000})
			if err != nil {
				t.Fatal(err)
			}
			if p.root != nil {
				defer p.root.Close()
			}
			p.files = map[int]*loaded{}
			for _, tc := range cases {
				f, ok := ix.File(tc.path)
				if !ok {
					t.Fatalf("%s not indexed", tc.path)
				}
				i := slices.IndexFunc(ix.Files, func(g index.File) bool { return g.Path == f.Path })
				if got := p.editedLines(i, p.load(i)); !slices.Equal(got, tc.want) {
					t.Errorf("editedLines(%s) = %v, want %v (status %v)", tc.path, got, tc.want, f.Status)
				}
			}
			if withGit != (p.edits.hunks != nil) || withGit == (p.edits.heads != nil) {
				t.Errorf("with git installed = %v: git diff read = %v, go-git's HEAD copies read = %v", withGit, p.edits.hunks != nil, p.edits.heads != nil)
			}
		})
	}
}

// TestEditedUnitExplained checks that -explain says why an edited
// definition was chosen.
func TestEditedUnitExplained(t *testing.T) {
	ar := txtartest.Load(t, "testdata/select/edited.txtar")
	dir := txtartest.Repo(t, ar)
	ix, err := index.New(context.Background(), &index.Options{Dir: dir, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(context.Background(), ix, "finish the retry backoff change", testCounter(t), &SelectOptions{Budget: 500, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Files) == 0 {
		t.Fatal("nothing selected")
	}
	var found bool
	for _, u := range sel.Files[0].Units {
		if u.Name == "jitter" {
			found = slices.Contains(u.Why, "edited")
		}
	}
	if !found {
		t.Errorf("units of %s = %+v, want jitter marked edited", sel.Files[0].Path, sel.Files[0].Units)
	}
}

// FuzzHunkStarts checks, for any two texts, that the hunks' first lines
// are at most maxCommitHunks, increasing, and within the new text or
// just past its end (lines deleted there).
func FuzzHunkStarts(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("a\nb", "")
	f.Add("", "x\n\n\ny")
	f.Fuzz(func(t *testing.T, old, cur string) {
		n := strings.Count(cur, "\n")
		if cur != "" && !strings.HasSuffix(cur, "\n") {
			n++
		}
		got := hunkStartsOf(old, cur)
		if len(got) > maxCommitHunks {
			t.Fatalf("%d hunks > %d", len(got), maxCommitHunks)
		}
		for k, l := range got {
			if l < 1 || l > n+1 || k > 0 && l <= got[k-1] {
				t.Fatalf("hunkStarts(%q, %q) = %v: line %d out of order or outside 1..%d", old, cur, got, l, n+1)
			}
		}
	})
}
