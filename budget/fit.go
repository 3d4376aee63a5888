package budget

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Fitting text to a budget.
//
// Fit trims a text so that its exact count is at most the budget. It keeps
// the head and the tail and drops the middle (by default), cutting at line
// boundaries, and puts a marker line where text was dropped that says how
// much: "[… ctxtrim: dropped 120 lines, 3456 tokens …]". Only a side that
// cannot keep a single whole line is cut inside a line, at a rune boundary.
//
// Method: count every line once; take whole lines from the head up to half
// of what the marker leaves, then from the tail up to the rest, then give
// any leftover back to the head. Sums of line counts are close to, but not
// exactly, the count of the joined text (BPE pieces can merge across a
// newline), so the assembled text is counted again and lines are dropped
// from the larger side until the exact count is within budget. The loop
// ends because the marker alone fits (checked first).

// ErrBudgetTooSmall is returned (wrapped) by Fit when the budget cannot
// even hold the marker.
var ErrBudgetTooSmall = errors.New("budget smaller than the marker")

// Keep says which ends of a text Fit keeps.
type Keep int

// Keep values. The zero value keeps both ends.
const (
	KeepBoth Keep = iota // head and tail, drop the middle
	KeepHead             // head only, drop the end
	KeepTail             // tail only, drop the beginning
)

// ParseKeep returns the Keep named "both", "head" or "tail", as the CLI's
// -keep and the fit_text tool spell it.
func ParseKeep(s string) (Keep, error) {
	switch s {
	case "both":
		return KeepBoth, nil
	case "head":
		return KeepHead, nil
	case "tail":
		return KeepTail, nil
	}
	return KeepBoth, fmt.Errorf("%q: want both, head or tail", s)
}

// FitOptions configures Fit. The zero value is valid: a budget of 0 (only
// the empty text fits), keeping head and tail with the default marker. The
// budget is passed here, as in slicer.SelectOptions, split.Options and
// history.Options.
type FitOptions struct {
	// Budget is the hard cap on the result's tokens as counted by the
	// Counter passed to Fit; it must not be negative.
	Budget int
	Keep   Keep
}

// FitResult is the outcome of Fit.
type FitResult struct {
	Text          string // the fitted text; equal to the input when !Cut
	Cut           bool   // text was dropped and Text holds the marker
	Tokens        int    // exact count of Text
	InputTokens   int    // exact count of the input
	DroppedLines  int    // lines (or line fragments) dropped
	DroppedTokens int    // exact count of the dropped text
	Head, Tail    string // the kept ends, when Cut (Text = Head + marker + Tail)
}

// markerPrefix starts every marker; tests and callers can look for it.
const markerPrefix = "[… ctxtrim: dropped "

// MarkerPrefix is the start of the marker line Fit inserts.
func MarkerPrefix() string { return markerPrefix }

// Marker returns the marker line for a cut of lines lines and tokens tokens.
func Marker(lines, tokens int) string {
	return fmt.Sprintf("%s%d lines, %d tokens …]\n", markerPrefix, lines, tokens)
}

// maxBytesPerToken bounds the bytes of one token, to bound the search for a
// cut inside a long line (o200k_base's longest token is 128 bytes).
const maxBytesPerToken = 1024

// Fit returns text trimmed to at most opts.Budget tokens as counted by c.
// text must be valid UTF-8; the result then is too. opts is not modified.
// It is safe for concurrent use if c is.
func Fit(text string, c Counter, opts *FitOptions) (FitResult, error) {
	if c == nil {
		return FitResult{}, ErrNilCounter
	}
	if opts == nil {
		opts = &FitOptions{}
	}
	if opts.Budget < 0 {
		return FitResult{}, fmt.Errorf("budget %d is negative", opts.Budget)
	}
	if !utf8.ValidString(text) {
		return FitResult{}, errors.New("text is not valid UTF-8")
	}
	if s, ok := c.(scaledCounter); ok {
		return fitScaled(text, s, opts.Budget, opts.Keep)
	}
	return fit(text, c, opts.Budget, opts.Keep)
}

// fit is Fit with its checks done, for an unscaled counter.
func fit(text string, c Counter, budget int, keep Keep) (FitResult, error) {
	total := c.Count(text)
	if total <= budget {
		return FitResult{Text: text, Tokens: total, InputTokens: total}, nil
	}
	lines := splitLines(text)
	// The largest marker this cut can need: numbers never exceed these.
	if m := c.Count(Marker(len(lines), total)); m > budget {
		return FitResult{}, fmt.Errorf("%w: the marker needs %d tokens, the budget is %d; raise the budget to at least %d", ErrBudgetTooSmall, m, budget, m)
	}
	counts := make([]int, len(lines))
	for i, l := range lines {
		counts[i] = c.Count(l)
	}

	f := fitter{c: c, text: text, lines: lines, counts: counts, total: total}
	avail := budget - c.Count(Marker(len(lines), total))
	switch keep {
	case KeepHead:
		f.growHead(avail)
	case KeepTail:
		f.growTail(avail)
	default:
		f.growHead(avail / 2)
		f.growTail(avail - f.headTokens())
		f.growHead(avail - f.tailTokens())
		// A side that cannot keep one whole line keeps a fragment of its
		// end line instead, cut at a rune boundary.
		switch rest := f.h+f.t < len(f.lines); {
		case rest && f.h == 0 && f.t == 0:
			f.partialHead(avail / 2)
			f.partialTail(avail - c.Count(f.hPart))
		case rest && f.h == 0:
			f.partialHead(avail - f.tTokens)
		case rest && f.t == 0:
			f.partialTail(avail - f.hTokens)
		}
	}
	if keep == KeepHead && f.h == 0 {
		f.partialHead(avail)
	}
	if keep == KeepTail && f.t == 0 {
		f.partialTail(avail)
	}

	for {
		r := f.assemble()
		if r.Tokens <= budget {
			return r, nil
		}
		f.shrink(r.Tokens - budget)
	}
}

// fitScaled fits with the unscaled counter: ceil(n × f) ≤ budget exactly
// when n ≤ ⌊budget / f⌋, and unscaled line counts add up without the
// rounding of every line that scaled ones would carry. Token figures in the
// marker are those of the unscaled encoding; the result's fields are scaled.
func fitScaled(text string, s scaledCounter, budget int, keep Keep) (FitResult, error) {
	base := max(ExactLimit(s, budget), 0)
	r, err := fit(text, s.c, base, keep)
	if err != nil {
		return r, err
	}
	r.Tokens = s.Count(r.Text)
	r.InputTokens = s.countOf(r.InputTokens)
	r.DroppedTokens = s.countOf(r.DroppedTokens)
	return r, nil
}

// fitter holds the state of one Fit: whole lines [0,h) are kept at the head,
// [len-t, len) at the tail, plus optional partial fragments when no whole
// line fits on a side.
type fitter struct {
	c      Counter
	text   string
	lines  []string
	counts []int
	total  int

	h, t             int
	hPart, tPart     string // fragments of lines[0] / lines[len-1]
	hTokens, tTokens int    // sum of counts of whole kept lines
}

func (f *fitter) headTokens() int { return f.hTokens }
func (f *fitter) tailTokens() int { return f.tTokens }

// growHead adds whole lines to the head while the head stays within target.
func (f *fitter) growHead(target int) {
	for f.h+f.t < len(f.lines) && f.hTokens+f.counts[f.h] <= target {
		f.hTokens += f.counts[f.h]
		f.h++
	}
}

// growTail adds whole lines to the tail while the tail stays within target.
func (f *fitter) growTail(target int) {
	for f.h+f.t < len(f.lines) && f.tTokens+f.counts[len(f.lines)-1-f.t] <= target {
		f.tTokens += f.counts[len(f.lines)-1-f.t]
		f.t++
	}
}

// partialHead keeps the longest prefix of the first line within target.
func (f *fitter) partialHead(target int) {
	if f.h > 0 || target <= 0 || len(f.lines) == 0 {
		f.hPart = ""
		return
	}
	line := f.lines[0]
	if len(f.lines) == 1 && f.tPart != "" {
		line = line[:len(line)-len(f.tPart)]
	}
	f.hPart = line[:longestPrefix(f.c, line, target)]
}

// partialTail keeps the longest suffix of the last line within target.
func (f *fitter) partialTail(target int) {
	if f.t > 0 || target <= 0 || len(f.lines) == 0 {
		f.tPart = ""
		return
	}
	line := f.lines[len(f.lines)-1]
	if len(f.lines) == 1 {
		line = line[len(f.hPart):]
	}
	f.tPart = line[len(line)-longestSuffix(f.c, line, target):]
}

func (f *fitter) headText() string {
	if f.h == 0 {
		return f.hPart
	}
	return strings.Join(f.lines[:f.h], "")
}

func (f *fitter) tailText() string {
	if f.t == 0 {
		return f.tPart
	}
	return strings.Join(f.lines[len(f.lines)-f.t:], "")
}

// assemble builds the result for the current state, counting exactly.
func (f *fitter) assemble() FitResult {
	head, tail := f.headText(), f.tailText()
	// The dropped middle is what lies between head and tail.
	middle := f.text[len(head) : len(f.text)-len(tail)]
	droppedLines := strings.Count(middle, "\n")
	if !strings.HasSuffix(middle, "\n") && middle != "" {
		droppedLines++ // a final fragment without newline
	}
	droppedTokens := f.c.Count(middle)
	marker := Marker(droppedLines, droppedTokens)
	if head != "" && !strings.HasSuffix(head, "\n") {
		marker = "\n" + marker // keep the marker on a line of its own
	}
	out := head + marker + tail
	return FitResult{
		Text: out, Cut: true, Tokens: f.c.Count(out), InputTokens: f.total,
		DroppedLines: droppedLines, DroppedTokens: droppedTokens,
		Head: head, Tail: tail,
	}
}

// shrink drops at least over tokens' worth (by line counts) from the
// larger side: a whole line, or part of a fragment when the side holds only
// a fragment. It always drops something while anything is left.
func (f *fitter) shrink(over int) {
	for removed := 0; removed < over || removed == 0; {
		headSize := f.hTokens + f.c.Count(f.hPart)
		tailSize := f.tTokens + f.c.Count(f.tPart)
		if headSize == 0 && tailSize == 0 && f.hPart == "" && f.tPart == "" && f.h == 0 && f.t == 0 {
			return // nothing left: the marker alone fits
		}
		fromHead := headSize > tailSize || headSize == tailSize && (f.h > 0 || f.hPart != "")
		if f.h == 0 && f.hPart == "" {
			fromHead = false
		}
		if f.t == 0 && f.tPart == "" {
			fromHead = true
		}
		step := max(over-removed, 1)
		switch {
		case fromHead && f.h > 0:
			f.h--
			f.hTokens -= f.counts[f.h]
			removed += max(f.counts[f.h], 1)
		case fromHead:
			n := f.c.Count(f.hPart)
			f.hPart = f.hPart[:longestPrefix(f.c, f.hPart, n-step)]
			removed += step
		case f.t > 0:
			f.t--
			f.tTokens -= f.counts[len(f.lines)-1-f.t]
			removed += max(f.counts[len(f.lines)-1-f.t], 1)
		default:
			n := f.c.Count(f.tPart)
			k := longestSuffix(f.c, f.tPart, n-step)
			f.tPart = f.tPart[len(f.tPart)-k:]
			removed += step
		}
	}
}

// splitLines splits text after each "\n"; the last line may lack one.
func splitLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

// longestPrefix returns the length of a long prefix of s, ending at a rune
// boundary, that counts at most target tokens (0 if none). Counts are not
// strictly monotone in the prefix length, so this is a binary search for a
// good prefix, not a proof of the longest; the result always satisfies the
// bound.
func longestPrefix(c Counter, s string, target int) int {
	if target <= 0 {
		return 0
	}
	lo, hi := 0, min(len(s), (target+1)*maxBytesPerToken)
	for lo < hi {
		mid := runeStart(s, (lo+hi+1)/2)
		if mid <= lo {
			mid = runeEnd(s, lo+1)
			if mid > hi {
				break
			}
		}
		if c.Count(s[:mid]) <= target {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// longestSuffix is longestPrefix for suffixes: it returns the length of a
// suffix of s starting at a rune boundary with at most target tokens.
func longestSuffix(c Counter, s string, target int) int {
	if target <= 0 {
		return 0
	}
	best := len(s)                                      // start of the best suffix found: empty
	limit := max(0, len(s)-(target+1)*maxBytesPerToken) // no valid start below limit
	for limit < best {
		m := runeEnd(s, (limit+best)/2)
		if m >= best {
			m = runeStart(s, best-1)
			if m < limit {
				break
			}
		}
		if c.Count(s[m:]) <= target {
			best = m
		} else {
			limit = m + 1
		}
	}
	return len(s) - best
}

// runeStart moves i back to the start of the rune holding byte i.
func runeStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runeEnd moves i forward to the next rune start at or after i.
func runeEnd(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}
