package slicer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// table builds n entries, one per line, from the keys, each written by
// entry.
func table(keys []string, entry func(string) string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, entry(k))
	}
	return out
}

var letters = []string{"ada", "bash", "c", "dart", "elm", "fish", "go", "hs", "java", "kotlin", "lua", "make"}

func TestSortedTables(t *testing.T) {
	rust := append([]string{"pub const T: &[(&[&str], &[&str])] = &["},
		table(letters[:6], func(k string) string { return fmt.Sprintf(`    (&["%s"], &["*.%s"]),`, k, k) })...)
	// A multi-line entry: its continuation and its closer belong to it.
	rust = append(rust, `    (&["go"], &[`, `        "*.go", "go.mod",`, `    ]),`)
	rust = append(rust, table(letters[7:], func(k string) string { return fmt.Sprintf(`    (&["%s"], &["*.%s"]),`, k, k) })...)
	rust = append(rust, "];")
	slip := table(letters, func(k string) string { return fmt.Sprintf("\t%q: 1,", k) })
	slip[3], slip[4] = slip[4], slip[3] // one pair out of order, as hand-kept tables have
	for _, tc := range []struct {
		name  string
		lines []string
		imp   []int // import lines (1-based)
		key   string
		want  [2]int // before, after; {0, 0} for no table
	}{
		{"rust multi-line entry, insert after it", rust, nil, "gz", [2]int{10, 11}},
		{"rust, insert into the middle", rust, nil, "dot", [2]int{5, 6}},
		{"rust, before the first entry", rust, nil, "aaa", [2]int{1, 2}},
		{"rust, after the last entry", rust, nil, "zig", [2]int{15, 16}},
		{"key already there", rust, nil, "elm", [2]int{0, 0}},
		{"python dict", table(letters, func(k string) string { return fmt.Sprintf("    '%s': '%s',", k, k) }), nil, "kit", [2]int{9, 10}},
		{"js array of strings", table(letters, func(k string) string { return fmt.Sprintf("  `%s`,", k) }), nil, "cobol", [2]int{3, 4}},
		{"one slip is tolerated", slip, nil, "hx", [2]int{8, 9}},
		{"unsorted is no table", table([]string{"go", "c", "rust", "ada", "zig", "elm", "hs", "bash", "java"}, func(k string) string { return fmt.Sprintf("\t%q,", k) }), nil, "dart", [2]int{0, 0}},
		{"too few keys", table(letters[:minTableKeys-1], func(k string) string { return fmt.Sprintf("\t%q,", k) }), nil, "bb", [2]int{0, 0}},
		{"imports are not a table", table(letters, func(k string) string { return fmt.Sprintf("\t%q", k) }), []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, "cc", [2]int{0, 0}},
		{"another indentation ends the table", append(table(letters[:6], func(k string) string { return fmt.Sprintf("\t%q,", k) }), table(letters[6:], func(k string) string { return fmt.Sprintf("%q,", k) })...), nil, "iota", [2]int{0, 0}},
	} {
		imp := make([]bool, len(tc.lines))
		for _, l := range tc.imp {
			imp[l-1] = true
		}
		var got [2]int
		ts := sortedTables(tc.lines, imp)
		if len(ts) > 1 {
			t.Errorf("%s: %d tables, want at most 1", tc.name, len(ts))
		}
		if len(ts) > 0 {
			got[0], got[1] = ts[0].insertionLines(tc.key)
		}
		if got != tc.want {
			t.Errorf("%s: insertion of %q at %v, want %v\n%s", tc.name, tc.key, got, tc.want, strings.Join(tc.lines, "\n"))
		}
	}
}

// FuzzSortedTables checks that any text parses without a panic and that
// tables and insertion points stay inside the file.
func FuzzSortedTables(f *testing.F) {
	f.Add("\t\"a\",\n\t\"b\",\n\t\"c\",\n\t\"d\",\n\t\"e\",\n\t\"f\",\n\t\"g\",\n\t\"h\",\n", "cc")
	f.Add("(&[\"x\"], &[\n    \"y\",\n]),\n'", "")
	f.Fuzz(func(t *testing.T, src, key string) {
		lines := strings.Split(src, "\n")
		imp := make([]bool, len(lines))
		prev := 0
		for _, tb := range sortedTables(lines, imp) {
			if len(tb.keys) < minTableKeys || len(tb.keys) != len(tb.lines) {
				t.Fatalf("table of %d keys, %d lines", len(tb.keys), len(tb.lines))
			}
			if tb.lines[0] <= prev || tb.end < tb.lines[len(tb.lines)-1] || tb.end > len(lines) {
				t.Fatalf("table lines %v end %d in %d lines (previous table ended at %d)", tb.lines, tb.end, len(lines), prev)
			}
			prev = tb.end
			b, a := tb.insertionLines(key)
			if (b != 0 || a != 0) && (a != b+1 || b < tb.lines[0]-1 || a > tb.end+1) {
				t.Fatalf("insertion of %q at %d,%d in table %d-%d", key, b, a, tb.lines[0], tb.end)
			}
		}
	})
}

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
	for _, line := range strings.Split(strings.TrimSuffix(sel.Text, "\n"), "\n") {
		p, ranges, _ := strings.Cut(line, "\t")
		if p != "storage/memory/storage.go" {
			continue
		}
		if !strings.Contains(","+ranges, fmt.Sprintf(",%d-", doc-1)) {
			t.Errorf("storage.go shown as %s, want a range from line %d (the blank before EncodedObject's doc)", ranges, doc-1)
		}
		return
	}
	t.Errorf("storage.go not shown:\n%s", sel.Text)
}
