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

// Unit scoring and shaping constants.
const (
	// unitK1 and unitB are BM25's parameters over the units of one file:
	// a definition that uses a term three times is not three times as
	// relevant, and a long definition collects hits by length alone.
	// Measured on the kit's 18 sets at 8k/16k/32k against these: unitB
	// 0.3 won 2 tasks and lost 12, 0.85 won 9 and lost 10; unitK1 0.8
	// won 3 and lost 7, 2 won 5 and lost 7.
	unitK1 = 1.2
	unitB  = 0.6
	// unitMentionBonus is added, in units of the task's strongest term
	// weight, to a unit the task points at: the definition of a named
	// symbol, a stack frame's line, a quoted string.
	unitMentionBonus = 2.0
	// unitFileIDFExp softens the within-file inverse document frequency
	// that scales a term's weight over the units of one file: a term in
	// every definition of the file (remote in remote.go) tells them apart
	// less than one in a few, but it still says the file is about it.
	// 0 ignores it, 1 applies it in full. Measured on the kit's eight
	// repositories at 8k/16k/32k: 0.5 raised lines all % in 7 of 24 cells
	// and lowered it in one (+0.4 points a cell on average); 1 moved 10
	// cells, 5 each way.
	unitFileIDFExp = 0.5
	// maxQuoteUnits is how many units of a file a quote may hit and still
	// point at them (the mention bonus); beyond, it counts as one strong
	// term.
	maxQuoteUnits = 2
	// maxQuoteLines is the most lines of a file a quote may be found on and
	// still point at them in the ranking's mention lines.
	maxQuoteLines = 3
	// tinyLines is the length up to which a definition is too small to be
	// an excerpt alone (one constant of a list, a one-line alias): its
	// paragraph is the unit instead.
	tinyLines = 2
	// maxParagraph bounds a paragraph unit, in lines each way from its
	// line: a paragraph is a meaningful block, not the rest of the file.
	maxParagraph = 15
	// maxDocLines bounds how far a definition's unit reaches up over its
	// doc comment and decorators.
	maxDocLines = 40
	// maxPreambleLines bounds a file's preamble unit: the imports of a
	// file that needs more are not worth their room.
	maxPreambleLines = 60
	// minWindowLines is the smallest window of a definition too large for
	// its room: fewer lines around its strongest one are a stray fragment.
	minWindowLines = 6
)

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

// fileShape is what units need to know about a file's definitions.
type fileShape struct {
	syms   []index.Symbol
	owner  []int32 // per line (index line-1): innermost non-tiny definition, -1 if none
	parent []int   // per symbol: innermost non-tiny definition strictly enclosing it, -1 if none
	child  []bool  // per symbol: encloses a non-tiny definition
	imp    []bool  // per line: an import, include or package line
	doc    []int   // per symbol: first line of its doc comment and decorators, else its Start
}

// shapeOf returns the shape of a loaded file, built once: fileUnits and
// fillUnits both need it.
func (p *packer) shapeOf(file int, l *loaded) *fileShape {
	if l.shape == nil {
		l.shape = newShape(&p.ix.Files[file], l.lines)
	}
	return l.shape
}

func newShape(f *index.File, lines []string) *fileShape {
	n := len(lines)
	s := &fileShape{syms: f.Symbols, owner: make([]int32, n),
		parent: make([]int, len(f.Symbols)), child: make([]bool, len(f.Symbols)), imp: importLines(f.Lang, lines),
		doc: make([]int, len(f.Symbols))}
	for i := range s.owner {
		s.owner[i] = -1
	}
	size := func(k int) int { return s.syms[k].End - s.syms[k].Start }
	// Larger definitions first, so smaller (inner) ones overwrite them.
	order := make([]int, len(s.syms))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return size(order[a]) > size(order[b]) })
	for _, k := range order {
		sym := &s.syms[k]
		lo, hi := max(1, sym.Start), min(n, sym.End)
		if sym.End-sym.Start+1 <= tinyLines {
			continue // its paragraph is its unit
		}
		for l := lo; l <= hi; l++ {
			s.owner[l-1] = int32(k)
		}
	}
	for k := range s.syms {
		s.parent[k] = -1
		sym := &s.syms[k]
		for j := range s.syms {
			o := &s.syms[j]
			if j == k || o.End-o.Start+1 <= tinyLines || o.Start > sym.Start || o.End < sym.End || (o.Start == sym.Start && o.End == sym.End) {
				continue
			}
			if s.parent[k] < 0 || size(j) < size(s.parent[k]) {
				s.parent[k] = j
			}
		}
		if p := s.parent[k]; p >= 0 && sym.End-sym.Start+1 > tinyLines {
			s.child[p] = true
		}
	}
	// A definition's doc comment and decorators belong to it: a hit in
	// them is a hit in the definition, and a unit shown whole shows them.
	// Comments are a third of what excerpts show (21–37% of their bytes
	// on six sets at 8k) but fewer of the lines commits change (5–26%);
	// still, cutting a doc comment of six lines or more to its first two
	// in excerpts won 4 kit tasks and lost 15 on 16 of the 18 sets
	// (gson lost 5): commits edit the docs of the code they change.
	for k := range s.syms {
		sym := &s.syms[k]
		s.doc[k] = sym.Start
		if sym.End-sym.Start+1 <= tinyLines || sym.Start < 1 || sym.Start > n {
			continue
		}
		for d := 0; d < maxDocLines && s.doc[k] > 1; d++ {
			prev := s.doc[k] - 1
			if int(s.owner[prev-1]) != s.parent[k] {
				break
			}
			// A block comment closed one blank line above the definition
			// documents it too: older JavaScript puts a blank line between
			// a JSDoc block and `exports.etag = function`, and alone the
			// comment is a unit that hits the task's words without the code.
			if s.doc[k] == sym.Start && prev > 1 && f.Lang != "python" && strings.TrimSpace(lines[prev-1]) == "" &&
				int(s.owner[prev-2]) == s.parent[k] && strings.HasSuffix(strings.TrimSpace(lines[prev-2]), "*/") {
				s.doc[k] = prev
				continue
			}
			if !isPreamble(f.Lang, strings.TrimSpace(lines[prev-1])) {
				break
			}
			s.doc[k] = prev
		}
		for l := s.doc[k]; l < sym.Start; l++ {
			s.owner[l-1] = int32(k)
		}
	}
	return s
}

// importLines marks the lines that only bring names in (imports, includes,
// package clauses): they match a task's words and say nothing. A statement
// that opens a bracket (Go's `import (`, Python's `from x import (`, a
// TypeScript `import {`, Rust's `use a::{`) or ends in a backslash goes on
// until it closes, and its continuation lines are import lines too: a
// commit that adds an import edits them, and the preamble ends where the
// statement does, not at its first line.
func importLines(lang string, lines []string) []bool {
	out := make([]bool, len(lines))
	depth, cont, start := 0, false, 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if depth > 0 || cont {
			// A blank line ends a runaway statement (an unclosed bracket)
			// everywhere but in Go's import blocks, which group with them.
			if t == "" && lang != "go" || i-start > maxImportLines {
				depth, cont = 0, false
				continue
			}
			out[i] = true
			depth = max(0, depth+bracketDepth(lang, t))
			cont = strings.HasSuffix(t, "\\")
			continue
		}
		// A declaration that a require began goes on while its entries
		// do (`var a = require('a'),` then `  , b = require('b')`): the
		// whole statement is the import.
		jsCont := i > 0 && out[i-1] && t != "" && jsFamily(lang) &&
			(strings.HasPrefix(t, ",") || strings.HasSuffix(strings.TrimSpace(lines[i-1]), ","))
		if isImportLine(lang, t) || jsCont {
			out[i], start = true, i
			depth = max(0, bracketDepth(lang, t))
			cont = strings.HasSuffix(t, "\\")
		}
	}
	return out
}

// maxImportLines bounds one import statement's continuation: past it, an
// unclosed bracket is a parse the line scanner got wrong, not an import.
const maxImportLines = 400

// isImportLine reports whether t, a trimmed line, starts an import,
// include or package statement.
func isImportLine(lang, t string) bool {
	switch {
	case strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "import{") || strings.HasPrefix(t, "import\t"),
		strings.HasPrefix(t, "package ") && (lang == "go" || lang == "java" || lang == "kotlin" || lang == "scala"),
		strings.HasPrefix(t, "from ") && (strings.Contains(t, " import ") || strings.Contains(t, " import(")),
		strings.HasPrefix(t, "#include"),
		(strings.HasPrefix(t, "use ") || strings.HasPrefix(t, "pub use ") || strings.HasPrefix(t, "pub(crate) use ")) && (lang == "rust" || lang == "php"),
		strings.HasPrefix(t, "using ") && lang == "csharp",
		strings.HasPrefix(t, "require ") || strings.HasPrefix(t, "require_relative "),
		jsFamily(lang) && strings.Contains(t, "require(") && (strings.HasPrefix(t, "const ") || strings.HasPrefix(t, "var ") || strings.HasPrefix(t, "let ")):
		return true
	}
	return false
}

// jsFamily reports whether lang is JavaScript or one of its typed
// dialects, whose files import with require as well as import.
func jsFamily(lang string) bool {
	return lang == "javascript" || lang == "typescript" || lang == "tsx"
}

// bracketDepth returns how many brackets t opens and leaves open (negative
// when it closes more than it opens), outside string literals and before
// a line comment.
func bracketDepth(lang, t string) int {
	d := 0
	var quote byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'', '`':
			quote = c
		case '(', '{', '[':
			d++
		case ')', '}', ']':
			d--
		case '/':
			if i+1 < len(t) && t[i+1] == '/' {
				return d
			}
		case '#':
			if lang == "python" || lang == "ruby" {
				return d
			}
		}
	}
	return d
}

// isPreamble reports whether a line belongs with the definition below it:
// a comment or a decorator.
func isPreamble(lang, t string) bool {
	switch {
	case t == "":
		return false
	case strings.HasPrefix(t, "//"), strings.HasPrefix(t, "/*"), strings.HasPrefix(t, "*"), strings.HasPrefix(t, "@"):
		return lang != "python" || strings.HasPrefix(t, "@")
	case strings.HasPrefix(t, "#"):
		switch lang {
		case "python", "ruby", "bash", "":
			return true
		case "rust":
			return strings.HasPrefix(t, "#[") || strings.HasPrefix(t, "#!")
		}
	case strings.HasPrefix(t, "--"):
		return lang == "lua"
	case strings.HasPrefix(t, "///"), strings.HasPrefix(t, "["):
		return lang == "csharp" && strings.HasSuffix(t, "]")
	}
	return false
}

// unitKey identifies a unit while hits are gathered.
type unitKey struct{ start, end int }

// unitAt returns the unit that holds line, or false when the line is an
// import or a blank line outside every definition.
func (s *fileShape) unitAt(lang string, lines []string, line int) (unit, bool) {
	n := len(lines)
	if line < 1 || line > n || s.imp[line-1] {
		return unit{}, false
	}
	o := int(s.owner[line-1])
	if o >= 0 && !s.child[o] {
		sym := &s.syms[o]
		u := unit{r: LineRange{s.doc[o], min(n, sym.End)}, header: sym.Start, name: sym.Name}
		if p := s.parent[o]; p >= 0 {
			u.scope = s.syms[p].Start
		}
		return u, true
	}
	if strings.TrimSpace(lines[line-1]) == "" {
		return unit{}, false
	}
	// A paragraph: the non-blank lines around line with the same owner.
	// in reports whether line i (1-based) may be part of it.
	in := func(i int) bool {
		return s.owner[i-1] == int32(o) && strings.TrimSpace(lines[i-1]) != "" && !s.imp[i-1]
	}
	lo, hi := line, line
	for lo > 1 && line-lo < maxParagraph && in(lo-1) {
		lo--
	}
	for hi < n && hi-line < maxParagraph && in(hi+1) {
		hi++
	}
	// A comment alone says what the code after it does: a paragraph of
	// comment lines that one blank line parts from the next paragraph of
	// the same owner takes that paragraph too (libuv's version.h: the
	// comment on bumping the version, then the #defines it is about).
	if hi+2 <= n && allComment(lang, lines[lo-1:hi]) && strings.TrimSpace(lines[hi]) == "" && in(hi+2) {
		from := hi + 2
		hi = from
		for hi < n && hi-from < maxParagraph && in(hi+1) {
			hi++
		}
	}
	u := unit{r: LineRange{lo, hi}}
	if o >= 0 && s.syms[o].Start < lo {
		u.scope = s.syms[o].Start
	}
	return u, true
}

// allComment reports whether every line of ls belongs with the code
// below it (isPreamble: a comment or a decorator), in a file of a
// language ctxtrim parses: a file without one is prose or data, where *
// starts a list item and # a heading.
func allComment(lang string, ls []string) bool {
	if lang == "" || len(ls) == 0 {
		return false
	}
	for _, l := range ls {
		if !isPreamble(lang, strings.TrimSpace(l)) {
			return false
		}
	}
	return true
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
			if k == 4 {
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

// licenceEnd is index.LicenceEnd of the first n lines of a file.
func licenceEnd(lines []string, n int) int {
	return index.LicenceEnd([]byte(strings.Join(lines[:min(len(lines), n)], "\n")))
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

// importCuts returns the lines before pre after which a preamble may end
// without cutting a statement: each ends an import statement that starts
// unindented (the next line is not its continuation). A prefix cut
// elsewhere would show an import block without its end, or a Python try:
// without its except:, fragments the model cannot read.
func importCuts(lang string, lines []string, imp []bool, pre int) []int {
	cuts := []int{}
	top := false // the statement that line e ends started unindented
	for e := 1; e < pre && e < len(lines); e++ {
		t := lines[e-1]
		if isImportLine(lang, strings.TrimSpace(t)) {
			top = t == strings.TrimLeft(t, " \t")
		}
		if top && imp[e-1] && !(imp[e] && !isImportLine(lang, strings.TrimSpace(lines[e]))) {
			cuts = append(cuts, e)
		}
	}
	return cuts
}

// preamble returns the last line of a file's import section, when it is
// near the top and short (maxPreambleLines); 0 when there is none.
func preamble(imp []bool) int {
	last := 0
	for i := 0; i < len(imp) && i < maxPreambleLines; i++ {
		if imp[i] {
			last = i + 1
		}
	}
	return last
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

// Sibling names: a name of at least minSiblingLen bytes, at least
// minSiblingShare of the new identifier's length.
const (
	minSiblingLen   = 4
	minSiblingShare = 0.4
)

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
