package slicer

import (
	"math"
	"sort"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// This file scores a file's definitions (units) for the task: BM25 of the
// task's terms over the units of one file (see "Units" in the package
// comment). Every function here is pure: it takes the query, the term
// weights and the unit's term counts as arguments and reads no packer
// state, so a unit's score is a formula a test can state.
//
// The floating-point operations are those the packer always took, in the
// same order: a sum taken in another order can change a score's last bit,
// and with it a tie between two units.

// bm25Term is one term's share of a BM25 score, w·tf·(k1+1)/(tf+norm):
// the term's weight w (the task's weight of the term times its inverse
// document frequency), its count tf saturated by k1 and normalized by
// norm, the length factor k1·(1 − b + b·length/avg). k1p1 is k1+1, given
// as a constant expression (bm25K1+1, unitK1+1) so that it is rounded
// once, as it is written inline. The operations are taken left to right,
// ((w·tf)·k1p1)/(tf+norm): a caller whose weight is a product passes that
// product as w, and its float is the one it computed inline.
func bm25Term(w, tf, k1p1, norm float64) float64 { return w * tf * k1p1 / (tf + norm) }

// unitNorm is BM25's length factor of a unit of length lines in a file
// whose definitions average avg lines: unitK1·(1 − unitB + unitB·length/avg).
func unitNorm(length, avg float64) float64 {
	return unitK1 * (1 - unitB + unitB*length/avg)
}

// docFreq returns, for each of n query terms, how many of the scanned
// files hold it, and how many files were scanned: the document
// frequencies of the terms over the repository's contents. The counts
// are whole numbers, so the order they are taken in does not matter.
func docFreq(stats []fileStats, n int) (df []float64, docs float64) {
	df = make([]float64, n)
	for i := range stats {
		if !stats[i].read {
			continue
		}
		docs++
		for k, c := range stats[i].tf {
			if c > 0 {
				df[k]++
			}
		}
	}
	return df, docs
}

// termRarity returns each query term's weight for ranking definitions,
// its BM25 inverse document frequency over the scanned files (df and docs
// from docFreq, as the files' ranking counts them), and the
// words of the task's first line that no file holds (in term order; nil
// when there are none): names of something new, which sorted tables
// place (sorted.go).
func termRarity(q *query, df []float64, docs float64) (termW []float64, newWords []int) {
	termW = make([]float64, len(q.terms))
	for k := range df {
		termW[k] = bm25IDF(df[k], docs)
		if df[k] == 0 && q.word[k] {
			newWords = append(newWords, k)
		}
	}
	return termW, newWords
}

// maxTermWeight is the strongest term weight of termW, or 1 when no term
// weighs anything: the unit in which the mention bonus and a quote are
// counted.
func maxTermWeight(termW []float64) float64 {
	maxW := 0.0
	for _, w := range termW {
		maxW = max(maxW, w)
	}
	if maxW == 0 {
		maxW = 1
	}
	return maxW
}

// defLength returns the average length of a file's definitions longer
// than tinyLines, and how many there are, so that a unit is long or
// short against its own file's style. A file without one counts as one
// definition of 2·maxParagraph lines.
func defLength(syms []index.Symbol) (avg float64, defs int) {
	for _, sym := range syms {
		if d := sym.End - sym.Start + 1; d > tinyLines {
			avg += float64(d)
			defs++
		}
	}
	if defs == 0 {
		avg, defs = 2*maxParagraph, 1
	}
	return avg / float64(defs), defs
}

// unitTermWeights returns each term's weight for ranking the units of one
// file: its weight in the collection (termW) times its inverse document
// frequency among the file's units, relative to a term in one unit, to
// the power unitFileIDFExp. tfs holds the term counts of the units hit;
// the units counted are those, or the file's definitions (defs) when it
// has more.
func unitTermWeights(termW []float64, tfs []map[int32]int, defs int) []float64 {
	df := make([]int, len(termW))
	for _, tf := range tfs {
		for t := range tf {
			df[t]++
		}
	}
	n := float64(max(len(tfs), defs))
	w := append([]float64(nil), termW...)
	if one := bm25IDF(1, n); one > 0 {
		for t := range w {
			if df[t] > 0 {
				w[t] *= math.Pow(bm25IDF(float64(df[t]), n)/one, unitFileIDFExp)
			}
		}
	}
	return w
}

// defTerms is what scoring the units of one file takes besides the units
// themselves: the task, each term's weight over the repository (termW,
// from termRarity) and over the file's units (unitW, from unitTermWeights),
// the strongest of termW (maxTermWeight), their sum, and the file's
// average definition length (defLength).
type defTerms struct {
	q     *query
	termW []float64
	unitW []float64
	maxW  float64
	total float64 // Σ termW, in term order
	avg   float64
}

// newDefTerms gathers defTerms for a file with definitions syms whose
// units hit by the task have the term counts tfs.
func newDefTerms(q *query, termW []float64, syms []index.Symbol, tfs []map[int32]int) *defTerms {
	avg, defs := defLength(syms)
	total := 0.0
	for _, w := range termW {
		total += w
	}
	return &defTerms{q: q, termW: termW, unitW: unitTermWeights(termW, tfs, defs),
		maxW: maxTermWeight(termW), total: total, avg: avg}
}

// unitTerms returns the terms a unit's counts tf hold, in term order.
func unitTerms(tf map[int32]int) []int32 {
	terms := make([]int32, 0, len(tf))
	for t := range tf {
		terms = append(terms, t)
	}
	sort.Slice(terms, func(i, j int) bool { return terms[i] < terms[j] })
	return terms
}

// defScore is one unit's score and cover.
type defScore struct {
	score float64 // BM25 of the task's terms in the unit, plus its bonuses
	cover float64 // share of the task's term weight matched inside the unit
	terms []int32 // the terms matched, in term order
}

// score scores a unit of length lines whose term counts are tf. Its score
// is, summed over its terms t in term order,
//
//	tfWeight(t)·unitW[t]·tf·(unitK1+1) / (tf + unitNorm(length, avg))
//
// (a term the task repeats weighs more, as in ranking files), plus
// unitMentionBonus·maxW when the task points into the unit (mention),
// plus maxW when it holds a quote found all over the file (quoted): one
// strong term. Its cover is Σ termW[t] over its terms, in term order,
// divided by the sum of all term weights (0 when that is 0).
func (d *defTerms) score(tf map[int32]int, length float64, mention, quoted bool) defScore {
	out := defScore{terms: unitTerms(tf)}
	norm := unitNorm(length, d.avg)
	matched := 0.0
	for _, t := range out.terms {
		c := float64(tf[t])
		out.score += bm25Term(d.q.tfWeight(int(t))*d.unitW[t], c, unitK1+1, norm)
		matched += d.termW[t]
	}
	if d.total > 0 {
		out.cover = matched / d.total
	}
	if mention {
		out.score += unitMentionBonus * d.maxW
	}
	if quoted {
		out.score += d.maxW
	}
	return out
}

// strongestTerms returns the names of at most maxUnitWhyTerms of terms,
// the heaviest by termW first (ties in the order given), for -explain.
func strongestTerms(q *query, termW []float64, terms []int32) []string {
	terms = append([]int32(nil), terms...)
	sort.SliceStable(terms, func(i, j int) bool { return termW[terms[i]] > termW[terms[j]] })
	var out []string
	for k, t := range terms {
		if k == maxUnitWhyTerms {
			break
		}
		out = append(out, q.terms[t])
	}
	return out
}
