package slicer

import (
	"sort"
	"strings"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

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

// newShape returns the shape of a file with contents lines, in three
// steps that each read what the one before wrote: the lines' owners, the
// definitions' parents, and the doc comments that join their definitions
// (and their owners).
func newShape(f *index.File, lines []string) *fileShape {
	n := len(lines)
	s := &fileShape{syms: f.Symbols, owner: make([]int32, n),
		parent: make([]int, len(f.Symbols)), child: make([]bool, len(f.Symbols)), imp: importLines(f.Lang, lines),
		doc: make([]int, len(f.Symbols))}
	s.markOwners()
	s.linkParents()
	s.attachDocs(f.Lang, lines)
	return s
}

// span is symbol k's length in lines, less one.
func (s *fileShape) span(k int) int { return s.syms[k].End - s.syms[k].Start }

// markOwners sets each line's owner, its innermost definition longer than
// tinyLines (a tiny one's paragraph is its unit), or -1.
func (s *fileShape) markOwners() {
	n := len(s.owner)
	for i := range s.owner {
		s.owner[i] = -1
	}
	// Larger definitions first, so smaller (inner) ones overwrite them.
	order := make([]int, len(s.syms))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return s.span(order[a]) > s.span(order[b]) })
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
}

// linkParents sets each definition's parent, the smallest definition
// longer than tinyLines that strictly encloses it (the first of equals),
// and marks the parents of definitions longer than tinyLines.
func (s *fileShape) linkParents() {
	for k := range s.syms {
		s.parent[k] = -1
		sym := &s.syms[k]
		for j := range s.syms {
			o := &s.syms[j]
			if j == k || o.End-o.Start+1 <= tinyLines || o.Start > sym.Start || o.End < sym.End || (o.Start == sym.Start && o.End == sym.End) {
				continue
			}
			if s.parent[k] < 0 || s.span(j) < s.span(s.parent[k]) {
				s.parent[k] = j
			}
		}
		if p := s.parent[k]; p >= 0 && sym.End-sym.Start+1 > tinyLines {
			s.child[p] = true
		}
	}
}

// attachDocs gives each definition its doc comment and decorators: a hit
// in them is a hit in the definition, and a unit shown whole shows them.
// Comments are a third of what excerpts show (21–37% of their bytes
// on six sets at 8k) but fewer of the lines commits change (5–26%);
// still, cutting a doc comment of six lines or more to its first two
// in excerpts won 4 kit tasks and lost 15 on 16 of the 18 sets
// (gson lost 5): commits edit the docs of the code they change.
// Definitions go in order, each reading the owners the ones before it
// set.
func (s *fileShape) attachDocs(lang string, lines []string) {
	for k := range s.syms {
		sym := &s.syms[k]
		s.doc[k] = sym.Start
		if sym.End-sym.Start+1 <= tinyLines || sym.Start < 1 || sym.Start > len(lines) {
			continue
		}
		s.doc[k] = s.docStart(k, lang, lines)
		for l := s.doc[k]; l < sym.Start; l++ {
			s.owner[l-1] = int32(k)
		}
	}
}

// docStart returns the first line of definition k's doc comment and
// decorators, at most maxDocLines above it, or its Start when it has
// none: the comment and decorator lines above it that its parent owns.
func (s *fileShape) docStart(k int, lang string, lines []string) int {
	start := s.syms[k].Start
	doc := start
	for d := 0; d < maxDocLines && doc > 1; d++ {
		prev := doc - 1
		if int(s.owner[prev-1]) != s.parent[k] {
			break
		}
		// A block comment closed one blank line above the definition
		// documents it too: older JavaScript puts a blank line between
		// a JSDoc block and `exports.etag = function`, and alone the
		// comment is a unit that hits the task's words without the code.
		if doc == start && prev > 1 && lang != "python" && strings.TrimSpace(lines[prev-1]) == "" &&
			int(s.owner[prev-2]) == s.parent[k] && strings.HasSuffix(strings.TrimSpace(lines[prev-2]), "*/") {
			doc = prev
			continue
		}
		if !isPreamble(lang, strings.TrimSpace(lines[prev-1])) {
			break
		}
		doc = prev
	}
	return doc
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

// licenceEnd is index.LicenceEnd of the first n lines of a file.
func licenceEnd(lines []string, n int) int {
	return index.LicenceEnd([]byte(strings.Join(lines[:min(len(lines), n)], "\n")))
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
