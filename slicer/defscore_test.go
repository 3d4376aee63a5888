package slicer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// defQuery is a query of terms said once each, none a variant.
func defQuery(terms ...string) *query {
	q := &query{terms: terms, qtf: make([]int, len(terms)), weight: make([]float64, len(terms)), word: make([]bool, len(terms))}
	for k := range terms {
		q.qtf[k], q.weight[k] = 1, 1
	}
	return q
}

// near reports whether a formula and a score agree to rounding: the
// formulas below group their operations as a reader would, not as the
// code does.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestDefScore(t *testing.T) {
	q := defQuery("alpha", "beta", "gamma")
	q.qtf[1] = 3 // the task says beta three times
	termW := []float64{2, 0.5, 1}
	const avg = 10.0
	d := &defTerms{q: q, termW: termW, unitW: []float64{1.5, 0.5, 1}, maxW: 2, total: 3.5, avg: avg}
	norm := func(length float64) float64 { return unitK1 * (1 - unitB + unitB*length/avg) }
	sat := func(tf, length float64) float64 { return tf * (unitK1 + 1) / (tf + norm(length)) }
	for _, tc := range []struct {
		name            string
		tf              map[int32]int
		length          float64
		mention, quoted bool
		score, cover    float64
	}{
		{
			// At the average length the saturation of one hit is
			// (unitK1+1)/(1+unitK1) = 1: the unit scores the term's weight.
			name: "one term once, average length", tf: map[int32]int{0: 1}, length: avg,
			score: 1.5, cover: 2 / 3.5,
		},
		{
			name: "one term once, twice the average", tf: map[int32]int{0: 1}, length: 2 * avg,
			score: 1.5 * (unitK1 + 1) / (1 + unitK1*(1+unitB)), cover: 2 / 3.5,
		},
		{
			name: "one term three times", tf: map[int32]int{2: 3}, length: 4,
			score: 1 * 3 * (unitK1 + 1) / (3 + unitK1*(1-unitB+unitB*4/avg)), cover: 1 / 3.5,
		},
		{
			// A term the task says three times weighs 1+ln 3.
			name: "a term the task repeats", tf: map[int32]int{1: 1}, length: avg,
			score: (1 + math.Log(3)) * 0.5, cover: 0.5 / 3.5,
		},
		{
			name: "two terms", tf: map[int32]int{0: 2, 2: 1}, length: 6,
			score: 1.5*sat(2, 6) + 1*sat(1, 6), cover: 3 / 3.5,
		},
		{
			name: "pointed at, no term", tf: map[int32]int{}, length: 6, mention: true,
			score: unitMentionBonus * 2,
		},
		{
			name: "pointed at and hit", tf: map[int32]int{0: 1}, length: avg, mention: true,
			score: 1.5 + unitMentionBonus*2, cover: 2 / 3.5,
		},
		{
			// A quote found all over the file is one strong term.
			name: "holds a common quote", tf: map[int32]int{}, length: 6, quoted: true,
			score: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := d.score(tc.tf, tc.length, tc.mention, tc.quoted)
			if !near(got.score, tc.score) || !near(got.cover, tc.cover) {
				t.Errorf("score %v cover %v, want %v and %v", got.score, got.cover, tc.score, tc.cover)
			}
		})
	}
}

// TestDefScoreTermOrder: the terms are summed in term order, whatever
// the map's, so a score is the same float on every run.
func TestDefScoreTermOrder(t *testing.T) {
	q := defQuery("a", "b", "c", "d")
	d := &defTerms{q: q, termW: []float64{0.1, 0.7, 0.3, 1.9}, unitW: []float64{0.1, 0.7, 0.3, 1.9}, maxW: 1.9, total: 3, avg: 7}
	tf := map[int32]int{3: 2, 0: 1, 2: 5, 1: 1}
	norm := unitNorm(9, 7)
	want := 0.0
	for t := int32(0); t < 4; t++ {
		want += bm25Term(q.tfWeight(int(t))*d.unitW[t], float64(tf[t]), unitK1+1, norm)
	}
	for range 20 {
		if got := d.score(tf, 9, false, false); got.score != want || !cmp.Equal(got.terms, []int32{0, 1, 2, 3}) {
			t.Fatalf("score %v terms %v, want %v in term order", got.score, got.terms, want)
		}
	}
}

// TestBM25Term: the helper computes each of BM25's inline forms to the
// bit, so that a file's score (content and path) and a unit's stay the
// floats they were.
func TestBM25Term(t *testing.T) {
	if got, want := bm25Term(2, 1, unitK1+1, unitK1), 2.0; !near(got, want) {
		t.Errorf("one hit at norm k1: %v, want the weight %v", got, want)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		qw, idf, tf, norm := r.Float64()*3, r.Float64()*8, float64(1+r.IntN(40)), r.Float64()*4
		if got, want := bm25Term(qw*idf, tf, bm25K1+1, norm), qw*idf*tf*(bm25K1+1)/(tf+norm); got != want {
			t.Fatalf("content form: %v, want %v", got, want)
		}
		if got, want := bm25Term(pathFieldWeight*qw*idf, tf, bm25K1+1, norm), pathFieldWeight*qw*idf*tf*(bm25K1+1)/(tf+norm); got != want {
			t.Fatalf("path form: %v, want %v", got, want)
		}
		if got, want := bm25Term(qw*idf, tf, unitK1+1, norm), qw*idf*tf*(unitK1+1)/(tf+norm); got != want {
			t.Fatalf("unit form: %v, want %v", got, want)
		}
	}
}

// TestUnitTermWeights: a term in one of the file's units keeps its
// weight; one in all n of them weighs (idf(n)/idf(1))^unitFileIDFExp of
// it, idf being bm25IDF over n units; a term in no unit keeps it too.
func TestUnitTermWeights(t *testing.T) {
	termW := []float64{2, 2, 2}
	tfs := []map[int32]int{{0: 3}, {0: 1, 1: 1}, {0: 2}, {0: 1}}
	w := unitTermWeights(termW, tfs, 4)
	idf := func(df float64) float64 { return math.Log(1 + (4-df+0.5)/(df+0.5)) }
	want := []float64{2 * math.Pow(idf(4)/idf(1), unitFileIDFExp), 2, 2}
	if !near(w[0], want[0]) || w[1] != want[1] || w[2] != want[2] {
		t.Errorf("weights %v, want %v", w, want)
	}
	// The file's definitions count as its units when it has more.
	w = unitTermWeights(termW, tfs[:1], 4)
	if want := 2 * math.Pow(idf(1)/idf(1), unitFileIDFExp); !near(w[0], want) {
		t.Errorf("one unit hit of four definitions: %v, want %v", w[0], want)
	}
}

func TestDefLength(t *testing.T) {
	syms := []index.Symbol{{Start: 1, End: 10}, {Start: 12, End: 13}, {Start: 15, End: 20}}
	if avg, defs := defLength(syms); avg != (10.0+6)/2 || defs != 2 {
		t.Errorf("avg %v over %d definitions, want 8 over 2 (the one of tinyLines left out)", avg, defs)
	}
	if avg, defs := defLength(syms[1:2]); avg != 2*maxParagraph || defs != 1 {
		t.Errorf("no definition: avg %v over %d, want 2·maxParagraph over 1", avg, defs)
	}
}

func TestMaxTermWeight(t *testing.T) {
	if got := maxTermWeight([]float64{0.5, 3, 1}); got != 3 {
		t.Errorf("got %v, want 3", got)
	}
	if got := maxTermWeight([]float64{0, 0}); got != 1 {
		t.Errorf("no weight: got %v, want 1", got)
	}
}

// TestTermRarity: a term's weight is bm25IDF of the scanned files that
// hold it (docFreq: a file not scanned counts for nothing); a word of the
// first line that none holds is new.
func TestTermRarity(t *testing.T) {
	q := defQuery("held", "new", "rare")
	q.word[1], q.word[2] = true, true
	stats := []fileStats{
		{read: true, tf: []int32{1, 0, 0}},
		{read: true, tf: []int32{2, 0, 1}},
		{read: false, tf: []int32{5, 5, 5}}, // not scanned: counts for nothing
		{read: true, tf: []int32{0, 0, 0}},
	}
	df, docs := docFreq(stats, len(q.terms))
	if !cmp.Equal(df, []float64{2, 0, 1}) || docs != 3 {
		t.Errorf("docFreq = %v, %v; want [2 0 1], 3", df, docs)
	}
	termW, newWords := termRarity(q, df, docs)
	want := []float64{bm25IDF(2, 3), bm25IDF(0, 3), bm25IDF(1, 3)}
	if !cmp.Equal(termW, want) || !cmp.Equal(newWords, []int{1}) {
		t.Errorf("weights %v new %v, want %v and [1]", termW, newWords, want)
	}
}

func TestStrongestTerms(t *testing.T) {
	q := defQuery("a", "b", "c", "d", "e", "f")
	termW := []float64{1, 3, 2, 3, 0.5, 2}
	got := strongestTerms(q, termW, []int32{0, 1, 2, 3, 4, 5})
	if want := []string{"b", "d", "c", "f"}[:maxUnitWhyTerms]; !cmp.Equal(got, want) {
		t.Errorf("got %v, want %v (heaviest first, ties in term order)", got, want)
	}
}
