package history

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPrune prunes each real transcript at two budgets between its
// pinned minimum and its full size; it reports the tokens before and after
// as metrics. Parsing is outside the timed loop; Encode is inside it.
func BenchmarkPrune(b *testing.B) {
	for _, p := range fixtures(b) {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		c, err := Parse(bytes.NewReader(src))
		if err != nil {
			b.Fatal(err)
		}
		full, pinned, _ := budgets(b, c)
		for _, frac := range []int{50, 10} {
			limit := pinned + (full-pinned)*frac/100
			b.Run(fmt.Sprintf("%s/%d%%", filepath.Base(p), frac), func(b *testing.B) {
				b.ReportAllocs()
				var res *Result
				for b.Loop() {
					res, err = Prune(c, counter(b), &Options{Budget: limit})
					if err != nil {
						b.Fatal(err)
					}
					if err := res.Conversation.Encode(&bytes.Buffer{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(full), "tok-before")
				b.ReportMetric(float64(res.After), "tok-after")
				b.ReportMetric(float64(limit), "tok-budget")
			})
		}
	}
}

// BenchmarkParse measures Parse alone.
func BenchmarkParse(b *testing.B) {
	for _, p := range fixtures(b) {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(p), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := Parse(bytes.NewReader(src)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
