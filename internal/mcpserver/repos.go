package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// maxIndexes bounds how many repositories' indexes the server keeps: an
// agent works in one or two, and an index of a large repository (moby,
// 3,000 files) holds tens of megabytes.
const maxIndexes = 4

// Index states reported with a selection.
const (
	indexBuilt   = "built"   // first use of the repository
	indexRebuilt = "rebuilt" // files changed since the last call
	indexReused  = "reused"  // nothing changed: the index in memory
)

// indexes holds one index per repository directory for the life of the
// server. It is safe for concurrent use: builds and checks of one
// repository are serialized by its entry's lock, other repositories and
// the selections over a snapshot run in parallel.
type indexes struct {
	template index.Options // Dir is set per repository
	logf     func(format string, args ...any)

	mu      sync.Mutex
	entries map[string]*indexEntry
	clock   int64
}

type indexEntry struct {
	mu    sync.Mutex
	ix    *index.Index
	stamp *stamp
	used  int64 // indexes.clock at the last use, for eviction
}

// get returns an up-to-date index of the repository at dir (absolute) and
// whether it was built, rebuilt or reused.
func (x *indexes) get(ctx context.Context, dir string) (*index.Index, string, error) {
	x.mu.Lock()
	if x.entries == nil {
		x.entries = map[string]*indexEntry{}
	}
	e, ok := x.entries[dir]
	if !ok {
		e = &indexEntry{}
		x.entries[dir] = e
	}
	x.clock++
	e.used = x.clock
	x.evict()
	x.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	state := indexBuilt
	if e.ix != nil {
		why := e.stamp.changed()
		if why == "" {
			return e.ix, indexReused, nil
		}
		x.logf("index of %s: %s; rebuilding", dir, why)
		state = indexRebuilt
	}
	opts := x.template
	opts.Dir = dir
	start := time.Now()
	ix, err := index.New(ctx, &opts)
	if err != nil {
		return nil, "", fmt.Errorf("index %s: %w", dir, err)
	}
	e.ix, e.stamp = ix, takeStamp(ix, start)
	x.logf("index of %s %s: %d files in %v", dir, state, len(ix.Files), time.Since(start).Round(time.Millisecond))
	return ix, state, nil
}

// evict drops the least recently used entries beyond maxIndexes. Callers
// holding an evicted entry finish with it; the next call builds anew.
// x.mu is held.
func (x *indexes) evict() {
	for len(x.entries) > maxIndexes {
		var oldest string
		for d, e := range x.entries {
			if oldest == "" || e.used < x.entries[oldest].used {
				oldest = d
			}
		}
		delete(x.entries, oldest)
	}
}
