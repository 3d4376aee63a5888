package index

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCacheTrim: opening a cache deletes the index files of other
// repositories unused for cacheUnusedAfter and dead writers' temporary
// files, once per cacheTrimEvery, never its own file or other files; and
// marks its own file used.
func TestCacheTrim(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	files := map[string]time.Time{
		"index-old.bin":    ago(cacheUnusedAfter + time.Hour),
		"index-recent.bin": ago(cacheUnusedAfter - time.Hour),
		"index-dead.tmp":   ago(cacheStaleTemp + time.Minute),
		"index-live.tmp":   ago(time.Minute),
		"notes.txt":        ago(10 * cacheUnusedAfter),
	}
	own := openCache(dir, "repo", "v", t.Logf).path // no file yet: the first open trims an empty directory
	os.Remove(filepath.Join(dir, cacheTrimStamp))   // as if no trim had run
	files[filepath.Base(own)] = ago(cacheUnusedAfter + time.Hour)
	for name, mod := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	openCache(dir, "repo", "v", t.Logf)
	for name, want := range map[string]bool{
		"index-old.bin": false, "index-recent.bin": true, "index-dead.tmp": false,
		"index-live.tmp": true, "notes.txt": true, filepath.Base(own): true,
	} {
		_, err := os.Stat(filepath.Join(dir, name))
		if got := err == nil; got != want {
			t.Errorf("%s kept = %v, want %v", name, got, want)
		}
	}
	if fi, err := os.Stat(own); err != nil || now.Sub(fi.ModTime()) > time.Minute {
		t.Errorf("own file not marked used: %v, %v", fi.ModTime(), err)
	}
	// Within cacheTrimEvery no trim runs.
	p := filepath.Join(dir, "index-old2.bin")
	os.WriteFile(p, []byte("x"), 0o644)
	os.Chtimes(p, ago(cacheUnusedAfter+time.Hour), ago(cacheUnusedAfter+time.Hour))
	openCache(dir, "repo", "v", t.Logf)
	if _, err := os.Stat(p); err != nil {
		t.Errorf("a second trim within %v removed %s", cacheTrimEvery, p)
	}
}
