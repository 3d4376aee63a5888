package slicer

import (
	"context"
	"os"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// This file packs ranked files into the budget: depth for the best files,
// a strong definition each for the next, signatures for the rest. See
// "Packing" in the package comment.

// allUnits is viewWithin's maxUnits for no bound on the units a view
// takes.
const allUnits = 0

// packer chooses views under the budget.
type packer struct {
	ix     *index.Index
	q      *query
	stats  []fileStats
	c      budget.Counter
	read   func(string) ([]byte, error)
	root   *os.Root    // the work tree read opens, when Select opened it
	r      *renderer   // the requested format
	sizing []*renderer // every format a selection is rendered in, so that all hold the same selection
	redact bool
	budget int

	termW    []float64 // idf of each query term, for ranking definitions
	newWords []int     // words of the task's first line that no file holds
	files    map[int]*loaded
	wholes   map[int]*view
	units    map[int][]unit
	filled   map[int][]unit
	fillFile int // the file whose unhit units may fill its share, -1 for none
	rangeTok map[rangeKey]int
	views    []*view
	maps     []*mapEntry
	chosen   map[int]bool
	text     string
	tokens   int // the count of text; for paths, of the markdown prompt
	omit     int

	logf  func(format string, args ...any) // opts.Logf, or a no-op
	edits edits                            // the work tree's changes against HEAD (readEdits, a fact)
	notes noteFacts                        // what the note states of this packing: twins, an outline
}

// load reads, redacts and splits a file once.
func (p *packer) load(i int) *loaded {
	if l, ok := p.files[i]; ok {
		return l
	}
	l := &loaded{}
	p.files[i] = l
	src, err := p.read(p.ix.Files[i].Path)
	if err != nil {
		l.err = err
		return l
	}
	s := string(src)
	if p.redact {
		s, l.redactions = Redact(p.ix.Files[i].Path, s)
	}
	// Only the final newline ends the last line; the blank lines before it
	// are lines of the file, and a change appended to it touches them.
	s = strings.TrimSuffix(s, "\n")
	if s != "" {
		l.lines = strings.Split(s, "\n")
	}
	return l
}

// count is the exact count of part as rendered by the sizing renderers,
// the prompt formats: the dearer of them.
func (p *packer) count(part func(r *renderer) string) int {
	return countDearest(p.c, p.sizing, part)
}

// pack fills p.views and p.maps and renders the final text within budget.
// It chooses the candidates, measures the note, and runs the passes of
// "Packing" in the package comment in order, each charging a ledger:
// depth, whole, breadth, the map, the fill, and the map again.
func (p *packer) pack(ctx context.Context, rk []ranked) error {
	p.reset()
	cands, twins := dropTwins(p.ix, candidates(rk))
	p.omit = len(cands)
	frame := p.count(func(r *renderer) string { return r.render(page{omitted: p.omit}) })
	ctxBudget := p.budget - frame - frameSlack
	if ctxBudget <= 0 || len(cands) == 0 {
		return p.finish(nil, nil)
	}
	unmatched := !anyMatch(cands)
	p.notes = noteFacts{unmatched: unmatched, twins: twins}
	if unmatched {
		return p.outline(cands, ctxBudget)
	}
	// The best file's room, its share here and what the last pass gives
	// it, goes on to the units around those the task hits (fillUnits):
	// what is left unused otherwise flows to lower files' excerpts.
	// Measured on the kit's 18 sets at 8k/16k/32k: 7 tasks won, none
	// lost, all on held-out sets (fmt, sinatra, click; line recall
	// +0.125 summed over the 54 cells); filling within the depth share
	// only, not in the last pass, won 4; filling the second file too
	// won 1 and lost 2 against the best alone, and passing the fill to
	// the next source when the best goes in whole won 4 and lost 4
	// (round 31, file-level 5 won and 1 lost).
	p.fillFile = cands[0].file
	l := newLedger(ctxBudget, cands)
	deep, err := p.packDepth(ctx, cands, l)
	if err != nil {
		return err
	}
	l.openBreadth()
	p.packWhole(cands[:min(deep, wholeRanks)], l)
	if err := p.packBreadth(ctx, cands[deep:], l); err != nil {
		return err
	}
	// The signature map: the next files, one entry each, within its
	// share; what breadth left goes to the best files first (packFill),
	// and the map takes what they leave.
	mapOf := map[int]int{} // file → its entry in p.maps
	l.spendMap(p.addMaps(cands, mapOf, l.maps))
	l.closeMap()
	p.packFill(cands, mapOf, l)
	l.reopenMap()
	l.spendMap(p.addMaps(cands, mapOf, l.maps))
	maps := p.maps[:0]
	for _, m := range p.maps {
		if m != nil {
			maps = append(maps, m)
		}
	}
	p.maps = maps
	return p.finish(p.views, p.maps)
}

// candidates returns the ranked files packing considers: in rank order,
// those scoring at least minScoreShare of the best, at most maxCandidates.
func candidates(rk []ranked) []*ranked {
	var cands []*ranked
	if len(rk) > 0 {
		floor := rk[0].signals.Score * minScoreShare
		for k := range rk {
			if len(cands) == maxCandidates || rk[k].signals.Score < floor {
				break
			}
			cands = append(cands, &rk[k])
		}
	}
	return cands
}

// packDepth is the depth pass: in rank order, each file gets a share of
// what is left, falling with its score. What a file is allotted, not what
// it uses, is taken from the rest, so that every file's allotment grows
// with the budget and a larger budget shows a superset (the unused part
// goes to breadth). It returns how many files took a depth share; breadth
// goes on after them.
func (p *packer) packDepth(ctx context.Context, cands []*ranked, l *ledger) (deep int, err error) {
	for k, r := range cands {
		if err := ctx.Err(); err != nil {
			return deep, err
		}
		rel := r.signals.Score / l.top
		best := r == cands[0]
		alloc := l.allot(rel, best)
		if alloc < minBlock {
			break
		}
		deep++
		var v *view
		if deep > 1 && !takesDepth(r) {
			// A test, doc or config the task does not name, below the
			// best file, is read for how the code is used, which its
			// best unit tells: it is shown as breadth wherever it
			// ranks, and its depth share goes to the sources after it.
			// Measured on the kit's eleven sets against whole files and
			// depth shares for them: 8 tasks won, none lost (lines all
			// % +6.6 summed over the 24 tuning cells, +6.6 over the 9
			// held-out ones).
			alloc = min(alloc, l.tailCap)
			v = p.breadthView(r, alloc)
		} else {
			v, alloc = p.depthView(r, nextDeep(cands[k+1:]), rel, alloc, best, l)
		}
		if v == nil {
			continue
		}
		if v.gran == GranWhole {
			alloc = v.tokens // the whole file is all it can use
		}
		p.views = append(p.views, v)
		p.chosen[r.file] = true
		l.takeDepth(alloc, v.tokens)
	}
	return deep, nil
}

// depthView returns the view of a file that takes a depth share, allotted
// alloc, and what it is charged: the whole file within the stretch (next
// is the next file to take a depth share, or nil), else its units within
// alloc, else within the stretch.
func (p *packer) depthView(r, next *ranked, rel float64, alloc int, best bool, l *ledger) (*view, int) {
	// The stretch: the room a whole file may take, which is also the
	// room excerpts get when not even one fits the plain share.
	stretch := l.stretch(alloc, rel, r, next)
	v := p.wholeIfWithin(r, stretch)
	if v == nil {
		v = p.viewWithin(r, alloc, allUnits)
	}
	if v == nil && stretch > alloc {
		if v = p.viewWithin(r, stretch, allUnits); v != nil {
			alloc = v.tokens
		}
	} else if best && v != nil && stretch > alloc && endsWindowed(v) {
		// The best file's view ends in a window of the unit its share
		// cuts, and the stretch holds that unit whole: the same units,
		// the last in full. Without it, a larger share could show less
		// (a window within the share, where a smaller share fitting
		// nothing had taken the stretch). Measured on the kit's 18 sets
		// with the dominant share (0.85): 1 task won, 1 lost; for every
		// file, against the best only, 9 won and 8 lost.
		if w := p.viewWithin(r, stretch, len(v.units)); w != nil && !endsWindowed(w) && len(w.units) == len(v.units) {
			v, alloc = w, w.tokens
		}
	}
	return v, alloc
}

// packWhole is the whole pass, depth over fragments: a file of cands
// (the first wholeRanks that took depth) shown as excerpts goes in whole
// when it fits what is free, before breadth spends that on one-definition
// excerpts of lower files. A test, doc or config the task does not name
// stays breadth (takesDepth).
func (p *packer) packWhole(cands []*ranked, l *ledger) {
	for _, r := range cands {
		if !takesDepth(r) {
			continue
		}
		for k, v := range p.views {
			if v.rk != r || v.gran == GranWhole {
				continue
			}
			if w := p.wholeIfWithin(r, v.tokens+l.free); w != nil {
				l.spendWhole(w.tokens - v.tokens)
				p.views[k] = w
			}
			break
		}
	}
}

// packBreadth is the breadth pass: the next files' best definition each,
// where it matches strongly, from the ledger's free pool. It ends at the
// first file scoring below breadthFloor of the best, or after
// maxBreadthMisses files in a row that show nothing.
func (p *packer) packBreadth(ctx context.Context, cands []*ranked, l *ledger) error {
	misses := 0
	for _, r := range cands {
		if err := ctx.Err(); err != nil {
			return err
		}
		if l.free < minBlock || misses == maxBreadthMisses || r.signals.Score < breadthFloor*l.top {
			break
		}
		if p.chosen[r.file] {
			continue
		}
		misses++
		v := p.breadthView(r, min(l.tailCap, l.free))
		if v == nil || v.tokens > l.free {
			continue
		}
		p.views = append(p.views, v)
		p.chosen[r.file] = true
		l.spendBreadth(v.tokens)
		misses = 0
	}
	return nil
}

// addMaps is the map pass: in rank order, an entry for each file that
// defines something and has neither a view nor an entry (mapOf, file →
// its entry in p.maps, which it extends), while one fits pool. It returns
// the tokens the entries added.
func (p *packer) addMaps(cands []*ranked, mapOf map[int]int, pool int) int {
	left := pool
	for _, r := range cands {
		if left < minMapEntry {
			break
		}
		if _, ok := mapOf[r.file]; ok || p.chosen[r.file] || len(p.ix.Files[r.file].Symbols) == 0 {
			continue
		}
		m := p.mapEntry(r)
		if m.tokens > left {
			continue
		}
		mapOf[r.file] = len(p.maps)
		p.maps = append(p.maps, m)
		left -= m.tokens
	}
	return pool - left
}

// packFill is the last pass: what is still free goes to the best files,
// in rank order: deeper views, or content for a file that had only its
// map entry (which the view replaces: p.maps keeps a nil in its place) or
// nothing. Something is left over when breadth ran out of files the task
// hits, or few files matched at all.
func (p *packer) packFill(cands []*ranked, mapOf map[int]int, l *ledger) {
	viewOf := map[int]int{}
	for k, v := range p.views {
		viewOf[v.rk.file] = k
	}
	var extra []*view
	misses := 0
	for _, r := range cands {
		if l.free < minBlock || misses == maxBreadthMisses {
			break
		}
		if k, ok := viewOf[r.file]; ok {
			p.deepen(r, k, l)
			continue
		}
		room := l.free
		m, inMap := mapOf[r.file]
		if inMap {
			room += p.maps[m].tokens
		}
		w := p.viewWithin(r, room, allUnits)
		if w == nil {
			misses++
			continue
		}
		misses = 0
		if inMap {
			l.refundMap(p.maps[m].tokens)
			p.maps[m] = nil
		}
		l.spendFill(w.tokens)
		extra = append(extra, w)
		p.chosen[r.file] = true
	}
	p.views = append(p.views, extra...)
}

// deepen replaces p.views[k], file r's excerpts, by the larger view the
// ledger's free pool adds room for, if any. A whole file stays as it is.
func (p *packer) deepen(r *ranked, k int, l *ledger) {
	v := p.views[k]
	if v.gran == GranWhole {
		return
	}
	if w := p.viewWithin(r, v.tokens+l.free, allUnits); w != nil && w.tokens > v.tokens {
		l.spendFill(w.tokens - v.tokens)
		p.views[k] = w
	}
}

// dropTwins keeps the best ranked of the candidates with the same content
// (a symbolic link and its target, as CLAUDE.md → AGENTS.md; a copied
// file) and returns, for each kept path, the paths of its twins, which
// the note names. Shown twice, the content had cost its tokens twice.
// Empty files are not twins: they show nothing.
func dropTwins(ix *index.Index, cands []*ranked) ([]*ranked, map[string][]string) {
	first := map[string]int{} // blob → its file's place in out
	twins := map[string][]string{}
	out := cands[:0:0]
	for _, r := range cands {
		f := &ix.Files[r.file]
		if f.Blob != "" && f.Size > 0 {
			if k, ok := first[f.Blob]; ok {
				kept := ix.Files[out[k].file].Path
				twins[kept] = append(twins[kept], f.Path)
				continue
			}
			first[f.Blob] = len(out)
		}
		out = append(out, r)
	}
	return out, twins
}

// anyMatch reports whether the task reaches any candidate
// (Signals.taskReaches: its words, a name, path or frame it mentions, a
// test or source it names), or a file is being edited, the only hint a
// task that reaches nothing leaves. Without one the ranking is the
// repository's shape alone (the graph, recency, co-change).
func anyMatch(cands []*ranked) bool {
	for _, r := range cands {
		if r.signals.taskReaches() || r.signals.Dirty > 0 {
			return true
		}
	}
	return false
}

// takesDepth reports whether a file below the best takes a depth share:
// a source, or a file the task names. A test, doc or config it does not
// name is shown as breadth wherever it ranks.
func takesDepth(r *ranked) bool { return r.named || r.class == index.Source }

// nextDeep returns the first of cands that takes a depth share, or nil.
func nextDeep(cands []*ranked) *ranked {
	for _, r := range cands {
		if takesDepth(r) {
			return r
		}
	}
	return nil
}

// reset empties the packer's caches and choices.
func (p *packer) reset() {
	p.files = map[int]*loaded{}
	p.wholes = map[int]*view{}
	p.units = map[int][]unit{}
	p.filled = map[int][]unit{}
	p.fillFile = -1
	p.rangeTok = map[rangeKey]int{}
	p.chosen = map[int]bool{}
	p.views, p.maps = nil, nil
	p.notes = noteFacts{}
}

// page is what the packing shows, for the renderers.
func (p *packer) page() page {
	return page{p.views, p.maps, p.omitted(p.views, p.maps), p.notes}
}

// strong reports whether a file's best unit matches the task strongly:
// it holds minBreadthWords of the task's words, or the task points into
// it (a name, a quote, a line). Only those are shown as breadth, the
// others go to the signature map unless small enough to go in whole.
func (p *packer) strong(r *ranked) bool {
	l := p.load(r.file)
	if l.err != nil || len(l.lines) == 0 {
		return false
	}
	us := p.fileUnits(r, l)
	return len(us) > 0 && (us[0].mention || us[0].words >= minBreadthWords)
}

// chooseUnits takes units in order while their estimate fits limit; the
// first that does not fit is windowed, and the choice ends there.
func (p *packer) chooseUnits(file int, l *loaded, us []unit, limit, maxUnits int) ([]LineRange, []Unit) {
	var ranges []LineRange
	var chosen []Unit
	est := 0
	for k := range us {
		u := &us[k]
		if maxUnits > 0 && k == maxUnits {
			break
		}
		if u.fill {
			// Counted by increments, the lines each adds: the rest of
			// a large file would count its merged ranges again at
			// every unit, and each unit's padded range overlaps the
			// next (counting it whole left a quarter of the room
			// free; counting what it adds won 2 more kit tasks).
			if est == 0 {
				est = p.estimate(file, l, ranges)
			}
			rg := padBlank(l.lines, u.r, false)
			try := addRange(l.lines, ranges, rg)
			c := markerTokens * (len(try) - len(ranges))
			for _, g := range uncovered(ranges, rg) {
				c += p.estimate(file, l, []LineRange{g}) - blockFrameTokens
			}
			if est+c > limit {
				break
			}
			est += c
			ranges = try
			chosen = append(chosen, u.export(false))
			continue
		}
		try := addRange(l.lines, ranges, padBlank(l.lines, u.r, true))
		if u.scope > 0 {
			try = addRange(l.lines, try, LineRange{u.scope, u.scope})
		}
		if p.estimate(file, l, try) <= limit {
			ranges = try
			chosen = append(chosen, u.export(false))
			continue
		}
		if u.cuts != nil {
			// The preamble is never windowed: it ends after the last
			// whole import statement that fits, if any.
			if w := p.cutPreamble(file, l, u, ranges, limit); w != nil {
				ranges = w
				chosen = append(chosen, u.export(true))
			}
			break
		}
		if w := p.window(file, l, u, ranges, limit); w != nil {
			ranges = w
			chosen = append(chosen, u.export(true))
		}
		break
	}
	return ranges, chosen
}

// finish renders views then map lines, and if the text is over budget in
// any sizing format, drops items from the tail: a binary search for the
// longest prefix whose rendering fits, every probe counted exactly.
func (p *packer) finish(views []*view, maps []*mapEntry) error {
	n := len(views) + len(maps)
	cost := func(k int) int {
		kv := min(k, len(views))
		km := max(0, k-len(views))
		return p.count(func(r *renderer) string {
			return r.render(page{views[:kv], maps[:km], p.omitted(views[:kv], maps[:km]), p.notes})
		})
	}
	tok := cost(n)
	if tok > p.budget {
		lo, hi := 0, n // cost(lo) fits (checked by Select), cost(hi) does not
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if cost(mid) <= p.budget {
				lo = mid
			} else {
				hi = mid
			}
		}
		n = lo
		if cost(n) > p.budget {
			return taskTooLarge(cost(n), p.budget)
		}
	}
	kv := min(n, len(views))
	p.views, p.maps = views[:kv], maps[:max(0, n-len(views))]
	p.text = p.r.render(p.page())
	if p.prompt() {
		p.tokens = p.c.Count(p.text)
	} else {
		p.tokens = p.c.Count(p.promptRenderer().render(p.page()))
	}
	return nil
}

// prompt reports whether the budget counts the requested format's own
// text; paths describes the markdown prompt.
func (p *packer) prompt() bool {
	return p.r.format != FormatPaths
}

// promptRenderer is the renderer of the text the selection's counts
// describe: the requested format's, or markdown's for paths.
func (p *packer) promptRenderer() *renderer {
	if p.prompt() {
		return p.r
	}
	return p.sizing[0]
}

// omitted counts candidates in neither the content nor the map.
func (p *packer) omitted(views []*view, maps []*mapEntry) int {
	return max(0, p.omit-len(views)-len(maps))
}
