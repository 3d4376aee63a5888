package index

import (
	"strings"
	"testing"
)

func TestPatternsMatch(t *testing.T) {
	paths := []string{"main.go", "main_test.go", "pkg/api/api.go", "pkg/api/api_test.go", "docs/guide.md", "web/docs/x.md", "cmd/tool/main.go", "tools/cmd/x.go", "#notes.md", "pages/[id].tsx", "pages/i.tsx", "routes/[...slug]/page.ts"}
	tests := []struct {
		patterns []string
		want     []string // the paths that match
	}{
		{[]string{"*_test.go"}, []string{"main_test.go", "pkg/api/api_test.go"}},
		{[]string{"docs/"}, []string{"docs/guide.md", "web/docs/x.md"}},
		{[]string{"/docs"}, []string{"docs/guide.md"}},
		{[]string{"cmd"}, []string{"cmd/tool/main.go", "tools/cmd/x.go"}},
		{[]string{"/cmd"}, []string{"cmd/tool/main.go"}},
		{[]string{"pkg/**/*.go"}, []string{"pkg/api/api.go", "pkg/api/api_test.go"}},
		{[]string{"pkg/", "!pkg/api/api.go"}, []string{"pkg/api/api.go", "pkg/api/api_test.go"}}, // as in git: not under a matched directory
		{[]string{"*.go", "!*_test.go"}, []string{"main.go", "pkg/api/api.go", "cmd/tool/main.go", "tools/cmd/x.go"}},
		{[]string{`\#notes.md`}, []string{"#notes.md"}},
		{[]string{"pages/[id].tsx"}, []string{"pages/[id].tsx", "pages/i.tsx"}}, // the class, and the path it spells
		{[]string{"/routes/[...slug]/"}, []string{"routes/[...slug]/page.ts"}},
		{[]string{"pages/", "!pages/[id].tsx"}, []string{"pages/[id].tsx", "pages/i.tsx"}}, // as in git: not under a matched directory
		{[]string{"*.tsx", "!pages/[id].tsx"}, nil},
		{[]string{"*.md", "!/web"}, []string{"docs/guide.md", "#notes.md"}},
		{nil, nil},
	}
	for _, tc := range tests {
		ps, err := ParsePatterns(tc.patterns)
		if err != nil {
			t.Fatalf("%q: %v", tc.patterns, err)
		}
		if ps.Empty() != (len(tc.patterns) == 0) {
			t.Errorf("%q: Empty() = %v", tc.patterns, ps.Empty())
		}
		var got []string
		for _, p := range paths {
			if ps.Match(p) {
				got = append(got, p)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q matches %q, want %q", tc.patterns, got, tc.want)
		}
	}
}

func TestParsePatternsErrors(t *testing.T) {
	for _, p := range []string{"", "  ", "#x", "a\nb"} {
		if _, err := ParsePatterns([]string{"*.go", p}); err == nil {
			t.Errorf("ParsePatterns(%q) accepted it", p)
		} else if !strings.Contains(err.Error(), "pattern") {
			t.Errorf("ParsePatterns(%q): %v does not say which pattern", p, err)
		}
	}
}

// FuzzPatterns: any pattern and path parse or fail cleanly, never panic,
// and a pattern that is the path itself matches it.
func FuzzPatterns(f *testing.F) {
	f.Add("*_test.go", "a/b_test.go")
	f.Add("!x/", "x/y")
	f.Add("a/**/b", "a/c/d/b/e.go")
	f.Add("[a-", "[a-")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		ps, err := ParsePatterns([]string{pattern})
		if err != nil {
			return
		}
		ps.Match(path)
		lit := strings.Trim(path, "/")
		plain := func(r rune) bool {
			return r == '.' || r == '_' || r == '-' || r == '/' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
		}
		if lit == "" || strings.IndexFunc(lit, func(r rune) bool { return !plain(r) }) >= 0 || strings.Contains(lit, "//") {
			return // a path that is not a literal pattern of itself
		}
		if ps2, err := ParsePatterns([]string{lit}); err != nil || !ps2.Match(lit) {
			t.Errorf("pattern %q does not match its own path (err %v)", lit, err)
		}
	})
}
