package slicer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// TestViewWithinGrows is viewWithin's contract over limits: once some view
// of a file fits a limit, one fits every larger limit, each within it.
// Before the retry aimed below the estimate of what was chosen, a view
// that overshot by a few tokens was chosen again at each retry and the
// file got nothing at that limit: the best file of a go-git task lost its
// excerpts at 8k while it had them at 6k (testdata/viewfit).
func TestViewWithinGrows(t *testing.T) {
	c := testCounter(t)
	real, err := os.ReadFile("testdata/viewfit/common.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	type trial struct {
		files map[string]string
		task  string
	}
	trials := []trial{{
		files: map[string]string{"plumbing/transport/http/common.go": string(real), "plumbing/transport/http/dumb.go": "package http\n\n// Body is read.\nfunc dumb() {}\n"},
		task:  "plumbing: transport/http, ensure res.Body is non-nil",
	}}
	for range 6 {
		trials = append(trials, trial{files: randomRepo(r, 4+r.IntN(10)), task: propertyTasks[r.IntN(len(propertyTasks))]})
	}
	for k, tr := range trials {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			ix, read := memIndex(t, tr.files)
			p, rk, _, err := prepare(context.Background(), ix, tr.task, c, &SelectOptions{Budget: 100000, ReadFile: read})
			if err != nil {
				t.Fatal(err)
			}
			p.reset()
			for i := range rk[:min(3, len(rk))] {
				f := &ix.Files[rk[i].file]
				first := 0
				for limit := 40; limit <= 6000; limit += 11 {
					v := p.viewWithin(&rk[i], limit, 0)
					switch {
					case v == nil && first > 0:
						t.Fatalf("%s: a view fits %d tokens but none fits %d", f.Path, first, limit)
					case v != nil && v.tokens > limit:
						t.Fatalf("%s: view of %d tokens for a limit of %d", f.Path, v.tokens, limit)
					case v != nil && first == 0:
						first = limit
					}
					if v != nil && v.gran == GranWhole {
						break
					}
				}
				if first == 0 {
					t.Errorf("%s: no view up to 6000 tokens", f.Path)
				}
			}
		})
	}
}

// TestQuoteAllOverIsATerm: a quote found in many units of a file (a name in
// backticks) counts as one strong term there, not as a pointer into each of
// them (the mention bonus, which would rank every one of them like the
// definition the task names). A quote found in one unit still points at it.
func TestQuoteAllOverIsATerm(t *testing.T) {
	c := testCounter(t)
	var b strings.Builder
	b.WriteString("package term\n\n")
	for i := range 5 {
		fmt.Fprintf(&b, "// Open%d returns a stream.\nfunc Open%d() *Stream {\n\treturn &Stream{n: %d} // `Stdout`\n}\n\n", i, i, i)
	}
	b.WriteString("// banner prints the error banner.\nfunc banner() string {\n\treturn \"cannot open terminal\"\n}\n")
	files := map[string]string{"term/term.go": b.String(), "other.go": "package other\n\nfunc other() {}\n"}
	for _, tc := range []struct {
		task    string
		pointed map[string]bool // unit name → whether the quote points at it
	}{
		{"`Stdout` loses the stream", map[string]bool{"Open0": false, "Open3": false}},
		{"users see \"cannot open terminal\" on a stream", map[string]bool{"banner": true}},
	} {
		ix, read := memIndex(t, files)
		p, rk, _, err := prepare(context.Background(), ix, tc.task, c, &SelectOptions{Budget: 100000, ReadFile: read})
		if err != nil {
			t.Fatal(err)
		}
		p.reset()
		got := map[string]bool{}
		for _, u := range p.fileUnits(&rk[0], p.load(rk[0].file)) {
			got[u.name] = u.mention
		}
		for name, want := range tc.pointed {
			if m, ok := got[name]; !ok || m != want {
				t.Errorf("%q: unit %s: pointed at %v (present %v), want %v", tc.task, name, m, ok, want)
			}
		}
	}
}
