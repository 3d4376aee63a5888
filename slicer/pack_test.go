package slicer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/google/go-cmp/cmp"
)

// lineSet returns the lines the ranges cover.
func lineSet(rs []LineRange) map[int]bool {
	out := map[int]bool{}
	for _, r := range rs {
		for l := r.Start; l <= r.End; l++ {
			out[l] = true
		}
	}
	return out
}

var propertyTasks = []string{
	"retry the request body when the header parse fails in clientCache",
	"tokenBudget is wrong after renderIndex",
	"walkCache panics on an empty index",
	"parseHeader drops the last request header",
}

// TestSelectMonotonic is the depth property: with a larger budget, the
// lines shown of the best file are a superset of those shown with a
// smaller one, over random repositories, tasks and budget pairs.
func TestSelectMonotonic(t *testing.T) {
	c := testCounter(t)
	r := rand.New(rand.NewPCG(7, 8))
	checked := 0
	for trial := 0; trial < 40; trial++ {
		files := randomRepo(r, 5+r.IntN(30))
		ix, read := memIndex(t, files)
		task := propertyTasks[r.IntN(len(propertyTasks))]
		small := 300 + r.IntN(4000)
		large := small + 1 + r.IntN(6000)
		t.Run(fmt.Sprintf("%d-%d-%d", trial, small, large), func(t *testing.T) {
			a, err := Select(context.Background(), ix, task, c, &SelectOptions{Budget: small, ReadFile: read})
			if errors.Is(err, ErrTaskTooLarge) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := Select(context.Background(), ix, task, c, &SelectOptions{Budget: large, ReadFile: read})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Files) == 0 {
				return
			}
			top := a.Files[0]
			if len(b.Files) == 0 || b.Files[0].Path != top.Path {
				t.Fatalf("best file %s at %d is not first at %d: %v", top.Path, small, large, b.Files)
			}
			got := lineSet(b.Files[0].Ranges)
			for l := range lineSet(top.Ranges) {
				if !got[l] {
					t.Fatalf("%s: line %d shown at budget %d (%v) but not at %d (%v)", top.Path, l, small, top.Ranges, large, b.Files[0].Ranges)
				}
			}
			checked++
		})
	}
	if checked < 20 {
		t.Errorf("only %d of 40 trials had a best file to compare", checked)
	}
}

// shown is what a selection shows, independent of its format.
type shown struct {
	Files []string // path:ranges:granularity, in order
	Map   []string
}

func shownOf(sel *Selection) shown {
	var s shown
	for _, f := range sel.Files {
		s.Files = append(s.Files, f.Path+":"+formatRanges(f.Ranges)+":"+string(f.Granularity))
	}
	for _, m := range sel.Map {
		s.Map = append(s.Map, m.Path)
	}
	return s
}

// TestSelectSameInEveryFormat is the one-selection property: at the same
// budget markdown, xml and paths show the same files, lines and map, each
// prompt format within the budget; the paths format prints exactly those
// files and ranges and reports the markdown prompt's count. JSON, sized
// by its own text too, holds its selection's content and its text fits.
func TestSelectSameInEveryFormat(t *testing.T) {
	c := testCounter(t)
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 15; trial++ {
		files := randomRepo(r, 5+r.IntN(30))
		ix, read := memIndex(t, files)
		task := propertyTasks[r.IntN(len(propertyTasks))]
		budget := 300 + r.IntN(8000)
		t.Run(fmt.Sprintf("%d-%d", trial, budget), func(t *testing.T) {
			var want shown
			first := "" // the first format compared, whose selection the others must show
			tokens := map[string]int{}
			for _, format := range formats {
				sel, err := Select(context.Background(), ix, task, c, &SelectOptions{Budget: budget, Format: format, ReadFile: read})
				if errors.Is(err, ErrTaskTooLarge) {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if promptFormat(format) && c.Count(sel.Text) > budget {
					t.Fatalf("%s: %d tokens > budget %d", format, c.Count(sel.Text), budget)
				}
				tokens[format] = sel.Tokens
				if format == FormatJSON {
					checkJSONDoc(t, sel)
					if n := c.Count(sel.Text); n != sel.Tokens {
						t.Fatalf("json: Tokens %d, the text counts %d", sel.Tokens, n)
					}
					continue
				}
				got := shownOf(sel)
				if first == "" {
					first, want = format, got
				} else if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s shows another selection than %s (-%s +%s):\n%s", format, first, first, format, diff)
				}
				if format == FormatPaths {
					var lines []string
					for _, f := range sel.Files {
						lines = append(lines, QuotePath(f.Path)+"\t"+formatRanges(f.Ranges))
					}
					if diff := cmp.Diff(strings.Join(lines, "\n"), strings.TrimSuffix(sel.Text, "\n")); diff != "" {
						t.Fatalf("paths output (-want +got):\n%s", diff)
					}
				}
			}
			if tokens[FormatPaths] != tokens[FormatMarkdown] {
				t.Errorf("Tokens by format %v: paths must report the markdown prompt's count", tokens)
			}
		})
	}
}

// TestPathsRanges checks the paths format's form: path, a TAB, then
// start-end ranges, ascending and within the file.
func TestPathsRanges(t *testing.T) {
	c := testCounter(t)
	ix, read := memIndex(t, goldenRepo)
	sel, err := Select(context.Background(), ix, "retry on 503 loses the request body (see retry.Do)", c, &SelectOptions{Budget: 500, Format: FormatPaths, ReadFile: read})
	if err != nil {
		t.Fatal(err)
	}
	if sel.Text == "" {
		t.Fatal("no paths")
	}
	for _, line := range strings.Split(strings.TrimSuffix(sel.Text, "\n"), "\n") {
		p, ranges, ok := strings.Cut(line, "\t")
		if !ok || p == "" {
			t.Fatalf("line %q: want path<TAB>ranges", line)
		}
		prev := 0
		for _, rg := range strings.Split(ranges, ",") {
			a, b, ok := strings.Cut(rg, "-")
			s, err1 := strconv.Atoi(a)
			e, err2 := strconv.Atoi(b)
			if !ok || err1 != nil || err2 != nil || s < 1 || e < s || s <= prev {
				t.Fatalf("line %q: bad range %q", line, rg)
			}
			prev = e
		}
	}
}

// TestUnits pins how a file is cut into units: a definition with its doc
// comment, a paragraph for one-line definitions, imports never a unit of
// their own, a method with its class as scope.
func TestUnits(t *testing.T) {
	src := []string{
		"package p",                 // 1
		"",                          // 2
		"import (",                  // 3
		"\t\"fmt\"",                 // 4
		")",                         // 5
		"",                          // 6
		"const (",                   // 7
		"\tA = 1",                   // 8
		"\tB = 2",                   // 9
		")",                         // 10
		"",                          // 11
		"// Run prints fmt things.", // 12
		"func Run() {",              // 13
		"\tfmt.Println(A)",          // 14
		"}",                         // 15
	}
	f := &index.File{Lang: "go", Symbols: []index.Symbol{
		{Name: "A", Kind: "const", Start: 8, End: 8},
		{Name: "B", Kind: "const", Start: 9, End: 9},
		{Name: "Run", Kind: "function", Start: 13, End: 15},
	}}
	sh := checkUnits(t, f, src, []unitCase{
		{4, false, LineRange{}, 0, ""},          // an import line
		{2, false, LineRange{}, 0, ""},          // a blank line
		{9, true, LineRange{7, 10}, 0, ""},      // a constant: its paragraph
		{12, true, LineRange{12, 15}, 0, "Run"}, // the doc comment belongs to Run
		{14, true, LineRange{12, 15}, 0, "Run"}, // the body, with the doc comment
		{1, false, LineRange{}, 0, ""},          // the package clause, part of the preamble
		{15, true, LineRange{12, 15}, 0, "Run"}, // the closing brace
		{99, false, LineRange{}, 0, ""},         // past the end
		{0, false, LineRange{}, 0, ""},          // before the start
		{13, true, LineRange{12, 15}, 0, "Run"}, // the header
		{8, true, LineRange{7, 10}, 0, ""},      // the other constant, same paragraph
		{10, true, LineRange{7, 10}, 0, ""},     // the closing parenthesis
		{7, true, LineRange{7, 10}, 0, ""},      // the opening line
		{3, false, LineRange{}, 0, ""},          // the import block's first line
		{5, false, LineRange{}, 0, ""},          // and its last
		{11, false, LineRange{}, 0, ""},         // blank between blocks
		{6, false, LineRange{}, 0, ""},          // blank after imports
	})
	if got := preamble(sh.imp); got != 5 {
		t.Errorf("preamble ends at %d, want 5", got)
	}

	py := []string{
		"class Session:",            // 1
		"    timeout = 3",           // 2
		"",                          // 3
		"    @staticmethod",         // 4
		"    def rebuild(p):",       // 5
		"        p.headers = {}",    // 6
		"        return p",          // 7
		"",                          // 8
		"    def close(self):",      // 9
		"        self.open = False", // 10
		"        return None",       // 11
	}
	checkUnits(t, &index.File{Lang: "python", Symbols: []index.Symbol{
		{Name: "Session", Kind: "class", Start: 1, End: 11},
		{Name: "rebuild", Kind: "method", Start: 5, End: 7, Scope: "Session"},
		{Name: "close", Kind: "method", Start: 9, End: 11, Scope: "Session"},
	}}, py, []unitCase{
		{6, true, LineRange{4, 7}, 1, "rebuild"}, // the decorator belongs to the method
		{10, true, LineRange{9, 11}, 1, "close"},
		{2, true, LineRange{1, 2}, 0, ""}, // a class field: the class's own paragraph
	})

	// Lines 1-3 a JSDoc block, 5-7 etag, 9 a line comment, 11-13 weak.
	js := strings.Split(`/**
 * Return ETag for body.
 */

exports.etag = function(b){
  return crc32(b);
};

// tag: not a doc comment

exports.weak = function(b){
  return 'W/' + etag(b);
};`, "\n")
	checkUnits(t, &index.File{Lang: "javascript", Symbols: []index.Symbol{
		{Name: "etag", Kind: "function", Start: 5, End: 7},
		{Name: "weak", Kind: "function", Start: 11, End: 13},
	}}, js, []unitCase{
		{2, true, LineRange{1, 7}, 0, "etag"}, // a JSDoc block a blank line above documents the function
		{6, true, LineRange{1, 7}, 0, "etag"},
		{12, true, LineRange{11, 13}, 0, "weak"}, // a line comment a blank line above does not
		{9, true, LineRange{9, 9}, 0, ""},
	})

	// Lines 1-4 a comment on the version numbers, 6-8 the #defines it is
	// about, 10 another #define, 12-13 a comment then code with no blank
	// line between, 15 a comment before nothing.
	cs := strings.Split(`/*
 * Versions with the same major number are ABI stable:
 * bump the minor version for new API.
 */

#define LIB_VERSION_MAJOR 1
#define LIB_VERSION_MINOR 28
#define LIB_VERSION_PATCH 1

#define LIB_VERSION_HEX (LIB_VERSION_MAJOR << 16)

// buffers
#define LIB_BUFFER 4096

// the end`, "\n")
	checkUnits(t, &index.File{Lang: "c"}, cs, []unitCase{
		{2, true, LineRange{1, 8}, 0, ""},    // a comment alone takes the code it is about
		{7, true, LineRange{6, 8}, 0, ""},    // the code does not take the comment above it
		{12, true, LineRange{12, 13}, 0, ""}, // comment and code in one paragraph, as before
		{15, true, LineRange{15, 15}, 0, ""}, // nothing after it
	})
	// In Python # starts a comment; in C # is the preprocessor's.
	pyc := strings.Split(`# Retry policy: how many attempts
# and how long between them.

MAX_ATTEMPTS = 3
DELAY = 0.5

# the client

def connect():
    return None`, "\n")
	checkUnits(t, &index.File{Lang: "python", Symbols: []index.Symbol{
		{Name: "connect", Kind: "function", Start: 9, End: 10},
	}}, pyc, []unitCase{
		{1, true, LineRange{1, 5}, 0, ""}, // takes the constants after it
	})
	checkUnits(t, &index.File{Lang: "c"}, strings.Split("# define A 1\n\n#define B 2", "\n"), []unitCase{
		{1, true, LineRange{1, 1}, 0, ""},
	})
	checkUnits(t, &index.File{}, strings.Split("* a list item\n\nmore prose", "\n"), []unitCase{
		{1, true, LineRange{1, 1}, 0, ""}, // no language: * is a list item
	})
}

// unitCase is the unit expected to hold a line (ok false: none).
type unitCase struct {
	line  int
	ok    bool
	want  LineRange
	scope int
	name  string
}

// checkUnits cuts src into units as f's shape and checks each case; it
// returns the shape.
func checkUnits(t *testing.T, f *index.File, src []string, cases []unitCase) *fileShape {
	t.Helper()
	sh := newShape(f, src)
	for _, tc := range cases {
		u, ok := sh.unitAt(f.Lang, src, tc.line)
		if ok != tc.ok || (ok && (u.r != tc.want || u.scope != tc.scope || u.name != tc.name)) {
			t.Errorf("%s line %d: got %v %+v scope %d %q, want %v %+v scope %d %q",
				f.Lang, tc.line, ok, u.r, u.scope, u.name, tc.ok, tc.want, tc.scope, tc.name)
		}
	}
	return sh
}

// TestLinesGolden extends the ranking golden with lines: for each task,
// the lines of its target file the prompt shows at a tight budget, and
// whether they include the definition the task is about.
func TestLinesGolden(t *testing.T) {
	c := testCounter(t)
	ix, read := memIndex(t, goldenRepo)
	tasks := []struct{ task, target, must string }{
		{"retry on 503 loses the request body", "retry/retry.go", "func Do("},
		{"ParseHTTPHeader keeps spaces around the value", "header/parse.go", "func ParseHTTPHeader("},
		{"users report \"cache: key not found\" right after Put", "cache/cache.go", "func (c *Cache) Get("},
		{"load_settings crashes when the settings file is missing", "config/settings.py", "def load_settings(path):"},
		{"Cache.Get on a nil map panics", "cache/cache.go", "func (c *Cache) Get("},
		{"retry policy: make the maximum number of attempts configurable", "retry/retry.go", "type Policy struct"},
	}
	var b strings.Builder
	b.WriteString("# task → target: lines shown at budget 600; the definition the task is about shown\n")
	hits := 0
	for _, tc := range tasks {
		sel, err := Select(context.Background(), ix, tc.task, c, &SelectOptions{Budget: 600, ReadFile: read})
		if err != nil {
			t.Fatal(err)
		}
		ranges, shown := "-", false
		for _, f := range sel.Files {
			if f.Path == tc.target {
				ranges = formatRanges(f.Ranges)
				shown = strings.Contains(f.Content, tc.must)
			}
		}
		if shown {
			hits++
		}
		fmt.Fprintf(&b, "%s → %s: %s %v\n", tc.task, tc.target, ranges, shown)
	}
	fmt.Fprintf(&b, "definitions shown %d/%d\n", hits, len(tasks))
	golden(t, filepath.Join("testdata", "select", "lines.golden"), b.String())
	if hits < len(tasks) {
		t.Errorf("the definition a task is about is shown in %d of %d tasks, want all", hits, len(tasks))
	}
}

// TestSelectNoTask: with NoTask the text holds the same selection without
// the task, in every format, and costs less than with it.
func TestSelectNoTask(t *testing.T) {
	c := testCounter(t)
	ix, read := memIndex(t, goldenRepo)
	task := "retry on 503 loses the request body (see retry.Do)"
	for _, format := range []string{FormatMarkdown, FormatXML, FormatJSON} {
		with, err := Select(context.Background(), ix, task, c, &SelectOptions{Budget: 2000, Format: format, ReadFile: read})
		if err != nil {
			t.Fatal(err)
		}
		without, err := Select(context.Background(), ix, task, c, &SelectOptions{Budget: 2000, Format: format, ReadFile: read, NoTask: true})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(without.Text, "loses the request body") || !strings.Contains(with.Text, "loses the request body") {
			t.Errorf("%s: task in the text: with %v, without %v", format, strings.Contains(with.Text, "loses the request body"), strings.Contains(without.Text, "loses the request body"))
		}
		if without.Tokens >= with.Tokens || len(without.Files) == 0 || without.Files[0].Path != with.Files[0].Path {
			t.Errorf("%s: without the task %d tokens (first %v), with it %d (first %v)", format, without.Tokens, without.Files, with.Tokens, with.Files)
		}
	}
}

// TestUnitFileIDF: within one file, a term in every definition weighs
// less in ranking them than one in a single definition, so the task's
// distinctive word picks the definition; the weight of a term in one unit
// is its collection weight.
func TestUnitFileIDF(t *testing.T) {
	w := unitTermWeights([]float64{2, 2, 2}, []map[int32]int{{0: 3}, {0: 1, 1: 1}, {0: 2}, {0: 1}}, 4)
	if w[1] != 2 || !(w[0] < w[1]/2) || w[2] != 2 {
		t.Errorf("weights %v: want the term in one unit at 2, the one in all four below 1, the unused one at 2", w)
	}
	var b strings.Builder
	b.WriteString("package push\n")
	for _, name := range []string{"Push", "PushAll", "PushSome", "PushOne"} {
		fmt.Fprintf(&b, "\n// %s pushes: push, push and push again.\nfunc %s() {\n\tpush()\n\tpush()\n\tpush()\n\tpush()\n}\n", name, name)
	}
	b.WriteString("\n// Forced marks it.\nfunc Forced() {\n\ttag()\n}\n")
	for k := 0; k < 6; k++ {
		fmt.Fprintf(&b, "\n// Filler%d does other work.\nfunc Filler%d() {\n\tpush()\n}\n", k, k)
	}
	// Without the file's own IDF, Push (push eight times) outscores
	// Forced (tag once): both terms are in this file only. The budget
	// holds one of them.
	ix, read := memIndex(t, map[string]string{"push/push.go": b.String(), "other/other.go": "package other\n\n// Work works.\nfunc Work() {}\n"})
	c := testCounter(t)
	sel, err := Select(context.Background(), ix, "push rejects a tag", c, &SelectOptions{Budget: 160, ReadFile: read})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sel.Files {
		if f.Path == "push/push.go" {
			if !strings.Contains(f.Content, "func Forced()") {
				t.Errorf("push.go shows %v, want the one definition with the tag:\n%s", formatRanges(f.Ranges), f.Content)
			}
			return
		}
	}
	t.Errorf("push/push.go not shown: %v", sel.Files)
}

// TestBreadthStopsAfterMisses: when no next file's excerpt fits what is
// left for breadth, breadth stops after maxBreadthMisses of them instead
// of reading every candidate (each read is redacted; on moby it made
// packing 2.5 times slower).
func TestBreadthStopsAfterMisses(t *testing.T) {
	files := map[string]string{"top/top.go": "package top\n\n// Retry retries the request body.\nfunc Retry() {}\n"}
	long := strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa ", 3)
	for k := range 80 {
		// One long definition each, hit once: neither it nor a window of
		// it fits a breadth excerpt's cap at this budget.
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\nfunc F%d() {\n", k, k)
		for i := range 40 {
			if i == 20 {
				b.WriteString("\t// retry the request body\n")
			}
			fmt.Fprintf(&b, "\t_ = \"%s%d\"\n", long, i)
		}
		b.WriteString("}\n")
		files[fmt.Sprintf("p%02d/f.go", k)] = b.String()
	}
	ix, read := memIndex(t, files)
	reads := 0
	counted := func(p string) ([]byte, error) { reads++; return read(p) }
	c := testCounter(t)
	p, rk, _, err := prepare(context.Background(), ix, "retry the request body", c, &SelectOptions{Budget: 3000, ReadFile: counted, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The best file far ahead, so that depth ends with it and the others
	// are breadth.
	for k := range rk {
		if ix.Files[rk[k].file].Path == "top/top.go" {
			rk[0], rk[k] = rk[k], rk[0]
		}
	}
	for k := range rk {
		rk[k].signals.Score = 0.021
	}
	rk[0].signals.Score = 1
	reads = 0
	if err := p.pack(context.Background(), rk); err != nil {
		t.Fatal(err)
	}
	if reads > 40 {
		t.Errorf("packing read %d of %d files, want at most 40 (the best file, %d breadth misses, the last pass)", reads, len(ix.Files), maxBreadthMisses)
	}
}

// TestPadBlank: an excerpt takes the blank line that ends its block, the
// line a commit deleting the block deletes too, and the line after it,
// where a definition added after the block goes in, or else the line that
// closes the enclosing block; with before, the blank line before the
// block too; and nothing else.
func TestPadBlank(t *testing.T) {
	lines := []string{"func a() {", "}", "", "func b() {", "}", "\t", "x", "y", "", "z", ""}
	for _, tc := range []struct {
		in, want LineRange
	}{
		{LineRange{1, 2}, LineRange{1, 4}},     // blank after: taken, with the line after it
		{LineRange{4, 5}, LineRange{4, 7}},     // whitespace only counts as blank
		{LineRange{7, 7}, LineRange{7, 7}},     // next line has code
		{LineRange{10, 10}, LineRange{10, 11}}, // a blank last line: nothing after it
		{LineRange{11, 11}, LineRange{11, 11}}, // last line of the file
		{LineRange{3, 3}, LineRange{3, 3}},     // only the lines after, not before
	} {
		if got := padBlank(lines, tc.in, false); got != tc.want {
			t.Errorf("padBlank(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	// The last definition of a class or impl: the line that closes it is
	// taken, where a definition added after the last one goes in; a line
	// that closes one block and opens another is code.
	nested := []string{"impl A {", "    fn a() {", "    }", "}", "", "x", "    } else {", "end", "};  // ns"}
	for _, tc := range []struct {
		in, want LineRange
	}{
		{LineRange{2, 3}, LineRange{2, 4}}, // the impl's closing brace
		{LineRange{1, 4}, LineRange{1, 6}}, // then a blank line as before
		{LineRange{6, 6}, LineRange{6, 6}}, // `} else {` opens a block
		{LineRange{7, 7}, LineRange{7, 8}}, // Ruby's end
		{LineRange{8, 8}, LineRange{8, 9}}, // a closer with a comment
	} {
		if got := padBlank(nested, tc.in, false); got != tc.want {
			t.Errorf("padBlank(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in, want LineRange
	}{
		{LineRange{4, 5}, LineRange{3, 7}},  // blank before and after: both taken
		{LineRange{1, 2}, LineRange{1, 4}},  // first line of the file: nothing before
		{LineRange{7, 8}, LineRange{6, 10}}, // whitespace only before counts as blank
		{LineRange{2, 2}, LineRange{2, 4}},  // code before: not taken
	} {
		if got := padBlank(lines, tc.in, true); got != tc.want {
			t.Errorf("padBlank(%v, before) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestAddRange: ranges merge when they overlap, touch, are one line
// apart, or are apart by blank lines only (an elision marker would cost
// more, and hide where code goes in); otherwise they stay apart, sorted.
func TestAddRange(t *testing.T) {
	lines := []string{"import a", "", "", "", "x = 1", "", "\t", "class C:", "    y = 2", "z"}
	for _, tc := range []struct {
		name   string
		ranges []LineRange
		add    LineRange
		want   []LineRange
	}{
		{"first", nil, LineRange{5, 5}, []LineRange{{5, 5}}},
		{"overlap", []LineRange{{1, 4}}, LineRange{3, 5}, []LineRange{{1, 5}}},
		{"one line apart", []LineRange{{8, 8}}, LineRange{10, 10}, []LineRange{{8, 10}}},
		{"blank lines apart", []LineRange{{1, 1}}, LineRange{5, 5}, []LineRange{{1, 5}}},
		{"whitespace counts as blank", []LineRange{{5, 5}}, LineRange{8, 8}, []LineRange{{5, 8}}},
		{"code between", []LineRange{{1, 1}}, LineRange{8, 9}, []LineRange{{1, 1}, {8, 9}}},
		{"sorted", []LineRange{{8, 10}}, LineRange{1, 1}, []LineRange{{1, 1}, {8, 10}}},
	} {
		if got := addRange(lines, tc.ranges, tc.add); !slices.Equal(got, tc.want) {
			t.Errorf("%s: addRange(%v, %v) = %v, want %v", tc.name, tc.ranges, tc.add, got, tc.want)
		}
	}
}

// TestWholeFileRange checks that a file shown whole is shown to its last
// line, blank lines before the final newline included: a change appended
// to such a file touches the blank line, and the kit (like any reader of
// the ranges) takes a range that stops short as a line not shown.
func TestWholeFileRange(t *testing.T) {
	c := testCounter(t)
	for _, tc := range []struct {
		src  string
		want string
	}{
		{"package retry\n\nfunc Do() {}\n", "1-3"},
		{"package retry\n\nfunc Do() {}\n\n", "1-4"},
		{"package retry\n\nfunc Do() {}\n\n\n", "1-5"},
		{"package retry\n\nfunc Do() {}", "1-3"},
		{"package retry\r\n\r\nfunc Do() {}\r\n\r\n", "1-4"},
	} {
		ix, read := memIndex(t, map[string]string{"retry.go": tc.src})
		sel, err := Select(context.Background(), ix, "retry Do", c, &SelectOptions{Budget: 2000, Format: FormatPaths, ReadFile: read})
		if err != nil {
			t.Fatal(err)
		}
		if want := "retry.go\t" + tc.want + "\n"; sel.Text != want {
			t.Errorf("%q: paths = %q, want %q", tc.src, sel.Text, want)
		}
	}
}

// TestUnitQueryTF: of two definitions that each hold one of the task's
// terms, equally rare, the one holding the term the task repeats ranks
// first, as a file holding it would.
func TestUnitQueryTF(t *testing.T) {
	var b strings.Builder
	b.WriteString("package net\n")
	for k := 0; k < 12; k++ {
		fmt.Fprintf(&b, "\n// Filler%d does other work.\nfunc Filler%d(x int) int {\n\treturn x * %d\n}\n", k, k, k)
	}
	b.WriteString("\n// Dial opens a connection.\nfunc Dial() {\n\tbackoff()\n}\n")
	b.WriteString("\n// Send writes a message.\nfunc Send() {\n\tdeadline()\n}\n")
	ix, read := memIndex(t, map[string]string{"net/net.go": b.String(), "other/other.go": "package other\n\n// Work works.\nfunc Work() {}\n"})
	for _, tc := range []struct{ task, want, not string }{
		{"the backoff ignores the deadline: backoff grows, backoff never resets", "func Dial()", "func Send()"},
		{"the deadline ignores the backoff: deadline grows, deadline never resets", "func Send()", "func Dial()"},
	} {
		sel, err := Select(context.Background(), ix, tc.task, testCounter(t), &SelectOptions{Budget: 150, ReadFile: read})
		if err != nil {
			t.Fatal(err)
		}
		var content string
		for _, f := range sel.Files {
			if f.Path == "net/net.go" {
				content = f.Content
			}
		}
		if !strings.Contains(content, tc.want) || strings.Contains(content, tc.not) {
			t.Errorf("%q: net.go shows\n%s\nwant %q and not %q", tc.task, content, tc.want, tc.not)
		}
	}
}

// TestImportLines checks that an import statement spanning several lines
// (a parenthesized Python import, a TypeScript import list, a Rust use
// tree, a Go import block) marks every one of its lines, so that the
// preamble ends where the statement does, that a bracket left open by a
// line the scanner misreads does not swallow the file, and where a
// preamble too large for its room may end (importCuts): never inside a
// statement, nor inside an indented block such as Python's try:.
func TestImportLines(t *testing.T) {
	tests := []struct {
		name string
		lang string
		src  []string
		want string // one mark per line: i for an import line, . otherwise
		cuts []int  // where a preamble too large for its room may end
	}{
		{"python parenthesized", "python", []string{
			"import os",
			"from ._utils import (  # noqa: F401 (re-exported)",
			"    guess_json_utf,",
			"    parse_header_links,",
			")",
			"",
			"class Headers:",
		}, "iiiii..", []int{1}},
		{"python backslash", "python", []string{
			"from a import b, \\",
			"    c",
			"x = (1,",
		}, "ii.", []int{}},
		{"typescript list", "typescript", []string{
			"import {",
			"  createFilter,",
			"  normalizePath,",
			"} from './utils'",
			"import type { Plugin } from 'rollup'",
			"const x = import('./lazy')",
		}, "iiiii.", []int{4}},
		{"rust use tree", "rust", []string{
			"use std::{",
			"    io::{self, Write},",
			"    path::Path,",
			"};",
			"pub use crate::x;",
			"fn main() {}",
		}, "iiiii.", []int{4}},
		{"go block with a blank line", "go", []string{
			"package retry",
			"",
			"import (",
			"\t\"fmt\" // (formatting)",
			"",
			"\t\"github.com/x/y\"",
			")",
			"",
			"func F() {}",
		}, "i.iiiii..", []int{1}},
		{"javascript comma-first requires", "javascript", []string{
			"var finalhandler = require('finalhandler')",
			"  , methods = Router.methods.concat('del')",
			"  , response = require('./response');",
			"",
			"var x = require('x'),",
			"    y = require('y');",
			"app.use(require('z'))",
		}, "iii.ii.", []int{3}},
		{"a string holds a bracket", "typescript", []string{
			"import { a } from './a('",
			"const b = 1",
		}, "i.", []int{}},
		{"an unclosed bracket ends at a blank line", "python", []string{
			"from x import (a,",
			"    b",
			"",
			"def f():",
			"    return (1,",
		}, "ii...", []int{}},
		{"python imports in a try block", "python", []string{
			"import zlib",
			"try:",
			"    import brotli",
			"except ImportError:",
			"    brotli = None",
			"import sys",
			"",
			"def f():",
		}, "i.i..i..", []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got strings.Builder
			imp := importLines(tc.lang, tc.src)
			for _, m := range imp {
				if m {
					got.WriteByte('i')
				} else {
					got.WriteByte('.')
				}
			}
			if diff := cmp.Diff(tc.want, got.String()); diff != "" {
				t.Errorf("importLines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.cuts, importCuts(tc.lang, tc.src, imp, preamble(imp))); diff != "" {
				t.Errorf("importCuts (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzImportLines checks importLines on arbitrary text: one mark per line,
// every run of import lines opens with a line that starts a statement, and
// a blank line is an import line only inside Go's import blocks.
func FuzzImportLines(f *testing.F) {
	f.Add("python", "from a import (\n    b,\n)\nx = 1")
	f.Add("go", "import (\n\t\"fmt\"\n\n\t\"os\"\n)\n")
	f.Add("typescript", "import {\n  a,\n} from 'b'\nconst c = import('d')")
	f.Add("javascript", "var a = require('a')\n  , b = require('b')\nfoo(require('c'))")
	f.Add("rust", "use a::{\n    b::{c, d},\n};\nfn main() {")
	f.Add("python", "from a import (b,\n\ndef f(): return (1,\n")
	f.Fuzz(func(t *testing.T, lang, src string) {
		lines := strings.Split(src, "\n")
		imp := importLines(lang, lines)
		if len(imp) != len(lines) {
			t.Fatalf("%d marks for %d lines", len(imp), len(lines))
		}
		for i, m := range imp {
			if !m {
				continue
			}
			trimmed := strings.TrimSpace(lines[i])
			if trimmed == "" && lang != "go" {
				t.Fatalf("blank line %d marked as an import in %s", i+1, lang)
			}
			if (i == 0 || !imp[i-1]) && !isImportLine(lang, trimmed) {
				t.Fatalf("run of import lines opens at line %d with %q, which starts no import", i+1, lines[i])
			}
		}
		// A preamble cut ends an import statement: the line after it
		// is not that statement's continuation.
		pre := preamble(imp)
		last := 0
		for _, e := range importCuts(lang, lines, imp, pre) {
			if e <= last || e >= pre || !imp[e-1] {
				t.Fatalf("cut after line %d (previous %d, preamble %d) is not after an import line", e, last, pre)
			}
			if imp[e] && !isImportLine(lang, strings.TrimSpace(lines[e])) {
				t.Fatalf("cut after line %d splits the statement that goes on with %q", e, lines[e])
			}
			last = e
		}
	})
}

// TestContextFilesAsBreadth: depth is for the files a fix edits. A test
// the task does not name, ranked below the best file, is shown as
// breadth (its best unit within the breadth cap), and the source ranked
// after it gets the room to go in whole; a test the task names, or one
// that ranks first, still gets depth.
func TestContextFilesAsBreadth(t *testing.T) {
	fn := func(name, body string, n int) string {
		var b strings.Builder
		for k := range n {
			fmt.Fprintf(&b, "\n// %s%d %s, case %d.\nfunc %s%d(v int) int {\n\tw := v * %d\n\tif w > %d {\n\t\tw -= %d\n\t}\n\treturn w\n}\n",
				name, k, body, k, name, k, k+3, 100+k, k+1)
		}
		return b.String()
	}
	files := map[string]string{
		"retry/retry.go":      "package retry\n\n// Do retries op with backoff and jitter.\nfunc Do(op func() error) error { return op() }\n",
		"retry/retry_test.go": "package retry\n" + fn("TestBackoffJitter", "checks the retry backoff jitter", 20),
		"retry/schedule.go":   "package retry\n" + fn("step", "is an unrelated entry of the table", 20),
	}
	for k := range 150 {
		files[fmt.Sprintf("svc/s%03d.go", k)] = fmt.Sprintf("package svc\n\n// S%d retries with backoff.\nfunc S%d() {}\n", k, k)
	}
	ix, read := memIndex(t, files)
	c := testCounter(t)
	const budget = 5000
	for _, tc := range []struct {
		name        string
		named, best bool
		whole       bool // the test goes in whole
	}{
		{name: "unnamed"},
		{name: "named", named: true, whole: true},
		{name: "best", best: true, whole: true},
	} {
		p, rk, _, err := prepare(context.Background(), ix, "retry backoff jitter", c, &SelectOptions{Budget: budget, ReadFile: read, Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		// The order of the case, whatever the lexical scores: the source
		// first (or the test, when best), the test second, the source
		// the fix edits third, then files whose small wholes take what
		// breadth has.
		score := map[string]float64{"retry/retry.go": 1, "retry/retry_test.go": 0.46, "retry/schedule.go": 0.45}
		if tc.best {
			score["retry/retry_test.go"] = 2
		}
		for k := range rk {
			path := ix.Files[rk[k].file].Path
			rk[k].signals.Score = 0.3
			if s, ok := score[path]; ok {
				rk[k].signals.Score = s
			}
			if path == "retry/retry_test.go" {
				if rk[k].class != index.Test {
					t.Fatalf("retry_test.go ranks as class %v, want a test", rk[k].class)
				}
				rk[k].named = tc.named
			}
		}
		sort.SliceStable(rk, func(a, b int) bool { return rk[a].signals.Score > rk[b].signals.Score })
		if err := p.pack(context.Background(), rk); err != nil {
			t.Fatal(err)
		}
		views := map[string]*view{}
		for _, v := range p.views {
			views[v.path] = v
		}
		test := views["retry/retry_test.go"]
		if test == nil {
			t.Errorf("%s: retry_test.go not shown", tc.name)
			continue
		}
		if got := test.gran == GranWhole; got != tc.whole {
			t.Errorf("%s: retry_test.go shown as %v, want whole = %v", tc.name, test.gran, tc.whole)
		}
		if tc.whole {
			continue
		}
		if limit := min(maxTail, max(minTail, int(float64(budget)*tailFileShare))); test.tokens > limit || len(test.units) > 1 {
			t.Errorf("%s: retry_test.go shows %d units in %d tokens, want its best unit within the breadth cap %d", tc.name, len(test.units), test.tokens, limit)
		}
		if v := views["retry/schedule.go"]; v == nil || v.gran != GranWhole {
			t.Errorf("%s: schedule.go shown as %+v, want whole", tc.name, v)
		}
	}
}

// TestPreambleSkipsLicence: an excerpted file shows its package clause
// and imports, not the licence header above them (16 lines, about 120
// tokens, on every excerpted gson file).
func TestPreambleSkipsLicence(t *testing.T) {
	licence := "// Copyright 2024 The Authors.\n//\n// Licensed under the Apache License, Version 2.0 (the \"License\");\n// you may not use this file except in compliance with the License.\n\n"
	var b strings.Builder
	b.WriteString("package retry\n\nimport (\n\t\"errors\"\n\t\"time\"\n)\n")
	for k := range 40 {
		fmt.Fprintf(&b, "\n// Step%d waits before attempt %d.\nfunc Step%d(d time.Duration) error {\n\tif d < %d {\n\t\treturn errors.New(\"short\")\n\t}\n\treturn nil\n}\n", k, k, k, k)
	}
	b.WriteString("\n// Backoff doubles the retry delay after a failed attempt.\nfunc Backoff(d time.Duration) time.Duration {\n\treturn 2 * d\n}\n")
	c := testCounter(t)
	for _, tc := range []struct {
		name, head string
		first      int // the first line the preamble shows
	}{
		{"licence", licence, 5}, // the blank line above the package clause, as above every block
		{"none", "", 1},
	} {
		ix, read := memIndex(t, map[string]string{"retry/retry.go": tc.head + b.String()})
		sel, err := Select(context.Background(), ix, "retry backoff delay doubles", c, &SelectOptions{Budget: 600, Format: FormatPaths, ReadFile: read})
		if err != nil {
			t.Fatal(err)
		}
		ranges, ok := strings.CutPrefix(strings.TrimSpace(sel.Text), "retry/retry.go\t")
		if !ok || strings.Count(sel.Text, "\n") != 1 {
			t.Fatalf("%s: paths %q, want retry/retry.go alone", tc.name, sel.Text)
		}
		first, _, _ := strings.Cut(ranges, "-")
		if first != strconv.Itoa(tc.first) {
			t.Errorf("%s: ranges %s, want the preamble from line %d", tc.name, ranges, tc.first)
		}
		if !strings.Contains(ranges, ",") {
			t.Errorf("%s: ranges %s, want excerpts (the preamble and Backoff)", tc.name, ranges)
		}
	}
}

// TestDominantFileDepth: a best file scoring at least dominantRatio times
// the second takes more of the depth budget (up to dominantShare of it,
// with a smaller breadth reserve) than one the second scores close to.
func TestDominantFileDepth(t *testing.T) {
	files := bigRetryRepo()
	files["retry/other.go"] = "package retry\n\n// Backoff is the retry request backoff.\nfunc Backoff() int { return 1 }\n"
	ix, read := memIndex(t, files)
	c := testCounter(t)
	const budget = 4000
	shown := func(second float64) int {
		t.Helper()
		// The others above the floor, so that breadth takes its reserve.
		p := packScored(t, ix, read, c, budget, bestAndSecond("retry/other.go", second, 1.5*breadthFloor))
		for _, v := range p.views {
			if v.path == "retry/retry.go" {
				if v.gran == GranWhole {
					t.Fatalf("second at %v: retry.go went in whole; the case needs a file larger than the budget", second)
				}
				return v.tokens
			}
		}
		t.Fatalf("second at %v: retry.go not shown", second)
		return 0
	}
	near, dominant := shown(0.9), shown(1/dominantRatio)
	if dominant <= near {
		t.Errorf("best file shows %d tokens when it dominates, %d when the second is close; want more when it dominates", dominant, near)
	}
	// The breadth reserve shrinks too (dominantTailShare): more than
	// its share of the depth left by a full reserve, even counted on the
	// whole budget.
	if limit := dominantShare * (1 - mapShare - tailShare) * budget; float64(dominant) <= limit {
		t.Errorf("best file shows %d tokens when it dominates, want more than %.0f (its share of the depth a full breadth reserve leaves)", dominant, limit)
	}
	t.Logf("best file: %d tokens when the second is close, %d when it dominates", near, dominant)
}

// TestBreadthFloor: files scoring below breadthFloor of the best get no
// breadth excerpt; their room deepens the best file instead, and they
// keep their map entries.
func TestBreadthFloor(t *testing.T) {
	ix, read := memIndex(t, bigRetryRepo())
	c := testCounter(t)
	// pack returns the best file's tokens and how many others are shown
	// as content, with every other file scoring rel of the best.
	pack := func(rel float64) (best, others int) {
		t.Helper()
		p := packScored(t, ix, read, c, 4000, func(path string) float64 {
			if path == "retry/retry.go" {
				return 1
			}
			return rel
		})
		for _, v := range p.views {
			if v.path == "retry/retry.go" {
				if v.gran == GranWhole {
					t.Fatalf("at %v: retry.go went in whole; the case needs a file larger than the budget", rel)
				}
				best = v.tokens
			} else {
				others++
			}
		}
		if len(p.maps) == 0 {
			t.Errorf("at %v: no map entries; the other files belong in the map", rel)
		}
		return best, others
	}
	belowBest, belowOthers := pack(breadthFloor / 2)
	aboveBest, aboveOthers := pack(breadthFloor * 1.5)
	if belowOthers != 0 {
		t.Errorf("files at half the floor: %d shown as content, want none", belowOthers)
	}
	if aboveOthers == 0 {
		t.Errorf("files above the floor: none shown as content, want breadth excerpts")
	}
	if belowBest <= aboveBest {
		t.Errorf("best file shows %d tokens with the others below the floor, %d above it; want more below", belowBest, aboveBest)
	}
	t.Logf("best file: %d tokens (others below the floor), %d (%d others shown)", belowBest, aboveBest, aboveOthers)
}

// TestFillUsesRoom: the best file's units the task does not hit fill
// the room its matches leave, counted without the lines already shown:
// a prompt of one large file nearly reaches the budget. Counting each
// unit's padded range whole left a quarter of it free.
func TestFillUsesRoom(t *testing.T) {
	var src strings.Builder
	src.WriteString("package retry\n\n// Do retries the request on 503 and rewinds its body.\nfunc Do() error { return nil }\n")
	for k := range 60 {
		fmt.Fprintf(&src, "\n// Step%d is step %d.\nfunc Step%d(v int) int {\n\tv += %d\n\treturn v * 2\n}\n", k, k, k, k)
	}
	ix, read := memIndex(t, map[string]string{"retry/retry.go": src.String()})
	c := testCounter(t)
	for _, budget := range []int{600, 900, 1200} {
		sel, err := Select(context.Background(), ix, "retry the request body", c, &SelectOptions{Budget: budget, ReadFile: read})
		if err != nil {
			t.Fatal(err)
		}
		if len(sel.Files) != 1 || sel.Files[0].Granularity != GranDefinitions {
			t.Fatalf("budget %d: files %+v, want retry.go as excerpts", budget, sel.Files)
		}
		if sel.Tokens < budget*9/10 {
			t.Errorf("budget %d: prompt of %d tokens, want at least 90%% of the budget", budget, sel.Tokens)
		}
	}
}

func TestUncovered(t *testing.T) {
	ranges := []LineRange{{3, 5}, {9, 12}}
	for _, tc := range []struct {
		rg   LineRange
		want []LineRange
	}{
		{LineRange{1, 2}, []LineRange{{1, 2}}},
		{LineRange{1, 4}, []LineRange{{1, 2}}},
		{LineRange{4, 10}, []LineRange{{6, 8}}},
		{LineRange{1, 20}, []LineRange{{1, 2}, {6, 8}, {13, 20}}},
		{LineRange{9, 12}, nil},
		{LineRange{13, 14}, []LineRange{{13, 14}}},
	} {
		if got := uncovered(ranges, tc.rg); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("uncovered(%v, %v) = %v, want %v", ranges, tc.rg, got, tc.want)
		}
	}
}

// bigRetryRepo is a best file larger than a 4,000-token budget, whose 120
// definitions all match "retry the request with backoff", and 40 small
// files that match "request".
func bigRetryRepo() map[string]string {
	var big strings.Builder
	big.WriteString("package retry\n")
	for k := range 120 {
		fmt.Fprintf(&big, "\n// Retry%d retries the request with backoff, case %d.\nfunc Retry%d(v int) int {\n\tw := v * %d\n\tif w > %d {\n\t\tw -= %d\n\t}\n\treturn w\n}\n", k, k, k, k+3, 100+k, k+1)
	}
	files := map[string]string{"retry/retry.go": big.String()}
	addSenders(files)
	return files
}

// addSenders adds 40 small files that match "request".
func addSenders(files map[string]string) {
	for k := range 40 {
		files[fmt.Sprintf("svc/s%02d.go", k)] = fmt.Sprintf("package svc\n\n// S%d sends the request.\nfunc S%d() {}\n", k, k)
	}
}

// bestAndSecond scores retry/retry.go 1, second rel and every other file
// rest, for packScored.
func bestAndSecond(second string, rel, rest float64) func(string) float64 {
	return func(path string) float64 {
		switch path {
		case "retry/retry.go":
			return 1
		case second:
			return rel
		}
		return rest
	}
}

// packScored ranks the files of ix for "retry the request with backoff",
// sets each file's score to score(path), and packs them within limit
// tokens.
func packScored(t *testing.T, ix *index.Index, read func(string) ([]byte, error), c budget.Counter, limit int, score func(string) float64) *packer {
	t.Helper()
	p, rk, _, err := prepare(context.Background(), ix, "retry the request with backoff", c, &SelectOptions{Budget: limit, ReadFile: read, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	for k := range rk {
		rk[k].signals.Score = score(ix.Files[rk[k].file].Path)
	}
	sort.SliceStable(rk, func(a, b int) bool { return rk[a].signals.Score > rk[b].signals.Score })
	if err := p.pack(context.Background(), rk); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWholeLeavesNearTie: a best file that fits whole in most of the
// room does not go in whole when the next file scores nearly as high
// (wholeNextShare): that file gets a depth share of the room, not the
// crumbs a whole best file leaves. With a distant second, the best file
// goes in whole at depth.
func TestWholeLeavesNearTie(t *testing.T) {
	var best, second strings.Builder
	best.WriteString("package retry\n")
	for k := range 52 {
		fmt.Fprintf(&best, "\n// Retry%d retries the request with backoff, case %d.\nfunc Retry%d(v int) int {\n\treturn v * %d\n}\n", k, k, k, k+3)
	}
	second.WriteString("package client\n")
	for k := range 100 {
		fmt.Fprintf(&second, "\n// Send%d sends the request, case %d.\nfunc Send%d(v int) int {\n\tw := v + %d\n\treturn w\n}\n", k, k, k, k)
	}
	files := map[string]string{"retry/retry.go": best.String(), "client/client.go": second.String()}
	addSenders(files)
	ix, read := memIndex(t, files)
	c := testCounter(t)
	const budget = 2700
	// pack returns whether the best file is whole, its tokens and the
	// second file's, with the second scoring rel of the best.
	pack := func(rel float64) (whole bool, bestTokens, secondTokens int) {
		t.Helper()
		// The others are breadth, below the second at either score.
		p := packScored(t, ix, read, c, budget, bestAndSecond("client/client.go", rel, 0.15))
		for _, v := range p.views {
			switch v.path {
			case "retry/retry.go":
				whole, bestTokens = v.gran == GranWhole, v.tokens
			case "client/client.go":
				secondTokens = v.tokens
			}
		}
		return whole, bestTokens, secondTokens
	}
	whole, wholeTokens, far := pack(0.2)
	if !whole {
		t.Fatalf("second file at 0.2 of the best: the best file is not whole; the case needs one that fits most of the room")
	}
	if wholeTokens < budget/2 {
		t.Fatalf("the best file is %d tokens whole; the case needs more than half the budget", wholeTokens)
	}
	// The best file may still go in whole after depth, from what breadth
	// would spend (packWhole); the second keeps its depth share.
	_, _, near := pack(0.95)
	if near < budget/6 {
		t.Errorf("second file at 0.95 of the best shows %d tokens, want at least %d", near, budget/6)
	}
	t.Logf("best file whole: %d tokens; second file: %d tokens at 0.95 of the best, %d at 0.2", wholeTokens, near, far)
}

// TestWholePass: a first-ranked file shown as excerpts goes in whole when
// what depth left holds it (packWhole), charged to the free pool; one that
// does not fit, and a test the task does not name, keep their excerpts.
func TestWholePass(t *testing.T) {
	var src strings.Builder
	src.WriteString("package cfg\n")
	for k := range 12 {
		fmt.Fprintf(&src, "\n// Parse%d reads line %d of the config.\nfunc Parse%d(line string) string {\n\treturn line // parse the config line\n}\n", k, k, k)
	}
	files := map[string]string{"cfg/config.go": src.String(), "cfg/config_test.go": strings.Replace(src.String(), "package cfg", "package cfg // tests", 1)}
	ix, read := memIndex(t, files)
	c := testCounter(t)
	for _, tc := range []struct {
		name, path string
		free       int
		whole      bool
	}{
		{"fits", "cfg/config.go", 5000, true},
		{"does not fit", "cfg/config.go", 20, false},
		{"a test stays breadth", "cfg/config_test.go", 5000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, rk, _, err := prepare(context.Background(), ix, "Parse3 drops the config line", c, &SelectOptions{Budget: 8000, ReadFile: read})
			if err != nil {
				t.Fatal(err)
			}
			var r *ranked
			for k := range rk {
				if ix.Files[rk[k].file].Path == tc.path {
					r = &rk[k]
				}
			}
			if r == nil {
				t.Fatalf("%s not ranked", tc.path)
			}
			p.reset()
			v := p.viewWithin(r, 120, allUnits)
			if v == nil || v.gran == GranWhole {
				t.Fatalf("no excerpt view of %s within 120 tokens: %+v", tc.path, v)
			}
			p.views = []*view{v}
			l := &ledger{free: tc.free}
			p.packWhole([]*ranked{r}, l)
			got := p.views[0]
			if (got.gran == GranWhole) != tc.whole {
				t.Fatalf("whole = %v, want %v", got.gran == GranWhole, tc.whole)
			}
			if want := tc.free - (got.tokens - v.tokens); l.free != want || l.spent.whole != got.tokens-v.tokens {
				t.Errorf("free %d, spent %d; want %d, %d", l.free, l.spent.whole, want, got.tokens-v.tokens)
			}
		})
	}
}

// TestBreadthNeedsTwoWords: a breadth excerpt must hold minBreadthWords
// of the task's words: a file whose best definition shares one word with
// the task gets no breadth view, one sharing two does.
func TestBreadthNeedsTwoWords(t *testing.T) {
	filler := strings.Repeat("\t_ = \"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda\"\n", 60)
	files := map[string]string{
		"top/top.go": "package top\n\n// Rewind rewinds the request body before a retry.\nfunc Rewind() {}\n",
		"one/one.go": "package one\n\n// Body is one word.\nfunc Body() {\n" + filler + "}\n\nfunc Other() {\n" + filler + "}\n",
		"two/two.go": "package two\n\n// Retry the body.\nfunc RetryBody() {\n" + filler + "}\n\nfunc Other() {\n" + filler + "}\n",
	}
	ix, read := memIndex(t, files)
	c := testCounter(t)
	p, rk, _, err := prepare(context.Background(), ix, "rewind the request body before a retry", c, &SelectOptions{Budget: 2500, ReadFile: read})
	if err != nil {
		t.Fatal(err)
	}
	p.reset()
	for k := range rk {
		path := ix.Files[rk[k].file].Path
		v := p.breadthView(&rk[k], 400)
		switch path {
		case "one/one.go":
			if v != nil {
				t.Errorf("%s: breadth view %v lines %v, want none (one shared word)", path, v.gran, v.ranges)
			}
		case "two/two.go":
			if v == nil || v.gran != GranDefinitions {
				t.Errorf("%s: breadth view %+v, want excerpts (two shared words)", path, v)
			}
		}
	}
}
