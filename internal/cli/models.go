package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
)

// modelJSON is one row of `ctxtrim models -json`.
type modelJSON struct {
	Name           string   `json:"name"`
	Family         string   `json:"family"`
	Window         int      `json:"window"`
	MaxOutput      int      `json:"max_output"`
	Encoding       string   `json:"encoding"`
	Factor         float64  `json:"factor"`
	Estimate       bool     `json:"estimate"`
	SeparateOutput bool     `json:"separate_output,omitempty"`
	Aliases        []string `json:"aliases,omitempty"`
	Source         string   `json:"source,omitempty"`
}

func runModels(e *env, args []string) error {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the table as JSON, with aliases, sources and tokenizer families")
	pos, err := parseFlags(e, fs, args, "ctxtrim models [-json] [MODEL]",
		"Lists the model table, with overrides from .ctxtrim.toml and the user config applied.\nWith MODEL, shows that model and the input budget ctxtrim derives for it.")
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError(fmt.Errorf("models takes at most one MODEL, got %q", pos))
	}
	if len(pos) == 1 && strings.TrimSpace(pos[0]) == "" {
		return usageError(errors.New("models: empty MODEL name (run ctxtrim models for the list)"))
	}
	cfg, err := loadConfig(".", "")
	if err != nil {
		return usageError(err)
	}
	for _, w := range cfg.warnings {
		fmt.Fprintf(e.stderr, "ctxtrim: %s\n", w)
	}
	table, err := cfg.table()
	if err != nil {
		return usageError(err)
	}

	if len(pos) == 1 {
		return showModel(e, cfg, pos[0], *asJSON)
	}
	if *asJSON {
		var out struct {
			Models   []modelJSON `json:"models"`
			Families []struct {
				Name     string  `json:"name"`
				Encoding string  `json:"encoding"`
				Factor   float64 `json:"factor"`
				Estimate bool    `json:"estimate"`
				Why      string  `json:"why"`
			} `json:"families"`
		}
		for _, m := range table.Models() {
			out.Models = append(out.Models, modelJSON{m.Name, m.Family, m.Window, m.MaxOutput, m.Encoding, m.Factor, m.Estimate, m.SeparateOutput, m.Aliases, m.Source})
		}
		for _, f := range table.Families() {
			out.Families = append(out.Families, struct {
				Name     string  `json:"name"`
				Encoding string  `json:"encoding"`
				Factor   float64 `json:"factor"`
				Estimate bool    `json:"estimate"`
				Why      string  `json:"why"`
			}{f.Name, f.Encoding, f.Factor, f.Estimate, f.Why})
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
		return nil
	}

	models := table.Models()
	width := len("MODEL")
	for _, m := range models {
		width = max(width, len(m.Name))
	}
	var out strings.Builder
	fmt.Fprintf(&out, "%-*s  %10s  %10s  %-11s  %s\n", width, "MODEL", "WINDOW", "MAX OUTPUT", "ENCODING", "COUNT")
	for _, m := range models {
		count := "exact"
		if m.Estimate {
			count = fmt.Sprintf("estimate ×%.2f (%s)", m.Factor, m.Family)
		}
		window := fmt.Sprint(m.Window)
		if m.SeparateOutput {
			window = "in " + window
		}
		fmt.Fprintf(&out, "%-*s  %10s  %10d  %-11s  %s\n", width, m.Name, window, m.MaxOutput, m.Encoding, count)
	}
	out.WriteString("\nWindows hold input and output together, except \"in …\" (an input-only limit).\n")
	out.WriteString("Estimates count with o200k_base × the family factor; see ctxtrim models -json for the reasons.\n")
	if _, err := fmt.Fprint(e.stdout, out.String()); err != nil {
		return err
	}
	return nil
}

// showModel prints one model and the budget the defaults give it.
func showModel(e *env, cfg *config, name string, asJSON bool) error {
	p, err := (&budgetFlags{model: name}).plan(".", true)
	if err != nil {
		return usageError(err)
	}
	m := p.model
	if asJSON {
		out := struct {
			modelJSON
			Reserve int    `json:"reserve"`
			Margin  int    `json:"margin"`
			Input   int    `json:"input_limit"`
			Why     string `json:"why,omitempty"`
		}{modelJSON{m.Name, m.Family, m.Window, m.MaxOutput, m.Encoding, m.Factor, m.Estimate, m.SeparateOutput, m.Aliases, m.Source},
			p.limits.Reserve, p.limits.MarginTokens(), p.limit, familyWhy(p, m.Family)}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model       %s", m.Name)
	if !strings.EqualFold(name, m.Name) {
		fmt.Fprintf(&b, " (from %q)", name)
	}
	fmt.Fprintf(&b, "\nwindow      %d", m.Window)
	if m.SeparateOutput {
		b.WriteString(" (input only; the output has its own limit)")
	}
	fmt.Fprintf(&b, "\nmax output  %d\n", m.MaxOutput)
	if m.Estimate {
		fmt.Fprintf(&b, "counting    estimate: %s × %.2f (%s)\n            %s\n", m.Encoding, m.Factor, m.Family, familyWhy(p, m.Family))
	} else {
		fmt.Fprintf(&b, "counting    exact: %s\n", m.Encoding)
	}
	fmt.Fprintf(&b, "input       %d = window %d − reserve %d − margin %d\n", p.limit, p.limits.Window, p.limits.Reserve, p.limits.MarginTokens())
	if len(m.Aliases) > 0 {
		fmt.Fprintf(&b, "aliases     %s\n", strings.Join(m.Aliases, ", "))
	}
	if m.Source != "" {
		fmt.Fprintf(&b, "source      %s\n", m.Source)
	}
	if _, err := fmt.Fprint(e.stdout, b.String()); err != nil {
		return err
	}
	return nil
}

func familyWhy(p *budgetPlan, family string) string {
	for _, f := range p.table.Families() {
		if f.Name == family {
			return f.Why
		}
	}
	return ""
}
