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
// maxCommitHunks hunks, as for a named commit, from readEditedHunks' git
// diff or else go-git (hunkStarts). It returns nil for a file that is
// clean, untracked or new since HEAD, larger than maxPatchBytes, and when
// HEAD's copy cannot be read.
func (p *packer) editedLines(file int, l *loaded) []int {
	f := &p.ix.Files[file]
	if f.Status&(index.Modified|index.Staged) == 0 || len(l.lines) == 0 || f.Size > maxPatchBytes {
		return nil
	}
	var lines []int
	if p.edits != nil {
		lines = slices.Clone(p.edits[f.Path])
	} else {
		lines = p.editedLinesGoGit(f.Path, l)
	}
	for k := range lines {
		lines[k] = min(lines[k], len(l.lines)) // lines deleted at the end: the new last line
	}
	return lines
}

// editedLinesGoGit is editedLines for a machine without git: HEAD's copy
// through go-git, diffed by lines against the loaded copy.
func (p *packer) editedLinesGoGit(path string, l *loaded) []int {
	old, ok := p.headCopy(path)
	if !ok {
		return nil
	}
	// The loaded copy is redacted; its HEAD version must be too, or every
	// redacted line would count as edited.
	if p.redact {
		old, _ = Redact(path, old)
	}
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

// readEditedHunks reads, with one git diff -U0 against HEAD, where the
// work tree's change of each edited candidate begins, as git shows a
// commit the task names (parseZeroContextDiff): git reads only the blobs
// it compares, where go-git's first object read maps every pack offset to
// its hash (a quarter of a second and 30 MB more for a select on moby
// with one file edited), and a git process per file had cost 0.45 s with
// 300 files edited. A file new since HEAD is left out (--diff-filter=M):
// nothing of it was there to change. Without git, or when it fails, edits
// stays nil and editedLines diffs through go-git, file by file; with no
// edited candidate it is empty.
func (p *packer) readEditedHunks(ctx context.Context, cands []*ranked) {
	if p.edits != nil || p.ix.Head == "" {
		return
	}
	args := append([]string{"-c", "core.quotePath=false", "diff"}, zeroContextFlags...)
	args = append(args, "--ignore-cr-at-eol", "--diff-filter=M", p.ix.Head, "--")
	n := len(args)
	for _, r := range cands {
		f := &p.ix.Files[r.file]
		if f.Status&(index.Modified|index.Staged) != 0 && f.Size <= maxPatchBytes {
			args = append(args, ":(literal)"+f.Path)
		}
	}
	if len(args) == n {
		p.edits = map[string][]int{}
		return
	}
	cmd := gitCommand(ctx, p.ix.Root, args...)
	if cmd == nil {
		return
	}
	out, err := cmd.Output()
	if err != nil {
		p.log("edited lines: git diff: %v (asking go-git instead)", err)
		return
	}
	p.edits = map[string][]int{}
	for _, f := range parseZeroContextDiff(string(out)) {
		p.edits[f.Path] = f.Lines
	}
}

// headCopy returns path's content at the index's HEAD commit through
// go-git, and false when HEAD lacks it (a file added since), it is larger
// than maxPatchBytes, or it does not read.
func (p *packer) headCopy(path string) (string, bool) {
	if p.ix.Head == "" {
		return "", false
	}
	head := p.headTree()
	if head == nil {
		return "", false
	}
	hf, err := head.File(path)
	if err != nil || hf.Size > maxPatchBytes {
		return "", false
	}
	s, err := hf.Contents()
	if err != nil {
		p.log("edited lines of %s: read HEAD's copy: %v", path, err)
		return "", false
	}
	return s, true
}

// headTree returns the tree of the index's HEAD commit through go-git,
// read once; nil without a repository, or when it does not read.
func (p *packer) headTree() *object.Tree {
	if p.headRead {
		return p.head
	}
	p.headRead = true
	repo := p.ix.Repository()
	if repo == nil {
		return nil
	}
	c, err := repo.CommitObject(plumbing.NewHash(p.ix.Head))
	if err == nil {
		p.head, err = c.Tree()
	}
	if err != nil {
		p.log("edited lines: read HEAD %s: %v (uncommitted edits point at no definition)", p.ix.Head, err)
		p.head = nil
	}
	return p.head
}

// log reports through opts.Logf (-v); a packer built without one, as
// tests build it, is silent.
func (p *packer) log(format string, args ...any) {
	if p.logf != nil {
		p.logf(format, args...)
	}
}
