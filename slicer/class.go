package slicer

import (
	"path"
	"slices"
	"strings"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// classFactor scales the non-mention part of a file's score by what the
// file is. Explicit mentions are not scaled: a user who names a lock file
// wants it.
func classFactor(c index.Class) float64 {
	switch c {
	case index.Source:
		return factorSource
	case index.Test:
		return factorTest
	case index.Doc:
		return factorDoc
	case index.Config:
		return factorConfig
	case index.Generated:
		return factorGenerated
	case index.Fixture, index.Data:
		return factorData
	case index.Vendored:
		return factorVendored
	case index.Lock, index.Minified:
		return factorLock
	}
	return factorSource
}

// rankClass is the class a file ranks as: its index class, except that a
// Go doc.go without definitions is prose (the package comment, often
// hundreds of lines of the words a task uses) and ranks as documentation.
// Measured on go-git: plumbing/format/index/doc.go, a 4.9k-token format
// description, ranked above the decoder a task was about and took the
// budget, whole.
//
// A source file under an examples directory ranks as a test: like a test,
// it is usage of the code, written in the words of its API, and rarely
// where a change goes. Measured on express, whose examples/ took 2.5 of
// the top 10 files per kit task and held no gold file: lines all % +3 at
// 8k and +2 at 16k, no other kit cell moved.
//
// A changelog (CHANGELOG.md, CHANGES, History.md, HISTORY.rst, NEWS)
// ranks as data: it is a list of past changes in the words their
// authors used, so it matches a task said the same way (a fix's title is
// next to the last one's) without being context for it. As documentation
// it was shown in 284 of the kit's 1,340 prompts at 8k.
//
// A shell completion script without an extension (zsh's _fd, bash's
// docker) ranks as documentation: it lists every option of a program with
// a line of prose each, so it matched any task about options. fd's
// contrib/completion/_fd was in the first eight files of 22 of its 60 kit
// prompts at 8k; ranked as documentation it won 6 tasks of fd, ripgrep
// and urfave-cli and lost none (round 40). One with an extension (rg.zsh,
// fd.bash) stays source: counting those too lost the one kit task that
// was about a completion script.
func rankClass(f *index.File) index.Class {
	if f.Class == index.Source && len(f.Symbols) == 0 && path.Base(f.Path) == "doc.go" {
		return index.Doc
	}
	if f.Class == index.Doc && isChangelog(f.Path) {
		return index.Data
	}
	if f.Class == index.Source && isExample(f.Path) {
		return index.Test
	}
	if f.Class == index.Source && isShellCompletion(f.Path) {
		return index.Doc
	}
	return f.Class
}

// isShellCompletion reports a file without an extension under a
// directory of shell completions (completion/, completions/, complete/,
// autocomplete/).
func isShellCompletion(p string) bool {
	return path.Ext(p) == "" && underDir(p, "completion", "completions", "complete", "autocomplete")
}

// isChangelog reports a changelog by its name: CHANGELOG, CHANGES,
// HISTORY, NEWS or RELEASE-NOTES, with or without an extension.
func isChangelog(p string) bool {
	b := strings.ToLower(path.Base(p))
	b = strings.TrimSuffix(b, path.Ext(b))
	switch b {
	case "changelog", "changes", "history", "news", "release-notes", "release_notes", "releasenotes":
		return true
	}
	return false
}

// isExample reports whether p is under a directory of examples, demos or
// samples (examples/, _examples/, example/, demo/, samples/).
func isExample(p string) bool {
	return underDir(p, "example", "examples", "demo", "demos", "sample", "samples")
}

// underDir reports whether a directory of p, lowercased and without a
// leading underscore, is one of names.
func underDir(p string, names ...string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if slices.Contains(names, strings.ToLower(strings.TrimPrefix(seg, "_"))) {
			return true
		}
	}
	return false
}

// seedClassFactor keeps vendored, generated and lock files from seeding the
// walk unless they are the only match.
func seedClassFactor(c index.Class) float64 { return classFactor(c) }
