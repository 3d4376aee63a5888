package slicer

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// This file cuts a file into units, the blocks an excerpt is made of, and
// gathers the task's hits in them; defscore.go scores them as definitions
// (see "Units" in the package comment). Units depend on the file and the
// task only, never on the budget, so that a larger budget shows a
// superset of a smaller one.

// unit is a candidate block of a file: a definition with its doc comment,
// a paragraph of small definitions, or a paragraph of top-level code.
type unit struct {
	r       LineRange
	header  int // the definition's first line, kept when it is windowed; 0 for a paragraph
	scope   int // first line of the enclosing definition, 0 at top level
	name    string
	score   float64
	cover   float64 // share of the task's term weight matched inside the unit
	mention bool    // the task points into the unit
	best    int     // the line with the most weight
	why     []string
	// cuts, for the file's preamble only (non-nil), are the lines after
	// which it may end: each closes an import statement.
	cuts []int
	fill bool // not hit by the task: the rest of a file, nearest first
	// words is how many of the task's terms the unit holds; a quote
	// counts as two.
	words int
}

// fileUnits returns the units of a file that the task hits, best first:
// each scored by BM25 of the task's terms within it (against the file's
// other units), plus unitMentionBonus when the task points into it
// (defscore.go), with the file's preamble second. The steps run in this
// order, and each adds to the lines' weights in turn: the task's terms,
// the new words placed in sorted tables, the quotes, the lines named,
// the lines edited, the siblings of new identifiers.
func (p *packer) fileUnits(r *ranked, l *loaded) []unit {
	if us, ok := p.units[r.file]; ok {
		return us
	}
	f := &p.ix.Files[r.file]
	shape := p.shapeOf(r.file, l)
	h := &unitHits{shape: shape, lang: f.Lang, lines: l.lines, byKey: map[unitKey]*unitAcc{}}
	maxW := maxTermWeight(p.termW)
	quotes := h.addTerms(p.stats[r.file].hits, p.termW)
	h.addNewWords(p.q, p.termW, p.newWords)
	h.addQuotes(p.q, quotes, maxW)
	for _, line := range r.lines {
		h.point(line, "named", maxW)
	}
	// The lines the work tree changed against HEAD point at their units
	// as a named line does: a change in progress is where the task is.
	// A bonus five times as large, so that edited units come first, showed
	// the change in progress in 3 more of the 742 mid-edit tasks at 8k and
	// 2 more at 16k (scripts/eval-midedit.py), 1 fewer elsewhere: not kept.
	for _, line := range p.editedLines(r.file, l) {
		h.point(line, "edited", maxW)
	}
	h.pointSiblings(p.q, p.stats[r.file].tf, f.Symbols, maxW)
	us := scoreUnits(h.order, p.q, p.termW, f.Symbols)
	sortUnits(us)
	us = withPreamble(us, f.Lang, l.lines, shape.imp)
	p.units[r.file] = us
	return us
}

// unitAcc gathers one unit's hits: its term counts, the weight found on
// each of its lines, and whether it holds a quote found all over the file.
type unitAcc struct {
	u      unit
	tf     map[int32]int
	line   map[int]float64
	quoted bool // holds a quote found all over the file: one strong term
}

// unitHits gathers the hits of one file by unit, in the order the units
// are first hit.
type unitHits struct {
	shape *fileShape
	lang  string
	lines []string
	byKey map[unitKey]*unitAcc
	order []*unitAcc
}

// at returns the accumulator of line's unit, made on its first hit; nil
// when the line is in no unit (unitAt).
func (h *unitHits) at(line int) *unitAcc {
	u, ok := h.shape.unitAt(h.lang, h.lines, line)
	if !ok {
		return nil
	}
	k := unitKey{u.r.Start, u.r.End}
	a := h.byKey[k]
	if a == nil {
		a = &unitAcc{u: u, tf: map[int32]int{}, line: map[int]float64{}}
		h.byKey[k] = a
		h.order = append(h.order, a)
	}
	return a
}

// quoteHit is a line of a unit on which a quote (-1-quote in query.lits)
// was found.
type quoteHit struct {
	a     *unitAcc
	line  int
	quote int32
}

// unitQuotes are a file's quote hits, and per quote the units it hits.
type unitQuotes struct {
	hits  []quoteHit
	units map[int32]map[*unitAcc]bool
}

// addTerms counts the task's terms hit in each unit, in the order of the
// file's hits, each line weighing its terms' termW; the quotes' hits it
// returns for addQuotes, which weighs them once the units are known.
func (h *unitHits) addTerms(hits []hit, termW []float64) unitQuotes {
	qs := unitQuotes{units: map[int32]map[*unitAcc]bool{}}
	for _, ht := range hits {
		a := h.at(int(ht.Line))
		if a == nil {
			continue
		}
		if ht.Term >= 0 {
			a.tf[ht.Term]++
			a.line[int(ht.Line)] += termW[ht.Term]
			continue
		}
		qs.hits = append(qs.hits, quoteHit{a, int(ht.Line), ht.Term})
		if qs.units[ht.Term] == nil {
			qs.units[ht.Term] = map[*unitAcc]bool{}
		}
		qs.units[ht.Term][a] = true
	}
	return qs
}

// addNewWords places the new words (termRarity) in the file's sorted
// tables. A word of the title that no file holds names something new; in
// a sorted table, it goes where it sorts. Its place weighs by how often
// the task says it, so that of several new words the name the task is
// about sets the window ("add Qt types … and ui declaration").
func (h *unitHits) addNewWords(q *query, termW []float64, newWords []int) {
	if len(newWords) == 0 {
		return
	}
	for _, t := range sortedTables(h.lines, h.shape.imp) {
		for _, k := range newWords {
			before, after := t.insertionLines(q.terms[k])
			for _, line := range []int{before, after} {
				if line < 1 || line > len(h.lines) {
					continue
				}
				if a := h.at(line); a != nil {
					a.tf[int32(k)]++
					a.line[line] += termW[k] * q.tfWeight(k)
					a.u.why = appendOnce(a.u.why, "sorted")
				}
			}
		}
	}
}

// addQuotes weighs the quotes' hits. A quote found in a few units
// (maxQuoteUnits) points at them; one found all over the file
// (`pattern`, `Stdout`: a name in backticks) is a strong term.
func (h *unitHits) addQuotes(q *query, qs unitQuotes, maxW float64) {
	for _, qh := range qs.hits {
		a := qh.a
		if len(qs.units[qh.quote]) <= maxQuoteUnits {
			a.u.mention = true
			a.line[qh.line] += unitMentionBonus * maxW
			why := "quote"
			if q.lits[-1-qh.quote].of != "" {
				why = "sibling" // a new flag goes in next to this one
			}
			a.u.why = appendOnce(a.u.why, why)
		} else {
			a.line[qh.line] += maxW
			a.quoted = true
			a.u.why = appendOnce(a.u.why, "quoted")
		}
	}
}

// point makes line's unit one the task points at, saying why.
func (h *unitHits) point(line int, why string, maxW float64) {
	if a := h.at(line); a != nil {
		a.u.mention = true
		a.line[line] += unitMentionBonus * maxW
		a.u.why = appendOnce(a.u.why, why)
	}
}

// pointSiblings points at the siblings of the new identifiers: an
// identifier of the title that this file lacks (tf, the file's term
// counts; nil for a file whose contents were not scanned) is often added
// next to its sibling, the file's definition whose name it extends
// (HasEncodedObject next to EncodedObject, ExecuteContext next to
// Execute): the sibling counts as named, so it shows, with the blank line
// before it that every unit takes, where such a definition goes in. An
// identifier shorter than a sibling's least length and two more bytes has
// none.
func (h *unitHits) pointSiblings(q *query, tf []int32, syms []index.Symbol, maxW float64) {
	for k, w := range q.terms {
		if !q.ident[k] || k >= len(tf) || tf[k] > 0 || len(w) < minSiblingLen+2 {
			continue
		}
		for _, sy := range siblings(syms, w) {
			h.point(sy.Start, "sibling", maxW)
		}
	}
}

// scoreUnits scores the units gathered (defTerms.score), in their order,
// and returns those scoring above 0, each with its strongest terms and
// its best line.
func scoreUnits(order []*unitAcc, q *query, termW []float64, syms []index.Symbol) []unit {
	tfs := make([]map[int32]int, len(order))
	for k, a := range order {
		tfs[k] = a.tf
	}
	d := newDefTerms(q, termW, syms, tfs)
	us := make([]unit, 0, len(order))
	for _, a := range order {
		u := a.u
		s := d.score(a.tf, float64(u.r.End-u.r.Start+1), u.mention, a.quoted)
		u.score, u.cover = s.score, s.cover
		u.words = len(s.terms)
		if a.quoted {
			u.words += 2
		}
		// Most matched terms first, for -explain.
		u.why = append(u.why, strongestTerms(q, termW, s.terms)...)
		u.best = bestLine(a.line)
		if u.score > 0 {
			us = append(us, u)
		}
	}
	return us
}

// bestLine returns the line of most weight, the first of equals.
func bestLine(weight map[int]float64) int {
	lines := make([]int, 0, len(weight))
	for ln := range weight {
		lines = append(lines, ln)
	}
	sort.Ints(lines)
	best := 0
	for _, ln := range lines {
		if best == 0 || weight[ln] > weight[best] {
			best = ln
		}
	}
	return best
}

// sortUnits orders units by score, best first, ties by their first line.
//
// By score alone. Measured and not kept: a unit's score raised by its
// nearness to the best unit (×1 + 0.5·50/(50 + lines apart)) won 5
// kit tasks and lost 11 on seven sets; raised by a reference to one
// of the best file's three best definitions (names defined in at
// most two files, each found in at most three units), in other
// files, 2 and 6 on 16 sets, and in the best file itself 1 and 1.
// Changed lines lie near the best unit, or in code that calls the
// best file's, more often than other unshown code does (1.5 and 2.4
// times), not often enough to displace a unit the task's words hit.
// Lines the file's last commit wrote are edited 5.5 times as often as
// others, yet raising the units that hold them won 24 tasks and lost
// 23 on the 18 sets, at a git process per file (round 32 in
// docs/selection-evaluation.md). Ordered by score per length (score /
// (lines/8)^0.3), 3 won and 9 lost on four sets (round 34).
func sortUnits(us []unit) {
	sort.SliceStable(us, func(a, b int) bool {
		if us[a].score != us[b].score {
			return us[a].score > us[b].score
		}
		return us[a].r.Start < us[b].r.Start
	})
}

// withPreamble returns us with the file's preamble (package clause,
// imports) right after the best unit, when the file has one and the task
// hits a unit: fixes often touch it, and it tells what the code uses.
// Its end is not given that place: the closing lines that end a file
// (`}`, `end`, up to four), where a definition is appended, shown
// after the preamble won 3 kit tasks and lost 4 on the 18 sets (line
// recall +0.6 summed over the 54 cells, one file-level task lost):
// a file's last six lines hold every missed line in 10 of 516 pairs.
func withPreamble(us []unit, lang string, lines []string, imp []bool) []unit {
	pre := preamble(imp)
	if pre == 0 || len(us) == 0 {
		return us
	}
	// A licence header above it says nothing about the code, and
	// costs every excerpted file of a project that writes one (the
	// Apache header of each gson file: 16 lines, about 120 tokens).
	start := 1
	if end := licenceEnd(lines, pre); end > 0 && end < pre {
		start = end + 1
	}
	cuts := importCuts(lang, lines, imp, pre)
	for len(cuts) > 0 && cuts[0] < start {
		cuts = cuts[1:]
	}
	u := unit{r: LineRange{start, pre}, name: "imports", why: []string{"preamble"}, cuts: cuts}
	return append(us[:1], append([]unit{u}, us[1:]...)...)
}

// fillUnits returns fileUnits followed by every other unit of the file,
// nearest to one of those first (the preamble among them: code near a
// file's top, its constants and types, is often what a change edits): the
// rest of a file the task is about, for when its matching units leave
// its room unused. Measured on the kit's 18 sets, against the preamble
// left out of the distances: 2 tasks won, none lost.
func (p *packer) fillUnits(r *ranked, l *loaded) []unit {
	if us, ok := p.filled[r.file]; ok {
		return us
	}
	us := p.fileUnits(r, l)
	f := &p.ix.Files[r.file]
	shape := p.shapeOf(r.file, l)
	covered := make([]bool, len(l.lines)+1)
	cover := func(rg LineRange) {
		for i := rg.Start; i <= min(rg.End, len(l.lines)); i++ {
			covered[i] = true
		}
	}
	// A licence header says nothing about the code (as in fileUnits).
	cover(LineRange{1, licenceEnd(l.lines, 2*maxPreambleLines)})
	for _, u := range us {
		cover(u.r)
	}
	type cand struct {
		u    unit
		dist int
	}
	var rest []cand
	for line := 1; line <= len(l.lines); line++ {
		if covered[line] {
			continue
		}
		u, ok := shape.unitAt(f.Lang, l.lines, line)
		if !ok {
			continue
		}
		if u.r.Start < line && u.header == 0 {
			u.r.Start = line // a paragraph that reaches back over lines already taken
		}
		cover(u.r)
		line = max(line, u.r.End)
		d := math.MaxInt
		for _, h := range us {
			switch {
			case u.r.End < h.r.Start:
				d = min(d, h.r.Start-u.r.End)
			case u.r.Start > h.r.End:
				d = min(d, u.r.Start-h.r.End)
			default:
				d = 0
			}
		}
		u.fill = true
		rest = append(rest, cand{u, d})
	}
	sort.SliceStable(rest, func(a, b int) bool { return rest[a].dist < rest[b].dist })
	out := append([]unit(nil), us...)
	for _, c := range rest {
		out = append(out, c.u)
	}
	p.filled[r.file] = out
	return out
}

func appendOnce(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// Unit is one definition (or block) chosen from a file, for -explain.
type Unit struct {
	Name     string    `json:"name,omitempty"` // the definition's name; "" for a block of code
	Range    LineRange `json:"range"`
	Windowed bool      `json:"windowed,omitempty"` // too large for its room: its header and a window around its best line
	Score    float64   `json:"score"`              // BM25 of the task's terms in it, plus the mention bonus
	Why      []string  `json:"why,omitempty"`      // the strongest terms matched, and "named"/"quote"
	// Fill marks a unit the task does not hit, shown because the best
	// file's room was not used up by those it hits (nearest first).
	Fill bool `json:"fill,omitempty"`
}

func (u *unit) export(windowed bool) Unit {
	return Unit{Name: u.name, Range: u.r, Windowed: windowed, Score: math.Round(u.score*1000) / 1000, Why: u.why, Fill: u.fill}
}

// String renders a unit for text explanations: name:start-end (score).
func (u Unit) String() string {
	name := u.Name
	if name == "" {
		name = "block"
	}
	w := ""
	if u.Windowed {
		w = ", windowed"
	}
	return fmt.Sprintf("%s:%d-%d (%.2f%s: %s)", name, u.Range.Start, u.Range.End, u.Score, w, strings.Join(u.Why, " "))
}

// siblings returns the definitions among syms whose name, lower-cased and
// without underscores, begins or ends the new identifier w (in that
// form), the longest such name only: HasEncodedObject's sibling is
// EncodedObject, not Object.
func siblings(syms []index.Symbol, w string) []index.Symbol {
	var out []index.Symbol
	best := 0
	for _, sy := range syms {
		n := compoundKey(sy.Name)
		if len(n) < max(best, minSiblingLen) || len(n) >= len(w) || float64(len(n)) < minSiblingShare*float64(len(w)) ||
			!(strings.HasPrefix(w, n) || strings.HasSuffix(w, n)) {
			continue
		}
		if len(n) > best {
			best, out = len(n), out[:0]
		}
		out = append(out, sy)
	}
	return out
}
