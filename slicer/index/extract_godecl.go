package index

import (
	"bytes"
	"sort"
)

// Go definitions straight from the tokens: the fastest path, in front of
// body blanking (goBodies.definitions) and go/parser (goDefinitions).
//
// Go's declarations are regular enough to read from tokenize's stream
// (semicolons included) without a syntax tree: top-level func, var and
// const declarations; type declarations wherever a statement may start;
// and the fields and methods of every non-empty struct and interface type,
// wherever one is written. A definition spans from its name (or its func
// keyword) to the last token before the semicolon, comma-free closer or
// body that ends it, which is exactly where go/ast puts its End. The
// references are then every identifier token that is not a definition's
// name, a label, or nil, true, false, iota.
//
// On anything it does not know how to read exactly (a generic type
// declaration "type T[", a receiver it cannot name, a "{ L:" whose L is
// also a branch target, unbalanced brackets, maxRefs reached) it reports
// false and the slower paths take over. FuzzGoBodies holds the result equal
// to goDefinitions' on every input go/parser accepts (except an unused label
// right after a brace, which gc rejects; see goBodies). On input go/parser
// rejects it still returns what it read, where goDefinitions would hand the
// file to tree-sitter.

// token marks.
const (
	markDef   = 1 // a definition's name
	markLabel = 2 // a label or a branch target
	markBody  = 3 // the opening brace of a function declaration's body
)

// declReader is one file's state.
type declReader struct {
	src   []byte
	toks  []gtok
	marks []uint8
	nl    []int // offsets of the newlines
	spans []span
	bad   bool
}

func (d *declReader) kind(i int) gkind {
	if i < 0 || i >= len(d.toks) {
		return gSemi
	}
	return d.toks[i].kind
}

func (d *declReader) is(i int, b byte) bool {
	return i >= 0 && i < len(d.toks) && d.toks[i].end == d.toks[i].start+1 && d.src[d.toks[i].start] == b
}

func (d *declReader) word(i int) string {
	return string(d.src[d.toks[i].start:d.toks[i].end])
}

// line is the 1-based line of a byte offset.
func (d *declReader) line(off int) int { return 1 + sort.SearchInts(d.nl, off) }

// add records a definition named by token name spanning src[start:end], as
// goDefinitions' add does.
func (d *declReader) add(pattern uint16, kind string, name, start, end, body int, scope string) {
	line := d.line(start)
	endLine := d.line(end)
	if end > 0 && d.src[end-1] == '\n' && endLine > line {
		endLine--
	}
	sp := span{start: uint32(start), end: uint32(end), nameStart: d.toks[name].start, pattern: pattern}
	sp.sym = Symbol{Name: d.word(name), Kind: kind, Start: line, End: max(line, endLine), Signature: signatureOf(d.src, start, end, body)}
	if scope != "" {
		sp.sym.Scope, sp.explicit = scope, true
	}
	d.marks[name] = markDef
	d.spans = append(d.spans, sp)
}

// closeOf is matching, marking the reader bad on unbalanced brackets.
func (d *declReader) closeOf(open int) int {
	c := matching(d.toks, open)
	if c < 0 {
		d.bad = true
		return len(d.toks) - 1
	}
	return c
}

// items splits toks[from:to] at the semicolons (or commas, when sep is
// gComma) outside brackets, calling f with each non-empty part's bounds.
func (d *declReader) items(from, to int, sep gkind, f func(a, b int)) {
	depth, a := 0, from
	for i := from; i < to && !d.bad; i++ {
		switch k := d.toks[i].kind; k {
		case gLbrace, gLparen, gLbrack:
			depth++
		case gRbrace, gRparen, gRbrack:
			depth--
		case sep:
			if depth == 0 {
				if i > a {
					f(a, i)
				}
				a = i + 1
			}
		}
	}
	if a < to && !d.bad {
		f(a, to)
	}
}

// specEnd returns the index after the last token of the spec starting at
// from: the first semicolon outside brackets, or the closer of an enclosing
// bracket.
func (d *declReader) specEnd(from int) int {
	depth := 0
	for i := from; i < len(d.toks); i++ {
		switch d.toks[i].kind {
		case gLbrace, gLparen, gLbrack:
			depth++
		case gRbrace, gRparen, gRbrack:
			if depth--; depth < 0 {
				return i
			}
		case gSemi:
			if depth == 0 {
				return i
			}
		}
	}
	return len(d.toks)
}

// declarations reads src's definitions and references from g.toks (which
// tokenize filled from src).
func (g *goBodies) declarations(src []byte, seen map[string]struct{}) ([]Symbol, []string, bool) {
	d := &declReader{src: src, toks: g.toks, marks: g.marks[:0], nl: g.nl[:0]}
	d.newlines()
	for range d.toks {
		d.marks = append(d.marks, 0)
	}
	defer func() { g.marks, g.nl = d.marks, d.nl }()
	d.topLevel()
	if !d.nested() {
		return nil, nil, false
	}
	clear(seen)
	for i, t := range d.toks {
		if d.marks[i] == 0 {
			addGoRef(seen, src, t)
		}
	}
	if len(seen) >= maxRefs {
		return nil, nil, false // which names are kept depends on their order
	}
	return nest(d.spans), sortedKeys(seen), true
}

// newlines fills d.nl with the offsets of src's newlines.
func (d *declReader) newlines() {
	src := d.src
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		d.nl = append(d.nl, i+j)
		i += j + 1
	}
}

// topLevel reads the top-level func, var and const declarations.
func (d *declReader) topLevel() {
	toks := d.toks
	depth := 0
	for i := 0; i < len(toks) && !d.bad; i++ {
		switch toks[i].kind {
		case gLbrace, gLparen, gLbrack:
			depth++
			continue
		case gRbrace, gRparen, gRbrack:
			depth--
			continue
		}
		if depth != 0 || i > 0 && toks[i-1].kind != gSemi {
			continue
		}
		switch k := toks[i].kind; {
		case k == gFunc:
			i = d.funcDecl(i)
		case k == gKeyword && (d.word(i) == "var" || d.word(i) == "const"):
			i = d.valueDecl(i)
		}
	}
}

// nested reads types, fields, methods and labels, wherever they are. It
// reports false on what it cannot read exactly: unbalanced brackets, a type
// declaration where no statement starts, a "{ L:" whose L is also a branch
// target.
func (d *declReader) nested() bool {
	toks := d.toks
	var stack []gkind
	var targets, ambiguous []string
	for i := 0; i < len(toks) && !d.bad; i++ {
		switch t := toks[i]; t.kind {
		case gLbrace, gLparen, gLbrack:
			stack = append(stack, t.kind)
		case gRbrace, gRparen, gRbrack:
			if len(stack) == 0 || stack[len(stack)-1] != t.kind-1 {
				return false
			}
			stack = stack[:len(stack)-1]
		case gType:
			switch d.kind(i - 1) {
			case gLparen: // x.(type)
			case gSemi, gLbrace, gColon:
				d.typeDecl(i)
			default:
				return false
			}
		case gStruct:
			if d.kind(i+1) == gLbrace {
				d.structFields(i+1, d.closeOf(i+1))
			}
		case gIface:
			if d.kind(i+1) == gLbrace {
				d.ifaceMethods(i+1, d.closeOf(i+1))
			}
		case gBranch:
			if d.kind(i+1) == gIdent {
				d.marks[i+1] = markLabel
				targets = append(targets, d.word(i+1))
			}
		case gIdent:
			if d.kind(i+1) == gColon && len(stack) > 0 && stack[len(stack)-1] == gLbrace {
				ambiguous = d.label(i, ambiguous)
			}
		}
	}
	if d.bad || len(stack) != 0 {
		return false
	}
	return !shareAny(ambiguous, targets)
}

// label reads "L:" at toks[i] in a block or composite literal: after a
// statement's end or another label it is a label, and so it is as a
// body's first statement; after any other "{" it may be a block's label or
// a composite literal's key, and is added to ambiguous.
func (d *declReader) label(i int, ambiguous []string) []string {
	switch d.kind(i - 1) {
	case gSemi, gColon:
		d.marks[i] = markLabel
	case gLbrace:
		if d.marks[i-1] == markBody {
			d.marks[i] = markLabel // a body's first statement
		} else {
			ambiguous = append(ambiguous, d.word(i)) // a block, or a composite literal's key
		}
	}
	return ambiguous
}

// shareAny reports whether a and b have a string in common.
func shareAny(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// funcDecl reads the function declared at toks[at] ("func") and returns the
// index of its last token.
func (d *declReader) funcDecl(at int) int {
	j := at + 1
	method, scope := false, ""
	if d.kind(j) == gLparen {
		c := d.closeOf(j)
		method, scope = true, d.receiver(j+1, c)
		j = c + 1
	}
	if d.kind(j) != gIdent {
		d.bad = true
		return j
	}
	name := j
	j++
	if d.kind(j) == gLbrack {
		j = d.closeOf(j) + 1 // type parameters
	}
	if d.kind(j) != gLparen {
		d.bad = true
		return j
	}
	last := d.closeOf(j)
	depth := 0
	for j = last + 1; j < len(d.toks); j++ {
		k := d.toks[j].kind
		if depth == 0 && (k == gSemi || k == gLbrace && d.kind(j-1) != gStruct && d.kind(j-1) != gIface) {
			break
		}
		switch k {
		case gLbrace, gLparen, gLbrack:
			depth++
		case gRbrace, gRparen, gRbrack:
			if depth--; depth < 0 {
				d.bad = true
				return j
			}
		}
		last = j // results
	}
	end, body := int(d.toks[last].end), -1
	if d.kind(j) == gLbrace {
		c := d.closeOf(j)
		body, end, last = int(d.toks[j].start), int(d.toks[c].end), c
		d.marks[j] = markBody
	}
	switch {
	case !method:
		d.add(0, "function", name, int(d.toks[at].start), end, body, "")
	case scope != "":
		d.add(1, "method", name, int(d.toks[at].start), end, body, scope)
	}
	return last
}

// receiver names the receiver type in toks[from:to] in the forms
// goDefinitions' receiverType accepts (T, *T, T[P], *T[P], each with or
// without a name); "" for others it knows (a qualified or empty type) and
// marks the reader bad on anything else.
func (d *declReader) receiver(from, to int) string {
	i := from
	if i == to {
		return "" // no receiver: go/ast has no field
	}
	if d.kind(i) == gIdent && (d.kind(i+1) == gIdent || d.is(i+1, '*')) && i+1 < to {
		i++ // the receiver's name
	}
	if d.is(i, '*') {
		i++
	}
	if d.kind(i) != gIdent || i >= to {
		d.bad = true
		return ""
	}
	typ := i
	i++
	if i < to && d.is(i, '.') {
		if d.kind(i+1) == gIdent && i+2 == to {
			return "" // pkg.T: not a method goDefinitions lists
		}
		d.bad = true
		return ""
	}
	if i < to && d.kind(i) == gLbrack {
		i = d.closeOf(i) + 1
	}
	if i != to {
		d.bad = true
		return ""
	}
	return d.word(typ)
}

// valueDecl reads a top-level var or const declaration at toks[at] and
// returns the index of its last token.
func (d *declReader) valueDecl(at int) int {
	pattern, kind := uint16(6), "const"
	if d.word(at) == "var" {
		pattern, kind = 7, "var"
	}
	spec := func(a, b int) {
		if d.kind(a) != gIdent {
			d.bad = true
			return
		}
		start, end := int(d.toks[a].start), int(d.toks[b-1].end)
		for n := a; n < b && d.kind(n) == gIdent; n += 2 {
			d.add(pattern, kind, n, start, end, -1, "")
			if d.kind(n+1) != gComma {
				break
			}
		}
	}
	if d.kind(at+1) == gLparen {
		if kind == "var" {
			pattern = 8 // var ( … )
		}
		c := d.closeOf(at + 1)
		d.items(at+2, c, gSemi, spec)
		return c
	}
	e := d.specEnd(at + 1)
	if e > at+1 {
		spec(at+1, e)
	}
	return e - 1
}

// typeDecl reads the type declaration at toks[at] ("type").
func (d *declReader) typeDecl(at int) {
	spec := func(a, b int) {
		if d.kind(a) != gIdent || b-a < 2 {
			d.bad = true
			return
		}
		pattern, kind := uint16(4), "type"
		switch d.kind(a + 1) {
		case gLbrack:
			// A slice or array type ("[]T", "[4]T", "[N]T"); anything else
			// may be type parameters, which go/parser tells apart.
			if d.kind(a+2) != gRbrack && (d.kind(a+3) != gRbrack || d.kind(a+2) != gLit && d.kind(a+2) != gIdent) {
				d.bad = true
				return
			}
		case gOther:
			if d.is(a+1, '=') {
				pattern = 5
			}
		case gIface:
			pattern, kind = 2, "interface"
		case gStruct:
			pattern, kind = 3, "struct"
		}
		d.add(pattern, kind, a, int(d.toks[a].start), int(d.toks[b-1].end), -1, "")
	}
	if d.kind(at+1) == gLparen {
		d.items(at+2, d.closeOf(at+1), gSemi, spec)
		return
	}
	spec(at+1, d.specEnd(at+1))
}

// structFields reads the fields of the struct type whose braces are
// toks[open] and toks[close].
func (d *declReader) structFields(open, close int) {
	d.items(open+1, close, gSemi, func(a, b int) {
		if d.is(a, '*') {
			return // embedded *T
		}
		if d.kind(a) != gIdent {
			d.bad = true
			return
		}
		next := a + 1
		switch k := d.kind(next); {
		case next == b, k == gLit, d.is(next, '.'):
			return // embedded T, T `tag`, pkg.T
		case k == gLbrack:
			c := d.closeOf(next)
			if c+1 == b || c+2 == b && d.kind(c+1) == gLit {
				return // embedded T[P]
			}
		}
		start, end := int(d.toks[a].start), int(d.toks[b-1].end)
		for n := a; n < b && d.kind(n) == gIdent; n += 2 {
			d.add(10, "field", n, start, end, -1, "")
			if d.kind(n+1) != gComma {
				break
			}
		}
	})
}

// ifaceMethods reads the methods of the interface type whose braces are
// toks[open] and toks[close].
func (d *declReader) ifaceMethods(open, close int) {
	d.items(open+1, close, gSemi, func(a, b int) {
		if d.kind(a) == gIdent && d.kind(a+1) == gLparen && a+1 < b {
			d.add(9, "method", a, int(d.toks[a].start), int(d.toks[b-1].end), -1, "")
		}
	})
}
