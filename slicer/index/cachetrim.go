package index

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The cache directory holds one file per repository ever indexed. Like
// Go's build cache, it forgets what is not used: a run marks its file used
// (its modification time, at most once per cacheMarkEvery, so that a warm
// run does not write), and at most once per cacheTrimEvery a run deletes
// the index files not used for cacheUnusedAfter, and the temporary files
// of writers that died (older than cacheStaleTemp). A deleted file costs
// its repository one cold index when it comes back.
const (
	cacheUnusedAfter = 30 * 24 * time.Hour
	cacheMarkEvery   = time.Hour
	cacheTrimEvery   = 24 * time.Hour
	cacheStaleTemp   = time.Hour
	cacheTrimStamp   = "trim.txt" // its modification time is the last trim's
)

// markUsed sets path's modification time to now when it is older than
// cacheMarkEvery.
func markUsed(path string, mod, now time.Time) {
	if now.Sub(mod) > cacheMarkEvery {
		os.Chtimes(path, now, now) // best effort: a file we cannot touch is only trimmed sooner
	}
}

// trimCache deletes dir's unused index files and dead temporary files,
// unless a trim ran within cacheTrimEvery. keep is never deleted.
func trimCache(dir, keep string, now time.Time, logf func(string, ...any)) {
	stamp := filepath.Join(dir, cacheTrimStamp)
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < cacheTrimEvery {
		return
	} else if errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(stamp, nil, 0o644); err != nil {
			return // no trims where we cannot write: nothing was written there either
		}
	}
	os.Chtimes(stamp, now, now)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		if !strings.HasPrefix(name, "index-") || p == keep || !e.Type().IsRegular() {
			continue
		}
		var limit time.Duration
		switch {
		case strings.HasSuffix(name, ".bin"):
			limit = cacheUnusedAfter
		case strings.HasSuffix(name, ".tmp"):
			limit = cacheStaleTemp
		default:
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > limit {
			if err := os.Remove(p); err == nil {
				logf("cache: removed %s, unused since %s", name, fi.ModTime().Format(time.DateOnly))
			}
		}
	}
}
