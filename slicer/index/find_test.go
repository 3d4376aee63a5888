package index

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FindFiles is held to ListFiles on every index scenario by checkFindFiles
// (walk_test.go); these tests cover the pattern classification and errors.

func TestPlacePattern(t *testing.T) {
	tests := []struct {
		pattern string
		want    placedPattern
	}{
		{"AGENTS.md", placedPattern{kind: literalPath, path: "AGENTS.md"}},
		{".github/copilot-instructions.md", placedPattern{kind: literalPath, path: ".github/copilot-instructions.md"}},
		{`a\*b/c\?.md`, placedPattern{kind: literalPath, path: "a*b/c?.md"}},
		{"prompts/**", placedPattern{kind: underDir, base: "prompts"}},
		{"docs/prompts/*.md", placedPattern{kind: underDir, base: "docs/prompts"}},
		{"**/CLAUDE.md", placedPattern{kind: nameInDirs, name: "CLAUDE.md", anyDir: true}},
		{"**/a/CLAUDE.md", placedPattern{kind: nameInDirs, name: "CLAUDE.md"}},
		{`*/x\[1\].md`, placedPattern{kind: nameInDirs, name: "x[1].md"}},
		{"**/*.md", placedPattern{kind: anywhere}},
		{"**", placedPattern{kind: anywhere}},
		{"*.md", placedPattern{kind: anywhere}},
		{"{a,b}/x.md", placedPattern{kind: anywhere}},
		{"docs/{a,b/c}/x.md", placedPattern{kind: underDir, base: "docs"}},
		{"docs/x{a,b}.md", placedPattern{kind: underDir, base: "docs"}},
	}
	for _, tc := range tests {
		got := placePattern(tc.pattern)
		tc.want.pattern = tc.pattern
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(placedPattern{})); diff != "" {
			t.Errorf("placePattern(%q) (-want +got):\n%s", tc.pattern, diff)
		}
	}
}

func TestFindFilesBadPattern(t *testing.T) {
	if _, err := FindFiles(context.Background(), &Options{Dir: t.TempDir()}, []string{"a/[b"}); err == nil {
		t.Error("FindFiles accepted the pattern a/[b")
	}
}
