package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"
)

// Benchmarks on real repositories. They need clones that tests never fetch:
// scripts/bench-sh prepares them (spf13/cobra, go-git/go-git,
// moby/moby) under $CTXTRIM_BENCH_DIR (default /tmp), as bench-cobra,
// bench-go-git and bench-moby; a missing clone skips its benchmark.

func benchRepo(b *testing.B, name string) string {
	b.Helper()
	base := os.Getenv("CTXTRIM_BENCH_DIR")
	if base == "" {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "bench-"+name)
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		b.Skipf("no clone at %s (run scripts/bench-sh)", dir)
	}
	return dir
}

var benchRepos = []string{"cobra", "go-git", "moby"}

// BenchmarkIndexCold indexes with an empty cache every time: every file is
// hashed-from-index, read, parsed and extracted, and the cache is written.
func BenchmarkIndexCold(b *testing.B) { benchIndexCold(b, false) }

// BenchmarkIndexColdAll is BenchmarkIndexCold with Options.All:
// vendored, generated and lock files are read and parsed too (moby's
// vendor/ is three quarters of its files).
func BenchmarkIndexColdAll(b *testing.B) { benchIndexCold(b, true) }

func benchIndexCold(b *testing.B, all bool) {
	for _, name := range benchRepos {
		b.Run(name, func(b *testing.B) {
			dir := benchRepo(b, name)
			b.ReportAllocs()
			for b.Loop() {
				ix, err := New(context.Background(), &Options{Dir: dir, CacheDir: b.TempDir(), All: all})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(ix.Files)), "files")
			}
		})
	}
}

// BenchmarkIndexWarm indexes an unchanged work tree with a warm cache.
func BenchmarkIndexWarm(b *testing.B) {
	for _, name := range benchRepos {
		b.Run(name, func(b *testing.B) {
			dir := benchRepo(b, name)
			cache := b.TempDir()
			if _, err := New(context.Background(), &Options{Dir: dir, CacheDir: cache}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New(context.Background(), &Options{Dir: dir, CacheDir: cache}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGoGitStatus is what New avoids: go-git's full
// Worktree.Status on the same trees, for comparison with IndexWarm.
func BenchmarkGoGitStatus(b *testing.B) {
	for _, name := range benchRepos {
		b.Run(name, func(b *testing.B) {
			dir := benchRepo(b, name)
			repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
			if err != nil {
				b.Fatal(err)
			}
			wt, err := repo.Worktree()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := wt.Status(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
