package split

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"
)

// benchInput returns the diff in $CTXTRIM_SPLIT_DIFF (scripts/split-10mb.sh
// leaves one behind with -keep), or a synthetic diff of about 2 MB.
func benchInput(b *testing.B) Input {
	if p := os.Getenv("CTXTRIM_SPLIT_DIFF"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return diffInput(string(data))
	}
	r := rand.New(rand.NewPCG(1, 1))
	return diffInput(unifiedDiff(b, genChange(r, 1500)))
}

// BenchmarkSplitDiff splits a large diff at three budgets.
func BenchmarkSplitDiff(b *testing.B) {
	in := benchInput(b)
	c := counter(b)
	for _, budget := range []struct {
		name   string
		tokens int
	}{{"8k", 8000}, {"32k", 32000}, {"128k", 128000}} {
		b.Run(budget.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.Sources[0].Text)))
			var parts int
			for b.Loop() {
				res, err := Split(context.Background(), in, c, &Options{Budget: budget.tokens, Instructions: "Review this diff."})
				if err != nil {
					b.Fatal(err)
				}
				parts = len(res.Parts)
			}
			b.ReportMetric(float64(parts), "parts")
		})
	}
}
