package mcpserver

import (
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// An entry whose mtime is this close to the start of the index build, or
// later, counts as changed at the next check: the build may have read it
// before a write that left the same mtime, within the file system's
// timestamp resolution (git's racy-clean rule). Linux stamps files with a
// coarse clock, one tick of up to 10 ms; file systems that keep whole
// seconds (FAT: two) show as mtimes without nanoseconds.
const (
	racyWindow       = 20 * time.Millisecond
	racyWindowCoarse = 2 * time.Second
)

// stamp is what an index was built from, as stat sees it: every indexed
// and skipped file, every directory holding one (a directory's mtime
// changes when an entry is added, removed or renamed in it), and the git
// files that say what HEAD and the staging area are.
type stamp struct {
	entries []stampEntry
}

type stampEntry struct {
	path  string // absolute
	size  int64
	mtime int64 // UnixNano; 0 when missing or racy
	dir   bool
}

// takeStamp stats what ix was built from; start is when the build began.
// An entry modified after start less the racy window is recorded as racy,
// so that the next check sees a change and rebuilds.
func takeStamp(ix *index.Index, start time.Time) *stamp {
	dirs := map[string]bool{".": true}
	var files []string
	addDirs := func(p string) {
		for d := path.Dir(p); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for _, f := range ix.Files {
		files = append(files, f.Path)
		addDirs(f.Path)
	}
	for _, s := range ix.Skipped {
		if p, isDir := strings.CutSuffix(s.Path, "/"); isDir {
			dirs[p] = true
			addDirs(p)
			continue
		}
		files = append(files, s.Path)
		addDirs(s.Path)
	}
	st := &stamp{}
	racy, racyCoarse := start.Add(-racyWindow).UnixNano(), start.Add(-racyWindowCoarse).UnixNano()
	add := func(abs string, dir bool) {
		e := stampEntry{path: abs, dir: dir}
		if fi, err := os.Stat(abs); err == nil {
			e.size, e.mtime = fi.Size(), fi.ModTime().UnixNano()
			if dir {
				e.size = 0 // a directory's size says nothing portable
			}
			if e.mtime >= racy || e.mtime%int64(time.Second) == 0 && e.mtime >= racyCoarse {
				e.mtime = 0
			}
		}
		st.entries = append(st.entries, e)
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		add(filepath.Join(ix.Root, filepath.FromSlash(d)), true)
	}
	for _, f := range files {
		add(filepath.Join(ix.Root, filepath.FromSlash(f)), false)
	}
	for _, g := range gitFiles(ix.Root) {
		add(g, false)
	}
	return st
}

// changed returns the first entry that differs from the disk, or "".
func (st *stamp) changed() string {
	for _, e := range st.entries {
		fi, err := os.Stat(e.path)
		switch {
		case err != nil:
			if e.mtime != 0 {
				return e.path + " is gone"
			}
		case e.mtime == 0:
			return e.path + " changed while it was indexed"
		case fi.ModTime().UnixNano() != e.mtime || (!e.dir && fi.Size() != e.size):
			return e.path + " changed"
		}
	}
	return ""
}

// gitFiles lists the files whose change means a new HEAD or staging area:
// the git index, HEAD, the ref HEAD names and packed-refs, for a work tree
// whose .git is a directory or, in a linked worktree, a "gitdir:" file. A
// plain directory has none.
func gitFiles(root string) []string {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return nil
	}
	gitDir := dotgit
	if !fi.IsDir() {
		b, err := os.ReadFile(dotgit)
		if err != nil {
			return nil
		}
		d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return nil
		}
		gitDir = strings.TrimSpace(d)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(root, gitDir)
		}
	}
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	out := []string{filepath.Join(gitDir, "index"), filepath.Join(gitDir, "HEAD"), filepath.Join(common, "packed-refs")}
	if b, err := os.ReadFile(filepath.Join(gitDir, "HEAD")); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref:"); ok {
			out = append(out, filepath.Join(common, filepath.FromSlash(strings.TrimSpace(ref))))
		}
	}
	return out
}
