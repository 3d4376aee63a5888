package budget

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// rangeCounter counts any range of one text exactly without recounting it
// whole: the text is cut at safe split points (safeSplit) into chunks of
// about rangeChunk bytes, each counted once, and the count of [a, b) is
// that of its partial first chunk, the sum of the whole chunks inside, and
// that of its partial last chunk. This is exact because a cut that is safe
// in the text is safe in any range holding the runes around it (safeAt
// looks only at them), and a and b are rune boundaries. Fit uses it for
// the dropped middle of a large text, which it counts on every try.
type rangeCounter struct {
	c      *bpeCounter
	text   string
	bounds []int // chunk starts, then len(text)
	prefix []int // prefix[k]: tokens of text[:bounds[k]]
}

// rangeChunk is the size of a rangeCounter's chunks: the most a range
// count recounts at each end.
const rangeChunk = 64 << 10

// newRangeCounter returns a rangeCounter for text if c is one of the
// exact tiktoken counters (whose counts add up at safe points), else nil.
// text must be valid UTF-8.
func newRangeCounter(c Counter, text string) *rangeCounter {
	var bc *bpeCounter
	switch c := c.(type) {
	case encodingCounter:
		bc, _ = c.Counter.(*bpeCounter)
	case *bpeCounter:
		bc = c
	}
	if bc == nil {
		return nil
	}
	r := &rangeCounter{c: bc, text: text}
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
				counts[k] = bc.countSerial(text[r.bounds[k]:r.bounds[k+1]])
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

// total is the count of the whole text.
func (r *rangeCounter) total() int { return r.prefix[len(r.prefix)-1] }

// count returns the count of text[a:b]; a and b are rune boundaries.
func (r *rangeCounter) count(a, b int) int {
	if a >= b {
		return 0
	}
	i := sort.SearchInts(r.bounds, a)       // first bound >= a
	j := sort.SearchInts(r.bounds, b+1) - 1 // last bound <= b
	if i >= j {
		return r.c.Count(r.text[a:b]) // within about two chunks
	}
	return r.c.Count(r.text[a:r.bounds[i]]) + r.prefix[j] - r.prefix[i] + r.c.Count(r.text[r.bounds[j]:b])
}
