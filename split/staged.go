package split

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	ctxindex "github.com/ctxtrim/ctxtrim/slicer/index"
)

// StagedDiff returns the unified diff from HEAD to the index of the git
// repository holding dir (found upwards from dir; linked work trees are
// supported), read with go-git: what "git diff --cached" shows. It is the
// one staged-diff source of ctxtrim (split -staged and check -staged use
// it).
//
// The index becomes a tree held in memory (nothing is written to the
// repository), and HEAD's tree is diffed against it as RangeDiff diffs two
// commits: go-git's rename detection (exact renames, then content
// similarity of 60% or more), files in path order, go-git's three lines of
// context, and a binary patch for a file with a NUL byte in its first
// 8000 bytes. A renamed file that did not change is a header with no hunk,
// so a "git mv" costs a few tokens whatever the file's size. Submodule
// entries and intent-to-add entries are left out; an unmerged path is
// taken at its "ours" stage. Before the first commit every staged file is
// added.
func StagedDiff(dir string) (string, error) {
	r, err := openRepo(dir)
	if err != nil {
		return "", err
	}
	idx, err := r.Storer.Index()
	if err != nil {
		return "", fmt.Errorf("read index: %w", err)
	}
	s := &overlayStorer{EncodedObjectStorer: r.Storer, trees: map[plumbing.Hash]plumbing.EncodedObject{}}
	to, err := s.indexTree(idx)
	if err != nil {
		return "", fmt.Errorf("staged diff: %w", err)
	}
	var from *object.Tree
	switch ref, err := r.Head(); {
	case err == nil:
		c, err := r.CommitObject(ref.Hash())
		if err != nil {
			return "", fmt.Errorf("read HEAD: %w", err)
		}
		if from, err = object.GetTree(s, c.TreeHash); err != nil {
			return "", fmt.Errorf("read HEAD tree: %w", err)
		}
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		from = &object.Tree{} // no commit yet: everything is added
	default:
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	ctx := context.Background()
	changes, err := object.DiffTreeWithOptions(ctx, from, to, object.DefaultDiffTreeOptions)
	if err != nil {
		return "", fmt.Errorf("diff HEAD and the index: %w", err)
	}
	p, err := changes.PatchContext(ctx)
	if err != nil {
		return "", fmt.Errorf("diff HEAD and the index: %w", err)
	}
	text, err := unified(p)
	if err != nil {
		return "", fmt.Errorf("encode staged diff: %w", err)
	}
	return text, nil
}

// overlayStorer is the repository's object storage with the index's tree
// objects on top, in memory: go-git diffs trees that live in a storer, and
// the index has no tree objects until a commit writes them. Blobs are
// read from the repository.
type overlayStorer struct {
	storer.EncodedObjectStorer
	trees map[plumbing.Hash]plumbing.EncodedObject
}

func (s *overlayStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, ok := s.trees[h]; ok && (t == plumbing.TreeObject || t == plumbing.AnyObject) {
		return o, nil
	}
	return s.EncodedObjectStorer.EncodedObject(t, h)
}

func (s *overlayStorer) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := s.trees[h]; ok {
		return nil
	}
	return s.EncodedObjectStorer.HasEncodedObject(h)
}

func (s *overlayStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if o, ok := s.trees[h]; ok {
		return o.Size(), nil
	}
	return s.EncodedObjectStorer.EncodedObjectSize(h)
}

// indexTree builds the tree of idx's entries in s and returns its root.
func (s *overlayStorer) indexTree(idx *index.Index) (*object.Tree, error) {
	// The entry of each path: stage 0, else "ours" (stage 2) for an
	// unmerged path, which is what the work tree is based on.
	entries := map[string]*index.Entry{}
	for _, e := range idx.Entries {
		if e.Mode == filemode.Submodule || e.IntentToAdd {
			continue
		}
		switch e.Stage {
		case 0: // merged; go-git's index.Merged is 1, AncestorMode's value
			entries[e.Name] = e
		case index.OurMode:
			if _, ok := entries[e.Name]; !ok {
				entries[e.Name] = e
			}
		}
	}
	// dirs maps a directory ("" for the root) to its entries; a
	// subdirectory is an entry with a zero hash until it is built.
	dirs := map[string][]object.TreeEntry{"": nil}
	var addDir func(d string)
	addDir = func(d string) {
		if _, ok := dirs[d]; ok {
			return
		}
		dirs[d] = nil
		parent := path.Dir(d)
		if parent == "." {
			parent = ""
		}
		addDir(parent)
		dirs[parent] = append(dirs[parent], object.TreeEntry{Name: path.Base(d), Mode: filemode.Dir})
	}
	for name, e := range entries {
		d := path.Dir(name)
		if d == "." {
			d = ""
		}
		addDir(d)
		dirs[d] = append(dirs[d], object.TreeEntry{Name: path.Base(name), Mode: e.Mode, Hash: e.Hash})
	}
	// Build the deepest directories first, so each parent finds its
	// children's hashes.
	order := make([]string, 0, len(dirs))
	for d := range dirs {
		order = append(order, d)
	}
	sort.Slice(order, func(i, j int) bool {
		di, dj := strings.Count(order[i], "/"), strings.Count(order[j], "/")
		if order[i] == "" || order[j] == "" {
			return order[j] == ""
		}
		if di != dj {
			return di > dj
		}
		return order[i] < order[j]
	})
	built := map[string]plumbing.Hash{}
	var root *object.Tree
	for _, d := range order {
		es := dirs[d]
		for i := range es {
			if es[i].Mode == filemode.Dir {
				es[i].Hash = built[path.Join(d, es[i].Name)]
			}
		}
		// Git's order: a tree sorts as if its name ended in "/".
		sort.Slice(es, func(i, j int) bool { return gitTreeKey(es[i]) < gitTreeKey(es[j]) })
		t := &object.Tree{Entries: es}
		o := &plumbing.MemoryObject{}
		if err := t.Encode(o); err != nil {
			return nil, fmt.Errorf("encode tree %q: %w", d, err)
		}
		s.trees[o.Hash()] = o
		built[d] = o.Hash()
		if d == "" {
			var err error
			if root, err = object.DecodeTree(s, o); err != nil {
				return nil, fmt.Errorf("decode tree: %w", err)
			}
		}
	}
	return root, nil
}

func gitTreeKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// openRepo opens the git repository holding dir as the index does
// (slicer/index.OpenRepository: searching upwards, linked work trees' common git
// directory, object alternates).
func openRepo(dir string) (*git.Repository, error) {
	r, err := ctxindex.OpenRepository(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	return r, nil
}
