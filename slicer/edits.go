package slicer

import (
	"context"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"
	linediff "github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// A file the work tree changes against HEAD ranks higher as a whole
// (weightDirty). Within it, the definitions the change touches are where
// the task is: a fix half done, code just written that the task asks
// about. Where each of its hunks starts points at that unit as a stack
// frame's line does (editedLines, in fileUnits), as a named commit's
// hunks do. The kit cannot measure this: its tasks start from a clean
// checkout of the commit's parent.

// editedLines returns where the work tree's copy of file, as loaded in l,
// changes its HEAD version: the first line of each of its first
// maxCommitHunks hunks, as for a named commit, from the git diff readEdits
// read, or else by diffing the HEAD copy it read through go-git
// (hunkStarts). It returns nil for a file that is clean, untracked or new
// since HEAD, larger than maxPatchBytes, and when HEAD's copy could not be
// read. It reads nothing of git itself.
func (p *packer) editedLines(file int, l *loaded) []int {
	f := &p.ix.Files[file]
	if f.Status&(index.Modified|index.Staged) == 0 || len(l.lines) == 0 || f.Size > maxPatchBytes {
		return nil
	}
	var lines []int
	if p.edits.hunks != nil {
		lines = slices.Clone(p.edits.hunks[f.Path])
	} else if old, ok := p.edits.heads[f.Path]; ok {
		lines = diffStarts(old, l)
	}
	for k := range lines {
		lines[k] = min(lines[k], len(l.lines)) // lines deleted at the end: the new last line
	}
	return lines
}

// diffStarts diffs HEAD's copy old (redacted as the loaded copy is) by
// lines against the loaded copy, as git would, and returns where its
// hunks start.
func diffStarts(old string, l *loaded) []int {
	// Line ends aside, as git diff --ignore-cr-at-eol: a checkout that
	// converts them (core.autocrlf) differs from HEAD on every line and
	// has edited none.
	crlf := strings.NewReplacer("\r\n", "\n")
	d := linediff.Do(crlf.Replace(wholeLines(old)), crlf.Replace(strings.Join(l.lines, "\n")+"\n"))
	chunks := make([]diff.Chunk, len(d))
	for k := range d {
		chunks[k] = lineChunk{d[k]}
	}
	return hunkStarts(chunks)
}

// wholeLines ends s with exactly the one newline load leaves to its last
// line, so that the two sides of a diff split alike.
func wholeLines(s string) string {
	if s == "" {
		return ""
	}
	return strings.TrimSuffix(s, "\n") + "\n"
}

// lineChunk is a line-mode diff of a file's text as hunkStarts reads
// a patch's chunks.
type lineChunk struct{ d diffmatchpatch.Diff }

// Content returns the chunk's lines.
func (c lineChunk) Content() string { return c.d.Text }

// Type says whether the chunk's lines are kept, added or deleted.
func (c lineChunk) Type() diff.Operation {
	switch c.d.Type {
	case diffmatchpatch.DiffInsert:
		return diff.Add
	case diffmatchpatch.DiffDelete:
		return diff.Delete
	}
	return diff.Equal
}

// edits are the work tree's changes against HEAD, read once before
// ranking (readEdits): where each edited file's hunks start, from one git
// diff; or, when git cannot say, HEAD's copies read through go-git, which
// the packer diffs against the copies it loads.
type edits struct {
	hunks map[string][]int  // path → hunk starts; nil when git could not diff
	heads map[string]string // path → HEAD's copy (redacted as loaded), when hunks is nil
}

// readEdits reads, with one git diff -U0 against HEAD, where the work
// tree's change of each edited file begins, as git shows a commit the task
// names (parseZeroContextDiff): git reads only the blobs it compares,
// where go-git's first object read maps every pack offset to its hash (a
// quarter of a second and 30 MB more for a select on moby with one file
// edited), and a git process per file had cost 0.45 s with 300 files
// edited. A file new since HEAD is left out (--diff-filter=M): nothing of
// it was there to change. Without git, or when it fails, HEAD's copy of
// each edited file is read through go-git instead, redacted when redact
// is set (the loaded copy is, and every redacted line would otherwise
// count as edited).
func readEdits(ctx context.Context, ix *index.Index, redact bool, logf func(string, ...any)) edits {
	if ix.Head == "" {
		return edits{}
	}
	args := append([]string{"-c", "core.quotePath=false", "diff"}, zeroContextFlags...)
	args = append(args, "--ignore-cr-at-eol", "--diff-filter=M", ix.Head, "--")
	var paths []string
	for i := range ix.Files {
		f := &ix.Files[i]
		if f.Status&(index.Modified|index.Staged) != 0 && f.Size <= maxPatchBytes {
			paths = append(paths, f.Path)
		}
	}
	if len(paths) == 0 {
		return edits{hunks: map[string][]int{}}
	}
	for _, p := range paths {
		args = append(args, ":(literal)"+p)
	}
	if cmd := gitCommand(ctx, ix.Root, args...); cmd != nil {
		out, err := cmd.Output()
		if err == nil {
			e := edits{hunks: map[string][]int{}}
			for _, f := range parseZeroContextDiff(string(out)) {
				e.hunks[f.Path] = f.Lines
			}
			return e
		}
		logf("edited lines: git diff: %v (asking go-git instead)", err)
	}
	return edits{heads: headCopies(ix, paths, redact, logf)}
}

// headCopies returns HEAD's copy of each of paths through go-git, skipping
// a file HEAD lacks (added since), one larger than maxPatchBytes and one
// that does not read.
func headCopies(ix *index.Index, paths []string, redact bool, logf func(string, ...any)) map[string]string {
	out := map[string]string{}
	repo := ix.Repository()
	if repo == nil {
		return out
	}
	c, err := repo.CommitObject(plumbing.NewHash(ix.Head))
	var head *object.Tree
	if err == nil {
		head, err = c.Tree()
	}
	if err != nil {
		logf("edited lines: read HEAD %s: %v (uncommitted edits point at no definition)", ix.Head, err)
		return out
	}
	for _, p := range paths {
		hf, err := head.File(p)
		if err != nil || hf.Size > maxPatchBytes {
			continue
		}
		s, err := hf.Contents()
		if err != nil {
			logf("edited lines of %s: read HEAD's copy: %v", p, err)
			continue
		}
		if redact {
			s, _ = Redact(p, s)
		}
		out[p] = s
	}
	return out
}

// log reports through opts.Logf (-v); a packer built without one, as
// tests build it, is silent.
func (p *packer) log(format string, args ...any) {
	if p.logf != nil {
		p.logf(format, args...)
	}
}
