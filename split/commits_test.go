package split

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
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

// markers lists the commit and file-section lines of text, in order; a
// part's "commit <id> (continued)" marker is listed as such.
func markers(text string) []string {
	return regexp.MustCompile(`(?m)^(commit [0-9a-f]{40}(?: \(continued\))?|From [0-9a-f]{40}|diff --git \S+)`).FindAllString(text, -1)
}

// dropContinued removes the "(continued)" markers from ms, checking that
// each names the commit whose header came last.
func dropContinued(t *testing.T, ms []string) []string {
	t.Helper()
	var out []string
	last := ""
	for _, m := range ms {
		if id, ok := strings.CutSuffix(m, " (continued)"); ok {
			if id = strings.TrimPrefix(id, "commit "); id != last {
				t.Errorf("a part continues commit %s after the header of commit %s", id, last)
			}
			continue
		}
		if id, ok := strings.CutPrefix(m, "commit "); ok {
			last = id
		} else if id, ok := strings.CutPrefix(m, "From "); ok {
			last = id
		}
		out = append(out, m)
	}
	return out
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
				// A part that continues a commit names it, and a file cut
				// across parts repeats its header: keep the first.
				got = dedupAdjacent(dropContinued(t, got))
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

// genLog returns a git-log-like diff of n commits, in git log -p form or,
// with patches set, in git format-patch form, and the ids of its commits.
// Subjects vary in length; now and then a commit has no files (a merge).
func genLog(t testing.TB, r *rand.Rand, n int, patches bool) (string, []string) {
	var b strings.Builder
	var ids []string
	for i := range n {
		id := fmt.Sprintf("%040x", r.Uint64())
		ids = append(ids, id)
		subject := fmt.Sprintf("change %d: %s", i, strings.Repeat("fix the thing ", r.IntN(12)))
		if patches {
			fmt.Fprintf(&b, "From %s Mon Sep 17 00:00:00 2001\nFrom: T <t@example.com>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\nSubject: [PATCH %d/%d] %s\n\nThe body of commit %d.\n---\n", id, i+1, n, subject, i)
		} else {
			decoration := ""
			if i == 0 {
				decoration = " (HEAD -> main)"
			}
			fmt.Fprintf(&b, "commit %s%s\nAuthor: T <t@example.com>\nDate:   Mon Jan 1 00:00:00 2024 +0000\n\n    %s\n\n    The body of commit %d.\n\n", id, decoration, subject, i)
		}
		if r.IntN(6) > 0 {
			b.WriteString(unifiedDiff(t, genChange(r, 1+r.IntN(6))))
		}
		if patches {
			b.WriteString("-- \n2.43.0\n\n")
		}
	}
	return b.String(), ids
}

// TestPartsNameTheirCommits: on random git log -p and git format-patch
// inputs and budgets, every part that holds bytes of a commit (a file of
// its diff, a piece of its message) also holds the commit's id, every
// part fits, and the parts hold the input exactly once (Verify). Before,
// a part that continued a commit began with a "diff --git" line whose
// commit was named only in an earlier part.
func TestPartsNameTheirCommits(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 61))
		patches := seed%2 == 1
		text, ids := genLog(t, r, 3+r.IntN(8), patches)
		in := diffInput(text)
		// starts[i] is where commit i begins in the input.
		var starts []int
		for i := 0; i < len(text); i = lineEnd(text, i) {
			if isCommitStart(text, i) {
				starts = append(starts, i)
			}
		}
		if len(starts) != len(ids) {
			t.Fatalf("seed %d: %d commit lines for %d commits", seed, len(starts), len(ids))
		}
		commitAt := func(pos int) int { return sort.SearchInts(starts, pos+1) - 1 }
		for _, budget := range []int{250 + r.IntN(300), 600 + r.IntN(1500), 3000 + r.IntN(3000)} {
			t.Run(fmt.Sprintf("seed%d/%d", seed, budget), func(t *testing.T) {
				res := mustSplit(t, in, &Options{Budget: budget, Definitions: noDefinitions})
				for _, p := range res.Parts {
					if p.Tokens > budget {
						t.Errorf("part %d: %d tokens, over the budget of %d", p.Index, p.Tokens, budget)
					}
					held := map[int]bool{}
					for _, g := range p.Segments {
						if g.Kind == Synthetic || g.End == g.Start {
							continue
						}
						for k := max(commitAt(g.Start), 0); k <= commitAt(g.End-1); k++ {
							held[k] = true
						}
					}
					for k := range held {
						if !strings.Contains(p.Payload, ids[k]) {
							t.Errorf("part %d of %d holds bytes of commit %d but not its id %s; it begins:\n%.300s", p.Index, p.Of, k, ids[k], p.Payload)
						}
					}
				}
			})
		}
	}
}

// TestContinuedCommit: the marker of a part that continues a commit names
// the commit's id and subject, as git log and git format-patch write them.
func TestContinuedCommit(t *testing.T) {
	id := strings.Repeat("ab", 20)
	tests := []struct {
		name, header, want string
	}{
		{"git log", "commit " + id + " (HEAD -> main, tag: v1)\nAuthor: T <t@x>\nDate:   now\n\n    Fix the parser\n\n    Body.\n\n",
			"commit " + id + " (continued): Fix the parser\n"},
		{"merge", "commit " + id + "\nMerge: 1 2\nAuthor: T <t@x>\n\n    Merge branch 'x'\n",
			"commit " + id + " (continued): Merge branch 'x'\n"},
		{"format-patch", "From " + id + " Mon Sep 17 00:00:00 2001\nFrom: T <t@x>\nSubject: [PATCH 2/7] cmd: add aliases\n\nBody.\n---\n",
			"commit " + id + " (continued): cmd: add aliases\n"},
		{"no message", "commit " + id + "\nAuthor: T <t@x>\n",
			"commit " + id + " (continued)\n"},
		{"long subject", "commit " + id + "\n\n    " + strings.Repeat("é", 80) + "\n",
			"commit " + id + " (continued): " + strings.Repeat("é", 50) + "…\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, continuedCommit(tc.header)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
