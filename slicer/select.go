package slicer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/go-git/go-git/v5"
)

// ErrTaskTooLarge is the sentinel of Select's error when the task alone,
// with the prompt frame and the longest note, does not fit the budget. The
// error is a *budget.TaskTooLargeError with the numbers (Need, the tokens of
// task and frame; Budget, SelectOptions.Budget) whose Err is ErrTaskTooLarge,
// so errors.Is holds for both ErrTaskTooLarge and budget.ErrNoFit. The task
// is never cut: the caller splits it or raises the budget.
var ErrTaskTooLarge error = budget.NoFitSentinel("task alone exceeds the budget")

// taskTooLarge is Select's error when the task and the prompt frame take
// need tokens of the budget.
func taskTooLarge(need, budgetTokens int) error {
	return &budget.TaskTooLargeError{What: "the task and the prompt frame", Need: need, Budget: budgetTokens, Err: ErrTaskTooLarge}
}

// Format names accepted by SelectOptions.Format.
const (
	FormatMarkdown = "markdown"
	FormatXML      = "xml"
	FormatJSON     = "json"
	FormatPaths    = "paths"
)

var formats = []string{FormatJSON, FormatMarkdown, FormatPaths, FormatXML}

// SelectOptions configures Select. The zero value is valid except for
// Budget, which must be positive; Select does not modify the options.
type SelectOptions struct {
	// Budget is the hard cap on the prompt's tokens, task included, as
	// counted by the Counter passed to Select: the rendered Text of
	// FormatMarkdown, FormatXML and FormatJSON.
	Budget int
	// Format is FormatMarkdown (the default when empty), FormatXML,
	// FormatJSON or FormatPaths. Markdown, xml and paths hold the same
	// selection; paths lists the files whose content the prompt holds,
	// best first. JSON carries files, lines and map to a request builder,
	// and its text as emitted is within the budget, so it may be embedded
	// as it is; since JSON's escapes make it longer than the prompt (a
	// newline, tab or quote is two characters, about a fifth more on
	// tab-indented code), it holds less than the prompt at the same
	// budget, and that selection also fits rendered as markdown or xml.
	Format string
	// NoTask leaves the task out of Text (and out of the budget): the
	// task still steers the selection, but a request builder that places
	// the task in its own message renders only the context. The note still
	// says "for the task above".
	NoTask bool
	// NoRedact disables secret redaction, which is on by default.
	NoRedact bool
	// Explain fills Signals.Why for every ranked file and keeps up to
	// 20 unselected candidates in Selection.Candidates.
	Explain bool
	// Include, when not empty, limits the prompt and its map to files that
	// match one of these patterns; Exclude keeps the files that match one
	// of its patterns out of both, even a file the task names, and wins
	// over Include. Patterns are gitignore lines as a .ctxtrimignore at
	// the root holds them (index.Patterns): "*_test.go", "docs/",
	// "/internal/legacy", "pkg/**/api". Every file still counts in the
	// ranking (term rarity, the reference graph, co-change), so a scope
	// ranks its files as the whole repository would.
	Include []string
	Exclude []string
	// HistoryCommits bounds how many first-parent commits from HEAD feed
	// recency and co-change. 0 means 300; negative disables history.
	HistoryCommits int
	// Parallelism bounds concurrent file reads. 0 means GOMAXPROCS.
	Parallelism int
	// Repository is the repository whose history feeds recency and
	// co-change. Nil means ix.Repository(); a plain directory has no
	// history.
	Repository *git.Repository
	// ReadFile reads an indexed file by its slash-separated path. Nil
	// means read it from the work tree at ix.Root, as Index.ReadFile does.
	ReadFile func(path string) ([]byte, error)
	// Logf receives progress and per-file problems. Nil discards them.
	Logf func(format string, args ...any)
}

// Granularity says how much of a file the prompt holds.
type Granularity string

// Granularities, from most to least content.
const (
	GranWhole       Granularity = "whole"       // the entire file
	GranDefinitions Granularity = "definitions" // relevant definitions, the rest elided
	GranSignatures  Granularity = "signatures"  // one line per definition, in the map
)

// LineRange is an inclusive range of 1-based lines.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Selected is one file in the prompt (or, in Candidates, one left out).
type Selected struct {
	Path        string      `json:"path"`
	Lang        string      `json:"lang,omitempty"`
	Granularity Granularity `json:"granularity,omitempty"`
	Ranges      []LineRange `json:"ranges,omitempty"` // lines included; nil for signatures
	Lines       int         `json:"lines"`            // lines in the file
	Tokens      int         `json:"tokens"`           // tokens of its block as the prompt renders it, counted alone
	// Units are the definitions shown of a file given as excerpts, best
	// first, each with its own score; nil for a whole file.
	Units   []Unit  `json:"units,omitempty"`
	Signals Signals `json:"signals"`
	// Content is the block's text as the prompt holds it: the chosen lines
	// with an elision marker for each gap, or the map entry. A request
	// builder can lay the blocks out itself from Path, Ranges and Content.
	Content string `json:"-"`
}

// Breakdown splits the budget.
type Breakdown struct {
	Budget  int `json:"budget"`
	Task    int `json:"task"`    // the task block
	Header  int `json:"header"`  // the note on what was left out
	Context int `json:"context"` // file contents: Whole + Definitions
	// Whole is the content of the files shown whole.
	Whole int `json:"whole"`
	// Definitions is the content of the files shown as excerpts.
	Definitions int `json:"definitions"`
	Map         int `json:"map"`  // the signature map
	Free        int `json:"free"` // unused: Budget - Tokens
}

// Selection is the result of Select.
type Selection struct {
	// Text is the rendered prompt in the requested format.
	Text string
	// Note is the prompt's note on what it holds and what was left out.
	Note string
	// Tokens is the exact count of Text; Tokens ≤ Budget always. For
	// FormatPaths it is the count of the markdown prompt it describes.
	Tokens int
	// Files are the files whose content is in the prompt, best first.
	Files []Selected
	// Map are the files present only as signatures, best first.
	Map []Selected
	// Omitted counts files that matched the task but are in neither.
	Omitted int
	// Candidates are the best unselected files, when Explain is set.
	Candidates []Selected
	// Breakdown splits the budget; its parts are counted separately, as
	// the text renders them (markdown for FormatPaths),
	// so they differ from Tokens by the headings between them and a few
	// tokens at the joins.
	Breakdown Breakdown
	// Redactions lists the secrets replaced in the prompt.
	Redactions []Redaction
	// Skipped lists files that could not be read; they are left out.
	Skipped []index.Skip
	// Nothing says why no file could be shown, when none could: the
	// index holds none, or none is in the Include and Exclude scope. It
	// is "" otherwise, also when files could be shown and none matched.
	Nothing string
	// UnmatchedInclude lists the Include patterns that match no file of
	// the index: a typo, or a scope that is not in this repository.
	UnmatchedInclude []string
	// Unmatched is set when nothing of the task reaches a file (no word,
	// name, path or frame of it is in the repository, and no file is
	// being edited): the prompt then outlines the repository, the
	// signatures of its most central files (Map), and shows no code.
	Unmatched bool
}

// explainFiles is how many unselected candidates Explain keeps.
const explainFiles = 20

// Select picks the context for task from ix and renders it within
// opts.Budget tokens as counted by c. The result is deterministic for the
// same index, task, counter and options. It returns a
// *budget.TaskTooLargeError (errors.Is ErrTaskTooLarge and budget.ErrNoFit)
// when the task alone does not fit; problems with single files are in
// Selection.Skipped.
func Select(ctx context.Context, ix *index.Index, task string, c budget.Counter, opts *SelectOptions) (*Selection, error) {
	if opts == nil {
		opts = &SelectOptions{}
	}
	t0 := time.Now()
	p, rk, sel, err := prepare(ctx, ix, task, c, opts)
	if err != nil {
		return nil, err
	}
	if p.root != nil {
		defer p.root.Close()
	}
	if err := p.pack(ctx, rk); err != nil {
		return nil, err
	}
	if opts.Logf != nil {
		opts.Logf("packed: %v", time.Since(t0).Round(time.Millisecond))
	}
	p.fill(sel, rk, opts.Explain)
	return sel, nil
}

// prepare runs the pipeline up to packing: it checks the options, reads
// the task into a query and the repository's git facts (readFacts), scans
// and ranks the files, and returns the packer that Select packs them with
// (tests call its parts directly). Each stage hands the next a value it
// does not change afterwards.
func prepare(ctx context.Context, ix *index.Index, task string, c budget.Counter, opts *SelectOptions) (p *packer, rk []ranked, sel *Selection, err error) {
	o, err := checkOptions(ix, c, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	read, root, err := fileReader(ix, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if err != nil && root != nil {
			root.Close()
		}
	}()
	task = strings.TrimRight(task, "\n\r\t ")
	none, unmatched := nothingToSelect(ix, o.include, o.exclude, opts.Include)
	r, sizing := renderers(o.format, task, ix, opts.NoTask, none)
	// The task must fit with the longest note (every file left out)
	// before any work, so that the empty prompt always fits later.
	if n := countDearest(c, sizing, func(r *renderer) string { return r.render(page{omitted: len(ix.Files)}) }); n > opts.Budget {
		return nil, nil, nil, taskTooLarge(n, opts.Budget)
	}

	t0 := time.Now()
	q := newQuery(taskText(task))
	facts := readFacts(ctx, ix, opts, q, o.logf)
	stats, err := scanContents(ctx, ix, q, o.par, read)
	o.logf("scanned %d files in %v", len(ix.Files), time.Since(t0).Round(time.Millisecond))
	if err != nil {
		return nil, nil, nil, err
	}
	sel = &Selection{Nothing: none, UnmatchedInclude: unmatched}
	for i := range stats {
		if stats[i].err != nil {
			sel.Skipped = append(sel.Skipped, index.Skip{Path: ix.Files[i].Path, Reason: stats[i].err.Error()})
		}
	}
	df, docs := docFreq(stats, len(q.terms))
	rk = rankFiles(&rankInput{ix: ix, q: q, lk: newLookup(ix), stats: stats, df: df, docs: docs, hist: facts.hist, explain: opts.Explain})
	rk = scoped(ix, rk, o, none)
	o.logf("ranked: %v", time.Since(t0).Round(time.Millisecond))
	p = &packer{
		ix: ix, c: c, read: read, root: root, r: r, sizing: sizing,
		redact: !opts.NoRedact, budget: opts.Budget, logf: o.logf,
		q: q, stats: stats, edits: facts.edits,
	}
	p.termW, p.newWords = termRarity(q, df, docs)
	return p, rk, sel, nil
}

// options are SelectOptions checked, with their defaults applied.
type options struct {
	format           string
	include, exclude index.Patterns
	logf             func(string, ...any)
	par              int
}

// checkOptions checks Select's arguments and applies the defaults.
func checkOptions(ix *index.Index, c budget.Counter, opts *SelectOptions) (*options, error) {
	if ix == nil || c == nil {
		return nil, errors.New("select: nil index or counter")
	}
	if opts.Budget <= 0 {
		return nil, fmt.Errorf("budget %d: must be positive", opts.Budget)
	}
	o := &options{format: opts.Format, logf: opts.Logf, par: opts.Parallelism}
	if o.format == "" {
		o.format = FormatMarkdown
	}
	if i := sort.SearchStrings(formats, o.format); i >= len(formats) || formats[i] != o.format {
		return nil, fmt.Errorf("unknown format %q (known: %s)", o.format, strings.Join(formats, ", "))
	}
	var err error
	if o.include, err = index.ParsePatterns(opts.Include); err != nil {
		return nil, fmt.Errorf("include: %w", err)
	}
	if o.exclude, err = index.ParsePatterns(opts.Exclude); err != nil {
		return nil, fmt.Errorf("exclude: %w", err)
	}
	if o.logf == nil {
		o.logf = func(string, ...any) {}
	}
	if o.par <= 0 {
		o.par = runtime.GOMAXPROCS(0)
	}
	return o, nil
}

// fileReader returns how the selection reads files: opts.ReadFile, else
// one os.Root for all reads (like Index.ReadFile, symbolic links are
// followed only inside the work tree), which the caller closes.
func fileReader(ix *index.Index, opts *SelectOptions) (read func(string) ([]byte, error), root *os.Root, err error) {
	if opts.ReadFile != nil {
		return opts.ReadFile, nil, nil
	}
	if root, err = os.OpenRoot(ix.Root); err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", ix.Root, err)
	}
	return func(p string) ([]byte, error) {
		b, err := root.ReadFile(filepath.FromSlash(p))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		return b, nil
	}, root, nil
}

// renderers returns the renderer of the requested format and those the
// selection is sized by. Markdown, xml and paths hold the same selection:
// it is sized by the dearer of the two prompt formats. Paths carries it to
// tools. JSON is sized by its own text too: a request builder may embed the
// document as it is (a tool result, a message), and then its escapes (a
// newline, tab or quote is two characters: a fifth more on tab-indented
// code) must be within the budget, not 19% over it. It is sized by the
// prompt formats as well, so that a builder that renders the document's
// files as one of them stays within the budget too. Only JSON pays for its
// escapes: sizing every format by them cost the markdown prompt a fifth of
// its room (measured on the kit's eight repositories at 8k/16k/32k: lines
// all % rose in 19 of 24 cells without it, by 3.4 points on average, and
// fell in one, by 1.7).
func renderers(format, task string, ix *index.Index, noTask bool, none string) (r *renderer, sizing []*renderer) {
	r = newRenderer(format, task, ix)
	r.noTask, r.none = noTask, none
	sizes := []string{FormatMarkdown, FormatXML}
	if format == FormatJSON {
		sizes = append(sizes, FormatJSON)
	}
	for _, f := range sizes {
		sz := newRenderer(f, task, ix)
		sz.noTask, sz.none = noTask, none
		sizing = append(sizing, sz)
	}
	return r, sizing
}

// countDearest is the exact count of part as the sizing renderers render
// it: the dearer of them.
func countDearest(c budget.Counter, sizing []*renderer, part func(r *renderer) string) int {
	n := 0
	for _, r := range sizing {
		n = max(n, c.Count(part(r)))
	}
	return n
}

// scoped keeps the ranked files that the include and exclude patterns let
// be shown; when nothing reaches a file and none is referred to by
// another (a small repository, or files that do not call each other), the
// outline still needs an order.
func scoped(ix *index.Index, rk []ranked, o *options, none string) []ranked {
	if !o.include.Empty() || !o.exclude.Empty() {
		n := len(rk)
		rk = slices.DeleteFunc(rk, func(r ranked) bool {
			return !inScope(o.include, o.exclude, ix.Files[r.file].Path)
		})
		o.logf("scope: %d of %d ranked files left out by include and exclude patterns", n-len(rk), n)
	}
	if len(rk) == 0 && none == "" {
		rk = outlineOrder(ix, o.include, o.exclude)
	}
	return rk
}

// inScope reports whether the file at path p may be shown: it matches an
// include pattern, if any, and no exclude pattern.
func inScope(include, exclude index.Patterns, p string) bool {
	return !exclude.Match(p) && (include.Empty() || include.Match(p))
}

// nothingToSelect returns why no file of ix can be shown, or "" when
// some can, for the note: a prompt without context must not say that
// nothing matched the task when there was nothing to match. It also
// returns the include patterns (raw, as given) that match no file.
func nothingToSelect(ix *index.Index, include, exclude index.Patterns, raw []string) (string, []string) {
	if len(ix.Files) == 0 {
		return "the repository holds no file to select from", nil
	}
	if include.Empty() && exclude.Empty() {
		return "", nil
	}
	// Each include pattern alone, to name the ones that match nothing; a
	// negated one only takes back what another matched.
	single := make([]index.Patterns, len(raw))
	hit := make([]bool, len(raw))
	left := 0
	for i, s := range raw {
		single[i], _ = index.ParsePatterns([]string{s}) // prepare parsed them all
		hit[i] = strings.HasPrefix(s, "!")
		if !hit[i] {
			left++
		}
	}
	anyIn := false
	for i := 0; i < len(ix.Files) && (left > 0 || !anyIn); i++ {
		p := ix.Files[i].Path
		for k := range single {
			if !hit[k] && single[k].Match(p) {
				hit[k] = true
				left--
			}
		}
		anyIn = anyIn || inScope(include, exclude, p)
	}
	var unmatched []string
	for k, h := range hit {
		if !h {
			unmatched = append(unmatched, raw[k])
		}
	}
	if !anyIn {
		return "no file is in the scope of the include and exclude patterns", unmatched
	}
	return "", unmatched
}

// remoteSet returns the repository's remote URLs, normalized; empty
// without a repository or remotes.
func remoteSet(repo *git.Repository) map[string]bool {
	set := map[string]bool{}
	if repo == nil {
		return set
	}
	remotes, err := repo.Remotes()
	if err != nil {
		return set
	}
	for _, r := range remotes {
		for _, u := range r.Config().URLs {
			if n := normalizeRemote(u); n != "" {
				set[n] = true
			}
		}
	}
	return set
}

// selectRepository returns the repository a selection reads history,
// remotes and named commits from: opts.Repository, else the index's.
func selectRepository(ix *index.Index, opts *SelectOptions) *git.Repository {
	if opts.Repository != nil {
		return opts.Repository
	}
	return ix.Repository()
}

// loadHistory reads the history from opts.Repository or from the
// repository at ix.Root.
func loadHistory(ctx context.Context, ix *index.Index, opts *SelectOptions) (*history, error) {
	repo := selectRepository(ix, opts)
	if repo == nil {
		return nil, nil
	}
	n := opts.HistoryCommits
	if n == 0 {
		n = defaultHistoryCommits
	}
	if h, ok := readHistoryCLI(ctx, ix.Root, n); ok {
		return h, nil
	}
	return readHistory(ctx, repo, n)
}

// fill copies the packing into sel.
func (p *packer) fill(sel *Selection, rk []ranked, explain bool) {
	sel.Text, sel.Tokens = p.text, p.tokens
	sel.Unmatched = p.notes.unmatched
	sel.Omitted = p.omitted(p.views, p.maps)
	if sel.Unmatched {
		sel.Omitted = 0 // none matched the task
	}
	sel.Note = p.r.note(page{p.views, p.maps, sel.Omitted, p.notes})
	// The parts are counted as the prompt renders them: the packer's own
	// sizes are the dearer of the prompt formats, and their sum could
	// exceed Tokens and leave the note a negative share.
	pr := p.promptRenderer()
	shown := map[int]bool{}
	wholeTok, defTok, mapTok := 0, 0, 0
	for _, v := range p.views {
		f := &p.ix.Files[v.rk.file]
		tok := p.c.Count(pr.block(v))
		sel.Files = append(sel.Files, Selected{
			Path: f.Path, Lang: f.Lang, Granularity: v.gran, Ranges: v.ranges, Units: v.units,
			Lines: len(p.files[v.rk.file].lines), Tokens: tok, Signals: v.rk.signals, Content: v.body,
		})
		sel.Redactions = append(sel.Redactions, p.files[v.rk.file].redactionsIn(v.ranges)...)
		shown[v.rk.file] = true
		if v.gran == GranWhole {
			wholeTok += tok
		} else {
			defTok += tok
		}
	}
	for _, m := range p.maps {
		f := &p.ix.Files[m.rk.file]
		tok := p.c.Count(pr.mapLine(m))
		sel.Map = append(sel.Map, Selected{Path: f.Path, Lang: f.Lang, Granularity: GranSignatures, Tokens: tok, Signals: m.rk.signals, Content: p.r.mapLine(m)})
		shown[m.rk.file] = true
		mapTok += tok
	}
	if explain {
		// A twin of a file shown is not left out: its content is in.
		twin := map[string]bool{}
		for i := range shown {
			for _, t := range p.notes.twins[p.ix.Files[i].Path] {
				twin[t] = true
			}
		}
		for k := range rk {
			if len(sel.Candidates) == explainFiles {
				break
			}
			if !shown[rk[k].file] && !twin[p.ix.Files[rk[k].file].Path] {
				f := &p.ix.Files[rk[k].file]
				sel.Candidates = append(sel.Candidates, Selected{Path: f.Path, Lang: f.Lang, Signals: rk[k].signals})
			}
		}
	}
	sel.Breakdown = Breakdown{
		Budget: p.budget, Task: p.c.Count(pr.taskBlock()), Header: p.c.Count(sel.Note),
		Context: wholeTok + defTok, Whole: wholeTok, Definitions: defTok, Map: mapTok,
		Free: p.budget - sel.Tokens,
	}
}

// redactionsIn returns the redactions on the given lines.
func (l *loaded) redactionsIn(ranges []LineRange) []Redaction {
	var out []Redaction
	for _, rd := range l.redactions {
		for _, rg := range ranges {
			if rg.Start <= rd.Line && rd.Line <= rg.End {
				out = append(out, rd)
				break
			}
		}
	}
	return out
}
