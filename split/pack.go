package split

import (
	"math"
	"sort"
)

// partition cuts chunks into the fewest parts whose payload (chunk tokens
// plus the lead of the part's first chunk) fits capacity, balanced as the
// package doc describes. It returns the index of each part's first chunk.
// A chunk that does not fit even alone gets a part of its own.
func partition(ch []chunk, capacity int) []int {
	m := len(ch)
	if m == 0 {
		return nil
	}
	w := make([]int, m+1) // prefix sums of chunk tokens
	for i, c := range ch {
		w[i+1] = w[i] + c.tokens
	}
	// next[s]: farthest e such that chunks [s, e) fit one part.
	next := make([]int, m)
	for s := range m {
		limit := w[s] + capacity - ch[s].lead
		e := sort.Search(m+1-s, func(k int) bool { return w[s+k] > limit }) + s - 1
		next[s] = max(e, s+1)
	}
	// need[s]: fewest parts for chunks [s, m), greedy farthest reach.
	need := make([]int, m+1)
	for s := m - 1; s >= 0; s-- {
		need[s] = 1 + need[next[s]]
	}
	n := need[0]
	starts := make([]int, 0, n)
	s := 0
	for i := 1; i <= n; i++ {
		starts = append(starts, s)
		r := n - i + 1 // parts left, this one included
		if r == 1 {
			break
		}
		target := float64(w[s]) + float64(w[m]-w[s])/float64(r)
		best, bestScore := -1, math.Inf(1)
		for e := s + 1; e <= next[s] && e < m; e++ {
			if need[e] > r-1 {
				continue
			}
			score := math.Abs(float64(w[e])-target)/float64(capacity) + ch[e].penalty
			if score < bestScore {
				best, bestScore = e, score
			}
		}
		if best < 0 { // cannot happen: next[s] itself qualifies
			best = next[s]
		}
		s = best
	}
	return starts
}
