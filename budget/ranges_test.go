package budget

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hidden hides a counter's type, so that Fit takes the path of a Counter
// it knows nothing about: every range counted whole.
type hidden struct{ c Counter }

func (h hidden) Count(s string) int { return h.c.Count(s) }

// mixedText is n bytes of lines of words, code, Chinese, long lines and
// runs of white space, cut at a rune boundary.
func mixedText(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	parts := []string{"func x() {", " return err", "\n", "\n\n", "  ", "\t", "}", "中文，测试。", "🙂", "'s", "12345", "\r\n", " /path/to", "é", "\u0301", strings.Repeat("long words ", 40)}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	return validUTF8(b.String())
}

// TestRanges: the count of any range, through the chunks, is the count of
// that range as one text, for both encodings, scaled or not, and for a
// counter Ranges knows nothing about.
func TestRanges(t *testing.T) {
	text := mixedText(1, 5*rangeChunk)
	for _, enc := range testEncodings {
		c, _ := counters(t, enc)
		for name, c := range map[string]Counter{enc: c, enc + " scaled": Scaled(c, 1.35), "runes": runeCounter{}} {
			r := NewRanges(c, text)
			if (r.bc != nil) != (name != "runes") {
				t.Fatalf("%s: counting by chunks is %v", name, r.bc != nil)
			}
			if got, want := r.Total(), c.Count(text); got != want {
				t.Fatalf("%s: total %d, want %d", name, got, want)
			}
			rng := rand.New(rand.NewPCG(2, 3))
			for range 300 {
				a, b := runeStart(text, rng.IntN(len(text)+1)), runeStart(text, rng.IntN(len(text)+1))
				if a > b {
					a, b = b, a
				}
				if got, want := r.Count(a, b), c.Count(text[a:b]); got != want {
					t.Fatalf("%s: Count(%d, %d) = %d, want %d", name, a, b, got, want)
				}
			}
		}
	}
	if r := NewRanges(o200k(t), "ok \xff bad"); r.bc != nil || r.Total() != o200k(t).Count("ok \xff bad") {
		t.Error("invalid UTF-8 is not counted whole")
	}
}

// TestFitLargeMatchesWhole: on texts of several chunks, Fit through ranges
// and lines split lazily gives exactly what counting every range whole
// gives, for each way of keeping and for budgets from a line to most of
// the text.
func TestFitLargeMatchesWhole(t *testing.T) {
	c := o200k(t)
	for i, text := range []string{mixedText(4, 3*rangeChunk), strings.Repeat("one very long line of words ", 20000), numberedLines(20000)} {
		total := c.Count(text)
		for _, budget := range []int{60, 500, 8000, total / 2, total - 1} {
			for _, keep := range []Keep{KeepBoth, KeepHead, KeepTail} {
				fast, err1 := Fit(text, c, &FitOptions{Budget: budget, Keep: keep})
				slow, err2 := Fit(text, hidden{c}, &FitOptions{Budget: budget, Keep: keep})
				if (err1 == nil) != (err2 == nil) {
					t.Fatalf("text %d, budget %d: errors %v and %v", i, budget, err1, err2)
				}
				if diff := cmp.Diff(slow, fast); diff != "" {
					t.Errorf("text %d, budget %d, keep %d (-whole +ranges):\n%s", i, budget, keep, diff)
				}
				if err1 == nil {
					checkFit(t, c, text, budget, fast)
				}
			}
		}
	}
}

// callCounter counts the texts it is asked to count, and their bytes.
type callCounter struct {
	c            Counter
	calls, bytes int
}

func (cc *callCounter) Count(s string) int {
	cc.calls++
	cc.bytes += len(s)
	return cc.c.Count(s)
}

// TestFitCountsWhatItKeeps: Fit splits and counts lines only as far as
// the head and tail reach. Before, it split the whole text into a slice of
// lines and counted each (a gigabyte of Go source: 34 million lines, 800
// MB of slices), before keeping a few hundred.
func TestFitCountsWhatItKeeps(t *testing.T) {
	text := numberedLines(20000)
	cc := &callCounter{c: o200k(t)}
	r, err := Fit(text, cc, &FitOptions{Budget: 500})
	if err != nil {
		t.Fatal(err)
	}
	kept := strings.Count(r.Head, "\n") + strings.Count(r.Tail, "\n")
	if cc.calls > 4*kept+50 {
		t.Errorf("%d Count calls to keep %d of 20000 lines", cc.calls, kept)
	}
}

// TestLongestPrefixCountsLittle: finding where to cut a long line counts
// about what it keeps, not a kilobyte per token of budget. Before, fitting
// a 50 MB single line to 100k tokens took 20 s.
func TestLongestPrefixCountsLittle(t *testing.T) {
	line := strings.Repeat("many words on one line ", 200000) // 4.6 MB
	for _, suffix := range []bool{false, true} {
		cc := &callCounter{c: o200k(t)}
		var n int
		if suffix {
			n = longestSuffix(cc, line, 2000)
		} else {
			n = longestPrefix(cc, line, 2000)
		}
		if n == 0 || cc.bytes > 40*n {
			t.Errorf("suffix %v: counted %d bytes to keep %d", suffix, cc.bytes, n)
		}
	}
}
