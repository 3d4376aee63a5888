package split

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	fdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// The patch* types implement go-git's diff.Patch over file contents held in
// memory, so that go-git's unified encoder can render generated changes
// that no go-git object pair describes, as RangeDiff and StagedDiff render
// theirs.

// patchFile is one side of a file patch: go-git's diff.File.
type patchFile struct {
	hash plumbing.Hash
	mode filemode.FileMode
	path string
}

func (f *patchFile) Hash() plumbing.Hash     { return f.hash }
func (f *patchFile) Mode() filemode.FileMode { return f.mode }
func (f *patchFile) Path() string            { return f.path }

// patchChunk is a run of equal, added or deleted text: go-git's diff.Chunk.
type patchChunk struct {
	content string
	op      fdiff.Operation
}

func (c patchChunk) Content() string       { return c.content }
func (c patchChunk) Type() fdiff.Operation { return c.op }

// filePatch is the change of one file: go-git's diff.FilePatch. A nil side
// is an added (from) or deleted (to) file.
type filePatch struct {
	from, to *patchFile
	binary   bool
	chunks   []patchChunk
}

// newFilePatch diffs the contents a (of from) and b (of to) line by line,
// as go-git does between two commits. It is binary, with no chunks, when
// either content holds a NUL byte.
func newFilePatch(from, to *patchFile, a, b string) *filePatch {
	fp := &filePatch{from: from, to: to}
	fp.binary = strings.IndexByte(a, 0) >= 0 || strings.IndexByte(b, 0) >= 0
	if fp.binary {
		return fp
	}
	for _, d := range diff.Do(a, b) {
		op := fdiff.Equal
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			op = fdiff.Add
		case diffmatchpatch.DiffDelete:
			op = fdiff.Delete
		}
		fp.chunks = append(fp.chunks, patchChunk{d.Text, op})
	}
	return fp
}

func (p *filePatch) IsBinary() bool { return p.binary }

func (p *filePatch) Files() (from, to fdiff.File) {
	if p.from != nil {
		from = p.from
	}
	if p.to != nil {
		to = p.to
	}
	return from, to
}

func (p *filePatch) Chunks() []fdiff.Chunk {
	out := make([]fdiff.Chunk, len(p.chunks))
	for i, c := range p.chunks {
		out[i] = c
	}
	return out
}

// patch is a list of file patches: go-git's diff.Patch, with no message.
type patch []*filePatch

func (p patch) FilePatches() []fdiff.FilePatch {
	out := make([]fdiff.FilePatch, len(p))
	for i, f := range p {
		out[i] = f
	}
	return out
}

func (p patch) Message() string { return "" }
