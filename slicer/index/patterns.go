package index

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Patterns are gitignore-syntax patterns matched against indexed paths as
// the lines of a .ctxtrimignore at the root are: "*_test.go" matches at
// any depth, "docs/" every file under a directory named docs, "/cmd" only
// the top-level one, "pkg/**/api" through any directories, and a "!" line
// takes back what an earlier one matched (though not under a matched
// directory, as in git). A pattern also matches the path it spells
// literally ("pages/[id].tsx" that file, not pages/i.tsx). The same
// rules, one implementation.
type Patterns struct {
	rules []ignoreRule
}

// ParsePatterns parses one pattern per string. An empty pattern, or one
// that gitignore would read as a comment, is an error.
func ParsePatterns(patterns []string) (Patterns, error) {
	var ps Patterns
	for _, p := range patterns {
		switch {
		case strings.TrimSpace(p) == "":
			return Patterns{}, fmt.Errorf("pattern %q: empty; give a gitignore pattern such as *_test.go or docs/", p)
		case strings.HasPrefix(p, "#"):
			return Patterns{}, fmt.Errorf("pattern %q: a # starts a comment in gitignore syntax; write \\# for a name that begins with #", p)
		case strings.ContainsAny(p, "\n\r"):
			return Patterns{}, fmt.Errorf("pattern %q: one pattern per line", p)
		}
		ps.rules = append(ps.rules, ignoreRule{p: gitignore.ParsePattern(p, nil), src: p})
		if lit := escapeGlob(p); lit != p {
			// The path itself, too: a caller that names a file it has seen
			// (Next.js's pages/[id].tsx, SvelteKit's [...slug]) means that
			// file, not a character class.
			ps.rules = append(ps.rules, ignoreRule{p: gitignore.ParsePattern(lit, nil), src: p})
		}
	}
	return ps, nil
}

// escapeGlob escapes the glob characters of p after a leading "!", so that
// p matches the path it spells.
func escapeGlob(p string) string {
	neg := strings.HasPrefix(p, "!")
	body := strings.TrimPrefix(p, "!")
	if !strings.ContainsAny(body, `*?[\`) {
		return p
	}
	var b strings.Builder
	if neg {
		b.WriteByte('!')
	}
	for _, r := range body {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Empty reports whether there are no patterns.
func (ps Patterns) Empty() bool { return len(ps.rules) == 0 }

// Match reports whether the file at the slash-separated path, or a
// directory holding it, matches: the last pattern that matches decides.
func (ps Patterns) Match(path string) bool {
	comps := strings.Split(path, "/")
	for i := 1; i <= len(comps); i++ {
		if ok, _ := match(ps.rules, comps[:i], i < len(comps)); ok {
			return true
		}
	}
	return false
}
