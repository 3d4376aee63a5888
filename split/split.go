// Package split cuts a task whose input is too large for one request into
// several requests ("parts") that each fit a token budget, losing nothing.
//
// # Vocabulary
//
// An Input is one of three kinds: a unified diff, a set of files, or one
// text. source.go and staged.go build Inputs from a repository: RangeDiff
// and StagedDiff render diffs with go-git, renames detected, ReadFiles
// reads files by glob, leaving out binary and ignored ones. Its Sources
// hold the bytes (one source for a diff or a text, one per file). Every Part is rendered as
//
//	shared instructions + "[part i of n]" header + payload
//
// either as plain text or as an OpenAI/Anthropic request body, and its
// Tokens, counted exactly on that rendered form with the caller's
// budget.Counter, never exceed Options.Budget.
//
// # Algorithm
//
//  1. Units. The input is cut into units, the coarsest natural pieces: one
//     per file of a diff (its header and hunks) plus any preamble text, one
//     per file of a file set, or the whole text. Units are ordered so that
//     related ones are adjacent: by directory, and within a directory by
//     file stem with tests right after their source (foo.go, foo_test.go).
//  2. Chunks. Each unit is counted; a unit that fits one part's payload
//     capacity stays whole. One that does not is cut at the next finer
//     boundary and each piece is tried again: diff hunks (the file header
//     is repeated in every part that continues a file), then definitions
//     (tree-sitter, index.Definitions; in a diff hunk, those starting on
//     its new side, so a large new file is cut between functions),
//     markdown sections, then
//     paragraphs, then lines, and finally a line longer than a part is cut
//     into fragments with a visible marker. The result is a sequence of
//     chunks, each fitting a part on its own, each carrying the penalty of
//     the boundary before it (see the penalty constants). Cuts closer than
//     capacity/blockFraction tokens are thinned out, and runs of lines are
//     merged into blocks of that size, so a 10 MB log of short lines makes
//     thousands of chunks, not millions.
//  3. Count. n, the fewest parts that can hold the chunks in order, is found
//     greedily (farthest reach from every chunk, computed backwards), which
//     also tells, for every chunk, how many parts its suffix needs. n is
//     counted on whole units; the cuts are then chosen among finer chunks
//     (units that fit are cut one level further too), so a part may end
//     inside a file when that evens the parts out.
//  4. Balance. A dynamic programme picks the n parts that minimise, summed
//     over parts, balanceWeight·((tokens−mean)/capacity)² plus the penalty
//     of the boundary each part ends on. Only states (parts used, chunks
//     covered) that can still finish in n parts are visited, a narrow band,
//     so this costs about chunks × band × chunks per part. Cuts snap to
//     directory and file boundaries when that costs little balance, and a
//     small edit to one file moves few others to another part.
//  5. Render and check. Every part is rendered and counted exactly. Chunk
//     counts are summed per piece, so the sum can differ from the count of
//     the joined text by a few tokens; if a part comes out over the budget,
//     the capacity is lowered by the overshoot and steps 2 to 5 run again.
//     The per-part overhead depends on the digits of n, so a change in n
//     also reruns them. Counts are memoised, so reruns are cheap.
//
// Diff parts are valid diffs: a part that continues a commit of a
// multi-commit diff (git log -p, git format-patch) from an earlier part
// opens with a marker line naming it, "commit <id> (continued): <subject>"
// (git apply skips it as it skips a commit message), counted in the
// budget like every synthetic line, so that each diff section still says
// which commit it belongs to; a file continued from an earlier part starts
// with its header repeated, and a hunk cut in two becomes sub-hunks with
// recomputed "@@ -a,b +c,d @@" headers (the original header is recorded as
// replaced). Sub-hunks cut inside a run of changed lines have no leading
// context, so git needs --unidiff-zero to apply them.
//
// Nothing is lost: every Part records Segments mapping its payload back to
// the input. Verify checks that verbatim segments equal the input bytes,
// that the segments of all parts tile every source exactly once, and that
// every rendered part is within the budget.
//
// The package is pure: no printing, no globals; Logf is injected. Split
// and Verify are safe for concurrent use; they read their Input and
// Options and never modify them, and a Result is not touched after it is
// returned. StagedDiff, RangeDiff and ReadFiles read the repository and
// write nothing to it.
package split

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxtrim/ctxtrim/budget"
)

// Kind says what an Input holds.
type Kind uint8

// Input kinds. Text is the zero value.
const (
	Text  Kind = iota // one text or document, cut by sections, paragraphs, lines
	Diff              // a unified diff (git or plain), cut by files and hunks
	Files             // a set of files, cut by files, definitions, paragraphs, lines
)

// String returns "text", "diff" or "files".
func (k Kind) String() string {
	switch k {
	case Diff:
		return "diff"
	case Files:
		return "files"
	}
	return "text"
}

// Source is one named body of input bytes.
type Source struct {
	Name string // file path (slash-separated) for Files; a label such as "-" otherwise
	Text string
}

// Input is what Split cuts. Text and Diff take exactly one source.
type Input struct {
	Kind    Kind
	Sources []Source
}

// Format is the rendered form of a part.
type Format uint8

// Formats. Plain is the zero value.
const (
	Plain     Format = iota // instructions, blank line, header, payload
	OpenAI                  // OpenAI Chat Completions request body
	Anthropic               // Anthropic Messages request body
)

// String returns "plain", "openai" or "anthropic".
func (f Format) String() string {
	switch f {
	case OpenAI:
		return "openai"
	case Anthropic:
		return "anthropic"
	}
	return "plain"
}

// Def is a definition's line range in a file, 1-based and inclusive.
type Def struct {
	Start, End int
}

// Options configures Split. Only Budget is required; the zero value of every
// other field is valid. Split does not modify Options.
type Options struct {
	Budget       int    // hard cap on each rendered part's tokens; must be > 0
	Instructions string // shared instructions, repeated in every part
	Format       Format // rendered form of each part
	Model        string // "model" field of request bodies
	MaxTokens    int    // answer cap of request parts: Anthropic "max_tokens", OpenAI "max_completion_tokens"; 0 means DefaultMaxTokens
	MaxParts     int    // 0 means no limit; more parts are an ErrTooManyParts
	Reduce       bool   // add a final part that merges the partial answers
	// ReduceInstructions replaces the default text of the reduce part.
	ReduceInstructions string
	// Definitions returns the definitions of a file so that files too
	// large for one part are cut between definitions; nil means
	// index.Definitions (tree-sitter). It must be safe for concurrent use;
	// a nil result means "none known".
	Definitions func(path string, src []byte) []Def
	Parallelism int // counting workers; 0 means GOMAXPROCS
	// Lazy leaves each Part's Text and Payload out of the Result, which
	// then renders them again, byte for byte, when Result.Part asks for
	// them: the parts of an input hold it once more, which for a
	// gigabyte is a gigabyte. A caller that writes parts one at a time
	// sets it; Tokens, Segments and the Manifest are there either way.
	Lazy bool
	Logf func(format string, args ...any)
}

// DefaultMaxTokens is the answer cap of request parts (Anthropic
// max_tokens, OpenAI max_completion_tokens) when Options.MaxTokens is 0.
const DefaultMaxTokens = 4096

// Sentinel errors, checked with errors.Is.
var (
	// ErrNoFit: no part can be made to fit: the instructions and header
	// leave no room for input (a *budget.TaskTooLargeError with the
	// numbers), or the headers and markers needed to cut a line take the
	// whole part, or the reduce part is too long. It is budget.ErrNoFit
	// too, for errors.Is.
	ErrNoFit error = budget.NoFitSentinel("cannot fit the budget")
	// ErrTooManyParts: the input needs more parts than Options.MaxParts.
	ErrTooManyParts = errors.New("too many parts")
)

// SegmentKind says how a payload segment relates to the input.
type SegmentKind uint8

// Segment kinds.
const (
	Verbatim  SegmentKind = iota // payload bytes equal the source bytes
	Synthetic                    // added text: repeated headers, markers
	Replaced                     // payload stands for the source bytes (a re-counted hunk header)
)

// String returns "verbatim", "synthetic" or "replaced".
func (k SegmentKind) String() string {
	switch k {
	case Synthetic:
		return "synthetic"
	case Replaced:
		return "replaced"
	}
	return "verbatim"
}

// Segment maps a byte range of a part's payload to the input.
type Segment struct {
	Kind       SegmentKind
	Offset     int // start in Part.Payload
	Len        int // length in Part.Payload
	Source     int // index in Input.Sources; -1 for Synthetic
	Start, End int // byte range in the source; 0, 0 for Synthetic
}

// Part is one rendered request.
type Part struct {
	Index    int       // 1-based
	Of       int       // number of parts (not counting the reduce part)
	Text     string    // the rendered part: plain text or a JSON request body
	Payload  string    // the part's share of the input, with its synthetic lines
	Tokens   int       // exact count of Text as the model sees it
	Segments []Segment // Payload mapped back to the input; nil for the reduce part
}

// Result is the outcome of Split.
type Result struct {
	// Parts are the parts, without Text and Payload when Options.Lazy
	// was set (Part renders them).
	Parts    []Part
	Reduce   *Part // the merge part when Options.Reduce is set, always rendered
	Manifest Manifest

	// render renders part i again (Options.Lazy); nil when Parts hold
	// their texts.
	render func(i int) (Part, error)
}

// Part returns part i (0-based) with its Text and Payload: Parts[i], or,
// when Options.Lazy left them out, Parts[i] rendered again, the same bytes
// it was counted on. It is safe for concurrent use.
func (r *Result) Part(i int) (Part, error) {
	if r.render == nil {
		return r.Parts[i], nil
	}
	return r.render(i)
}

// Split cuts in into parts that each fit opts.Budget, counted exactly with c
// on their rendered form. It returns ErrNoFit (wrapped, with the shortfall)
// when the instructions leave no room, and ErrTooManyParts (wrapped, with the
// excess) when more than opts.MaxParts parts are needed. The output is a
// pure function of in and opts.
func Split(ctx context.Context, in Input, c budget.Counter, opts *Options) (*Result, error) {
	if c == nil {
		return nil, budget.ErrNilCounter
	}
	if opts == nil {
		opts = &Options{}
	}
	if opts.Budget <= 0 {
		return nil, fmt.Errorf("budget must be positive, got %d", opts.Budget)
	}
	if (in.Kind == Text || in.Kind == Diff) && len(in.Sources) != 1 {
		return nil, fmt.Errorf("%s input takes exactly one source, got %d", in.Kind, len(in.Sources))
	}
	s := newSplitter(ctx, in, c, opts)
	return s.run()
}
