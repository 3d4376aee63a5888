package index

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5"
)

// This file holds the index vocabulary shared by walking, extraction,
// ranking and selection (package slicer). The constructor, New, lives in
// build.go.

// Index is a snapshot of the files a user would expect ctxtrim to consider
// in one repository, with their symbols. It is read-only once built and safe
// for concurrent readers.
type Index struct {
	Root    string // absolute path of the work tree (or plain directory)
	Head    string // commit hash at HEAD; "" in a plain directory or empty repo
	Files   []File // sorted by Path
	Skipped []Skip // files left out, each with its reason
	// GitErr, when not nil, says why HEAD's commit or tree could not be
	// read (objects missing, an alternate object store that is gone): the
	// index is then built from the work tree and the git index alone,
	// with no file marked Staged, and a selection should leave the git
	// signals out (history cannot be read either).
	GitErr error

	repo *git.Repository // nil for a plain directory
}

// File is one indexed file.
type File struct {
	Path    string   // slash-separated, relative to Index.Root
	Size    int64    // bytes on disk
	Lang    string   // language name ("go", "python", …); "" when indexed lexically only
	Blob    string   // git blob hash (hex) of the content on disk
	Status  Status   // relation to HEAD and the git index
	Class   Class    // what kind of file it is, for down-weighting
	Tokens  int      // quick estimate of the file's token count
	Symbols []Symbol // definitions, in source order; nil for lexical files
	Refs    []string // distinct identifiers the file uses, sorted
}

// Status says how a file differs from HEAD. The zero value is a clean,
// tracked file.
type Status uint8

// Status bits.
const (
	Modified  Status = 1 << iota // work tree differs from the git index
	Staged                       // git index differs from HEAD
	Untracked                    // not in the git index, not ignored
)

// Class groups files that ranking treats alike.
type Class uint8

// Classes. Source is the zero value.
const (
	Source    Class = iota // code or text a user would want in a prompt
	Test                   // tests of the source
	Doc                    // prose: README, docs/
	Config                 // build and configuration files
	Vendored               // vendor/, third_party/, node_modules/
	Generated              // "Code generated … DO NOT EDIT." and the like
	Lock                   // dependency lock files
	Minified               // minified bundles
	Fixture                // large test fixtures and data
	Data                   // data that is not code: tables, logs, certificates, images as text
)

// Symbol is one definition in a source file.
type Symbol struct {
	Name      string // identifier as written
	Kind      string // "function", "method", "type", "class", "const", …
	Start     int    // first line, 1-based
	End       int    // last line, inclusive
	Signature string // the definition's header line(s), trimmed
	Scope     string // enclosing definition's name, "" at top level
}

// Skip records a file that was not indexed and why.
type Skip struct {
	Path   string // slash-separated, relative to Index.Root; a directory ends in "/"
	Reason string // one of the Skip* reason constants (classify.go)
	Detail string // specifics: the size, the ignore file, the link target…
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
