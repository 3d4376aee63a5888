package slicer

import (
	"math"
	"sort"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// This file ranks files on the definition ↔ reference graph with a
// personalized PageRank, the method of aider's repository map.

// graph is a weighted directed graph over file indexes in compressed
// sparse row form: the edges of node i are to[start[i]:start[i+1]].
type graph struct {
	start []int
	to    []int32
	w     []float64
	out   []float64 // total outgoing weight of each node
}

// buildGraph links each file that references a name to the files that
// define it (at most maxSymbolDefiners of them), and back with
// reverseEdgeWeight. An edge's weight is 1/len(definers), so an ambiguous
// name spreads its vote, times mentionedEdgeBoost when the task names it.
func buildGraph(ix *index.Index, lk *lookup, mentioned map[string]bool) *graph {
	n := len(ix.Files)
	type edge struct {
		to int32
		w  float64
	}
	adj := make([][]edge, n)
	local := map[int32]float64{}
	var rev [][]edge = make([][]edge, n)
	for i := range ix.Files {
		f := &ix.Files[i]
		if len(f.Refs) == 0 || f.Class == index.Vendored || f.Class == index.Lock || f.Class == index.Minified {
			continue
		}
		clear(local)
		for _, r := range f.Refs {
			if len(r) < minRefLen {
				continue
			}
			defs := lk.defs[r]
			if len(defs) == 0 || len(defs) > maxSymbolDefiners {
				continue
			}
			w := 1 / float64(len(defs))
			if mentioned[r] {
				w *= mentionedEdgeBoost
			}
			for _, d := range defs {
				if d != i {
					local[int32(d)] += w
				}
			}
		}
		if len(local) == 0 {
			continue
		}
		es := make([]edge, 0, len(local))
		for d, w := range local {
			es = append(es, edge{d, w})
		}
		sort.Slice(es, func(a, b int) bool { return es[a].to < es[b].to })
		adj[i] = es
		for _, e := range es {
			rev[e.to] = append(rev[e.to], edge{int32(i), e.w * reverseEdgeWeight})
		}
	}
	g := &graph{start: make([]int, n+1), out: make([]float64, n)}
	for i := 0; i < n; i++ {
		g.start[i] = len(g.to)
		// Forward edges are sorted by target; reverse edges arrive in
		// source order, which is ascending too. Merge is unnecessary:
		// duplicates only add weight.
		for _, e := range adj[i] {
			g.to = append(g.to, e.to)
			g.w = append(g.w, e.w)
			g.out[i] += e.w
		}
		for _, e := range rev[i] {
			g.to = append(g.to, e.to)
			g.w = append(g.w, e.w)
			g.out[i] += e.w
		}
	}
	g.start[n] = len(g.to)
	return g
}

// pageRank runs a personalized PageRank with the seed distribution seed
// (non-negative, any scale; all zero means uniform) and returns ranks
// normalized so that the best node has 1. Dangling nodes jump back to the
// seeds, as does the (1-damping) share of every step. The result is the
// rank each node receives through edges alone, without the jumps: that is
// what the graph adds to the signals that chose the seeds.
func (g *graph) pageRank(seed []float64) []float64 {
	n := len(g.out)
	if n == 0 {
		return nil
	}
	s := make([]float64, n)
	total := 0.0
	for i, v := range seed {
		total += v
		s[i] = v
	}
	if total == 0 {
		for i := range s {
			s[i] = 1 / float64(n)
		}
	} else {
		for i := range s {
			s[i] /= total
		}
	}
	r := append([]float64(nil), s...)
	next := make([]float64, n)
	for it := 0; it < pageRankIterations; it++ {
		dangling := 0.0
		clear(next)
		for i := 0; i < n; i++ {
			if g.out[i] == 0 {
				dangling += r[i]
				continue
			}
			share := pageRankDamping * r[i] / g.out[i]
			for k := g.start[i]; k < g.start[i+1]; k++ {
				next[g.to[k]] += share * g.w[k]
			}
		}
		jump := 1 - pageRankDamping + pageRankDamping*dangling
		diff := 0.0
		for i := range next {
			next[i] += jump * s[i]
			diff += math.Abs(next[i] - r[i])
		}
		r, next = next, r
		if diff < pageRankTolerance {
			break
		}
	}
	// The rank each node receives through edges alone.
	clear(next)
	for i := 0; i < n; i++ {
		if g.out[i] == 0 {
			continue
		}
		share := pageRankDamping * r[i] / g.out[i]
		for k := g.start[i]; k < g.start[i+1]; k++ {
			next[g.to[k]] += share * g.w[k]
		}
	}
	return scaleToMax(next)
}
