package slicer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/go-git/go-git/v5"
)

// ErrTaskTooLarge is returned (wrapped) by Select when the task alone, with
// the smallest header, does not fit the budget. The task is never cut: split
// it with ctxtrim split, or raise the budget.
var ErrTaskTooLarge = errors.New("task alone exceeds the budget")

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
	// Budget is the hard cap on the rendered output's tokens, task
	// included, as counted by the Counter passed to Select.
	Budget int
	// Format is FormatMarkdown (the default when empty), FormatXML,
	// FormatJSON or FormatPaths. Paths lists the files whose content the
	// markdown prompt would hold, best first, and is sized as markdown.
	Format string
	// NoRedact disables secret redaction, which is on by default.
	NoRedact bool
	// Explain fills Signals.Why for every ranked file and keeps up to
	// 20 unselected candidates in Selection.Candidates.
	Explain bool
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
	Tokens      int         `json:"tokens"`           // tokens of its rendered block, counted alone
	Signals     Signals     `json:"signals"`
}

// Breakdown splits the budget.
type Breakdown struct {
	Budget  int `json:"budget"`
	Task    int `json:"task"`    // the task block
	Header  int `json:"header"`  // the note on what was left out
	Context int `json:"context"` // file contents
	Map     int `json:"map"`     // the signature map
	Free    int `json:"free"`    // unused: Budget - Tokens
}

// Selection is the result of Select.
type Selection struct {
	// Text is the rendered prompt in the requested format.
	Text string
	// Tokens is the exact count of Text; Tokens ≤ Budget always. For
	// FormatPaths it is the count of the markdown prompt the paths
	// describe.
	Tokens int
	// Files are the files whose content is in the prompt, best first.
	Files []Selected
	// Map are the files present only as signatures, best first.
	Map []Selected
	// Omitted counts files that matched the task but are in neither.
	Omitted int
	// Candidates are the best unselected files, when Explain is set.
	Candidates []Selected
	// Breakdown splits the budget; its parts are counted separately, so
	// they may differ from Tokens by a few tokens at the joins.
	Breakdown Breakdown
	// Redactions lists the secrets replaced in the prompt.
	Redactions []Redaction
	// Skipped lists files that could not be read; they are left out.
	Skipped []Skip
}

// explainFiles is how many unselected candidates Explain keeps.
const explainFiles = 20

// Select picks the context for task from ix and renders it within
// opts.Budget tokens as counted by c. The result is deterministic for the
// same index, task, counter and options. It returns an error wrapping
// ErrTaskTooLarge when the task alone does not fit; problems with single
// files are in Selection.Skipped.
func Select(ctx context.Context, ix *Index, task string, c budget.Counter, opts *SelectOptions) (*Selection, error) {
	if opts == nil {
		opts = &SelectOptions{}
	}
	if ix == nil || c == nil {
		return nil, errors.New("select: nil index or counter")
	}
	if opts.Budget <= 0 {
		return nil, fmt.Errorf("budget %d: must be positive", opts.Budget)
	}
	format := opts.Format
	if format == "" {
		format = FormatMarkdown
	}
	if i := sort.SearchStrings(formats, format); i >= len(formats) || formats[i] != format {
		return nil, fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(formats, ", "))
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	read := opts.ReadFile
	if read == nil {
		// One os.Root for all reads: like Index.ReadFile, symbolic links
		// are followed only inside the work tree.
		root, err := os.OpenRoot(ix.Root)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", ix.Root, err)
		}
		defer root.Close()
		read = func(p string) ([]byte, error) {
			b, err := root.ReadFile(filepath.FromSlash(p))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", p, err)
			}
			return b, nil
		}
	}
	par := opts.Parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	task = strings.TrimRight(task, "\n\r\t ")
	r := newRenderer(format, task, ix)
	// The task must fit with the longest note (every file left out)
	// before any work, so that the empty prompt always fits later.
	if n := c.Count(r.render(nil, nil, len(ix.Files))); n > opts.Budget {
		return nil, fmt.Errorf("%w: the task and the prompt frame take %d tokens, the budget is %d; split the task with `ctxtrim split` or raise --budget", ErrTaskTooLarge, n, opts.Budget)
	}

	t0 := time.Now()
	q := newQuery(task)
	stats, err := scanContents(ctx, ix, q, par, read)
	logf("scanned %d files in %v", len(ix.Files), time.Since(t0).Round(time.Millisecond))
	if err != nil {
		return nil, err
	}
	sel := &Selection{}
	for i := range stats {
		if stats[i].err != nil {
			sel.Skipped = append(sel.Skipped, Skip{Path: ix.Files[i].Path, Reason: stats[i].err.Error()})
		}
	}
	var hist *history
	if opts.HistoryCommits >= 0 {
		hist, err = loadHistory(ctx, ix, opts)
		if err != nil {
			logf("history: %v (ranking without it)", err)
			hist = nil
		}
	}
	logf("history: %v", time.Since(t0).Round(time.Millisecond))
	lk := newLookup(ix)
	rk := rankFiles(&rankInput{ix: ix, q: q, lk: lk, stats: stats, hist: hist, explain: opts.Explain})

	p := &packer{
		ix: ix, q: q, stats: stats, c: c, read: read, r: r,
		redact: !opts.NoRedact, budget: opts.Budget,
	}
	logf("ranked: %v", time.Since(t0).Round(time.Millisecond))
	if err := p.pack(ctx, rk); err != nil {
		return nil, err
	}
	logf("packed: %v", time.Since(t0).Round(time.Millisecond))
	p.fill(sel, rk, opts.Explain)
	return sel, nil
}

// loadHistory reads the history from opts.Repository or from the
// repository at ix.Root.
func loadHistory(ctx context.Context, ix *Index, opts *SelectOptions) (*history, error) {
	repo := opts.Repository
	if repo == nil {
		repo = ix.Repository()
	}
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

// Packing constants.
const (
	// mapShare is the share of the context budget kept for the signature
	// map: enough for the model to know what else exists, small enough not
	// to starve the content.
	mapShare = 0.08
	// coreShare sets the first view of one file at this share of the
	// context budget, between minCore and maxCore tokens, so that the first
	// pass covers several files before the second pass deepens the best.
	coreShare = 0.025
	// minCore is the smallest per-file cap, in tokens: below it a
	// definition is cut to nothing useful.
	minCore = 250
	// maxCore is the largest core view: the relevant definitions of a file
	// rarely need more, and a bigger budget should buy more files first.
	maxCore = 800
	// topCoreBoost scales the core of a file by 1 + topCoreBoost·(s/s₁)⁴,
	// where s₁ is the best score: the file that stands out gets up to four
	// times the room, files scoring 70% of it a quarter more, the tail the
	// plain core. Value per token, not equal shares.
	topCoreBoost = 3.0
	// wholeSlack lets a file go in whole when that costs at most this
	// factor more than its excerpt: the elided rest is cheap context.
	wholeSlack = 1.6
	// maxCandidates is how many ranked files packing considers.
	maxCandidates = 600
	// minScoreShare drops candidates scoring below this share of the best:
	// a file that barely matches is noise, not context.
	minScoreShare = 0.02
	// contextLines is how many lines around a hit a window keeps in files
	// without definitions.
	contextLines = 12
	// maxMapDefs is the most definitions one map line lists.
	maxMapDefs = 12
)

// view is one file's content block in the prompt.
type view struct {
	rk     *ranked
	gran   Granularity
	ranges []LineRange
	body   string // the block's content, elision markers included
	tokens int    // exact count of the rendered block
	path   string
	lang   string
	lines  int // lines in the file
}

// mapEntry is one line of the signature map.
type mapEntry struct {
	rk     *ranked
	path   string
	sigs   []string
	line   string
	tokens int
}

// loaded is a file's content, redacted, split into lines.
type loaded struct {
	lines      []string
	redactions []Redaction
	err        error
}

// packer chooses views under the budget.
type packer struct {
	ix     *Index
	q      *query
	stats  []fileStats
	c      budget.Counter
	read   func(string) ([]byte, error)
	r      *renderer
	redact bool
	budget int

	termW    []float64 // idf of each query term, for choosing definitions
	files    map[int]*loaded
	wholes   map[int]*view
	rangeTok map[rangeKey]int
	views    []*view
	maps     []*mapEntry
	chosen   map[int]bool
	text     string
	tokens   int
	omit     int
}

// load reads, redacts and splits a file once.
func (p *packer) load(i int) *loaded {
	if l, ok := p.files[i]; ok {
		return l
	}
	l := &loaded{}
	p.files[i] = l
	src, err := p.read(p.ix.Files[i].Path)
	if err != nil {
		l.err = err
		return l
	}
	s := string(src)
	if p.redact {
		s, l.redactions = Redact(p.ix.Files[i].Path, s)
	}
	s = strings.TrimRight(s, "\n")
	if s != "" {
		l.lines = strings.Split(s, "\n")
	}
	return l
}

// pack fills p.views and p.maps and renders the final text within budget.
func (p *packer) pack(ctx context.Context, rk []ranked) error {
	p.files = map[int]*loaded{}
	p.wholes = map[int]*view{}
	p.rangeTok = map[rangeKey]int{}
	p.chosen = map[int]bool{}
	p.termIDF()
	var cands []*ranked
	if len(rk) > 0 {
		floor := rk[0].signals.Score * minScoreShare
		for k := range rk {
			if len(cands) == maxCandidates || rk[k].signals.Score < floor {
				break
			}
			cands = append(cands, &rk[k])
		}
	}
	p.omit = len(cands)
	frame := p.c.Count(p.r.render(nil, nil, p.omit))
	ctxBudget := p.budget - frame - frameSlack
	if ctxBudget <= 0 {
		return p.finish(nil, nil)
	}
	mapBudget := int(float64(ctxBudget) * mapShare)
	remaining := ctxBudget - mapBudget
	core := min(maxCore, max(minCore, int(float64(ctxBudget)*coreShare)))
	top := 0.0
	if len(cands) > 0 {
		top = cands[0].signals.Score
	}

	// Pass 1: cover the candidates in rank order, each with its core view.
	for _, r := range cands {
		if err := ctx.Err(); err != nil {
			return err
		}
		if remaining < minBlock {
			break
		}
		rel := r.signals.Score / top
		rel *= rel
		v := p.buildView(r, min(int(float64(core)*(1+topCoreBoost*rel*rel)), remaining))
		if v == nil || v.tokens > remaining {
			continue
		}
		p.views = append(p.views, v)
		p.chosen[r.file] = true
		remaining -= v.tokens
	}
	// Pass 2: deepen the best files with what is left.
	for k, v := range p.views {
		if remaining < minBlock {
			break
		}
		if v.gran == GranWhole {
			continue
		}
		w := p.buildView(v.rk, v.tokens+remaining)
		if w != nil && w.tokens > v.tokens && w.tokens-v.tokens <= remaining {
			remaining -= w.tokens - v.tokens
			p.views[k] = w
		}
	}
	// The signature map: the next files, one line each.
	remaining += mapBudget
	for _, r := range cands {
		if remaining < minBlock/4 {
			break
		}
		if p.chosen[r.file] || len(p.ix.Files[r.file].Symbols) == 0 {
			continue
		}
		m := p.mapEntry(r)
		if m.tokens > remaining {
			continue
		}
		p.maps = append(p.maps, m)
		remaining -= m.tokens
	}
	return p.finish(p.views, p.maps)
}

// frameSlack absorbs the header's growth when its counts gain digits.
const frameSlack = 24

// minBlock is the smallest content block worth adding, in tokens.
const minBlock = 40

// finish renders views then map lines, and if the text is over budget,
// drops items from the tail: a binary search for the longest prefix whose
// rendering fits, every probe counted exactly.
func (p *packer) finish(views []*view, maps []*mapEntry) error {
	n := len(views) + len(maps)
	renderK := func(k int) string {
		kv := min(k, len(views))
		km := max(0, k-len(views))
		return p.r.render(views[:kv], maps[:km], p.omitted(views[:kv], maps[:km]))
	}
	text := renderK(n)
	tok := p.c.Count(text)
	if tok > p.budget {
		lo, hi := 0, n // renderK(lo) fits (checked by Select), renderK(hi) does not
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if p.c.Count(renderK(mid)) <= p.budget {
				lo = mid
			} else {
				hi = mid
			}
		}
		n = lo
		text = renderK(n)
		tok = p.c.Count(text)
		if tok > p.budget {
			return fmt.Errorf("%w: the task and the prompt frame take %d tokens, the budget is %d; split the task with `ctxtrim split` or raise --budget", ErrTaskTooLarge, tok, p.budget)
		}
	}
	kv := min(n, len(views))
	p.views, p.maps = views[:kv], maps[:max(0, n-len(views))]
	p.text, p.tokens = text, tok
	return nil
}

// omitted counts candidates in neither the content nor the map.
func (p *packer) omitted(views []*view, maps []*mapEntry) int {
	return max(0, p.omit-len(views)-len(maps))
}

// termIDF weighs each query term by its inverse document frequency.
func (p *packer) termIDF() {
	p.termW = make([]float64, len(p.q.terms))
	docs := 0.0
	df := make([]float64, len(p.q.terms))
	for i := range p.stats {
		if !p.stats[i].read {
			continue
		}
		docs++
		for k, c := range p.stats[i].tf {
			if c > 0 {
				df[k]++
			}
		}
	}
	for k := range df {
		p.termW[k] = math.Log(1 + (docs-df[k]+0.5)/(df[k]+0.5))
	}
}

// Weights of a line when choosing definitions within a file.
const (
	lineQuoteWeight   = 4.0 // a quoted string from the task
	lineMentionWeight = 6.0 // a stack frame's line or a named symbol's definition
)

// unit is a candidate range within a file, with its relevance.
type unit struct {
	r     LineRange
	scope int // line of the enclosing definition's header, 0 if none
	w     float64
	best  int     // the line with the most weight
	bestW float64 // its weight
}

// see records a hit line's weight in u.
func (u *unit) see(line int, w float64) {
	u.w += w
	if w > u.bestW {
		u.best, u.bestW = line, w
	}
}

// units scores the definitions (or, outside definitions, windows) of a
// file by the query hits they contain.
func (p *packer) units(r *ranked, nlines int) []unit {
	f := &p.ix.Files[r.file]
	lineW := map[int]float64{}
	for _, h := range p.stats[r.file].hits {
		if h.Term >= 0 {
			lineW[int(h.Line)] += p.termW[h.Term]
		} else {
			lineW[int(h.Line)] += lineQuoteWeight
		}
	}
	for _, l := range r.lines {
		lineW[l] += lineMentionWeight
	}
	byKey := map[LineRange]*unit{}
	var out []*unit
	lines := make([]int, 0, len(lineW))
	for l := range lineW {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	for _, l := range lines {
		if l < 1 || l > nlines {
			continue
		}
		rg, scope := innermost(f.Symbols, l)
		if rg.Start == 0 {
			rg = LineRange{max(1, l-contextLines), min(nlines, l+contextLines)}
			// Merge with the previous window when they overlap.
			if n := len(out); n > 0 && out[n-1].scope == -1 && out[n-1].r.End >= rg.Start-1 {
				out[n-1].r.End = max(out[n-1].r.End, rg.End)
				out[n-1].see(l, lineW[l])
				continue
			}
			u := &unit{r: rg, scope: -1}
			u.see(l, lineW[l])
			out = append(out, u)
			continue
		}
		rg.End = min(rg.End, nlines)
		if u, ok := byKey[rg]; ok {
			u.see(l, lineW[l])
			continue
		}
		u := &unit{r: rg, scope: scope}
		u.see(l, lineW[l])
		byKey[rg] = u
		out = append(out, u)
	}
	res := make([]unit, len(out))
	for k, u := range out {
		res[k] = *u
		if res[k].scope < 0 {
			res[k].scope = 0
		}
		// Density, softened: a long function collects more hits without
		// being more relevant line for line.
		res[k].w /= math.Sqrt(float64(u.r.End - u.r.Start + 1))
	}
	sort.SliceStable(res, func(a, b int) bool {
		if res[a].w != res[b].w {
			return res[a].w > res[b].w
		}
		return res[a].r.Start < res[b].r.Start
	})
	return res
}

// innermost returns the smallest definition containing line, and the header
// line of the definition enclosing that one (0 if none).
func innermost(syms []Symbol, line int) (LineRange, int) {
	best, outer := -1, -1
	for k := range syms {
		s := &syms[k]
		if s.Start <= line && line <= s.End {
			if best < 0 || s.End-s.Start < syms[best].End-syms[best].Start {
				best = k
			}
		}
	}
	if best < 0 {
		return LineRange{}, 0
	}
	b := &syms[best]
	for k := range syms {
		s := &syms[k]
		if k != best && s.Start <= b.Start && b.End <= s.End && (s.Start < b.Start || s.End > b.End) {
			if outer < 0 || s.End-s.Start < syms[outer].End-syms[outer].Start {
				outer = k
			}
		}
	}
	scope := 0
	if outer >= 0 {
		scope = syms[outer].Start
	}
	return LineRange{b.Start, b.End}, scope
}

// buildView returns the best view of a file within limit tokens: the whole
// file when it fits and is not much dearer than its excerpt, else its most
// relevant definitions (with their enclosing scope's header) or windows, else
// its head. It returns nil when nothing useful fits.
func (p *packer) buildView(r *ranked, limit int) *view {
	l := p.load(r.file)
	if l.err != nil || len(l.lines) == 0 {
		return nil
	}
	f := &p.ix.Files[r.file]
	n := len(l.lines)
	var whole *view
	if f.Tokens == 0 || f.Tokens <= limit*2 {
		whole = p.wholeView(r, l)
		if whole.tokens <= limit && whole.tokens <= minCore {
			return whole // small: excerpts would save nothing
		}
	}
	us := p.units(r, n)
	var ranges []LineRange
	// Estimate while choosing (each range counted once, cached), then count
	// the chosen view exactly: counting every trial view would be
	// quadratic in the number of definitions.
	for k, u := range us {
		try := addRange(ranges, u.r)
		if u.scope > 0 {
			try = addRange(try, LineRange{u.scope, u.scope})
		}
		if p.estimate(r.file, l, try) > limit {
			if k == 0 {
				// The best definition is too large: its header and a
				// window around its strongest line.
				ranges = p.window(r.file, l, u, limit)
			}
			continue
		}
		ranges = try
	}
	var best *view
	if len(ranges) > 0 {
		best = p.makeView(r, l, ranges)
		for best.tokens > limit && len(ranges) > 1 {
			ranges = ranges[:len(ranges)-1]
			best = p.makeView(r, l, ranges)
		}
		if best.tokens > limit {
			best = nil
		}
	}
	if best == nil {
		// No definition fits: a window around the first hit, or the head.
		start := 1
		if len(us) > 0 {
			start = us[0].r.Start
		}
		best = p.shrinkFrom(r, l, start, limit)
	}
	if best == nil {
		return nil
	}
	if whole != nil && whole.tokens <= limit && float64(whole.tokens) <= wholeSlack*float64(best.tokens) {
		return whole
	}
	return best
}

// window returns the header line of u (and of its scope) and the widest
// window of u around its strongest line that fits limit by estimate, found
// by binary search on the half-width; nil when not even the header fits.
func (p *packer) window(file int, l *loaded, u unit, limit int) []LineRange {
	base := []LineRange{{u.r.Start, u.r.Start}}
	if u.scope > 0 {
		base = addRange(base, LineRange{u.scope, u.scope})
	}
	center := u.best
	if center < u.r.Start || center > u.r.End {
		center = u.r.Start
	}
	var best []LineRange
	lo, hi := 0, u.r.End-u.r.Start
	for lo <= hi {
		h := (lo + hi) / 2
		try := addRange(base, LineRange{max(u.r.Start, center-h), min(u.r.End, center+h)})
		if p.estimate(file, l, try) <= limit {
			best, lo = try, h+1
		} else {
			hi = h - 1
		}
	}
	return best
}

// shrinkFrom returns the longest run of lines from start that fits limit,
// by binary search on its end.
func (p *packer) shrinkFrom(r *ranked, l *loaded, start, limit int) *view {
	lo, hi := start-1, len(l.lines)
	var best *view
	for lo < hi {
		mid := (lo + hi + 1) / 2
		v := p.makeView(r, l, []LineRange{{start, mid}})
		if v.tokens <= limit {
			lo, best = mid, v
		} else {
			hi = mid - 1
		}
	}
	if best == nil || best.tokens < minBlock/2 {
		return nil
	}
	return best
}

// addRange returns ranges with rg merged in, sorted and without overlaps.
func addRange(ranges []LineRange, rg LineRange) []LineRange {
	out := append(append([]LineRange(nil), ranges...), rg)
	sort.Slice(out, func(a, b int) bool { return out[a].Start < out[b].Start })
	merged := out[:1]
	for _, x := range out[1:] {
		last := &merged[len(merged)-1]
		if x.Start <= last.End+1 {
			last.End = max(last.End, x.End)
			continue
		}
		merged = append(merged, x)
	}
	return merged
}

// wholeView returns the whole-file view of a file, built once.
func (p *packer) wholeView(r *ranked, l *loaded) *view {
	if v, ok := p.wholes[r.file]; ok {
		return v
	}
	v := p.makeView(r, l, []LineRange{{1, len(l.lines)}})
	p.wholes[r.file] = v
	return v
}

// estimate is the token count of a view of ranges: the block frame, each
// range counted alone (cached), and an elision marker per gap. It is close
// to, not exactly, the count of the rendered block.
func (p *packer) estimate(file int, l *loaded, ranges []LineRange) int {
	n := blockFrameTokens
	for k, rg := range ranges {
		if k > 0 {
			n += markerTokens
		}
		key := rangeKey{file, rg}
		c, ok := p.rangeTok[key]
		if !ok {
			c = p.c.Count(strings.Join(l.lines[rg.Start-1:min(rg.End, len(l.lines))], "\n") + "\n")
			p.rangeTok[key] = c
		}
		n += c
	}
	return n
}

// Estimates of the parts of a block that estimate does not count: the
// header line and fences, and one elision marker.
const (
	blockFrameTokens = 24
	markerTokens     = 10
)

type rangeKey struct {
	file int
	r    LineRange
}

// makeView renders a file's ranges and counts the block exactly.
func (p *packer) makeView(r *ranked, l *loaded, ranges []LineRange) *view {
	n := len(l.lines)
	gran := GranDefinitions
	if len(ranges) == 1 && ranges[0].Start == 1 && ranges[0].End >= n {
		gran = GranWhole
	}
	f := &p.ix.Files[r.file]
	var b strings.Builder
	for k, rg := range ranges {
		if k > 0 && rg.Start > ranges[k-1].End+1 {
			b.WriteString(elisionMarker(f.Lang, ranges[k-1].End+1, rg.Start-1))
			b.WriteByte('\n')
		}
		for i := rg.Start; i <= rg.End && i <= n; i++ {
			b.WriteString(l.lines[i-1])
			b.WriteByte('\n')
		}
	}
	v := &view{rk: r, gran: gran, ranges: ranges, body: b.String()}
	v.tokens = p.c.Count(p.r.block(f, v, n))
	return v
}

// mapEntry renders one map line.
func (p *packer) mapEntry(r *ranked) *mapEntry {
	f := &p.ix.Files[r.file]
	var sigs []string
	for _, s := range f.Symbols {
		if s.Scope != "" && len(f.Symbols) > maxMapDefs {
			continue // members only when the file is small
		}
		sig := s.Signature
		if sig == "" {
			sig = s.Kind + " " + s.Name
		}
		sigs = append(sigs, strings.Join(strings.Fields(sig), " "))
		if len(sigs) == maxMapDefs {
			break
		}
	}
	m := &mapEntry{rk: r, path: f.Path, sigs: sigs, line: p.r.mapLine(f.Path, sigs, len(f.Symbols) > len(sigs))}
	m.tokens = p.c.Count(m.line)
	return m
}

// fill copies the packing into sel.
func (p *packer) fill(sel *Selection, rk []ranked, explain bool) {
	sel.Text, sel.Tokens = p.text, p.tokens
	sel.Omitted = p.omitted(p.views, p.maps)
	shown := map[int]bool{}
	ctxTok, mapTok := 0, 0
	for _, v := range p.views {
		f := &p.ix.Files[v.rk.file]
		sel.Files = append(sel.Files, Selected{
			Path: f.Path, Lang: f.Lang, Granularity: v.gran, Ranges: v.ranges,
			Lines: len(p.files[v.rk.file].lines), Tokens: v.tokens, Signals: v.rk.signals,
		})
		sel.Redactions = append(sel.Redactions, p.files[v.rk.file].redactionsIn(v.ranges)...)
		shown[v.rk.file] = true
		ctxTok += v.tokens
	}
	for _, m := range p.maps {
		f := &p.ix.Files[m.rk.file]
		sel.Map = append(sel.Map, Selected{Path: f.Path, Lang: f.Lang, Granularity: GranSignatures, Tokens: m.tokens, Signals: m.rk.signals})
		shown[m.rk.file] = true
		mapTok += m.tokens
	}
	if explain {
		for k := range rk {
			if len(sel.Candidates) == explainFiles {
				break
			}
			if !shown[rk[k].file] {
				f := &p.ix.Files[rk[k].file]
				sel.Candidates = append(sel.Candidates, Selected{Path: f.Path, Lang: f.Lang, Signals: rk[k].signals})
			}
		}
	}
	taskTok := p.c.Count(p.r.taskBlock())
	sel.Breakdown = Breakdown{
		Budget: p.budget, Task: taskTok, Context: ctxTok, Map: mapTok,
		Header: max(0, p.tokens-taskTok-ctxTok-mapTok), Free: p.budget - p.tokens,
	}
	if p.r.format == FormatPaths {
		var b strings.Builder
		for _, s := range sel.Files {
			b.WriteString(s.Path)
			b.WriteByte('\n')
		}
		sel.Text = b.String()
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
