package slicer

import (
	"fmt"
	"sort"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// memIndex builds an Index over in-memory files, with definitions from
// index.Definitions and classes from index.ClassifyPath, and a reader for
// them.
func memIndex(t testing.TB, files map[string]string) (*index.Index, func(string) ([]byte, error)) {
	t.Helper()
	ix := &index.Index{Root: "/mem/repo"}
	for p, src := range files {
		syms, refs, err := index.Definitions(p, []byte(src))
		if err != nil {
			t.Fatalf("Definitions(%s): %v", p, err)
		}
		ix.Files = append(ix.Files, index.File{
			Path: p, Size: int64(len(src)), Lang: index.DetectLang(p, []byte(src)), Class: index.ClassifyPath(p),
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
