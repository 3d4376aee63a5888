package slicer

import (
	"context"
	"os"
	"testing"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// BenchmarkSelectMoby measures a warm select on a real repository: set
// CTXTRIM_BENCH_REPO to a checkout (the goal is moby/moby, 13k files, in
// under 1 s on two cores). The index is built in the loop with a warm
// cache; index.New's own cost is benchmarked in slicer/index.
func BenchmarkSelectMoby(b *testing.B) {
	dir := os.Getenv("CTXTRIM_BENCH_REPO")
	if dir == "" {
		b.Skip("set CTXTRIM_BENCH_REPO to a repository checkout (e.g. moby/moby) to run")
	}
	c := testCounter(b)
	ctx := context.Background()
	// The same words plain, quoted and as flags, side by side: quotes and
	// flags add a search of every file's text per literal.
	for _, bc := range []struct{ name, task string }{
		{"plain", "docker build with network host and pull fails when the daemon restarts"},
		{"quoted", `docker build with "network host" and "pull" fails when the daemon restarts`},
		{"flags", "docker build with --network host and --pull fails when the daemon restarts"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ix, err := index.New(ctx, &index.Options{Dir: dir})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Select(ctx, ix, bc.task, c, &SelectOptions{Budget: 16000}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
