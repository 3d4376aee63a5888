package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/check"
	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/ctxtrim/ctxtrim/split"
)

const checkSynopsis = `ctxtrim check [flags] [FILE...]
       ctxtrim check -staged [-budget N] [-instructions FILE] [-max-parts N]`

const checkUsage = `Checks the prompt files a repository keeps for agents against their budgets
and reports, per file, tokens, bytes and chars against the limit. It never
modifies a file. Exit status 0 when all fit, 5 when one is over budget (or, with
-staged, needs more than -max-parts parts), 4 when a file cannot be checked
(binary, or not UTF-8), 2 on a usage error, 1 on other failures (a file that
cannot be read). The report is written in every case.

Files and default budgets (override in the [check] section of .ctxtrim.toml):
  AGENTS.md, AGENTS.override.md    the chain Codex concatenates from the repo
                                   root down, ≤ project_doc_max_bytes (32 KiB);
                                   Codex cuts the rest silently
  **/CLAUDE.md                     ≤ 40,000 chars (Claude Code warns above)
  .github/copilot-instructions.md  ≤ 4,000 chars (Copilot code review)
  prompts/**                       ≤ 8,192 tokens

With FILE arguments, only results for those files (or chains holding them)
are reported; a directory stands for the files under it that the rules
cover (check prompts checks prompts/**). With -staged, checks instead
whether "git diff --cached" fits one review request of -budget tokens,
and how many parts it needs.

.ctxtrim.toml:
  [check]
  project_doc_max_bytes = 32768   # as in your Codex config; 0 turns it off
  project_doc_fallback_filenames = ["CLAUDE.md"]  # as in your Codex config
  agents_max_tokens = 0           # also cap each chain's tokens
  no_defaults = false             # drop the built-in rules
  review_budget = 32000           # tokens per review request (-staged)
  review_max_parts = 0            # -staged fails above this many parts
  [[check.files]]
  glob = "docs/prompts/*.md"      # doublestar pattern, relative to the root
  max_tokens = 4000               # and/or max_bytes, max_chars
  why = "fits the triage prompt"`

// checkOptions are the flags of "ctxtrim check".
type checkOptions struct {
	dir          string
	configPath   string
	encoding     string
	jsonOut      bool
	stagedDiff   bool
	budget       int
	instructions string
	maxParts     int
}

func runCheck(e *env, args []string) error {
	var o checkOptions
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.StringVar(&o.dir, "C", ".", "run in `DIR` (any directory inside the repository)")
	fs.StringVar(&o.configPath, "config", "", "read budgets from `FILE` instead of .ctxtrim.toml at the repository root (the user config applies too)")
	fs.StringVar(&o.encoding, "encoding", budget.O200kBase, "count tokens with `ENCODING`")
	fs.BoolVar(&o.jsonOut, "json", false, "print the report as JSON")
	fs.BoolVar(&o.stagedDiff, "staged", false, "check the staged diff against a review budget instead of prompt files")
	aliasFlag(fs, "staged-diff", "staged")
	aliasFlag(fs, "repo", "C")
	fs.IntVar(&o.budget, "budget", 0, "review request budget in `TOKENS` for -staged (default: review_budget in config, else 32000)")
	fs.StringVar(&o.instructions, "instructions", "", "review instructions `FILE` sent with every part (-staged)")
	fs.IntVar(&o.maxParts, "max-parts", 0, "with -staged, fail when the review needs more than `N` parts (0: report only)")
	names, err := parseFlags(e, fs, args, checkSynopsis, checkUsage)
	if err != nil {
		return err
	}
	if o.budget < 0 || o.maxParts < 0 {
		return usageError(errors.New("-budget and -max-parts must not be negative"))
	}
	if o.budget > maxTokens {
		return usageError(fmt.Errorf("-budget %d tokens is absurd (limit %d)", o.budget, maxTokens))
	}
	if !o.stagedDiff && (o.budget != 0 || o.instructions != "" || o.maxParts != 0) {
		return usageError(errors.New("-budget, -instructions and -max-parts need -staged"))
	}
	if o.stagedDiff && len(names) > 0 {
		return usageError(fmt.Errorf("%s takes no FILE arguments", flagAsSet(fs, "staged", "staged-diff")))
	}

	if err := checkDir(flagAsSet(fs, "C", "repo"), o.dir); err != nil {
		return err
	}
	for _, n := range names {
		// A named file that does not exist is a typo (or a flag given as
		// a FILE), not a file that happens to fit.
		p := n
		if !filepath.IsAbs(p) {
			p = filepath.Join(o.dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return openError(n, err, "")
		}
	}
	if o.configPath != "" {
		if _, err := readFileFlag("-config "+o.configPath, o.configPath); err != nil {
			return err
		}
	}
	root, err := findRepoRoot(o.dir)
	if err != nil {
		return err
	}
	if _, ok := repoRoot(o.dir); o.stagedDiff && !ok {
		// Where to run is the caller's choice, as for split -staged: a
		// usage error.
		if _, err := index.OpenRepository(o.dir); errors.Is(err, index.ErrBareRepository) {
			return usageError(fmt.Errorf("check -staged: %s: %w", root, err))
		}
		return usageError(fmt.Errorf("check -staged: %s is not inside a git repository (run it there, or pass -C DIR)", root))
	}
	cfg, err := loadConfig(root, o.configPath)
	if err != nil {
		return usageError(err)
	}
	for _, w := range cfg.warnings {
		fmt.Fprintf(e.stderr, "ctxtrim: %s\n", w)
	}
	counter, err := budget.NewEncodingCounter(o.encoding)
	if err != nil {
		return usageError(err)
	}
	if o.stagedDiff {
		return runCheckDiff(e, root, &o, cfg, counter)
	}

	rep, err := check.Repo(context.Background(), root, &cfg.Check, counter)
	if err != nil {
		return err
	}
	if len(names) > 0 {
		rep.Results = filterResults(rep.Results, root, o.dir, names)
	}
	if o.jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := writeCheckTable(e.stdout, rep); err != nil {
		return err
	}
	// A file that could not be checked is an input problem (input.go),
	// more serious than a file over budget: the report is incomplete.
	worst := exitOK
	var unchecked []string
	for _, r := range rep.Results {
		var p problem
		hint := "convert it to UTF-8 first (iconv -f LATIN1 -t UTF-8)"
		switch r.Problem {
		case "":
			continue
		case check.ProblemUnreadable:
			p, hint = probUnreadable, "check its permissions"
		case check.ProblemBinary:
			p, hint = probBinary, "a prompt file must be text"
		default:
			p = probNotUTF8
		}
		fmt.Fprintf(e.stderr, "ctxtrim: %v\n", inputProblem(p, r.Path, r.Message, hint))
		worst = worseExit(worst, p.exit())
		unchecked = append(unchecked, r.Path)
	}
	over := rep.Over()
	if worst != exitOK {
		// The summary line is written whatever the exit status, so that
		// an incomplete report says so, and how many files are over.
		summary := fmt.Sprintf("%d of %d prompt files could not be checked (%s)", len(unchecked), len(rep.Results), strings.Join(unchecked, ", "))
		if over > 0 {
			summary += fmt.Sprintf(", %d over budget", over)
		}
		return &kindError{worst, fmt.Errorf("%s; the report is incomplete: fix them and run check again", summary)}
	}
	if over > 0 {
		return noFitError(fmt.Errorf("%d of %d prompt files over budget", over, len(rep.Results)))
	}
	return nil
}

// filterResults keeps the results about the named files: the file itself, or
// an AGENTS chain that holds it. A named directory stands for the files under
// it that the rules cover ("check prompts" checks prompts/**), not for a file
// of its name. Names are relative to the directory the user ran in
// (pre-commit passes them relative to the root, where it runs).
func filterResults(rs []check.Result, root, dir string, names []string) []check.Result {
	want := map[string]bool{}
	var under []string // named directories, relative to root, with a final /
	absDir, _ := filepath.Abs(dir)
	for _, n := range names {
		if !filepath.IsAbs(n) {
			n = filepath.Join(absDir, n)
		}
		rel, err := filepath.Rel(root, n)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if st, err := os.Stat(n); err == nil && st.IsDir() {
			if rel == "." {
				rel = ""
			} else {
				rel += "/"
			}
			under = append(under, rel)
			continue
		}
		want[rel] = true
	}
	named := func(p string) bool {
		if want[p] {
			return true
		}
		for _, d := range under {
			if strings.HasPrefix(p, d) && !strings.HasPrefix(p, "../") {
				return true
			}
		}
		return false
	}
	var out []check.Result
	for _, r := range rs {
		keep := named(r.Path)
		for _, c := range r.Chain {
			keep = keep || named(c)
		}
		if keep {
			out = append(out, r)
		}
	}
	return out
}

func writeCheckTable(w io.Writer, rep *check.Report) error {
	if len(rep.Results) == 0 {
		_, err := fmt.Fprintln(w, "no prompt files found")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tFILE\tTOKENS\tBYTES\tCHARS\tLIMIT")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", r.Status, r.Path, r.Tokens, r.Bytes, r.Chars, limitText(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rep.Results {
		if r.Message != "" {
			if _, err := fmt.Fprintf(w, "%s: %s: %s\n", r.Status, r.Path, r.Message); err != nil {
				return err
			}
		}
	}
	return nil
}

// limitText renders a result's budget, e.g. "chain 5120/32768 bytes".
func limitText(r check.Result) string {
	var parts []string
	if r.Chain != nil || r.Rule == "codex AGENTS.md chain" {
		parts = append(parts, fmt.Sprintf("chain %d/%d bytes", r.ChainBytes, r.MaxBytes))
		if r.MaxTokens > 0 {
			parts = append(parts, fmt.Sprintf("chain %d/%d tokens", r.ChainTok, r.MaxTokens))
		}
		return strings.Join(parts, ", ")
	}
	if r.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", r.MaxTokens))
	}
	if r.MaxBytes > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes", r.MaxBytes))
	}
	if r.MaxChars > 0 {
		parts = append(parts, fmt.Sprintf("%d chars", r.MaxChars))
	}
	return strings.Join(parts, ", ")
}

// runCheckDiff reports whether the staged diff fits one review request.
func runCheckDiff(e *env, root string, o *checkOptions, cfg *config, c budget.Counter) error {
	limit := o.budget
	if limit == 0 {
		limit = cfg.Check.ReviewBudget
	}
	if limit == 0 {
		limit = check.DefaultReviewBudget
	}
	var instr string
	if o.instructions != "" {
		b, err := readTextFlag("-instructions "+o.instructions, o.instructions)
		if err != nil {
			return err
		}
		instr = string(b)
	}
	diff, err := split.StagedDiff(root)
	if err != nil {
		return fmt.Errorf("read the staged diff: %w", err)
	}
	est, err := check.Review(context.Background(), string(diff), instr, limit, c)
	if err != nil {
		return noFitError(err)
	}
	if o.jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(est); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "staged diff: %d tokens in %d files; instructions %d tokens; budget %d tokens per request\n",
			est.DiffTokens, est.Files, est.InstructionTokens, est.Budget)
		switch {
		case est.DiffTokens == 0:
			fmt.Fprintln(e.stdout, "nothing staged")
		case est.Parts == 1:
			fmt.Fprintln(e.stdout, "fits one review request")
		default:
			fmt.Fprintf(e.stdout, "needs splitting: %d parts of %d–%d tokens (git diff --cached | ctxtrim split -budget %d)\n", est.Parts, est.MinPart, est.MaxPart, est.Budget)
		}
	}
	maxParts := o.maxParts
	if maxParts == 0 {
		maxParts = cfg.Check.ReviewMaxParts
	}
	if maxParts > 0 && est.Parts > maxParts {
		return noFitError(fmt.Errorf("staged diff needs %d review parts of %d tokens, more than -max-parts %d", est.Parts, limit, maxParts))
	}
	return nil
}

// findRepoRoot returns the root of the repository holding dir (see
// repoRoot: the nearest ancestor with a .git entry, as Codex looks for it),
// or dir itself, made absolute, outside a repository.
func findRepoRoot(dir string) (string, error) {
	if root, ok := repoRoot(dir); ok {
		return root, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	return abs, nil
}
