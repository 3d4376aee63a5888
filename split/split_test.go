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
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
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

func textInput(s string) Input { return Input{Kind: Text, Sources: []Source{{Name: "-", Text: s}}} }
func diffInput(s string) Input { return Input{Kind: Diff, Sources: []Source{{Name: "diff", Text: s}}} }

func filesInput(files []genFile) Input {
	in := Input{Kind: Files}
	for _, f := range files {
		if f.newExists {
			in.Sources = append(in.Sources, Source{Name: f.path, Text: f.new})
		}
	}
	return in
}

// checkDiffParts checks that every part of a diff split is a well-formed
// diff on its own: each file section opens with its header, and every hunk
// matches its counts (parts holding a cut line excepted).
func checkDiffParts(t *testing.T, res *Result) {
	t.Helper()
	for _, p := range res.Parts {
		if strings.Contains(p.Payload, fragmentEnd) || strings.Contains(p.Payload, fragmentLead) {
			continue
		}
		for _, u := range parseDiff(p.Payload, 0) {
			if u.kind != unitDiffFile {
				t.Errorf("part %d: text outside any file section: %.80q", p.Index, p.Payload[u.start:u.end])
				continue
			}
			if !strings.HasPrefix(p.Payload[u.start:], "diff --git ") {
				t.Errorf("part %d: file section %s does not open with its header: %.200q", p.Index, u.name, p.Payload[u.start:])
			}
			for _, h := range u.hunks {
				if !h.valid {
					t.Errorf("part %d: %s: hunk %q does not match its counts", p.Index, u.name, p.Payload[h.start:h.headerEnd])
				}
			}
		}
	}
}

// TestProperties: on random texts, diffs and file sets, every part fits
// the budget, the parts hold the input exactly once (Verify), and diff
// parts are diffs on their own.
func TestProperties(t *testing.T) {
	formats := []Format{Plain, OpenAI, Anthropic}
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 7))
		change := genChange(r, 10+r.IntN(30))
		inputs := []struct {
			name string
			in   Input
		}{
			{"text", textInput(randomText(r, 5000+r.IntN(20000)))},
			{"diff", diffInput(unifiedDiff(t, change))},
			{"files", filesInput(change)},
		}
		for _, in := range inputs {
			for _, budget := range []int{300, 1000, 4000} {
				f := formats[int(seed)%len(formats)]
				name := fmt.Sprintf("seed%d/%s/%d/%s", seed, in.name, budget, f)
				t.Run(name, func(t *testing.T) {
					opts := &Options{Budget: budget, Instructions: "Review the part below.\n", Format: f, Reduce: budget > 500,
						Definitions: noDefinitions} // tree-sitter is tested apart
					res := mustSplit(t, in.in, opts)
					if in.in.Kind == Diff {
						checkDiffParts(t, res)
					}
					if len(res.Parts) == 0 {
						t.Fatal("no parts")
					}
				})
			}
		}
	}
}

func noDefinitions(string, []byte) []Def { return nil }
