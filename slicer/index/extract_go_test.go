package index

import (
	"context"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzGoFastPath holds goDefinitions (go/parser) to the tree-sitter
// queries' output on every input that both parse without error. The seed
// corpus is the Go fixture and this repository's own Go files.
func FuzzGoFastPath(f *testing.F) {
	seeds, _ := filepath.Glob("*.go")
	more, _ := filepath.Glob("../*.go") // the selection half
	root, _ := filepath.Glob("../../*.go")
	more = append(more, root...)
	seeds = append(append(seeds, more...), "testdata/extract/go.go")
	for _, p := range seeds {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("package p\n\nfunc (r *T[K, V]) M() {}\n\ntype A = struct{ X, Y int }\n"))
	f.Add([]byte("package p\n\n//line other.go:100\nfunc F() {}\n\ntype T int\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		fastSyms, fastRefs, ok := goDefinitions(src, map[string]struct{}{})
		if !ok {
			return
		}
		x := newExtractor(compiled)
		defer x.close()
		slowSyms, slowRefs, hasErr, err := x.treeSitter(context.Background(), "go", src)
		if err != nil || hasErr {
			return // the grammars disagree on what is valid Go; nothing to compare
		}
		if diff := cmp.Diff(slowSyms, fastSyms); diff != "" {
			t.Errorf("symbols (-tree-sitter +go/parser)\n%s", diff)
		}
		// tree-sitter's Go grammar sometimes takes a keyword or predeclared
		// constant for an identifier (map, chan, nil in a few contexts; 14
		// of moby's 3,079 Go files); go/parser is right there.
		var want []string
		for _, r := range slowRefs {
			switch {
			case token.Lookup(r).IsKeyword(), r == "nil", r == "true", r == "false", r == "iota":
			default:
				want = append(want, r)
			}
		}
		if diff := cmp.Diff(want, fastRefs); diff != "" {
			t.Errorf("refs (-tree-sitter +go/parser)\n%s", diff)
		}
	})
}
