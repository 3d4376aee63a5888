package index

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	gitidx "github.com/go-git/go-git/v5/plumbing/format/index"
)

// This file holds New, its options and the state of one build: the steps
// are in gitrepo.go (the git index and HEAD), walk.go (the walk and its
// decisions), ignore.go (ignore rules), pool.go and process.go (the
// workers that read, classify and extract each file).

// defaultMaxFileSize is Options.MaxFileSize's zero value: larger files
// are data or generated far more often than hand-written code, and one of
// them would eat a prompt on its own.
const defaultMaxFileSize = 1 << 20

// bytesPerToken converts sizes to File.Tokens. Four bytes per token is the
// usual figure for English and code under the o200k/cl100k encodings; the
// estimate only orders and pre-filters files, the final text is counted
// exactly by the budget.Counter.
const bytesPerToken = 4

// Options configures New. The zero value is valid; New does not modify it.
type Options struct {
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
	// The cache owns its index-*.bin and index-*.tmp files and trim.txt
	// there: it deletes those of repositories unused for 30 days.
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

// New builds the index of the repository or directory at opts.Dir.
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
func New(ctx context.Context, opts *Options) (*Index, error) {
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

// newBuilder checks opts.Dir and opens its work tree and repository.
func newBuilder(opts *Options) (*builder, error) {
	if opts == nil {
		opts = &Options{}
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

// builder holds the state of one New call.
type builder struct {
	opts    *Options
	logf    func(string, ...any)
	maxSize int64

	root      string // work tree root, symlinks resolved
	repo      *git.Repository
	gitDir    string // git directory of the work tree ("" in a plain directory)
	commonDir string // common git directory ("" in a plain directory)
	head      string
	gitErr    error         // HEAD's commit could not be read (see Index.GitErr)
	indexTime time.Time     // mtime of the git index file
	idx       *gitidx.Index // the git index (nil in a plain directory)

	entries    map[string]*gitidx.Entry // tracked paths (stage 0, or the first stage of a conflict)
	conflicted map[string]bool
	trackedDir map[string]bool // directories holding tracked files, and their ancestors
	submodules map[string]plumbing.Hash
	staged     map[string]bool
	seen       map[string]bool
	skipDirs   []string // directories skipped as a whole, with a trailing "/"
	globalIgn  []ignoreRule
	infoAttrs  []attrRule // linguist lines of .git/info/attributes
	cache      *cache
	strs       interner

	cands []candidate
	skips []Skip
	files []File
}

// candidate is a path the walk found that may become a File.
type candidate struct {
	path  string
	entry *gitidx.Entry // nil when untracked
	mode  fs.FileMode   // type bits from the directory entry
	// vendored: in a vendored tree its path alone does not show
	// (builder.bundlesPackages), walked because of Options.All or an
	// attribute.
	vendored bool
	ling     linguist // its linguist attributes (attributes.go)
}

// finish sorts and assembles the index.
func (b *builder) finish() *Index {
	sort.Slice(b.files, func(i, j int) bool { return b.files[i].Path < b.files[j].Path })
	sort.Slice(b.skips, func(i, j int) bool { return b.skips[i].Path < b.skips[j].Path })
	return &Index{Root: b.root, Head: b.head, Files: b.files, Skipped: b.skips, GitErr: b.gitErr, repo: b.repo}
}
