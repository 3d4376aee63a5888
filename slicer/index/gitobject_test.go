package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/tools/txtar"
)

// TestCommitTree reads HEAD's tree hash from a loose commit, then from a
// pack after `git gc`, and agrees with go-git both times; a missing or
// unreadable commit is not ok (the caller then asks go-git).
func TestCommitTree(t *testing.T) {
	dir := txtartest.Repo(t, txtar.Parse([]byte(cacheScenario)))
	_, common := gitDirs(dir)
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.CommitObject(ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(common, "objects", ref.Hash().String()[:2], ref.Hash().String()[2:])
	if _, err := os.Stat(loose); err != nil {
		t.Fatalf("the commit is not loose: %v", err)
	}
	if got, ok := commitTree(common, ref.Hash()); !ok || got != c.TreeHash {
		t.Errorf("loose: commitTree = %s, %v; want %s, true", got, ok, c.TreeHash)
	}
	if got, ok := commitTree(common, plumbing.NewHash("0123456789012345678901234567890123456789")); ok {
		t.Errorf("missing commit: commitTree = %s, true; want not ok", got)
	}
	if got, ok := commitTree(common, c.TreeHash); ok {
		t.Errorf("a tree, not a commit: commitTree = %s, true; want not ok", got)
	}

	gitCLI(t, dir, "gc", "-q")
	if _, err := os.Stat(loose); err == nil {
		t.Fatal("git gc left the commit loose")
	}
	if got, ok := commitTree(common, ref.Hash()); !ok || got != c.TreeHash {
		t.Errorf("packed: commitTree = %s, %v; want %s, true", got, ok, c.TreeHash)
	}

	// A corrupt loose object is not ok.
	os.MkdirAll(filepath.Dir(loose), 0o755)
	if err := os.WriteFile(loose, []byte("not zlib"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := commitTree(common, ref.Hash()); ok {
		t.Errorf("corrupt loose object: commitTree = %s, true; want not ok", got)
	}
}
