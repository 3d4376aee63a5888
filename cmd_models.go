package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"
)

func init() {
	commands["models"] = command{summary: "list the model table: windows, max output, encodings", run: runModels}
}

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

func runModels(e *env, args []string) int {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the table as JSON, with aliases, sources and tokenizer families")
	if code, ok := parseFlags(e, fs, args, "ctxtrim models [-json]",
		"Lists the model table, with overrides from .ctxtrim.toml and the user config applied."); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return e.fail(exitUsage, fmt.Errorf("models takes no arguments, got %q", fs.Arg(0)))
	}
	cfg, err := loadConfig(".")
	if err != nil {
		return e.fail(exitUsage, err)
	}
	table, err := cfg.table()
	if err != nil {
		return e.fail(exitUsage, err)
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
			return e.fail(exitError, err)
		}
		return exitOK
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
		return e.fail(exitError, err)
	}
	return exitOK
}
