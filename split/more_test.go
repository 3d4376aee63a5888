package split

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxtrim/ctxtrim/budget"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// FuzzSplit: on arbitrary bytes read as text and as a diff, Split never
// panics, every part fits, and the parts hold the input exactly once.
func FuzzSplit(f *testing.F) {
	f.Add("hello\n\nworld\n", uint16(60))
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n", uint16(40))
	f.Add("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n\\ No newline at end of file\n", uint16(45))
	f.Add("@@ -1,2 +1 @@\n garbage\n+++ \n--- \n@@", uint16(50))
	f.Add(strings.Repeat("x", 3000), uint16(70))
	f.Add("commit "+strings.Repeat("a", 40)+"\nAuthor: t\n\n    one\n\ndiff --git a/z b/z\n--- a/z\n+++ b/z\n@@ -1 +1 @@\n-a\n+b\ncommit "+strings.Repeat("b", 40)+" (HEAD)\n\n    two\n\ndiff --git a/a b/a\n@@ -1 +1 @@\n-c\n+d\n", uint16(60))
	f.Add("From "+strings.Repeat("c", 40)+" Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n---\ndiff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n\nFrom "+strings.Repeat("d", 40)+" Mon Sep 17 00:00:00 2001\n", uint16(50))
	f.Add("diff --git a/x b/x\n@@ -0,0 +1,40 @@\n"+strings.Repeat("+line of text here\n", 40), uint16(80))
	c := counter(f)
	f.Fuzz(func(t *testing.T, text string, budget uint16) {
		for _, in := range []Input{textInput(text), diffInput(text)} {
			opts := &Options{Budget: 40 + int(budget%2000), Definitions: noDefinitions}
			res, err := Split(context.Background(), in, c, opts)
			if err != nil {
				if errorsIsNoFit(err) {
					continue // a budget too small for some header is reported, not a bug
				}
				t.Fatalf("%s: Split: %v", in.Kind, err)
			}
			if err := Verify(in, res, c, opts); err != nil {
				t.Fatalf("%s: %v", in.Kind, err)
			}
		}
	})
}

func errorsIsNoFit(err error) bool {
	return err != nil && strings.Contains(err.Error(), ErrNoFit.Error())
}

// goldenDiff is a small synthetic change: two directories, a source with
// its test, an added file, a deleted file and one big hunk.
func goldenDiff(t testing.TB) string {
	r := rand.New(rand.NewPCG(2026, 11))
	return unifiedDiff(t, genChange(r, 9))
}

// TestGolden: the manifest and the plain parts of a synthetic diff, split
// at a budget that needs hunk cuts, are what testdata/golden.* hold.
func TestGolden(t *testing.T) {
	in := diffInput(goldenDiff(t))
	res := mustSplit(t, in, &Options{Budget: 700, Instructions: "Review this diff.", Reduce: true})
	var parts strings.Builder
	for _, p := range append(res.Parts, *res.Reduce) {
		fmt.Fprintf(&parts, "=== part %d (%d tokens) ===\n%s\n", p.Index, p.Tokens, p.Text)
	}
	manifest, err := marshalIndent(res.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"golden.parts.txt": parts.String(), "golden.manifest.json": manifest, "golden.diff": in.Sources[0].Text} {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestStable: adding 20 lines to one file of a file set moves few files to
// another part.
func TestStable(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	change := genChange(r, 80)
	in := filesInput(change)
	opts := &Options{Budget: 3000, Definitions: noDefinitions}
	where := func(in Input) map[string]int {
		res := mustSplit(t, in, opts)
		m := map[string]int{}
		for _, p := range res.Manifest.Parts {
			for _, it := range p.Items {
				if _, ok := m[it.Source]; !ok {
					m[it.Source] = p.Part
				}
			}
		}
		return m
	}
	before := where(in)
	edited := in
	edited.Sources = append([]Source(nil), in.Sources...)
	i := len(edited.Sources) / 2
	edited.Sources[i].Text += strings.Repeat("// one more line of comment\n", 20)
	after := where(edited)
	moved := 0
	for name, p := range before {
		if after[name] != p {
			moved++
		}
	}
	t.Logf("%d of %d files moved after editing %s", moved, len(before), edited.Sources[i].Name)
	if limit := len(before) / 10; moved > limit {
		t.Errorf("%d of %d files moved to another part after a 20-line edit, want at most %d", moved, len(before), limit)
	}
}

// TestBalanced: on a diff of many small files the parts are even: the
// smallest holds at least half the tokens of the largest.
func TestBalanced(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	in := diffInput(unifiedDiff(t, genChange(r, 120)))
	res := mustSplit(t, in, &Options{Budget: 4000})
	s := res.Manifest.Tokens
	t.Logf("%d parts: min %d, median %d, max %d", len(res.Parts), s.Min, s.Median, s.Max)
	if s.Min*2 < s.Max {
		t.Errorf("parts min %d, max %d: want min ≥ max/2", s.Min, s.Max)
	}
}

// TestGrouping: tests follow their sources and a directory's files stay
// together, whatever the input order.
func TestGrouping(t *testing.T) {
	in := Input{Kind: Files, Sources: []Source{
		{Name: "b/z.go"}, {Name: "a/foo_test.go"}, {Name: "a/foo_bar.go"}, {Name: "b/x.spec.ts"}, {Name: "a/foo.go"}, {Name: "b/x.ts"},
	}}
	s := newSplitter(context.Background(), in, counter(t), &Options{Budget: 100})
	var got []string
	for _, u := range s.units {
		got = append(got, u.name)
	}
	want := []string{"a/foo.go", "a/foo_test.go", "a/foo_bar.go", "b/x.ts", "b/x.spec.ts", "b/z.go"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unit order (-want +got):\n%s", diff)
	}
}

// TestDefinitionCuts: a Go file larger than a part is cut between its
// functions (tree-sitter), the doc comment staying with its function.
func TestDefinitionCuts(t *testing.T) {
	var src strings.Builder
	src.WriteString("package p\n\n")
	for i := range 30 {
		fmt.Fprintf(&src, "// F%d does thing %d.\nfunc F%d(x int) int {\n\ty := x * %d\n\tif y > 10 {\n\t\treturn y - 1\n\t}\n\treturn y + %d\n}\n", i, i, i, i, i) // no blank lines: only definitions give clean cuts
	}
	in := Input{Kind: Files, Sources: []Source{{Name: "p/p.go", Text: src.String()}}}
	res := mustSplit(t, in, &Options{Budget: 300})
	if len(res.Parts) < 3 {
		t.Fatalf("%d parts, want several", len(res.Parts))
	}
	for _, p := range res.Parts[1:] {
		_, rest, _ := strings.Cut(p.Payload, "<==\n")
		if !strings.HasPrefix(rest, "// F") {
			t.Errorf("part %d starts inside a definition: %.60q", p.Index, rest)
		}
	}
}

func marshalIndent(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b) + "\n", err
}

// TestHunkDefinitionCuts: a new Go file too large for one part is one big
// hunk; its parts are cut between functions (tree-sitter on the hunk's new
// side), each part a valid diff with a recomputed hunk header.
func TestHunkDefinitionCuts(t *testing.T) {
	var src strings.Builder
	src.WriteString("package p\n")
	for i := range 30 {
		fmt.Fprintf(&src, "// F%d does thing %d.\nfunc F%d(x int) int {\n\ty := x * %d\n\tif y > 10 {\n\t\treturn y - 1\n\t}\n\treturn y + %d\n}\n", i, i, i, i, i)
	}
	d := unifiedDiff(t, []genFile{{path: "p/p.go", new: src.String(), newExists: true}})
	res := mustSplit(t, diffInput(d), &Options{Budget: 300})
	if len(res.Parts) < 3 {
		t.Fatalf("%d parts, want several", len(res.Parts))
	}
	checkDiffParts(t, res)
	for _, p := range res.Parts[1:] {
		_, rest, _ := strings.Cut(p.Payload, "@@\n")
		if !strings.HasPrefix(rest, "+// F") {
			t.Errorf("part %d starts inside a definition: %.60q", p.Index, rest)
		}
	}
}

// TestGoldenRealDiff: a real diff excerpt (go-git, see testdata/README.md)
// split at a budget that needs hunk cuts: every part a diff on its own, and
// the manifest as testdata/gogit.manifest.json holds.
func TestGoldenRealDiff(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "gogit-v5.11.0-v5.12.0-plumbing.diff"))
	if err != nil {
		t.Fatal(err)
	}
	in := diffInput(string(data))
	res := mustSplit(t, in, &Options{Budget: 700, Instructions: "Review this part of the go-git v5.12.0 change."})
	checkDiffParts(t, res)
	got, err := marshalIndent(res.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "gogit.manifest.json")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
}

// TestDeterministic: the same input gives byte-identical parts and
// manifest whatever the parallelism.
func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	in := diffInput(unifiedDiff(t, genChange(r, 60)))
	var first string
	for _, par := range []int{1, 2, 8, 1} {
		res := mustSplit(t, in, &Options{Budget: 900, Parallelism: par, Definitions: noDefinitions})
		m, err := marshalIndent(res.Manifest)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, p := range res.Parts {
			b.WriteString(p.Text)
		}
		got := m + b.String()
		if first == "" {
			first = got
		} else if got != first {
			t.Fatalf("parallelism %d changed the output", par)
		}
	}
}

// TestLongLine: a line longer than a part is cut into fragments, each part
// ending or starting with a marker, and nothing is dropped.
func TestLongLine(t *testing.T) {
	line := strings.Repeat("0123456789abcdef", 400) // about 1,600 tokens, one line
	tests := []struct {
		name string
		in   Input
	}{
		{"text", textInput("before\n" + line + "\nafter\n")},
		{"file", Input{Kind: Files, Sources: []Source{{Name: "min.js", Text: line}}}},
		{"diff", diffInput("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+" + line + "\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := mustSplit(t, tc.in, &Options{Budget: 300, Definitions: noDefinitions})
			if len(res.Parts) < 5 {
				t.Fatalf("%d parts, want at least 5", len(res.Parts))
			}
			for _, p := range res.Parts[1 : len(res.Parts)-1] {
				if !strings.Contains(p.Payload, fragmentLead) || !strings.HasSuffix(p.Payload, fragmentEnd) {
					t.Errorf("part %d lacks a cut marker:\n%s", p.Index, p.Payload)
				}
			}
		})
	}
}

// TestLazy: with Options.Lazy the parts carry no Text or Payload, Part
// renders each again to the very bytes the eager Result holds, and the
// manifest is the same; Verify checks a lazy Result as an eager one.
func TestLazy(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "gogit-v5.11.0-v5.12.0-plumbing.diff"))
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []Format{Plain, OpenAI} {
		in := diffInput(string(data))
		opts := Options{Budget: 700, Instructions: "Review this part.", Format: format, Reduce: true}
		eager := mustSplit(t, in, &opts)
		opts.Lazy = true
		lazy := mustSplit(t, in, &opts)
		if diff := cmp.Diff(eager.Manifest, lazy.Manifest); diff != "" {
			t.Errorf("%s: manifest (-eager +lazy):\n%s", format, diff)
		}
		for i, p := range eager.Parts {
			if lazy.Parts[i].Text != "" || lazy.Parts[i].Payload != "" {
				t.Fatalf("%s: lazy part %d holds its text", format, i+1)
			}
			got, err := lazy.Part(i)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(p, got); diff != "" {
				t.Errorf("%s: part %d (-eager +lazy):\n%s", format, i+1, diff)
			}
		}
		if err := Verify(in, lazy, counter(t), &opts); err != nil {
			t.Errorf("%s: Verify of the lazy result: %v", format, err)
		}
	}
}

// TestLongLineCountsLinearly: cutting a line of many parts counts each
// byte a few times, not once per part. Before, every fragment recounted
// the rest of the line: a 50 MB line took five minutes to split.
func TestLongLineCountsLinearly(t *testing.T) {
	line := strings.Repeat("many words on one line ", 200000) // 4.6 MB, one line
	s := newSplitter(context.Background(), textInput(line), counter(t), &Options{Budget: 32000, Definitions: noDefinitions})
	res, err := s.run()
	if err != nil {
		t.Fatal(err)
	}
	if work := s.work.Load(); work > 8*int64(len(line)) {
		t.Errorf("counted %d bytes (%.1f× the input) to cut it into %d parts", work, float64(work)/float64(len(line)), len(res.Parts))
	}
}

// TestDeterministicText: a text, one unit whose pieces are expanded in
// parallel, gives byte-identical parts and manifest whatever the
// parallelism.
func TestDeterministicText(t *testing.T) {
	var b strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&b, "line %d of a long log: retry the request body after a 503\n", i)
		if i%37 == 0 {
			b.WriteString("\n")
		}
	}
	in := textInput(b.String())
	var first string
	for _, par := range []int{1, 2, 4, 8, 1} {
		res := mustSplit(t, in, &Options{Budget: 600, Parallelism: par})
		m, err := marshalIndent(res.Manifest)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		for _, p := range res.Parts {
			out.WriteString(p.Text)
		}
		if got := m + out.String(); first == "" {
			first = got
		} else if got != first {
			t.Fatalf("parallelism %d changed the output", par)
		}
	}
}

// callsCounter counts its Count calls.
type callsCounter struct {
	c     budget.Counter
	calls atomic.Int64
}

func (c *callsCounter) Count(s string) int { c.calls.Add(1); return c.c.Count(s) }

// TestLazyDoesNotRecount: rendering a lazy Result's parts again to write
// them counts nothing: their tokens are known. A first version recounted
// every part, a second full pass over a gigabyte.
func TestLazyDoesNotRecount(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "gogit-v5.11.0-v5.12.0-plumbing.diff"))
	if err != nil {
		t.Fatal(err)
	}
	cc := &callsCounter{c: counter(t)}
	res, err := Split(context.Background(), diffInput(string(data)), cc, &Options{Budget: 700, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	before := cc.calls.Load()
	for i := range res.Parts {
		if _, err := res.Part(i); err != nil {
			t.Fatal(err)
		}
	}
	if n := cc.calls.Load() - before; n != 0 {
		t.Errorf("rendering %d parts again counted %d times", len(res.Parts), n)
	}
}
