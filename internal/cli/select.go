package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/codex"
	"github.com/ctxtrim/ctxtrim/slicer"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// selectCap bounds a selection whose budget comes from a model's window
// (-model, or the configuration's model) or from what Codex leaves (-for
// codex) rather than from -budget: the window is a limit, not a target.
// Measured on the kit's two sets here (2026-12-06, cobra 60 tasks, go-git
// 100): with only -model gpt-5 the median prompt was 82k and 262k tokens;
// capped at 32k, every changed line is in the prompt as often as with
// -budget 32000 (96.7% and 87.0% of tasks since round 44, against 100%
// and 97% uncapped) at an eighth of go-git's tokens. A cap chosen by the
// ranking's shape (16k when the best file scores far above the second)
// lost 2–7 points of those before its median reached 16k, and a prompt cut
// where the scores fall off (files below a share of the best left out,
// after a floor of files or tokens; or at the first steep drop) lost 2–8
// points on cobra, go-git, gin and ripgrep before its median reached 16k
// (docs/selection-evaluation.md, round 44), so the cap is one number.
const selectCap = 32000

// selectSynopsis and selectHelp are the select command's help.
const (
	selectSynopsis = "ctxtrim [select] [flags] [TASK...] [< task]"
	selectHelp     = `Reads a task (the arguments, or stdin), selects the files and definitions of
the repository it needs, and writes one prompt: the task, a note on what was
left out, then the context, whose rendered size counted with the model's
tokenizer is at most the budget. Always.

  echo "retry on 503 loses the request body" | ctxtrim -model gpt-5-codex > prompt.md
  echo "..." | ctxtrim --for codex | codex exec -
  ctxtrim -format paths -budget 8000 "fix the flaky TestRetry"
  ctxtrim -include 'pkg/api/' -exclude '*_test.go' "add paging to the list endpoint"

Flags go before the task: from its first word on, every word is the task's,
-v included (ctxtrim -budget 4000 fix the -v flag); put -- before a task
that starts with a dash. A task ending in words that parse as flags keeps
them, and a note on stderr says so. The commands that take files (count,
check, split, history) read flags anywhere: a file name is not prose.

The budget: -budget N is an exact cap, and is spent: cutting the prompt
where the ranking's scores fall off lost changed lines before it saved
tokens (measured on four repositories' commits), so it does not stop
early. A model's window (-model M, or the model of .ctxtrim.toml) and what
Codex leaves (--for codex) are limits, not targets: the selection spends
at most 32000 tokens of them (measured: every line a change touches shown
in 87% of go-git's tasks, against 97% with gpt-5's whole 264k input, at an
eighth of the tokens); pass -budget N to spend more, with --for codex too
(up to what Codex leaves).

Each format's text fits the budget as written. xml is one XML document:
<context> holds the task, note and files, code holding < or & is in CDATA,
and a character XML forbids (a control character, a byte not UTF-8) is
written as U+FFFD. json is counted as emitted, since a builder may embed
it: its escapes cost about a fifth on tab-indented code, so it holds that
much less than the prompt, and that also fits as markdown or xml.

-include and -exclude take gitignore patterns, as lines of .ctxtrimignore
("*_test.go" at any depth, "docs/" every docs directory, "/cmd" the top
one); they scope what is shown, not what is ranked: every file still
counts for the ranking. -exclude wins, also over a file the task names.

Exit status: 0 on success, 2 on a usage error (an empty task argument
among them), 4 when the task on stdin is empty, binary, not UTF-8 or over
64 MiB, 5 when the task alone does not fit the budget (split it with
ctxtrim split), 1 on other failures.`
)

// explainFlag is -explain (text) or -explain=json.
type explainFlag struct{ mode string }

func (x *explainFlag) String() string   { return x.mode }
func (x *explainFlag) IsBoolFlag() bool { return true }
func (x *explainFlag) Set(s string) error {
	switch s {
	case "true", "text":
		x.mode = "text"
	case "false":
		x.mode = ""
	case "json":
		x.mode = "json"
	default:
		return fmt.Errorf("unknown -explain mode %q (known: text, json)", s)
	}
	return nil
}

// selectOptions are select's flags, as parsed.
type selectOptions struct {
	bf                budgetFlags
	repo, format      string
	noRedact, verbose bool
	history           int
	maxFileSize       int64
	explain           explainFlag
	include, exclude  stringList
}

// flagSet returns select's FlagSet, whose flags set o.
func (o *selectOptions) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("select", flag.ContinueOnError)
	o.bf.register(fs)
	o.bf.registerFor(fs)
	fs.StringVar(&o.repo, "C", ".", "repository (or directory) `DIR` to select from")
	aliasFlag(fs, "repo", "C")
	fs.StringVar(&o.format, "format", "markdown", "output `FORMAT`: markdown or xml (the prompt, within the budget; xml is one XML document), json (the selection for tools, within the budget as emitted, so it holds less than the prompt), or paths (one line per file shown, best first: path<TAB>start-end,…; a path holding a tab, newline or other control character is Go-quoted)")
	fs.BoolVar(&o.noRedact, "no-redact", false, "do not replace secrets (keys, tokens, .env values) with placeholders")
	fs.IntVar(&o.history, "history", 0, "first-parent commits `N` from HEAD for recency and co-change (0: 300, -1: none)")
	fs.Int64Var(&o.maxFileSize, "max-file-size", 0, "leave out files larger than `BYTES` (0: 1 MiB, negative: no limit), as index does")
	fs.BoolVar(&o.verbose, "v", false, "report progress and skipped files on stderr")
	fs.Var(&o.explain, "explain", "explain the ranking and the budget on stderr; -explain=json for JSON")
	fs.Var(&o.include, "include", "show only files matching gitignore `PATTERN` (repeatable; a file matching any is in)")
	fs.Var(&o.exclude, "exclude", "never show files matching gitignore `PATTERN` (repeatable; wins over -include and the task's naming)")
	return fs
}

func runSelect(e *env, args []string) error {
	var o selectOptions
	fs := o.flagSet()
	bf, explain := &o.bf, &o.explain
	words, err := parseTaskFlags(e, fs, args, selectSynopsis, selectHelp)
	if err != nil {
		return err
	}
	include, exclude := o.include, o.exclude
	if tail := trailingFlags(fs, words); tail != "" {
		// Read as the task's, as the rule says; but said, since other
		// tools read flags anywhere and the budget would silently differ.
		fmt.Fprintf(e.stderr, "ctxtrim: the task ends with %q, read as words of the task: flags go before the task (ctxtrim select -h)\n", tail)
	}
	for _, f := range []struct {
		name string
		list stringList
	}{{"-include", include}, {"-exclude", exclude}} {
		if _, err := index.ParsePatterns(f.list); err != nil {
			return usageError(fmt.Errorf("%s: %w", f.name, err))
		}
	}
	if o.history < -1 {
		return usageError(fmt.Errorf("-history %d: want a number of commits, 0 for the default (300) or -1 for none", o.history))
	}
	switch o.format {
	case slicer.FormatMarkdown, slicer.FormatXML, slicer.FormatJSON, slicer.FormatPaths:
	default:
		return usageError(fmt.Errorf("unknown format %q (known: json, markdown, paths, xml)", o.format))
	}
	dirFlag := flagAsSet(fs, "C", "repo")
	if err := checkDir(dirFlag, o.repo); err != nil {
		return err
	}
	dir, err := filepath.Abs(o.repo)
	if err != nil {
		return usageError(fmt.Errorf("%s %s: %w", dirFlag, o.repo, err))
	}
	task := strings.Join(words, " ")
	if len(words) > 0 && strings.TrimSpace(task) == "" {
		// ctxtrim "" is a mistake (an empty shell variable), not a
		// request to read stdin.
		return usageError(errors.New("the task argument is empty: pass the task, or no argument to read it from stdin"))
	}
	if task != "" && task != "-" {
		noteIgnoredStdin(e, "the task arguments")
	}
	if task == "" || task == "-" {
		if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return usageError(errors.New("no task: pass it as arguments or on stdin (ctxtrim -h for help)"))
		}
		b, err := readInput(e.stdin, "the task on "+stdinName, taskInput)
		if err != nil {
			return err
		}
		if err := checkText("the task on "+stdinName, b, textRules{nonEmpty: true, what: "the task as text (arguments or stdin)"}); err != nil {
			return err
		}
		task = string(b)
	}
	if strings.TrimSpace(task) == "" {
		return usageError(errors.New("no task: pass it as arguments or on stdin"))
	}
	if err := checkText("the task", []byte(task), textRules{what: "the task as text"}); err != nil {
		return err
	}
	plan, err := bf.plan(dir, true)
	if errors.Is(err, codex.ErrNoRoom) {
		return noFitError(err)
	}
	if err != nil {
		return usageError(err)
	}
	bf.warn(e)
	c, limit := plan.counter, plan.limit
	if plan.note != "" {
		fmt.Fprintf(e.stderr, "ctxtrim: %s\n", plan.note)
	}
	capped := false
	if !bf.budget.set && limit > selectCap {
		// A model's window is a limit, not a target.
		limit, capped = selectCap, true
	}
	// byBudget: -budget set the limit; beside --for codex only when it is
	// below what Codex leaves.
	byBudget := bf.budget.set && (plan.codex == nil || limit < plan.codex.Budget)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logf := e.logf(o.verbose)
	ix, err := buildIndex(ctx, e, &index.Options{Dir: dir, Logf: logf, MaxFileSize: o.maxFileSize})
	if err != nil {
		return err
	}
	commits := o.history
	if ix.GitErr != nil {
		// Never fail a selection for git history: go on without it.
		fmt.Fprintf(e.stderr, "ctxtrim: cannot read the repository's history (%v): selecting without git signals (staged changes, recency, co-change)\n", ix.GitErr)
		commits = -1
	}
	sel, err := slicer.Select(ctx, ix, task, c, &slicer.SelectOptions{
		Budget:         limit,
		Format:         o.format,
		NoRedact:       o.noRedact,
		Explain:        explain.mode != "",
		HistoryCommits: commits,
		Include:        include,
		Exclude:        exclude,
		Logf:           logf,
	})
	switch {
	case errors.Is(err, slicer.ErrTaskTooLarge):
		// The library gives the numbers; the way out is the CLI's.
		return noFitError(fmt.Errorf("%w; split the task with `ctxtrim split` or raise --budget", err))
	case ctx.Err() != nil:
		return exitStatus(exitInterrupt)
	case err != nil:
		return err
	}
	reportSelectSkips(e, task, append(append([]index.Skip(nil), ix.Skipped...), sel.Skipped...), o.verbose)
	for _, p := range sel.UnmatchedInclude {
		fmt.Fprintf(e.stderr, "ctxtrim: -include %q matches no file of %s\n", p, dir)
	}
	if sel.Nothing != "" {
		// A prompt of the task alone is a result, not an error, but
		// seldom what was meant: the wrong directory, or a typo.
		why := ""
		if len(ix.Files) == 0 && len(ix.Skipped) > 0 {
			why = fmt.Sprintf(" (%d left out: %s; -v lists them)", len(ix.Skipped), byCount(skipCounts(ix.Skipped)))
		}
		fmt.Fprintf(e.stderr, "ctxtrim: %s: %s%s: the prompt is the task alone\n", dir, sel.Nothing, why)
	}
	if sel.Unmatched && explain.mode != "json" { // JSON says "outline" itself
		// Not an error either: the outline is a start, but a task that
		// names something selects code.
		fmt.Fprintf(e.stderr, "ctxtrim: %s: no word of the task is in the repository: the prompt outlines it (the signatures of %d files); name a file, a function or an error message to select code\n", dir, len(sel.Map))
	}
	if n := len(sel.Redactions); n > 0 && explain.mode != "json" { // JSON lists them itself
		var where []string
		for _, r := range sel.Redactions {
			where = append(where, fmt.Sprintf("%s:%d (%s)", slicer.QuotePath(r.Path), r.Line, r.Rule))
		}
		fmt.Fprintf(e.stderr, "ctxtrim: redacted %d secret(s): %s; --no-redact to keep them\n", n, strings.Join(where, ", "))
	}
	switch explain.mode {
	case "text":
		if plan.codex != nil {
			fmt.Fprintf(e.stderr, "for codex: %s\n", plan.codex)
			if byBudget {
				fmt.Fprintf(e.stderr, "selection budget %d: -budget caps what Codex leaves\n", limit)
			}
		} else if l := plan.limits; l.Window > 0 {
			fmt.Fprintf(e.stderr, "window %d: reserve %d for the reply, margin %d, input budget %d\n", l.Window, l.Reserve, l.MarginTokens(), plan.limit)
		}
		if capped {
			fmt.Fprintf(e.stderr, "selection budget %d: a window is a limit, not a target (-budget N to spend more)\n", limit)
		}
		writeExplain(e.stderr, sel)
	case "json":
		writeExplainJSON(e.stderr, sel, plan.limits, plan.codex, budgetFrom(capped, byBudget, plan.codex != nil))
	}
	if _, err := io.WriteString(e.stdout, sel.Text); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// writeExplain prints the budget breakdown and per-file scores as a table.
// Paths are written as the prompt writes them (slicer.QuotePath): a name
// holding a newline or a byte that is not UTF-8 printed raw would split
// the table's rows.
func writeExplain(w io.Writer, sel *slicer.Selection) {
	b := sel.Breakdown
	fmt.Fprintf(w, "budget %d: task %d, note %d, context %d (whole files %d, definitions %d), map %d, free %d (total %d)\n",
		b.Budget, b.Task, b.Header, b.Context, b.Whole, b.Definitions, b.Map, b.Free, sel.Tokens)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tscore\tlex\tmention\tgraph\trecency\tco-chg\tdirty\tpair\tclass\ttokens\t granularity\t path\t why")
	row := func(k int, s slicer.Selected) {
		g := s.Signals
		fmt.Fprintf(tw, "%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%d\t %s\t %s\t %s\n",
			k, g.Score, g.Lexical, g.Mention, g.Graph, g.Recency, g.CoChange, g.Dirty, g.Pair, g.Class,
			s.Tokens, orDash(string(s.Granularity)), slicer.QuotePath(s.Path), strings.Join(g.Why, "; "))
	}
	k := 0
	for _, s := range sel.Files {
		k++
		row(k, s)
	}
	for _, s := range sel.Map {
		k++
		row(k, s)
	}
	for _, s := range sel.Candidates {
		row(0, s)
	}
	tw.Flush()
	// The definitions chosen from each file shown as excerpts, each with
	// its own score.
	for _, s := range sel.Files {
		if len(s.Units) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", slicer.QuotePath(s.Path))
		fill, lines := 0, 0
		for _, u := range s.Units {
			if u.Fill {
				fill++
				lines += u.Range.End - u.Range.Start + 1
				continue
			}
			fmt.Fprintf(w, "  %s\n", u)
		}
		if fill > 0 {
			fmt.Fprintf(w, "  and %d more units (%d lines) that the task does not hit, nearest first, to fill the file's room\n", fill, lines)
		}
	}
	if sel.Omitted > 0 {
		fmt.Fprintf(w, "%d more matching files left out; rank 0 rows are the best of them\n", sel.Omitted)
	}
}

func orDash(s string) string {
	if s == "" {
		return "left out"
	}
	return s
}

// budgetFrom says, for -explain=json, where the selection's budget came
// from: what made the selection stop where it did.
func budgetFrom(capped, byBudget, forCodex bool) string {
	switch {
	case capped:
		return fmt.Sprintf("selection cap %d: a window is a limit, not a target", selectCap)
	case byBudget:
		return "-budget"
	case forCodex:
		return "for codex: what Codex leaves"
	}
	return "the window, less the reserve and margin"
}

// writeExplainJSON prints the selection's explanation as one JSON object;
// from is budgetFrom's.
func writeExplainJSON(w io.Writer, sel *slicer.Selection, l budget.Limits, forCodex *codex.Plan, from string) {
	type window struct {
		Window  int `json:"window"`
		Reserve int `json:"reserve"`
		Margin  int `json:"margin"`
	}
	var win *window
	if l.Window > 0 {
		win = &window{l.Window, l.Reserve, l.MarginTokens()}
	}
	out := struct {
		Window     *window            `json:"window,omitempty"`
		BudgetFrom string             `json:"budget_from"`
		Tokens     int                `json:"tokens"`
		Breakdown  slicer.Breakdown   `json:"breakdown"`
		Files      []slicer.Selected  `json:"files"`
		Map        []slicer.Selected  `json:"map"`
		Candidates []slicer.Selected  `json:"left_out"`
		Omitted    int                `json:"omitted"`
		Redactions []slicer.Redaction `json:"redactions"`
		Nothing    string             `json:"nothing,omitempty"`
		Unmatched  []string           `json:"unmatched_include,omitempty"`
		Outline    bool               `json:"outline,omitempty"`
		ForCodex   *codex.Plan        `json:"for_codex,omitempty"`
	}{win, from, sel.Tokens, sel.Breakdown, sel.Files, sel.Map, sel.Candidates, sel.Omitted, sel.Redactions, sel.Nothing, sel.UnmatchedInclude, sel.Unmatched, forCodex}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	enc.Encode(out)
}
