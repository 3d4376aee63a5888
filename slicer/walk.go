package slicer

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/sync/errgroup"
)

// defaultMaxFileSize is IndexOptions.MaxFileSize's zero value: larger files
// are data or generated far more often than hand-written code, and one of
// them would eat a prompt on its own.
const defaultMaxFileSize = 1 << 20

// bytesPerToken converts sizes to File.Tokens. Four bytes per token is the
// usual figure for English and code under the o200k/cl100k encodings; the
// estimate only orders and pre-filters files, the final text is counted
// exactly by the budget.Counter.
const bytesPerToken = 4

// IndexOptions configures NewIndex. The zero value is valid; NewIndex does
// not modify it.
type IndexOptions struct {
	// Dir is a directory inside the work tree (any subdirectory works: the
	// whole work tree is indexed) or a plain directory. "" means the current
	// directory.
	Dir string
	// MaxFileSize skips larger files; 0 means 1 MiB, a negative value means
	// no limit.
	MaxFileSize int64
	// Parallelism bounds the extraction workers; 0 means GOMAXPROCS.
	Parallelism int
	// CacheDir holds the extraction cache; "" means os.UserCacheDir()/ctxtrim.
	CacheDir string
	// NoCache neither reads nor writes the cache.
	NoCache bool
	// All keeps vendored, lock, generated, minified and fixture files in
	// Files, classified for down-weighting, instead of skipping them.
	All bool
	// Logf receives diagnostics (an unreadable cache, a file tree-sitter
	// gave up on). Nil discards them.
	Logf func(format string, args ...any)
	// Progress, when set, is called with the number of files processed and
	// the total, at most once per 64 files and once at the end. Calls are
	// serialized. The library never prints; the CLI decides how to show it.
	Progress func(done, total int)
}

// NewIndex builds the index of the repository or directory at opts.Dir.
//
// The file set is what a user expects git to consider: the files in the git
// index plus untracked files that no ignore rule excludes, minus what
// .ctxtrimignore excludes. Ignore rules come from go-git's gitignore package,
// lowest precedence first: core.excludesFile (repository config, then
// ~/.gitconfig, then $XDG_CONFIG_HOME/git/config; default
// $XDG_CONFIG_HOME/git/ignore), .git/info/exclude (of the common git
// directory, so linked worktrees share it), then .gitignore files from the
// root down, a deeper file overriding a shallower one. As in git, ignore
// rules never apply to tracked files, and nothing under an ignored directory
// can be re-included. .ctxtrimignore files use the same syntax at every
// level and apply to tracked and untracked files alike, after the git
// rules. In a plain directory .gitignore and .ctxtrimignore files are
// honoured too.
//
// Change detection reads the git index (paths, blob hashes, sizes, mtimes)
// and stats each file: a file whose size and mtime match its index entry
// (and is not racily clean) keeps the index's blob hash without being read;
// only changed and untracked files are read and hashed. Staged changes come
// from comparing the index with HEAD, subtree by subtree, skipping every
// subtree whose cached tree hash (the index's TREE extension) equals HEAD's.
// A full go-git Worktree.Status is never run.
//
// Extraction runs on a bounded pool of workers, each with its own
// tree-sitter parser, and its results are cached by blob hash (cache.go),
// so a warm run reads no file that has not changed.
//
// Problems with one file end up in Index.Skipped with a reason; only a
// failure of the whole request (an unreadable directory, a cancelled
// context) is returned as an error.
func NewIndex(ctx context.Context, opts *IndexOptions) (*Index, error) {
	b, err := newBuilder(opts)
	if err != nil {
		return nil, err
	}
	b.openCache()
	if err := b.readGit(); err != nil {
		return nil, err
	}
	if err := b.readHead(); err != nil {
		return nil, err
	}
	if err := b.list(ctx); err != nil {
		return nil, err
	}
	if err := b.extractAll(ctx); err != nil {
		return nil, err
	}
	return b.finish(), nil
}

// FileList is the outcome of ListFiles: the files of a work tree (or plain
// directory) that pass the ignore rules, and what was left out on the way.
type FileList struct {
	Root    string   // absolute path of the work tree (or plain directory), symlinks resolved
	Paths   []string // slash-separated, relative to Root, sorted
	Skipped []Skip   // sorted by Path; a directory left out whole ends in "/"
}

// ListFiles lists the files NewIndex would go on to read for the same
// options, without reading or extracting any: the walk and ignore rules of
// NewIndex (see there for their precedence), and nothing after them. Of
// opts only Dir, All and Logf are used; nil means the zero IndexOptions.
//
// Paths are the tracked files present in the work tree plus the untracked
// files no ignore rule excludes, minus what .ctxtrimignore excludes. Skipped
// holds what the walk decides: SkipIgnored, SkipCtxtrimignore,
// SkipSubmodule, SkipNestedRepo, SkipDeleted, SkipSparse, SkipUnreadable for
// a directory that cannot be listed, and, unless opts.All, SkipVendored for
// vendored directories. NewIndex may still leave out a listed path for what
// only its file mode, size or content shows (a symbolic link leaving the
// work tree, a binary or generated file, …) or, unless opts.All, for its
// path class (lock files, large fixtures).
//
// It reads the git index and the ignore files, but neither HEAD nor any
// listed file: it costs NewIndex's walk, not its hashing and extraction.
// Errors are those of NewIndex before extraction: an unreadable directory
// or repository, a cancelled context.
func ListFiles(ctx context.Context, opts *IndexOptions) (*FileList, error) {
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

// newBuilder checks opts.Dir and opens its work tree and repository.
func newBuilder(opts *IndexOptions) (*builder, error) {
	if opts == nil {
		opts = &IndexOptions{}
	}
	b := &builder{opts: opts, logf: opts.Logf}
	if b.logf == nil {
		b.logf = func(string, ...any) {}
	}
	b.maxSize = opts.MaxFileSize
	if b.maxSize == 0 {
		b.maxSize = defaultMaxFileSize
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("index %s: not a directory", dir)
	}
	if err := b.open(abs); err != nil {
		return nil, err
	}
	return b, nil
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

// ReadFile returns the content of path (slash-separated, relative to
// ix.Root) as it is in the work tree now. Symbolic links are followed only
// inside the work tree.
func (ix *Index) ReadFile(p string) ([]byte, error) {
	r, err := os.OpenRoot(ix.Root)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	defer r.Close()
	b, err := r.ReadFile(filepath.FromSlash(p))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return b, nil
}

// Repository returns the repository the index was built from, or nil for a
// plain directory. Callers read history from HEAD only.
func (ix *Index) Repository() *git.Repository { return ix.repo }

// File returns the indexed file at path, if any.
func (ix *Index) File(p string) (*File, bool) {
	i := sort.Search(len(ix.Files), func(i int) bool { return ix.Files[i].Path >= p })
	if i < len(ix.Files) && ix.Files[i].Path == p {
		return &ix.Files[i], true
	}
	return nil, false
}

// builder holds the state of one NewIndex call.
type builder struct {
	opts    *IndexOptions
	logf    func(string, ...any)
	maxSize int64

	root      string // work tree root, symlinks resolved
	repo      *git.Repository
	gitDir    string // git directory of the work tree ("" in a plain directory)
	commonDir string // common git directory ("" in a plain directory)
	head      string
	indexTime time.Time    // mtime of the git index file
	idx       *index.Index // the git index (nil in a plain directory)

	entries    map[string]*index.Entry // tracked paths (stage 0, or the first stage of a conflict)
	conflicted map[string]bool
	trackedDir map[string]bool // directories holding tracked files, and their ancestors
	submodules map[string]plumbing.Hash
	staged     map[string]bool
	seen       map[string]bool
	skipDirs   []string // directories skipped as a whole, with a trailing "/"
	globalIgn  []ignoreRule
	cache      *cache
	strs       interner

	cands []candidate
	skips []Skip
	files []File
}

// candidate is a path the walk found that may become a File.
type candidate struct {
	path  string
	entry *index.Entry // nil when untracked
	mode  fs.FileMode  // type bits from the directory entry
}

// ignoreRule is one gitignore pattern and the file it came from.
type ignoreRule struct {
	p   gitignore.Pattern
	src string
}

// open finds the work tree and repository for abs.
func (b *builder) open(abs string) error {
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
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
	b.entries = map[string]*index.Entry{}
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
	var idx *index.Index
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
			if prev.Stage == index.Merged || e.Stage != index.OurMode {
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
			return err
		}
	}
	return nil
}

// diffHead fills b.staged with the index entries that differ from HEAD.
func (b *builder) diffHead(idx *index.Index, head plumbing.Hash) error {
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
	repo, err := git.PlainOpenWithOptions(b.root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
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

// commitTree reads the tree hash of a commit straight from the object
// database: a loose object, or a whole (undeltified) object in a pack found
// through its .idx. go-git's CommitObject first maps every pack offset to
// its hash (a tenth of a second and 40 MB on moby), which a cold index would
// pay just to learn that the git index matches HEAD. ok is false when the
// commit is stored any other way (as a delta, say) or anything does not
// read; the caller then asks go-git.
func commitTree(commonDir string, commit plumbing.Hash) (tree plumbing.Hash, ok bool) {
	if commonDir == "" {
		return plumbing.ZeroHash, false
	}
	name := commit.String()
	objects := filepath.Join(commonDir, "objects")
	var content []byte
	if f, err := os.Open(filepath.Join(objects, name[:2], name[2:])); err == nil {
		defer f.Close()
		z, err := zlib.NewReader(f)
		if err != nil {
			return plumbing.ZeroHash, false
		}
		defer z.Close()
		head, err := io.ReadAll(io.LimitReader(z, 64<<10))
		if err != nil && len(head) == 0 {
			return plumbing.ZeroHash, false
		}
		i := bytes.IndexByte(head, 0)
		if i < 0 || !bytes.HasPrefix(head, []byte("commit ")) {
			return plumbing.ZeroHash, false
		}
		content = head[i+1:]
	} else {
		idxs, _ := filepath.Glob(filepath.Join(objects, "pack", "pack-*.idx"))
		for _, p := range idxs {
			if c, found := packedCommit(p, commit); found {
				content = c
				break
			}
		}
	}
	line, _, _ := bytes.Cut(content, []byte("\n"))
	t, found := bytes.CutPrefix(line, []byte("tree "))
	if !found || len(t) != 40 {
		return plumbing.ZeroHash, false
	}
	if _, err := hex.DecodeString(string(t)); err != nil {
		return plumbing.ZeroHash, false
	}
	return plumbing.NewHash(string(t)), true
}

// packedCommit returns the content of commit if the pack whose index is at
// idxPath holds it whole.
func packedCommit(idxPath string, commit plumbing.Hash) ([]byte, bool) {
	f, err := os.Open(idxPath)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bufio.NewReader(f)).Decode(idx); err != nil {
		return nil, false
	}
	off, err := idx.FindOffset(commit)
	if err != nil {
		return nil, false
	}
	pf, err := os.Open(strings.TrimSuffix(idxPath, ".idx") + ".pack")
	if err != nil {
		return nil, false
	}
	defer pf.Close()
	sc := packfile.NewScanner(pf)
	h, err := sc.SeekObjectHeader(off)
	if err != nil || h.Type != plumbing.CommitObject || h.Length > 1<<20 {
		return nil, false
	}
	var buf bytes.Buffer
	if _, _, err := sc.NextObject(&buf); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// cacheTree maps directories ("" for the root, else "a/b/") to the tree hash
// the index's TREE extension records for them; invalidated entries are left
// out.
func cacheTree(idx *index.Index) map[string]plumbing.Hash {
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

// globalIgnores reads core.excludesFile and .git/info/exclude.
func (b *builder) globalIgnores() []ignoreRule {
	var rules []ignoreRule
	if f := b.excludesFile(); f != "" {
		rules = append(rules, readIgnoreFile(f, nil, "core.excludesFile "+f)...)
	}
	if b.commonDir != "" {
		rules = append(rules, readIgnoreFile(filepath.Join(b.commonDir, "info", "exclude"), nil, ".git/info/exclude")...)
	}
	return rules
}

// excludesFile locates core.excludesFile the way git does.
func (b *builder) excludesFile() string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var configs []string
	if b.commonDir != "" {
		configs = append(configs, filepath.Join(b.commonDir, "config"))
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" {
		configs = append(configs, filepath.Join(xdg, "git", "config"))
	}
	for _, c := range configs {
		data, err := os.ReadFile(c)
		if err != nil {
			continue
		}
		cfg := formatcfg.New()
		if err := formatcfg.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
			b.logf("read %s: %v", c, err)
			continue
		}
		if f := cfg.Section("core").Options.Get("excludesfile"); f != "" {
			if strings.HasPrefix(f, "~/") && home != "" {
				f = filepath.Join(home, f[2:])
			}
			return f
		}
	}
	if xdg != "" {
		return filepath.Join(xdg, "git", "ignore")
	}
	return ""
}

// readIgnoreFile parses a gitignore-syntax file whose patterns apply below
// domain. A missing file has no rules.
func readIgnoreFile(file string, domain []string, src string) []ignoreRule {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var rules []ignoreRule
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		rules = append(rules, ignoreRule{p: gitignore.ParsePattern(line, domain), src: src})
	}
	return rules
}

// match applies rules, last first as git does, and returns the source of
// the deciding rule when it excludes the path.
func match(rules []ignoreRule, comps []string, isDir bool) (excluded bool, src string) {
	for i := len(rules) - 1; i >= 0; i-- {
		switch rules[i].p.Match(comps, isDir) {
		case gitignore.Exclude:
			return true, rules[i].src
		case gitignore.Include:
			return false, ""
		}
	}
	return false, ""
}

// dirState is one directory during the walk.
type dirState struct {
	parent  *dirState
	rel     string   // "" for the root
	comps   []string // rel split at "/"
	git     []ignoreRule
	ctx     []ignoreRule
	ignored int8   // 0 unknown, 1 not ignored, 2 ignored (by git rules)
	ignSrc  string // the rule's source when ignored
}

// isIgnored reports whether git rules exclude this directory or one of its
// ancestors, computing lazily: directories with tracked files are walked
// anyway, and most never hold an untracked file.
func (d *dirState) isIgnored() (bool, string) {
	if d.ignored == 0 {
		d.ignored = 1
		if d.parent != nil {
			if ign, src := d.parent.isIgnored(); ign {
				d.ignored, d.ignSrc = 2, src
			} else if ign, src := match(d.parent.git, d.comps, true); ign {
				d.ignored, d.ignSrc = 2, src
			}
		}
	}
	return d.ignored == 2, d.ignSrc
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
		return // NewIndex reports the cancellation
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
// skipped; otherwise its .gitignore and .ctxtrimignore are read into d's
// rules. has reports whether d holds an entry of a given name.
func (b *builder) enter(d *dirState, has func(name string) bool) bool {
	if d.rel != "" && has(".git") {
		// A repository of its own that is not a submodule: git treats
		// it as one untracked directory and never looks in.
		b.skip(d.rel+"/", SkipNestedRepo, "")
		b.skipDirs = append(b.skipDirs, d.rel+"/")
		return false
	}
	abs := b.abs(d.rel)
	prefix := d.prefix()
	if has(".gitignore") {
		d.git = append(d.git[:len(d.git):len(d.git)], readIgnoreFile(filepath.Join(abs, ".gitignore"), d.comps, prefix+".gitignore")...)
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
	child := &dirState{parent: d, rel: rel, comps: comps, git: d.git, ctx: d.ctx}
	if !b.trackedDir[rel] {
		if ign, src := child.isIgnored(); ign {
			b.skip(rel+"/", SkipIgnored, src)
			return nil
		}
	}
	// Vendored trees are skipped whole: every file in them would be.
	if !b.opts.All && classifyPath(rel+"/x") == Vendored {
		b.skip(rel+"/", SkipVendored, "by path")
		b.skipDirs = append(b.skipDirs, rel+"/")
		return nil
	}
	return child
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
	b.cands = append(b.cands, candidate{path: rel, entry: entry, mode: mode})
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

// result is one candidate's outcome, written by one worker.
type result struct {
	file File
	skip *Skip
	key  string // cache key in use, "" if none
}

// openCache opens the repository's extraction cache (or none).
func (b *builder) openCache() {
	var c *cache
	if b.opts.NoCache {
		c = noCache()
	} else {
		dir := b.opts.CacheDir
		if dir == "" {
			var err error
			if dir, err = defaultCacheDir(); err != nil {
				b.logf("%v (cache disabled)", err)
			}
		}
		id := b.commonDir
		if id == "" {
			id = b.root
		}
		if dir == "" {
			c = noCache()
		} else {
			c = openCache(dir, id, cacheVersion(), b.logf)
		}
	}
	b.cache = c
}

// extractAll processes the candidates on a bounded pool of workers.
func (b *builder) extractAll(ctx context.Context) error {
	c := b.cache
	n := b.opts.Parallelism
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	n = min(n, max(1, len(b.cands)))

	results := make([]result, len(b.cands))
	var next, done atomic.Int64
	var progMu sync.Mutex
	total := len(b.cands)
	g, gctx := errgroup.WithContext(ctx)
	for range n {
		g.Go(func() error {
			w := &worker{b: b, cache: c, x: newExtractor(compiled)}
			defer w.close()
			for {
				i := int(next.Add(1) - 1)
				if i >= total {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				r, err := w.process(gctx, b.cands[i])
				if err != nil {
					return err
				}
				results[i] = r
				if d := int(done.Add(1)); b.opts.Progress != nil && (d%64 == 0 || d == total) {
					progMu.Lock()
					b.opts.Progress(d, total)
					progMu.Unlock()
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	inUse := make(map[string]bool, len(results))
	for i := range results {
		r := &results[i]
		if r.key != "" {
			inUse[r.key] = true
		}
		if r.skip != nil {
			b.skips = append(b.skips, *r.skip)
			continue
		}
		b.files = append(b.files, r.file)
	}
	if err := c.save(inUse); err != nil {
		b.logf("%v", err)
	}
	return nil
}

// worker processes candidates one at a time with its own parser.
type worker struct {
	b     *builder
	cache *cache
	x     *extractor
	buf   []byte
	seen  map[string]struct{}
}

func (w *worker) close() { w.x.close() }

// process turns one candidate into a File or a Skip. Only a cancelled
// context is an error.
func (w *worker) process(ctx context.Context, c candidate) (result, error) {
	b := w.b
	skip := func(reason, detail string) (result, error) {
		return result{skip: &Skip{Path: c.path, Reason: reason, Detail: detail}}, nil
	}
	abs := filepath.Join(b.root, filepath.FromSlash(c.path))
	readPath := abs
	symlink := c.mode&fs.ModeSymlink != 0
	var fi fs.FileInfo
	var err error
	if symlink {
		target, err := filepath.EvalSymlinks(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return skip(SkipSymlinkBroken, readlink(abs))
			}
			if strings.Contains(err.Error(), "too many links") {
				return skip(SkipSymlinkLoop, readlink(abs))
			}
			return skip(SkipUnreadable, err.Error())
		}
		if rel, err := filepath.Rel(b.root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return skip(SkipSymlinkOutside, readlink(abs))
		}
		readPath = target
		fi, err = os.Stat(target)
		if err != nil {
			return skip(SkipUnreadable, err.Error())
		}
		if fi.IsDir() {
			return skip(SkipSymlinkDir, readlink(abs))
		}
	} else if fi, err = os.Lstat(abs); err != nil {
		return skip(SkipUnreadable, err.Error())
	}
	if !fi.Mode().IsRegular() {
		return skip(SkipSpecial, fi.Mode().Type().String())
	}

	class := classifyPath(c.path)
	if r := classSkip(class); r != "" && !b.opts.All {
		return skip(r, "by path")
	}
	size := fi.Size()
	if b.maxSize > 0 && size > b.maxSize {
		return skip(SkipTooLarge, fmt.Sprintf("%d bytes > %d", size, b.maxSize))
	}
	if size > maxFixtureBytes && class == Test && isFixturePath(c.path) {
		class = Fixture
		if !b.opts.All {
			return skip(SkipFixture, fmt.Sprintf("%d bytes > %d", size, maxFixtureBytes))
		}
	}

	// Blob hash and status.
	var content []byte
	var blob string
	var status Status
	e := c.entry
	switch {
	case b.repo == nil:
	case e == nil:
		status |= Untracked
	case b.staged[c.path]:
		status |= Staged
	}
	if e != nil && !symlink && (e.Mode == filemode.Regular || e.Mode == filemode.Executable) &&
		int64(e.Size) == size&0xffffffff && e.ModifiedAt.Equal(fi.ModTime()) && !b.racy(fi) && !b.conflicted[c.path] {
		blob = e.Hash.String()
	} else {
		if content, err = w.read(readPath, size); err != nil {
			return skip(SkipUnreadable, err.Error())
		}
		blob = hashBlob(content)
		if e != nil {
			same := blob == e.Hash.String()
			if symlink && e.Mode == filemode.Symlink {
				t, _ := os.Readlink(abs)
				same = hashBlob([]byte(t)) == e.Hash.String()
			}
			if !same || e.IntentToAdd || b.conflicted[c.path] {
				status |= Modified
			}
		}
	}

	hint := detectLang(c.path, nil)
	if hint == "" && path.Ext(c.path) == "" {
		hint = "#!" // the "#!" line decides: part of the content
	}
	key := cacheKey(blob, hint)
	ce, ok := w.cache.get(key)
	if !ok {
		if content == nil {
			if content, err = w.read(readPath, size); err != nil {
				return skip(SkipUnreadable, err.Error())
			}
		}
		if ce, err = w.analyze(ctx, c.path, content); err != nil {
			return result{}, err
		}
		w.cache.put(key, ce)
	}
	res := result{key: key}
	switch {
	case ce.Binary:
		res.skip = &Skip{Path: c.path, Reason: SkipBinary}
		return res, nil
	case ce.Generated:
		class = Generated
	case ce.Minified:
		class = Minified
	}
	if r := classSkip(class); r != "" && !b.opts.All {
		res.skip = &Skip{Path: c.path, Reason: r, Detail: "by content"}
		return res, nil
	}
	res.file = File{
		Path:    c.path,
		Size:    size,
		Lang:    ce.Lang,
		Blob:    blob,
		Status:  status,
		Class:   class,
		Tokens:  ce.Tokens,
		Symbols: ce.Symbols,
		Refs:    ce.Refs,
	}
	return res, nil
}

// racy reports a file modified in the same second as, or after, the git
// index was written: its stat data cannot prove it unchanged (git's "racily
// clean" entries), so it is hashed.
func (b *builder) racy(fi fs.FileInfo) bool {
	return b.indexTime.IsZero() || !fi.ModTime().Before(b.indexTime)
}

// read reads a file into the worker's buffer.
func (w *worker) read(p string, size int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if int64(cap(w.buf)) < size+1 {
		w.buf = make([]byte, 0, size+512)
	}
	buf := w.buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if w.b.maxSize > 0 && int64(len(buf)) > w.b.maxSize {
			return nil, fmt.Errorf("grew past %d bytes while reading", w.b.maxSize)
		}
	}
	w.buf = buf
	return buf, nil
}

// analyze computes the cacheable facts about one file's content.
func (w *worker) analyze(ctx context.Context, p string, src []byte) (*cacheEntry, error) {
	ce := &cacheEntry{}
	if isBinary(src) {
		ce.Binary = true
		return ce, nil
	}
	ce.Generated = isGeneratedContent(src)
	ce.Minified = isMinified(src)
	ce.Tokens = (len(src) + bytesPerToken - 1) / bytesPerToken
	if w.seen == nil {
		w.seen = map[string]struct{}{}
	}
	lang := detectLang(p, src)
	if lang != "" && !ce.Minified {
		syms, refs, err := w.x.extract(ctx, lang, src)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			w.b.logf("%s: %v (indexed lexically)", p, err)
		default:
			ce.Lang, ce.Symbols, ce.Refs = lang, w.b.strs.symbols(syms), w.b.strs.all(refs)
			return ce, nil
		}
	}
	ce.Refs = w.b.strs.all(lexicalRefs(src, w.seen))
	return ce, nil
}

// interner shares one copy of each identifier among all files: the same
// names recur across a repository, and the refs are most of an index's
// memory. It is safe for concurrent use.
type interner struct {
	mu sync.Mutex
	m  map[string]string
}

// all replaces the strings of ss by their shared copies, in place.
func (in *interner) all(ss []string) []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.m == nil {
		in.m = map[string]string{}
	}
	for i, s := range ss {
		if t, ok := in.m[s]; ok {
			ss[i] = t
		} else {
			in.m[s] = s
		}
	}
	return ss
}

// symbols shares the names and scopes of syms, in place: method and
// receiver names repeat across files as identifiers do.
func (in *interner) symbols(syms []Symbol) []Symbol {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.m == nil {
		in.m = map[string]string{}
	}
	for i := range syms {
		s := &syms[i]
		for _, p := range []*string{&s.Name, &s.Scope} {
			if *p == "" {
				continue
			}
			if t, ok := in.m[*p]; ok {
				*p = t
			} else {
				in.m[*p] = *p
			}
		}
	}
	return syms
}

// hashBlob is git's blob hash of content.
func hashBlob(content []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

func readlink(p string) string {
	t, err := os.Readlink(p)
	if err != nil {
		return ""
	}
	return "-> " + t
}

func isFixturePath(p string) bool {
	dirs := strings.Split(p, "/")
	base := dirs[len(dirs)-1]
	return isFixtureDir(dirs[:len(dirs)-1]) || isDataFile(base) || strings.HasSuffix(base, ".golden") || strings.HasSuffix(base, ".snap")
}

// finish sorts and assembles the index.
func (b *builder) finish() *Index {
	sort.Slice(b.files, func(i, j int) bool { return b.files[i].Path < b.files[j].Path })
	sort.Slice(b.skips, func(i, j int) bool { return b.skips[i].Path < b.skips[j].Path })
	return &Index{Root: b.root, Head: b.head, Files: b.files, Skipped: b.skips, repo: b.repo}
}
