package slicer

import (
	"fmt"
	"strings"
	"testing"
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
