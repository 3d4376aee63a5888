// Package index builds the repository index that package slicer selects
// from. It walks and reads; choosing what a task needs is slicer's job
// (zoekt keeps git walking apart from building and scoring the same way),
// so a package that only lists files or extracts definitions (split) needs
// this half alone.
//
// New builds an Index: every file a user would expect git to
// consider, with its language, blob hash, status, class, a token estimate
// and, for source files, its definitions and the identifiers it uses.
//
//  1. Files. The git index gives the tracked paths with their blob hashes,
//     sizes and mtimes; a walk of the work tree adds untracked files that no
//     ignore rule excludes. Ignore rules are go-git gitignore patterns,
//     lowest precedence first: core.excludesFile, .git/info/exclude,
//     .gitignore files from the root down; .ctxtrimignore files, same
//     syntax, then exclude more (tracked files too). Submodules are listed,
//     not descended; nested repositories are skipped; symbolic links are
//     followed only to files inside the work tree.
//  2. Skips. Before reading, by path: vendored trees (whole; a Python
//     package's bundle of other packages too), lock files,
//     generated and minified names, files over the size limit (binary
//     instead when their first 8000 bytes say so), large fixtures. After
//     reading, by content: binary (a NUL in the first 8000 bytes, as git
//     decides, or bytes that are not UTF-8 in a format whose signature is
//     not text, such as a PDF), not UTF-8 (legacy text), generated ("Code
//     generated … DO NOT EDIT." and kin), minified (long lines). Each skip
//     has a reason and a detail in Index.Skipped; Options.All keeps the
//     classified ones instead. The linguist attributes of .gitattributes
//     (attributes.go) override the path and the content: true gives a file
//     its class, false takes it away.
//     ListFiles runs step 1 alone (with vendored trees skipped), so that other
//     packages (split -files) apply exactly the index's ignore rules;
//     FindFiles makes the same decisions only where a set of patterns can
//     match (ctxtrim check's prompt files): tracked files from the git
//     index, untracked ones at the paths, directories and names the
//     patterns give, without walking the whole tree.
//  3. Change detection. A tracked file whose size and mtime match its index
//     entry (and that is not racily clean) keeps the entry's blob hash
//     unread; others are read and hashed. Staged changes come from the
//     index against HEAD, skipping subtrees whose cached tree hash matches.
//     A full worktree status is never run.
//  4. Extraction. A bounded pool of workers, each with one tree-sitter
//     parser and query cursor, runs per-language queries (extract_queries.go)
//     for definitions and references; Go goes through go/parser instead,
//     ten times faster and fuzzed against the queries. Other text is
//     indexed lexically: its identifier-like words, as is a file whose
//     parse tree-sitter cuts (its only limit is wall-clock time, 10 s:
//     parseTimeoutMicros).
//  5. Cache. Results are cached by blob hash + language in one file per
//     repository under the user cache directory, versioned by the queries,
//     classifiers and grammar module; a warm run reads no unchanged file
//     and decodes only the entries it needs. A repository's file keeps as
//     many entries of other commits as are in use (at least 5,000), and
//     files of repositories not indexed for 30 days are deleted (cachetrim.go).
//
// Per-file problems never fail the build; only an unusable directory or a
// cancelled context does. The library prints nothing and holds no
// configuration in package state.
//
// An Index is plain data: a caller may also build one by hand (Files sorted
// by Path, classified with ClassifyPath and DetectLang, symbols from
// Definitions) over files that are not on disk, and give slicer.Select a
// ReadFile for them.
package index
