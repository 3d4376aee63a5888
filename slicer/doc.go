// Package slicer indexes a repository and selects the context a task needs,
// under an exact token budget.
//
// # Index
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
//     indexed lexically: its identifier-like words.
//  5. Cache. Results are cached by blob hash + language in one file per
//     repository under the user cache directory, versioned by the queries,
//     classifiers and grammar module; a warm run reads no unchanged file.
//
// Per-file problems never fail the build; only an unusable directory or a
// cancelled context does. The library prints nothing and holds no
// configuration in package state.
//
// # Select
//
// Select(ctx, ix, task, counter, opts) ranks every indexed file for the
// task, packs the best into the budget at the granularity that gives the
// most value per token, renders the prompt and proves that it fits by
// counting the final text with the exact counter.
//
// # Ranking (rank.go, mention.go, graph.go, gitsignals.go)
//
// Each file gets a score that is a sum of signals, each normalized to
// [0, 1] and multiplied by a named weight; Signals keeps the breakdown, so
// every score explains itself (ctxtrim -explain):
//
//	score = class·(weightLexical·lex + weightGraph·graph + weightRecency·recency
//	               + weightCoChange·cochange + weightDirty·dirty)
//	        + weightMention·mention·(1 if the file is named by path, else class)
//	        + pair
//
// where the signals are:
//
//   - lex: Okapi BM25 (bm25K1, bm25B) over terms of the contents, plus
//     pathFieldWeight times BM25 over the terms of the path, divided by the
//     best file's. Terms are identifier sub-words (tokenize.go):
//     parseHTTPHeader gives parse, http, header, and the compound
//     parsehttpheader, so a task naming an identifier exactly matches it
//     more strongly than its parts; snake_case and kebab-case split the same
//     way, and object-format also gives objectformat. Terms are lowercased
//     and lightly stemmed; English and keyword stop words are dropped. Only
//     the task's terms are counted, in one parallel pass over the files,
//     so no term index has to be stored.
//   - mention: what the task names explicitly (mention.go), matched against
//     the index: a full path or path suffix (mentionFullPath), a stack-trace
//     frame of Go, Python, JavaScript or Java (mentionFrame, and its line
//     steers the excerpt), a file name (mentionBaseName, split among
//     same-named files), a directory (mentionDir, split by square root), a
//     code-like identifier the file defines (mentionSymbol, split by square
//     root among at most maxSymbolDefiners definers; ×1.5 when written
//     Type.Method and the scope matches), a plain word equal to a symbol
//     (mentionWord), a word equal to the file's stem (mentionStem), and a
//     quoted string found verbatim (mentionQuote, split among the files
//     that contain it). The sum is capped at maxMention.
//   - graph: a personalized PageRank (aider's repository map method) over
//     the file graph where a file that references a name links to the files
//     defining it (weight 1/definers, ×mentionedEdgeBoost when the task
//     names it) and back with reverseEdgeWeight. The walk restarts at the
//     maxGraphSeeds best files by lex + mention; a file's graph signal is
//     the rank it receives through edges, normalized by the best.
//   - recency: Σ exp(-d/recencyScale) over the commits at distance d from
//     HEAD that touched the file, normalized; it only counts for files with
//     some other relevance. History is the first-parent log of HEAD only,
//     at most defaultHistoryCommits commits, skipping commits that touch
//     more than maxCommitFiles files (read with git log when git is
//     installed, a hundred times faster than go-git's tree diffs, which are
//     the fallback).
//   - cochange: how often the file changed with the coChangeSeeds best
//     files, as a share of their commits, weighted by their scores.
//   - dirty: modified, staged or untracked files (weightDirty).
//   - class: classFactor of the file's class; tests 0.45, docs 0.3,
//     vendored 0.03 and so on.
//   - pair: a test and its source (retry.go ↔ retry_test.go, test_x.py,
//     x.spec.ts, FooTest.java, tests/x.py) each get pairShare of the
//     other's score; stems shared by more than maxPairSources sources pair
//     with none.
//
// # Selection (select.go)
//
// Candidates are the ranked files scoring at least minScoreShare of the
// best, up to maxCandidates. A file enters the prompt at one of three
// granularities: whole; its relevant definitions, each with the header line
// of its enclosing scope and an elision marker (⋮, in the language's comment
// syntax) for every gap; or its signatures in the map. A file's
// definitions are scored by the task's hits inside them (each term hit
// weighs its IDF, a quoted string lineQuoteWeight, a frame's line or a named
// symbol lineMentionWeight); lines outside any definition get windows of
// contextLines. Packing runs in three passes over the budget left after the
// task and the note:
//
//  1. Cover: in rank order, each file gets its core view, at most
//     core·(1 + topCoreBoost·(s/s₁)⁴) tokens, where core is coreShare of the
//     context budget clamped to [minCore, maxCore] and s₁ the best score:
//     the file that stands out gets up to four times the room. The whole file is
//     taken when it is small (at most minCore tokens) or costs at most
//     wholeSlack times its excerpt; a definition too large for the room
//     shows as its header and a window around its strongest line. A file
//     whose view does not fit the rest is skipped, not cut.
//  2. Deepen: in rank order, excerpts grow (more definitions, or the whole
//     file) into what is left.
//  3. Map: the next files, each as its path and one line per definition
//     (at most maxMapDefs), in the mapShare of the budget held back plus
//     what is left.
//
// The prompt is then rendered (render.go: markdown, xml, json; paths lists
// the files whose content the markdown prompt holds) and counted with the
// exact counter. If it exceeds the budget (token merges at block joins,
// the note's numbers), a binary search over the tail finds the longest
// prefix of blocks and map lines that fits, every probe counted exactly.
// The result never exceeds the budget; there is no guessed margin. The
// task is never cut: when it does not fit with the note alone, Select
// returns ErrTaskTooLarge and the CLI points to ctxtrim split.
//
// The note at the top says how many files are whole, excerpted or mapped,
// how many more matched but did not fit, and how to ask for more.
//
// Secrets are redacted by default (redact.go): private key blocks, cloud
// and service tokens, credentials in URLs, secret-looking assignments and
// every value of a .env file become [REDACTED:rule], keeping line breaks so
// line ranges stay true; the file itself is never dropped for it.
//
// Output is deterministic: ties are broken by path, sums are taken in a
// fixed order, and nothing depends on map iteration or timing.
package slicer
