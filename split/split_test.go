package split

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
)

var (
	counterOnce sync.Once
	counterVal  budget.Counter
)

// counter returns the exact o200k_base counter, loaded once.
func counter(t testing.TB) budget.Counter {
	t.Helper()
	counterOnce.Do(func() {
		c, err := budget.NewEncodingCounter(budget.O200kBase)
		if err != nil {
			t.Fatal(err)
		}
		counterVal = c
	})
	return counterVal
}

// mustSplit runs Split and Verify and fails the test on an error.
func mustSplit(t testing.TB, in Input, opts *Options) *Result {
	t.Helper()
	c := counter(t)
	res, err := Split(context.Background(), in, c, opts)
	if err != nil {
		t.Fatalf("Split: %v", err)
	}
	if err := Verify(in, res, c, opts); err != nil {
		t.Fatalf("%v", err)
	}
	return res
}

// randomText returns a text of about n bytes with paragraphs, headings and
// the occasional very long line.
func randomText(r *rand.Rand, n int) string {
	words := []string{"alpha", "beta", "gamma", "delta", "func", "return", "err", "{", "}", "日本語", "🙂", "x := 1", "\t"}
	var b strings.Builder
	for b.Len() < n {
		switch r.IntN(20) {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString("## heading\n")
		case 2:
			for range r.IntN(400) {
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteString("\n")
		default:
			for range 1 + r.IntN(12) {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteString(" ")
			}
			b.WriteString("\n")
		}
	}
	s := b.String()
	if r.IntN(2) == 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

func TestSmoke(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	text := randomText(r, 20000)
	for _, f := range []Format{Plain, OpenAI, Anthropic} {
		opts := &Options{Budget: 300, Instructions: "Review this.", Format: f, Reduce: true}
		res := mustSplit(t, Input{Kind: Text, Sources: []Source{{Name: "-", Text: text}}}, opts)
		fmt.Println(f, len(res.Parts), res.Manifest.Tokens)
	}
}
