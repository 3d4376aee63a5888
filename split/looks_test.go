package split

import (
	"os"
	"strings"
	"testing"
)

// TestLooksLikeDiff: a diff is detected from real headers at line starts
// in diff order, from the start of the input. Before, any "diff " or
// "--- "/"+++ "/"@@" lines anywhere made an input a diff: 400 go-git
// sources, whose tests hold patches as fixtures, were split as a diff and
// failed with a line that "needs 450364 tokens of headers".
func TestLooksLikeDiff(t *testing.T) {
	gitDiff := "diff --git a/x.go b/x.go\nindex 1234567..89abcde 100644\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n"
	fixture := "package diff\n\nconst patch = `\n" + gitDiff + "`\n"
	gogit, err := os.ReadFile("testdata/gogit-v5.11.0-v5.12.0-plumbing.diff")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"git diff", gitDiff, true},
		{"go-git release diff", string(gogit), true},
		{"diff -u", "--- a.txt\t2024-01-01 00:00:00\n+++ b.txt\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n", true},
		{"diff -ru", "diff -ru a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", true},
		{"after blank lines", "\n\n" + gitDiff, true},
		{"CRLF", strings.ReplaceAll(gitDiff, "\n", "\r\n"), true},
		{"new file", "diff --git a/n b/n\nnew file mode 100644\nindex 0000000..e69de29\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n", true},
		{"mode change only", "diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n", true},
		{"rename only, then a file", "diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n" + gitDiff, true},
		{"binary", "diff --git a/p.png b/p.png\nindex 1..2 100644\nBinary files a/p.png and b/p.png differ\n", true},
		{"git log -p", "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A <a@b>\nDate:   Mon Jan 1 00:00:00 2024\n\n    fix x\n\n" + gitDiff, true},
		{"git log -p from a merge", "commit 0123456789abcdef0123456789abcdef01234567\nMerge: 1 2\n\n    merge\n\ncommit 89abcdef0123456789abcdef0123456789abcdef\n\n    fix\n\n" + gitDiff, true},
		{"format-patch", "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nSubject: [PATCH] fix\n\nbody\n---\n x.go | 2 +-\n\n" + gitDiff + "-- \n2.40.0\n", true},
		{"Go source with a patch fixture", fixture, false},
		{"Go source files concatenated", strings.Repeat(fixture, 50), false},
		{"text, then a diff", "Please review:\n\n" + gitDiff, false},
		{"a diff line without a hunk", "diff between the two runs:\nthe second is faster\n", false},
		{"headers out of order", "+++ b/x\n--- a/x\n@@ -1 +1 @@\n", false},
		{"bad hunk header", "--- a/x\n+++ b/x\n@@ nope @@\n", false},
		{"git log without patches", "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A <a@b>\n\n    fix\n", false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := LooksLikeDiff(tc.text); got != tc.want {
				t.Errorf("LooksLikeDiff = %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzLooksLikeDiff: a text detected as a diff parses into units of which
// one is a diff file, and the units tile the text.
func FuzzLooksLikeDiff(f *testing.F) {
	f.Add("diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
	f.Add("commit 0123456789abcdef0123456789abcdef01234567\n\n    m\n\n--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n")
	f.Add("package x\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n")
	f.Add("diff --git a/a b/b\nrename from a\nrename to b\n")
	f.Fuzz(func(t *testing.T, text string) {
		if !LooksLikeDiff(text) {
			return
		}
		units := parseDiff(text, 0)
		files, end := 0, 0
		for _, u := range units {
			if u.start != end {
				t.Fatalf("units do not tile the text: a unit starts at %d, the previous ended at %d", u.start, end)
			}
			end = u.end
			if u.kind == unitDiffFile {
				files++
			}
		}
		if end != len(text) {
			t.Fatalf("units end at %d of %d", end, len(text))
		}
		if files == 0 {
			t.Fatalf("detected as a diff, but no file section parsed: %q", text)
		}
	})
}
