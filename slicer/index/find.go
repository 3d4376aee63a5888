package index

import (
	"context"
	"fmt"
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// FindFiles lists the paths ListFiles would list for the same options that
// match one of patterns (doublestar patterns over slash paths relative to
// the root, as doublestar.Match takes them), without walking the whole
// work tree. It is ListFiles for a caller that wants a few named files
// (ctxtrim check's prompt files) in a large repository: it reads the git
// index and the ignore files on the way to each match, and lists only the
// directories the patterns name. Of opts only Dir, All and Logf are used.
//
// Tracked files come from the git index, wherever they are. Untracked files
// are looked for where each pattern can match:
//
//   - a literal path (".github/copilot-instructions.md"): that path;
//   - a pattern under a literal directory ("prompts/**", "docs/*.md"): the
//     tree under that directory, walked as ListFiles walks;
//   - a pattern ending in a literal name ("**/CLAUDE.md"): that name in
//     every directory that holds a tracked file, so an untracked file in a
//     directory git does not know yet is not found (in a plain directory,
//     without a git index, the whole tree is walked instead);
//   - any other pattern ("**/*.md"): the whole tree, walked.
//
// Every path found is then held to the decisions of ListFiles' walk, made
// on the directories from the root down to it (walk.go: enter, subdir,
// file): submodules, nested repositories, .ctxtrimignore, vendored trees
// unless All, and for untracked files the git ignore rules; as there, a
// tracked file is never ignored by git rules. Paths are sorted; Skipped
// holds the directories and files the decisions left out on the way. A
// bad pattern is an error, as are those of ListFiles.
//
// The steps: place the patterns, read git, look for untracked files where
// the patterns can match them, consider the tracked files they match, and
// list what the decisions kept.
func FindFiles(ctx context.Context, opts *Options, patterns []string) (*FileList, error) {
	ps, err := placePatterns(patterns)
	if err != nil {
		return nil, err
	}
	b, err := newBuilder(opts)
	if err != nil {
		return nil, err
	}
	if err := b.readGit(); err != nil {
		return nil, err
	}
	f := &finder{b: b, dirs: map[string]*dirState{}, notDir: map[string]bool{}, done: map[string]bool{}}
	if err := f.findUntracked(ctx, ps); err != nil {
		return nil, err
	}
	for p := range b.entries {
		if matchesAny(ps, p) {
			f.consider(p)
		}
	}
	return f.list(ps), nil
}

// placePatterns checks and places each of patterns.
func placePatterns(patterns []string) ([]placedPattern, error) {
	var ps []placedPattern
	for _, p := range patterns {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("bad pattern %q", p)
		}
		ps = append(ps, placePattern(p))
	}
	return ps, nil
}

// matchesAny reports whether one of ps matches p.
func matchesAny(ps []placedPattern, p string) bool {
	for i := range ps {
		if ps[i].match(p) {
			return true
		}
	}
	return false
}

// findUntracked considers the untracked files where ps say they can be:
// trees to walk first, then literal paths, then names in every tracked
// directory (probe).
func (f *finder) findUntracked(ctx context.Context, ps []placedPattern) error {
	b := f.b
	var walks []string
	var names []*placedPattern
	for i := range ps {
		switch p := &ps[i]; {
		case p.kind == literalPath:
		case p.kind == nameInDirs && b.repo != nil:
			names = append(names, p)
		case p.kind == nameInDirs:
			walks = append(walks, "") // no index to say where the directories are
		default:
			walks = append(walks, p.base)
		}
	}
	for _, base := range outermost(walks) {
		if d := f.dir(base); d != nil {
			b.walkEntered(ctx, d)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for i := range ps {
		if ps[i].kind == literalPath {
			f.consider(ps[i].path)
		}
	}
	found, err := b.probe(names)
	if err != nil {
		return err
	}
	for _, rel := range found {
		f.consider(rel)
	}
	return ctx.Err()
}

// list returns the candidates that match ps, sorted, with the skips
// recorded on the way, sorted and without duplicates.
func (f *finder) list(ps []placedPattern) *FileList {
	b := f.b
	var paths []string
	for _, c := range b.cands {
		if matchesAny(ps, c.path) {
			paths = append(paths, c.path)
		}
	}
	sort.Strings(paths)
	paths = compactStrings(paths)
	// A directory decided by the walk and again on the way to a path is
	// recorded twice.
	sort.Slice(b.skips, func(i, j int) bool {
		if b.skips[i].Path != b.skips[j].Path {
			return b.skips[i].Path < b.skips[j].Path
		}
		return b.skips[i].Reason < b.skips[j].Reason
	})
	skips := b.skips[:0]
	for i, s := range b.skips {
		if i == 0 || s != b.skips[i-1] {
			skips = append(skips, s)
		}
	}
	return &FileList{Root: b.root, Paths: paths, Skipped: skips}
}

// probe returns the untracked paths that exist (other than as
// directories) at the name of a nameInDirs pattern in the root or a
// directory holding tracked files, sorted. These are thousands of lstat
// calls on a large repository (moby: 2,255 directories × 3 names), made
// on GOMAXPROCS goroutines over index-addressed slices (see prober).
func (b *builder) probe(names []*placedPattern) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	pr, err := newProber(b.root)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", b.root, err)
	}
	defer pr.close()
	dirs := make([]string, 0, len(b.trackedDir)+1)
	dirs = append(dirs, "")
	for d := range b.trackedDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	workers := min(runtime.GOMAXPROCS(0), max(1, len(dirs)/256))
	found := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for _, d := range dirs[w*len(dirs)/workers : (w+1)*len(dirs)/workers] {
				prefix := d + "/"
				if d == "" {
					prefix = ""
				}
				for _, p := range names {
					rel := prefix + p.name
					if b.entries[rel] == nil && (p.anyDir || p.match(rel)) && pr.exists(rel) {
						found[w] = append(found[w], rel)
					}
				}
			}
		})
	}
	wg.Wait()
	var out []string
	for _, f := range found {
		out = append(out, f...)
	}
	return out, nil
}

// finder holds the state of one FindFiles call.
type finder struct {
	b      *builder
	dirs   map[string]*dirState // directories decided on; nil when the walk would not enter them
	notDir map[string]bool      // of those, the ones that are not directories in the work tree
	done   map[string]bool      // paths decided on
}

// dir returns the walk's state of directory rel ("" for the root) after
// deciding on it and its ancestors as the walk would, or nil if the walk
// would not enter it: left out by a decision, or not a directory (then
// f.notDir[rel] is set).
func (f *finder) dir(rel string) *dirState {
	if d, ok := f.dirs[rel]; ok {
		return d
	}
	b := f.b
	exists := func(name string) bool {
		_, err := os.Lstat(b.abs(path.Join(rel, name)))
		return err == nil
	}
	var d *dirState
	if rel == "" {
		d = &dirState{git: b.globalIgn, ignored: 1}
		b.enter(d, exists)
	} else if parent := f.dir(parentDir(rel)); parent != nil {
		if fi, err := os.Lstat(b.abs(rel)); err != nil || !fi.IsDir() {
			f.notDir[rel] = true
		} else if d = b.subdir(parent, path.Base(rel)); d != nil && !b.enter(d, exists) {
			d = nil
		}
	} else if f.notDir[parentDir(rel)] {
		f.notDir[rel] = true
	}
	f.dirs[rel] = d
	return d
}

// consider decides on the path rel as the walk would, once: a candidate,
// a skip, or nothing. A file in a directory the walk enters is decided by
// file; a tracked path the walk would not meet as a file (missing, a
// directory, under a symbolic link) as ListFiles decides on the index
// entries its walk did not meet (unseen).
func (f *finder) consider(rel string) {
	b := f.b
	if f.done[rel] || b.seen[rel] {
		return
	}
	f.done[rel] = true
	dir := parentDir(rel)
	d := f.dir(dir)
	e := b.entries[rel]
	fi, err := os.Lstat(b.abs(rel))
	switch {
	case d != nil && err == nil && !fi.IsDir():
		b.file(d, path.Base(rel), fi.Mode().Type())
	case d != nil && err == nil && e != nil && e.Mode == filemode.Submodule:
		b.subdir(d, path.Base(rel)) // records the submodule's skip
	case e == nil || d == nil && !f.notDir[dir]:
		// Untracked and not a file, or under a directory left out.
	case e.Mode == filemode.Submodule:
		b.skip(rel, SkipSubmodule, "commit "+e.Hash.String()+" (not checked out)")
	case e.SkipWorktree:
		b.skip(rel, SkipSparse, "")
	case err != nil:
		b.skip(rel, SkipDeleted, "")
	default:
		b.cands = append(b.cands, candidate{path: rel, entry: e, mode: fi.Mode().Type()})
	}
}

// walkEntered walks the tree of directory d, which finder.dir entered, as
// ListFiles walks it.
func (b *builder) walkEntered(ctx context.Context, d *dirState) {
	ents, err := os.ReadDir(b.abs(d.rel))
	if err != nil {
		b.skip(d.prefix(), SkipUnreadable, err.Error())
		return
	}
	b.walkEntries(ctx, d, ents)
}

// parentDir is the directory of a slash path, "" at the root.
func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// outermost returns the directories of dirs that are not under another
// one of them, sorted ("" covers everything).
func outermost(dirs []string) []string {
	sort.Strings(dirs)
	var out []string
	for _, d := range dirs {
		if len(out) > 0 {
			last := out[len(out)-1]
			if last == "" || d == last || strings.HasPrefix(d, last+"/") {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// Where a pattern's matches can be (see FindFiles).
const (
	literalPath = iota // no wildcard: one path
	underDir           // a literal directory, then wildcards: walk it
	nameInDirs         // wildcards, then a literal name: that name anywhere
	anywhere           // wildcards throughout: walk everything
)

// placedPattern is a pattern with where its matches can be.
type placedPattern struct {
	pattern string
	kind    int
	path    string // literalPath: the path
	base    string // underDir: the directory ("" for anywhere)
	name    string // nameInDirs: the name
	anyDir  bool   // nameInDirs: the pattern is "**/" and the name: it matches the name in every directory
}

// placePattern classifies p (a valid doublestar pattern).
func placePattern(p string) placedPattern {
	pp := placedPattern{pattern: p, kind: anywhere}
	segs := strings.Split(p, "/")
	if strings.ContainsRune(p, '{') {
		// Alternatives may hold a "/": only the literal directories
		// before the first wildcard are certain.
		segs = strings.Split(p[:strings.IndexByte(p, '{')], "/")
		segs = segs[:len(segs)-1]
		pp.base = unescapePattern(strings.Join(leadingLiterals(segs), "/"))
		if pp.base != "" {
			pp.kind = underDir
		}
		return pp
	}
	lit := leadingLiterals(segs)
	switch {
	case len(lit) == len(segs):
		pp.kind, pp.path = literalPath, unescapePattern(p)
	case len(lit) > 0:
		pp.kind, pp.base = underDir, unescapePattern(strings.Join(lit, "/"))
	case !hasMeta(segs[len(segs)-1]):
		pp.kind, pp.name = nameInDirs, unescapePattern(segs[len(segs)-1])
		pp.anyDir = len(segs) == 2 && segs[0] == "**"
	}
	return pp
}

// match reports whether the pattern matches p, trying a cheap necessary
// condition first: there are many index entries and few matches.
func (pp *placedPattern) match(p string) bool {
	switch pp.kind {
	case literalPath:
		return p == pp.path
	case underDir:
		if !strings.HasPrefix(p, pp.base+"/") {
			return false
		}
	case nameInDirs:
		if !strings.HasSuffix(p, pp.name) {
			return false
		}
	}
	return doublestar.MatchUnvalidated(pp.pattern, p)
}

// leadingLiterals returns the segments before the first with a wildcard.
func leadingLiterals(segs []string) []string {
	for i, s := range segs {
		if hasMeta(s) {
			return segs[:i]
		}
	}
	return segs
}

// hasMeta reports whether a pattern segment holds an unescaped wildcard.
func hasMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[', '{':
			return true
		}
	}
	return false
}

// unescapePattern removes the backslashes that quote characters.
func unescapePattern(s string) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
