// Package slicer selects the context a task needs from a repository index
// (package slicer/index), under an exact token budget.
//
// Select(ctx, ix, task, counter, opts) ranks every indexed file for the
// task, packs the best into the budget at the granularity that gives the
// most value per token, renders the prompt and proves that it fits by
// counting the final text with the exact counter. The index is only read.
//
// # Pipeline
//
// A selection flows one way; each stage hands the next a value it does
// not change afterwards, and every tuning number a stage reads is named,
// with its reason, in knobs.go.
//
//	query    query.go, mention.go   the task's terms (identifier sub-words,
//	                                stemmed, weighted) and what it names:
//	                                paths, frames, links, names, quotes,
//	                                flags, commits
//	facts    facts.go               the repository's git facts the query
//	                                needs, read once: remotes, named
//	                                commits, history
//	scan     scan.go, tokenize.go   one parallel pass over every file's
//	                                content: term counts, quotes, lines
//	rank     rank.go, match.go,     the signals below, per file
//	         graph.go, class.go,
//	         pair.go, gitsignals.go
//	units    units.go, shape.go,    each candidate cut into units (a
//	         defscore.go            definition, a paragraph, the preamble)
//	                                scored by the task's terms in them
//	pack     pack.go, ledger.go,    the budget spent in passes charging a
//	         view.go, sigmap.go     ledger: depth, breadth, the map, fill
//	render   render.go              markdown, xml, json or paths, counted
//	                                exactly; a binary search trims the tail
//	                                when token merges overshoot
//
// # Score
//
// A file's score is a sum of signals, each normalized to [0, 1] and
// weighted (Signals keeps the breakdown, so every score explains itself:
// ctxtrim -explain):
//
//	score = class·(weightLexical·lex + weightGraph·graph
//	               + weightRecency·recency + weightCoChange·cochange
//	               + weightDirty·dirty)
//	        + weightMention·mention·(1 if named by path, else class)
//	        + pair
//
// where the signals are:
//
//   - lex: Okapi BM25 of the task's terms over the contents, plus
//     pathFieldWeight times BM25 over the path, divided by the best file's.
//   - mention: what the task names (mention.go, match.go): a path, a
//     stack frame or a link to the file, its name, its directory, a symbol
//     it defines, a word equal to its stem, a quoted string or flag it
//     holds, a commit that changed it; each kind's strength is named,
//     split among the files it fits, capped at maxMention.
//   - graph: personalized PageRank over the references between files,
//     restarting at the maxGraphSeeds best by lex and mention.
//   - recency and cochange: the first-parent history; recency counts only
//     for files with some other relevance.
//   - dirty: an uncommitted edit, only for files the task reaches
//     (Signals.taskReaches: by its words, a mention or a named partner).
//   - class: classFactor of what the file is (tests and docs 0.3, data
//     0.1, vendored 0.03, …); pair: a test and its source share a part of
//     each other's explicit mention (pairKey, over index.TestStem).
//
// # Packing
//
// Candidates score at least minScoreShare of the best. From the budget
// left after the task and the note, breadth (tailShare) and the signature
// map (mapShare) are held back; the rest goes to depth:
//
//  1. Depth: file i is allotted deepMaxShare·(s_i/s₁)^deepShareExp of it;
//     it goes in whole when that is within its stretch, else as its best
//     units, the first that does not fit shown as a window around its
//     strongest line.
//  2. Whole: of the first wholeRanks files that took depth, those shown
//     as excerpts go in whole where what depth left holds them.
//  3. Breadth: the next files as their best unit each, where it holds
//     minBreadthWords of the task's words, or whole when small, down to
//     breadthFloor of the best.
//  4. Map: the next files as their path and definitions.
//  5. What is left deepens the views in rank order, then the map.
//
// The best file's units go on past those the task hits (fillUnits), the
// nearest first. A unit is shown with its doc comment and the lines a
// patch needs around it; a larger budget shows a superset of a smaller
// one's lines for the best file.
//
// # Guarantees
//
// Every block is counted exactly in the prompt formats and the dearer
// count is its cost, so markdown, xml and paths hold the same selection;
// json, when asked for, fits the budget as emitted too. The result never
// exceeds the budget: there is no guessed margin. The task is never cut:
// when it does not fit with the note alone, Select returns a
// *budget.TaskTooLargeError. Secrets are redacted by default (redact.go),
// line breaks kept so that ranges stay true. Output is deterministic: ties
// are broken by path, sums are taken in a fixed order, and nothing depends
// on map iteration or timing.
//
// Every special case of each stage (sorted tables, sibling flags and
// definitions, import statements, windows, the outline of a task that
// reaches no file, twins) is described in docs/selection-design.md, and
// how each rule was measured in docs/selection-evaluation.md.
package slicer
