package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/codex"
)

// maxTokens bounds every token quantity a user may pass: no model comes near
// 100M tokens, so a larger value is a typo (or a byte count).
const maxTokens = 100_000_000

// optInt is a non-negative integer flag that remembers whether it was set.
type optInt struct {
	v   int
	set bool
}

func (o *optInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.v)
}

func (o *optInt) Set(s string) error {
	n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(s), "_", ""))
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	if n < 0 {
		return fmt.Errorf("%d is negative", n)
	}
	if n > maxTokens {
		return fmt.Errorf("%d tokens is absurd (limit %d)", n, maxTokens)
	}
	o.v, o.set = n, true
	return nil
}

// budgetFlags are the flags every budgeted command shares:
//
//	-model M, -encoding E, -window N, -reserve N, -margin N, -budget N,
//	-from-error TEXT|@FILE
//
// Register them on a command's FlagSet with register, parse, then call
// resolve (or counter, for commands that only count).
type budgetFlags struct {
	model     string
	encoding  string
	window    optInt
	reserve   optInt
	margin    optInt
	budget    optInt
	fromError string
	forClient string // -for CLIENT (select and split); see forcodex.go

	// resolvedModel is the model named by -model, else by the
	// configuration, as written; set by resolve and counter.
	resolvedModel string
	// warnings are problems resolve worked around (an unknown model in a
	// configuration file that the command does not need); the command
	// prints them with warn before its work.
	warnings []string
}

// warn prints the warnings of resolve on stderr, once.
func (b *budgetFlags) warn(e *env) {
	for _, w := range b.warnings {
		fmt.Fprintf(e.stderr, "ctxtrim: %s\n", w)
	}
	b.warnings = nil
}

// modelName returns the model the command works for: -model, else the
// model of the configuration (.ctxtrim.toml, then the user file), as
// written; empty when neither names one. It is valid after resolve or
// counter, and is what request bodies carry in their "model" field.
func (b *budgetFlags) modelName() string { return b.resolvedModel }

// registerCounting adds only -model and -encoding, for commands that count
// without a budget.
func (b *budgetFlags) registerCounting(fs *flag.FlagSet) {
	fs.StringVar(&b.model, "model", "", "model `M` whose tokenizer to count with (see ctxtrim models)")
	fs.StringVar(&b.encoding, "encoding", "", "count exactly with tiktoken encoding `E` (o200k_base, cl100k_base)")
}

// register adds the budget flags to fs.
func (b *budgetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&b.model, "model", "", "model `M` whose window and tokenizer to use (see ctxtrim models)")
	fs.StringVar(&b.encoding, "encoding", "", "count exactly with tiktoken encoding `E` (o200k_base, cl100k_base) instead of the model's")
	fs.Var(&b.window, "window", "context window `N` in tokens, for models missing from the table")
	fs.Var(&b.reserve, "reserve", "tokens `N` kept for the model's output (default: its max output; a quarter of the window when that is half of it or more, or unknown)")
	fs.Var(&b.margin, "margin", "tokens `N` kept free as a safety margin (default: 2% of the window)")
	fs.Var(&b.budget, "budget", "input budget `N` in tokens, instead of window − reserve − margin (not with -reserve or -margin)")
	fs.StringVar(&b.fromError, "from-error", "", "take the window from a provider's context-overflow error `TEXT`, or @FILE")
}

// unknownModelHint follows an unknown model's error: what the CLI offers
// for a model the table lacks.
const unknownModelHint = "; ctxtrim models lists the known ones; for another model pass -window N and -encoding E (o200k_base, cl100k_base), or add it under [models] in .ctxtrim.toml"

// budgetPlan is a resolved budget: what resolve returns, with its parts kept
// for commands that show them.
type budgetPlan struct {
	counter budget.Counter
	factor  float64      // counter = the encoding's exact counter × factor (1 when exact)
	encName string       // the encoding of exact
	model   budget.Model // zero when no model was named
	limits  budget.Limits
	limit   int    // the input token limit
	note    string // "estimate: …", empty when the count is exact
	table   *budget.Table
	codex   *codex.Plan // the arithmetic of -for codex, nil otherwise
}

// setCounter sets p's counter: -encoding's, exact, when one is given; else
// the model's (p.model, when the table knows it: its encoding × its
// family's factor); else o200k_base, exact.
func (p *budgetPlan) setCounter(encoding string, known bool) error {
	if encoding != "" {
		if _, err := budget.NewEncodingCounter(encoding); err != nil {
			return fmt.Errorf("-encoding: %w", err)
		}
	}
	m := p.model
	if !known {
		m = budget.Model{Name: m.Name, Encoding: budget.O200kBase}
	}
	// budget's one way from a model (and -encoding) to its counter.
	m = m.WithEncoding(encoding)
	c, err := m.Counter()
	if err != nil {
		return err
	}
	p.counter, p.factor, p.encName = c, max(m.Factor, 1), m.Encoding
	return nil
}

// resolve applies flags > config (.ctxtrim.toml at repoDir's repo root, then
// the user file) > defaults, and returns the counter (exact for tiktoken
// models; the encoding's count × the family factor, rounded up, for the
// others), the input token limit (window − reserve − margin, or -budget),
// and a note such as "estimate: claude counts are o200k_base × 1.35" (empty
// when exact). Its errors are usage errors (exitUsage): unknown model,
// absurd or contradictory values, malformed configuration, an -from-error
// text that is not an overflow error.
func (b *budgetFlags) resolve(repoDir string) (c budget.Counter, limit int, note string, err error) {
	p, err := b.plan(repoDir, true)
	if err != nil {
		return nil, 0, "", err
	}
	return p.counter, p.limit, p.note, nil
}

// validate rejects flag combinations that contradict each other, from the
// flags alone, before any file is read: -budget is the input limit itself,
// so -reserve and -margin, which only shape a limit derived from a window,
// cannot apply with it.
func (b *budgetFlags) validate() error {
	if err := b.validateFor(); err != nil {
		return err
	}
	if b.window.set && b.window.v == 0 {
		return errors.New("-window 0: a context window must be positive; pass the model's window in tokens")
	}
	if !b.budget.set {
		return nil
	}
	if b.budget.v == 0 {
		return errors.New("-budget 0: the budget must be positive; pass the input budget in tokens")
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"-reserve", b.reserve.set}, {"-margin", b.margin.set}} {
		if f.set {
			return fmt.Errorf("-budget is the input limit itself; %s applies only to a limit derived from the window: drop one of them", f.name)
		}
	}
	return nil
}

// plan does the work of resolve; needLimit is false for counting only.
func (b *budgetFlags) plan(repoDir string, needLimit bool) (*budgetPlan, error) {
	if err := b.validate(); err != nil {
		return nil, err
	}
	cfg, err := loadConfig(repoDir, "")
	if err != nil {
		return nil, err
	}
	// An unreadable user configuration is gone on without, and said.
	b.warnings = append(b.warnings, cfg.warnings...)
	table, err := cfg.table()
	if err != nil {
		return nil, err
	}
	if b.forClient != "" {
		return b.planForCodex(table)
	}
	p := &budgetPlan{table: table}
	var notes []string

	// The error text, if any, may give the window and the requested output.
	var ov budget.Overflow
	if b.fromError != "" {
		text := b.fromError
		if name, ok := strings.CutPrefix(text, "@"); ok {
			data, err := readFileFlag("-from-error "+text, name)
			if err != nil {
				return nil, err
			}
			text = string(data)
		}
		ov, err = budget.FromError(text)
		if errors.Is(err, budget.ErrNotOverflow) {
			return nil, fmt.Errorf("-from-error: %w; pass the provider's error message (or @FILE holding it), or give the window with -model M or -window N", err)
		}
		if err != nil {
			return nil, fmt.Errorf("-from-error: %w", err)
		}
	}

	// The model: flag, else config.
	name := strings.TrimSpace(b.model)
	if name == "" {
		name = strings.TrimSpace(cfg.Model)
	}
	b.resolvedModel = name
	fromConfig := strings.TrimSpace(b.model) == "" && cfg.modelFile != ""
	// The window comes from elsewhere than the model.
	windowGiven := b.window.set || b.budget.set || ov.Window > 0 || !needLimit
	known := false
	if name != "" {
		m, err := table.Lookup(name)
		switch {
		case err == nil:
			p.model, known = m, true
		case b.encoding != "" && windowGiven:
			// An unnamed model described by flags: the name is a label.
			p.model = budget.Model{Name: name}
		case fromConfig && windowGiven:
			// The configuration's default model is not needed for the
			// window: a typo there must not break counting, or a command
			// given its budget. Say so, and count with the default.
			b.warnings = append(b.warnings, fmt.Sprintf("%s: model: %v; counting with %s — fix the model there, or pass -model M or -encoding E",
				cfg.modelFile, err, budget.O200kBase))
			b.resolvedModel = ""
		case fromConfig:
			return nil, fmt.Errorf("%s: model: %w%s", cfg.modelFile, err, unknownModelHint)
		default:
			return nil, fmt.Errorf("%w%s", err, unknownModelHint)
		}
	}
	if b.window.set && !known && b.encoding == "" {
		// A window without a model is a model the table lacks: its
		// tokenizer must be named too, or the count is a guess.
		return nil, fmt.Errorf("-window %d needs -encoding E (o200k_base, cl100k_base), the tokenizer of the model whose window it is; or pass -model M", b.window.v)
	}

	if err := p.setCounter(b.encoding, known); err != nil {
		return nil, err
	}
	// The note says how the count stands to the model's own tokenizer.
	switch {
	case !known: // no model to compare with
	case b.encoding != "" && p.model.Estimate:
		notes = append(notes, fmt.Sprintf("exact %s count as asked; %s's own tokenizer differs", b.encoding, p.model.Name))
	case b.encoding != "" && p.model.Encoding != b.encoding:
		notes = append(notes, fmt.Sprintf("%s count as asked; %s uses %s", b.encoding, p.model.Name, p.model.Encoding))
	case b.encoding == "" && p.model.Estimate:
		notes = append(notes, fmt.Sprintf("estimate: %s counts are %s × %.2f", p.model.Family, p.model.Encoding, p.model.Factor))
	}
	if !needLimit {
		p.note = strings.Join(notes, "; ")
		return p, nil
	}

	// The window: flag, else the error text, else the model.
	window := p.model.Window
	switch {
	case b.window.set:
		window = b.window.v
	case ov.Window > 0:
		window = ov.Window
		notes = append(notes, fmt.Sprintf("window %d from the error text", window))
		if known && p.model.Window > 0 && p.model.Window != ov.Window {
			// A provider that serves the model with another window is
			// the truth, but a pasted error of another model is a
			// mistake the user should see.
			b.warnings = append(b.warnings, fmt.Sprintf("-from-error states a window of %d tokens, %s's is %d: using the error's; if the error is another model's, drop -from-error",
				ov.Window, p.model.Name, p.model.Window))
		}
	case b.fromError != "" && window > 0:
		notes = append(notes, fmt.Sprintf("the error text states no window; using %s's %d", p.model.Name, window))
	}
	if b.budget.set {
		if window > 0 && b.budget.v > window {
			of := "of " + p.model.Name
			switch {
			case b.window.set:
				of = "given by -window"
			case ov.Window > 0:
				of = "stated in the -from-error text"
			}
			return nil, fmt.Errorf("-budget %d exceeds the %d-token window %s; lower -budget", b.budget.v, window, of)
		}
		p.limit = b.budget.v
		p.limits = budget.Limits{Window: window}
		p.note = strings.Join(notes, "; ")
		return p, nil
	}
	if window == 0 {
		if ov.Used > 0 || b.fromError != "" {
			return nil, errors.New("the error text states no window: pass -model M or -window N as well")
		}
		return nil, errors.New("no budget: pass -model M (see ctxtrim models), -window N with -encoding E, or -budget N; or set model in .ctxtrim.toml")
	}

	// The limits by budget's policy (window, then reserve: flag, else the
	// completion size stated in the error text, else config, else
	// budget.DefaultReserve; margin: flag, else config, else 2%).
	pol := b.policy(cfg, ov.Output > 0)
	pol.Window = window
	if p.limits, err = pol.Limits(p.model, ov); err != nil {
		return nil, err
	}
	if p.limit, err = p.limits.Input(); err != nil {
		return nil, err
	}
	p.note = strings.Join(notes, "; ")
	return p, nil
}

// policy returns the reserve and margin the user chose, as budget.Policy
// takes them: the flag, else the configuration, else 0 (the defaults). An
// overflow error that states the output it asked for (errOutput) beats the
// configuration's reserve: the policy takes the error's.
func (b *budgetFlags) policy(cfg *config, errOutput bool) budget.Policy {
	var pol budget.Policy
	switch {
	case b.reserve.set:
		pol.Reserve = noReserveIfZero(b.reserve.v)
	case errOutput:
	case cfg.Reserve != nil:
		pol.Reserve = noReserveIfZero(*cfg.Reserve)
	}
	switch {
	case b.margin.set:
		pol.Margin = noMarginIfZero(b.margin.v)
	case cfg.Margin != nil:
		pol.Margin = noMarginIfZero(*cfg.Margin)
	}
	return pol
}

// noReserveIfZero maps a user's explicit 0 to budget.NoReserve (the
// policy reads 0 as "default").
func noReserveIfZero(n int) int {
	if n == 0 {
		return budget.NoReserve
	}
	return n
}

// noMarginIfZero maps a user's explicit 0 to budget.NoMargin (budget reads
// 0 as "default").
func noMarginIfZero(n int) int {
	if n == 0 {
		return budget.NoMargin
	}
	return n
}

// parseFlags parses args on fs and returns the positional arguments, for
// a command whose positional arguments are files, paths or names.
// Flags may come after positional arguments too ("count a.txt -json"), as
// users type them: a file name is not prose, so a word starting with "-"
// among them is a flag, and "--" ends the flags, so that a FILE may start
// with "-". A bad flag is a usage error "NAME: <err> (see ctxtrim NAME -h)";
// -h prints usage, help and the flags to stderr and returns exitStatus(0),
// which the caller returns as it returns any error. usage is the synopsis
// after "usage: " (further lines indented to match), help the description.
func parseFlags(e *env, fs *flag.FlagSet, args []string, usage, help string) (pos []string, err error) {
	return parseArgs(e, fs, args, usage, help, true)
}

// parseTaskFlags is parseFlags for a command whose positional arguments
// are a task (select): a task is prose, and prose holds words that look
// like flags ("fix the -v flag", "rg ignores -u"). Flags are read only
// before the first task word; from there on every word is the task's,
// "-v" and "--" included. "--" before the task ends the flags, for a task
// whose first word starts with "-".
func parseTaskFlags(e *env, fs *flag.FlagSet, args []string, usage, help string) (task []string, err error) {
	return parseArgs(e, fs, args, usage, help, false)
}

// parseArgs does the work of parseFlags (interspersed) and parseTaskFlags.
func parseArgs(e *env, fs *flag.FlagSet, args []string, usage, help string, interspersed bool) (pos []string, err error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			printUsage(e.stderr, fs, usage, help)
			return nil, exitStatus(exitOK)
		case err != nil && !interspersed && strings.HasPrefix(err.Error(), "flag provided but not defined: "):
			// Before the task, a word the command does not know may
			// be the task's first ("-u is ignored"): say how to pass it.
			return nil, usageError(fmt.Errorf("%s: %w (see ctxtrim %s -h; a task that starts with a dash goes after --)", fs.Name(), err, fs.Name()))
		case err != nil:
			return nil, usageError(fmt.Errorf("%s: %w (see ctxtrim %s -h)", fs.Name(), err, fs.Name()))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if !interspersed {
			// flag.Parse stops at the first word that is not a flag
			// and drops a "--" before it: the rest is the task.
			return rest, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// printUsage writes a command's help in the one layout every command
// shares: synopsis, description, flags. Aliases (aliasFlag) are named
// after the flags, not listed among them.
func printUsage(w io.Writer, fs *flag.FlagSet, usage, help string) {
	fmt.Fprintf(w, "usage: %s\n", usage)
	if help = strings.TrimSpace(help); help != "" {
		fmt.Fprintf(w, "\n%s\n", help)
	}
	fmt.Fprintln(w, "\nflags:")
	// PrintDefaults of a copy without the aliases.
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	var aliases []string
	fs.VisitAll(func(f *flag.Flag) {
		if target, ok := strings.CutPrefix(f.Usage, aliasPrefix); ok {
			aliases = append(aliases, fmt.Sprintf("-%s for -%s", f.Name, target))
			return
		}
		shown.Var(f.Value, f.Name, f.Usage)
		shown.Lookup(f.Name).DefValue = f.DefValue
	})
	shown.SetOutput(w)
	shown.PrintDefaults()
	if len(aliases) > 0 {
		fmt.Fprintf(w, "\n%s also accepted.\n", strings.Join(aliases, ", "))
	}
}

// aliasPrefix marks an alias flag's usage text.
const aliasPrefix = "alias of -"

// aliasFlag registers alias as another name of fs's flag target, for the
// name another command uses (-repo for -C, -staged-diff for -staged): one
// name is documented, both work.
func aliasFlag(fs *flag.FlagSet, alias, target string) {
	f := fs.Lookup(target)
	fs.Var(f.Value, alias, aliasPrefix+target)
}

// flagAsSet names the flag target as the command line set it: "-repo"
// when its alias was given (and the target was not), so that an error
// names what the user typed; "-" + target otherwise.
func flagAsSet(fs *flag.FlagSet, target, alias string) string {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set[alias] && !set[target] {
		return "-" + alias
	}
	return "-" + target
}

// trailingFlags returns the words at the end of a task, given as words,
// that parse as flags of fs ("-budget 800" in `ctxtrim "fix retry"
// -budget 800`), joined by spaces; "" when there are none. Those words
// are the task's (parseTaskFlags), which is right for "fix handling of
// -v" and a mistake for a habit of other tools: select says which on
// stderr rather than guess. It never changes fs: the words are parsed on
// a copy whose flags take any value.
func trailingFlags(fs *flag.FlagSet, words []string) string {
	try := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	try.SetOutput(io.Discard)
	fs.VisitAll(func(f *flag.Flag) {
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		try.Var(anyValue{isBool: ok && b.IsBoolFlag()}, f.Name, "")
	})
	// The first task word is never a flag (parsing stopped there).
	for k := 1; k < len(words); k++ {
		if !strings.HasPrefix(words[k], "-") || words[k] == "-" || words[k] == "--" {
			continue
		}
		if try.Parse(words[k:]) == nil && try.NArg() == 0 {
			return strings.Join(words[k:], " ")
		}
	}
	return ""
}

// anyValue is a flag value that takes any text, for trailingFlags.
type anyValue struct{ isBool bool }

func (anyValue) String() string     { return "" }
func (anyValue) Set(string) error   { return nil }
func (v anyValue) IsBoolFlag() bool { return v.isBool }
