package index

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	gitidx "github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// This file holds the reading of the repository: the work tree and git
// directories, the git index, and the staged changes against HEAD.

// ErrBareRepository is the error for a directory that is a bare repository
// (git clone --bare, a mirror, a server's copy): it has no work tree, and
// ctxtrim reads the files a checkout holds, not a commit's objects. Walked as
// a plain directory it gave git's own hook samples as the context.
var ErrBareRepository = errors.New("a bare repository has no work tree; run ctxtrim in a checkout of it (git worktree add DIR, or git clone)")

// OpenRepository opens the git repository holding dir (any directory of
// its work tree; linked worktrees too), as every ctxtrim command does:
// go-git's PlainOpen detecting the .git entry and following a linked
// worktree's common directory, and object alternates read from anywhere
// on the file system. git clone --shared and --reference (CI caches, agent
// sandboxes) write objects/info/alternates with the absolute path of
// another object store, which go-git's default, chrooted to the git
// directory, cannot reach: HEAD's commit was "object not found". Relative
// alternate paths are read from the root of the file system, as go-git
// reads them.
//
// A bare repository is ErrBareRepository: every command reads a work tree.
func OpenRepository(dir string) (*git.Repository, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) && isBare(dir) {
		// DetectDotGit looks only for a .git entry in dir and above, so
		// a bare repository read as no repository at all.
		return nil, ErrBareRepository
	}
	if err != nil {
		return nil, err
	}
	st, ok := repo.Storer.(*filesystem.Storage)
	if !ok {
		return repo, nil
	}
	fs := st.Filesystem()
	if _, err := fs.Stat(fs.Join("objects", "info", "alternates")); err != nil {
		return repo, nil
	}
	wt, err := repo.Worktree()
	if err != nil {
		return repo, nil // bare: go-git's default storage
	}
	shared := filesystem.NewStorageWithOptions(fs, gitcache.NewObjectLRUDefault(),
		filesystem.Options{AlternatesFS: osfs.New("/", osfs.WithBoundOS())})
	return git.Open(shared, wt.Filesystem)
}

// open finds the work tree and repository for abs.
func (b *builder) open(abs string) error {
	repo, err := OpenRepository(abs)
	switch {
	case errors.Is(err, git.ErrUnsupportedExtensionRepositoryFormatVersion), errors.Is(err, git.ErrUnknownExtension),
		errors.Is(err, git.ErrUnsupportedRepositoryFormatVersion):
		// A repository go-git refuses to open (extensions.worktreeConfig,
		// set by `git sparse-checkout`, is one): index its work tree as a
		// plain directory rather than fail.
		root := abs
		for d := abs; ; d = filepath.Dir(d) {
			if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
				root = d
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
		b.logf("open repository at %s: %v (indexing the work tree as a plain directory)", root, err)
		if root, err = filepath.EvalSymlinks(root); err != nil {
			return fmt.Errorf("index %s: %w", abs, err)
		}
		b.root = root
		return nil
	case errors.Is(err, ErrBareRepository):
		return fmt.Errorf("index %s: %w", abs, err)
	case errors.Is(err, git.ErrRepositoryNotExists):
		root, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return fmt.Errorf("index %s: %w", abs, err)
		}
		b.root = root
		return nil
	case err != nil:
		return fmt.Errorf("open repository at %s: %w", abs, err)
	}
	wt, err := repo.Worktree()
	if errors.Is(err, git.ErrIsBareRepository) {
		return fmt.Errorf("index %s: %w", abs, ErrBareRepository)
	}
	if err != nil {
		return fmt.Errorf("open work tree of %s: %w", abs, err)
	}
	root, err := filepath.EvalSymlinks(wt.Filesystem.Root())
	if err != nil {
		return fmt.Errorf("open work tree of %s: %w", abs, err)
	}
	b.root, b.repo = root, repo
	b.gitDir, b.commonDir = gitDirs(root)
	if fi, err := os.Stat(filepath.Join(b.gitDir, "index")); err == nil {
		b.indexTime = fi.ModTime()
	}
	return nil
}

// isBare reports whether dir is itself a bare repository's git directory.
func isBare(dir string) bool {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return false
	}
	_, err = repo.Worktree()
	return errors.Is(err, git.ErrIsBareRepository)
}

// gitDirs returns the git directory of the work tree at root and its common
// directory (they differ in a linked worktree).
func gitDirs(root string) (gitDir, commonDir string) {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return "", ""
	}
	gitDir = dotgit
	if !fi.IsDir() {
		data, err := os.ReadFile(dotgit)
		if err != nil {
			return "", ""
		}
		line := strings.TrimSpace(string(data))
		if !strings.HasPrefix(line, "gitdir:") {
			return "", ""
		}
		gitDir = strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(root, gitDir)
		}
	}
	commonDir = gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		commonDir = filepath.Clean(c)
	}
	if r, err := filepath.EvalSymlinks(commonDir); err == nil {
		commonDir = r
	}
	return gitDir, commonDir
}

// readGit loads the git index and the global ignore rules.
func (b *builder) readGit() error {
	b.entries = map[string]*gitidx.Entry{}
	b.conflicted = map[string]bool{}
	b.trackedDir = map[string]bool{}
	b.submodules = map[string]plumbing.Hash{}
	b.staged = map[string]bool{}
	b.seen = map[string]bool{}
	if b.repo == nil {
		return nil
	}
	// The index is read by decodeIndex (gitindex.go), a tenth of the time
	// go-git's decoder takes (20 ms on moby's 13k entries); go-git's
	// storage only when the git directory was not found.
	var idx *gitidx.Index
	var err error
	if b.gitDir != "" {
		idx, err = readIndexFile(filepath.Join(b.gitDir, "index"))
	} else {
		idx, err = b.repo.Storer.Index()
	}
	if err != nil {
		return fmt.Errorf("read git index of %s: %w", b.root, err)
	}
	b.idx = idx
	for _, e := range idx.Entries {
		if prev, ok := b.entries[e.Name]; ok {
			b.conflicted[e.Name] = true
			if prev.Stage == gitidx.Merged || e.Stage != gitidx.OurMode {
				continue
			}
		}
		b.entries[e.Name] = e
		if e.Mode == filemode.Submodule {
			b.submodules[e.Name] = e.Hash
		}
		for d := path.Dir(e.Name); d != "."; d = path.Dir(d) {
			if b.trackedDir[d] {
				break
			}
			b.trackedDir[d] = true
		}
	}
	b.globalIgn = b.globalIgnores()
	b.infoAttrs = b.infoAttributes()
	return nil
}

// readHead reads HEAD and fills b.staged from the git index readGit loaded.
func (b *builder) readHead() error {
	if b.repo == nil {
		return nil
	}
	ref, err := b.repo.Head()
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		// An empty repository: everything in the index is staged.
		for p := range b.entries {
			b.staged[p] = true
		}
	case err != nil:
		return fmt.Errorf("read HEAD of %s: %w", b.root, err)
	default:
		b.head = ref.Hash().String()
		if err := b.diffHead(b.idx, ref.Hash()); err != nil {
			// The objects are unreadable (a broken alternate, a
			// damaged store): index the work tree anyway; the caller
			// learns why from Index.GitErr.
			b.gitErr = err
			b.staged = map[string]bool{}
			b.logf("%v (indexing without HEAD: nothing is marked staged)", err)
		}
	}
	return nil
}

// diffHead fills b.staged with the index entries that differ from HEAD.
func (b *builder) diffHead(idx *gitidx.Index, head plumbing.Hash) error {
	cached := cacheTree(idx)
	if t, ok := b.cache.tree(head.String()); ok && cached[""].String() == t {
		return nil // the index matches HEAD's tree: nothing staged
	}
	if t, ok := commitTree(b.commonDir, head); ok {
		b.cache.putTree(head.String(), t.String())
		if root, ok := cached[""]; ok && root == t {
			return nil
		}
	}
	// A repository object of its own, dropped after the comparison: go-git's
	// first object read maps every pack offset to its hash (tens of MB on a
	// large repository), which the Index's long-lived repository should not
	// keep.
	repo, err := OpenRepository(b.root)
	if err != nil {
		return fmt.Errorf("open repository at %s: %w", b.root, err)
	}
	commit, err := repo.CommitObject(head)
	if err != nil {
		return fmt.Errorf("read HEAD commit %s: %w", head, err)
	}
	b.cache.putTree(head.String(), commit.TreeHash.String())
	tree, err := commit.Tree()
	if err != nil {
		return fmt.Errorf("read HEAD tree %s: %w", commit.TreeHash, err)
	}
	var same []string // subtrees equal in HEAD and the index, with a trailing "/" ("" for the root)
	inHead := map[string]bool{}
	var walk func(t *object.Tree, prefix string) error
	walk = func(t *object.Tree, prefix string) error {
		if h, ok := cached[prefix]; ok && h == t.Hash {
			same = append(same, prefix)
			return nil
		}
		for _, e := range t.Entries {
			p := prefix + e.Name
			if e.Mode == filemode.Dir {
				sub, err := repo.TreeObject(e.Hash)
				if err != nil {
					return fmt.Errorf("read HEAD tree %s: %w", p, err)
				}
				if err := walk(sub, p+"/"); err != nil {
					return err
				}
				continue
			}
			inHead[p] = true
			if ie, ok := b.entries[p]; ok && (ie.Hash != e.Hash || b.conflicted[p]) {
				b.staged[p] = true
			}
		}
		return nil
	}
	if err := walk(tree, ""); err != nil {
		return err
	}
	for p := range b.entries {
		if inHead[p] || hasAnyPrefix(p, same) {
			continue
		}
		b.staged[p] = true // added to the index
	}
	return nil
}

// cacheTree maps directories ("" for the root, else "a/b/") to the tree hash
// the index's TREE extension records for them; invalidated entries are left
// out.
func cacheTree(idx *gitidx.Index) map[string]plumbing.Hash {
	m := map[string]plumbing.Hash{}
	if idx.Cache == nil || len(idx.Cache.Entries) == 0 {
		return m
	}
	es := idx.Cache.Entries
	i := 0
	var rec func(prefix string)
	rec = func(prefix string) {
		if i >= len(es) {
			return
		}
		e := es[i]
		i++
		p := prefix
		if e.Path != "" {
			p = prefix + e.Path + "/"
		}
		if e.Entries >= 0 {
			m[p] = e.Hash
		}
		for range e.Trees {
			rec(p)
		}
	}
	rec("")
	return m
}

func hasAnyPrefix(p string, prefixes []string) bool {
	for _, pre := range prefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}
