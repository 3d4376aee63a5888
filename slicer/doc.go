// Package slicer picks the parts of a repository that a task needs. It has
// one pipeline in separate files: walking (walk.go), symbol extraction
// (extract.go), the extraction cache (cache.go), then ranking and
// selection (rank.go, select.go). index.go holds the shared vocabulary.
//
// # The index
//
// NewIndex builds an Index: every file a user would expect git to
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
//  2. Skips. Before reading, by path: vendored trees (whole), lock files,
//     generated and minified names, files over the size limit, large
//     fixtures. After reading, by content: binary (a NUL in the first 8000
//     bytes, as git decides), generated ("Code generated … DO NOT EDIT."
//     and kin), minified (long lines). Each skip has a reason and a detail
//     in Index.Skipped; IndexOptions.All keeps the classified ones instead.
//  3. Change detection. A tracked file whose size and mtime match its index
//     entry (and that is not racily clean) keeps the entry's blob hash
//     unread; others are read and hashed. Staged changes come from the
//     index against HEAD, skipping subtrees whose cached tree hash matches.
//     A full worktree status is never run.
//  4. Extraction. A bounded pool of workers, each with one tree-sitter
//     parser and query cursor, runs per-language queries (extract_queries.go)
//     for definitions and references; Go goes through go/parser instead,
//     ten times faster and fuzzed against the queries. Other text is
//     indexed lexically: its identifier-like words.
//  5. Cache. Results are cached by blob hash + language in one file per
//     repository under the user cache directory, versioned by the queries,
//     classifiers and grammar module; a warm run reads no unchanged file.
//
// Per-file problems never fail the build; only an unusable directory or a
// cancelled context does. The library prints nothing and holds no
// configuration in package state.
package slicer
