package budget

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Ranges counts ranges of one text exactly without recounting the text:
// Fit counts the dropped middle of a large text on every try, and split
// counts ever shorter remainders of a line longer than a part, which
// recounted whole was quadratic (a 50 MB line took five minutes).
//
// With an exact tiktoken counter (NewEncodingCounter, also under Scaled)
// NewRanges cuts the text at safe split points (safeSplit) into chunks of
// about rangeChunk bytes and counts each once, in parallel; the count of
// [a, b) is then that of its partial first chunk, the sums of the whole
// chunks inside, and that of its partial last chunk. This is exact: a cut
// that is safe in the text is safe in any range holding the runes around
// it (safeAt looks only at them). With any other Counter, whose counts
// need not add up, each range is counted whole. A Ranges is immutable and
// safe for concurrent use if its Counter is.
type Ranges struct {
	c      Counter
	text   string
	bc     *bpeCounter    // nil: count every range with c
	scaled *scaledCounter // the scaling of bc's counts, if any
	bounds []int          // chunk starts, then len(text)
	prefix []int          // prefix[k]: unscaled tokens of text[:bounds[k]]
}

// rangeChunk is the size of a Ranges' chunks: the most a range count
// recounts at each end.
const rangeChunk = 64 << 10

// NewRanges returns Ranges over text counted with c (see Ranges). It
// counts text now when c's counts add up at safe points.
func NewRanges(c Counter, text string) *Ranges {
	r := &Ranges{c: c, text: text}
	base := c
	if s, ok := c.(scaledCounter); ok {
		r.scaled, base = &s, s.c
	}
	switch b := base.(type) {
	case encodingCounter:
		r.bc, _ = b.Counter.(*bpeCounter)
	case *bpeCounter:
		r.bc = b
	}
	if r.bc == nil || !utf8.ValidString(text) {
		r.bc = nil // Count replaces invalid UTF-8, which safeSplit does not expect
		return r
	}
	for p := 0; p < len(text); {
		r.bounds = append(r.bounds, p)
		p = safeSplit(text, p+rangeChunk)
	}
	r.bounds = append(r.bounds, len(text))
	chunks := len(r.bounds) - 1
	counts := make([]int, chunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(chunks, 1)) {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= chunks {
					return
				}
				counts[k] = r.bc.countSerial(text[r.bounds[k]:r.bounds[k+1]])
			}
		})
	}
	wg.Wait()
	r.prefix = make([]int, len(r.bounds))
	for k, n := range counts {
		r.prefix[k+1] = r.prefix[k] + n
	}
	return r
}

// Total returns the count of the whole text.
func (r *Ranges) Total() int { return r.Count(0, len(r.text)) }

// Count returns the count of text[a:b], as c.Count(text[a:b]) would; a and
// b must be rune boundaries.
func (r *Ranges) Count(a, b int) int {
	if r.bc == nil {
		return r.c.Count(r.text[a:b])
	}
	n := r.unscaled(a, b)
	if r.scaled != nil {
		return r.scaled.countOf(n)
	}
	return n
}

// unscaled counts text[a:b] with the exact counter.
func (r *Ranges) unscaled(a, b int) int {
	if a >= b {
		return 0
	}
	i := sort.SearchInts(r.bounds, a)       // first bound >= a
	j := sort.SearchInts(r.bounds, b+1) - 1 // last bound <= b
	if i >= j {
		return r.bc.Count(r.text[a:b]) // within about two chunks
	}
	return r.bc.Count(r.text[a:r.bounds[i]]) + r.prefix[j] - r.prefix[i] + r.bc.Count(r.text[r.bounds[j]:b])
}
