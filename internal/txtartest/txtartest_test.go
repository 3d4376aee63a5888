package txtartest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: `ctxtrim -budget=800 "fix retry"`, want: []string{"ctxtrim", "-budget=800", "fix retry"}},
		{in: `want 'a "b"'`, want: []string{"want", `a "b"`}},
		{in: `want "a \"b\" \\"`, want: []string{"want", `a "b" \`}},
		{in: `x  y	z`, want: []string{"x", "y", "z"}},
		{in: `x ""`, want: []string{"x", ""}},
		{in: `x "open`, err: true},
		{in: `x 'open`, err: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := splitWords(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestRepo(t *testing.T) {
	ar := Load(t, "testdata/all.txtar")
	ds := Directives(t, ar)
	if got := ds[len(ds)-2]; got.Name != "want" || cmp.Diff([]string{"func Retry", "single quoted"}, got.Args) != "" {
		t.Errorf("want directive = %v", got)
	}
	dir := Repo(t, ar)
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	commit, err := repo.CommitObject(head.Hash())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := commit.Tree()
	if err != nil {
		t.Fatal(err)
	}
	var inHead []string
	for _, e := range tree.Entries {
		inHead = append(inHead, e.Name+" "+e.Mode.String())
	}
	sort.Strings(inHead)
	want := []string{
		".gitmodules " + filemode.Regular.String(),
		"a.txt " + filemode.Regular.String(),
		"b.txt " + filemode.Regular.String(),
		"c.txt " + filemode.Regular.String(),
		"link.txt " + filemode.Symlink.String(),
		"sub " + filemode.Submodule.String(),
	}
	if diff := cmp.Diff(want, inHead); diff != "" {
		t.Errorf("HEAD tree (-want +got)\n%s", diff)
	}
	for name, want := range map[string]string{"b.txt": "new\n", "c.txt": "new c\n", "new.txt": "untracked\n"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	wt, _ := repo.Worktree()
	st, err := wt.Status()
	if err != nil {
		t.Fatal(err)
	}
	if s := st.File("b.txt"); s.Staging != git.Modified {
		t.Errorf("b.txt staging = %c, want modified", s.Staging)
	}
	if s := st.File("c.txt"); s.Worktree != git.Modified || s.Staging != git.Unmodified {
		t.Errorf("c.txt status = %c%c, want unstaged modification", s.Staging, s.Worktree)
	}
	if s := st.File("new.txt"); s.Worktree != git.Untracked {
		t.Errorf("new.txt = %c, want untracked", s.Worktree)
	}
}

func TestNoGit(t *testing.T) {
	dir := Repo(t, &txtar.Archive{Comment: []byte("nogit\n"), Files: []txtar.File{{Name: "a/b.txt", Data: []byte("x")}}})
	if _, err := os.Stat(filepath.Join(dir, ".git")); !os.IsNotExist(err) {
		t.Errorf(".git exists (err %v), want a plain directory", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a/b.txt")); err != nil || string(b) != "x" {
		t.Errorf("a/b.txt = %q, %v", b, err)
	}
}

// TestOutsideSymlink builds each repository in a subtest whose temporary
// directory sits deeper than a fixed ../ path could reach (issue 64).
func TestOutsideSymlink(t *testing.T) {
	for name, comment := range map[string]string{"git": "symlink out.txt $OUTSIDE/x/out.txt\n", "nogit": "nogit\nsymlink out.txt $OUTSIDE/x/out.txt\n"} {
		t.Run(name, func(t *testing.T) {
			deep := filepath.Join(t.TempDir(), "a", "b", "c", "d", "e")
			if err := os.MkdirAll(deep, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("TMPDIR", deep) // read by the subtest's t.TempDir
			t.Run("deep", func(t *testing.T) {
				dir := Repo(t, &txtar.Archive{Comment: []byte(comment), Files: []txtar.File{{Name: "a.txt", Data: []byte("a")}}})
				if !strings.HasPrefix(dir, deep) {
					t.Fatalf("repository %s is not under %s", dir, deep)
				}
				link := filepath.Join(dir, "out.txt")
				target, err := os.Readlink(link)
				if err != nil {
					t.Fatal(err)
				}
				if filepath.IsAbs(target) {
					t.Errorf("target %s is absolute, want relative", target)
				}
				b, err := os.ReadFile(link)
				if err != nil || string(b) != "x/out.txt\n" {
					t.Fatalf("read through %s -> %s = %q, %v; want %q", link, target, b, err, "x/out.txt\n")
				}
				root, err := filepath.EvalSymlinks(dir)
				if err != nil {
					t.Fatal(err)
				}
				resolved, err := filepath.EvalSymlinks(link)
				if err != nil {
					t.Fatal(err)
				}
				if rel, err := filepath.Rel(root, resolved); err != nil || !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					t.Errorf("%s resolves to %s, inside the repository %s", link, resolved, root)
				}
			})
		})
	}
}
