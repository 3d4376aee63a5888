package split

// Reading the input: the diff of a commit range, the staged diff, or the
// files matching globs. These touch the file system and the git repository
// but, like the rest of the package, never print: what they leave out is
// returned for the caller to report.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	fdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// ErrBadRange is returned (wrapped) by RangeDiff when the range is not
// REV..REV or REV...REV with both revisions given.
var ErrBadRange = errors.New("bad commit range")

// RangeDiff returns the unified diff, read with go-git, between two commits
// of the git repository holding dir (found upwards from dir; linked work
// trees are supported). spec is "A..B", the diff from A to B, or "A...B",
// the diff from the merge base of A and B (the first one go-git finds) to
// B. A and B are any revisions go-git resolves. The diff has go-git's
// default three lines of context and its rename detection (as StagedDiff).
func RangeDiff(dir, spec string) (string, error) {
	from, to, ok := strings.Cut(spec, "...")
	mergeBase := ok
	if !ok {
		from, to, ok = strings.Cut(spec, "..")
	}
	if !ok || from == "" || to == "" {
		return "", fmt.Errorf("split: %w %q: want REV..REV or REV...REV", ErrBadRange, spec)
	}
	r, err := openRepo(dir)
	if err != nil {
		return "", err
	}
	a, err := resolveCommit(r, from)
	if err != nil {
		return "", err
	}
	b, err := resolveCommit(r, to)
	if err != nil {
		return "", err
	}
	if mergeBase {
		bases, err := a.MergeBase(b)
		if err != nil {
			return "", fmt.Errorf("merge base of %s and %s: %w", from, to, err)
		}
		if len(bases) == 0 {
			return "", fmt.Errorf("%s and %s have no merge base", from, to)
		}
		a = bases[0]
	}
	p, err := a.Patch(b)
	if err != nil {
		return "", fmt.Errorf("diff %s: %w", spec, err)
	}
	text, err := unified(p)
	if err != nil {
		return "", fmt.Errorf("encode diff %s: %w", spec, err)
	}
	return text, nil
}

// SkipReason says why ReadFiles left a matching file out.
type SkipReason uint8

// Skip reasons.
const (
	SkipIgnored SkipReason = iota + 1 // an ignore rule of the index excludes it (see ReadFiles)
	SkipBinary                        // a NUL byte in its first 8000 bytes
	SkipNotUTF8                       // not valid UTF-8, as the index leaves it out (index.SkipNotUTF8)
)

// Skip is a file that ReadFiles matched but left out of the Input.
type Skip struct {
	Path   string // slash-separated, relative to dir
	Reason SkipReason
}

// ReadFiles reads the regular files under dir that match any of the
// doublestar patterns (relative to dir, slash-separated; symbolic links are
// not followed; nothing under .git/ is taken) and returns them as an Input
// of Kind Files, one Source per file, sorted by path.
//
// Unless keepIgnored is set, the files that the index's ignore rules
// exclude are left out: the same rules, applied by index.ListFiles, that
// decide which files index.New considers. Lowest precedence first:
// core.excludesFile, the common git directory's info/exclude, the .gitignore
// files from the work tree's root down (none of these hides a tracked file),
// then .ctxtrimignore files, which hide tracked files too. Outside a work
// tree the .gitignore and .ctxtrimignore files at and below dir apply; in a
// bare repository nothing is left out. Binary files are always left out.
// Every file left out is reported in skipped: first the ignored ones in
// match order, then the binary ones in path order. skipped is returned with
// the error too, holding what was left out until then.
//
// It fails on an invalid pattern, when no file matches (after dropping the
// ignored ones), when every matching file is binary, and on the first file
// it cannot read.
func ReadFiles(dir string, patterns []string, keepIgnored bool) (in Input, skipped []Skip, err error) {
	in = Input{Kind: Files}
	fsys := os.DirFS(dir)
	seen := map[string]bool{}
	var paths []string
	for _, p := range patterns {
		if !doublestar.ValidatePattern(p) {
			return in, nil, fmt.Errorf("split: bad pattern %q", p)
		}
		matches, err := doublestar.Glob(fsys, p, doublestar.WithFilesOnly(), doublestar.WithNoFollow())
		if err != nil {
			return in, nil, fmt.Errorf("glob %q: %w", p, err)
		}
		for _, m := range matches {
			if !seen[m] && !strings.HasPrefix(m, ".git/") {
				seen[m] = true
				paths = append(paths, m)
			}
		}
	}
	if !keepIgnored && len(paths) > 0 {
		kept, ignored, err := dropIgnored(dir, paths)
		if err != nil {
			return in, nil, err
		}
		for _, p := range ignored {
			skipped = append(skipped, Skip{Path: p, Reason: SkipIgnored})
		}
		paths = kept
	}
	if len(paths) == 0 {
		return in, skipped, fmt.Errorf("split: no file matches %s", strings.Join(patterns, ", "))
	}
	sort.Strings(paths)
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return in, skipped, fmt.Errorf("read %s: %w", p, err)
		}
		if index.BinaryAt(b) >= 0 {
			skipped = append(skipped, Skip{Path: p, Reason: SkipBinary})
			continue
		}
		if !utf8.Valid(b) {
			skipped = append(skipped, Skip{Path: p, Reason: SkipNotUTF8})
			continue
		}
		in.Sources = append(in.Sources, Source{Name: p, Text: string(b)})
	}
	if len(in.Sources) == 0 {
		return in, skipped, fmt.Errorf("split: every file matching %s is binary or not UTF-8", strings.Join(patterns, ", "))
	}
	return in, skipped, nil
}

// dropIgnored splits paths (relative to dir) into those kept and those
// that the ignore rules of index.ListFiles exclude, the index's own rules:
// core.excludesFile, info/exclude, .gitignore files (never hiding a tracked
// file) and .ctxtrimignore files, in a work tree or a plain directory. In a
// bare repository it keeps every path.
func dropIgnored(dir string, paths []string) (kept, ignored []string, err error) {
	// All: vendored directories are walked too, so that only ignore rules
	// leave a path out.
	list, err := index.ListFiles(context.Background(), &index.Options{Dir: dir, All: true})
	if errors.Is(err, git.ErrIsBareRepository) {
		return paths, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var ignoredDirs []string // with a trailing "/"
	ignoredFiles := map[string]bool{}
	for _, s := range list.Skipped {
		if s.Reason != index.SkipIgnored && s.Reason != index.SkipCtxtrimignore {
			continue
		}
		if strings.HasSuffix(s.Path, "/") {
			ignoredDirs = append(ignoredDirs, s.Path)
		} else {
			ignoredFiles[s.Path] = true
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, p := range paths {
		rel, err := filepath.Rel(list.Root, filepath.Join(abs, filepath.FromSlash(p)))
		r := filepath.ToSlash(rel)
		if err == nil && (ignoredFiles[r] || underAny(r, ignoredDirs)) {
			ignored = append(ignored, p)
			continue
		}
		kept = append(kept, p)
	}
	return kept, ignored, nil
}

// underAny reports whether p lies under one of dirs (each ending in "/").
func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// resolveCommit returns the commit that rev names in r.
func resolveCommit(r *git.Repository, rev string) (*object.Commit, error) {
	h, err := r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("resolve %q: %w", rev, err)
	}
	c, err := r.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", rev, err)
	}
	return c, nil
}

// unified renders p as a git unified diff with go-git's encoder and its
// default context lines, as RangeDiff renders a commit range.
func unified(p fdiff.Patch) (string, error) {
	var buf bytes.Buffer
	if err := fdiff.NewUnifiedEncoder(&buf, fdiff.DefaultContextLines).Encode(p); err != nil {
		return "", err
	}
	return buf.String(), nil
}
