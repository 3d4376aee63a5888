package slicer

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// Signals is the breakdown of one file's score; each field is the signal's
// value after its weight, so the fields add up to Score.
type Signals struct {
	Lexical  float64  `json:"lexical"`       // BM25 over contents and path, normalized
	Mention  float64  `json:"mention"`       // explicit mentions in the task
	Graph    float64  `json:"graph"`         // personalized PageRank
	Recency  float64  `json:"recency"`       // recent commits touching the file
	CoChange float64  `json:"co_change"`     // changed with the top candidates
	Dirty    float64  `json:"dirty"`         // uncommitted or staged
	Pair     float64  `json:"pair"`          // share of its named test's or source's mention
	Class    float64  `json:"class"`         // factor applied to all but Mention and Pair
	Score    float64  `json:"score"`         // the total
	Why      []string `json:"why,omitempty"` // the mentions and terms that matched, briefly
}

// bm25 scores every file's contents and path against the query and returns
// the scores normalized to [0, 1] by the best file. df and docs are the
// terms' document frequencies over the scanned files (docFreq), counted
// once for the ranking and the definitions' term weights.
func bm25(ix *index.Index, q *query, stats []fileStats, df []float64, docs float64) []float64 {
	n := len(ix.Files)
	out := make([]float64, n)
	if len(q.terms) == 0 || n == 0 {
		return out
	}
	// Path field: the terms of each path.
	pathTF := make([][]int32, n)
	pathLen := make([]int, n)
	sc := termScanner{keep: q.keep}
	for i := range ix.Files {
		tf := make([]int32, len(q.terms))
		pathLen[i] = sc.scan([]byte(ix.Files[i].Path), func(t []byte) {
			if k, ok := q.termIdx[string(t)]; ok {
				tf[k]++
			}
		})
		pathTF[i] = tf
	}
	var totalLen, totalPath float64
	pdf := make([]float64, len(q.terms))
	for i := range ix.Files {
		totalPath += float64(pathLen[i])
		for k, c := range pathTF[i] {
			if c > 0 {
				pdf[k]++
			}
		}
		if stats[i].read {
			totalLen += float64(stats[i].length)
		}
	}
	avgLen := totalLen / math.Max(docs, 1)
	avgPath := totalPath / float64(n)
	qw := make([]float64, len(q.terms))
	for k := range q.terms {
		qw[k] = q.tfWeight(k)
		if q.block[k] {
			qw[k] *= codeBlockWeight
		}
		if q.title[k] {
			qw[k] *= 1 + titleWeight
		}
	}
	for i := range ix.Files {
		s := 0.0
		if st := &stats[i]; st.read && st.length > 0 {
			norm := bm25K1 * (1 - bm25B + bm25B*float64(st.length)/math.Max(avgLen, 1))
			for k, c := range st.tf {
				if c == 0 {
					continue
				}
				s += bm25Term(qw[k]*bm25IDF(df[k], docs), float64(c), bm25K1+1, norm)
			}
		}
		norm := bm25K1 * (1 - bm25B + bm25B*float64(pathLen[i])/math.Max(avgPath, 1))
		for k, c := range pathTF[i] {
			if c == 0 {
				continue
			}
			s += bm25Term(pathFieldWeight*qw[k]*bm25IDF(pdf[k], float64(n)), float64(c), bm25K1+1, norm)
		}
		out[i] = s
	}
	return scaleToMax(out)
}

// ranked is one scored file.
type ranked struct {
	file    int // index into Index.Files
	signals Signals
	lines   []int       // lines that mentions point at
	named   bool        // a path, file name or frame of the task names the file
	class   index.Class // the class the file ranks as (rankClass)
}

// rankInput is everything scoring needs, so that it can be tested on
// hand-built indexes.
type rankInput struct {
	ix      *index.Index
	q       *query
	lk      *lookup
	stats   []fileStats
	df      []float64 // docFreq of stats
	docs    float64
	hist    *history // nil when there is no history
	explain bool
}

// rankFiles scores every file and returns those with a positive score,
// best first, ties broken by path. See the package comment for the
// formula; the signals are computed in this order, each by one function:
//
//	lexical   bm25            the task's terms in the contents and path
//	mention   matchMentions   what the task names
//	graph     pageRank        the files the best ones point at
//	recency   history         recent commits, for files the task reaches
//	co-change history         changed with the best ones
//	pair      pairSignals     a named test's or source's mention
//	dirty     dirtySignals    an edit, for files the task reaches
//
// and summed in Signals.total.
//
// Adding a signal is this file and knobs.go: a field of Signals (with
// its JSON name for -explain), a weight in knobs.go with its reason and
// what it won and lost on the kit, a function here that fills the field
// for every file (see dirtySignals: it reads what earlier signals found),
// its call below in pipeline order, and a term in Signals.total; then a
// test that states a file's score as the formula over the weight
// (rank_test.go).
func rankFiles(in *rankInput) []ranked {
	ix, q := in.ix, in.q
	n := len(ix.Files)
	lex := bm25(ix, q, in.stats, in.df, in.docs)
	men := matchMentions(ix, in.lk, q, in.stats)
	class, base := seeds(ix, lex, men, q.completion)
	mentioned := map[string]bool{}
	for _, id := range q.m.Idents {
		mentioned[id.Name] = true
	}
	pr := buildGraph(ix, in.lk, mentioned).pageRank(topSeeds(base, maxGraphSeeds))
	var rec, co []float64
	if in.hist != nil {
		rec = in.hist.recency(in.lk, n)
		seeds := topIndexes(base, coChangeSeeds)
		w := make([]float64, len(seeds))
		for k, s := range seeds {
			w[k] = base[s]
		}
		co = in.hist.coChange(in.lk, n, seeds, w)
	}
	sig := make([]Signals, n)
	for i := range sig {
		sig[i] = weighted(class[i], lex[i], men[i], pr[i], rec, co, i)
	}
	pairSignals(ix, men, sig)
	dirtySignals(ix, base, sig)
	out := collect(in, men, sig, class)
	sort.Slice(out, func(a, b int) bool {
		if out[a].signals.Score != out[b].signals.Score {
			return out[a].signals.Score > out[b].signals.Score
		}
		return ix.Files[out[a].file].Path < ix.Files[out[b].file].Path
	})
	return out
}

// seeds returns every file's rank class and its seed weight for the graph
// walk and co-change: its mention and lexical hits, scaled by its class.
func seeds(ix *index.Index, lex []float64, men map[int]*mentionTarget, completion bool) (class []index.Class, base []float64) {
	n := len(ix.Files)
	base = make([]float64, n)
	class = make([]index.Class, n) // rankClass, once per file
	for i := range base {
		class[i] = rankClass(&ix.Files[i], completion)
		m := 0.0
		if t := men[i]; t != nil {
			m = t.score
		}
		base[i] = (weightLexical*lex[i] + weightMention*m) * seedClassFactor(class[i])
	}
	return class, base
}

// weighted returns file i's weighted lexical, mention, graph, recency and
// co-change signals (rec and co are nil without history).
func weighted(class index.Class, lex float64, t *mentionTarget, pr float64, rec, co []float64, i int) Signals {
	var s Signals
	s.Class = classFactor(class)
	s.Lexical = weightLexical * lex * s.Class
	if t != nil {
		s.Mention = weightMention * t.score
		if !t.explicit {
			s.Mention *= s.Class // a word that names a vendored file is no request for it
		}
	}
	s.Graph = weightGraph * pr * s.Class
	relevant := lex > 0 || s.Mention > 0 || pr > 0
	if rec != nil && relevant {
		// Recency only sharpens relevance; alone it would fill the
		// prompt with whatever changed last.
		s.Recency = weightRecency * rec[i] * s.Class
	}
	if co != nil {
		s.CoChange = weightCoChange * co[i] * s.Class
	}
	return s
}

// pairSignals adds the test ↔ source pairing to sig: a test or source the
// task names (its path, file name or a stack frame) lends its partner
// pairShare of that mention; what it matches by words, history or graph
// it keeps.
func pairSignals(ix *index.Index, men map[int]*mentionTarget, sig []Signals) {
	lends := func(i int) float64 {
		if t := men[i]; t != nil && t.explicit {
			return sig[i].Mention
		}
		return 0
	}
	sources := map[string][]int{}
	for i := range ix.Files {
		if _, test := pairKey(ix.Files[i].Path); test || ix.Files[i].Class == index.Test {
			continue
		}
		for _, k := range sourceKeys(ix.Files[i].Path) {
			sources[k] = append(sources[k], i)
		}
	}
	for i := range ix.Files {
		key, test := pairKey(ix.Files[i].Path)
		if !test {
			continue
		}
		srcs := sources[key]
		if len(srcs) > maxPairSources {
			continue // tests/common.go pairs with no one of twenty common.go
		}
		for _, j := range srcs {
			if j == i {
				continue
			}
			sig[j].Pair += pairShare * lends(i)
			sig[i].Pair += pairShare * lends(j) * sig[i].Class
		}
	}
}

// taskReaches reports whether the task reaches the file itself: by its
// words or path (lexical), by naming it (mention), or by naming its test
// or source (pair). The graph, recency and co-change say how a file stands
// in the repository, not that the task points at it. It is the one
// definition of that reach: the edit signal counts only for such files,
// and the packer asks it of every candidate.
func (s *Signals) taskReaches() bool { return s.Lexical > 0 || s.Mention > 0 || s.Pair > 0 }

// dirtySignals adds the edit signal to sig: an edit counts for a file the
// task reaches: alone, an untracked scratch file or an unrelated edit
// outranked every file that matched the task. (The graph is no such reach:
// a scratch main.go takes a trace of PageRank from any seed that says
// "main".) A task that reaches no file at all ("fix it") leaves the edits
// as its only hint.
func dirtySignals(ix *index.Index, base []float64, sig []Signals) {
	reached := slices.ContainsFunc(base, func(v float64) bool { return v > 0 })
	for i := range ix.Files {
		s := &sig[i]
		if ix.Files[i].Status&(index.Modified|index.Staged|index.Untracked) != 0 && (s.taskReaches() || !reached) {
			s.Dirty = weightDirty * s.Class
		}
	}
}

// total is the file's score: the sum of its signals, in this order.
func (s *Signals) total() float64 {
	return s.Lexical + s.Mention + s.Graph + s.Recency + s.CoChange + s.Dirty + s.Pair
}

// collect returns the files with a positive score, with their mentions'
// lines and, when explaining, why they matched.
func collect(in *rankInput, men map[int]*mentionTarget, sig []Signals, class []index.Class) []ranked {
	var out []ranked
	for i := range sig {
		s := &sig[i]
		s.Score = s.total()
		if s.Score <= 0 {
			continue
		}
		r := ranked{file: i, signals: *s, class: class[i]}
		if t := men[i]; t != nil {
			r.lines = t.lines
			r.named = t.explicit
			if in.explain {
				r.signals.Why = append(r.signals.Why, t.why...)
			}
		}
		if in.explain && in.stats[i].read {
			var ts []string
			for k, c := range in.stats[i].tf {
				if c > 0 && len(ts) < maxExplainTerms {
					ts = append(ts, fmt.Sprintf("%s×%d", in.q.terms[k], c))
				}
			}
			if len(ts) > 0 {
				r.signals.Why = append(r.signals.Why, "terms "+strings.Join(ts, " "))
			}
		}
		out = append(out, r)
	}
	return out
}

// topIndexes returns the indexes of the k largest positive values, largest
// first, ties by index.
func topIndexes(v []float64, k int) []int {
	var idx []int
	for i, x := range v {
		if x > 0 {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool {
		if v[idx[a]] != v[idx[b]] {
			return v[idx[a]] > v[idx[b]]
		}
		return idx[a] < idx[b]
	})
	if len(idx) > k {
		idx = idx[:k]
	}
	return idx
}

// topSeeds keeps the k largest values of v and zeroes the rest.
func topSeeds(v []float64, k int) []float64 {
	out := make([]float64, len(v))
	for _, i := range topIndexes(v, k) {
		out[i] = v[i]
	}
	return out
}

// scaleToMax divides xs in place by its largest value, so that the best
// item scores 1, and returns it; with no positive value it is unchanged.
func scaleToMax(xs []float64) []float64 {
	best := 0.0
	for _, v := range xs {
		best = math.Max(best, v)
	}
	if best > 0 {
		for i := range xs {
			xs[i] /= best
		}
	}
	return xs
}

// bm25IDF is BM25's inverse document frequency of a term found in df of n
// documents, kept positive (the +1 inside the log) for terms in most of
// them.
func bm25IDF(df, n float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }
