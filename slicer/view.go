package slicer

import (
	"sort"
	"strings"
)

// view is one file's content block in the prompt.
type view struct {
	rk     *ranked
	gran   Granularity
	ranges []LineRange
	units  []Unit // the definitions chosen, best first; nil when whole
	body   string // the block's content, elision markers included
	tokens int    // exact count of the block in the dearer prompt format
	path   string
	lang   string
	lines  int // lines in the file
}

// loaded is a file's content, redacted, split into lines.
type loaded struct {
	lines      []string
	redactions []Redaction
	err        error
	shape      *fileShape // built by shapeOf when units are first asked for
}

// breadthView returns a file's view as breadth: its best unit within
// limit where the task hits it, else the whole file if it is that small.
func (p *packer) breadthView(r *ranked, limit int) *view {
	if !p.strong(r) {
		return p.wholeIfWithin(r, limit)
	}
	return p.viewWithin(r, limit, 1)
}

// endsWindowed reports whether v's last unit is shown as a window.
func endsWindowed(v *view) bool {
	return len(v.units) > 0 && v.units[len(v.units)-1].Windowed
}

// wholeIfWithin returns the whole-file view when it fits limit, else nil.
func (p *packer) wholeIfWithin(r *ranked, limit int) *view {
	l := p.load(r.file)
	if l.err != nil || len(l.lines) == 0 {
		return nil
	}
	if f := &p.ix.Files[r.file]; f.Tokens > wholeEstimateReach*limit {
		return nil
	}
	if w := p.wholeView(r, l); w.tokens <= limit {
		return w
	}
	return nil
}

// viewWithin returns the most of a file that fits limit tokens: the whole
// file, else its best units in order (at most maxUnits, 0 for no bound),
// the first that does not fit shown as its header and a window around its
// strongest line. Units are taken as a prefix of a budget-independent
// order, so a larger limit gives a superset. It returns nil when nothing
// useful fits.
func (p *packer) viewWithin(r *ranked, limit, maxUnits int) *view {
	l := p.load(r.file)
	if l.err != nil || len(l.lines) == 0 {
		return nil
	}
	f := &p.ix.Files[r.file]
	if f.Tokens == 0 || f.Tokens <= wholeEstimateReach*limit {
		if whole := p.wholeView(r, l); whole.tokens <= limit {
			return whole
		}
	}
	us := p.fileUnits(r, l)
	if r.file == p.fillFile && maxUnits == 0 {
		us = p.fillUnits(r, l)
	}
	// Choose by estimate (each range counted once, cached), then count the
	// view exactly. An overshoot retries below the estimate of what was
	// chosen, so the next choice is another one; a target cut from the
	// target alone could choose the same ranges again (measured: the best
	// file of a go-git task lost its excerpts to an 8-token overshoot,
	// three times over).
	target := limit
	for range maxViewRetries {
		ranges, chosen := p.chooseUnits(r.file, l, us, target, maxUnits)
		if len(ranges) == 0 {
			return nil
		}
		v := p.makeView(r, l, ranges)
		if v.tokens <= limit {
			v.units = chosen
			return v
		}
		target = min(target, p.estimate(r.file, l, ranges)) - (v.tokens - limit)
		if target < minBlock/2 {
			return nil
		}
	}
	return nil
}

// window returns ranges with u's header line (and its scope's) and the
// widest window of u around its strongest line that fits limit by
// estimate, found by binary search on the half-width; nil when not even
// minWindowLines fit. Centred, it grows into a superset as limit does; on
// the kit's 18 sets, a window reaching about twice as far down as up won
// no task and lost 5, the reverse won 2 and lost 3.
func (p *packer) window(file int, l *loaded, u *unit, ranges []LineRange, limit int) []LineRange {
	base := ranges
	if u.header > 0 {
		base = addRange(l.lines, base, LineRange{u.header, u.header})
	}
	if u.scope > 0 {
		base = addRange(l.lines, base, LineRange{u.scope, u.scope})
	}
	center := u.best
	if center < u.r.Start || center > u.r.End {
		center = u.r.Start
	}
	var best []LineRange
	lo, hi := minWindowLines/2, u.r.End-u.r.Start
	for lo <= hi {
		h := (lo + hi) / 2
		try := addRange(l.lines, base, padBlank(l.lines, LineRange{max(u.r.Start, center-h), min(u.r.End, center+h)}, false))
		if p.estimate(file, l, try) <= limit {
			best, lo = try, h+1
		} else {
			hi = h - 1
		}
	}
	return best
}

// cutPreamble returns ranges with the longest prefix of u, a preamble,
// that ends at one of its cuts and fits limit by estimate; nil when none
// fits.
func (p *packer) cutPreamble(file int, l *loaded, u *unit, ranges []LineRange, limit int) []LineRange {
	k := sort.Search(len(u.cuts), func(i int) bool {
		return p.estimate(file, l, addRange(l.lines, ranges, LineRange{u.r.Start, u.cuts[i]})) > limit
	})
	if k == 0 {
		return nil
	}
	return addRange(l.lines, ranges, LineRange{u.r.Start, u.cuts[k-1]})
}

// padBlank widens rg by the blank line after it, if any, and the line
// after that: a commit that deletes a block deletes the blank line that
// ends it too, and one that adds a definition after it inserts between
// the blank line and what follows, which a patch needs as context on
// both sides (measured on the kit's eight repositories at 8k/16k/32k:
// taking the next line too raised lines all % in 7 of 24 cells and
// lowered it in one, +14 points summed, at −1 point of all % summed;
// a second blank line as well, or the lines before every block instead,
// gave less). With before, it also takes the blank line before rg: a commit
// that adds a definition above it inserts between that blank line and rg
// (measured on the kit's eleven repositories at 8k/16k/32k, taking it
// before every unit instead of only a named sibling's: lines all % rose
// in 5 of 33 cells, all held out, and fell in none; taking the line
// before the blank line too won two more tasks and lost one). Where no
// blank line follows but a line that closes the enclosing block does
// (closesScope), it takes that line (measured on the kit's 18 sets at
// 8k/16k/32k: 5 tasks won, none lost, line recall +1.1 summed over the
// 54 cells, 1 file-level task lost to a breadth file a few tokens short).
func padBlank(lines []string, rg LineRange, before bool) LineRange {
	if rg.End < len(lines) && strings.TrimSpace(lines[rg.End]) == "" {
		rg.End++
		if rg.End < len(lines) {
			rg.End++
		}
	} else if rg.End < len(lines) && closesScope(lines[rg.End]) {
		rg.End++
	}
	if before && rg.Start > 1 && strings.TrimSpace(lines[rg.Start-2]) == "" {
		rg.Start--
	}
	return rg
}

// closesScope reports whether line only closes a block: `}`, `};`, `})`,
// `end`, perhaps with a trailing // comment. A definition that such a line
// follows is the last of its class, impl or namespace, and a definition
// added after it goes in between the two: a patch needs that line as
// context, as it needs the line after a blank one.
func closesScope(line string) bool {
	t := strings.TrimSpace(line)
	if i := strings.Index(t, "//"); i > 0 {
		t = strings.TrimSpace(t[:i])
	}
	if t == "end" {
		return true
	}
	if t == "" || t[0] != '}' {
		return false
	}
	return strings.Trim(t, "})];, ") == ""
}

// addRange returns ranges with rg merged in, sorted and without overlaps;
// ranges one line apart, or apart by blank lines only, are joined, since
// an elision marker costs more than the lines it stands for (and where
// code goes in after an import block or between two definitions, those
// blank lines are the place). Ranges up to six lines apart, joined too,
// won 5 kit tasks and lost 6 on 17 of the 18 sets (file level 1 and 6):
// of the 26 pairs (14 sets) whose missed lines lie within three lines
// of a range shown, 5 have them all in a gap of at most eight lines, but
// the gaps filled elsewhere cost more.
func addRange(lines []string, ranges []LineRange, rg LineRange) []LineRange {
	out := append(append([]LineRange(nil), ranges...), rg)
	sort.Slice(out, func(a, b int) bool { return out[a].Start < out[b].Start })
	merged := out[:1]
	for _, x := range out[1:] {
		last := &merged[len(merged)-1]
		if x.Start <= last.End+mergeGap || blankBetween(lines, last.End, x.Start) {
			last.End = max(last.End, x.End)
			continue
		}
		merged = append(merged, x)
	}
	return merged
}

// uncovered returns the parts of rg that no range of ranges (sorted,
// without overlaps) holds.
func uncovered(ranges []LineRange, rg LineRange) []LineRange {
	var out []LineRange
	next := rg.Start
	for _, x := range ranges {
		if x.End < next {
			continue
		}
		if x.Start > rg.End {
			break
		}
		if x.Start > next {
			out = append(out, LineRange{next, x.Start - 1})
		}
		next = x.End + 1
	}
	if next <= rg.End {
		out = append(out, LineRange{next, rg.End})
	}
	return out
}

// blankBetween reports whether every line strictly between lines a and b
// (1-based) is blank.
func blankBetween(lines []string, a, b int) bool {
	if a < 0 || b-1 > len(lines) {
		return false
	}
	for i := a + 1; i < b; i++ {
		if strings.TrimSpace(lines[i-1]) != "" {
			return false
		}
	}
	return true
}

// wholeView returns the whole-file view of a file, built once.
func (p *packer) wholeView(r *ranked, l *loaded) *view {
	if v, ok := p.wholes[r.file]; ok {
		return v
	}
	v := p.makeView(r, l, []LineRange{{1, len(l.lines)}})
	p.wholes[r.file] = v
	return v
}

// estimate is the token count of a view of ranges: the block frame, each
// range counted alone (cached), and an elision marker
// per gap. It is close to, not exactly, the count of the rendered block.
func (p *packer) estimate(file int, l *loaded, ranges []LineRange) int {
	n := blockFrameTokens
	for k, rg := range ranges {
		if k > 0 {
			n += markerTokens
		}
		key := rangeKey{file, rg}
		c, ok := p.rangeTok[key]
		if !ok {
			text := strings.Join(l.lines[rg.Start-1:min(rg.End, len(l.lines))], "\n") + "\n"
			c = p.c.Count(text)
			p.rangeTok[key] = c
		}
		n += c
	}
	return n
}

type rangeKey struct {
	file int
	r    LineRange
}

// makeView renders a file's ranges and counts the block exactly.
func (p *packer) makeView(r *ranked, l *loaded, ranges []LineRange) *view {
	n := len(l.lines)
	gran := GranDefinitions
	if len(ranges) == 1 && ranges[0].Start == 1 && ranges[0].End >= n {
		gran = GranWhole
	}
	f := &p.ix.Files[r.file]
	var b strings.Builder
	for k, rg := range ranges {
		if k > 0 && rg.Start > ranges[k-1].End+1 {
			b.WriteString(elisionMarker(f.Lang, ranges[k-1].End+1, rg.Start-1))
			b.WriteByte('\n')
		}
		for i := rg.Start; i <= rg.End && i <= n; i++ {
			b.WriteString(l.lines[i-1])
			b.WriteByte('\n')
		}
	}
	v := &view{rk: r, gran: gran, ranges: ranges, body: b.String(), path: f.Path, lang: f.Lang, lines: n}
	v.tokens = p.count(func(r *renderer) string { return r.block(v) })
	return v
}
