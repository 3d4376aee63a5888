// Package editdist measures how far apart two names are, for "did you
// mean" suggestions: the CLI's command names and budget's model names.
package editdist

import "sort"

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest returns up to n of names within maxDist of word, nearest first
// (ties in the order of names). names is not modified.
func Closest(word string, names []string, n, maxDist int) []string {
	type cand struct {
		name string
		d, i int
	}
	var cs []cand
	for i, name := range names {
		if d := Distance(word, name); d <= maxDist {
			cs = append(cs, cand{name, d, i})
		}
	}
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].d != cs[b].d {
			return cs[a].d < cs[b].d
		}
		return cs[a].i < cs[b].i
	})
	out := make([]string, 0, min(n, len(cs)))
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}
