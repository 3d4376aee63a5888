package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

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
	SkipList  []index.Skip   `json:"skip_list,omitempty"`
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

var classNames = map[index.Class]string{
	index.Source: "source", index.Test: "test", index.Doc: "doc", index.Config: "config",
	index.Vendored: "vendored", index.Generated: "generated", index.Lock: "lock",
	index.Minified: "minified", index.Fixture: "fixture", index.Data: "data",
}

func statusName(s index.Status) string {
	var parts []string
	if s&index.Staged != 0 {
		parts = append(parts, "staged")
	}
	if s&index.Modified != 0 {
		parts = append(parts, "modified")
	}
	if s&index.Untracked != 0 {
		parts = append(parts, "untracked")
	}
	return strings.Join(parts, "+")
}

func runIndex(e *env, args []string) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	repo := fs.String("C", ".", "repository or directory `DIR` to index (any subdirectory of a work tree)")
	aliasFlag(fs, "repo", "C")
	asJSON := fs.Bool("json", false, "print the summary as JSON, with the file and skip lists")
	explain := fs.Bool("explain", false, "list every skipped file with its reason")
	all := fs.Bool("all", false, "keep vendored, lock, generated, minified and fixture files instead of skipping them")
	noCache := fs.Bool("no-cache", false, "neither read nor write the extraction cache")
	maxSize := fs.Int64("max-file-size", 0, "skip files larger than `BYTES` (0: 1 MiB, negative: no limit)")
	jobs := fs.Int("jobs", 0, "parallel extraction workers `N` (0: one per CPU; not negative)")
	verbose := fs.Bool("v", false, "log per-file problems to stderr")
	pos, err := parseFlags(e, fs, args, "ctxtrim index [-C DIR] [-json] [-explain] [-all] [-no-cache]",
		`Indexes the repository (tracked and untracked, non-ignored files) and prints a summary:
files, languages, symbols, estimated tokens, and skipped files by reason.`)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError(fmt.Errorf("index: unexpected argument %q (use -C DIR)", pos[0]))
	}
	if *jobs < 0 {
		return usageError(fmt.Errorf("index: -jobs must not be negative, got %d (0: one per CPU)", *jobs))
	}

	if err := checkDir(flagAsSet(fs, "C", "repo"), *repo); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := &index.Options{Dir: *repo, All: *all, NoCache: *noCache, MaxFileSize: *maxSize, Parallelism: *jobs}
	opts.Logf = e.logf(*verbose)
	start := time.Now()
	ix, err := buildIndex(ctx, e, opts)
	if err != nil {
		return err
	}
	if ix.GitErr != nil {
		fmt.Fprintf(e.stderr, "ctxtrim: cannot read the repository's history (%v): nothing is marked staged\n", ix.GitErr)
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
			return err
		}
		return nil
	}
	if err := printSummary(e.stdout, sum, ix, *explain); err != nil {
		return err
	}
	return nil
}

func summarize(ix *index.Index, elapsed time.Duration) *indexSummary {
	s := &indexSummary{Root: ix.Root, Head: ix.Head, Files: len(ix.Files), Languages: map[string]int{},
		Classes: map[string]int{}, Status: map[string]int{},
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
	s.Skipped = skipCounts(ix.Skipped)
	return s
}

// skipCounts counts skipped files by reason.
func skipCounts(skips []index.Skip) map[string]int {
	n := map[string]int{}
	for _, k := range skips {
		n[k.Reason]++
	}
	return n
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

func printSummary(w io.Writer, s *indexSummary, ix *index.Index, explain bool) error {
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
