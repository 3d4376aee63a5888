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
// A shell completion script ranks as documentation, whatever its shell:
// it lists every option of a program with a line of prose each, so it
// matches any task about options. Without an extension (zsh's _fd, bash's
// docker): fd's contrib/completion/_fd was in the first eight files of 22
// of its 60 kit prompts at 8k; ranked as documentation it won 6 tasks of
// fd, ripgrep and urfave-cli and lost none (round 40). With one (rg.zsh,
// fd.bash, git-completion.bash) too, since a task quoting a config's
// flags put ripgrep's crates/core/flags/complete/rg.zsh second, above the
// parser to fix (issue 63; round 40 had kept them source for the one kit
// task that was about a completion script). A task about completion
// (it says "completion" or "autocomplete") keeps them source, which won that
// task back; the programs that write completions (complete/zsh.rs) stay
// source anyway.
//
// completion: the task is about shell completion (query.completion).
func rankClass(f *index.File, completion bool) index.Class {
	if f.Class == index.Source && len(f.Symbols) == 0 && path.Base(f.Path) == "doc.go" {
		return index.Doc
	}
	if f.Class == index.Doc && isChangelog(f.Path) {
		return index.Data
	}
	if f.Class == index.Source && isExample(f.Path) {
		return index.Test
	}
	if f.Class == index.Source && !completion && isShellCompletion(f.Path) {
		return index.Doc
	}
	return f.Class
}

// isShellCompletion reports a shell completion script: a file without an
// extension or with a shell's under a directory of shell completions
// (completion/, completions/, complete/, autocomplete/), or a shell
// script named for completion (git-completion.bash, bash_completion.sh).
func isShellCompletion(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	shell := slices.Contains(shellExts, ext)
	if (ext == "" || shell) && underDir(p, "completion", "completions", "complete", "autocomplete") {
		return true
	}
	return shell && strings.Contains(strings.ToLower(path.Base(p)), "completion")
}

// shellExts are the extensions of shell scripts a completion is written
// in: bash, zsh, fish, PowerShell, elvish, nushell, sh.
var shellExts = []string{".bash", ".elv", ".fish", ".nu", ".ps1", ".sh", ".zsh"}

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
