package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/check"
	"github.com/ctxtrim/ctxtrim/internal/codex"
)

// registerFor adds -for to fs: select and split, whose output is one
// request (or one per part).
func (b *budgetFlags) registerFor(fs *flag.FlagSet) {
	fs.StringVar(&b.forClient, "for", "", "size the budget for `CLIENT` (codex: the output piped into codex exec plus Codex's own prompt and AGENTS.md chain stay under the auto-compaction limit and window of CODEX_HOME/config.toml)")
}

// validateFor rejects -for with the flags that set the window it derives
// the budget from. -budget N is no contradiction: it caps the budget
// further (the smaller of the two), as it caps a model's.
func (b *budgetFlags) validateFor() error {
	switch b.forClient {
	case "":
		return nil
	case "codex":
	default:
		return fmt.Errorf("unknown -for %q (known: codex)", b.forClient)
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"-window", b.window.set}, {"-reserve", b.reserve.set}, {"-margin", b.margin.set}, {"-from-error", b.fromError != ""}} {
		if f.set {
			return fmt.Errorf("-for codex derives the budget from Codex's config; %s contradicts it: drop one of them", f.name)
		}
	}
	return nil
}

// planForCodex is plan for -for codex: the model Codex runs (-model, else
// config.toml's, else Codex's default) counts the prompt (its tokenizer
// from the table; o200k_base, exact, for an OpenAI model the table lacks;
// -encoding if given), and the budget is codex.Budget's for Codex's config
// and the AGENTS.md chain Codex loads in the working directory, where
// codex exec runs.
func (b *budgetFlags) planForCodex(table *budget.Table) (*budgetPlan, error) {
	cc, err := codex.LoadConfig("")
	if err != nil {
		return nil, err
	}
	from := "config.toml"
	if b.model != "" {
		cc.Model, from = b.model, "-model"
	}
	if cc.Model == "" {
		cc.Model, from = codex.DefaultModel, "Codex "+codex.Version+"'s default"
	}
	b.resolvedModel = cc.Model
	p := &budgetPlan{table: table}
	tableWindow := 0
	m, err := table.Lookup(cc.Model)
	known := err == nil
	switch {
	case known:
		p.model, tableWindow = m, m.Window
	case b.encoding != "" || errors.Is(err, budget.ErrUnknownModel):
		// A model the table lacks counts with o200k_base (setCounter):
		// Codex runs OpenAI models, and that is their encoding.
		p.model = budget.Model{Name: cc.Model}
	default:
		return nil, err
	}
	if err := p.setCounter(b.encoding, known); err != nil {
		return nil, err
	}
	// One line says what the budget is for: which config Codex's settings
	// came from (or that none did), and the model, which ctxtrim models
	// may not list (Codex's newer models are in Codex's own table only).
	line := fmt.Sprintf("for codex: %s; model %s (%s", cc.Origin(), cc.Model, from)
	if !known {
		line += fmt.Sprintf("; not in ctxtrim's model table, so counted with %s", p.encName)
	}
	b.warnings = append(b.warnings, line+")")

	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	root, ok := check.RepoRoot(wd)
	if !ok {
		root = wd
	}
	chain, err := check.Chain(context.Background(), root, wd, &check.Config{
		ProjectDocMaxBytes: cc.ProjectDocMaxBytes, ProjectDocFallbackFilenames: cc.ProjectDocFallbackFilenames})
	if err != nil {
		return nil, err
	}
	agents := 0
	if chain.Text != "" {
		agents = p.counter.Count(chain.Text)
	}
	cp, err := codex.Budget(cc, agents, tableWindow)
	if err != nil {
		return nil, err
	}
	p.codex, p.limit, p.limits = cp, cp.Budget, budget.Limits{Window: cp.Window}
	if b.budget.set && b.budget.v < p.limit {
		p.limit = b.budget.v
	}
	return p, nil
}
