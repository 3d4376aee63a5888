package slicer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
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
