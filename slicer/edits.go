package slicer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
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

// readHeadCopies reads, with one git cat-file --batch, the HEAD copies
// of the candidates the work tree changes, for editedLines: a git process
// per file had cost a select on moby 0.45 s more with 300 files edited.
// Without git, or when it fails, headCopies stays nil and headCopy asks
// go-git file by file; with no edited candidate it is empty.
func (p *packer) readHeadCopies(ctx context.Context, cands []*ranked) {
	if p.headCopies != nil || p.ix.Head == "" {
		return
	}
	var paths []string
	for _, r := range cands {
		f := &p.ix.Files[r.file]
		if f.Status&(index.Modified|index.Staged) != 0 && f.Size <= maxPatchBytes && !strings.Contains(f.Path, "\n") {
			paths = append(paths, f.Path)
		}
	}
	if len(paths) == 0 {
		p.headCopies = map[string]string{} // nothing edited among them: nothing to ask go-git either
		return
	}
	cmd := gitCommand(ctx, p.ix.Root, "cat-file", "--batch")
	if cmd == nil {
		return
	}
	var in strings.Builder
	for _, path := range paths {
		in.WriteString(p.ix.Head + ":" + path + "\n")
	}
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		p.log("edited lines: git cat-file: %v (asking go-git instead)", err)
		return
	}
	copies, err := readBatch(bufio.NewReader(out), paths)
	if werr := cmd.Wait(); err != nil || werr != nil {
		p.log("edited lines: git cat-file: %v %v (asking go-git instead)", err, werr)
		return
	}
	p.headCopies = copies
}

// readBatch reads git cat-file --batch's answers to paths, in order: a
// header "<oid> <type> <size>" and the content, or "<name> missing" for
// a file HEAD lacks. Blobs over maxPatchBytes are skipped.
func readBatch(br *bufio.Reader, paths []string) (map[string]string, error) {
	copies := map[string]string{}
	for _, path := range paths {
		hdr, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("answer for %s: %w", path, err)
		}
		fields := strings.Fields(hdr)
		if len(fields) != 3 {
			continue // missing: new since HEAD
		}
		size, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("answer for %s: bad header %q", path, hdr)
		}
		if fields[1] != "blob" || size > maxPatchBytes {
			if _, err := br.Discard(int(size) + 1); err != nil {
				return nil, fmt.Errorf("answer for %s: %w", path, err)
			}
			continue
		}
		buf := make([]byte, size+1) // the content and its newline
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, fmt.Errorf("answer for %s: %w", path, err)
		}
		copies[path] = string(buf[:size])
	}
	return copies, nil
}

// headCopy returns path's content at the index's HEAD commit, and false
// when HEAD lacks it (a file added since), it is larger than
// maxPatchBytes, or it does not read: from readHeadCopies' batch, else
// through go-git, whose first object read maps every pack offset to its
// hash (it cost a select on moby with one edited file a quarter of a
// second and 30 MB).
func (p *packer) headCopy(path string) (string, bool) {
	if p.ix.Head == "" {
		return "", false
	}
	if p.headCopies != nil {
		s, ok := p.headCopies[path]
		return s, ok
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
