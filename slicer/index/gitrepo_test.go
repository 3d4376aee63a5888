package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
)

// sharedClone makes a repository of two commits and a `git clone --shared`
// of it (objects/info/alternates names the source's object store), and
// returns the clone and the source.
func sharedClone(t *testing.T) (clone, src string) {
	t.Helper()
	src = txtartest.Repo(t, txtar.Parse([]byte("-- retry/retry.go --\npackage retry\n\n// Do retries.\nfunc Do() {}\n-- README.md --\n# retry\n")))
	if err := os.WriteFile(filepath.Join(src, "retry", "retry.go"), []byte("package retry\n\n// Do retries twice.\nfunc Do() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	txtartest.Git(t, src, "commit", "-qam", "second")
	txtartest.Git(t, src, "gc", "-q") // objects in a pack, as CI caches hold them
	clone = filepath.Join(t.TempDir(), "clone")
	txtartest.Git(t, src, "clone", "-q", "--shared", src, clone)
	if _, err := os.Stat(filepath.Join(clone, ".git", "objects", "info", "alternates")); err != nil {
		t.Fatalf("git clone --shared wrote no alternates: %v", err)
	}
	return clone, src
}

// TestAlternates: a repository whose objects live in another store
// (git clone --shared, --reference) is read through its alternates:
// HEAD's commit, the staged changes, a revision range. Before, index,
// select and split -diff failed with "read HEAD commit …: object not
// found".
func TestAlternates(t *testing.T) {
	clone, _ := sharedClone(t)
	if err := os.WriteFile(filepath.Join(clone, "README.md"), []byte("# retry, staged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	txtartest.Git(t, clone, "add", "README.md")
	ix, err := New(context.Background(), &Options{Dir: clone, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if ix.GitErr != nil || ix.Head == "" {
		t.Fatalf("Head %q, GitErr %v; want HEAD read through the alternates", ix.Head, ix.GitErr)
	}
	staged := map[string]bool{}
	for _, f := range ix.Files {
		staged[f.Path] = f.Status&Staged != 0
	}
	if !staged["README.md"] || staged["retry/retry.go"] {
		t.Errorf("staged %v, want README.md only", staged)
	}
	repo, err := OpenRepository(filepath.Join(clone, "retry"))
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		t.Fatalf("HEAD commit through OpenRepository: %v", err)
	}
	if _, err := c.Parent(0); err != nil {
		t.Fatalf("HEAD's parent: %v", err)
	}
}

// TestAlternatesGone: when the object store an alternate names is gone,
// the index is still built, from the work tree and the git index, and says
// why HEAD could not be read, rather than failing.
func TestAlternatesGone(t *testing.T) {
	clone, src := sharedClone(t)
	if err := os.RemoveAll(filepath.Join(src, ".git", "objects")); err != nil {
		t.Fatal(err)
	}
	ix, err := New(context.Background(), &Options{Dir: clone, NoCache: true})
	if err != nil {
		t.Fatalf("New failed on a repository whose history cannot be read: %v", err)
	}
	if ix.GitErr == nil || len(ix.Files) != 2 {
		t.Errorf("GitErr %v, %d files; want the reason and both files", ix.GitErr, len(ix.Files))
	}
}

// TestNotUTF8Skipped: a file that is not valid UTF-8 (here Latin-1) is
// left out with SkipNotUTF8 and how to convert it, tracked or not, and
// from the cache too; before, its bytes went into the prompt, which was
// then not UTF-8 (ctxtrim count rejected ctxtrim's own output) and lost
// them to U+FFFD in --format json. A document that is not text (a PDF
// saved as Illustrator's .ai, with no NUL byte early) is binary: converting
// it with iconv, as the detail advises for text, would be wrong.
func TestNotUTF8Skipped(t *testing.T) {
	dir := txtartest.Repo(t, txtar.Parse([]byte("-- ok.go --\npackage ok\n")))
	latin1 := []byte("// Caf\xe9: r\xe9essaie la requ\xeate\npackage retry\n")
	pdf := []byte("%PDF-1.5\r%\xe2\xe3\xcf\xd3\r\n1 0 obj\r<</Metadata 2 0 R>>\r\nendobj\r\n")
	if err := os.WriteFile(filepath.Join(dir, "logo.ai"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"tracked.go", "untracked.go"} {
		if err := os.WriteFile(filepath.Join(dir, p), latin1, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	txtartest.Git(t, dir, "add", "tracked.go")
	cacheDir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cacheDir)
	for _, run := range []string{"cold", "warm"} {
		ix, err := New(context.Background(), &Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, f := range ix.Files {
			files = append(files, f.Path)
		}
		skips := map[string]Skip{}
		for _, s := range ix.Skipped {
			skips[s.Path] = s
		}
		if len(files) != 1 || files[0] != "ok.go" {
			t.Errorf("%s: indexed %q, want ok.go only", run, files)
		}
		for _, p := range []string{"tracked.go", "untracked.go"} {
			if s := skips[p]; s.Reason != SkipNotUTF8 || !strings.Contains(s.Detail, "offset 6") || !strings.Contains(s.Detail, "iconv") {
				t.Errorf("%s: %s skipped as %+v, want %q at offset 6 with how to convert", run, p, s, SkipNotUTF8)
			}
		}
		if s := skips["logo.ai"]; s.Reason != SkipBinary {
			t.Errorf("%s: logo.ai skipped as %+v, want %q", run, s, SkipBinary)
		}
	}
}

// TestBareRepository: a bare repository is refused with ErrBareRepository
// by every entry point; before, it was walked as a plain directory and
// git's hook samples became the context. Its neighbours still open: the
// .git directory of a work tree (the work tree is indexed) and a plain
// directory.
func TestBareRepository(t *testing.T) {
	src := txtartest.Repo(t, txtar.Parse([]byte("-- retry.go --\npackage retry\n\nfunc Do() {}\n")))
	bare := filepath.Join(t.TempDir(), "mirror.git")
	txtartest.Git(t, filepath.Dir(bare), "clone", "-q", "--bare", src, bare)
	empty := filepath.Join(t.TempDir(), "empty.git")
	txtartest.Git(t, filepath.Dir(empty), "init", "-q", "--bare", empty)
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		name, dir string
		bare      bool
		want      string // a path listed, when not bare
	}{
		{"bare clone", bare, true, ""},
		{"empty bare repository", empty, true, ""},
		{"a work tree's .git directory", filepath.Join(src, ".git"), false, "retry.go"},
		{"work tree", src, false, "retry.go"},
		{"plain directory", plain, false, "a.go"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, openErr := OpenRepository(tc.dir)
			opts := &Options{Dir: tc.dir, NoCache: true}
			ix, newErr := New(ctx, opts)
			fl, listErr := ListFiles(ctx, opts)
			_, findErr := FindFiles(ctx, opts, []string{"*.go"})
			if tc.bare {
				for what, err := range map[string]error{"OpenRepository": openErr, "New": newErr, "ListFiles": listErr, "FindFiles": findErr} {
					if !errors.Is(err, ErrBareRepository) {
						t.Errorf("%s: err %v, want ErrBareRepository", what, err)
					}
				}
				if newErr != nil && !strings.Contains(newErr.Error(), tc.dir) {
					t.Errorf("New: %q does not name the directory", newErr)
				}
				return
			}
			for what, err := range map[string]error{"New": newErr, "ListFiles": listErr, "FindFiles": findErr} {
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
			if !slices.Contains(fl.Paths, tc.want) {
				t.Errorf("ListFiles: %q, want %s among them", fl.Paths, tc.want)
			}
			found := false
			for _, f := range ix.Files {
				found = found || f.Path == tc.want
			}
			if !found {
				t.Errorf("New: %s not indexed", tc.want)
			}
		})
	}
}
