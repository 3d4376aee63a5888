package slicer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// TestSiblings pins which definitions are a new identifier's siblings.
func TestSiblings(t *testing.T) {
	syms := []index.Symbol{
		{Name: "EncodedObject", Start: 10}, {Name: "Object", Start: 20}, {Name: "SetEncodedObject", Start: 30},
		{Name: "encoded_object", Start: 40}, {Name: "Execute", Start: 50}, {Name: "Has", Start: 60},
		{Name: "Completion", Start: 70},
	}
	for _, tc := range []struct {
		w    string
		want []int // Start of each sibling
	}{
		{"hasencodedobject", []int{10, 40}},     // the longest name that ends it, in either spelling
		{"encodedobjectiter", []int{10, 40}},    // or begins it
		{"executecontext", []int{50}},           //
		{"encodedobject", []int{20}},            // not the name itself: the longest shorter one
		{"hasobjectxyzzyplughfrob", nil},        // "Object" is in it, but neither begins nor ends it
		{"completionwithdescriptions", nil},     // "Completion" is under 40% of it
		{"hasx", nil},                           // "Has" is too short to be a sibling
		{"setencodedobjects", []int{30}},        // a prefix, the longest
		{"setencodedobjectwithhash", []int{30}}, // the longest wins over EncodedObject
	} {
		var got []int
		for _, sy := range siblings(syms, tc.w) {
			got = append(got, sy.Start)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("siblings(%q) = %v, want %v", tc.w, got, tc.want)
		}
	}
}

// TestSiblingShown: a task adding HasEncodedObject to a file that lacks it
// shows the file's EncodedObject with the blank line before it, the two
// lines the new method goes in between.
func TestSiblingShown(t *testing.T) {
	var b strings.Builder
	b.WriteString("package memory\n\n// Storage keeps objects in memory.\ntype Storage struct{ m map[string][]byte }\n")
	for i := range 40 {
		fmt.Fprintf(&b, "\n// Filler%d computes an unrelated number.\nfunc (s *Storage) Filler%d(x int) int {\n\ty := x * %d\n\treturn y + len(s.m)\n}\n", i, i, i)
	}
	b.WriteString("\n// EncodedObject returns the object stored under hash.\nfunc (s *Storage) EncodedObject(hash string) ([]byte, error) {\n\treturn s.m[hash], nil\n}\n")
	for i := 40; i < 60; i++ {
		fmt.Fprintf(&b, "\n// Filler%d computes an unrelated number.\nfunc (s *Storage) Filler%d(x int) int {\n\ty := x * %d\n\treturn y + len(s.m)\n}\n", i, i, i)
	}
	src := b.String()
	lines := strings.Split(src, "\n")
	doc := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "// EncodedObject") {
			doc = i + 1
		}
	}
	ix, read := memIndex(t, map[string]string{"storage/memory/storage.go": src, "storer/object.go": "package storer\n\n// EncodedObjectStorer stores objects.\ntype EncodedObjectStorer interface {\n\tEncodedObject(hash string) ([]byte, error)\n\t// HasEncodedObject says whether hash is stored.\n\tHasEncodedObject(hash string) error\n}\n"})
	sel, err := Select(context.Background(), ix, "storage: add `HasEncodedObject` method to memory Storage", testCounter(t), &SelectOptions{Budget: 900, Format: FormatPaths, ReadFile: read})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sel.Files {
		if f.Path != "storage/memory/storage.go" {
			continue
		}
		if !slices.ContainsFunc(f.Ranges, func(r LineRange) bool { return r.Start == doc-1 }) {
			t.Errorf("storage.go shown as %s, want a range from line %d (the blank before EncodedObject's doc)", formatRanges(f.Ranges), doc-1)
		}
		return
	}
	t.Errorf("storage.go not shown:\n%s", sel.Text)
}

// TestSiblingUnscannedFile: a vendored file is not scanned for terms, yet
// a task can name it; looking for its siblings must not need its counts.
func TestSiblingUnscannedFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("package y\n\n// Store keeps things.\ntype Store struct{ m map[string]int }\n")
	for i := range 60 {
		fmt.Fprintf(&b, "\n// Thing%d returns thing %d.\nfunc (s *Store) Thing%d() int { return s.m[\"%d\"] }\n", i, i, i, i)
	}
	b.WriteString("\n// Thing returns the thing.\nfunc (s *Store) Thing() int { return 0 }\n")
	ix, read := memIndex(t, map[string]string{"vendor/example.com/y/y.go": b.String(), "main.go": "package main\n\nfunc main() {}\n"})
	// Before the guard, this panicked (an index into the file's nil term
	// counts).
	if _, err := Select(context.Background(), ix, "vendor/example.com/y/y.go: add `HasThing` to Store", testCounter(t), &SelectOptions{Budget: 600, Format: FormatPaths, ReadFile: read}); err != nil {
		t.Fatal(err)
	}
}
