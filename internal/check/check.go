package check

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/badutf8"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// Codex's project-doc rules (codex-rs/core/src/project_doc.rs, Codex docs
// "Custom instructions with AGENTS.md"): in every directory from the git root
// down to the working directory Codex takes the first of AGENTS.override.md,
// AGENTS.md that exists, reads at most project_doc_max_bytes in total, cuts
// the file that crosses the limit and drops the rest, and joins the parts
// with blank lines. Whitespace-only files are skipped and cost nothing.
const (
	codexOverrideName = "AGENTS.override.md"
	codexAgentsName   = "AGENTS.md"
	// defaultProjectDocMaxBytes is Codex's project_doc_max_bytes default,
	// 32 KiB. Codex truncates silently beyond it.
	defaultProjectDocMaxBytes = 32 * 1024
	// codexDocJoin is what Codex puts between two project docs.
	codexDocJoin = "\n\n"
)

// Default budgets for the other prompt files, each with its source.
const (
	// claudeMDMaxChars is the size above which Claude Code warns "Large
	// CLAUDE.md will impact performance (… chars > 40.0k)".
	claudeMDMaxChars = 40000
	// copilotInstructionsMaxChars: GitHub documented that Copilot code review
	// reads only the first 4,000 characters of a custom instructions file.
	copilotInstructionsMaxChars = 4000
	// promptFileMaxTokens is the default for prompts/**: a prompt template is
	// pasted into a request next to its payload, so it should stay a small
	// share of a 32k-token review budget (a quarter).
	promptFileMaxTokens = 8192
)

// Rule is one budget: every file matching Glob must stay within each
// non-zero limit. It is the element of [[check.files]] in .ctxtrim.toml.
type Rule struct {
	Glob      string `toml:"glob" json:"glob"`
	MaxTokens int    `toml:"max_tokens" json:"max_tokens,omitempty"`
	MaxBytes  int    `toml:"max_bytes" json:"max_bytes,omitempty"`
	MaxChars  int    `toml:"max_chars" json:"max_chars,omitempty"`
	// Why is shown next to a failure, so the reader knows where the limit
	// comes from.
	Why string `toml:"why" json:"why,omitempty"`
}

// Config is the [check] section of .ctxtrim.toml. The zero value means
// the built-in defaults.
type Config struct {
	// ProjectDocMaxBytes overrides Codex's 32 KiB; set it to the value in
	// your Codex config.toml. Nil means the default; 0 turns the AGENTS.md
	// check off (as it turns the docs off in Codex).
	ProjectDocMaxBytes *int `toml:"project_doc_max_bytes"`
	// ProjectDocFallbackFilenames mirrors Codex's setting of that name: file
	// names Codex reads in a directory that has neither AGENTS.override.md
	// nor AGENTS.md.
	ProjectDocFallbackFilenames []string `toml:"project_doc_fallback_filenames"`
	// AgentsMaxTokens, when non-zero, also caps the tokens of each assembled
	// AGENTS.md chain.
	AgentsMaxTokens int `toml:"agents_max_tokens"`
	// NoDefaults drops the built-in rules for CLAUDE.md, Copilot and prompts/.
	NoDefaults bool `toml:"no_defaults"`
	// Files adds rules; a rule with the Glob of a built-in one replaces it.
	Files []Rule `toml:"files"`
	// ReviewBudget is the tokens of one review request for a staged diff
	// (Review); 0 means DefaultReviewBudget.
	ReviewBudget int `toml:"review_budget"`
	// ReviewMaxParts, when non-zero, is the most review parts a staged
	// diff may need before the check fails.
	ReviewMaxParts int `toml:"review_max_parts"`
}

// Validate reports the first problem with c: a negative limit, or a rule
// Rules rejects.
func (c *Config) Validate() error {
	if c.ReviewBudget < 0 || c.ReviewMaxParts < 0 {
		return errors.New("check.review_budget and check.review_max_parts must not be negative")
	}
	if v := c.ProjectDocMaxBytes; v != nil && *v < 0 {
		return errors.New("check.project_doc_max_bytes must not be negative")
	}
	_, err := c.Rules()
	return err
}

// defaultRules are the budgets used when .ctxtrim.toml says nothing.
func defaultRules() []Rule {
	return []Rule{
		{Glob: "**/CLAUDE.md", MaxChars: claudeMDMaxChars, Why: "Claude Code warns above 40.0k chars"},
		{Glob: ".github/copilot-instructions.md", MaxChars: copilotInstructionsMaxChars, Why: "Copilot code review reads the first 4,000 chars"},
		{Glob: "prompts/**", MaxTokens: promptFileMaxTokens, Why: "prompt template budget"},
	}
}

// Rules returns the effective rules: defaults (unless dropped) with
// same-glob rules from the config replacing them, then the config's others.
func (c *Config) Rules() ([]Rule, error) {
	var out []Rule
	if !c.NoDefaults {
		out = defaultRules()
	}
	for _, r := range c.Files {
		if r.Glob == "" {
			return nil, errors.New("check.files: rule without glob")
		}
		if !doublestar.ValidatePattern(r.Glob) {
			return nil, fmt.Errorf("check.files: bad glob %q", r.Glob)
		}
		if r.MaxTokens < 0 || r.MaxBytes < 0 || r.MaxChars < 0 {
			return nil, fmt.Errorf("check.files %q: negative limit", r.Glob)
		}
		if r.MaxTokens == 0 && r.MaxBytes == 0 && r.MaxChars == 0 {
			return nil, fmt.Errorf("check.files %q: no limit (set max_tokens, max_bytes or max_chars)", r.Glob)
		}
		replaced := false
		for i := range out {
			if out[i].Glob == r.Glob {
				out[i], replaced = r, true
			}
		}
		if !replaced {
			out = append(out, r)
		}
	}
	return out, nil
}

func (c *Config) projectDocMaxBytes() int {
	if c.ProjectDocMaxBytes == nil {
		return defaultProjectDocMaxBytes
	}
	return *c.ProjectDocMaxBytes
}

// Result is the verdict on one file.
type Result struct {
	Status string `json:"status"` // "ok", "over" or "warn"
	Path   string `json:"path"`   // slash-separated, relative to the repo root
	Tokens int    `json:"tokens"`
	Bytes  int    `json:"bytes"`
	Chars  int    `json:"chars"`
	// Rule names the budget: a glob, or "codex AGENTS.md chain".
	Rule      string `json:"rule"`
	MaxTokens int    `json:"max_tokens,omitempty"`
	MaxBytes  int    `json:"max_bytes,omitempty"`
	MaxChars  int    `json:"max_chars,omitempty"`
	// Chain, for AGENTS files, lists the files Codex concatenates when it
	// runs in this file's directory, root first, and their total as Codex
	// counts it (file bytes, whitespace-only files excluded).
	Chain      []string `json:"chain,omitempty"`
	ChainBytes int      `json:"chain_bytes,omitempty"`
	ChainTok   int      `json:"chain_tokens,omitempty"`
	// Problem, for a file that could not be checked (Status "warn"), says
	// why: ProblemUnreadable, ProblemBinary or ProblemNotUTF8.
	Problem string `json:"problem,omitempty"`
	// Message explains a failure or warning in one sentence.
	Message string `json:"message,omitempty"`
}

// Problems of a prompt file that cannot be checked (Result.Problem). Its
// Result has Status "warn" and counts the file as empty; the other files
// are still checked.
const (
	ProblemUnreadable = "unreadable" // the file cannot be read
	ProblemBinary     = "binary"     // a NUL byte, as git decides (index.BinaryAt)
	ProblemNotUTF8    = "not UTF-8"  // agents read prompt files as UTF-8 text
)

// fileError is a prompt file that cannot be checked.
type fileError struct {
	problem string
	msg     string
}

func (e *fileError) Error() string { return e.msg }

// problemOf returns the Problem of a read error, or "".
func problemOf(err error) string {
	var fe *fileError
	if errors.As(err, &fe) {
		return fe.problem
	}
	return ""
}

// Report is the outcome of checking a repository.
type Report struct {
	Root    string   `json:"root"`
	Results []Result `json:"results"`
}

// Over counts results over budget.
func (r *Report) Over() int {
	n := 0
	for _, x := range r.Results {
		if x.Status == "over" {
			n++
		}
	}
	return n
}

// promptFiles lists the files of the repository that the rules and the
// AGENTS names (in any directory) select (slash paths relative to the work
// tree root, sorted) with the index's own listing, index.FindFiles: what
// index.ListFiles would list (tracked files even under an ignored
// directory, untracked ones no ignore rule excludes), found without
// walking the whole tree.
//
// Unless all, vendored trees (vendor/, third_party/, node_modules/…) are
// left out as index and select leave them out: their prompt files are a
// dependency's, which you neither run an agent in nor edit, and a check
// failing on them would block a commit for a file you cannot fix. Chain
// passes all: Codex reads an AGENTS.md wherever it runs, vendored or not.
func promptFiles(ctx context.Context, root string, names []string, rules []Rule, all bool) ([]string, error) {
	var patterns []string
	for _, n := range names {
		patterns = append(patterns, "**/"+quoteGlob(n))
	}
	for _, r := range rules {
		patterns = append(patterns, r.Glob)
	}
	list, err := index.FindFiles(ctx, &index.Options{Dir: root, All: all}, patterns)
	if err != nil {
		return nil, fmt.Errorf("list the files of %s: %w", root, err)
	}
	return list.Paths, nil
}

// quoteGlob escapes the characters doublestar would read as wildcards.
func quoteGlob(name string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`, "{", `\{`).Replace(name)
}

// Repo checks every prompt file of the repository (or plain directory)
// whose work tree root is root. Files are read, never written. c counts
// tokens; cfg nil means the built-in defaults.
func Repo(ctx context.Context, root string, cfg *Config, c budget.Counter) (*Report, error) {
	if c == nil {
		return nil, budget.ErrNilCounter
	}
	if cfg == nil {
		cfg = &Config{}
	}
	rules, err := cfg.Rules()
	if err != nil {
		return nil, err
	}
	var names []string
	if cfg.projectDocMaxBytes() > 0 {
		names = append([]string{codexOverrideName, codexAgentsName}, cfg.ProjectDocFallbackFilenames...)
	}
	files, err := promptFiles(ctx, root, names, rules, false)
	if err != nil {
		return nil, err
	}
	rep := &Report{Root: root}
	read := func(rel string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe):
			return nil, &fileError{ProblemUnreadable, fmt.Sprintf("cannot read it: %v", pe.Err)}
		case err != nil:
			return nil, &fileError{ProblemUnreadable, fmt.Sprintf("cannot read it: %v", err)}
		}
		if i := index.BinaryAt(b); i >= 0 {
			return nil, &fileError{ProblemBinary, fmt.Sprintf("binary (NUL byte at offset %d), not a prompt file", i)}
		}
		if i := badutf8.Offset(b); i < len(b) {
			return nil, &fileError{ProblemNotUTF8, fmt.Sprintf("not valid UTF-8 (first bad byte at offset %d)", i)}
		}
		return b, nil
	}

	if max := cfg.projectDocMaxBytes(); max > 0 {
		agents, err := agentsChains(files, names, read, max, cfg.AgentsMaxTokens, c)
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, agents...)
	}

	for _, f := range files {
		var rule *Rule
		for i := range rules {
			if ok, _ := doublestar.Match(rules[i].Glob, f); ok {
				rule = &rules[i] // the last matching rule wins, so config rules beat defaults
			}
		}
		if rule == nil {
			continue
		}
		b, err := read(f)
		if err != nil {
			rep.Results = append(rep.Results, Result{Status: "warn", Path: f, Rule: rule.Glob, Problem: problemOf(err), Message: err.Error()})
			continue
		}
		res := Result{Status: "ok", Path: f, Rule: rule.Glob,
			MaxTokens: rule.MaxTokens, MaxBytes: rule.MaxBytes, MaxChars: rule.MaxChars,
			Bytes: len(b), Chars: utf8.RuneCount(b), Tokens: c.Count(string(b))}
		var over []string
		if rule.MaxTokens > 0 && res.Tokens > rule.MaxTokens {
			over = append(over, fmt.Sprintf("%d tokens > %d", res.Tokens, rule.MaxTokens))
		}
		if rule.MaxBytes > 0 && res.Bytes > rule.MaxBytes {
			over = append(over, fmt.Sprintf("%d bytes > %d", res.Bytes, rule.MaxBytes))
		}
		if rule.MaxChars > 0 && res.Chars > rule.MaxChars {
			over = append(over, fmt.Sprintf("%d chars > %d", res.Chars, rule.MaxChars))
		}
		if len(over) > 0 {
			res.Status = "over"
			res.Message = strings.Join(over, ", ")
			if rule.Why != "" {
				res.Message += " (" + rule.Why + ")"
			}
		}
		rep.Results = append(rep.Results, res)
	}
	sort.SliceStable(rep.Results, func(i, j int) bool { return rep.Results[i].Path < rep.Results[j].Path })
	return rep, nil
}

// agentsChains reports every AGENTS file Codex would load: for the
// directory of each, the chain Codex assembles from the root down, and
// whether it fits maxBytes (and maxTokens when non-zero).
//
// names are the candidate file names in Codex's order: AGENTS.override.md,
// AGENTS.md, then project_doc_fallback_filenames.
func agentsChains(files []string, names []string, read func(string) ([]byte, error), maxBytes, maxTokens int, c budget.Counter) ([]Result, error) {
	picked, shadowed := pickAgents(files, names)
	dirs := make([]string, 0, len(picked))
	for d := range picked {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)

	// An unreadable file is reported and counts as empty: one bad file
	// never aborts the check.
	contents := map[string][]byte{}
	readErr := map[string]error{}
	for _, d := range dirs {
		b, err := read(picked[d])
		if err != nil {
			readErr[d] = err
		}
		contents[d] = b
	}

	var out []Result
	for _, d := range dirs {
		f := picked[d]
		b := contents[d]
		res := Result{Status: "ok", Path: f, Rule: "codex AGENTS.md chain",
			MaxBytes: maxBytes, MaxTokens: maxTokens,
			Bytes: len(b), Chars: utf8.RuneCount(b), Tokens: c.Count(string(b))}

		// The chain: ancestors of d (root first) that have a picked file.
		var chain []string
		for _, a := range ancestors(d) {
			if _, ok := picked[a]; ok {
				chain = append(chain, a)
			}
		}
		remaining := maxBytes
		var cut, dropped []string
		cutBytes, cutLine := 0, 0
		for _, a := range chain {
			data := contents[a]
			if strings.TrimSpace(string(data)) == "" {
				continue
			}
			res.Chain = append(res.Chain, picked[a])
			res.ChainBytes += len(data)
			if remaining == 0 {
				dropped = append(dropped, picked[a])
				continue
			}
			if len(data) > remaining {
				cut = append(cut, picked[a])
				cutBytes = len(data) - remaining
				cutLine = 1 + strings.Count(string(data[:remaining]), "\n")
				data = data[:remaining]
			}
			remaining -= len(data)
		}
		full := make([]string, 0, len(res.Chain))
		for _, a := range chain {
			if s := string(contents[a]); strings.TrimSpace(s) != "" {
				full = append(full, s)
			}
		}
		res.ChainTok = c.Count(strings.Join(full, codexDocJoin))

		var msgs []string
		if len(cut) > 0 || len(dropped) > 0 {
			res.Status = "over"
			m := fmt.Sprintf("chain is %d bytes > %d (Codex project_doc_max_bytes): Codex silently", res.ChainBytes, maxBytes)
			if len(cut) > 0 {
				m += fmt.Sprintf(" cuts the last %d bytes of %s (from line %d on)", cutBytes, cut[0], cutLine)
			}
			if len(dropped) > 0 {
				if len(cut) > 0 {
					m += " and"
				}
				m += " drops " + strings.Join(dropped, ", ")
			}
			msgs = append(msgs, m)
		}
		if maxTokens > 0 && res.ChainTok > maxTokens {
			res.Status = "over"
			msgs = append(msgs, fmt.Sprintf("chain is %d tokens > %d", res.ChainTok, maxTokens))
		}
		if err := readErr[d]; err != nil {
			res.Status, res.Problem = "warn", problemOf(err)
			msgs = append(msgs, err.Error())
		}
		if s, ok := shadowed[d]; ok && res.Status == "ok" {
			res.Status = "warn"
			if strings.TrimSpace(string(b)) == "" {
				msgs = append(msgs, fmt.Sprintf("empty %s hides %s: Codex loads neither", f, s))
			} else {
				msgs = append(msgs, fmt.Sprintf("%s hides %s: Codex reads one file per directory", f, s))
			}
		}
		res.Message = strings.Join(msgs, "; ")
		out = append(out, res)
	}
	return out, nil
}

// RepoRoot returns the nearest ancestor of dir (dir included) holding a
// .git entry (a directory, or a file in linked worktrees and submodules):
// the root Codex starts the AGENTS.md chain at, and where .ctxtrim.toml
// lives. ok is false outside a repository.
func RepoRoot(dir string) (root string, ok bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// pickAgents returns the file Codex picks in each directory ("" for the
// root) that has one of names: the first candidate name that exists, even
// if it is blank (then the directory contributes nothing); and the next
// candidate, which Codex ignores (shadowed).
func pickAgents(files, names []string) (picked, shadowed map[string]string) {
	rank := map[string]int{}
	for i, n := range names {
		if _, dup := rank[n]; !dup && n != "" {
			rank[n] = i
		}
	}
	picked, shadowed = map[string]string{}, map[string]string{}
	for _, f := range files {
		dir, name := path.Split(f)
		dir = strings.TrimSuffix(dir, "/")
		r, ok := rank[name]
		if !ok {
			continue
		}
		prev, had := picked[dir]
		switch {
		case !had:
			picked[dir] = f
		case r < rank[path.Base(prev)]:
			picked[dir], shadowed[dir] = f, prev
		default:
			if s, ok := shadowed[dir]; !ok || r < rank[path.Base(s)] {
				shadowed[dir] = f
			}
		}
	}
	return picked, shadowed
}

// CodexChain is the AGENTS.md chain Codex loads when it runs in one
// directory.
type CodexChain struct {
	// Files are the files Codex reads, root first (slash-separated,
	// relative to the work tree root); blank files, which cost nothing,
	// are left out.
	Files []string
	// Text is what Codex reads: the files joined by blank lines, cut at
	// project_doc_max_bytes (the file crossing the limit is cut, the rest
	// dropped). Empty when there is none or the docs are turned off.
	Text string
	// Bytes is the size of the files before the cut.
	Bytes int
}

// Chain returns the AGENTS.md chain Codex loads when it runs in dir, a
// directory of the work tree (or plain directory) rooted at root, with
// cfg's project_doc_max_bytes and fallback file names (nil: Codex's
// defaults). An unreadable file is an error here: the caller budgets for
// the chain and cannot guess its size.
func Chain(ctx context.Context, root, dir string, cfg *Config) (*CodexChain, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("agents chain: %s is not inside %s", dir, root)
	}
	rel = filepath.ToSlash(rel)
	if rel == "." {
		rel = ""
	}
	out := &CodexChain{}
	maxBytes := cfg.projectDocMaxBytes()
	if maxBytes == 0 {
		return out, nil
	}
	names := append([]string{codexOverrideName, codexAgentsName}, cfg.ProjectDocFallbackFilenames...)
	files, err := promptFiles(ctx, root, names, nil, true)
	if err != nil {
		return nil, err
	}
	picked, _ := pickAgents(files, names)
	remaining := maxBytes
	var parts []string
	for _, a := range ancestors(rel) {
		f, ok := picked[a]
		if !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, fmt.Errorf("agents chain: %w", err)
		}
		if strings.TrimSpace(string(data)) == "" {
			continue
		}
		out.Files = append(out.Files, f)
		out.Bytes += len(data)
		if remaining == 0 {
			continue
		}
		if len(data) > remaining {
			data = data[:remaining]
		}
		remaining -= len(data)
		parts = append(parts, string(data))
	}
	out.Text = strings.Join(parts, codexDocJoin)
	return out, nil
}

// ancestors returns "" (the root), then each prefix directory of d, then d.
func ancestors(d string) []string {
	out := []string{""}
	if d == "" {
		return out
	}
	parts := strings.Split(d, "/")
	for i := range parts {
		out = append(out, strings.Join(parts[:i+1], "/"))
	}
	return out
}
