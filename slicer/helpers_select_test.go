package slicer

import (
	"fmt"
	"sort"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
)

// memIndex builds an Index over in-memory files, with definitions from
// Definitions and classes from classifyPath, and a reader for them.
func memIndex(t testing.TB, files map[string]string) (*Index, func(string) ([]byte, error)) {
	t.Helper()
	ix := &Index{Root: "/mem/repo"}
	for p, src := range files {
		syms, refs, err := Definitions(p, []byte(src))
		if err != nil {
			t.Fatalf("Definitions(%s): %v", p, err)
		}
		ix.Files = append(ix.Files, File{
			Path: p, Size: int64(len(src)), Lang: detectLang(p, []byte(src)), Class: classifyPath(p),
			Tokens: len(src) / 4, Symbols: syms, Refs: refs,
		})
	}
	sort.Slice(ix.Files, func(i, j int) bool { return ix.Files[i].Path < ix.Files[j].Path })
	read := func(p string) ([]byte, error) {
		s, ok := files[p]
		if !ok {
			return nil, fmt.Errorf("read %s: no such file", p)
		}
		return []byte(s), nil
	}
	return ix, read
}

// testCounter returns the exact o200k_base counter.
func testCounter(t testing.TB) budget.Counter {
	t.Helper()
	c, err := budget.NewEncodingCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	return c
}
