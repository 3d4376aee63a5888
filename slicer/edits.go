package slicer

import (
	"context"
	"io"
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
// maxCommitHunks hunks, as for a named commit (hunkStarts). It returns
// nil for a file that is clean, untracked or new since HEAD, larger than
// maxPatchBytes on either side, and when HEAD's copy cannot be read.
func (p *packer) editedLines(file int, l *loaded) []int {
	f := &p.ix.Files[file]
	if f.Status&(index.Modified|index.Staged) == 0 || len(l.lines) == 0 || f.Size > maxPatchBytes {
		return nil
	}
	old, ok := p.headCopy(f.Path)
	if !ok {
		return nil
	}
	// The loaded copy is redacted; its HEAD version must be too, or every
	// redacted line would count as edited.
	if p.redact {
		old, _ = Redact(f.Path, old)
	}
	// Line ends aside: a checkout that converts them (core.autocrlf)
	// differs from HEAD on every line and has edited none.
	crlf := strings.NewReplacer("\r\n", "\n")
	d := linediff.Do(crlf.Replace(wholeLines(old)), crlf.Replace(strings.Join(l.lines, "\n")+"\n"))
	chunks := make([]diff.Chunk, len(d))
	for k := range d {
		chunks[k] = lineChunk{d[k]}
	}
	lines := hunkStarts(chunks)
	for k := range lines {
		lines[k] = min(lines[k], len(l.lines)) // lines deleted at the end: the new last line
	}
	return lines
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

// headCopy returns path's content at the index's HEAD commit, and false
// when HEAD lacks it (a file added since), it is larger than
// maxPatchBytes, or it does not read. It asks git cat-file, which reads
// the one blob, when git is installed: go-git's first object read maps
// every pack offset to its hash, which cost a select on moby with one
// edited file a quarter of a second and 30 MB more (0.79 to 1.05 s
// median, warm).
func (p *packer) headCopy(path string) (string, bool) {
	if p.ix.Head == "" {
		return "", false
	}
	if cmd := gitCommand(context.Background(), p.ix.Root, "cat-file", "blob", p.ix.Head+":"+path); cmd != nil {
		out, err := cmd.StdoutPipe()
		if err != nil {
			return "", false
		}
		if err := cmd.Start(); err != nil {
			return "", false
		}
		b, rerr := io.ReadAll(io.LimitReader(out, maxPatchBytes+1))
		if len(b) > maxPatchBytes {
			cmd.Process.Kill() // too large to diff for a few lines: stop reading it
		}
		// A failure here is mostly a file HEAD lacks; the rest (a
		// damaged repository) the index has already reported.
		if werr := cmd.Wait(); werr != nil || rerr != nil || len(b) > maxPatchBytes {
			return "", false
		}
		return string(b), true
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
