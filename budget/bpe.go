package budget

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ctxtrim/ctxtrim/budget/internal/ranktable"
)

// Fast exact token counting
//
// NewEncodingCounter counts exactly what tiktoken's encode_ordinary (as
// implemented by the reference, github.com/pkoukk/tiktoken-go) returns, an
// order of magnitude faster, and starts with nothing to build (the
// reference takes a few hundred milliseconds to build its maps):
//
//  1. Invalid UTF-8 is first replaced byte by byte with U+FFFD, as the
//     reference's []rune conversion does.
//  2. pretok.go splits the text into the pieces of the encoding's split
//     pattern without a regexp engine: a hand-written matcher per pattern
//     that reproduces regexp2's leftmost-alternative backtracking, proved
//     alternative by alternative in its comments and checked piece by piece
//     against regexp2 (TestPiecesMatchRegexp, FuzzCountMatchesReference).
//  3. Each piece is looked up once in the rank table (bpe_table.go), in
//     batches so that cache misses overlap (countBatch); most pieces are
//     tokens. Only the others are byte-pair merged (mergeCount),
//     with the quadratic scan tiktoken uses for short pieces and a heap for
//     long ones, both giving the same merges.
//  4. Texts of parallelMin bytes or more are cut at boundaries that provably
//     leave every piece unchanged (safeSplit) and counted concurrently.
//
// The rank tables are laid out at build time (go generate; package
// internal/ranktable) and read in place from the executable, so a fresh
// process counts its first token after reading a 64-byte header; they are
// shared by all counters of an encoding (see tables). Exactness is tested
// by a differential fuzz test against the reference, golden counts
// recorded from it, a check of every token of the tables against the
// reference's ranks, and a sample of the Go sources;
// scripts/check-tokenizer-corpus.sh checks the whole $GOROOT/src and
// non-English text, and scripts/bench-tokenizers.sh measures start-up and
// throughput against tiktoken-go and npm tiktoken (WASM).

// bpeCounter is the fast exact Counter: the regexp-free pre-tokenizer of
// pretok.go, one rank lookup per piece, and byte-pair merges only for the
// pieces that are not themselves tokens. It counts exactly what
// tiktoken-go's EncodeOrdinary returns (checked by FuzzCountMatchesReference
// and the corpus tests). It is immutable and safe for concurrent use.
type bpeCounter struct {
	t    *ranktable.Table
	next func(s string, i int) int // end of the piece starting at i
}

// Parallel counting: texts of at least parallelMin bytes are cut into chunks
// of about chunkSize bytes at safe boundaries (see safeSplit) and counted by
// up to GOMAXPROCS goroutines. Below parallelMin, starting goroutines costs
// more than it saves.
const (
	parallelMin = 256 << 10
	chunkSize   = 64 << 10
)

func newBPECounter(encoding string) (*bpeCounter, error) {
	load, ok := tables[encoding]
	if !ok {
		return nil, fmt.Errorf("unknown encoding %q (known: %s)", encoding, strings.Join(knownEncodings, ", "))
	}
	t, err := load()
	if err != nil {
		return nil, err
	}
	c := &bpeCounter{t: t, next: cl100kNext}
	if encoding == O200kBase {
		c.next = o200kNext
	}
	return c, nil
}

// Count returns the number of tokens of text, as tiktoken's
// encode_ordinary: special-token text is plain text.
func (c *bpeCounter) Count(text string) int {
	if !utf8.ValidString(text) {
		// The reference decodes with []rune(text): each invalid byte
		// becomes U+FFFD, whose UTF-8 bytes are then tokenized.
		text = string([]rune(text))
	}
	if len(text) >= parallelMin && runtime.GOMAXPROCS(0) > 1 {
		return c.countParallel(text, runtime.GOMAXPROCS(0), chunkSize)
	}
	return c.countSerial(text)
}

// countSerial counts valid UTF-8 text on the calling goroutine.
//
// Looking pieces up is bound by memory latency: the table is larger than a
// core's cache and a lookup reads a random slot.
// Pieces are therefore looked up in batches (countBatch), each step a loop
// of independent loads over the batch, so that the CPU overlaps the cache
// misses of different pieces instead of waiting for them one at a time.
func (c *bpeCounter) countSerial(s string) int {
	var (
		batch [lookupBatch]string
		memo  mergeMemo
	)
	n := 0
	i := 0
	for i < len(s) {
		k := 0
		for k < len(batch) && i < len(s) {
			e := c.next(s, i)
			if e-i == 1 {
				n++ // every byte is a token
			} else {
				batch[k] = s[i:e]
				k++
			}
			i = e
		}
		n += countBatch(c.t, batch[:k], &memo)
	}
	return n
}

// lookupBatch is the number of pieces countSerial looks up together: enough
// to keep several cache misses in flight, few enough to stay in the L1
// cache.
const lookupBatch = 32

// countBatch returns the number of tokens of pieces (each longer than one
// byte): 1 for a piece that is a token, its merge count (through memo)
// otherwise. It
// first computes every piece's key and reads its home slot, then only
// compares: each step is a loop of independent loads. A short piece (see
// ranktable.ShortMax) whose home slot holds its key is a token, one whose
// home slot is empty is not; a long piece's match is confirmed by its
// bytes, and the rest probe on.
func countBatch(t *ranktable.Table, pieces []string, memo *mergeMemo) int {
	var (
		keys  [lookupBatch]uint64
		homes [lookupBatch]uint64
		slots [lookupBatch]uint64 // the key in the home slot
		state [lookupBatch]uint8
	)
	const (
		unknown = iota
		token
		notToken
	)
	maxLen := t.MaxLen()
	for k, p := range pieces {
		switch {
		case len(p) == 2:
			if _, ok := t.Pair(p[0], p[1]); ok {
				state[k] = token
			} else {
				state[k] = notToken
			}
			continue
		case len(p) > maxLen:
			state[k] = notToken
			continue
		}
		keys[k], homes[k] = t.Key(p)
		slots[k] = t.Slot(homes[k])
	}
	n := 0
	for k, p := range pieces {
		switch {
		case state[k] == token:
			n++
		case state[k] == notToken || slots[k] == 0: // an empty home slot ends the probe
			n += memo.count(t, p)
		case slots[k] == keys[k] && ranktable.Short(keys[k]):
			n++
		default:
			var ok bool
			if slots[k] == keys[k] {
				_, ok = t.FindAt(p, keys[k], homes[k])
			} else {
				_, ok = t.Find(p, keys[k], homes[k])
			}
			if ok {
				n++
			} else {
				n += memo.count(t, p)
			}
		}
	}
	return n
}

// mergeMemo remembers the merge counts of the pieces of one text that are
// not tokens: words recur, and a merge costs dozens of lookups where the
// memo costs one map access (on the non-English half of
// scripts/bench-tokenizers.sh's prompt a third of the merged bytes are
// repeats, and counting it takes 13% less CPU). It is local to one
// countSerial call, holds at most memoMax pieces (substrings of the text,
// not copies), and its zero value is empty.
type mergeMemo struct{ m map[string]int }

// memoMax bounds a mergeMemo: past it, pieces are merged unremembered.
const memoMax = 1 << 12

// count returns mergeCount(t, piece), remembered.
func (mm *mergeMemo) count(t *ranktable.Table, piece string) int {
	if n, ok := mm.m[piece]; ok {
		return n
	}
	n := mergeCount(t, piece)
	if mm.m == nil {
		mm.m = make(map[string]int, 64)
	}
	if len(mm.m) < memoMax {
		mm.m[piece] = n
	}
	return n
}

// safeSplit returns the first index p >= from such that cutting s at p
// leaves every piece unchanged, or len(s) if there is none.
//
// p is safe when s[p-1] is '\n' and s[p] is an ASCII character that is
// neither whitespace nor '/', and at the cuts inside a line of safeAt.
// Proof for the newline, for both split patterns: matching is
// sequential and has no look-behind, so the pieces from a piece boundary on
// depend only on the text from there; it remains to show that p is a piece
// boundary and that no piece before p looked at s[p:] to decide its end.
// Which piece holds the '\n' at p-1? '\n' is excluded from the word
// prefix [^\r\n\p{L}\p{N}], from letters, marks, numbers and from
// [^\s\p{L}\p{N}], so it is in either the [\r\n]* (o200k: [\r\n/]*) tail of
// a punctuation piece, which stops at s[p] since s[p] is not \r, \n or '/',
// or a whitespace piece. A whitespace run holding it stops at s[p] (not
// whitespace), and since it holds a newline, \s*[\r\n]+ matches it, ending
// just after its last \r or \n: at p. Alternatives tried before that one
// look at most one character past the piece's first character (the word
// prefix, " ?" before punctuation), which is at most p-1. The only scans
// that pass a '\n' are these whitespace and [\r\n/]* runs, which all stop at
// p in the whole text and at the end of s[:p] alike; the contraction
// (?i:'s|...) needs "'" and letters, so it cannot cross p-1 either. Hence
// s[:p] splits into the same pieces as the part of s before p, and s[p:]
// into the same pieces as the rest. TestSafeSplit checks this against the
// reference.
func safeSplit(s string, from int) int {
	if from < 1 {
		from = 1
	}
	for p := from; p < len(s); p++ {
		if safeAt(s, p) {
			return p
		}
	}
	return len(s)
}

// safeAt reports whether s may be cut at p, 0 < p < len(s) (see safeSplit
// for the cut after a newline).
//
// Cuts inside a line, so that a text of one long line (minified code, a
// log without breaks, a paragraph of Chinese) streams too: p is also safe
// when the rune before it is a number (\p{N}) and the rune at p is not, or
// the rune before it is a letter (\p{L}) and the rune at p is neither a
// letter, a mark (\p{M}) nor "'". Proof, for both patterns: no piece holds
// such a number or letter and also the rune after it. A number is only in
// \p{N}{1,3}, which stops at a non-number (its runs of three count from
// the start of the run, before p). A letter is only in the letter
// alternatives (the optional prefix [^\r\n\p{L}\p{N}]? excludes it) and, in
// cl100k, in a contraction ('s …) that ends with it; the letter
// alternatives go on only through letters and marks (o200k's A and B
// classes are \p{L} and \p{M} together) and, in o200k, a contraction, which
// needs "'" at p. So a piece ends at p, and whether it ends there depends
// on the rune at p only through "is it a letter, mark, number or \"'\"",
// which the end of s[:p] answers the same. Earlier pieces look no further
// than their own end plus one rune (the lookahead of \s+(?!\S), the
// prefix), at most p-1. As for the newline cut, s[p:] then splits on its
// own into the same pieces. Runes are decoded as Count decodes them;
// around invalid UTF-8 (which Count replaces) or a rune cut at the end of
// s, no cut is made. TestSafeSplit and FuzzLastSafeSplit check this
// against the reference.
func safeAt[T string | []byte](s T, p int) bool {
	prev, c := s[p-1], s[p]
	if prev == '\n' {
		return c < utf8.RuneSelf && c != '/' && asciiClass[c]&clsSpace == 0
	}
	if !utf8.RuneStart(c) {
		return false
	}
	var pc, cc uint8
	if prev < utf8.RuneSelf {
		pc = asciiClass[prev]
	} else {
		q := p - 1
		for q > 0 && q > p-utf8.UTFMax && !utf8.RuneStart(s[q]) {
			q--
		}
		r, n := utf8.DecodeRune([]byte(s[q:p]))
		if r == utf8.RuneError || q+n != p {
			return false
		}
		pc = classOfRune(r)
	}
	if pc&(clsL|clsN) == 0 {
		return false
	}
	if c < utf8.RuneSelf {
		cc = asciiClass[c]
	} else {
		r, n := utf8.DecodeRune([]byte(s[p:min(len(s), p+utf8.UTFMax)]))
		if r == utf8.RuneError && n <= 1 {
			return false // invalid, or cut at the end of s
		}
		cc = classOfRune(r)
	}
	if pc&clsN != 0 {
		return cc&clsN == 0
	}
	return c != '\'' && cc&(clsL|clsA|clsB) == 0
}

// LastSafeSplit returns the last index i > 0 of b at which counting b[:i]
// and b[i:] separately gives the count of b, in both o200k_base and
// cl100k_base, or 0 if there is none. Streaming counters use it to cut
// their input into pieces. i is a rune boundary; a rune cut at the end of
// b is never split from its start.
func LastSafeSplit(b []byte) int {
	for i := len(b) - 1; i > 0; i-- {
		if safeAt(b, i) {
			return i
		}
	}
	return 0
}

// countParallel counts s in chunks of about chunk bytes, cut by safeSplit,
// on up to procs goroutines.
func (c *bpeCounter) countParallel(s string, procs, chunk int) int {
	var bounds []int
	for p := 0; p < len(s); {
		bounds = append(bounds, p)
		p = safeSplit(s, p+max(chunk, 1))
	}
	bounds = append(bounds, len(s))
	chunks := len(bounds) - 1
	if chunks == 1 {
		return c.countSerial(s)
	}
	procs = min(procs, chunks)
	var (
		next  atomic.Int64
		total atomic.Int64
		wg    sync.WaitGroup
	)
	for range procs {
		wg.Go(func() {
			n := 0
			for {
				k := int(next.Add(1)) - 1
				if k >= chunks {
					break
				}
				n += c.countSerial(s[bounds[k]:bounds[k+1]])
			}
			total.Add(int64(n))
		})
	}
	wg.Wait()
	return int(total.Load())
}

// mergeCount returns the number of tokens byte-pair encoding gives piece:
// repeatedly merge the adjacent pair whose concatenation has the lowest rank
// (the leftmost on ties) until no adjacent pair is a token.
func mergeCount(t *ranktable.Table, piece string) int {
	if len(piece) > heapMergeMin {
		return mergeCountHeap(t, piece)
	}
	return mergeCountScan(t, piece)
}

// mergeCountScan is mergeCount by scanning all pairs for the lowest rank at
// each step, as tiktoken does: quadratic, but fastest for short pieces.
func mergeCountScan(t *ranktable.Table, piece string) int {
	type part struct {
		start int
		rank  int
	}
	var buf [heapMergeMin + 1]part
	var parts []part
	if len(piece) < len(buf) {
		parts = buf[:len(piece)+1]
	} else {
		parts = make([]part, len(piece)+1)
	}
	// rankOf is the rank of the token spanning parts[i] and parts[i+1],
	// for the current parts, or MaxInt when that is not a token.
	rankOf := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := t.Rank(piece[parts[i].start:parts[i+skip+2].start]); ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := range parts {
		parts[i] = part{i, math.MaxInt}
	}
	for i := 0; i+2 < len(parts); i++ {
		parts[i].rank = rankOf(i, 0)
	}
	for {
		minRank, minIdx := math.MaxInt, -1
		for i := 0; i+1 < len(parts); i++ {
			if parts[i].rank < minRank {
				minRank, minIdx = parts[i].rank, i
			}
		}
		if minIdx < 0 {
			break
		}
		i := minIdx
		parts[i].rank = rankOf(i, 1)
		if i > 0 {
			parts[i-1].rank = rankOf(i-1, 1)
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	return len(parts) - 1
}

// heapMergeMin is the piece length above which mergeCount switches from the
// quadratic scan (fastest for the short pieces of ordinary text) to a heap.
const heapMergeMin = 64

// mergeCountHeap computes mergeCount in O(n log n) for long pieces: the
// parts form a linked list, and a min-heap ordered by (rank, start) yields
// the lowest-ranked, leftmost pair, as the quadratic scan would. Entries
// made stale by a merge are skipped by comparing their rank with the part's
// current one (a rank determines the token, hence the pair, at a start).
func mergeCountHeap(t *ranktable.Table, piece string) int {
	n := len(piece)
	// Part i starts at byte i; next[i]/prev[i] link the live parts, and
	// rank[i] is the rank of the token spanning part i and its successor.
	next := make([]int32, n+1)
	prev := make([]int32, n+1)
	rank := make([]int32, n+1)
	h := make(mergeHeap, 0, n)
	for i := 0; i <= n; i++ {
		next[i] = int32(i + 1)
		prev[i] = int32(i - 1)
		rank[i] = -1
	}
	// pairRank is the rank of the token spanning part i and its successor.
	pairRank := func(i int32) int32 {
		j := next[i]
		if j >= int32(n) {
			return -1
		}
		if r, ok := t.Rank(piece[i:next[j]]); ok {
			return int32(r)
		}
		return -1
	}
	for i := int32(0); i+1 < int32(n); i++ {
		if r, ok := t.Rank(piece[i : i+2]); ok {
			rank[i] = int32(r)
			h = append(h, mergeEntry{int32(r), i})
		}
	}
	h.init()
	count := n
	for len(h) > 0 {
		e := h.pop()
		if rank[e.start] != e.rank {
			continue // stale
		}
		// Merge part e.start with its successor.
		i := e.start
		j := next[i]
		next[i] = next[j]
		rank[j] = -1 // part j is gone; its entries are stale
		if next[j] <= int32(n) {
			prev[next[j]] = i
		}
		count--
		if r := pairRank(i); r >= 0 {
			rank[i] = r
			h.push(mergeEntry{r, i})
		} else {
			rank[i] = -1
		}
		if p := prev[i]; p >= 0 {
			if r := pairRank(p); r >= 0 {
				rank[p] = r
				h.push(mergeEntry{r, p})
			} else {
				rank[p] = -1
			}
		}
	}
	return count
}

type mergeEntry struct{ rank, start int32 }

func (a mergeEntry) less(b mergeEntry) bool {
	return a.rank < b.rank || a.rank == b.rank && a.start < b.start
}

// mergeHeap is a binary min-heap of merge candidates.
type mergeHeap []mergeEntry

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) push(e mergeEntry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *mergeHeap) pop() mergeEntry {
	s := *h
	e := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return e
}

func (h mergeHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
