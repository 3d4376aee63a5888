package index

import (
	"bytes"
	"unicode/utf8"

	"github.com/ctxtrim/ctxtrim/slicer/internal/ascii"
)

// goBodies is the faster path in front of goDefinitions: most of a Go
// file's bytes are function bodies, and most bodies define nothing (no
// type, struct field, interface method), yet go/parser builds a full AST
// for each and ast.Inspect walks it: two thirds of a cold index of moby
// with vendor/ included went there.
//
// So a light tokenizer (goBodies.tokenize) first finds the bodies of the
// top-level functions. A body is "plain" when its tokens show it defines
// nothing and every label in it can be told from a composite-literal key:
// no "type" declaration, no non-empty struct or interface type, and no
// "{ L:" whose L is also a branch target. A plain body contributes
// its identifiers straight from the tokens (minus labels and nil, true,
// false, iota, as goDefinitions does) and is blanked, byte for byte, to
// spaces with its newlines kept, so every offset and line is unchanged;
// goDefinitions then parses the much smaller remainder.
//
// FuzzGoBodies holds the result equal to goDefinitions on the original
// source for every input that go/parser accepts and gc would not reject
// for an unused label (a "{ L:" label that nothing branches to reads like a
// composite-literal key and is counted as a reference). On a file the
// tokenizer cannot follow (a lexical error) or whose identifiers reach
// maxRefs, it returns goDefinitions' own result. A syntax error inside a
// plain body goes unnoticed: the file's definitions still come from
// go/parser and its references from the tokens, where goDefinitions would
// have sent the file to tree-sitter.
type goBodies struct {
	toks  []gtok
	buf   []byte
	label []int
	marks []uint8 // per token, for declarations
	nl    []int   // newline offsets, for declarations
}

// gtok is one token: its kind and its byte range.
type gtok struct {
	kind       gkind
	start, end uint32
}

type gkind uint8

const (
	gOther gkind = iota
	gIdent
	gLit     // number, string, rune: ends a line like an identifier
	gSemi    // ";" written or inserted at a newline
	gColon   // ":"
	gDefine  // ":="
	gComma   // ","
	gLbrace  // "{"
	gRbrace  // "}"
	gLparen  // "("
	gRparen  // ")"
	gLbrack  // "["
	gRbrack  // "]"
	gIncDec  // "++", "--": end a line
	gFunc    // keywords that matter here
	gStruct  //
	gIface   // interface
	gType    //
	gBranch  // goto, break, continue: may name a label
	gEndKw   // return, fallthrough: end a line
	gKeyword // any other keyword
)

// goKeyword returns the kind of a keyword, or gIdent. A switch, which the
// compiler turns into a search by length and value, is several times faster
// than a map lookup, and most identifiers are not keywords.
func goKeyword(w []byte) gkind {
	switch string(w) {
	case "break", "continue", "goto":
		return gBranch
	case "return", "fallthrough":
		return gEndKw
	case "func":
		return gFunc
	case "struct":
		return gStruct
	case "interface":
		return gIface
	case "type":
		return gType
	case "case", "chan", "const", "default", "defer", "else", "for", "go", "if", "import",
		"map", "package", "range", "select", "switch", "var":
		return gKeyword
	}
	return gIdent
}

// endsLine reports whether a newline after a token of kind k inserts a
// semicolon (the Go spec's rule).
func endsLine(k gkind) bool {
	switch k {
	case gIdent, gLit, gRparen, gRbrack, gRbrace, gIncDec, gBranch, gEndKw:
		return true
	}
	return false
}

// tokenize fills g.toks with src's tokens, semicolons inserted as the Go
// scanner inserts them. It reports false on anything it does not follow:
// an illegal character, an unterminated literal or comment.
//
// Why by hand, when go/scanner lexes Go: measured on moby (10,450 Go files,
// 80 MB, vendor/ included; 2 shared cores, Go 1.26), go/scanner with the
// same output (scanTokens in the tests) is 3.2-3.9x slower than this loop
// (min/median 612/788 ms against 182/243 ms, BenchmarkGoTokenize) and
// allocates 5.9 million strings (142 MB) where this allocates none: Scan
// returns every identifier and literal as a new string. On a cold
// "ctxtrim index --all" of moby that is +27-33% CPU (min/median 2.38/2.50 s
// against 1.81/1.88 s, and 2.60/2.73 s against 2.04/2.10 s in a second,
// busier run; 7 alternating runs each), which is why this stays. It is
// held to go/scanner instead: checkGoBodies (TestGoBodies, FuzzGoBodies,
// TestGoBodiesRepo) compares the two token streams on every input go/parser
// accepts, modulo where an inserted semicolon sits and how operators made of
// several characters are split (neither matters here).
func (g *goBodies) tokenize(src []byte) bool {
	s := goLexer{src: src, toks: g.toks[:0], last: gOther}
	i := 0
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		i = 3 // a byte order mark, skipped by go/scanner at the start only
	}
	for i < len(src) {
		c := src[i]
		ok := true
		switch {
		case c == '\n':
			s.newline(i)
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case ascii.IsIdentStart(c) || c >= utf8.RuneSelf:
			j := asciiWordEnd(src, i)
			if j < len(src) && src[j] >= utf8.RuneSelf {
				j = s.unicodeWord(i, j)
			}
			if j == i {
				return false // a non-ASCII character that is no letter
			}
			s.emit(wordKind(src[i:j]), i, j)
			i = j
		case c >= '0' && c <= '9' || c == '.' && s.digitAt(i+1):
			i = s.number(i)
		case c == '"' || c == '\'':
			i, ok = s.quoted(i)
		case c == '`':
			i, ok = s.raw(i)
		case c == '/' && s.byteAt(i+1, '/'):
			i = s.lineComment(i)
		case c == '/' && s.byteAt(i+1, '*'):
			i, ok = s.blockComment(i)
		default:
			i, ok = s.punct(i)
		}
		if !ok {
			return false
		}
	}
	s.newline(len(src))
	g.toks = s.toks
	return true
}

// definitions is goDefinitions, faster: see goBodies.
func (g *goBodies) definitions(src []byte, seen map[string]struct{}) ([]Symbol, []string, bool) {
	if !g.tokenize(src) {
		return goDefinitions(src, seen)
	}
	if syms, refs, ok := g.declarations(src, seen); ok {
		return syms, refs, true
	}
	return g.blanked(src, seen)
}

// blanked is definitions by blanking plain bodies, once g.toks holds src's
// tokens.
func (g *goBodies) blanked(src []byte, seen map[string]struct{}) ([]Symbol, []string, bool) {
	clear(seen)
	var blanked []byte
	blank := func(open, close int) {
		if blanked == nil {
			blanked = append(g.buf[:0], src...)
		}
		for j := g.toks[open].end; j < g.toks[close].start; j++ {
			if blanked[j] != '\n' {
				blanked[j] = ' '
			}
		}
	}
	toks := g.toks
	depth := 0
	inValues := false // in a top-level var or const declaration
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if depth == 0 && (i == 0 || toks[i-1].kind == gSemi) {
			w := string(src[t.start:t.end])
			inValues = t.kind == gKeyword && (w == "var" || w == "const")
		}
		switch t.kind {
		case gLbrace:
			// In a var or const declaration, a brace that opens no struct
			// or interface type opens a composite literal or a function
			// literal's body. It is blanked when its first line holds
			// nothing else, since a value's signature is its first line.
			if inValues && i > 0 && toks[i-1].kind != gStruct && toks[i-1].kind != gIface &&
				lineEnds(src[t.end:]) {
				if close := matching(toks, i); close > 0 && g.plainBody(src, toks[i+1:close], seen) {
					blank(i, close)
					i = close
					continue
				}
			}
			depth++
			continue
		case gLparen, gLbrack:
			depth++
			continue
		case gRbrace, gRparen, gRbrack:
			depth--
			continue
		case gFunc:
		default:
			continue
		}
		if depth != 0 || i > 0 && toks[i-1].kind != gSemi {
			continue // a function literal, not a declaration
		}
		open, close := funcBody(toks, i)
		if open < 0 {
			continue
		}
		if g.plainBody(src, toks[open+1:close], seen) {
			blank(open, close)
		}
		i = close
	}
	if blanked == nil {
		return goDefinitions(src, seen)
	}
	g.buf = blanked
	syms, refs, ok := goDefinitionsSeeded(blanked, seen)
	if !ok || len(seen) >= maxRefs {
		// A syntax error outside the bodies (the original fails too), or
		// a file so rich in names that which ones are kept depends on the
		// order they are met in.
		return goDefinitions(src, seen)
	}
	// The symbols' strings point into blanked, which the next file
	// overwrites: signatures are already copies, names come from the AST.
	return syms, refs, true
}

// funcBody returns the token indexes of the braces around the body of the
// function declared at toks[at] ("func"), or -1 when it has none or the
// brackets do not balance.
func funcBody(toks []gtok, at int) (open, close int) {
	depth := 0
	for i := at + 1; i < len(toks); i++ {
		switch k := toks[i].kind; k {
		case gLparen, gLbrack:
			depth++
		case gRparen, gRbrack:
			depth--
		case gSemi:
			if depth == 0 {
				return -1, -1 // no body (implemented elsewhere)
			}
		case gLbrace:
			if depth == 0 && toks[i-1].kind != gStruct && toks[i-1].kind != gIface {
				d := 0
				for j := i; j < len(toks); j++ {
					switch toks[j].kind {
					case gLbrace, gLparen, gLbrack:
						d++
					case gRbrace, gRparen, gRbrack:
						d--
						if d == 0 {
							if toks[j].kind != gRbrace {
								return -1, -1
							}
							return i, j
						}
					}
				}
				return -1, -1
			}
			depth++
		case gRbrace:
			depth--
		}
		if depth < 0 {
			return -1, -1
		}
	}
	return -1, -1
}

// lineEnds reports whether b starts with white space up to a newline.
func lineEnds(b []byte) bool {
	for _, c := range b {
		switch c {
		case '\n':
			return true
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return false
}

// matching returns the index of the bracket that closes toks[open], or -1
// when the brackets do not balance.
func matching(toks []gtok, open int) int {
	d := 0
	for j := open; j < len(toks); j++ {
		switch toks[j].kind {
		case gLbrace, gLparen, gLbrack:
			d++
		case gRbrace, gRparen, gRbrack:
			if d--; d == 0 {
				if toks[j].kind != toks[open].kind+1 {
					return -1
				}
				return j
			}
		}
	}
	return -1
}

// plainBody reports whether a function body (its tokens, braces excluded)
// defines nothing and has no ambiguous label; if so, it adds the body's
// identifiers to seen.
func (g *goBodies) plainBody(src []byte, toks []gtok, seen map[string]struct{}) bool {
	var stack []gkind // open brackets; the body's own brace is implied
	inner := func() gkind {
		if len(stack) == 0 {
			return gLbrace
		}
		return stack[len(stack)-1]
	}
	kind := func(i int) gkind {
		if i < 0 {
			return gLbrace // the body's brace
		}
		if i >= len(toks) {
			return gRbrace
		}
		return toks[i].kind
	}
	var branchTargets, ambiguous []string
	label := g.label[:0] // token indexes of labels, in order
	defer func() { g.label = label }()
	for i, t := range toks {
		switch t.kind {
		case gLbrace, gLparen, gLbrack:
			stack = append(stack, t.kind)
		case gRbrace, gRparen, gRbrack:
			if len(stack) == 0 || stack[len(stack)-1] != t.kind-1 {
				return false
			}
			stack = stack[:len(stack)-1]
		case gStruct, gIface:
			if kind(i+1) != gLbrace || kind(i+2) != gRbrace {
				return false // fields or methods: definitions
			}
		case gType:
			if kind(i-1) != gLparen {
				return false // a type declaration, not x.(type)
			}
		case gBranch:
			if kind(i+1) == gIdent {
				label = append(label, i+1)
				branchTargets = append(branchTargets, string(src[toks[i+1].start:toks[i+1].end]))
			}
		case gIdent:
			if kind(i+1) != gColon || inner() != gLbrace {
				break
			}
			switch kind(i - 1) {
			case gSemi, gColon:
				label = append(label, i) // a statement starts here: a labeled statement
			case gLbrace:
				// "{ L:" opens a block or a composite literal.
				ambiguous = append(ambiguous, string(src[t.start:t.end]))
			}
		}
	}
	if shareAny(ambiguous, branchTargets) {
		return false
	}
	next := 0 // in label
	for i, t := range toks {
		for next < len(label) && label[next] < i {
			next++
		}
		if next < len(label) && label[next] == i {
			continue
		}
		addGoRef(seen, src, t)
	}
	return true
}

// addGoRef records token t of src in seen when it is an identifier that can
// name a definition: 2 to 128 bytes, not nil, true, false or iota. The key
// is allocated only for a name not seen yet.
func addGoRef(seen map[string]struct{}, src []byte, t gtok) {
	if t.kind != gIdent || t.end-t.start < 2 || t.end-t.start > 128 {
		return
	}
	w := src[t.start:t.end]
	switch string(w) {
	case "nil", "true", "false", "iota":
		return
	}
	if _, ok := seen[string(w)]; !ok {
		seen[string(w)] = struct{}{}
	}
}
