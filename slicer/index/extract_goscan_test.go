package index

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goBodiesCases are inputs where the body-blanking fast path must decide
// carefully; every one must give goDefinitions' exact output.
var goBodiesCases = []struct {
	name string
	src  string
}{
	{"plain bodies", "package p\n\nfunc F(a int) int {\n\tx := a + 1\n\treturn g(x, nil)\n}\n\nfunc (r *T) M() { r.f() }\n"},
	{"local type", "package p\n\nfunc F() {\n\ttype local struct{ A int }\n\t_ = local{}\n}\n"},
	{"anonymous struct", "package p\n\nfunc F() {\n\tcases := []struct{ name string }{{name: \"a\"}}\n\t_ = cases\n}\n"},
	{"empty struct and interface", "package p\n\nfunc F() {\n\tch := make(chan struct{})\n\tvar x interface{} = ch\n\t_ = x\n}\n"},
	{"interface in assertion", "package p\n\nfunc F(x any) {\n\tif s, ok := x.(interface{ String() string }); ok {\n\t\t_ = s\n\t}\n}\n"},
	{"type switch", "package p\n\nfunc F(x any) {\n\tswitch v := x.(type) {\n\tcase int:\n\t\t_ = v\n\t}\n}\n"},
	{"labels", "package p\n\nfunc F() {\nouter:\n\tfor {\n\t\tfor {\n\t\t\tbreak outer\n\t\t}\n\t}\n\tgoto done\ndone:\n}\n"},
	{"label after brace", "package p\n\nfunc F() {\nloop:\n\tfor {\n\t\tcontinue loop\n\t}\n}\n"},
	{"label named like a key", "package p\n\nfunc F() {\n\tx := T{loop: 1}\n\t_ = x\nloop:\n\tfor {\n\t\tbreak loop\n\t}\n}\n"},
	{"composite keys", "package p\n\nfunc F() *Config {\n\treturn &Config{\n\t\tName: name,\n\t\tSize: 3,\n\t}\n}\n"},
	{"case clause label", "package p\n\nfunc F(x int) {\n\tswitch x {\n\tcase 1: L: for { break L }\n\t}\n}\n"},
	{"three-index slice", "package p\n\nfunc F(a []int, i, j, k int) []int { return a[i:j:k] }\n"},
	{"interface result", "package p\n\nfunc F() interface{} {\n\treturn nil\n}\n\nfunc G() struct{ A int } { return struct{ A int }{} }\n"},
	{"generic", "package p\n\nfunc F[T interface{ ~int }](x T) T {\n\treturn x\n}\n\nfunc (r *R[K, V]) M() {}\n"},
	{"func literal var", "package p\n\nvar f = func() {\n\ttype t int\n}\n\nfunc G() {\n\tg := func() { h() }\n\tg()\n}\n"},
	{"no body", "package p\n\nfunc F(x int) int\n\nfunc G() { F(1) }\n"},
	{"line directive", "package p\n\nfunc F() {\n//line other.go:100\n\tx()\n}\n\nfunc G() {}\n"},
	{"line directive outside", "package p\n\n//line other.go:100\nfunc F() {\n\tx()\n}\n\n/*line b.go:7:3*/ type T int\n"},
	{"strings and comments", "package p\n\nfunc F() {\n\ts := \"}{ struct { A int }\" + `\n}\ntype X int\n` + '}'\n\t/* func G() { type Y int } */\n\t_ = s // }\n}\n\nfunc H() {}\n"},
	{"unicode", "package p\n\nfunc Φ() {\n\tπ2 := 3\n\t_ = π2 + ünïcode\n}\n"},
	{"bom", "\xef\xbb\xbfpackage p\n\nfunc F() { g() }\n"},
	{"numbers", "package p\n\nfunc F() {\n\t_ = 0x1p-2 + 1e+5 + .5 + 1_000 + 0b1 + 2i\n}\n"},
	{"hex digit e before a sign", "package p\n\nvar y = 0xe-size\n\nfunc F() int { return 0xE+limit + 0x1P-2 + 0e-1 }\n"},
	{"predeclared", "package p\n\nfunc F() {\n\tx := iota\n\t_ = true && false || x == nil\n}\n"},
	{"var table", "package p\n\nvar table = []entry{\n\t{name: \"a\", fn: f},\n\t{name: \"b\", fn: g},\n}\n\nconst c = 1\n"},
	{"var comment on first line", "package p\n\nvar x = T{ // a note\n\tA: 1,\n}\n"},
	{"var group", "package p\n\nvar (\n\ta = map[string]int{\n\t\t\"k\": 1,\n\t}\n\tb = func() int {\n\t\treturn len(a)\n\t}\n)\n"},
	{"var struct type", "package p\n\nvar x struct {\n\tA int\n}\n\nvar y = struct {\n\tB int\n}{\n\tB: 1,\n}\n"},
	{"var with local type in func literal", "package p\n\nvar f = func() {\n\ttype t int\n}\n"},
	{"slice and array types", "package p\n\ntype A []int\n\ntype B [4]byte\n\ntype C [N]T\n\ntype D[T any] []T\n\ntype E [N * 2]int\n"},
	{"receivers", "package p\n\nfunc (T) A() {}\nfunc (*T) B() {}\nfunc (t T[K]) C() {}\nfunc (t *T[K, V]) D() {}\nfunc (t pkg.T) E() {}\nfunc () F() {}\n"},
	{"fields", "package p\n\ntype S struct {\n\tA, B int `json:\"a\"`\n\tio.Reader\n\t*T\n\tG[int]\n\tbuf [4]byte\n\tx [N]T \"tag\"\n\tf func(struct{ In int }) interface{ M() }\n\t_ int\n}\n"},
	{"interface elements", "package p\n\ntype I interface {\n\tio.Reader\n\t~int | string\n\tM(x int) (y error)\n\tN()\n}\n"},
	{"value specs", "package p\n\nconst (\n\tA = iota\n\tB\n\tC, D = 1, 2\n)\n\nvar x, y int\n\nvar _ = f\n"},
	{"syntax error outside", "package p\n\nfunc F() { g() }\n\nfunc (\n"},
}

// TestGoBodies holds the fast path to goDefinitions on the cases above.
func TestGoBodies(t *testing.T) {
	for _, tc := range goBodiesCases {
		t.Run(tc.name, func(t *testing.T) {
			checkGoBodies(t, []byte(tc.src))
		})
	}
}

// TestGoDeclarationsTaken checks which cases the token reader handles
// itself (TestGoBodies would pass if it never did) and which it leaves to
// the slower paths.
func TestGoDeclarationsTaken(t *testing.T) {
	declined := map[string]bool{
		"label named like a key": true, // a key named like a branch target after "{"
		"slice and array types":  true, // type D[T any]
		"syntax error outside":   true, // unbalanced brackets
	}
	for _, tc := range goBodiesCases {
		t.Run(tc.name, func(t *testing.T) {
			var g goBodies
			ok := false
			if g.tokenize([]byte(tc.src)) {
				_, _, ok = g.declarations([]byte(tc.src), map[string]struct{}{})
			}
			if ok == declined[tc.name] {
				t.Errorf("declarations ok = %v, want %v", ok, !declined[tc.name])
			}
		})
	}
}

// TestGoBodiesBlanks checks that plain bodies are in fact blanked, so that
// the fast path is taken at all (TestGoBodies would pass if it never were).
func TestGoBodiesBlanks(t *testing.T) {
	tests := []struct {
		name, src string
		blanked   bool
	}{
		{"plain", "package p\n\nfunc F() { g() }\n", true},
		{"local type", "package p\n\nfunc F() { type t int }\n", false},
		{"fields", "package p\n\nfunc F() { _ = struct{ A int }{} }\n", false},
		{"used label after brace", "package p\n\nfunc F() {\nL:\n\tfor { break L }\n}\n", false},
		{"var composite", "package p\n\nvar x = []int{\n\t1,\n}\n", true},
		{"var composite one line", "package p\n\nvar x = []int{1}\n", false},
		{"label after statement", "package p\n\nfunc F() {\n\tg()\nL:\n\tfor { break L }\n}\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var g goBodies
			if !g.tokenize([]byte(tc.src)) {
				t.Fatal("tokenize failed")
			}
			if _, _, ok := g.blanked([]byte(tc.src), map[string]struct{}{}); !ok {
				t.Fatal("not ok")
			}
			got := len(g.buf) > 0 && string(g.buf) != tc.src
			if got != tc.blanked {
				t.Errorf("blanked = %v, want %v", got, tc.blanked)
			}
		})
	}
}

func checkGoBodies(t *testing.T, src []byte) {
	t.Helper()
	var g goBodies
	// On any input: no panic, and lines inside the file.
	syms, _, _ := g.definitions(src, map[string]struct{}{})
	lines := bytes.Count(src, []byte("\n")) + 1
	for _, s := range syms {
		if s.Start < 1 || s.End < s.Start || s.End > lines {
			t.Errorf("symbol %q lines %d-%d outside 1-%d", s.Name, s.Start, s.End, lines)
		}
	}
	wantSyms, wantRefs, wantOK := goDefinitions(src, map[string]struct{}{})
	if !wantOK {
		return
	}
	if g.tokenize(src) {
		want, _ := scanTokens(nil, src)
		if diff := cmp.Diff(normTokens(want), normTokens(g.toks), cmp.AllowUnexported(gtok{})); diff != "" {
			t.Errorf("tokens (-go/scanner +tokenize)\n%s", diff)
		}
	} else {
		t.Errorf("tokenize failed where go/parser succeeds")
	}
	if hasUnusedLabel(src) {
		return
	}
	paths := []struct {
		name string
		run  func() ([]Symbol, []string, bool)
	}{
		{"definitions", func() ([]Symbol, []string, bool) { return g.definitions(src, map[string]struct{}{}) }},
		{"blanked", func() ([]Symbol, []string, bool) {
			if !g.tokenize(src) {
				return goDefinitions(src, map[string]struct{}{})
			}
			return g.blanked(src, map[string]struct{}{})
		}},
	}
	for _, p := range paths {
		gotSyms, gotRefs, gotOK := p.run()
		if !gotOK {
			t.Fatalf("%s failed where go/parser succeeds", p.name)
		}
		if diff := cmp.Diff(wantSyms, gotSyms); diff != "" {
			t.Errorf("%s: symbols (-go/parser +fast)\n%s", p.name, diff)
		}
		if diff := cmp.Diff(wantRefs, gotRefs); diff != "" {
			t.Errorf("%s: refs (-go/parser +fast)\n%s", p.name, diff)
		}
	}
}

// hasUnusedLabel reports a label no branch names, which gc rejects ("label
// L defined and not used"): the fast path may read "{ L:" as a key then.
func hasUnusedLabel(src []byte) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return false
	}
	defined, used := map[string]bool{}, map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.LabeledStmt:
			defined[n.Label.Name] = true
		case *ast.BranchStmt:
			if n.Label != nil {
				used[n.Label.Name] = true
			}
		}
		return true
	})
	for l := range defined {
		if !used[l] {
			return true
		}
	}
	return false
}

// FuzzGoBodies holds goBodies.definitions to goDefinitions on every input
// go/parser accepts (see goBodies for the one exception, unused labels).
// The seed corpus is this repository's Go files and the cases above.
func FuzzGoBodies(f *testing.F) {
	seeds, _ := filepath.Glob("*.go")
	more, _ := filepath.Glob("../*.go") // the selection half
	root, _ := filepath.Glob("../../*.go")
	more = append(more, root...)
	for _, p := range append(append(seeds, more...), "testdata/extract/go.go") {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, tc := range goBodiesCases {
		f.Add([]byte(tc.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkGoBodies(t, src)
	})
}

// TestGoBodiesRepo runs the comparison over every Go file of a benchmark
// clone (scripts/bench-index.sh makes them); skipped without one.
func TestGoBodiesRepo(t *testing.T) {
	dir := os.Getenv("CTXTRIM_GOBODIES_REPO")
	if dir == "" {
		t.Skip("set CTXTRIM_GOBODIES_REPO to a directory of Go files (e.g. /tmp/bench-moby)")
	}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".go" {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		t.Run(p, func(t *testing.T) { checkGoBodies(t, src) })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files", n)
}

// scanKinds maps go/token's tokens to the kinds above.
var scanKinds = func() (k [token.TILDE + 1]gkind) {
	for t := token.IDENT; t <= token.STRING; t++ {
		k[t] = gLit
	}
	k[token.IDENT] = gIdent
	k[token.SEMICOLON] = gSemi
	k[token.COLON] = gColon
	k[token.DEFINE] = gDefine
	k[token.COMMA] = gComma
	k[token.LBRACE], k[token.RBRACE] = gLbrace, gRbrace
	k[token.LPAREN], k[token.RPAREN] = gLparen, gRparen
	k[token.LBRACK], k[token.RBRACK] = gLbrack, gRbrack
	k[token.INC], k[token.DEC] = gIncDec, gIncDec
	for t := token.BREAK; t <= token.VAR; t++ {
		k[t] = gKeyword
	}
	k[token.FUNC], k[token.STRUCT], k[token.INTERFACE], k[token.TYPE] = gFunc, gStruct, gIface, gType
	k[token.BREAK], k[token.CONTINUE], k[token.GOTO] = gBranch, gBranch, gBranch
	k[token.RETURN], k[token.FALLTHROUGH] = gEndKw, gEndKw
	return k
}()

// scanTokens is goBodies.tokenize by go/scanner, the oracle the hand
// tokenizer is held to (see the comment at its top for why it is not used
// instead), appended to dst[:0]; ok is false when the scanner reports an
// error.
func scanTokens(dst []gtok, src []byte) (toks []gtok, ok bool) {
	toks = dst[:0]
	file := token.NewFileSet().AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	base := file.Base()
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		start := int(pos) - base
		end := start
		k := gOther
		if int(tok) < len(scanKinds) {
			k = scanKinds[tok]
		}
		switch {
		case tok == token.SEMICOLON:
			if lit == ";" {
				end++
			}
		case tok == token.STRING && src[start] == '`':
			end += 2 + bytes.IndexByte(src[start+1:], '`') // lit drops carriage returns
		case lit != "":
			end += len(lit)
		default:
			end += len(tok.String())
		}
		toks = append(toks, gtok{kind: k, start: uint32(start), end: uint32(end)})
	}
	return toks, s.ErrorCount == 0
}

// normTokens makes two token streams comparable: a semicolon's position
// is dropped (go/scanner puts one inserted before a line comment at the
// comment, tokenize at the newline), and adjacent gOther tokens are merged
// (tokenize reads "&&" or "..." as single characters).
func normTokens(toks []gtok) []gtok {
	var out []gtok
	for _, t := range toks {
		switch n := len(out); {
		case t.kind == gSemi:
			t.start, t.end = 0, 0
		case t.kind == gOther && n > 0 && out[n-1].kind == gOther && out[n-1].end == t.start:
			out[n-1].end = t.end
			continue
		}
		out = append(out, t)
	}
	return out
}

// BenchmarkGoTokenize compares goBodies.tokenize with go/scanner on every
// Go file of $CTXTRIM_GOBODIES_REPO (see the comment at tokenize's top).
func BenchmarkGoTokenize(b *testing.B) {
	dir := os.Getenv("CTXTRIM_GOBODIES_REPO")
	if dir == "" {
		b.Skip("set CTXTRIM_GOBODIES_REPO to a directory of Go files (e.g. /tmp/bench-moby)")
	}
	var files [][]byte
	size := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".go" {
			return err
		}
		src, err := os.ReadFile(p)
		files = append(files, src)
		size += len(src)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("hand", func(b *testing.B) {
		var g goBodies
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, src := range files {
				g.tokenize(src)
			}
		}
	})
	b.Run("go-scanner", func(b *testing.B) {
		var toks []gtok
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, src := range files {
				toks, _ = scanTokens(toks, src)
			}
		}
	})
}
