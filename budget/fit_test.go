package budget

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// checkFit asserts Fit's invariants on one call.
func checkFit(t *testing.T, c Counter, text string, budget int, r FitResult) {
	t.Helper()
	if r.Tokens != c.Count(r.Text) {
		t.Fatalf("Tokens = %d, recount = %d", r.Tokens, c.Count(r.Text))
	}
	if r.Tokens > budget {
		t.Fatalf("output has %d tokens > budget %d", r.Tokens, budget)
	}
	if !utf8.ValidString(r.Text) {
		t.Fatalf("output is not valid UTF-8: %q", r.Text)
	}
	if !r.Cut {
		if r.Text != text {
			t.Fatalf("not cut but output differs from input")
		}
		return
	}
	if !strings.HasPrefix(text, r.Head) || !strings.HasSuffix(text, r.Tail) || len(r.Head)+len(r.Tail) >= len(text)+1 {
		t.Fatalf("head/tail are not a prefix/suffix of the input")
	}
	marker := strings.TrimSuffix(strings.TrimPrefix(r.Text, r.Head), r.Tail)
	if !strings.Contains(marker, MarkerPrefix()) || strings.Count(marker, "\n") > 2 {
		t.Fatalf("no marker between head and tail: %q", marker)
	}
	if r.Head+marker+r.Tail != r.Text {
		t.Fatalf("Text != Head + marker + Tail")
	}
	if len(r.Head)+len(r.Tail) == len(text) && r.DroppedTokens > 0 {
		t.Fatalf("nothing dropped but DroppedTokens = %d", r.DroppedTokens)
	}
}

func o200k(t testing.TB) Counter {
	c, err := NewEncodingCounter(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of the file, with some words\n", i)
	}
	return b.String()
}

func TestFit(t *testing.T) {
	c := o200k(t)
	text := numberedLines(200)
	total := c.Count(text)
	tests := []struct {
		name      string
		text      string
		budget    int
		keep      Keep
		wantCut   bool
		wantHead  string // prefix the output must start with
		wantTail  string // suffix the output must end with
		wantLines int    // dropped lines, -1 to skip
	}{
		{"fits exactly", text, total, KeepBoth, false, text, text, 0},
		{"fits", "hello\n", 100, KeepBoth, false, "hello\n", "hello\n", 0},
		{"empty", "", 0, KeepBoth, false, "", "", 0},
		{"both ends", text, 300, KeepBoth, true, "line 1 of the file", "line 200 of the file, with some words\n", -1},
		{"head only", text, 300, KeepHead, true, "line 1 of the file", "tokens …]\n", -1},
		{"tail only", text, 300, KeepTail, true, MarkerPrefix(), "line 200 of the file, with some words\n", -1},
		{"one long line", strings.Repeat("word ", 5000), 100, KeepBoth, true, "word word", "word ", 1},
		{"long first line", strings.Repeat("x", 20000) + "\nshort\n", 60, KeepBoth, true, "", "short\n", -1},
		{"CJK long line", strings.Repeat("漢字かな交じり文", 3000), 80, KeepBoth, true, "漢字", "交じり文", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Fit(tc.text, c, &FitOptions{Budget: tc.budget, Keep: tc.keep})
			if err != nil {
				t.Fatal(err)
			}
			checkFit(t, c, tc.text, tc.budget, r)
			if r.Cut != tc.wantCut {
				t.Errorf("Cut = %v, want %v", r.Cut, tc.wantCut)
			}
			if !strings.HasPrefix(r.Text, tc.wantHead) || !strings.HasSuffix(r.Text, tc.wantTail) {
				t.Errorf("output %.80q… does not start with %q and end with %q", r.Text, tc.wantHead, tc.wantTail)
			}
			if tc.wantLines >= 0 && r.DroppedLines != tc.wantLines {
				t.Errorf("DroppedLines = %d, want %d", r.DroppedLines, tc.wantLines)
			}
			if r.Cut && r.Tokens < tc.budget*8/10 {
				t.Errorf("wasteful: %d tokens used of %d", r.Tokens, tc.budget)
			}
		})
	}
}

func TestFitMarker(t *testing.T) {
	c := o200k(t)
	text := numberedLines(100)
	r, err := Fit(text, c, &FitOptions{Budget: 200})
	if err != nil {
		t.Fatal(err)
	}
	middle := strings.TrimSuffix(strings.TrimPrefix(text, r.Head), r.Tail)
	want := Marker(strings.Count(middle, "\n"), c.Count(middle))
	if got := strings.TrimSuffix(strings.TrimPrefix(r.Text, r.Head), r.Tail); got != want {
		t.Errorf("marker = %q, want %q", got, want)
	}
	if diff := cmp.Diff([]int{strings.Count(middle, "\n"), c.Count(middle)}, []int{r.DroppedLines, r.DroppedTokens}); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
}

func TestFitErrors(t *testing.T) {
	c := o200k(t)
	text := numberedLines(10)
	if _, err := Fit(text, c, &FitOptions{Budget: 5}); !errors.Is(err, ErrBudgetTooSmall) {
		t.Errorf("tiny budget: err = %v, want ErrBudgetTooSmall", err)
	}
	if _, err := Fit(text, c, &FitOptions{Budget: -1}); err == nil {
		t.Error("negative budget: no error")
	}
	if _, err := Fit("a\xffb", c, &FitOptions{Budget: 100}); err == nil {
		t.Error("invalid UTF-8: no error")
	}
	// nil options are the zero FitOptions: a budget of 0, which only the
	// empty text fits.
	if r, err := Fit("", c, nil); err != nil || r.Cut || r.Tokens != 0 {
		t.Errorf("empty text, nil options: %+v, %v; want it unchanged", r, err)
	}
	if _, err := Fit(text, c, nil); !errors.Is(err, ErrBudgetTooSmall) {
		t.Errorf("nil options: err = %v, want ErrBudgetTooSmall (budget 0)", err)
	}
}

// runeCounter counts runes: cheap, and its cuts are easy to reason about.
type runeCounter struct{}

func (runeCounter) Count(s string) int { return utf8.RuneCountInString(s) }

// FuzzFit checks Fit's invariants: output within budget, valid UTF-8, the
// input unchanged iff it fits, head + marker + tail otherwise. Inputs are
// capped at 2 KiB: BPE is quadratic on long runs of one character, which
// would stall the fuzzer without finding anything new.
func FuzzFit(f *testing.F) {
	f.Add(numberedLines(30), 120, uint8(0))
	f.Add("a\nbb\nccc\n", 3, uint8(1))
	f.Add(strings.Repeat("€", 500), 40, uint8(2))
	f.Add("<|endoftext|>\n\n\n   \n\t\tx\n", 30, uint8(0))
	f.Add(strings.Repeat("x\n", 100), 31, uint8(0))
	c := o200k(f)
	f.Fuzz(func(t *testing.T, text string, budget int, keep uint8) {
		if !utf8.ValidString(text) || len(text) > 2048 || budget < 0 || budget > 1<<16 {
			t.Skip()
		}
		for _, counter := range []Counter{c, runeCounter{}, Scaled(c, 1.35)} {
			r, err := Fit(text, counter, &FitOptions{Budget: budget, Keep: Keep(keep % 3)})
			if errors.Is(err, ErrBudgetTooSmall) {
				if counter.Count(text) <= budget {
					t.Fatalf("ErrBudgetTooSmall for a text that fits")
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			checkFit(t, counter, text, budget, r)
			if r.Cut != (counter.Count(text) > budget) {
				t.Fatalf("Cut = %v for a text of %d tokens, budget %d", r.Cut, counter.Count(text), budget)
			}
		}
	})
}

// BenchmarkFit trims a 1 MB log (about 300K tokens) to 8,000 tokens.
func BenchmarkFit(b *testing.B) {
	c := o200k(b)
	text := numberedLines(25000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fit(text, c, &FitOptions{Budget: 8000}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseKeep(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Keep
		ok   bool
	}{{"both", KeepBoth, true}, {"head", KeepHead, true}, {"tail", KeepTail, true}, {"", KeepBoth, false}, {"middle", KeepBoth, false}} {
		got, err := ParseKeep(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseKeep(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
