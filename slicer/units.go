package slicer

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// This file cuts a file into units, the blocks an excerpt is made of, and
// ranks them as definitions for the task (see "Definitions" in the package
// comment). Units depend on the file and the task only, never on the
// budget, so that a larger budget shows a superset of a smaller one.

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
}

// fileUnits returns the units of a file that the task hits, best first:
// each scored by BM25 of the task's terms within it (against the file's
// other units), plus unitMentionBonus when the task points into it.
func (p *packer) fileUnits(r *ranked, l *loaded) []unit {
	if us, ok := p.units[r.file]; ok {
		return us
	}
	f := &p.ix.Files[r.file]
	shape := p.shapeOf(r.file, l)
	type acc struct {
		u      unit
		tf     map[int32]int
		line   map[int]float64
		quoted bool // holds a quote found all over the file: one strong term
	}
	byKey := map[unitKey]*acc{}
	var order []*acc
	get := func(line int) *acc {
		u, ok := shape.unitAt(f.Lang, l.lines, line)
		if !ok {
			return nil
		}
		k := unitKey{u.r.Start, u.r.End}
		a := byKey[k]
		if a == nil {
			a = &acc{u: u, tf: map[int32]int{}, line: map[int]float64{}}
			byKey[k] = a
			order = append(order, a)
		}
		return a
	}
	maxW := 0.0
	for _, w := range p.termW {
		maxW = max(maxW, w)
	}
	if maxW == 0 {
		maxW = 1
	}
	// A quote found in a few units points at them; one found all over the
	// file (`pattern`, `Stdout`: a name in backticks) is a strong term.
	type quoteHit struct {
		a     *acc
		line  int
		quote int32
	}
	var quoteHits []quoteHit
	quoteUnits := map[int32]map[*acc]bool{}
	for _, h := range p.stats[r.file].hits {
		a := get(int(h.Line))
		if a == nil {
			continue
		}
		if h.Term >= 0 {
			a.tf[h.Term]++
			a.line[int(h.Line)] += p.termW[h.Term]
			continue
		}
		quoteHits = append(quoteHits, quoteHit{a, int(h.Line), h.Term})
		if quoteUnits[h.Term] == nil {
			quoteUnits[h.Term] = map[*acc]bool{}
		}
		quoteUnits[h.Term][a] = true
	}
	// A word of the title that no file holds names something new; in a
	// sorted table, it goes where it sorts. Its place weighs by how often
	// the task says it, so that of several new words the name the task
	// is about sets the window ("add Qt types … and ui declaration").
	if len(p.newWords) > 0 {
		for _, t := range sortedTables(l.lines, shape.imp) {
			for _, k := range p.newWords {
				before, after := t.insertionLines(p.q.terms[k])
				for _, line := range []int{before, after} {
					if line < 1 || line > len(l.lines) {
						continue
					}
					if a := get(line); a != nil {
						a.tf[int32(k)]++
						a.line[line] += p.termW[k] * p.q.tfWeight(k)
						a.u.why = appendOnce(a.u.why, "sorted")
					}
				}
			}
		}
	}
	for _, h := range quoteHits {
		a := h.a
		if len(quoteUnits[h.quote]) <= maxQuoteUnits {
			a.u.mention = true
			a.line[h.line] += unitMentionBonus * maxW
			why := "quote"
			if p.q.lits[-1-h.quote].of != "" {
				why = "sibling" // a new flag goes in next to this one
			}
			a.u.why = appendOnce(a.u.why, why)
		} else {
			a.line[h.line] += maxW
			a.quoted = true
			a.u.why = appendOnce(a.u.why, "quoted")
		}
	}
	// point makes line's unit one the task points at, saying why.
	point := func(line int, why string) {
		if a := get(line); a != nil {
			a.u.mention = true
			a.line[line] += unitMentionBonus * maxW
			a.u.why = appendOnce(a.u.why, why)
		}
	}
	for _, line := range r.lines {
		point(line, "named")
	}
	// The lines the work tree changed against HEAD point at their units
	// as a named line does: a change in progress is where the task is.
	// A bonus five times as large, so that edited units come first, showed
	// the change in progress in 3 more of the 742 mid-edit tasks at 8k and
	// 2 more at 16k (scripts/eval-midedit.py), 1 fewer elsewhere: not kept.
	for _, line := range p.editedLines(r.file, l) {
		point(line, "edited")
	}
	// An identifier of the title that this file lacks is often added next
	// to its sibling, the file's definition whose name it extends
	// (HasEncodedObject next to EncodedObject, ExecuteContext next to
	// Execute): the sibling counts as named, so it shows, with the blank
	// line before it that every unit takes, where such a definition goes
	// in. An identifier
	// shorter than a sibling's least length and two more bytes has none.
	tf := p.stats[r.file].tf // nil for a file whose contents were not scanned
	for k, w := range p.q.terms {
		if !p.q.ident[k] || k >= len(tf) || tf[k] > 0 || len(w) < minSiblingLen+2 {
			continue
		}
		for _, sy := range siblings(f.Symbols, w) {
			point(sy.Start, "sibling")
		}
	}
	// The average unit length is that of the file's definitions, so a unit
	// is long or short against its own file's style.
	avg, defs := 0.0, 0
	for _, sym := range f.Symbols {
		if d := sym.End - sym.Start + 1; d > tinyLines {
			avg += float64(d)
			defs++
		}
	}
	if defs == 0 {
		avg, defs = 2*maxParagraph, 1
	}
	avg /= float64(defs)
	total := 0.0
	for _, w := range p.termW {
		total += w
	}
	tfs := make([]map[int32]int, len(order))
	for k, a := range order {
		tfs[k] = a.tf
	}
	unitW := p.unitWeights(tfs, defs)
	us := make([]unit, 0, len(order))
	for _, a := range order {
		u := a.u
		length := float64(u.r.End - u.r.Start + 1)
		norm := unitK1 * (1 - unitB + unitB*length/avg)
		terms := make([]int32, 0, len(a.tf))
		for t := range a.tf {
			terms = append(terms, t)
		}
		sort.Slice(terms, func(i, j int) bool { return terms[i] < terms[j] })
		matched := 0.0
		for _, t := range terms {
			tf := float64(a.tf[t])
			// A term the task repeats weighs more, as in ranking files.
			u.score += p.q.tfWeight(int(t)) * unitW[t] * tf * (unitK1 + 1) / (tf + norm)
			matched += p.termW[t]
		}
		if total > 0 {
			u.cover = matched / total
		}
		if u.mention {
			u.score += unitMentionBonus * maxW
		}
		if a.quoted {
			u.score += maxW
		}
		// Most matched terms first, for -explain.
		sort.SliceStable(terms, func(i, j int) bool { return p.termW[terms[i]] > p.termW[terms[j]] })
		for k, t := range terms {
			if k == maxUnitWhyTerms {
				break
			}
			u.why = append(u.why, p.q.terms[t])
		}
		lines := make([]int, 0, len(a.line))
		for ln := range a.line {
			lines = append(lines, ln)
		}
		sort.Ints(lines)
		for _, ln := range lines {
			if u.best == 0 || a.line[ln] > a.line[u.best] {
				u.best = ln
			}
		}
		if u.score > 0 {
			us = append(us, u)
		}
	}
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
	sort.SliceStable(us, func(a, b int) bool {
		if us[a].score != us[b].score {
			return us[a].score > us[b].score
		}
		return us[a].r.Start < us[b].r.Start
	})
	// The file's preamble (package clause, imports) goes right after the
	// best unit: fixes often touch it, and it tells what the code uses.
	// Its end is not given that place: the closing lines that end a file
	// (`}`, `end`, up to four), where a definition is appended, shown
	// after the preamble won 3 kit tasks and lost 4 on the 18 sets (line
	// recall +0.6 summed over the 54 cells, one file-level task lost):
	// a file's last six lines hold every missed line in 10 of 516 pairs.
	if pre := preamble(shape.imp); pre > 0 && len(us) > 0 {
		// A licence header above it says nothing about the code, and
		// costs every excerpted file of a project that writes one (the
		// Apache header of each gson file: 16 lines, about 120 tokens).
		start := 1
		if end := licenceEnd(l.lines, pre); end > 0 && end < pre {
			start = end + 1
		}
		cuts := importCuts(f.Lang, l.lines, shape.imp, pre)
		for len(cuts) > 0 && cuts[0] < start {
			cuts = cuts[1:]
		}
		u := unit{r: LineRange{start, pre}, name: "imports", why: []string{"preamble"}, cuts: cuts}
		us = append(us[:1], append([]unit{u}, us[1:]...)...)
	}
	p.units[r.file] = us
	return us
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

// unitWeights returns each term's weight for ranking the units of one
// file: its weight in the collection times its inverse document frequency
// among the file's units, relative to a term in one unit, to the power
// unitFileIDFExp. The units counted are those hit, or the file's
// definitions when it has more.
func (p *packer) unitWeights(tfs []map[int32]int, defs int) []float64 {
	df := make([]int, len(p.termW))
	for _, tf := range tfs {
		for t := range tf {
			df[t]++
		}
	}
	n := float64(max(len(tfs), defs))
	w := append([]float64(nil), p.termW...)
	if one := bm25IDF(1, n); one > 0 {
		for t := range w {
			if df[t] > 0 {
				w[t] *= math.Pow(bm25IDF(float64(df[t]), n)/one, unitFileIDFExp)
			}
		}
	}
	return w
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
