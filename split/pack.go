package split

import (
	"math"
	"sort"
)

// blockFraction bounds the chunks balancing chooses among: runs of lines
// are merged into blocks of at most capacity/blockFraction tokens, so a
// part spans at most about that many blocks and balancing stays linear in
// the input. A part's size is then settled to within 1/blockFraction of a
// part, and cuts between lines land only between blocks.
const blockFraction = 64

// coarsen merges adjacent chunks of the same unit and hunk that meet at a
// line boundary (penaltyLine) into blocks of at most capacity/blockFraction
// tokens. Fragments of a cut line are left alone.
func coarsen(ch []chunk, capacity int) []chunk {
	limit := capacity / blockFraction
	out := make([]chunk, 0, len(ch))
	for _, c := range ch {
		if n := len(out); n > 0 && c.penalty == penaltyLine {
			last := &out[n-1]
			if last.unit == c.unit && last.hunk == c.hunk && last.end == c.start && !last.frag && !c.cont && !c.frag &&
				last.tokens+c.tokens <= limit {
				last.end = c.end
				last.tokens += c.tokens
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// reach returns, for chunks ch and capacity, the prefix sums of chunk
// tokens w, next[s] (the farthest e such that chunks [s, e) fit one part,
// at least s+1) and need[s] (the fewest parts for chunks [s, m), greedy
// farthest reach, which is optimal when fitting is monotone).
func reach(ch []chunk, capacity int) (w, next, need []int) {
	m := len(ch)
	w = make([]int, m+1)
	for i, c := range ch {
		w[i+1] = w[i] + c.tokens
	}
	next = make([]int, m)
	for s := range m {
		limit := w[s] + capacity - ch[s].lead
		e := sort.Search(m+1-s, func(k int) bool { return w[s+k] > limit }) + s - 1
		next[s] = max(e, s+1)
	}
	need = make([]int, m+1)
	for s := m - 1; s >= 0; s-- {
		need[s] = 1 + need[next[s]]
	}
	return w, next, need
}

// minParts returns the fewest parts that hold ch in order.
func minParts(ch []chunk, capacity int) int {
	if len(ch) == 0 {
		return 0
	}
	_, _, need := reach(ch, capacity)
	return need[0]
}

// partition cuts chunks into the fewest parts (but at least atLeast, if
// there are chunks enough) whose payload (chunk tokens plus the lead of the
// part's first chunk) fits capacity, balanced as the package doc describes.
// It returns the index of each part's first chunk. A chunk that does not
// fit even alone gets a part of its own.
func partition(ch []chunk, capacity, atLeast int) []int {
	m := len(ch)
	if m == 0 {
		return nil
	}
	w, next, need := reach(ch, capacity)
	n := min(max(need[0], atLeast), m)
	if starts := balance(ch, w, next, need, capacity, n); starts != nil {
		return starts
	}
	// The dynamic programme found no way (the fit test is not quite
	// monotone when leads differ): cut greedily towards equal shares.
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
			if need[e] > r-1 || m-e < r-1 {
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

// balanceWeight converts a part's squared deviation from the mean, in
// fractions of capacity, into penalty units: a part 16% off the mean costs
// about one file boundary (0.1), 22% one hunk boundary, 32% one line
// boundary. Squared, so that one very small part costs more than several
// slightly small ones.
const balanceWeight = 4.0

// balance chooses the n parts by dynamic programming: it minimises the sum,
// over parts, of balanceWeight·((load−mean)/capacity)² plus the penalty of
// the boundary where the part ends. A state is (parts used k, chunks
// covered e); only k between the fewest parts that can cover [0, e) and n
// minus the fewest that can cover [e, m) is possible, a band a few states
// wide, so the work is about chunks × band × chunks per part. It returns nil
// if no state reaches (n, m).
func balance(ch []chunk, w, next, need []int, capacity, n int) []int {
	m := len(ch)
	// low[e]: fewest parts covering [0, e), greedy from the right.
	low := make([]int, m+1)
	s := 0
	for e := 1; e <= m; e++ {
		for s < e && next[s] < e {
			s++
		}
		if s == e {
			return nil
		}
		low[e] = 1 + low[s]
	}
	band := func(e int) (lo, hi int) { return low[e], n - need[e] }
	cost := make([][]float64, m+1)
	from := make([][]int32, m+1)
	for e := 0; e <= m; e++ {
		lo, hi := band(e)
		if hi < lo {
			continue
		}
		cost[e] = make([]float64, hi-lo+1)
		from[e] = make([]int32, hi-lo+1)
		for i := range cost[e] {
			cost[e][i] = math.Inf(1)
		}
	}
	if cost[0] == nil || low[0] != 0 {
		return nil
	}
	cost[0][0] = 0
	mean := float64(w[m]) / float64(n)
	for s := 0; s < m; s++ {
		slo, _ := band(s)
		for i, c := range cost[s] {
			if math.IsInf(c, 1) {
				continue
			}
			k := slo + i + 1 // parts after adding [s, e)
			for e := s + 1; e <= next[s] && e <= m; e++ {
				elo, ehi := band(e)
				if k < elo || k > ehi {
					continue
				}
				d := (float64(w[e]-w[s]+ch[s].lead) - mean) / float64(capacity)
				v := c + balanceWeight*d*d
				if e < m {
					v += ch[e].penalty
				}
				if v < cost[e][k-elo] {
					cost[e][k-elo] = v
					from[e][k-elo] = int32(s)
				}
			}
		}
	}
	elo, ehi := band(m)
	if n < elo || n > ehi || math.IsInf(cost[m][n-elo], 1) {
		return nil
	}
	starts := make([]int, n)
	e, k := m, n
	for k > 0 {
		lo, _ := band(e)
		s := int(from[e][k-lo])
		starts[k-1] = s
		e, k = s, k-1
	}
	return starts
}
