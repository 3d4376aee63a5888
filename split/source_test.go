package split

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
)

// writeFiles writes name → content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// stage adds paths to the index of wt.
func stage(t *testing.T, wt *git.Worktree, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := wt.Add(p); err != nil {
			t.Fatal(err)
		}
	}
}

// hermeticGit points HOME and XDG_CONFIG_HOME at an empty directory, so the
// user's core.excludesFile does not leak into a test, and returns it.
func hermeticGit(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	return home
}

func TestReadFiles(t *testing.T) {
	hermeticGit(t)
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		".gitignore":     "gen/\n",
		"a/a.go":         "package a\n",
		"a/a_test.go":    "package a // test\n",
		"a/logo.png":     "PNG\x00\x01",
		"gen/gen.go":     "package gen\n",
		"b/b.txt":        "bee\n",
		"b/zero.bin":     "\x00",
		"c/latin1.txt":   "caf\xe9\n",
		"gen/other.data": "data\n",
	})
	tests := []struct {
		name        string
		patterns    []string
		keepIgnored bool
		want        []Source
		wantSkipped []Skip
		wantErr     string
	}{
		{"go files, ignored left out", []string{"**/*.go"}, false,
			[]Source{{"a/a.go", "package a\n"}, {"a/a_test.go", "package a // test\n"}},
			[]Skip{{"gen/gen.go", SkipIgnored}}, ""},
		{"keep ignored", []string{"**/*.go"}, true,
			[]Source{{"a/a.go", "package a\n"}, {"a/a_test.go", "package a // test\n"}, {"gen/gen.go", "package gen\n"}},
			nil, ""},
		{"binary left out, overlapping patterns read once", []string{"b/*", "a/*", "b/b.txt"}, false,
			[]Source{{"a/a.go", "package a\n"}, {"a/a_test.go", "package a // test\n"}, {"b/b.txt", "bee\n"}},
			[]Skip{{"a/logo.png", SkipBinary}, {"b/zero.bin", SkipBinary}}, ""},
		{"only ignored files match", []string{"gen/*"}, false, nil,
			[]Skip{{"gen/gen.go", SkipIgnored}, {"gen/other.data", SkipIgnored}}, "split: no file matches gen/*"},
		{"only binary files match", []string{"**/*.png", "**/*.bin"}, false, nil,
			[]Skip{{"a/logo.png", SkipBinary}, {"b/zero.bin", SkipBinary}}, "split: every file matching **/*.png, **/*.bin is binary or not UTF-8"},
		{"not UTF-8 left out, as the index leaves it out", []string{"c/*", "b/b.txt"}, false,
			[]Source{{"b/b.txt", "bee\n"}}, []Skip{{"c/latin1.txt", SkipNotUTF8}}, ""},
		{"no match", []string{"*.rs"}, false, nil, nil, "split: no file matches *.rs"},
		{"bad pattern", []string{"a/[x"}, false, nil, nil, `split: bad pattern "a/[x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, skipped, err := ReadFiles(dir, tc.patterns, tc.keepIgnored)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSkipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(Input{Kind: Files, Sources: tc.want}, in); diff != "" {
				t.Errorf("input (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadFilesIndexRules checks that -files leaves out what the index
// leaves out, by every rule in the chain: core.excludesFile (the XDG
// default), info/exclude, .gitignore (never hiding a tracked file) and
// .ctxtrimignore (hiding tracked files too), from the root or a
// subdirectory.
func TestReadFilesIndexRules(t *testing.T) {
	home := hermeticGit(t)
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		".gitignore":     "*.log\n",
		".ctxtrimignore": "docs/draft.md\nsub/big/\n",
		"main.go":        "package main\n",
		"keep.log":       "tracked before *.log was ignored\n",
		"docs/draft.md":  "tracked, hidden by .ctxtrimignore\n",
		"docs/guide.md":  "guide\n",
		"new.log":        "untracked, ignored\n",
		"secret.txt":     "in info/exclude\n",
		"scratch.tmp":    "in the global excludes file\n",
		"sub/a.txt":      "a\n",
		"sub/big/b.txt":  "under a .ctxtrimignore directory\n",
		"sub/c.txt":      "c\n",
	})
	writeFiles(t, home, map[string]string{".config/git/ignore": "*.tmp\n"})
	writeFiles(t, dir, map[string]string{".git/info/exclude": "secret.txt\n"})
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	stage(t, wt, ".gitignore", ".ctxtrimignore", "main.go", "keep.log", "docs/draft.md", "docs/guide.md")
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	if _, err := wt.Commit("first", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		dir         string // relative to the work tree
		patterns    []string
		keepIgnored bool
		want        []string // Source names
		wantSkipped []Skip
	}{
		{"every rule", ".", []string{"**/*"}, false,
			[]string{".ctxtrimignore", ".gitignore", "docs/guide.md", "keep.log", "main.go", "sub/a.txt", "sub/c.txt"},
			// In match order: doublestar lists a directory's files before
			// its subdirectories.
			[]Skip{{"new.log", SkipIgnored}, {"scratch.tmp", SkipIgnored}, {"secret.txt", SkipIgnored},
				{"docs/draft.md", SkipIgnored}, {"sub/big/b.txt", SkipIgnored}}},
		{"keep ignored", ".", []string{"*.txt", "*.tmp", "*.log"}, true,
			[]string{"keep.log", "new.log", "scratch.tmp", "secret.txt"}, nil},
		{"from a subdirectory", "sub", []string{"**/*.txt"}, false,
			[]string{"a.txt", "c.txt"}, []Skip{{"big/b.txt", SkipIgnored}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, skipped, err := ReadFiles(filepath.Join(dir, tc.dir), tc.patterns, tc.keepIgnored)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range in.Sources {
				got = append(got, s.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSkipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadFilesPlainDirectory checks that outside a work tree the
// .gitignore and .ctxtrimignore files still apply, as they do for the index.
func TestReadFilesPlainDirectory(t *testing.T) {
	hermeticGit(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".gitignore": "x.txt\n", ".ctxtrimignore": "y.txt\n", "x.txt": "x\n", "y.txt": "y\n", "z.txt": "z\n"})
	in, skipped, err := ReadFiles(dir, []string{"*.txt"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Input{Kind: Files, Sources: []Source{{"z.txt", "z\n"}}}, in); diff != "" {
		t.Errorf("input (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Skip{{"x.txt", SkipIgnored}, {"y.txt", SkipIgnored}}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

func TestStagedAndRangeDiff(t *testing.T) {
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}

	// Before the first commit every staged file is added.
	writeFiles(t, dir, map[string]string{"keep.txt": "same\n", "edit.txt": "one\ntwo\nthree\n", "gone.txt": "bye\n"})
	stage(t, wt, "keep.txt", "edit.txt", "gone.txt")
	got, err := StagedDiff(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `diff --git a/edit.txt b/edit.txt
new file mode 100644
index 0000000000000000000000000000000000000000..4cb29ea38f70d7c61b2a3a25b02e3bdf44905402
--- /dev/null
+++ b/edit.txt
@@ -0,0 +1,3 @@
+one
+two
+three
diff --git a/gone.txt b/gone.txt
new file mode 100644
index 0000000000000000000000000000000000000000..b023018cabc396e7692c70bbf5784a93d3f738ab
--- /dev/null
+++ b/gone.txt
@@ -0,0 +1 @@
+bye
diff --git a/keep.txt b/keep.txt
new file mode 100644
index 0000000000000000000000000000000000000000..1275430f1765c63e539cb0452565563bd6aef6a6
--- /dev/null
+++ b/keep.txt
@@ -0,0 +1 @@
+same
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("staged diff before the first commit (-want +got):\n%s", diff)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	first, err := wt.Commit("first", &git.CommitOptions{Author: sig})
	if err != nil {
		t.Fatal(err)
	}

	// Then only the changed files, in path order; binary ones as such.
	writeFiles(t, dir, map[string]string{"edit.txt": "one\nTWO\nthree\n", "bin.dat": "\x00\x01"})
	if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	stage(t, wt, "edit.txt", "bin.dat", "gone.txt")
	got, err = StagedDiff(dir)
	if err != nil {
		t.Fatal(err)
	}
	want = `diff --git a/bin.dat b/bin.dat
new file mode 100644
index 0000000000000000000000000000000000000000..bdc955b7b2e610ad5a72302b139a2e6cb325519a
Binary files /dev/null and b/bin.dat differ
diff --git a/edit.txt b/edit.txt
index 4cb29ea38f70d7c61b2a3a25b02e3bdf44905402..ddc897f039f57aa91e16efa6dfde386c4255206f 100644
--- a/edit.txt
+++ b/edit.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index b023018cabc396e7692c70bbf5784a93d3f738ab..0000000000000000000000000000000000000000
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("staged diff (-want +got):\n%s", diff)
	}

	// The committed change is the same diff between the two commits.
	second, err := wt.Commit("second", &git.CommitOptions{Author: sig})
	if err != nil {
		t.Fatal(err)
	}
	ranged, err := RangeDiff(dir, first.String()+".."+second.String())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, ranged); diff != "" {
		t.Errorf("RangeDiff first..second (-want +got):\n%s", diff)
	}
	if got, err := StagedDiff(dir); err != nil || got != "" {
		t.Errorf("StagedDiff with nothing staged = %q, %v; want empty", got, err)
	}
	// HEAD...HEAD~1 diffs from their merge base (HEAD~1) to HEAD~1: nothing.
	if got, err := RangeDiff(dir, "HEAD...HEAD~1"); err != nil || got != "" {
		t.Errorf("RangeDiff HEAD...HEAD~1 = %q, %v; want empty", got, err)
	}

	// A rename is a header without a hunk, staged and committed alike.
	if _, err := wt.Move("edit.txt", "sub/edited.txt"); err != nil {
		t.Fatal(err)
	}
	want = `diff --git a/edit.txt b/sub/edited.txt
rename from edit.txt
rename to sub/edited.txt
`
	if got, err := StagedDiff(dir); err != nil || got != want {
		t.Errorf("StagedDiff after git mv = %q, %v; want %q", got, err, want)
	}
	third, err := wt.Commit("third", &git.CommitOptions{Author: sig})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := RangeDiff(dir, second.String()+".."+third.String()); err != nil || got != want {
		t.Errorf("RangeDiff second..third = %q, %v; want %q", got, err, want)
	}
}

func TestRangeDiffErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec     string
		badRange bool
		wantMsg  string
	}{
		{"HEAD", true, `split: bad commit range "HEAD": want REV..REV or REV...REV`},
		{"HEAD..", true, `split: bad commit range "HEAD..": want REV..REV or REV...REV`},
		{"...HEAD", true, `split: bad commit range "...HEAD": want REV..REV or REV...REV`},
		{"nope..HEAD", false, `resolve "nope": reference not found`},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := RangeDiff(dir, tc.spec)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, ErrBadRange); got != tc.badRange {
				t.Errorf("errors.Is(err, ErrBadRange) = %v, want %v", got, tc.badRange)
			}
			if diff := cmp.Diff(tc.wantMsg, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}
