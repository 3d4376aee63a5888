package slicer

import (
	"context"
	"os"
	"testing"
)

// BenchmarkSelectMoby measures a warm select on a real repository: set
// CTXTRIM_BENCH_REPO to a checkout (the goal is moby/moby, 13k files, in
// under 1 s on two cores). The index is built once outside the loop, as a
// warm cache would make it; NewIndex's own cost is benchmarked in walk.go's
// tests.
func BenchmarkSelectMoby(b *testing.B) {
	dir := os.Getenv("CTXTRIM_BENCH_REPO")
	if dir == "" {
		b.Skip("set CTXTRIM_BENCH_REPO to a repository checkout (e.g. moby/moby) to run")
	}
	c := testCounter(b)
	ctx := context.Background()
	task := "docker build fails with context canceled when the daemon restarts during a pull"
	b.ReportAllocs()
	for b.Loop() {
		ix, err := NewIndex(ctx, &IndexOptions{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Select(ctx, ix, task, c, &SelectOptions{Budget: 16000}); err != nil {
			b.Fatal(err)
		}
	}
}
