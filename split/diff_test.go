package split

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDiff(t *testing.T) {
	const d = "commit message\n\n" +
		"diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n" +
		"@@ -1,2 +1,2 @@ func A()\n-a\n+b\n c\n" +
		"@@ -10 +10,0 @@\n-z\n\\ No newline at end of file\n" +
		"--- old/y.txt\t2024-01-01\n+++ new/y.txt\t2024-01-02\n@@ -1 +1 @@\n-p\n+q\n"
	type hunkSum struct {
		Header     string
		Old, New   [2]int
		Valid      bool
		Body, Tail string
	}
	type unitSum struct {
		Name   string
		Header string
		Hunks  []hunkSum
	}
	var got []unitSum
	for _, u := range parseDiff(d, 0) {
		us := unitSum{Name: u.name}
		if u.kind == unitDiffFile {
			us.Header = d[u.start:u.headerEnd]
		}
		for _, h := range u.hunks {
			us.Hunks = append(us.Hunks, hunkSum{d[h.start:h.headerEnd], [2]int{h.oldStart, h.oldCount}, [2]int{h.newStart, h.newCount},
				h.valid, d[h.headerEnd:h.bodyEnd], d[h.bodyEnd:h.end]})
		}
		got = append(got, us)
	}
	want := []unitSum{
		{Name: "(preamble)"},
		{Name: "x.go", Header: "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n", Hunks: []hunkSum{
			{"@@ -1,2 +1,2 @@ func A()\n", [2]int{1, 2}, [2]int{1, 2}, true, "-a\n+b\n c\n", ""},
			{"@@ -10 +10,0 @@\n", [2]int{10, 1}, [2]int{10, 0}, true, "-z\n\\ No newline at end of file\n", ""},
		}},
		{Name: "new/y.txt", Header: "--- old/y.txt\t2024-01-01\n+++ new/y.txt\t2024-01-02\n", Hunks: []hunkSum{
			{"@@ -1 +1 @@\n", [2]int{1, 1}, [2]int{1, 1}, true, "-p\n+q\n", ""},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseDiff (-want +got):\n%s", diff)
	}
}

func TestSubRange(t *testing.T) {
	tests := []struct {
		name                    string
		start, count, before, n int
		want                    string
	}{
		{"first piece", 10, 20, 0, 5, "10,5"},
		{"later piece", 10, 20, 5, 5, "15,5"},
		{"piece with no lines on this side", 10, 20, 5, 0, "14,0"},
		{"new file, first piece", 0, 0, 0, 0, "0,0"},
		{"new side of a new file, later piece", 1, 30, 12, 8, "13,8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := subRange(tc.start, tc.count, tc.before, tc.n); got != tc.want {
				t.Errorf("subRange(%d, %d, %d, %d) = %q, want %q", tc.start, tc.count, tc.before, tc.n, got, tc.want)
			}
		})
	}
}

// TestDiffPartsApply: every part of a split diff applies on its own to the
// old tree (git apply --check); parts holding sub-hunks cut inside a run of
// changes need --unidiff-zero, as the package doc says.
func TestDiffPartsApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: cannot check parts with git apply")
	}
	r := rand.New(rand.NewPCG(42, 1))
	change := genChange(r, 25)
	dir := t.TempDir()
	for _, f := range change {
		if f.oldExists {
			p := filepath.Join(dir, filepath.FromSlash(f.path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(f.old), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	in := diffInput(unifiedDiff(t, change))
	for _, budget := range []int{400, 1500, 6000} {
		res := mustSplit(t, in, &Options{Budget: budget})
		subHunks := 0
		for _, p := range res.Parts {
			args := []string{"apply", "--check"}
			for _, g := range p.Segments {
				if g.Kind != Verbatim && strings.HasPrefix(p.Payload[g.Offset:], "@@") {
					args = append(args, "--unidiff-zero")
					subHunks++
					break
				}
			}
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(p.Payload)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("budget %d: part %d of %d does not apply: %v\n%s", budget, p.Index, p.Of, err, out)
			}
		}
		t.Logf("budget %d: %d parts, %d with sub-hunks", budget, len(res.Parts), subHunks)
	}
}

func TestErrors(t *testing.T) {
	c := counter(t)
	text := strings.Repeat("word ", 2000) + "\n"
	tests := []struct {
		name    string
		opts    Options
		is      error
		wantMsg string
	}{
		{"instructions too long", Options{Budget: 50, Instructions: strings.Repeat("rule ", 60)}, ErrNoFit,
			"cannot fit the budget: the instructions and part header take 69 of the 50-token budget, leaving no room for input (20 tokens short)"},
		{"too many parts", Options{Budget: 500, MaxParts: 2}, ErrTooManyParts,
			"too many parts: the input needs 5 parts of at most 500 tokens, 3 more than the maximum of 2 (2068 tokens of input, 492 per part fit; about 1084 tokens too many)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Split(context.Background(), textInput(text), c, &tc.opts)
			if !errors.Is(err, tc.is) {
				t.Fatalf("err = %v, want %v", err, tc.is)
			}
			if diff := cmp.Diff(tc.wantMsg, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVerifyDetects: Verify fails on a lost byte, a changed byte, a
// duplicated range and a part over the budget.
func TestVerifyDetects(t *testing.T) {
	c := counter(t)
	in := textInput(randomText(rand.New(rand.NewPCG(3, 3)), 4000))
	opts := &Options{Budget: 300}
	tests := []struct {
		name   string
		break_ func(res *Result)
		want   string
	}{
		{"dropped part", func(res *Result) { res.Parts = append(res.Parts[:1], res.Parts[2:]...) }, "are in no part"},
		{"changed byte", func(res *Result) {
			p := &res.Parts[0]
			b := []byte(p.Payload)
			b[len(b)/2] ^= 1
			p.Payload = string(b)
		}, "differ from"},
		{"duplicated part", func(res *Result) { res.Parts = append(res.Parts, res.Parts[0]) }, "in more than one part"},
		{"over budget", func(res *Result) { opts2 := *opts; opts2.Budget = res.Manifest.Tokens.Max - 1; *opts = opts2 }, "over the budget"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			*opts = Options{Budget: 300}
			res, err := Split(context.Background(), in, c, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(in, res, c, opts); err != nil {
				t.Fatalf("before breaking: %v", err)
			}
			tc.break_(res)
			err = Verify(in, res, c, opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Verify = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
