package slicer

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// unquotePath reverses QuotePath.
func unquotePath(t *testing.T, p string) string {
	t.Helper()
	if !strings.HasPrefix(p, `"`) {
		return p
	}
	u, err := strconv.Unquote(p)
	if err != nil {
		t.Fatalf("path %q: not a quoted string: %v", p, err)
	}
	return u
}

// TestUnusualPathsQuoted: git allows a tab, a newline or invalid UTF-8 in
// a file name. Written raw they split the markdown header, the paths
// format's path<TAB>ranges and the map's path line, so tools read another
// path (before: "new" and "line.go" on two lines); quoted, every format's
// lines parse and give back the file's path. JSON keeps the path as is.
func TestUnusualPathsQuoted(t *testing.T) {
	names := []string{"new\nline.go", "we\tird.go", `"quoted".go`, "bad\xffname.go", "sp ace é.go", "plain.go"}
	files := map[string]string{}
	for k, n := range names {
		files[n] = "package p\n\n// Retry" + strconv.Itoa(k) + " retries the request.\nfunc Retry" + strconv.Itoa(k) + "() error {\n\treturn nil\n}\n"
	}
	ix, read := memIndex(t, files)
	c := testCounter(t)
	header := regexp.MustCompile(`^## (.+):([0-9,-]+) \((whole file|excerpts), [0-9]+ lines\)$`)
	xmlPath := regexp.MustCompile(`^<file path="([^"]*)" lines="([0-9,-]+)"`)
	for _, budget := range []int{4000, 240} { // all shown; three only in the map
		for _, format := range formats {
			sel, err := Select(context.Background(), ix, "retry the request", c, &SelectOptions{Budget: budget, Format: format, ReadFile: read})
			if err != nil {
				t.Fatal(err)
			}
			quotedInMap := 0
			var got []string // the paths the text shows, in order
			switch format {
			case FormatPaths:
				for _, line := range strings.Split(strings.TrimSuffix(sel.Text, "\n"), "\n") {
					p, ranges, ok := strings.Cut(line, "\t")
					if !ok || strings.Contains(ranges, "\t") {
						t.Fatalf("paths line %q: want one path<TAB>ranges", line)
					}
					got = append(got, unquotePath(t, p))
				}
			case FormatMarkdown:
				inMap := false
				for _, line := range strings.Split(sel.Text, "\n") {
					switch {
					case strings.HasPrefix(line, "## Signatures of other relevant files"):
						inMap = true
					case inMap && strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " "):
						if strings.HasPrefix(line, `"`) {
							quotedInMap++
						}
						p := unquotePath(t, strings.TrimSuffix(line, ":"))
						if _, ok := files[p]; !ok {
							t.Errorf("map line %q: no such file", line)
						}
					case strings.HasPrefix(line, "## "):
						m := header.FindStringSubmatch(line)
						if m == nil {
							t.Fatalf("header %q does not parse", line)
						}
						got = append(got, unquotePath(t, m[1]))
					}
				}
			case FormatXML:
				for _, line := range strings.Split(sel.Text, "\n") {
					if m := xmlPath.FindStringSubmatch(line); m != nil {
						got = append(got, unquotePath(t, strings.ReplaceAll(m[1], "&quot;", `"`)))
					}
				}
			case FormatJSON:
				checkJSONDoc(t, sel)
				continue
			}
			if budget == 240 && format == FormatMarkdown && quotedInMap == 0 {
				t.Errorf("budget %d: no quoted path in the map (%d entries); the test needs one", budget, len(sel.Map))
			}
			var want []string
			for _, f := range sel.Files {
				want = append(want, f.Path)
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s at %d: the text shows %q, the selection %q", format, budget, got, want)
			}
			if budget == 4000 && len(want) != len(names) {
				t.Errorf("%s at %d: %d files shown, want all %d", format, budget, len(want), len(names))
			}
		}
	}
}

// FuzzQuotePath: a written path holds no control character and is valid
// UTF-8, and reads back as the path.
func FuzzQuotePath(f *testing.F) {
	for _, s := range []string{"a.go", "new\nline.go", "we\tird", `"q"`, "bad\xff", "é", "\x7f", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		q := QuotePath(p)
		if !utf8.ValidString(q) || strings.IndexFunc(q, unicode.IsControl) >= 0 {
			t.Fatalf("QuotePath(%q) = %q: control character or invalid UTF-8", p, q)
		}
		if q != p {
			if u, err := strconv.Unquote(q); err != nil || u != p {
				t.Fatalf("QuotePath(%q) = %q reads back as %q (%v)", p, q, u, err)
			}
		}
	})
}

// TestOutlineProperty: for a task that reaches no file, over random
// repositories and budgets, every format gives an outline (no content),
// the same map but for JSON (sized by its own text too), and the prompt
// formats stay within the budget.
func TestOutlineProperty(t *testing.T) {
	c := testCounter(t)
	r := rand.New(rand.NewPCG(11, 12))
	outlined := 0
	for trial := 0; trial < 12; trial++ {
		files := linkedRepo(r, 5+r.IntN(30))
		ix, read := memIndex(t, files)
		budget := 150 + r.IntN(5000)
		var first, firstFormat string
		for _, format := range formats {
			sel, err := Select(context.Background(), ix, "请修复它", c, &SelectOptions{Budget: budget, Format: format, ReadFile: read})
			if errors.Is(err, ErrTaskTooLarge) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(sel.Files) != 0 || sel.Omitted != 0 {
				t.Fatalf("trial %d, %s at %d: %d files shown, %d omitted; an outline shows none", trial, format, budget, len(sel.Files), sel.Omitted)
			}
			if !sel.Unmatched && len(sel.Map) > 0 {
				t.Fatalf("trial %d, %s: a map without Unmatched", trial, format)
			}
			if promptFormat(format) && c.Count(sel.Text) > budget {
				t.Fatalf("trial %d, %s: %d tokens > budget %d", trial, format, c.Count(sel.Text), budget)
			}
			if format == FormatJSON {
				continue
			}
			got := ""
			for _, m := range sel.Map {
				got += m.Path + " "
			}
			if firstFormat == "" {
				first, firstFormat = got, format
				if got != "" {
					outlined++
				}
			} else if got != first {
				t.Fatalf("trial %d at %d: %s maps %q, %s %q", trial, budget, format, got, firstFormat, first)
			}
		}
	}
	if outlined < 8 {
		t.Errorf("only %d of 12 trials gave an outline", outlined)
	}
}

// linkedRepo generates n Go files whose functions call functions of the
// others, so that the reference graph ranks them; the words are English,
// so a task in another language reaches none.
func linkedRepo(r *rand.Rand, n int) map[string]string {
	defs := make([]int, n) // functions per file
	for i := range defs {
		defs[i] = 1 + r.IntN(6)
	}
	files := map[string]string{}
	for i := 0; i < n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package p\n\n")
		for k := 0; k < defs[i]; k++ {
			fmt.Fprintf(&b, "// Handle%d_%d handles a request.\nfunc Handle%d_%d(x int) int {\n", i, k, i, k)
			for l := 0; l < r.IntN(6); l++ {
				j := r.IntN(min(n, 1+r.IntN(n))) // low-numbered files are called most
				fmt.Fprintf(&b, "\tx += Handle%d_%d(x)\n", j, r.IntN(defs[j]))
			}
			b.WriteString("\treturn x\n}\n\n")
		}
		files[fmt.Sprintf("h%02d.go", i)] = b.String()
	}
	return files
}

// TestTwinsNotLeftOut: a twin of a file shown (twins.txtar) is not listed
// among the files left out, where an agent would ask for it next, nor
// counted as omitted.
func TestTwinsNotLeftOut(t *testing.T) {
	ar := txtar.Parse([]byte("symlink CLAUDE.md AGENTS.md\n-- AGENTS.md --\n# Pull requests\n\nRun the unit tests first.\n-- docs/copy.md --\n# Pull requests\n\nRun the unit tests first.\n"))
	dir := txtartest.Repo(t, ar)
	ix, err := index.New(context.Background(), &index.Options{Dir: dir, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(context.Background(), ix, "run the unit tests before a pull request", testCounter(t), &SelectOptions{Budget: 2000, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Files) != 1 || sel.Omitted != 0 || len(sel.Candidates) != 0 {
		t.Errorf("files %v, omitted %d, left out %v; want one file, its twins neither omitted nor left out", sel.Files, sel.Omitted, sel.Candidates)
	}
	if !strings.Contains(sel.Note, "have the same content as") {
		t.Errorf("note %q names no twin", sel.Note)
	}
}

// decodeXML reads text with encoding/xml, every token, and fails t
// unless it is one document: a single root element, nothing but white
// space around it. It returns the character data of each file element,
// in order.
func decodeXML(t testing.TB, text string) (files []string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(text))
	depth, roots := 0, 0
	var inFile *strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("xml format: %v in\n%s", err, text)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
			if tok.Name.Local == "file" {
				inFile = &strings.Builder{}
			}
		case xml.EndElement:
			depth--
			if tok.Name.Local == "file" {
				files = append(files, inFile.String())
				inFile = nil
			}
		case xml.CharData:
			if inFile != nil {
				inFile.Write(tok)
			} else if depth == 0 && strings.TrimSpace(string(tok)) != "" {
				t.Fatalf("xml format: text %q outside the root", tok)
			}
		}
	}
	if roots != 1 || depth != 0 {
		t.Fatalf("xml format: %d root elements, depth %d at the end; want one root, closed", roots, depth)
	}
	return files
}

// asXMLReads is s as an XML parser gives it back: what xmlChars keeps,
// line ends normalized (XML 1.0, section 2.11).
func asXMLReads(s string) string {
	s = strings.ReplaceAll(xmlChars(s), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// xmlAdversaries are file contents and paths that broke the xml format:
// markup characters, a CDATA end, control characters and bytes that are
// not UTF-8, quotes and markup in paths.
var xmlAdversaries = map[string]string{
	"retry/and.go":        "package retry\n\n// Retry retries when a && b < c.\nfunc Retry(a, b bool, c int) bool { return a && b || c < 3 }\n",
	"retry/cdata.go":      "package retry\n\n// RetryCDATA holds a CDATA end.\nvar RetryCDATA = \"]]> and ]]]> and <![CDATA[ and </file>\"\n",
	"retry/control.go":    "package retry\n\n// RetryControl holds control bytes.\nvar RetryControl = \"\x01\x08\x0b\x0c\x1b[0m\x7f\r\n\ufffe\"\n",
	"retry/bad.go":        "package retry\n\n// RetryBad holds bytes that are not UTF-8.\nvar RetryBad = \"\xff\xfe\xc3\"\n",
	`retry/"q" & <x>.go`:  "package retry\n\n// RetryQuoted retries a request.\nfunc RetryQuoted() {}\n",
	"retry/it's\ufffe.go": "package retry\n\n// RetryApostrophe retries a request.\nfunc RetryApostrophe() {}\n",
	"retry/ctl\x01.go":    "package retry\n\n// RetryCtl retries a request.\nfunc RetryCtl() {}\n",
}

// TestXMLWellFormed: the xml format is one XML document whatever the
// files hold (xmlAdversaries) and whatever the task says, at budgets that
// show every file whole, some as excerpts, and some only in the map; each
// file element reads back as the file's content, its path attribute as
// its path, and the text as written fits the budget.
func TestXMLWellFormed(t *testing.T) {
	ix, read := memIndex(t, xmlAdversaries)
	ix.Root = "/mem/re\x01po <&>" // the note names it
	c := testCounter(t)
	task := "retry: a && b < c, ]]> in a string, \x01 a control byte, \xff a byte, <task> a tag"
	for _, budget := range []int{4000, 600, 300} {
		for _, noTask := range []bool{false, true} {
			sel, err := Select(context.Background(), ix, task, c, &SelectOptions{Budget: budget, Format: FormatXML, ReadFile: read, NoTask: noTask})
			if err != nil {
				t.Fatal(err)
			}
			if n := c.Count(sel.Text); n > budget || n != sel.Tokens {
				t.Errorf("budget %d: the text as written counts %d, Tokens %d", budget, n, sel.Tokens)
			}
			if budget == 4000 && len(sel.Files) != len(xmlAdversaries) {
				t.Errorf("budget %d: %d files shown, want all %d", budget, len(sel.Files), len(xmlAdversaries))
			}
			got := decodeXML(t, sel.Text)
			var want []string
			for _, f := range sel.Files {
				want = append(want, "\n"+asXMLReads(f.Content))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("budget %d: file contents as XML reads them (-want +got):\n%s", budget, diff)
			}
			d := xml.NewDecoder(strings.NewReader(sel.Text))
			var doc struct {
				XMLName xml.Name `xml:"context"`
				Task    string   `xml:"task"`
				Files   []struct {
					Path string `xml:"path,attr"`
				} `xml:"file"`
			}
			if err := d.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			if wantTask := "\n" + asXMLReads(task) + "\n"; !noTask && doc.Task != wantTask {
				t.Errorf("task reads back as %q, want %q", doc.Task, wantTask)
			}
			for k, f := range doc.Files {
				if p := unquotePath(t, f.Path); p != sel.Files[k].Path {
					t.Errorf("path attribute %q reads back as %q, want %q", f.Path, p, sel.Files[k].Path)
				}
			}
		}
	}
}

// FuzzRenderXML: whatever a file, its path, a signature and the task
// hold, the xml format decodes as one XML document and a file element
// reads back as the file's content.
func FuzzRenderXML(f *testing.F) {
	for _, s := range xmlAdversaries {
		f.Add(s, "a.go", "func F()", "fix it")
	}
	f.Add("]]]]>>", `"q".go`, "]]>", "]]>")
	f.Add("\x00\xff\ufffe\ufffd\r", "\x01", "\x1b", "\xc3")
	f.Fuzz(func(t *testing.T, body, p, sig, task string) {
		ix := &index.Index{Root: "/mem/" + p} // the note names it
		r := newRenderer(FormatXML, task, ix)
		v := &view{path: p, body: body, gran: GranWhole, ranges: []LineRange{{1, 1}}, lines: 1}
		m := &mapEntry{path: p, sigs: []string{sig}}
		text := r.render(page{views: []*view{v}, maps: []*mapEntry{m}, omitted: 1})
		got := decodeXML(t, text)
		if len(got) != 1 || got[0] != "\n"+asXMLReads(body) {
			t.Fatalf("file content reads back as %q, want %q", got, "\n"+asXMLReads(body))
		}
	})
}

// TestJSONFitsBudget: the JSON document as emitted is within the budget,
// and Tokens is its exact count, over random repositories and budgets
// (before: sized by the markdown prompt, its escapes took it up to a
// fifth over). It holds what it says: its files' content, each entry
// once.
func TestJSONFitsBudget(t *testing.T) {
	c := testCounter(t)
	r := rand.New(rand.NewPCG(60, 19))
	shown := 0
	for trial := 0; trial < 10; trial++ {
		files := randomRepo(r, 5+r.IntN(30))
		ix, read := memIndex(t, files)
		task := propertyTasks[r.IntN(len(propertyTasks))]
		for _, budget := range []int{300 + r.IntN(700), 1000 + r.IntN(3000), 4000 + r.IntN(8000)} {
			sel, err := Select(context.Background(), ix, task, c, &SelectOptions{Budget: budget, Format: FormatJSON, ReadFile: read})
			if errors.Is(err, ErrTaskTooLarge) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := c.Count(sel.Text); n > budget || n != sel.Tokens {
				t.Fatalf("trial %d at %d: the JSON as emitted counts %d, Tokens %d", trial, budget, n, sel.Tokens)
			}
			checkJSONDoc(t, sel)
			shown += len(sel.Files)
		}
	}
	if shown < 30 {
		t.Errorf("only %d files shown over all trials; the test needs content to escape", shown)
	}
}
