package slicer

import (
	"crypto/sha1"
	"encoding/json"
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
			Blob:   fmt.Sprintf("%x", sha1.Sum([]byte(src))), // equal for equal content, as a git blob hash is
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

// promptFormat reports whether the budget counts format's Text itself;
// paths describes the markdown prompt.
func promptFormat(format string) bool {
	return format != FormatPaths
}

// checkJSONDoc fails t unless sel.Text is a JSON document holding exactly
// sel's files (path, ranges, content) and map, in order.
func checkJSONDoc(t *testing.T, sel *Selection) {
	t.Helper()
	var doc struct {
		Note  string `json:"note"`
		Files []struct {
			Path    string      `json:"path"`
			Ranges  []LineRange `json:"ranges"`
			Content string      `json:"content"`
		} `json:"files"`
		Signatures []struct {
			Path string `json:"path"`
		} `json:"signatures"`
	}
	if err := json.Unmarshal([]byte(sel.Text), &doc); err != nil {
		t.Fatalf("json format: %v in %q", err, sel.Text)
	}
	if doc.Note != sel.Note || len(doc.Files) != len(sel.Files) || len(doc.Signatures) != len(sel.Map) {
		t.Fatalf("json document: %d files, %d map entries, note %q; the selection has %d, %d, %q",
			len(doc.Files), len(doc.Signatures), doc.Note, len(sel.Files), len(sel.Map), sel.Note)
	}
	for k, f := range doc.Files {
		w := sel.Files[k]
		if f.Path != jsonPath(w.Path) || formatRanges(f.Ranges) != formatRanges(w.Ranges) || f.Content != w.Content {
			t.Fatalf("json file %d: %s:%s (%d bytes), want %s:%s (%d bytes)", k, f.Path, formatRanges(f.Ranges), len(f.Content), w.Path, formatRanges(w.Ranges), len(w.Content))
		}
	}
	for k, m := range doc.Signatures {
		if m.Path != jsonPath(sel.Map[k].Path) {
			t.Fatalf("json signature %d: %s, want %s", k, m.Path, sel.Map[k].Path)
		}
	}
}
