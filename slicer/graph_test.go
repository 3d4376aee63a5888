package slicer

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPageRankFollowsReferences(t *testing.T) {
	ix, _ := memIndex(t, map[string]string{
		"a.go": "package p\n\nfunc Handle() { retryRequest(); parseHeader() }\n",
		"b.go": "package p\n\nfunc retryRequest() {}\n",
		"c.go": "package p\n\nfunc parseHeader() {}\n",
		"d.go": "package p\n\nfunc unrelated() {}\n",
	})
	lk := newLookup(ix)
	g := buildGraph(ix, lk, map[string]bool{"retryRequest": true})
	seed := make([]float64, len(ix.Files))
	seed[0] = 1 // a.go
	pr := g.pageRank(seed)
	// b.go is reached through a mentioned name (mentionedEdgeBoost), c.go
	// through a plain one; d.go is unreachable. a.go, the seed, gets rank
	// only back through reverse edges.
	if !(pr[1] == 1 && pr[2] > 0 && pr[2] < pr[1] && pr[3] == 0) {
		t.Fatalf("ranks a,b,c,d = %v; want b = 1 > c > 0 = d", pr)
	}
	// The split between b and c follows the edge weights: forward edge
	// weights 10 and 1 out of a.go.
	if diff := cmp.Diff(1.0/mentionedEdgeBoost, pr[2]/pr[1], cmpopts.EquateApprox(0, 0.05)); diff != "" {
		t.Errorf("rank(c)/rank(b) (-want +got):\n%s", diff)
	}
}

func TestPageRankEmptySeedIsUniform(t *testing.T) {
	g := &graph{start: []int{0, 0, 0}, out: []float64{0, 0}}
	if diff := cmp.Diff([]float64{0, 0}, g.pageRank(nil)); diff != "" {
		t.Errorf("pageRank on a graph without edges (-want +got):\n%s", diff)
	}
}
