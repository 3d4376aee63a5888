package split

import (
	"context"
	"fmt"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer/index"
	"golang.org/x/sync/errgroup"
)

// Boundary penalties, in fractions of a part's payload capacity: balancing
// accepts a part that deviates from its equal share by up to this much more
// to cut at the cheaper boundary. Coarse boundaries are cheap because the
// pieces on both sides still make sense alone.
const (
	// penaltyDirShared is paid per leading directory the two sides share:
	// cutting between a/b and a/c is dearer than between a/b and x/y.
	penaltyDirShared = 0.02
	// penaltyFile: two files of the same directory, often edited together.
	penaltyFile = 0.10
	// penaltyHunk: two hunks of one file; the file header is repeated.
	penaltyHunk = 0.20
	// penaltySection: two markdown sections of a document.
	penaltySection = 0.20
	// penaltyDef: two definitions of one file.
	penaltyDef = 0.25
	// penaltyPara: two paragraphs (a blank line between them).
	penaltyPara = 0.30
	// penaltyLine: two lines of one paragraph or hunk.
	penaltyLine = 0.40
	// penaltyFragment: inside a line; only when the line exceeds a part.
	penaltyFragment = 2.0
)

// Synthetic texts. Every one is recorded as a Synthetic segment.
const (
	fragmentEnd  = "\n[ctxtrim: line cut here; it continues in the next part]\n"
	fragmentLead = "[ctxtrim: continuation of a line cut at the end of the previous part]\n"
	// subHunkSample sizes the cost of a recomputed hunk header in advance.
	subHunkSample = "@@ -1000000,100000 +1000000,100000 @@"
)

// fileHeader is the synthetic line that opens a file of a file set.
func fileHeader(name string) string { return "==> " + name + " <==\n" }

// fileContinued opens a part that continues a file at line.
func fileContinued(name string, line int) string {
	return "==> " + name + " (continued at line " + strconv.Itoa(line) + ") <==\n"
}

// chunk is the atomic unit of packing: a byte range of one unit's source.
type chunk struct {
	unit       int
	start, end int
	tokens     int     // counted alone, plus synthetic text always emitted with it
	lead       int     // extra tokens when a part starts with this chunk
	penalty    float64 // cost of a part boundary before this chunk
	hunk       int     // diff: index of the hunk it lies in; -1 in a file header
	frag       bool    // ends inside a line
	cont       bool    // starts inside a line
}

type spanKey struct{ src, start, end int }

// splitter holds one Split call's state.
type splitter struct {
	ctx   context.Context
	in    Input
	c     budget.Counter
	opts  *Options
	units []unit
	par   int

	ranges []lazyRanges // per source, built on the first long span counted
	// work is the bytes counted, an upper bound for those counted through
	// Ranges (its partial chunks), for tests of how counting scales.
	work atomic.Int64

	mu       sync.Mutex
	memo     map[spanKey]int
	textMemo map[string]int
	defs     map[int][]int // unit → definition cut positions (bytes)
	lines    map[int][]int // source → the start of every lineStride-th line, built on first use

	// marks holds, per commit of a multi-commit diff, the marker that
	// opens a part continuing the commit (see commitMarks); nil for other
	// inputs.
	marks []commitMark
}

func newSplitter(ctx context.Context, in Input, c budget.Counter, opts *Options) *splitter {
	s := &splitter{ctx: ctx, in: in, c: c, opts: opts,
		memo: map[spanKey]int{}, textMemo: map[string]int{}, defs: map[int][]int{}, lines: map[int][]int{}}
	s.par = opts.Parallelism
	if s.par <= 0 {
		s.par = runtime.GOMAXPROCS(0)
	}
	s.units = s.makeUnits()
	if in.Kind == Diff {
		s.marks = commitMarks(in.Sources[0].Text, s.units)
	}
	s.ranges = make([]lazyRanges, len(in.Sources))
	return s
}

// lazyRanges is a source's budget.Ranges, built once when first needed.
type lazyRanges struct {
	once sync.Once
	r    *budget.Ranges
}

// rangesMin is the shortest span counted through a source's Ranges: below
// it, counting the span is as cheap as the partial chunks would be, and a
// source that has no long span (a file of a file set) is never counted
// whole.
const rangesMin = 256 << 10

// rangesEdge bounds what a Ranges count recounts at each end of a span
// (budget's chunk size), for work.
const rangesEdge = 64 << 10

func (s *splitter) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// makeUnits cuts the input into units, related ones adjacent.
func (s *splitter) makeUnits() []unit {
	var units []unit
	switch s.in.Kind {
	case Text:
		units = []unit{{kind: unitText, name: s.in.Sources[0].Name, end: len(s.in.Sources[0].Text)}}
	case Diff:
		units = parseDiff(s.in.Sources[0].Text, 0)
	case Files:
		for i, src := range s.in.Sources {
			units = append(units, unit{kind: unitFile, name: src.Name, src: i, end: len(src.Text)})
		}
	}
	// Related files adjacent: directory, then stem with tests after their
	// source, within each commit of a multi-commit diff, commits in order.
	// The diff preamble (a commit's header) stays first.
	sort.SliceStable(units, func(i, j int) bool {
		a, b := units[i], units[j]
		if a.commit != b.commit {
			return a.commit < b.commit
		}
		if (a.kind == unitText) != (b.kind == unitText) {
			return a.kind == unitText
		}
		return lessRelated(a.name, b.name)
	})
	return units
}

// testStem returns the file's name with its test marker removed and
// whether it is a test (index.TestStem, the one recogniser of tests):
// foo_test.go gives foo.go, so that a test sorts right after its source.
func testStem(name string) (stem string, test bool) {
	base := path.Base(name)
	stem, test = index.TestStem(base)
	return stem + path.Ext(base), test
}

func lessRelated(a, b string) bool {
	da, db := path.Dir(a), path.Dir(b)
	if da != db {
		return da < db
	}
	sa, ta := testStem(a)
	sb, tb := testStem(b)
	if sa != sb {
		return sa < sb
	}
	if ta != tb {
		return !ta
	}
	return a < b
}

// unitPenalty is the cost of a boundary between two adjacent units.
func unitPenalty(a, b unit) float64 {
	if a.kind == unitText || b.kind == unitText {
		return 0
	}
	da, db := path.Dir(a.name), path.Dir(b.name)
	if da == db {
		return penaltyFile
	}
	shared := 0
	pa, pb := strings.Split(da, "/"), strings.Split(db, "/")
	for shared < len(pa) && shared < len(pb) && pa[shared] == pb[shared] && pa[shared] != "." {
		shared++
	}
	return min(penaltyFile, float64(shared)*penaltyDirShared)
}

func (s *splitter) text(u *unit) string { return s.in.Sources[u.src].Text }

// lineOf returns the 1-based line number of byte offset i of source src:
// from the start of every lineStride-th line (a gigabyte of source would
// take 270 MB for every line's), then counting newlines.
func (s *splitter) lineOf(src, i int) int {
	s.mu.Lock()
	starts, ok := s.lines[src]
	s.mu.Unlock()
	text := s.in.Sources[src].Text
	if !ok {
		starts = []int{0}
		n := 0
		for j := strings.IndexByte(text, '\n'); j >= 0; {
			if n++; n%lineStride == 0 {
				starts = append(starts, j+1)
			}
			k := strings.IndexByte(text[j+1:], '\n')
			if k < 0 {
				break
			}
			j += k + 1
		}
		s.mu.Lock()
		s.lines[src] = starts
		s.mu.Unlock()
	}
	k := sort.SearchInts(starts, i+1) - 1 // the last indexed line start <= i
	return k*lineStride + 1 + strings.Count(text[starts[k]:min(i, len(text))], "\n")
}

// lineStride is how many lines apart lineOf indexes line starts.
const lineStride = 256

// memoMin is the smallest span whose count is memoised: recounting short
// spans costs less than remembering millions of them.
const memoMin = 512

// count counts source bytes, memoised for spans of memoMin bytes or more,
// through the source's Ranges for spans of rangesMin bytes or more (a
// line longer than a part is cut by counting ever shorter remainders of
// it, quadratic when each was counted whole).
func (s *splitter) count(src, a, b int) int {
	if b-a < memoMin {
		s.work.Add(int64(b - a))
		return s.c.Count(s.in.Sources[src].Text[a:b])
	}
	k := spanKey{src, a, b}
	s.mu.Lock()
	n, ok := s.memo[k]
	s.mu.Unlock()
	if ok {
		return n
	}
	if b-a >= rangesMin {
		lr := &s.ranges[src]
		lr.once.Do(func() {
			lr.r = budget.NewRanges(s.c, s.in.Sources[src].Text)
			s.work.Add(int64(len(s.in.Sources[src].Text)))
		})
		n = lr.r.Count(a, b)
		s.work.Add(int64(min(b-a, 4*rangesEdge)))
	} else {
		n = s.c.Count(s.in.Sources[src].Text[a:b])
		s.work.Add(int64(b - a))
	}
	s.mu.Lock()
	s.memo[k] = n
	s.mu.Unlock()
	return n
}

// countText counts a synthetic text, memoised.
func (s *splitter) countText(t string) int {
	s.mu.Lock()
	n, ok := s.textMemo[t]
	s.mu.Unlock()
	if ok {
		return n
	}
	n = s.c.Count(t)
	s.mu.Lock()
	s.textMemo[t] = n
	s.mu.Unlock()
	return n
}

// chunks expands every unit into chunks that fit capacity payload tokens.
// With fine set, a unit that fits whole is cut one level further anyway
// (diff hunks, paragraphs), so that balancing may cut inside it when that
// evens the parts out by more than the boundary's penalty.
func (s *splitter) chunks(capacity int, fine bool) ([]chunk, error) {
	per := make([][]chunk, len(s.units))
	g, ctx := errgroup.WithContext(s.ctx)
	g.SetLimit(s.par)
	for i := range s.units {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			// A lone unit (a text, one file) cuts its pieces in parallel
			// itself; several units are spread over the workers instead.
			// A part that starts inside a commit repeats the commit's
			// marker: the unit's pieces are cut to leave room for it, and
			// those that would open such a part pay for it in their lead.
			mark := 0
			if m := s.mark(s.units[i].commit); m.text != "" {
				mark = s.countText(m.text)
			}
			e := expander{s: s, ui: i, u: &s.units[i], capacity: capacity - mark, fine: fine, parallel: len(s.units) == 1 && s.par > 1}
			pen := 0.0
			if i > 0 {
				pen = unitPenalty(s.units[i-1], s.units[i])
			}
			e.unit(pen)
			for k := range e.out {
				if s.markBefore(e.out[k]) != "" {
					e.out[k].lead += mark
				}
			}
			per[i] = e.out
			return e.err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var all []chunk
	for _, p := range per {
		all = append(all, p...)
	}
	return all, nil
}

// mark returns the marker of commit k, or the zero commitMark.
func (s *splitter) mark(k int) commitMark {
	if k < len(s.marks) {
		return s.marks[k]
	}
	return commitMark{line: -1}
}

// markBefore returns the commit marker a part opening with c starts with:
// the marker of c's commit when c starts after the commit's own line, so
// that the part holds no other mention of the commit; else "".
func (s *splitter) markBefore(c chunk) string {
	if m := s.mark(s.units[c.unit].commit); m.text != "" && c.start > m.line {
		return m.text
	}
	return ""
}

// expander turns one unit into chunks.
type expander struct {
	s        *splitter
	ui       int
	u        *unit
	capacity int
	fine     bool // cut units that fit one level further
	out      []chunk
	err      error // first reason the unit cannot be cut to fit
	// parallel lets the first span with many pieces expand them on
	// s.par workers (only one expander does: workers never spawn more).
	parallel bool
	// minGap is the gap of thin for the span being cut, set before a
	// cutter runs: the line and paragraph cutters keep only the cuts thin
	// would keep, rather than make one per line of a gigabyte first.
	minGap float64
}

// keep appends a cut at pos unless it is closer than minGap to the last
// one kept (*last, the span's start at first), as thin would drop it.
func (e *expander) keep(cuts []cut, pos int, pen float64, last *int) []cut {
	if float64(pos-*last) < e.minGap {
		return cuts
	}
	*last = pos
	return append(cuts, cut{pos, pen})
}

// lineOf returns the 1-based line number of byte offset i of the unit's
// source.
func (e *expander) lineOf(i int) int { return e.s.lineOf(e.u.src, i) }

// lineStarts returns the offsets at which the lines of text start.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := strings.IndexByte(text, '\n'); i >= 0; {
		starts = append(starts, i+1)
		j := strings.IndexByte(text[i+1:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return starts
}

// cutter returns cut positions strictly inside (a, b), ascending, each
// with the penalty of cutting there.
// It is given the expander that runs it (parallelSpans runs pieces on
// expanders of their own): a cutter bound to one would read another's
// minGap.
type cutter func(e *expander, a, b int) []cut

type cut struct {
	pos int
	pen float64
}

func (e *expander) unit(pen float64) {
	u := e.u
	switch u.kind {
	case unitText:
		levels := []cutter{(*expander).sections, (*expander).paragraphs, (*expander).lines}
		if e.fine && e.s.count(u.src, u.start, u.end) <= e.capacity {
			levels = []cutter{(*expander).paragraphs}
			e.cutSpan(u.start, u.end, pen, 0, levels)
			return
		}
		e.span(u.start, u.end, pen, -1, 0, 0, levels)
	case unitFile:
		levels := []cutter{(*expander).definitions, (*expander).paragraphs, (*expander).lines}
		head := e.s.countText(fileHeader(u.name))
		if e.fine && e.s.count(u.src, u.start, u.end)+head <= e.capacity {
			e.cutSpan(u.start, u.end, pen, head, []cutter{(*expander).paragraphs})
		} else {
			e.span(u.start, u.end, pen, -1, head, 0, levels)
		}
		if u.end > u.start && !strings.HasSuffix(e.s.text(u), "\n") && len(e.out) > 0 {
			e.out[len(e.out)-1].tokens++ // the synthetic final newline
		}
		if len(e.out) == 0 { // empty file: its header still goes out
			e.out = append(e.out, chunk{unit: e.ui, start: u.start, end: u.end, penalty: pen, hunk: -1,
				tokens: e.s.countText(fileHeader(u.name))})
		}
	case unitDiffFile:
		t := e.s.count(u.src, u.start, u.end)
		if t <= e.capacity && (!e.fine || len(u.hunks) < 2) || len(u.hunks) == 0 {
			e.span(u.start, u.end, pen, -1, 0, 0, []cutter{(*expander).lines})
			return
		}
		header := e.s.count(u.src, u.start, u.headerEnd)
		for hi, h := range u.hunks {
			a, lead, p := h.start, header, penaltyHunk
			if hi == 0 {
				a, lead, p = u.start, 0, pen
			}
			if e.s.count(u.src, a, h.end)+lead <= e.capacity {
				e.out = append(e.out, chunk{unit: e.ui, start: a, end: h.end, tokens: e.s.count(u.src, a, h.end),
					lead: lead, penalty: p, hunk: hi})
				continue
			}
			// Cut the hunk by lines; a piece that starts inside it needs
			// the file header and a recomputed hunk header.
			midLead := header + e.s.countText(subHunkSample+h.section+"\n")
			first := len(e.out)
			levels := []cutter{hunkDefinitions(h), hunkParagraphs(h), hunkLines(h)}
			if !h.valid {
				levels = []cutter{(*expander).paragraphs, (*expander).lines}
			}
			e.span(a, h.end, p, hi, 0, midLead, levels)
			if first < len(e.out) {
				e.out[first].lead = lead
			}
		}
	}
}

// span emits [a, b) as one chunk if it fits, or cuts it at the first level
// that offers cuts and recurses on the pieces with the finer levels. head is
// synthetic text always emitted before a (a file header); lead is the cost
// of starting a part at any piece but the first.
func (e *expander) span(a, b int, pen float64, hi, head, lead int, levels []cutter) {
	if a == b {
		return
	}
	t := e.s.count(e.u.src, a, b) + head
	firstLead := 0
	if e.u.kind == unitFile && a > e.u.start {
		firstLead = e.s.countText(fileContinued(e.u.name, e.lineOf(a)))
	}
	if a > e.u.start && e.u.kind != unitFile {
		firstLead = lead
	}
	if t+firstLead <= e.capacity {
		e.out = append(e.out, chunk{unit: e.ui, start: a, end: b, tokens: t, lead: firstLead, penalty: pen, hunk: hi})
		return
	}
	for len(levels) > 0 {
		e.minGap = e.gap(a, b, t)
		cuts := e.thin(a, b, t, levels[0](e, a, b))
		levels = levels[1:]
		if len(cuts) == 0 {
			continue
		}
		if e.parallel && len(cuts) >= 2*e.s.par {
			e.parallelSpans(a, b, pen, hi, head, lead, levels, cuts)
			return
		}
		prev, prevPen := a, pen
		for _, c := range cuts {
			e.span(prev, c.pos, prevPen, hi, head, lead, levels)
			head = 0
			prev, prevPen = c.pos, c.pen
		}
		e.span(prev, b, prevPen, hi, head, lead, levels)
		return
	}
	e.fragments(a, b, pen, hi, head, lead)
}

// parallelSpans is span's loop over the pieces of [a, b) cut at cuts, run
// on s.par workers, each piece by an expander of its own, the chunks put
// together in order: the same chunks as the loop makes, with a text's
// counting spread over the cores (a text is one unit, which chunks would
// otherwise expand on one).
func (e *expander) parallelSpans(a, b int, pen float64, hi, head, lead int, levels []cutter, cuts []cut) {
	type piece struct {
		a, b, head int
		pen        float64
	}
	pieces := make([]piece, 0, len(cuts)+1)
	prev, prevPen := a, pen
	for _, c := range cuts {
		pieces = append(pieces, piece{prev, c.pos, head, prevPen})
		head = 0
		prev, prevPen = c.pos, c.pen
	}
	pieces = append(pieces, piece{prev, b, head, prevPen})
	outs := make([][]chunk, len(pieces))
	errs := make([]error, len(pieces))
	var g errgroup.Group
	g.SetLimit(e.s.par)
	for k, p := range pieces {
		g.Go(func() error {
			sub := expander{s: e.s, ui: e.ui, u: e.u, capacity: e.capacity, fine: e.fine}
			sub.span(p.a, p.b, p.pen, hi, p.head, lead, levels)
			outs[k], errs[k] = sub.out, sub.err
			return nil
		})
	}
	g.Wait()
	for k := range pieces {
		e.out = append(e.out, outs[k]...)
		if e.err == nil {
			e.err = errs[k]
		}
	}
}

// thin keeps, of the cuts of [a, b) (t tokens), only those at least about
// capacity/blockFraction tokens apart (estimated from the span's bytes per
// token): balancing works on blocks of that size anyway (see coarsen), and
// a million one-line chunks would cost memory and time for nothing.
func (e *expander) thin(a, b, t int, cuts []cut) []cut {
	gap := e.gap(a, b, t)
	if len(cuts) < 2 || gap == 0 {
		return cuts
	}
	kept := cuts[:0:0]
	last := a
	for _, c := range cuts {
		if float64(c.pos-last) >= gap {
			kept = append(kept, c)
			last = c.pos
		}
	}
	return kept
}

// gap is thin's least distance in bytes between two cuts of [a, b) (t
// tokens), or 0 when every cut is kept.
func (e *expander) gap(a, b, t int) float64 {
	if t <= 0 {
		return 0
	}
	gap := float64(b-a) * float64(e.capacity/blockFraction) / float64(t)
	if gap < 2 {
		return 0
	}
	return gap
}

// cutSpan cuts [a, b), which fits whole, at the first level offering
// cuts, and emits the pieces (each cut further only if it must be).
func (e *expander) cutSpan(a, b int, pen float64, head int, levels []cutter) {
	for _, level := range levels {
		t := e.s.count(e.u.src, a, b) + head
		e.minGap = e.gap(a, b, t)
		if cuts := e.thin(a, b, t, level(e, a, b)); len(cuts) > 0 {
			prev, prevPen := a, pen
			for _, c := range cuts {
				e.span(prev, c.pos, prevPen, -1, head, 0, []cutter{(*expander).lines})
				head = 0
				prev, prevPen = c.pos, c.pen
			}
			e.span(prev, b, prevPen, -1, head, 0, []cutter{(*expander).lines})
			return
		}
	}
	e.span(a, b, pen, -1, head, 0, nil)
}

// fragments cuts [a, b), which has no finer boundary, into pieces that fit
// with their markers. Each piece but the last ends with fragmentEnd, each
// but the first starts with fragmentLead.
func (e *expander) fragments(a, b int, pen float64, hi, head, lead int) {
	text := e.s.text(e.u)
	endCost := e.s.countText(fragmentEnd)
	contCost := e.s.countText(fragmentLead)
	cont := false
	for a < b {
		l := lead
		if e.u.kind == unitFile {
			l = e.s.countText(fileContinued(e.u.name, e.lineOf(a)))
		}
		if cont {
			l += contCost
		}
		room := e.capacity - l - head
		if t := e.s.count(e.u.src, a, b) + head; t+l <= e.capacity {
			e.out = append(e.out, chunk{unit: e.ui, start: a, end: b, tokens: t, lead: l, penalty: pen, hunk: hi, cont: cont})
			return
		}
		room -= endCost
		// Equal pieces: k of them, each about total/k tokens, guessed
		// proportionally in bytes and shrunk until it fits.
		total := e.s.count(e.u.src, a, b)
		k := (total + max(room, 1) - 1) / max(room, 1)
		goal := min(room, total/max(k, 1)+1)
		n := int(float64(b-a) * float64(max(goal, 1)) / float64(max(total, 1)))
		n = max(n, 1)
		end := runeEnd(text, a, min(a+n, b))
		for end > a && e.s.count(e.u.src, a, end) > room {
			end = runeEnd(text, a, a+(end-a)*9/10)
		}
		if end <= a {
			if e.err == nil {
				e.err = fmt.Errorf("%w: cutting a line of %s in %s needs %d tokens of headers and markers per part, %d more than a part's %d tokens of room",
					ErrNoFit, e.u.name, e.s.in.Sources[e.u.src].Name, l+head+endCost, l+head+endCost+1-e.capacity, e.capacity)
			}
			return
		}
		e.out = append(e.out, chunk{unit: e.ui, start: a, end: end, tokens: e.s.count(e.u.src, a, end) + head + endCost,
			lead: l, penalty: pen, hunk: hi, frag: true, cont: cont})
		a, pen, head, cont = end, penaltyFragment, 0, true
	}
}

// runeEnd moves i back to a rune boundary, but not to or before a.
func runeEnd(s string, a, i int) int {
	for i > a && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// lines cuts before every line start in (a, b) (those minGap apart).
func (e *expander) lines(a, b int) []cut {
	text := e.s.text(e.u)
	var cuts []cut
	last := a
	for i := lineEnd(text, a); i < b; i = lineEnd(text, i) {
		cuts = e.keep(cuts, i, penaltyLine, &last)
	}
	return cuts
}

// blank reports whether the line at i is empty or only white space.
func blank(text string, i int) bool {
	return strings.TrimSpace(text[i:lineEnd(text, i)]) == ""
}

// paragraphs cuts after runs of blank lines.
func (e *expander) paragraphs(a, b int) []cut {
	text := e.s.text(e.u)
	var cuts []cut
	prevBlank := false
	last := a
	for i := a; i < b; i = lineEnd(text, i) {
		bl := blank(text, i)
		if prevBlank && !bl && i > a {
			cuts = e.keep(cuts, i, penaltyPara, &last)
		}
		prevBlank = bl
	}
	return cuts
}

// sections cuts before markdown headings ("# ", "## ", …).
func (e *expander) sections(a, b int) []cut {
	text := e.s.text(e.u)
	var cuts []cut
	for i := lineEnd(text, a); i < b; i = lineEnd(text, i) {
		if strings.HasPrefix(text[i:], "#") {
			t := strings.TrimLeft(text[i:lineEnd(text, i)], "#")
			if strings.HasPrefix(t, " ") && len(text[i:])-len(t) <= 6 {
				cuts = append(cuts, cut{i, penaltySection})
			}
		}
	}
	return cuts
}

// definitions cuts before each definition reported by Options.Definitions,
// moving the cut up over the comment block directly above it.
func (e *expander) definitions(a, b int) []cut {
	pos := e.defPositions()
	var cuts []cut
	for _, p := range pos {
		if p > a && p < b {
			cuts = append(cuts, cut{p, penaltyDef})
		}
	}
	return cuts
}

func (e *expander) defPositions() []int {
	e.s.mu.Lock()
	pos, ok := e.s.defs[e.ui]
	e.s.mu.Unlock()
	if ok {
		return pos
	}
	text := e.s.text(e.u)
	definitions := e.s.opts.Definitions
	if definitions == nil {
		definitions = treeSitterDefinitions
	}
	defs := definitions(e.u.name, []byte(text))
	sort.SliceStable(defs, func(i, j int) bool { return defs[i].Start < defs[j].Start })
	lineStarts := []int{0}
	for i := 0; i < len(text); {
		i = lineEnd(text, i)
		lineStarts = append(lineStarts, i)
	}
	prevEnd := 0 // line index after the previous definition
	for _, d := range defs {
		l := d.Start - 1
		if l < 0 || l >= len(lineStarts) || d.End < d.Start {
			continue
		}
		for l > prevEnd && !blank(text, lineStarts[l-1]) {
			l--
		}
		if len(pos) == 0 || lineStarts[l] > pos[len(pos)-1] {
			pos = append(pos, lineStarts[l])
		}
		prevEnd = max(prevEnd, min(d.End, len(lineStarts)-1))
	}
	e.s.mu.Lock()
	e.s.defs[e.ui] = pos
	e.s.mu.Unlock()
	return pos
}

// treeSitterDefinitions adapts index.Definitions. A file that does not
// parse yields what tree-sitter recovered; an error means no definitions,
// and the file is cut by paragraphs instead.
func treeSitterDefinitions(path string, src []byte) []Def {
	syms, _, err := index.Definitions(path, src)
	if err != nil {
		return nil
	}
	defs := make([]Def, len(syms))
	for i, s := range syms {
		defs[i] = Def{Start: s.Start, End: s.End}
	}
	return defs
}

// hunkLines cuts before every body line of h, never before a "\" line and
// never inside the hunk header.
func hunkLines(h hunk) cutter {
	return func(e *expander, a, b int) []cut {
		text := e.s.text(e.u)
		var cuts []cut
		last := a
		for i := lineEnd(text, a); i < b; i = lineEnd(text, i) {
			if i <= h.headerEnd || i >= h.bodyEnd || text[i] == '\\' {
				continue
			}
			cuts = e.keep(cuts, i, penaltyLine, &last)
		}
		return cuts
	}
}

// hunkDefinitions cuts before the definitions that start in the hunk's new
// side (its " " and "+" lines, read as a fragment of the new file; a whole
// new file is one hunk), moving each cut up over the comment lines directly
// above the definition.
func hunkDefinitions(h hunk) cutter {
	return func(e *expander, a, b int) []cut {
		text := e.s.text(e.u)
		var src strings.Builder
		var at []int // diff offset of each new-side line
		for i := h.headerEnd; i < h.bodyEnd; i = lineEnd(text, i) {
			if text[i] == ' ' || text[i] == '+' {
				at = append(at, i)
				src.WriteString(text[i+1 : lineEnd(text, i)])
			}
		}
		if len(at) == 0 {
			return nil
		}
		definitions := e.s.opts.Definitions
		if definitions == nil {
			definitions = treeSitterDefinitions
		}
		newSide := src.String()
		starts := lineStarts(newSide)
		var cuts []cut
		prevEnd := 0
		for _, d := range definitions(e.u.name, []byte(newSide)) {
			l := d.Start - 1
			if l < 0 || l >= len(at) || d.End < d.Start {
				continue
			}
			for l > prevEnd && l-1 < len(starts) && !blank(newSide, starts[l-1]) {
				l--
			}
			prevEnd = max(prevEnd, min(d.End, len(at)))
			pos := at[l]
			if pos > a && pos < b && pos > h.headerEnd && (len(cuts) == 0 || pos > cuts[len(cuts)-1].pos) {
				cuts = append(cuts, cut{pos, penaltyDef})
			}
		}
		return cuts
	}
}

// hunkParagraphs cuts after blank body lines ("+", " ", "-" alone).
func hunkParagraphs(h hunk) cutter {
	return func(e *expander, a, b int) []cut {
		text := e.s.text(e.u)
		var cuts []cut
		prevBlank := false
		for i := max(a, h.headerEnd); i < min(b, h.bodyEnd); i = lineEnd(text, i) {
			bl := len(strings.TrimSpace(text[i+1:lineEnd(text, i)])) == 0 && text[i] != '\\'
			if prevBlank && !bl && i > a && text[i] != '\\' {
				cuts = append(cuts, cut{i, penaltyPara})
			}
			prevBlank = bl
		}
		return cuts
	}
}
