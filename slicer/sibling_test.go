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

// TestSiblingFlags pins the candidates for a new flag's sibling: its
// names cut at a dash, long enough, longest first, each searched once.
func TestSiblingFlags(t *testing.T) {
	for _, tc := range []struct {
		lits  []string // flags the task writes; quotes start with a quote mark
		title []string
		want  []string // text/of of each sibling
	}{
		{[]string{"no-ignore-dot"}, []string{"no-ignore-dot"}, []string{"ignore-dot/no-ignore-dot", "no-ignore/no-ignore-dot"}},
		{[]string{"stop-on-nonmatch"}, []string{"stop-on-nonmatch"}, []string{"on-nonmatch/stop-on-nonmatch", "nonmatch/stop-on-nonmatch", "stop-on/stop-on-nonmatch"}},
		{[]string{"passthru"}, []string{"passthru"}, nil},                                                         // one word: no dash to cut at
		{[]string{"no-ignore-dot"}, nil, nil},                                                                     // only the title's flags
		{[]string{"no-ignore-dot", "no-ignore"}, []string{"no-ignore-dot"}, []string{"ignore-dot/no-ignore-dot"}}, // a flag the task writes is searched as itself
		{[]string{`"no-ignore-dot`}, []string{"no-ignore-dot"}, nil},                                              // a quote is not a flag
		{[]string{"a-b-c"}, []string{"a-b-c"}, nil},                                                               // every cut is too short
	} {
		var lits []literal
		for _, l := range tc.lits {
			if q, ok := strings.CutPrefix(l, `"`); ok {
				lits = append(lits, literal{text: []byte(q)})
			} else {
				lits = append(lits, literal{text: []byte(l), flag: true})
			}
		}
		var got []string
		for _, s := range siblingFlags(lits, tc.title) {
			if !s.flag {
				t.Errorf("siblingFlags(%v): %q is not searched as a flag", tc.lits, s.text)
			}
			got = append(got, string(s.text)+"/"+s.of)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("siblingFlags(%v, %v) = %v, want %v", tc.lits, tc.title, got, tc.want)
		}
	}
}

// TestKeepSiblings: a sibling flag stands in for its new flag only when
// the flag itself is found nowhere, and then only the longest found.
func TestKeepSiblings(t *testing.T) {
	lits := []literal{
		{text: []byte("no-ignore-dot"), flag: true},
		{text: []byte("ignore-dot"), flag: true, of: "no-ignore-dot"},
		{text: []byte("no-ignore"), flag: true, of: "no-ignore-dot"},
		{text: []byte("max-count"), flag: true},
		{text: []byte("count"), flag: true, of: "max-count"},
	}
	// file holds literals k on line k+1, and a term hit on line 100.
	file := func(ks ...int) fileStats {
		st := fileStats{hits: []hit{{Line: 100, Term: 0}}}
		for _, k := range ks {
			st.quotes = append(st.quotes, k)
			st.hits = append(st.hits, hit{Line: int32(k + 1), Term: int32(-1 - k)})
		}
		return st
	}
	for _, tc := range []struct {
		name  string
		files [][]int
		want  [][]int // the literals left in each file
	}{
		{"the new flag is found: no sibling counts", [][]int{{0}, {2}}, [][]int{{0}, nil}},
		{"only the shorter sibling is found", [][]int{{2}, {2, 3}}, [][]int{{2}, {2, 3}}},
		{"both are found: the longer stands in", [][]int{{1, 2}, {2}}, [][]int{{1}, nil}},
		{"max-count is found, so count is not its sibling", [][]int{{3, 4}, {4}}, [][]int{{3}, nil}},
	} {
		q := &query{lits: lits}
		var stats []fileStats
		for _, ks := range tc.files {
			stats = append(stats, file(ks...))
		}
		keepSiblings(q, stats)
		for i, st := range stats {
			var lines []int
			for _, h := range st.hits {
				if h.Term < 0 {
					lines = append(lines, int(h.Line)-1)
				}
			}
			if fmt.Sprint(st.quotes) != fmt.Sprint(tc.want[i]) || fmt.Sprint(lines) != fmt.Sprint(tc.want[i]) {
				t.Errorf("%s: file %d keeps literals %v with hits of %v, want %v", tc.name, i, st.quotes, lines, tc.want[i])
			}
			if len(st.hits) == 0 || st.hits[0].Term != 0 {
				t.Errorf("%s: file %d lost its term hit", tc.name, i)
			}
		}
	}
}

// TestSiblingFlagExplained: -explain names the sibling flag that stands
// in for the new one, for the file and for the definition it points at.
func TestSiblingFlagExplained(t *testing.T) {
	var b strings.Builder
	b.WriteString("package args\n\ntype Args struct{ m map[string]bool }\n")
	for i := range 30 {
		fmt.Fprintf(&b, "\n// Filler%d computes an unrelated number.\nfunc Filler%d(x int) int { return x * %d }\n", i, i, i)
	}
	for _, f := range [][2]string{{"color", "Color"}, {"hidden", "Hidden"}, {"no-ignore", "NoIgnore"}, {"no-ignore-vcs", "NoIgnoreVcs"}, {"quiet", "Quiet"}} {
		n, name := f[0], f[1]
		fmt.Fprintf(&b, "\n// %s reports whether the switch was given.\nfunc (a *Args) %s() bool {\n\treturn a.m[%q]\n}\n", name, name, n)
	}
	ix, read := memIndex(t, map[string]string{"args.go": b.String(), "main.go": "package main\n\nfunc main() {}\n"})
	for _, tc := range []struct {
		task, why, unit, unitWhy string
	}{
		{"add --no-ignore-dot flag", "flag --no-ignore, sibling of --no-ignore-dot", "NoIgnore", "sibling"},
		// The flag the title writes exists: it is no new flag, and its
		// own definition is the one pointed at.
		{"document --no-ignore-vcs flag", "flag --no-ignore-vcs", "NoIgnoreVcs", "quote"},
	} {
		sel, err := Select(context.Background(), ix, tc.task, testCounter(t), &SelectOptions{Budget: 400, Format: FormatPaths, ReadFile: read, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(sel.Files, func(f Selected) bool { return f.Path == "args.go" })
		if i < 0 {
			t.Fatalf("%q: args.go not shown", tc.task)
		}
		f := sel.Files[i]
		if !slices.Contains(f.Signals.Why, tc.why) || slices.ContainsFunc(f.Signals.Why, func(w string) bool { return w != tc.why && strings.HasPrefix(w, "flag ") }) {
			t.Errorf("%q: args.go why = %q, want %q as its only flag", tc.task, f.Signals.Why, tc.why)
		}
		if len(f.Units) == 0 || f.Units[0].Name != tc.unit || !slices.Contains(f.Units[0].Why, tc.unitWhy) {
			t.Errorf("%q: units = %+v, want %s first, marked %q", tc.task, f.Units, tc.unit, tc.unitWhy)
		}
	}
}
