package slicer

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/ctxtrim/ctxtrim/slicer/internal/ascii"
	"golang.org/x/sync/errgroup"
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

// classFactor scales the non-mention part of a file's score by what the
// file is. Explicit mentions are not scaled: a user who names a lock file
// wants it.
func classFactor(c index.Class) float64 {
	switch c {
	case index.Source:
		return 1
	case index.Test:
		// Usage of the code, second to the code under test: a test repeats
		// its subject's words in every case, so it outscored the source it
		// tests (viper_test.go was in the first eight files of 39 of
		// viper's 60 kit prompts at 8k, never a change's). Measured on
		// the kit's 22 sets in round 40: 0.3 against 0.45 won 14 tasks
		// and lost 6. 0.2 won 6 more and lost 3, but would put a test
		// below configuration and prose, and the kit, which never counts
		// a test as a change's file, favours any lowering.
		return 0.3
	case index.Doc:
		return 0.3 // prose repeats the task's words without being the answer
	case index.Config:
		return 0.35
	case index.Generated:
		return 0.1 // regenerate, don't edit
	case index.Fixture, index.Data:
		return 0.1
	case index.Vendored:
		return 0.03 // someone else's code
	case index.Lock, index.Minified:
		return 0.01 // never useful context unless named
	}
	return 1
}

// rankClass is the class a file ranks as: its index class, except that a
// Go doc.go without definitions is prose (the package comment, often
// hundreds of lines of the words a task uses) and ranks as documentation.
// Measured on go-git: plumbing/format/index/doc.go, a 4.9k-token format
// description, ranked above the decoder a task was about and took the
// budget, whole.
//
// A source file under an examples directory ranks as a test: like a test,
// it is usage of the code, written in the words of its API, and rarely
// where a change goes. Measured on express, whose examples/ took 2.5 of
// the top 10 files per kit task and held no gold file: lines all % +3 at
// 8k and +2 at 16k, no other kit cell moved.
//
// A changelog (CHANGELOG.md, CHANGES, History.md, HISTORY.rst, NEWS)
// ranks as data: it is a list of past changes in the words their
// authors used, so it matches a task said the same way (a fix's title is
// next to the last one's) without being context for it. As documentation
// it was shown in 284 of the kit's 1,340 prompts at 8k.
//
// A shell completion script without an extension (zsh's _fd, bash's
// docker) ranks as documentation: it lists every option of a program with
// a line of prose each, so it matched any task about options. fd's
// contrib/completion/_fd was in the first eight files of 22 of its 60 kit
// prompts at 8k; ranked as documentation it won 6 tasks of fd, ripgrep
// and urfave-cli and lost none (round 40). One with an extension (rg.zsh,
// fd.bash) stays source: counting those too lost the one kit task that
// was about a completion script.
func rankClass(f *index.File) index.Class {
	if f.Class == index.Source && len(f.Symbols) == 0 && path.Base(f.Path) == "doc.go" {
		return index.Doc
	}
	if f.Class == index.Doc && isChangelog(f.Path) {
		return index.Data
	}
	if f.Class == index.Source && isExample(f.Path) {
		return index.Test
	}
	if f.Class == index.Source && isShellCompletion(f.Path) {
		return index.Doc
	}
	return f.Class
}

// isShellCompletion reports a file without an extension under a
// directory of shell completions (completion/, completions/, complete/,
// autocomplete/).
func isShellCompletion(p string) bool {
	return path.Ext(p) == "" && underDir(p, "completion", "completions", "complete", "autocomplete")
}

// isChangelog reports a changelog by its name: CHANGELOG, CHANGES,
// HISTORY, NEWS or RELEASE-NOTES, with or without an extension.
func isChangelog(p string) bool {
	b := strings.ToLower(path.Base(p))
	b = strings.TrimSuffix(b, path.Ext(b))
	switch b {
	case "changelog", "changes", "history", "news", "release-notes", "release_notes", "releasenotes":
		return true
	}
	return false
}

// isExample reports whether p is under a directory of examples, demos or
// samples (examples/, _examples/, example/, demo/, samples/).
func isExample(p string) bool {
	return underDir(p, "example", "examples", "demo", "demos", "sample", "samples")
}

// underDir reports whether a directory of p, lowercased and without a
// leading underscore, is one of names.
func underDir(p string, names ...string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if slices.Contains(names, strings.ToLower(strings.TrimPrefix(seg, "_"))) {
			return true
		}
	}
	return false
}

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

// query is a task prepared for ranking.
type query struct {
	terms   []string       // distinct terms, sorted
	termIdx map[string]int // term → index in terms
	qtf     []int          // occurrences of each term in the task
	m       mentions
	lits    []literal       // m's quotes, then its flags: see literals
	keep    map[string]bool // stop words written as flags, kept as terms
	title   []bool          // the term is in the task's first line
	word    []bool          // the term is a word of the first line, not a compound
	ident   []bool          // the term is an identifier the first line writes as code
	weight  []float64       // 1, or variantWeight for a spelling variant the task does not write
	block   []bool          // the term is only in the task's code blocks: codeBlockWeight in ranking files
}

func newQuery(task string) *query {
	q := &query{termIdx: map[string]int{}, m: extractMentions(task)}
	counts := map[string]int{}
	// URLs name other repositories and hosts; their words (github, com,
	// blob, a commit hash) would match everything.
	lexical := mentionREs().url.ReplaceAllString(task, " ")
	first, _, _ := strings.Cut(strings.TrimSpace(lexical), "\n")
	titleMentions := extractMentions(first)
	q.lits = literals(q.m)
	q.lits = append(q.lits, siblingFlags(q.lits, titleMentions.Flags)...)
	q.keep = flagWords(lexical)
	for _, t := range terms(lexical, q.keep) {
		counts[t]++
	}
	for _, t := range phraseCompounds(lexical) {
		counts[t]++
	}
	variantOf := map[string]string{} // variant → the task's term
	for t := range counts {
		if v := variant(t); v != "" && counts[v] == 0 {
			variantOf[v] = t
		}
	}
	for v := range variantOf {
		counts[v] = 1
	}
	// The terms written outside code blocks, from the text extractMentions
	// has already blanked them out of.
	outside := map[string]bool{}
	text := q.m.outside
	for _, t := range terms(text, q.keep) {
		outside[t] = true
	}
	for _, t := range phraseCompounds(text) {
		outside[t] = true
	}
	for v, t := range variantOf {
		outside[v] = outside[t]
	}
	for t := range counts {
		q.terms = append(q.terms, t)
	}
	sort.Strings(q.terms)
	q.qtf = make([]int, len(q.terms))
	q.weight = make([]float64, len(q.terms))
	q.block = make([]bool, len(q.terms))
	for i, t := range q.terms {
		q.block[i] = !outside[t]
		q.termIdx[t] = i
		q.qtf[i] = counts[t]
		q.weight[i] = 1
		if variantOf[t] != "" {
			q.weight[i] = variantWeight
		}
	}
	q.title = make([]bool, len(q.terms))
	q.word = make([]bool, len(q.terms))
	for _, t := range terms(first, q.keep) {
		if i, ok := q.termIdx[t]; ok {
			q.title[i], q.word[i] = true, true
		}
	}
	for _, t := range phraseCompounds(first) {
		if i, ok := q.termIdx[t]; ok {
			q.title[i] = true
		}
	}
	for v, t := range variantOf {
		q.title[q.termIdx[v]] = q.title[q.termIdx[t]]
	}
	q.ident = make([]bool, len(q.terms))
	for _, id := range titleMentions.Idents {
		if !id.CodeLike {
			continue
		}
		if i, ok := q.termIdx[compoundKey(id.Name)]; ok {
			q.ident[i] = true
		}
	}
	return q
}

// tfWeight is the weight of term k for how often the task says it,
// 1 + ln(count), times variantWeight for a spelling variant: in ranking
// files and a file's definitions alike.
func (q *query) tfWeight(k int) float64 { return (1 + math.Log(float64(q.qtf[k]))) * q.weight[k] }

// variant returns the other spelling of a term that stem leaves apart, or
// "". stem cuts -ing and -ed without restoring an e and keeps a final e
// otherwise, so "handling" and "handled" give handl while "handle" and
// "handles" give handle: a term ending in e has the variant without it,
// a word ending in a consonant the one with it. Stemming both alike
// instead (dropping every final e, or restoring it) conflates more than
// the task says: "named" meets every name.
func variant(t string) string {
	n := len(t)
	switch {
	case n >= 5 && t[n-1] == 'e' && t[n-2] != 'e':
		return t[:n-1]
	case n >= 4 && isAlpha(t) && !strings.ContainsRune("aeiouy", rune(t[n-1])):
		return t + "e"
	}
	return ""
}

// compoundKey is an identifier as its compound term spells it, lowercased
// and without underscores (HasEncodedObject, has_encoded_object:
// hasencodedobject), for matching a written identifier to terms and to
// other identifiers.
func compoundKey(id string) string { return strings.ReplaceAll(strings.ToLower(id), "_", "") }

// flagWords returns the stop words the task writes as a command-line
// flag: in "log --all" or "--no-verify", "all" and "no" name an option
// (NewCommitAllIter, NoVerify), not English. Nil when there are none.
func flagWords(task string) map[string]bool {
	var keep map[string]bool
	for _, m := range mentionREs().flag.FindAllStringSubmatch(task, -1) {
		for _, w := range strings.Split(strings.ToLower(m[1]), "-") {
			if t := string(stem([]byte(w))); isStopWord([]byte(t)) {
				if keep == nil {
					keep = map[string]bool{}
				}
				keep[t] = true
			}
		}
	}
	return keep
}

// phraseCompounds returns the compounds of adjacent words of the task:
// "request body" gives requestbody, which is how code spells the same thing
// (RequestBody, request_body), so a task in prose can match an identifier
// exactly. Only words of three letters or more that are not stop words
// pair, and only within a run of plain words.
func phraseCompounds(task string) []string {
	var out []string
	prev := ""
	word := func(w string) {
		lw := strings.ToLower(w)
		if len(lw) < 3 || isStopWord([]byte(lw)) || !isAlpha(lw) {
			prev = ""
			return
		}
		if prev != "" {
			out = append(out, prev+lw)
		}
		prev = lw
	}
	start := -1
	for i := 0; i <= len(task); i++ {
		if i < len(task) && (ascii.IsLetter(task[i]) || ascii.IsDigit(task[i])) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			word(task[start:i])
			start = -1
		}
		if i < len(task) && task[i] != ' ' {
			prev = "" // punctuation ends the phrase
		}
	}
	return out
}

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if !ascii.IsLower(s[i]) {
			return false
		}
	}
	return true
}

// hit is one occurrence of a query term or quote in a file.
type hit struct {
	Line int32 // 1-based
	Term int32 // index into query.terms, or -1-k for quote k
}

// maxHitsPerFile bounds the occurrences kept per file: enough to choose
// definitions, not a second copy of the file.
const maxHitsPerFile = 4096

// fileStats is what one pass over a file's contents yields.
type fileStats struct {
	tf     []int32 // per query term
	length int     // number of terms
	lines  int
	hits   []hit
	quotes []int // indexes of quotes found
	read   bool  // contents were scanned
	err    error
}

// skipContent reports whether a file's contents are not worth scanning:
// they could only be context if named, and the path still matches.
func skipContent(f *index.File) bool {
	switch f.Class {
	case index.Vendored, index.Lock, index.Minified:
		return true
	}
	return false
}

// scanContents reads every file once and counts query terms, quotes and
// their lines. Files are read in parallel; results land in an
// index-addressed slice.
func scanContents(ctx context.Context, ix *index.Index, q *query, par int, read func(string) ([]byte, error)) ([]fileStats, error) {
	stats := make([]fileStats, len(ix.Files))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(par)
	const chunk = 64
	quotes := q.lits
	only := new(prefixSet)
	for _, t := range q.terms {
		if len(t) >= 2 {
			only[prefixKey([]byte(t))] = true
		}
	}
	pool := sync.Pool{New: func() any { return &termScanner{only: only, keep: q.keep} }}
	for lo := 0; lo < len(ix.Files); lo += chunk {
		hi := min(lo+chunk, len(ix.Files))
		g.Go(func() error {
			sc := pool.Get().(*termScanner)
			defer pool.Put(sc)
			for i := lo; i < hi; i++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				f := &ix.Files[i]
				if skipContent(f) {
					continue
				}
				src, err := read(f.Path)
				if err != nil {
					stats[i].err = err
					continue
				}
				stats[i] = scanFile(sc, src, q, quotes)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return stats, nil
}

// scanFile counts the query's terms and literals in one file's contents.
func scanFile(sc *termScanner, src []byte, q *query, quotes []literal) fileStats {
	st := fileStats{tf: make([]int32, len(q.terms)), read: true}
	// Each literal's lines, found in the whole text; next[k] is the
	// index of the first of them not yet passed.
	var litLines [][]int32
	var next []int
	if len(quotes) > 0 {
		litLines, next = make([][]int32, len(quotes)), make([]int, len(quotes))
		for k, lit := range quotes {
			litLines[k] = lit.lines(src)
		}
	}
	line := int32(0)
	for len(src) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			l, src = src[:i], src[i+1:]
		} else {
			l, src = src, nil
		}
		st.length += sc.scan(l, func(t []byte) {
			if k, ok := q.termIdx[string(t)]; ok {
				st.tf[k]++
				if len(st.hits) < maxHitsPerFile {
					st.hits = append(st.hits, hit{Line: line, Term: int32(k)})
				}
			}
		})
		for k := range quotes {
			if ls := litLines[k]; next[k] < len(ls) && ls[next[k]] == line {
				next[k]++
				if len(st.quotes) == 0 || st.quotes[len(st.quotes)-1] != k {
					st.quotes = appendUnique(st.quotes, k)
				}
				if len(st.hits) < maxHitsPerFile {
					st.hits = append(st.hits, hit{Line: line, Term: int32(-1 - k)})
				}
			}
		}
	}
	st.lines = int(line)
	return st
}

// literal is text of the task that code holds verbatim: a quoted string,
// found anywhere in a line, or a flag's name, found as a string ("pre",
// 'pre') or with its dashes (--pre, and not --pre-glob), where the code
// that defines, reads or documents the flag is.
type literal struct {
	text []byte // the quote, or the flag's name
	flag bool
	// of is, for a sibling flag, the new flag of the title it may stand
	// for (siblingFlags); empty for every other literal.
	of string
}

// literals returns the quotes of m, then its flags; a hit's Term -1-k
// is the k-th of them.
func literals(m mentions) []literal {
	out := make([]literal, 0, len(m.Quotes)+len(m.Flags))
	for _, s := range m.Quotes {
		out = append(out, literal{text: []byte(s)})
	}
	for _, s := range m.Flags {
		out = append(out, literal{text: []byte(s), flag: true})
	}
	return out
}

// maxSiblingFlags bounds the sibling flags searched, as maxFlags bounds
// the flags: each is one more search of every file.
const maxSiblingFlags = 2 * maxFlags

// siblingFlags returns the flags that may stand for a new flag of the
// title: a task that adds --no-ignore-dot adds it where --no-ignore is
// defined and read, as a new identifier goes in next to its sibling
// (siblings). The candidates are the flag's names cut at a dash, from
// either end, of at least minSiblingLen bytes and minSiblingShare of its
// length (no-ignore and ignore-dot; not no or dot), longest first.
// Which of them count is decided once the files are scanned
// (keepSiblings): only when the flag itself is found nowhere.
func siblingFlags(lits []literal, title []string) []literal {
	have := map[string]bool{}
	for _, l := range lits {
		if l.flag {
			have[string(l.text)] = true
		}
	}
	var out []literal
	for _, name := range title {
		if !have[name] {
			continue // over maxFlags: not searched itself
		}
		var cands []string
		for i := 0; i < len(name); i++ {
			if name[i] != '-' {
				continue
			}
			for _, c := range []string{name[:i], name[i+1:]} {
				if len(c) >= minSiblingLen && float64(len(c)) >= minSiblingShare*float64(len(name)) && !have[c] {
					have[c] = true
					cands = append(cands, c)
				}
			}
		}
		sort.SliceStable(cands, func(a, b int) bool { return len(cands[a]) > len(cands[b]) })
		for _, c := range cands {
			if len(out) == maxSiblingFlags {
				return out
			}
			out = append(out, literal{text: []byte(c), flag: true, of: name})
		}
	}
	return out
}

// keepSiblings drops from stats the hits of every sibling flag that does
// not stand in for its new flag: the flag itself is found in some file,
// so it is not new, or a longer sibling of it is found. What is left
// counts as the flag would: a mention of the files that hold it and a
// pointer to the lines.
func keepSiblings(q *query, stats []fileStats) {
	if len(q.lits) == 0 || q.lits[len(q.lits)-1].of == "" {
		return // siblings come last; there are none
	}
	found := make([]bool, len(q.lits))
	for i := range stats {
		for _, k := range stats[i].quotes {
			found[k] = true
		}
	}
	byName := map[string]int{}
	for k, l := range q.lits {
		if l.flag && l.of == "" {
			byName[string(l.text)] = k
		}
	}
	longest := map[string]int{}
	for k, l := range q.lits {
		if l.of != "" && found[k] && !found[byName[l.of]] {
			longest[l.of] = max(longest[l.of], len(l.text))
		}
	}
	drop := map[int32]bool{}
	for k, l := range q.lits {
		if l.of != "" && found[k] && (longest[l.of] == 0 || len(l.text) < longest[l.of]) {
			drop[int32(-1-k)] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	for i := range stats {
		st := &stats[i]
		if len(st.quotes) == 0 {
			continue // no literal, so no literal's hits
		}
		quotes := st.quotes[:0]
		for _, k := range st.quotes {
			if !drop[int32(-1-k)] {
				quotes = append(quotes, k)
			}
		}
		st.quotes = quotes
		hits := st.hits[:0]
		for _, h := range st.hits {
			if !drop[h.Term] {
				hits = append(hits, h)
			}
		}
		st.hits = hits
	}
}

// String is the literal as -explain names it.
func (l literal) String() string {
	if l.of != "" {
		return "flag --" + string(l.text) + ", sibling of --" + l.of
	}
	if l.flag {
		return "flag --" + string(l.text)
	}
	return fmt.Sprintf("quote %q", clip(string(l.text), 40))
}

// lines returns the 1-based lines of src that hold the literal, in
// order, each once. It searches the whole text, not line by line: most
// files hold no literal, and one search rules them out.
func (l literal) lines(src []byte) []int32 {
	var out []int32
	line, pos := int32(1), 0 // the line that src[pos] is on
	for off := 0; off < len(src); {
		i := bytes.Index(src[off:], l.text)
		if i < 0 {
			break
		}
		i += off
		off = i + 1
		if l.flag && !flagAt(src, i, i+len(l.text)) {
			continue
		}
		line += int32(bytes.Count(src[pos:i], []byte{'\n'}))
		pos = i
		if len(out) == 0 || out[len(out)-1] != line {
			out = append(out, line)
		}
	}
	return out
}

// flagAt reports whether src[i:end], a flag's name, is written as the
// flag: in matching quotes ("pre", 'pre', `pre`) or after two dashes and
// no third (--pre), where no character of a name follows (not --pre-glob).
func flagAt(src []byte, i, end int) bool {
	at := func(k int) byte {
		if k < 0 || k >= len(src) {
			return 0
		}
		return src[k]
	}
	before, after := at(i-1), at(end)
	switch {
	case (before == '"' || before == '\'' || before == '`') && after == before:
		return true
	case before == '-' && at(i-2) == '-' && at(i-3) != '-' && !isFlagByte(after):
		return true
	}
	return false
}

// isFlagByte reports whether c continues a flag's name.
func isFlagByte(c byte) bool {
	return ascii.IsLetter(c) || ascii.IsDigit(c) || c == '-' || c == '_'
}

func appendUnique(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
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

// mentionTarget is one file a mention points at.
type mentionTarget struct {
	score    float64
	explicit bool  // a path, file name or frame names the file: class does not matter
	lines    []int // lines the mention points at (frames, definitions)
	why      []string
}

// lookup holds the index's names for mention matching.
type lookup struct {
	byPath   map[string]int
	byBase   map[string][]int
	byStem   map[string][]int
	dirs     map[string][]int // directory path → files directly or deeply inside
	dirNames map[string]bool  // base names of directories: Go and Python package names
	topNames map[string]bool  // names of types, classes and variables defined outside any type or class
	modules  map[string]bool  // lowered stems of files that name a module (all but Go's)
	defs     map[string][]int // symbol name → files defining it (distinct, sorted)
}

func newLookup(ix *index.Index) *lookup {
	lk := &lookup{
		byPath:   make(map[string]int, len(ix.Files)),
		byBase:   map[string][]int{},
		byStem:   map[string][]int{},
		dirs:     map[string][]int{},
		dirNames: map[string]bool{},
		topNames: map[string]bool{},
		modules:  map[string]bool{},
		defs:     map[string][]int{},
	}
	for i := range ix.Files {
		f := &ix.Files[i]
		lk.byPath[f.Path] = i
		base := path.Base(f.Path)
		lk.byBase[base] = append(lk.byBase[base], i)
		stem := strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))
		lk.byStem[stem] = append(lk.byStem[stem], i)
		if f.Lang != "go" {
			lk.modules[stem] = true // Python, Ruby, JavaScript: a file is a module; a Go file's name names no package
		}
		for d := path.Dir(f.Path); d != "." && d != "/"; d = path.Dir(d) {
			lk.dirs[d] = append(lk.dirs[d], i)
			lk.dirNames[path.Base(d)] = true
		}
		for _, s := range f.Symbols {
			if len(s.Name) < 3 {
				continue
			}
			if s.Scope == "" && s.Kind != "function" {
				lk.topNames[s.Name] = true // a type, class, module or variable may qualify a name; a function may not
			}
			l := lk.defs[s.Name]
			if len(l) == 0 || l[len(l)-1] != i {
				lk.defs[s.Name] = append(l, i)
			}
		}
	}
	return lk
}

// foreignScope reports a qualifier that names nothing in the repository:
// in "path.Dir" or "res.Body" the name is the standard library's or a
// local variable's, and the repository's own Dir or Body is no more named
// than by a plain word. (Measured on go-git: "a path.Dir heuristic" put a
// file defining an unrelated Dir first.)
func (lk *lookup) foreignScope(scope string) bool {
	switch scope {
	case "", "self", "this", "cls", "super":
		return false
	}
	return !lk.topNames[scope] && !lk.dirNames[scope] && !lk.modules[strings.ToLower(scope)]
}

// matchMentions scores each file by what the task names. The result maps
// file index to its target record.
func matchMentions(ix *index.Index, lk *lookup, q *query, stats []fileStats) map[int]*mentionTarget {
	out := map[int]*mentionTarget{}
	add := func(i int, s float64, line int, why string) {
		t := out[i]
		if t == nil {
			t = &mentionTarget{}
			out[i] = t
		}
		t.score += s
		if line > 0 {
			t.lines = append(t.lines, line)
		}
		if len(t.why) < 6 {
			t.why = append(t.why, why)
		}
	}
	for _, pm := range q.m.Paths {
		p := pm.Path
		strength, kind := mentionFullPath, "path"
		if pm.Frame {
			strength, kind = mentionFrame, "frame"
		}
		if i, ok := lk.byPath[p]; ok {
			add(i, strength, pm.Line, fmt.Sprintf("%s %s", kind, p))
			out[i].explicit = true
			continue
		}
		// A path suffix: "/abs/checkout/pkg/x.go" or "pkg/x.go" in a subdirectory.
		var suffix []int
		if strings.Contains(p, "/") {
			for j := range ix.Files {
				fp := ix.Files[j].Path
				if strings.HasSuffix(fp, "/"+p) || strings.HasSuffix(p, "/"+fp) {
					suffix = append(suffix, j)
				}
			}
		}
		if len(suffix) > 0 {
			for _, j := range suffix {
				add(j, strength/float64(len(suffix)), pm.Line, fmt.Sprintf("%s %s", kind, p))
				out[j].explicit = true
			}
			continue
		}
		base := path.Base(p)
		if l := lk.byBase[base]; len(l) > 0 && strings.Contains(base, ".") {
			s := mentionBaseName
			if pm.Frame {
				s = mentionFrame
			}
			for _, j := range l {
				add(j, s/float64(len(l)), pm.Line, "file "+base)
				out[j].explicit = true
			}
			continue
		}
		if l := lk.dirs[p]; len(l) > 0 {
			for _, j := range l {
				add(j, mentionDir/math.Sqrt(float64(len(l))), 0, "dir "+p)
			}
			continue
		}
		// A directory named by a suffix: "format/packfile".
		if strings.Contains(p, "/") {
			var hits []int
			for d, l := range lk.dirs {
				if strings.HasSuffix(d, "/"+p) {
					hits = append(hits, l...)
				}
			}
			sort.Ints(hits)
			for _, j := range hits {
				add(j, mentionDir/math.Sqrt(float64(len(hits))), 0, "dir "+p)
			}
		}
	}
	for _, id := range q.m.Idents {
		w, where := 1.0, ""
		if id.CodeBlock {
			w, where = codeBlockWeight, " (code block)"
		}
		if id.CodeLike || len(id.Name) >= 5 {
			if l := lk.byStem[strings.ToLower(id.Name)]; len(l) > 0 && len(l) <= maxSymbolDefiners && (id.CodeLike || !isStopWord([]byte(strings.ToLower(id.Name)))) {
				for _, j := range l {
					add(j, w*mentionStem/float64(len(l)), 0, "name "+id.Name+where)
				}
			}
		}
		l := lk.defs[id.Name]
		if len(l) == 0 || len(l) > maxSymbolDefiners {
			continue
		}
		s := mentionWord
		if id.CodeLike && !lk.foreignScope(id.Scope) && !(id.Qualifier && lk.foreignScope(id.Name)) {
			s = mentionSymbol
		} else if len(id.Name) < 4 {
			continue
		}
		for _, j := range l {
			f := &ix.Files[j]
			var lines []int
			scoped := 1.0
			for _, sym := range f.Symbols {
				if sym.Name == id.Name {
					lines = append(lines, sym.Start)
					if id.Scope != "" && sym.Scope == id.Scope {
						scoped = 1.5 // Client.Do names this very method
					}
				}
			}
			add(j, w*scoped*s/math.Sqrt(float64(len(l))), 0, "symbol "+id.Name+where)
			if s == mentionSymbol {
				// Only a name written as code points into the file: a plain
				// word ("type", "build") that happens to name a definition
				// says which file, not which lines. A capitalized word in
				// mid-sentence naming a type ("commands to Group") taken as
				// code, its constructor pointed at too, won 2 kit tasks and
				// lost 3 (round 34).
				out[j].lines = append(out[j].lines, lines...)
			}
		}
	}
	for k, lit := range q.lits {
		var files []int
		for i := range stats {
			for _, qk := range stats[i].quotes {
				if qk == k {
					files = append(files, i)
					break
				}
			}
		}
		if len(files) == 0 || len(files) > maxSymbolDefiners {
			continue
		}
		for _, i := range files {
			var lines []int
			for _, h := range stats[i].hits {
				if h.Term == int32(-1-k) {
					lines = append(lines, int(h.Line))
				}
			}
			add(i, mentionQuote/float64(len(files)), 0, lit.String())
			if len(lines) <= maxQuoteLines {
				// A quote on a few lines points at them; one all over the
				// file (a name in backticks) is a term there (fileUnits).
				out[i].lines = append(out[i].lines, lines...)
			}
		}
	}
	// A commit the task names points at what it changed, and at the lines
	// it wrote: a revert takes them out, a follow-up or a regression fix
	// works on them.
	for _, cm := range q.m.Commits {
		var files []commitFile
		for _, f := range cm.Files {
			if _, ok := lk.byPath[f.Path]; ok {
				files = append(files, f)
			}
		}
		for _, f := range files {
			i := lk.byPath[f.Path]
			add(i, mentionCommit/math.Sqrt(float64(len(files))), 0, "commit "+clip(cm.ID, 10))
			out[i].lines = append(out[i].lines, f.Lines...)
		}
	}
	for _, t := range out {
		t.score = math.Min(t.score, maxMention)
		sort.Ints(t.lines)
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// pairKey returns the key that a test and its source share, and whether p
// is a test by name. The key is the path without extension and without the
// test affixes of Go (_test), Python (test_, _test), JavaScript (.test,
// .spec) and Java (Test, Tests). A test under a tests/, test/, __tests__/
// or spec/ directory pairs with a source of the same name anywhere, so its
// key is "*/" and the lowercased stem; sourceKeys gives a source both keys.
func pairKey(p string) (key string, test bool) {
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for _, suf := range []string{"_test", ".test", ".spec", "_spec", "Tests", "Test"} {
		if strings.HasSuffix(stem, suf) && len(stem) > len(suf) {
			stem, test = strings.TrimSuffix(stem, suf), true
			break
		}
	}
	if !test && strings.HasPrefix(stem, "test_") && len(stem) > 5 {
		stem, test = stem[5:], true
	}
	for _, d := range []string{"tests/", "test/", "__tests__/", "spec/"} {
		if strings.HasPrefix(dir, d) || strings.Contains(dir, "/"+d) {
			return "*/" + strings.ToLower(stem), true
		}
	}
	return dir + stem, test
}

// sourceKeys returns the pairing keys of a source file: its own and the
// one tests in a tests/ directory use.
func sourceKeys(p string) [2]string {
	dir, base := path.Split(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	return [2]string{dir + stem, "*/" + strings.ToLower(stem)}
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

// seedClassFactor keeps vendored, generated and lock files from seeding the
// walk unless they are the only match.
func seedClassFactor(c index.Class) float64 { return classFactor(c) }

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
