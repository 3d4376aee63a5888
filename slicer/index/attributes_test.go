package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinguistOf pins the resolution of linguist attributes: values as
// linguist reads them, git's precedence, and "!attr".
func TestLinguistOf(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	root := readAttributes(write("root", strings.Join([]string{
		"*.go linguist-generated",
		"a.go linguist-generated=false",
		"b.go linguist-generated=yes",
		"c.go -linguist-generated",
		"d.go !linguist-generated",
		"lib/** linguist-vendored linguist-documentation",
		"lib/own/** linguist-vendored=false",
		"*.txt text eol=lf",
		"lib/ linguist-generated", // a directory pattern: no file takes it, as in git
	}, "\n")), nil, ".gitattributes")
	sub := readAttributes(write("sub", "e.go -linguist-generated\r\n"), []string{"sub"}, "sub/.gitattributes")
	info := readAttributes(write("info", "lib/own/x.js linguist-vendored\n"), nil, ".git/info/attributes")
	if len(root) != 7 {
		t.Errorf("root rules = %d, want 7 (the line without a linguist attribute and the directory pattern dropped)", len(root))
	}
	tree := append(append([]attrRule{}, root...), sub...)
	const T, F = attrTrue, attrFalse
	for _, tc := range []struct {
		path     string
		want     [3]tristate // vendored, generated, documentation
		wantFrom string      // src of the first true attribute, if any
	}{
		{"x.go", [3]tristate{0, T, 0}, ".gitattributes"},
		{"a.go", [3]tristate{0, F, 0}, ""},
		{"b.go", [3]tristate{0, T, 0}, ".gitattributes"},
		{"c.go", [3]tristate{0, F, 0}, ""},
		{"d.go", [3]tristate{0, 0, 0}, ""},
		{"sub/e.go", [3]tristate{0, F, 0}, ""},
		{"sub/f.go", [3]tristate{0, T, 0}, ".gitattributes"},
		{"lib/y.js", [3]tristate{T, 0, T}, ".gitattributes"},
		{"lib/own/y.js", [3]tristate{F, 0, T}, ".gitattributes"},
		{"lib/own/x.js", [3]tristate{T, 0, T}, ".git/info/attributes"},
		{"notes.txt", [3]tristate{}, ""},
	} {
		l := linguistOf(info, tree, strings.Split(tc.path, "/"))
		if l.state != tc.want {
			t.Errorf("%s: states %v, want %v", tc.path, l.state, tc.want)
		}
		from := ""
		for k := range l.state {
			if l.state[k] == attrTrue {
				from = l.src[k]
				break
			}
		}
		if from != tc.wantFrom {
			t.Errorf("%s: decided by %q, want %q", tc.path, from, tc.wantFrom)
		}
	}
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{"lib", true},     // lib/own/** may match below lib/
		{"lib/own", true}, // and below lib/own/
		{"lib/own/x", true},
		{"lib/theirs", false},
		{"node_modules", false},
		{"vendor", false},
	} {
		if got := unvendors(nil, root, strings.Split(tc.dir, "/")); got != tc.want {
			t.Errorf("unvendors(root, %s) = %v, want %v", tc.dir, got, tc.want)
		}
	}
	if unvendors(info, sub, []string{"lib"}) {
		t.Errorf("unvendors(info, sub): no rule there sets linguist-vendored false")
	}
	for _, tc := range []struct {
		name, domain, dir string
		want              bool
	}{
		{"*.go", "", "vendor/x", true},         // a base-name pattern matches anywhere
		{"/ours.go", "", "vendor", false},      // anchored at the root, one component
		{"vendor/ours/**", "", "vendor", true}, //
		{"vendor/ours/**", "", "node_modules", false},
		{"**/ours/*", "", "node_modules", true}, // ** may skip any directories
		{"ours/**", "vendor", "vendor/ours/deep", true},
		{"ours/**", "vendor", "third_party/ours", false}, // another directory's file
		{"ours/**", "a/b", "a", true},                    // a rule below dir
		{"[/x", "", "vendor", false},                     // a bad pattern matches nothing
	} {
		var domain []string
		if tc.domain != "" {
			domain = strings.Split(tc.domain, "/")
		}
		if got := mayMatchUnder(tc.name, domain, strings.Split(tc.dir, "/")); got != tc.want {
			t.Errorf("mayMatchUnder(%q in %q, %s) = %v, want %v", tc.name, tc.domain, tc.dir, got, tc.want)
		}
	}
}

// FuzzReadAttributes feeds any text to readAttributes and matches a few
// paths: no panic (go-git parses the lines), and every state is one of
// the three.
func FuzzReadAttributes(f *testing.F) {
	for _, s := range []string{
		"*.go linguist-generated\n",
		"\"quoted name\" linguist-vendored=false\n",
		"\"\" linguist-documentation\n",
		"\"unterminated linguist-vendored\n",
		"[attr]m linguist-vendored\n",
		"- linguist-\n",
		"/vendor/**/x/[a -linguist-vendored\n",
		"a/**/b !linguist-generated -linguist-vendored linguist-documentation=\n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(dir, "attrs")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		rules := readAttributes(p, []string{"d"}, "d/.gitattributes")
		for _, path := range []string{"d/a.go", "d/a/b", "x.go", "d/vendor/x/y.js"} {
			comps := strings.Split(path, "/")
			unvendors(rules, rules, comps[:len(comps)-1])
			l := linguistOf(nil, rules, comps)
			for _, s := range l.state {
				if s < attrFalse || s > attrTrue {
					t.Fatalf("%s: state %d", path, s)
				}
			}
		}
	})
}
