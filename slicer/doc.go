// Package slicer selects the context a task needs from a repository index
// (package slicer/index), under an exact token budget.
//
// # Index
//
// The index (package slicer/index) lists the files a user would expect git
// to consider, with their language, blob hash, status, class, a token
// estimate and, for source files, their definitions and the identifiers
// they use; its package doc gives the walk, the skips, change detection,
// extraction and the cache. Select reads it and never writes it.
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
//     best file's. A task term weighs 1+ln(its count in the task), times
//     1+titleWeight when it is in the task's first line. Terms are
//     identifier sub-words (tokenize.go): parseHTTPHeader gives parse,
//     http, header, and the compound parsehttpheader, so a task naming an
//     identifier exactly matches it more strongly than its parts;
//     snake_case and kebab-case split the same way, and object-format
//     also gives objectformat; a plural acronym is one part, so URLs
//     gives url as the code's url does. Terms are lowercased
//     and lightly stemmed; English and keyword stop words are dropped. A
//     term's spelling variant, the stem with or without a final e
//     (handling and handled give handl, handle gives handle), is a term
//     too, weighing variantWeight of it. A term the task writes only in
//     its fenced code blocks, a bug report's reproduction (not a stack
//     trace's lines there), weighs codeBlockWeight of it here; the
//     ranking of a file's definitions counts it in full. Only
//     the task's terms are counted, in one parallel pass over the files,
//     so no term index has to be stored. The task ranks without a closing
//     paragraph of git trailers and without the words that introduce an
//     issue reference ("Closes #12"): see taskText.
//   - mention: what the task names explicitly (mention.go), matched against
//     the index: a full path or path suffix (mentionFullPath), a stack-trace
//     frame of Go, Python, JavaScript or Java (mentionFrame, and its line
//     steers the excerpt; a link to a file of the repository, one whose
//     host/owner/name is a remote's, counts as a frame at its #L anchor,
//     or as a full path without one), a file name (mentionBaseName, split among
//     same-named files), a directory (mentionDir, split by square root), a
//     code-like identifier the file defines (mentionSymbol, split by square
//     root among at most maxSymbolDefiners definers; ×1.5 when written
//     Type.Method and the scope matches), a plain word equal to a symbol
//     (mentionWord), a word equal to the file's stem (mentionStem), and a
//     quoted string found verbatim or a long flag the task writes (each
//     of a brace pattern's: --field-{context,match}-separator), found
//     as a string or with its dashes ("pre", --pre; not --pre-glob)
//     (mentionQuote, split among the files that contain it; a flag of the
//     first line that no file holds is new, and its sibling stands in for
//     it: the longest existing flag its name begins or ends with at a
//     dash, --no-ignore for --no-ignore-dot), and a commit
//     of the repository the task names by its id ("This reverts commit
//     1a2b3c4": mentionCommit, split by square root among the at most
//     maxCommitFiles files it changed; the first lines of its hunks steer
//     the excerpt like a frame's line when the file is unchanged since).
//     A name the task writes only in its code blocks counts
//     codeBlockWeight of its strength (codeBlocks). The sum is capped at
//     maxMention.
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
//   - dirty: modified, staged or untracked files (weightDirty); it counts
//     only for files the task reaches otherwise (its words or path, a
//     mention, a named test or source partner), unless the task reaches
//     no file at all.
//   - class: classFactor of the file's class; tests 0.3, docs 0.3,
//     data 0.1, vendored 0.03 and so on. Sources under an examples
//     directory rank as tests, a Go doc.go without definitions and a
//     shell completion script without an extension as documentation,
//     and a changelog as data.
//   - pair: a test and its source (retry.go ↔ retry_test.go, test_x.py,
//     x.spec.ts, FooTest.java, tests/x.py) each get pairShare of the
//     other's explicit mention (its path, file name or a stack frame in
//     the task), not of what the other matches by words; stems shared by
//     more than maxPairSources sources pair with none.
//
// # Selection (pack.go, units.go)
//
// Candidates are the ranked files scoring at least minScoreShare of the
// best, up to maxCandidates. A file enters the prompt whole, as excerpts,
// or as its signatures in the map.
//
// Units (units.go). An excerpt is made of units, cut from the file and the
// task alone, never from the budget: a definition from its doc comment and
// decorators to its end; a paragraph (non-blank lines with the same owner,
// at most maxParagraph each way) for one-line definitions such as a
// constant of a block, for code outside every definition and for a class's
// own lines between its methods (a paragraph of comments alone takes
// the paragraph after it, which it is about); the file's preamble (package clause and
// imports, at most maxPreambleLines, without a licence header above
// them), placed right after the best unit.
// Import lines are never a unit of their own; an import statement that
// spans lines (Go's import block, Python's `from x import (`, a
// TypeScript `import {` list, a Rust `use a::{` tree, a JavaScript
// declaration that a require begins) is import lines to its end, so the
// preamble holds the whole statement a commit adds a name to. Each unit
// is scored as a definition: BM25 of the task's terms inside it, weighted
// by their IDF over the repository and, softened (unitFileIDFExp), over
// the file's own units, and by 1 + ln of how often the task says them (as for files),
// against the file's average definition length (unitK1, unitB), plus
// unitMentionBonus times the strongest term weight when the task points
// into it (a named symbol's definition, a stack frame's line, a quoted
// string) or the work tree's uncommitted change of the file begins a hunk
// in it (edits.go: the first line of each of its first maxCommitHunks
// hunks against HEAD, as for a commit the task names). A word of the
// task's first line that no file holds names something new: in a sorted
// table of the file (at least minTableKeys entries led by quoted keys, one
// indentation, 90% in order; sorted.go) it counts as found at the two lines where it would be
// inserted, so "add scdoc" shows the types table between "scala" and
// "seed7". An identifier the first line writes as code that a file lacks
// names its sibling there, the definition whose name begins or ends it
// (HasEncodedObject: EncodedObject), which counts as named: the new
// definition goes in next to it, as a new flag's sibling flag points at
// the lines that define and read it. Every unit shows with the blank line
// before it, if any, and with the blank line after it and the line after
// that, or else with the line that closes its class or block: a
// definition added above or below it goes in there, and a patch needs
// both sides as context. Units are taken as a prefix of that
// order; the first that does not fit its room shows as its header, its
// scope's header and a window of at least minWindowLines around its
// strongest line, and the choice ends there. A preamble is never
// windowed: it ends after the last whole import statement that fits
// (importCuts), so Go's import block shows whole or not at all, never
// opened without its closing parenthesis. So a larger room shows a
// superset of a smaller one.
//
// Packing (pack.go) runs over the budget left after the task and the note,
// the context budget C, from which tailShare (breadth) and mapShare (the
// signature map) are held back; the rest R is for depth. When the best
// file scores at least dominantRatio times the second, the task is about
// it: breadth holds back only dominantTailShare, and the best file's
// share is dominantShare instead of deepMaxShare.
//
//  1. Depth: in rank order, file i with score s_i is allotted
//     A = deepMaxShare·(s_i/s₁)^deepShareExp·R. It goes in whole when its
//     block fits wholeStretch·(s_i/s₁)^wholeStretchExp of R plus
//     stretchReserve of the reserves (what it takes beyond R comes out of
//     them), but at most 1 − wholeNextShare·(s_next/s_i) of that room,
//     s_next being the next file to take a depth share, so that a near
//     tie is not starved by a whole file; else as its units within A
//     (or, when not one fits A, within the stretch; and for the best
//     file, the unit A cuts to a window goes in whole when the stretch
//     holds it). A test, doc or config below the best file that the task
//     does not name by path, file name or frame is read for how the code
//     is used, which its best unit tells: it is shown as breadth (step 2)
//     wherever it ranks and is charged only that, so the sources after it
//     keep the room. A, not what the view uses, is taken from R, so every
//     allotment grows with the budget. Depth ends at the first file whose
//     allotment is below minBlock.
//  2. Breadth: the next files in rank order, each as its best unit within
//     tailFileShare of C (between minTail and maxTail), or whole when it
//     is that small, while the breadth reserve, the rest of R and what
//     depth left unused last, down to the first file scoring below
//     breadthFloor of the best. Files with no unit the task hits are not
//     shown as breadth.
//  3. Map: the next files, each as its path and one line per definition
//     (at most maxMapDefs), within mapShare of C.
//  4. What is still free (what breadth left when the files the task hits
//     ran out, and what the map did not use) deepens the views in rank
//     order or gives content to files that had none; only then does the
//     map take more entries with what is left.
//
// The best file's units go on past those the task hits (fillUnits): its
// other units follow, nearest to a unit shown before them first (the
// preamble among them), so that the room its share or the last step gives it shows the
// code around the matches rather than staying unused; the edit a task
// needs is often in the file's code that no word of the task reaches.
//
// Every block is counted exactly in both prompt forms, markdown and xml,
// and the dearer count is its cost, so markdown, xml and paths hold the
// same selection and each prompt fits the budget. Paths lists that
// selection. Json carries a selection to tools, which may embed the
// document as it is, so its own text is counted too when it is asked for:
// it fits the budget as emitted, and holds less than the prompt at the
// same budget by its escapes (sizing every format by them cost the prompt
// a fifth of its room).
//
// The prompt is then rendered (render.go: markdown, xml, json; paths
// prints path<TAB>start-end,… per file shown) and counted with the exact
// counter in every form it is sized by. If one exceeds the budget (token merges at block
// joins, the note's numbers), a binary search over the tail finds the
// longest prefix of blocks and map lines that fits, every probe counted
// exactly.
// The result never exceeds the budget; there is no guessed margin. The
// task is never cut: when it does not fit with the note alone, Select
// returns a *budget.TaskTooLargeError (ErrTaskTooLarge) with the numbers,
// and the caller splits the task (the CLI points to ctxtrim split).
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
