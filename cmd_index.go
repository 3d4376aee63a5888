package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/ctxtrim/ctxtrim/slicer"
)

func init() {
	commands["index"] = command{summary: "index a repository and summarize files, languages, symbols, skips", run: runIndex}
}

// progressDelay is how long indexing runs before progress is shown: a
// fast (warm) index should never flicker a progress line.
const progressDelay = time.Second

// indexSummary is the `ctxtrim index` report; -json prints it as is.
type indexSummary struct {
	Root      string         `json:"root"`
	Head      string         `json:"head,omitempty"`
	Files     int            `json:"files"`
	Languages map[string]int `json:"languages"`
	Classes   map[string]int `json:"classes"`
	Status    map[string]int `json:"status,omitempty"`
	Symbols   int            `json:"symbols"`
	Tokens    int            `json:"tokens_estimated"`
	Skipped   map[string]int `json:"skipped"`
	Elapsed   string         `json:"elapsed"`
	FileList  []indexFile    `json:"file_list,omitempty"`
	SkipList  []slicer.Skip  `json:"skip_list,omitempty"`
}

type indexFile struct {
	Path    string `json:"path"`
	Lang    string `json:"lang,omitempty"`
	Class   string `json:"class"`
	Status  string `json:"status,omitempty"`
	Size    int64  `json:"size"`
	Tokens  int    `json:"tokens_estimated"`
	Symbols int    `json:"symbols"`
}

var classNames = map[slicer.Class]string{
	slicer.Source: "source", slicer.Test: "test", slicer.Doc: "doc", slicer.Config: "config",
	slicer.Vendored: "vendored", slicer.Generated: "generated", slicer.Lock: "lock",
	slicer.Minified: "minified", slicer.Fixture: "fixture",
}

func statusName(s slicer.Status) string {
	var parts []string
	if s&slicer.Staged != 0 {
		parts = append(parts, "staged")
	}
	if s&slicer.Modified != 0 {
		parts = append(parts, "modified")
	}
	if s&slicer.Untracked != 0 {
		parts = append(parts, "untracked")
	}
	return strings.Join(parts, "+")
}

func runIndex(e *env, args []string) int {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	repo := fs.String("repo", ".", "repository or directory to index (any subdirectory of a work tree)")
	asJSON := fs.Bool("json", false, "print the summary as JSON, with the file and skip lists")
	explain := fs.Bool("explain", false, "list every skipped file with its reason")
	all := fs.Bool("all", false, "keep vendored, lock, generated, minified and fixture files instead of skipping them")
	noCache := fs.Bool("no-cache", false, "neither read nor write the extraction cache")
	maxSize := fs.Int64("max-file-size", 0, "skip files larger than this many bytes (0: 1 MiB, negative: no limit)")
	jobs := fs.Int("jobs", 0, "parallel extraction workers (0: one per CPU)")
	verbose := fs.Bool("v", false, "log per-file problems to stderr")
	pos, code, ok := parseFlags(e, fs, args, "ctxtrim index [-repo DIR] [-json] [-explain] [-all] [-no-cache]",
		`Indexes the repository (tracked and untracked, non-ignored files) and prints a summary:
files, languages, symbols, estimated tokens, and skipped files by reason.`)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return e.fail(exitUsage, fmt.Errorf("index: unexpected argument %q (use -repo DIR)", pos[0]))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := &slicer.IndexOptions{Dir: *repo, All: *all, NoCache: *noCache, MaxFileSize: *maxSize, Parallelism: *jobs}
	if *verbose {
		opts.Logf = func(format string, args ...any) { fmt.Fprintf(e.stderr, "ctxtrim: "+format+"\n", args...) }
	}
	start := time.Now()
	ix, code := buildIndex(ctx, e, opts)
	if ix == nil {
		return code
	}
	sum := summarize(ix, time.Since(start))
	if *asJSON {
		sum.SkipList = ix.Skipped
		for _, f := range ix.Files {
			sum.FileList = append(sum.FileList, indexFile{Path: f.Path, Lang: f.Lang, Class: classNames[f.Class],
				Status: statusName(f.Status), Size: f.Size, Tokens: f.Tokens, Symbols: len(f.Symbols)})
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return e.fail(exitError, err)
		}
		return exitOK
	}
	if err := printSummary(e.stdout, sum, ix, *explain); err != nil {
		return e.fail(exitError, err)
	}
	return exitOK
}

func summarize(ix *slicer.Index, elapsed time.Duration) *indexSummary {
	s := &indexSummary{Root: ix.Root, Head: ix.Head, Files: len(ix.Files), Languages: map[string]int{},
		Classes: map[string]int{}, Status: map[string]int{}, Skipped: map[string]int{},
		Elapsed: elapsed.Round(time.Millisecond).String()}
	for _, f := range ix.Files {
		lang := f.Lang
		if lang == "" {
			lang = "(lexical)"
		}
		s.Languages[lang]++
		s.Classes[classNames[f.Class]]++
		if st := statusName(f.Status); st != "" {
			s.Status[st]++
		}
		s.Symbols += len(f.Symbols)
		s.Tokens += f.Tokens
	}
	for _, k := range ix.Skipped {
		s.Skipped[k.Reason]++
	}
	return s
}

// byCount renders a count map as "a 3, b 2", largest first.
func byCount(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func printSummary(w io.Writer, s *indexSummary, ix *slicer.Index, explain bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := s.Head
	if head == "" {
		head = "(none)"
	}
	fmt.Fprintf(tw, "root:\t%s\n", s.Root)
	fmt.Fprintf(tw, "head:\t%s\n", head)
	fmt.Fprintf(tw, "files:\t%d (%s)\n", s.Files, byCount(s.Classes))
	fmt.Fprintf(tw, "languages:\t%s\n", byCount(s.Languages))
	if len(s.Status) > 0 {
		fmt.Fprintf(tw, "changes:\t%s\n", byCount(s.Status))
	}
	fmt.Fprintf(tw, "symbols:\t%d definitions\n", s.Symbols)
	fmt.Fprintf(tw, "tokens:\t~%d (estimate: bytes/4)\n", s.Tokens)
	total := 0
	for _, n := range s.Skipped {
		total += n
	}
	fmt.Fprintf(tw, "skipped:\t%d (%s)\n", total, byCount(s.Skipped))
	fmt.Fprintf(tw, "elapsed:\t%s\n", s.Elapsed)
	if err := tw.Flush(); err != nil {
		return err
	}
	if explain && len(ix.Skipped) > 0 {
		fmt.Fprintln(w, "\nskipped files:")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, k := range ix.Skipped {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", k.Path, k.Reason, k.Detail)
		}
		return tw.Flush()
	}
	return nil
}

// buildIndex runs slicer.NewIndex for a command: progress on stderr when it
// is a terminal and indexing takes longer than progressDelay, and a soft
// memory limit while it runs. On failure it reports the error and returns a
// nil index with the exit code.
func buildIndex(ctx context.Context, e *env, opts *slicer.IndexOptions) (*slicer.Index, int) {
	start, shown := time.Now(), false
	tty := isTerminal(e.stderr)
	mc := newMemoryCap()
	defer mc.restore()
	opts.Progress = func(done, total int) {
		mc.update()
		if !tty || time.Since(start) < progressDelay {
			return
		}
		shown = true
		fmt.Fprintf(e.stderr, "\rindexing %d/%d files", done, total)
	}
	ix, err := slicer.NewIndex(ctx, opts)
	if shown {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, exitInterrupt
		}
		return nil, e.fail(exitError, err)
	}
	return ix, exitOK
}

// isTerminal reports whether w is a terminal (progress goes only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Peak memory. An index lives until the summary is printed, and the
// garbage collector's default pacing (GOGC=100) lets the heap grow to twice
// what is live before collecting: moby with vendor/ (~100 MB live at the
// end) peaked over 200 MiB of RSS. A soft memory limit makes the collector
// run earlier instead. It follows the live heap, so that a repository whose
// index does not fit under the base limit costs a bounded amount of extra
// collection (as if GOGC were 60) rather than the runtime's worst case.
const (
	// baseMemoryLimit is the soft limit for indexes up to 100 MiB live:
	// with the binary and C memory on top, peak RSS stays under 200 MiB.
	baseMemoryLimit = 160 << 20
	// memoryHeadroom is the limit's ratio to the live heap beyond that.
	memoryHeadroom = 1.6
)

// memoryLimitFor is the soft limit for a live heap of live bytes.
func memoryLimitFor(live uint64) int64 {
	return max(baseMemoryLimit, int64(float64(live)*memoryHeadroom))
}

// memoryCap sets and follows the soft memory limit during one index; nil
// (when GOMEMLIMIT is set by the user) does nothing.
type memoryCap struct {
	prev   int64
	sample []metrics.Sample
}

func newMemoryCap() *memoryCap {
	if os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	return &memoryCap{prev: debug.SetMemoryLimit(baseMemoryLimit), sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

// update raises the limit with the live heap; called every few files.
func (m *memoryCap) update() {
	if m == nil {
		return
	}
	metrics.Read(m.sample)
	if m.sample[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(memoryLimitFor(m.sample[0].Value.Uint64()))
	}
}

// restore puts back the limit in force before.
func (m *memoryCap) restore() {
	if m != nil {
		debug.SetMemoryLimit(m.prev)
	}
}
