package index

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// This file holds the worker pool that processes the walk's candidates,
// and the cache it shares.

// result is one candidate's outcome, written by one worker.
type result struct {
	file File
	skip *Skip
	key  string // cache key in use, "" if none
}

// openCache opens the repository's extraction cache (or none).
func (b *builder) openCache() {
	var c *cache
	if b.opts.NoCache {
		c = noCache()
	} else {
		dir := b.opts.CacheDir
		if dir == "" {
			var err error
			if dir, err = defaultCacheDir(); err != nil {
				b.logf("%v (cache disabled)", err)
			}
		}
		id := b.commonDir
		if id == "" {
			id = b.root
		}
		if dir == "" {
			c = noCache()
		} else {
			c = openCache(dir, id, cacheVersion(), b.logf)
		}
	}
	b.cache = c
}

// extractAll processes the candidates on a bounded pool of workers.
func (b *builder) extractAll(ctx context.Context) error {
	c := b.cache
	n := b.opts.Parallelism
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	n = min(n, max(1, len(b.cands)))

	results := make([]result, len(b.cands))
	var next, done atomic.Int64
	var progMu sync.Mutex
	total := len(b.cands)
	g, gctx := errgroup.WithContext(ctx)
	for range n {
		g.Go(func() error {
			w := &worker{b: b, cache: c, x: newExtractor(compiled)}
			defer w.close()
			for {
				i := int(next.Add(1) - 1)
				if i >= total {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				r, err := w.process(gctx, b.cands[i])
				if err != nil {
					return err
				}
				results[i] = r
				if d := int(done.Add(1)); b.opts.Progress != nil && (d%64 == 0 || d == total) {
					progMu.Lock()
					b.opts.Progress(d, total)
					progMu.Unlock()
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	inUse := make(map[string]bool, len(results))
	for i := range results {
		r := &results[i]
		if r.key != "" {
			inUse[r.key] = true
		}
		if r.skip != nil {
			b.skips = append(b.skips, *r.skip)
			continue
		}
		b.files = append(b.files, r.file)
	}
	if err := c.save(inUse); err != nil {
		b.logf("%v", err)
	}
	return nil
}

// worker processes candidates one at a time with its own parser.
type worker struct {
	b     *builder
	cache *cache
	x     *extractor
	buf   []byte
	seen  map[string]struct{}
}

func (w *worker) close() { w.x.close() }

// read reads a file into the worker's buffer.
func (w *worker) read(p string, size int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if int64(cap(w.buf)) < size+1 {
		w.buf = make([]byte, 0, size+512)
	}
	buf := w.buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if w.b.maxSize > 0 && int64(len(buf)) > w.b.maxSize {
			return nil, fmt.Errorf("grew past %d bytes while reading", w.b.maxSize)
		}
	}
	w.buf = buf
	return buf, nil
}
