package index

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// This file holds the walk of the work tree: ListFiles, and the decisions
// on each directory and file that New, ListFiles and FindFiles share.

// FileList is the outcome of ListFiles: the files of a work tree (or plain
// directory) that pass the ignore rules, and what was left out on the way.
type FileList struct {
	Root    string   // absolute path of the work tree (or plain directory), symlinks resolved
	Paths   []string // slash-separated, relative to Root, sorted
	Skipped []Skip   // sorted by Path; a directory left out whole ends in "/"
}

// ListFiles lists the files New would go on to read for the same
// options, without reading or extracting any: the walk and ignore rules of
// New (see there for their precedence), and nothing after them. Of
// opts only Dir, All and Logf are used; nil means the zero Options.
//
// Paths are the tracked files present in the work tree plus the untracked
// files no ignore rule excludes, minus what .ctxtrimignore excludes. Skipped
// holds what the walk decides: SkipIgnored, SkipCtxtrimignore,
// SkipSubmodule, SkipNestedRepo, SkipCacheDir, SkipDeleted, SkipSparse,
// SkipUnreadable for a directory that cannot be listed, and, unless
// opts.All, SkipVendored for vendored directories. New may still leave out a listed path for what
// only its file mode, size or content shows (a symbolic link leaving the
// work tree, a binary or generated file, …) or, unless opts.All, for its
// path class (lock files, large fixtures).
//
// It reads the git index and the ignore files, but neither HEAD nor any
// listed file: it costs New's walk, not its hashing and extraction.
// Errors are those of New before extraction: an unreadable directory
// or repository, a cancelled context.
func ListFiles(ctx context.Context, opts *Options) (*FileList, error) {
	b, err := newBuilder(opts)
	if err != nil {
		return nil, err
	}
	if err := b.readGit(); err != nil {
		return nil, err
	}
	if err := b.list(ctx); err != nil {
		return nil, err
	}
	paths := make([]string, len(b.cands))
	for i, c := range b.cands {
		paths[i] = c.path
	}
	sort.Strings(paths)
	sort.Slice(b.skips, func(i, j int) bool { return b.skips[i].Path < b.skips[j].Path })
	return &FileList{Root: b.root, Paths: paths, Skipped: b.skips}, nil
}

// list walks the work tree, then adds the tracked files the walk did not
// meet: b.cands and b.skips hold the outcome. Only a cancelled context is
// an error.
func (b *builder) list(ctx context.Context) error {
	b.walk(ctx)
	if err := ctx.Err(); err != nil {
		return err
	}
	b.unseen()
	return nil
}

// dirState is one directory during the walk.
type dirState struct {
	parent  *dirState
	rel     string   // "" for the root
	comps   []string // rel split at "/"
	git     []ignoreRule
	ctx     []ignoreRule
	attrs   []attrRule // linguist lines of the .gitattributes files down to d
	ignored int8       // 0 unknown, 1 not ignored, 2 ignored (by git rules)
	ignSrc  string     // the rule's source when ignored
	// vendored: d lies in a vendored tree that only its content shows
	// (bundlesPackages), walked because of Options.All or an attribute.
	vendored bool
}

func (b *builder) skip(p, reason, detail string) {
	b.skips = append(b.skips, Skip{Path: p, Reason: reason, Detail: detail})
}

// walk lists the work tree, collecting candidates and skips.
func (b *builder) walk(ctx context.Context) {
	root := &dirState{git: b.globalIgn, ignored: 1}
	b.walkDir(ctx, root)
}

func (b *builder) walkDir(ctx context.Context, d *dirState) {
	if ctx.Err() != nil {
		return // New reports the cancellation
	}
	ents, err := os.ReadDir(b.abs(d.rel))
	if err != nil {
		b.skip(d.rel+"/", SkipUnreadable, err.Error())
		return
	}
	has := func(name string) bool {
		for _, e := range ents {
			if e.Name() == name {
				return true
			}
		}
		return false
	}
	if !b.enter(d, has) {
		return
	}
	b.walkEntries(ctx, d, ents)
}

// walkEntries goes on with the entries of directory d, which enter
// accepted.
func (b *builder) walkEntries(ctx context.Context, d *dirState, ents []os.DirEntry) {
	for _, e := range ents {
		name := e.Name()
		if name == ".git" {
			continue
		}
		if e.IsDir() {
			if child := b.subdir(d, name); child != nil {
				b.walkDir(ctx, child)
			}
			continue
		}
		b.file(d, name, e.Type())
	}
}

// abs is the absolute path of rel, a slash path relative to the root.
func (b *builder) abs(rel string) string { return filepath.Join(b.root, filepath.FromSlash(rel)) }

// The walk's decisions, one function each, so that FindFiles decides as
// the walk does where it does not walk (find.go).

// enter decides on directory d, entered by the walk: a directory holding
// a .git entry (other than the root) is a repository of its own and is
// skipped, as are a cache tagged by CACHEDIR.TAG and (unless opts.All) a
// Python virtual environment; otherwise its .gitignore, .gitattributes
// and .ctxtrimignore are read into d's rules. has reports whether d holds
// an entry of a given name.
func (b *builder) enter(d *dirState, has func(name string) bool) bool {
	if d.rel != "" && has(".git") {
		// A repository of its own that is not a submodule: git treats
		// it as one untracked directory and never looks in.
		b.skip(d.rel+"/", SkipNestedRepo, "")
		b.skipDirs = append(b.skipDirs, d.rel+"/")
		return false
	}
	abs := b.abs(d.rel)
	if d.rel != "" && has("CACHEDIR.TAG") && cacheDirTag(filepath.Join(abs, "CACHEDIR.TAG")) {
		// Build output and caches (cargo's target/, .pytest_cache/…)
		// that no ignore rule left out, in a plain directory say.
		b.skip(d.rel+"/", SkipCacheDir, "CACHEDIR.TAG")
		b.skipDirs = append(b.skipDirs, d.rel+"/")
		return false
	}
	if d.rel != "" && has("pyvenv.cfg") {
		// A Python virtual environment (PEP 405): installed packages,
		// thousands of files of someone else's code, that old venv
		// versions leave to the user to ignore.
		if !b.opts.All {
			b.skip(d.rel+"/", SkipVendored, "a Python virtual environment (pyvenv.cfg)")
			b.skipDirs = append(b.skipDirs, d.rel+"/")
			return false
		}
		d.vendored = true
	}
	prefix := d.prefix()
	if has(".gitignore") {
		d.git = append(d.git[:len(d.git):len(d.git)], readIgnoreFile(filepath.Join(abs, ".gitignore"), d.comps, prefix+".gitignore")...)
	}
	if has(".gitattributes") {
		d.attrs = append(d.attrs[:len(d.attrs):len(d.attrs)], readAttributes(filepath.Join(abs, ".gitattributes"), d.comps, prefix+".gitattributes")...)
	}
	if has(".ctxtrimignore") {
		d.ctx = append(d.ctx[:len(d.ctx):len(d.ctx)], readIgnoreFile(filepath.Join(abs, ".ctxtrimignore"), d.comps, prefix+".ctxtrimignore")...)
	}
	return true
}

// prefix is d's path with a trailing slash, "" for the root.
func (d *dirState) prefix() string {
	if d.rel == "" {
		return ""
	}
	return d.rel + "/"
}

// subdir decides on the subdirectory name of d: its state if the walk
// descends into it, nil (with the skip recorded) if not.
func (b *builder) subdir(d *dirState, name string) *dirState {
	rel := d.prefix() + name
	comps := append(d.comps[:len(d.comps):len(d.comps)], name)
	if h, ok := b.submodules[rel]; ok {
		b.seen[rel] = true
		b.skip(rel+"/", SkipSubmodule, "commit "+h.String())
		b.skipDirs = append(b.skipDirs, rel+"/")
		return nil
	}
	if ex, src := match(d.ctx, comps, true); ex {
		b.skip(rel+"/", SkipCtxtrimignore, src)
		b.skipDirs = append(b.skipDirs, rel+"/")
		return nil
	}
	child := &dirState{parent: d, rel: rel, comps: comps, git: d.git, ctx: d.ctx, attrs: d.attrs}
	if !b.trackedDir[rel] {
		if ign, src := child.isIgnored(); ign {
			b.skip(rel+"/", SkipIgnored, src)
			return nil
		}
	}
	// Vendored trees are skipped whole: every file in them would be,
	// unless a linguist attribute says some are not (attributes.go).
	byPath := inVendoredDir(comps)
	bundle := !byPath && !d.vendored && name == "packages" && b.bundlesPackages(d.rel, rel)
	if (byPath || bundle) && !b.opts.All && !unvendors(b.infoAttrs, d.attrs, comps) {
		detail := "by path"
		if bundle {
			detail = "packages bundled in a Python package"
		}
		b.skip(rel+"/", SkipVendored, detail)
		b.skipDirs = append(b.skipDirs, rel+"/")
		return nil
	}
	child.vendored = d.vendored || bundle
	return child
}

// cacheDirSignature opens a CACHEDIR.TAG file (the Cache Directory
// Tagging Specification, which tar --exclude-caches and backup tools
// honour); without it the file tags nothing.
const cacheDirSignature = "Signature: 8a477f597d28d172789f06886806bc55"

// cacheDirTag reports whether the file at p starts with the signature.
func cacheDirTag(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(cacheDirSignature))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == cacheDirSignature
}

// bundlesPackages reports whether directory rel, named "packages" in the
// directory parent, is where a Python package bundles other projects'
// packages: it and its parent are Python packages (they hold an
// __init__.py), and it holds a package. requests kept urllib3 and chardet
// so (requests/packages/urllib3) until 2.16; ranked, those copies took
// the top places in 35 of 60 of its kit tasks, and were the answer in
// one. A monorepo's packages/ (not inside a Python package) and a
// package's own packages module (no package under it) are not bundles.
func (b *builder) bundlesPackages(parent, rel string) bool {
	isPkg := func(dir string) bool {
		fi, err := os.Stat(filepath.Join(b.abs(dir), "__init__.py"))
		return err == nil && fi.Mode().IsRegular()
	}
	if parent == "" || !isPkg(parent) || !isPkg(rel) {
		return false
	}
	ents, err := os.ReadDir(b.abs(rel))
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.IsDir() && isPkg(rel+"/"+e.Name()) {
			return true
		}
	}
	return false
}

// file decides on the file (any entry but a directory) name of d, of type
// mode: it becomes a candidate, or its skip is recorded. It reports which.
func (b *builder) file(d *dirState, name string, mode fs.FileMode) bool {
	rel := d.prefix() + name
	comps := append(d.comps[:len(d.comps):len(d.comps)], name)
	entry := b.entries[rel]
	if entry != nil && entry.Mode == filemode.Submodule {
		b.seen[rel] = true
		b.skip(rel, SkipSubmodule, "commit "+entry.Hash.String()+" (not checked out)")
		return false
	}
	if ex, src := match(d.ctx, comps, false); ex {
		b.seen[rel] = true
		b.skip(rel, SkipCtxtrimignore, src)
		return false
	}
	if entry == nil {
		if ign, src := d.isIgnored(); ign {
			// Under an ignored directory that holds tracked files.
			b.skip(rel, SkipIgnored, src)
			return false
		}
		if ign, src := match(d.git, comps, false); ign {
			b.skip(rel, SkipIgnored, src)
			return false
		}
	}
	b.seen[rel] = true
	c := candidate{path: rel, entry: entry, mode: mode, vendored: d.vendored}
	if len(b.infoAttrs)+len(d.attrs) > 0 {
		c.ling = linguistOf(b.infoAttrs, d.attrs, comps)
	}
	b.cands = append(b.cands, c)
	return true
}

// unseen reports index entries the walk did not meet.
func (b *builder) unseen() {
	for p, e := range b.entries {
		if b.seen[p] || hasAnyPrefix(p, b.skipDirs) {
			continue
		}
		switch {
		case e.Mode == filemode.Submodule:
			b.skip(p, SkipSubmodule, "commit "+e.Hash.String()+" (not checked out)")
		case e.SkipWorktree:
			b.skip(p, SkipSparse, "")
		default:
			fi, err := os.Lstat(filepath.Join(b.root, filepath.FromSlash(p)))
			if err != nil {
				b.skip(p, SkipDeleted, "")
				continue
			}
			// Under a directory the walk could not list, or ignored.
			b.cands = append(b.cands, candidate{path: p, entry: e, mode: fi.Mode().Type()})
		}
	}
}
