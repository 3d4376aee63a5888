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
// Method: count lines from each end, as far as they are kept; take whole
// lines from the head up to half of what the marker leaves, then from the
// tail up to the rest, then give any leftover back to the head. Sums of line counts are close to, but not
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

// probeBytesPerToken is where longestPrefix and longestSuffix start
// probing: about the bytes of a token of English or code, so that a first
// probe usually fits and a few doublings pass the answer.
const probeBytesPerToken = 4

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
	f := newFitter(c, text)
	total := f.total
	if total <= budget {
		return FitResult{Text: text, Tokens: total, InputTokens: total}, nil
	}
	// The largest marker this cut can need: numbers never exceed these.
	if m := c.Count(Marker(f.n, total)); m > budget {
		return FitResult{}, fmt.Errorf("%w: the marker needs %d tokens, the budget is %d; raise the budget to at least %d", ErrBudgetTooSmall, m, budget, m)
	}

	avail := budget - c.Count(Marker(f.n, total))
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
		switch rest := f.h+f.t < f.n; {
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
// [n-t, n) at the tail, plus optional partial fragments when no whole line
// fits on a side.
//
// Lines are split off and counted lazily, from each end, only as far as
// the head and tail reach: a 1 GB text fit to 100k tokens splits and
// counts the few thousand lines it keeps, not its millions, and holds no
// slice of all of them. The dropped middle is counted exactly through
// Ranges, not recounted whole on every try.
type fitter struct {
	c     Counter
	text  string
	n     int // lines: the text cut after each "\n", the last line maybe without one
	total int
	rc    *Ranges // counts ranges of text

	// heads[i] is line i and headEnds[i] its end; tails[j] is line n-1-j
	// and tailStarts[j] its start; counts alongside.
	heads, tails          []string
	headEnds, tailStarts  []int
	headCounts, tailCount []int

	h, t             int
	hPart, tPart     string // fragments of line 0 / line n-1
	hTokens, tTokens int    // sum of counts of whole kept lines
}

// newFitter counts text (through Ranges) and its lines.
func newFitter(c Counter, text string) *fitter {
	f := &fitter{c: c, text: text, n: strings.Count(text, "\n")}
	if text != "" && !strings.HasSuffix(text, "\n") {
		f.n++
	}
	f.rc = NewRanges(c, text)
	f.total = f.rc.Total()
	return f
}

// headLine returns line i (i < n-t), splitting lines off the head as
// needed, and its count.
func (f *fitter) headLine(i int) (string, int) {
	for len(f.heads) <= i {
		start := 0
		if k := len(f.headEnds); k > 0 {
			start = f.headEnds[k-1]
		}
		end := len(f.text)
		if j := strings.IndexByte(f.text[start:], '\n'); j >= 0 {
			end = start + j + 1
		}
		line := f.text[start:end]
		f.heads, f.headEnds, f.headCounts = append(f.heads, line), append(f.headEnds, end), append(f.headCounts, f.c.Count(line))
	}
	return f.heads[i], f.headCounts[i]
}

// tailLine returns line n-1-j and its count, splitting lines off the tail
// as needed.
func (f *fitter) tailLine(j int) (string, int) {
	for len(f.tails) <= j {
		end := len(f.text)
		if k := len(f.tailStarts); k > 0 {
			end = f.tailStarts[k-1]
		}
		// The line ends at end (after its "\n", or at the end of text)
		// and starts after the previous "\n".
		start := strings.LastIndexByte(f.text[:max(end-1, 0)], '\n') + 1
		if end == 0 {
			start = 0
		}
		line := f.text[start:end]
		f.tails, f.tailStarts, f.tailCount = append(f.tails, line), append(f.tailStarts, start), append(f.tailCount, f.c.Count(line))
	}
	return f.tails[j], f.tailCount[j]
}

func (f *fitter) headTokens() int { return f.hTokens }
func (f *fitter) tailTokens() int { return f.tTokens }

// growHead adds whole lines to the head while the head stays within target.
func (f *fitter) growHead(target int) {
	for f.h+f.t < f.n {
		_, n := f.headLine(f.h)
		if f.hTokens+n > target {
			return
		}
		f.hTokens += n
		f.h++
	}
}

// growTail adds whole lines to the tail while the tail stays within target.
func (f *fitter) growTail(target int) {
	for f.h+f.t < f.n {
		_, n := f.tailLine(f.t)
		if f.tTokens+n > target {
			return
		}
		f.tTokens += n
		f.t++
	}
}

// partialHead keeps the longest prefix of the first line within target.
func (f *fitter) partialHead(target int) {
	if f.h > 0 || target <= 0 || f.n == 0 {
		f.hPart = ""
		return
	}
	line, _ := f.headLine(0)
	if f.n == 1 && f.tPart != "" {
		line = line[:len(line)-len(f.tPart)]
	}
	f.hPart = line[:longestPrefix(f.c, line, target)]
}

// partialTail keeps the longest suffix of the last line within target.
func (f *fitter) partialTail(target int) {
	if f.t > 0 || target <= 0 || f.n == 0 {
		f.tPart = ""
		return
	}
	line, _ := f.tailLine(0)
	if f.n == 1 {
		line = line[len(f.hPart):]
	}
	f.tPart = line[len(line)-longestSuffix(f.c, line, target):]
}

func (f *fitter) headText() string {
	if f.h == 0 {
		return f.hPart
	}
	return f.text[:f.headEnds[f.h-1]]
}

func (f *fitter) tailText() string {
	if f.t == 0 {
		return f.tPart
	}
	return f.text[f.tailStarts[f.t-1]:]
}

// assemble builds the result for the current state, counting exactly.
func (f *fitter) assemble() FitResult {
	head, tail := f.headText(), f.tailText()
	// The dropped middle is what lies between head and tail.
	a, b := len(head), len(f.text)-len(tail)
	middle := f.text[a:b]
	droppedLines := strings.Count(middle, "\n")
	if !strings.HasSuffix(middle, "\n") && middle != "" {
		droppedLines++ // a final fragment without newline
	}
	droppedTokens := f.rc.Count(a, b)
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
			_, n := f.headLine(f.h)
			f.hTokens -= n
			removed += max(n, 1)
		case fromHead:
			n := f.c.Count(f.hPart)
			f.hPart = f.hPart[:longestPrefix(f.c, f.hPart, n-step)]
			removed += step
		case f.t > 0:
			f.t--
			_, n := f.tailLine(f.t)
			f.tTokens -= n
			removed += max(n, 1)
		default:
			n := f.c.Count(f.tPart)
			k := longestSuffix(f.c, f.tPart, n-step)
			f.tPart = f.tPart[len(f.tPart)-k:]
			removed += step
		}
	}
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
	// Probe up from a few bytes per token first, so that the search counts
	// about twice what it keeps rather than up to a kilobyte per token: a
	// 50 MB line fit to 50k tokens counted tens of megabytes per search.
	for probe := probeBytesPerToken * (target + 1); probe < hi; probe *= 2 {
		p := runeStart(s, probe)
		if p <= lo {
			continue
		}
		if c.Count(s[:p]) > target {
			hi = p - 1
			break
		}
		lo = p
	}
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
	for probe := probeBytesPerToken * (target + 1); probe < len(s)-limit; probe *= 2 {
		m := runeEnd(s, len(s)-probe)
		if m >= best {
			continue
		}
		if c.Count(s[m:]) > target {
			limit = m + 1
			break
		}
		best = m
	}
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
