package cli

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// progressDelay is how long indexing runs before progress is shown: a
// fast (warm) index should never flicker a progress line.
const progressDelay = time.Second

// buildIndex runs index.New for a command (index and select): progress
// on stderr when it is a terminal and indexing takes longer than
// progressDelay, and a soft memory limit while it runs. An interrupt
// (ctx cancelled) is exitStatus(exitInterrupt).
func buildIndex(ctx context.Context, e *env, opts *index.Options) (*index.Index, error) {
	start, shown := time.Now(), false
	tty := isTerminal(e.stderr)
	mc := newMemoryCap()
	defer mc.restore()
	opts.Progress = func(done, total int) {
		mc.update()
		if !tty || time.Since(start) < progressDelay {
			return
		}
		shown = true
		fmt.Fprintf(e.stderr, "\rindexing %d/%d files", done, total)
	}
	ix, err := index.New(ctx, opts)
	if shown {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, exitStatus(exitInterrupt)
		}
		return nil, err
	}
	return ix, nil
}

// Peak memory. An index lives until the summary is printed, and the
// garbage collector's default pacing (GOGC=100) lets the heap grow to twice
// what is live before collecting: moby with vendor/ (~100 MB live at the
// end) peaked over 200 MiB of RSS. A soft memory limit makes the collector
// run earlier instead. It follows the live heap, so that a repository whose
// index does not fit under the base limit costs a bounded amount of extra
// collection (as if GOGC were 60) rather than the runtime's worst case.
const (
	// baseMemoryLimit is the soft limit for indexes up to 100 MiB live:
	// with the binary and C memory on top, peak RSS stays under 200 MiB.
	baseMemoryLimit = 160 << 20
	// memoryHeadroom is the limit's ratio to the live heap beyond that.
	memoryHeadroom = 1.6
)

// memoryLimitFor is the soft limit for a live heap of live bytes.
func memoryLimitFor(live uint64) int64 {
	return max(baseMemoryLimit, int64(float64(live)*memoryHeadroom))
}

// memoryCap sets and follows the soft memory limit during one index; nil
// (when GOMEMLIMIT is set by the user) does nothing.
type memoryCap struct {
	prev   int64
	sample []metrics.Sample
}

func newMemoryCap() *memoryCap {
	if os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	return &memoryCap{prev: debug.SetMemoryLimit(baseMemoryLimit), sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

// update raises the limit with the live heap; called every few files.
func (m *memoryCap) update() {
	if m == nil {
		return
	}
	metrics.Read(m.sample)
	if m.sample[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(memoryLimitFor(m.sample[0].Value.Uint64()))
	}
}

// restore puts back the limit in force before.
func (m *memoryCap) restore() {
	if m != nil {
		debug.SetMemoryLimit(m.prev)
	}
}

// inputMemoryHeadroom is the soft memory limit above the size of an input
// a command holds whole (fit, split), as a fraction of it: the collector's
// default pacing lets the heap reach twice what is live before it runs, so
// the garbage of counting a gigabyte would add up to another gigabyte.
const inputMemoryHeadroom = 0.5

// capMemoryFor sets a soft memory limit while a command works on an input
// of n bytes held in memory: n × (1 + inputMemoryHeadroom), at least
// baseMemoryLimit. It returns the function that puts back the limit in
// force before; with GOMEMLIMIT set by the user it does nothing.
func capMemoryFor(n int) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(max(baseMemoryLimit, int64(float64(n)*(1+inputMemoryHeadroom))))
	return func() { debug.SetMemoryLimit(prev) }
}
