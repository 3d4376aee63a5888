package slicer

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// Ranking weights. Each final score is a sum of signals, each in [0, 1]
// before its weight; see the package comment for the formula.
const (
	// bm25K1 is BM25's term-frequency saturation. Code repeats identifiers
	// far more than prose does, so saturation comes early. Measured on the
	// kit's 18 sets at 8k/16k/32k in round 28: 0.8 won 17 tasks and lost
	// 35, 2.0 won 25 and lost 42.
	bm25K1 = 1.2
	// bm25B is BM25's length normalization. Standard strength: a long
	// file rarely goes in whole and shows a task few of its lines, so
	// depth-first packing gains from ranking a short file that matches as
	// well above it. Measured on the kit's eight repositories at
	// 8k/16k/32k: 0.75 against 0.5 raised lines all % in 10 of 24 cells
	// and lowered it in 4 (+0.9 points a cell). Again in round 31, on the
	// 18 sets and four fresh ones: 0.5 won 24 tasks and lost 47 (line
	// recall −9.0 summed over 66 cells, 9 file-level tasks won and 19
	// lost), though javapoet, where BM25's 0.4 beats ctxtrim, gained 3.
	bm25B = 0.75
	// pathFieldWeight weighs BM25 over the path's sub-words against BM25
	// over the contents: a task's words that name a directory or file
	// ("packfile", "completions") are a stronger hint than the same words
	// in a body. Measured on the kit's 18 sets at 8k/16k/32k in round 27:
	// 1.0 won 23 tasks and lost 38, 2.25 won 22 and lost 54.
	pathFieldWeight = 1.5
	// titleWeight raises the weight of the words of a task's first line
	// by this share: the subject of a commit message or the title of an
	// issue names what to change, while the body also tells the story
	// (how it was found, what else was tried). A one-line task ranks as
	// before, since every word of it is in its title. Measured on the
	// kit's eight repositories at 8k/16k/32k against none: 1.4 raised
	// lines all % in 13 of 24 cells and lowered it in one (+1.1 points a
	// cell), all % +0.4 a cell; 0.5 gave +0.6, 1.0 +0.9 and 2.0 +0.6.
	// Weighting the title in the ranking of a file's definitions too
	// added +0.1 a cell and cost all % as much.
	titleWeight = 1.4
	// variantWeight weighs a term's spelling variant (see variant) against
	// the term itself: "handling" should find handle(), but a file that
	// says "handling" as the task does is the better match. Measured on
	// the kit's 18 sets at 8k/16k/32k against none: 12 tasks won and 6
	// lost, line recall +0.004 summed over the 54 cells, file level 8 won
	// and 5 lost; 0.3 won 6 and lost 5, 0.7 won 13 and lost 16.
	variantWeight = 0.5
	// codeBlockWeight weighs a word or name that the task writes only in
	// its code blocks (see codeBlocks), in ranking files: a bug report's
	// reproduction calls the public API (app.get, res.send) and names its
	// own variables (key, value), so it points at the fix less than the
	// report's text does. Within a file, definitions rank by such words
	// at full weight: the call a reproduction makes is where to look.
	// Measured on 259 bug reports of the kit's 18 repositories (issue
	// texts paired with the commits that fixed them) at 13k/27k/50k
	// against full weight: 14 tasks won and 2 lost, 3 lost at file level;
	// the kit's commit messages did not move. In the ranking of
	// definitions too: 16 and 4 with less line recall at 50k, and with
	// it names only 10 and 2, words only 6 and 0, 0.7 7 and 1, 0.3 for
	// words or names 18 or 17 and 6.
	codeBlockWeight = 0.5

	// weightLexical weighs normalized BM25 (contents and path).
	weightLexical = 1.0
	// weightMention weighs explicit mentions: a named path, file, frame,
	// symbol or quoted string is the strongest evidence a task gives.
	weightMention = 1.2
	// weightGraph weighs personalized PageRank over the definition ↔
	// reference graph: files that define what the relevant files use.
	// A neighbour that matches nothing itself takes depth from files that
	// do, so the graph only breaks near-ties. Measured on the kit's eight
	// repositories at 8k/16k/32k: 0.2 against 0.35 raised lines all % and
	// all % by +0.7 points a cell each; then, with bm25B 0.75 and
	// examples ranked as tests, 0.1 against 0.2 raised lines all % in 11
	// of 24 cells and lowered it in 5 (+0.8 a cell), all % +0.3 a cell;
	// 0.05 was the same (+0.8, all % +0.3). Round 29's joint fit (see
	// weightRecency) put it at 0.033, not kept.
	weightGraph = 0.1
	// weightRecency weighs how recently the file changed in HEAD's
	// history: work clusters in time. Doubled (0.3) in round 24, on 15
	// of the kit's 18 sets: 16 tasks won, 35 lost; left out (0) in round
	// 28, on all 18: 28 won, 61 lost. In round 29 the weights of
	// mentions, graph, recency, co-change and pairing were fitted
	// together, by coordinate ascent on the mean of 1 / (the worst gold
	// file's rank) over the kit's 1,085 tasks: recency rose to about
	// 0.4, the graph fell to 0.033, co-change to 0.225 (+0.013 on all,
	// +0.004 left out by repository, 11 of 18 up). With a test's
	// explicit mentions alone lent to its source (see pairShare), on all
	// 18 sets against today's weights: 48 tasks won and 42 lost, line
	// recall +13.1 summed over 54 cells, 23 file-level tasks won and 18
	// lost, but 4 of vite's at 8k (files ranked 10–23, shown as
	// breadth); recency at 0.3, 38 won and 32 lost, +10.5, vite 8k
	// still 2 file-level tasks short. Within the noise on lines, and
	// short on files.
	weightRecency = 0.15
	// weightCoChange weighs how often the file changed together with the
	// strongest candidates in HEAD's history. It lifts hubs (libuv's
	// internal.h, which changes with every platform file) as well as the
	// second file of a fix, and on the kit's 18 sets it is about even:
	// left out (0) in round 28, 53 tasks won and 50 lost, 24 file-level
	// tasks won and 36 lost; at 0.15, 28 won and 25 lost.
	weightCoChange = 0.3
	// weightDirty weighs uncommitted or staged changes: a file being edited
	// is almost always part of the task at hand, when the task reaches it
	// too. Like recency, it counts only for files with other relevance:
	// the task's words or path, a mention or a named partner (rankFiles;
	// any edit counts when the task reaches no file at all). Alone, an
	// untracked scratch.go scored 0.4 and went whole into a prompt about
	// cobra's command aliases, and one-line untracked files outranked the
	// files that matched.
	weightDirty = 0.4
	// pairShare is the share of a test's explicit mention (its path, file
	// name or a stack frame) given to its source file, and of a source's
	// given to its test: a failing test named leads to its function, a
	// named file to its tests. Until round 29 it was a share of the whole
	// score, so a test that matched the task's words lifted its source
	// and the reverse; lending the named part only won 24 tasks and lost
	// 13 on the kit's 18 sets at 8k/16k/32k (line recall +7.4 summed over
	// 54 cells, 15 file-level tasks won and 5 lost, urfave-cli at 8k
	// still level with BM25). Before, in round 28, for a source's share
	// of its test: none won 21 tasks and lost 14, half (0.15) 9 and 9, a
	// share of the test's mentions of any kind 21 and 15, each losing
	// four of urfave-cli's at 8k and putting that cell below BM25. The
	// named part with round 29's fitted weights is in weightRecency's
	// measurements.
	pairShare = 0.3

	// Mention strengths, before weightMention.
	mentionFullPath = 1.0 // the task names the file's path (or a suffix with a slash)
	mentionFrame    = 1.0 // a stack frame names the file
	mentionBaseName = 0.8 // the task names the file's base name, split among same-named files
	// mentionStem: a code-like word, or a plain one of five letters or
	// more ("references", "completions"), equals the file's name without
	// extension. A plain word's match at half or at 1.5 times this lost
	// more tasks than it won on the kit's 18 sets (5 won, 11 lost; 3, 15).
	mentionStem   = 0.25
	mentionDir    = 0.25 // the task names the file's directory, split (by square root) among its files
	mentionSymbol = 0.5  // a code-like identifier the file defines, split (by square root) among definers
	// mentionWord: a plain word equal to a symbol the file defines
	// ("patch", "command"). At 0 it lost 10 kit tasks for 6 won on six
	// sets, at 0.3 8 for 2 (round 35).
	mentionWord   = 0.15
	mentionQuote  = 0.7 // a quoted string found verbatim, split among files that contain it
	mentionCommit = 0.5 // a commit the task names changed the file, split (by square root) among its files
	maxMention    = 1.5 // cap: several mentions confirm, they do not multiply

	// maxSymbolDefiners is how many files may define a name before a
	// mention of it stops counting: "String" or "New" names nothing.
	maxSymbolDefiners = 12
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
// the scores normalized to [0, 1] by the best file, plus the matched terms
// of each file for explanations.
func bm25(ix *index.Index, q *query, stats []fileStats) []float64 {
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
	var docs, totalLen, totalPath float64
	df := make([]float64, len(q.terms))
	pdf := make([]float64, len(q.terms))
	for i := range ix.Files {
		totalPath += float64(pathLen[i])
		for k, c := range pathTF[i] {
			if c > 0 {
				pdf[k]++
			}
		}
		if !stats[i].read {
			continue
		}
		docs++
		totalLen += float64(stats[i].length)
		for k, c := range stats[i].tf {
			if c > 0 {
				df[k]++
			}
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
				tf := float64(c)
				s += qw[k] * bm25IDF(df[k], docs) * tf * (bm25K1 + 1) / (tf + norm)
			}
		}
		norm := bm25K1 * (1 - bm25B + bm25B*float64(pathLen[i])/math.Max(avgPath, 1))
		for k, c := range pathTF[i] {
			if c == 0 {
				continue
			}
			tf := float64(c)
			s += pathFieldWeight * qw[k] * bm25IDF(pdf[k], float64(n)) * tf * (bm25K1 + 1) / (tf + norm)
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
	hist    *history // nil when there is no history
	explain bool
}

// rankFiles scores every file and returns those with a positive score,
// best first, ties broken by path. See the package comment for the formula.
func rankFiles(in *rankInput) []ranked {
	ix, q := in.ix, in.q
	n := len(ix.Files)
	lex := bm25(ix, q, in.stats)
	men := matchMentions(ix, in.lk, q, in.stats)

	// Seeds of the graph walk and of co-change: mentions and lexical hits.
	base := make([]float64, n)
	class := make([]index.Class, n) // rankClass, once per file
	for i := range base {
		class[i] = rankClass(&ix.Files[i])
		m := 0.0
		if t := men[i]; t != nil {
			m = t.score
		}
		base[i] = (weightLexical*lex[i] + weightMention*m) * seedClassFactor(class[i])
	}
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
	for i := range ix.Files {
		s := &sig[i]
		s.Class = classFactor(class[i])
		s.Lexical = weightLexical * lex[i] * s.Class
		if t := men[i]; t != nil {
			s.Mention = weightMention * t.score
			if !t.explicit {
				s.Mention *= s.Class // a word that names a vendored file is no request for it
			}
		}
		s.Graph = weightGraph * pr[i] * s.Class
		relevant := lex[i] > 0 || s.Mention > 0 || pr[i] > 0
		if rec != nil && relevant {
			// Recency only sharpens relevance; alone it would fill the
			// prompt with whatever changed last.
			s.Recency = weightRecency * rec[i] * s.Class
		}
		if co != nil {
			s.CoChange = weightCoChange * co[i] * s.Class
		}
	}
	// Test ↔ source pairing: a test or source the task names (its path,
	// file name or a stack frame) lends its partner pairShare of that
	// mention; what it matches by words, history or graph it keeps.
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
	// An edit counts for a file the task reaches itself (its words or
	// path, a mention, a named test or source): alone, an untracked
	// scratch file or an unrelated edit outranked every file that matched
	// the task. The graph is no such reach here, unlike for recency: a
	// scratch main.go takes a trace of PageRank from any seed that says
	// "main". A task that reaches no file at all ("fix it") leaves the
	// edits as its only hint.
	reached := slices.ContainsFunc(base, func(v float64) bool { return v > 0 })
	for i := range ix.Files {
		s := &sig[i]
		relevant := lex[i] > 0 || s.Mention > 0 || s.Pair > 0
		if ix.Files[i].Status&(index.Modified|index.Staged|index.Untracked) != 0 && (relevant || !reached) {
			s.Dirty = weightDirty * s.Class
		}
	}
	var out []ranked
	for i := range sig {
		s := &sig[i]
		s.Score = s.Lexical + s.Mention + s.Graph + s.Recency + s.CoChange + s.Dirty + s.Pair
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
				if c > 0 && len(ts) < 8 {
					ts = append(ts, fmt.Sprintf("%s×%d", q.terms[k], c))
				}
			}
			if len(ts) > 0 {
				r.signals.Why = append(r.signals.Why, "terms "+strings.Join(ts, " "))
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].signals.Score != out[b].signals.Score {
			return out[a].signals.Score > out[b].signals.Score
		}
		return ix.Files[out[a].file].Path < ix.Files[out[b].file].Path
	})
	return out
}

// maxPairSources is the most sources a test may pair with: a test named
// after a common stem (common, utils, index) names no source at all.
const maxPairSources = 2

// maxGraphSeeds is how many of the best files by lexical and mention score
// seed the graph walk: enough to cover a multi-file task, few enough that
// the walk stays personal.
const maxGraphSeeds = 20

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
