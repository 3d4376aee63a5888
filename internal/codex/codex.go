// Package codex knows what the Codex CLI adds to a request, so that a
// prompt piped into "codex exec -" fits: its configuration
// (CODEX_HOME/config.toml), the fixed prompt it sends with every first
// turn, the AGENTS.md chain it loads, and the two limits it works to, the
// context window and the auto-compaction limit. ctxtrim --for codex
// (internal/cli) turns them into the budget of the prompt:
//
//	budget = min(effective window, auto-compaction limit)
//	         − fixed prompt (per model) − MCP tools (when servers are configured)
//	         − AGENTS.md chain (its tokens and its frame) − margin
//
// where the effective window is effectiveWindowPercent of the window
// (model_context_window, else Codex's own window for the model, else the
// model table's), and the auto-compaction limit is
// model_auto_compact_token_limit, else autoCompactPercent of the window.
// A first turn over the auto-compaction limit works, but the next turn
// (codex exec resume) starts by compacting the conversation; one over the
// window fails ("Codex ran out of room in the model's context window").
//
// Every figure Codex decides is in one table (models.go) with its source:
// the windows are Codex's own (its embedded models.json), the fixed prompts
// are measured with the pinned Codex (e2e TestCodexFixedPrompt: o200k_base
// over the instructions, the tool schemas as JSON and every input item but
// the user's text, 3 tokens of framing per item). What the table cannot
// see, the margin covers: the environment context (working directory,
// date), and skills installed in CODEX_HOME, which Codex lists in its
// prompt too.
//
// The package reads configuration and never writes it; it prints nothing.
package codex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
)

// Config is the part of Codex's config.toml that shapes a request's
// budget. Nil pointers are settings the file leaves to Codex's defaults.
type Config struct {
	// Path is the file read; "" when there is none (Codex's defaults).
	Path string
	// Home is the directory config.toml was looked for in, HomeFromEnv
	// whether $CODEX_HOME named it, and HomeMissing whether it does not
	// exist: Codex refuses to start when $CODEX_HOME names no directory,
	// so a budget from its defaults would be for a run that never happens.
	Home        string
	HomeFromEnv bool
	HomeMissing bool
	// Model is the model Codex runs ("" for Codex's default, DefaultModel).
	Model string
	// ContextWindow is model_context_window.
	ContextWindow *int
	// AutoCompactLimit is model_auto_compact_token_limit.
	AutoCompactLimit *int
	// ProjectDocMaxBytes is project_doc_max_bytes: how much of the
	// AGENTS.md chain Codex reads (32 KiB by default; 0 turns it off).
	ProjectDocMaxBytes *int
	// ProjectDocFallbackFilenames are read where a directory has neither
	// AGENTS.override.md nor AGENTS.md.
	ProjectDocFallbackFilenames []string
	// ToolOutputTokenLimit is tool_output_token_limit, which overrides the
	// model's truncation of tool results (10,000 tokens for every model).
	ToolOutputTokenLimit *int
	// MCPServers names the configured [mcp_servers.*] that are enabled.
	MCPServers []string
}

// settings are the keys read, at the top level and in a [profiles.NAME]
// table, which overrides them when "profile" names it.
type settings struct {
	Model                       *string  `toml:"model"`
	ContextWindow               *int     `toml:"model_context_window"`
	AutoCompactLimit            *int     `toml:"model_auto_compact_token_limit"`
	ProjectDocMaxBytes          *int     `toml:"project_doc_max_bytes"`
	ProjectDocFallbackFilenames []string `toml:"project_doc_fallback_filenames"`
	ToolOutputTokenLimit        *int     `toml:"tool_output_token_limit"`
}

type file struct {
	settings
	Profile    string              `toml:"profile"`
	Profiles   map[string]settings `toml:"profiles"`
	MCPServers map[string]struct {
		Enabled *bool `toml:"enabled"`
	} `toml:"mcp_servers"`
}

// Home returns Codex's home directory: $CODEX_HOME, else ~/.codex.
func Home() (string, error) {
	if h := os.Getenv("CODEX_HOME"); h != "" {
		return h, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("codex home: %w (set CODEX_HOME)", err)
	}
	return filepath.Join(home, ".codex"), nil
}

// LoadConfig reads home/config.toml ("" for Home()). A missing file is
// Codex's defaults, not an error; a malformed one is, with its position.
func LoadConfig(home string) (*Config, error) {
	fromEnv := false
	if home == "" {
		h, err := Home()
		if err != nil {
			return nil, err
		}
		home, fromEnv = h, os.Getenv("CODEX_HOME") != ""
	}
	p := filepath.Join(home, "config.toml")
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		_, statErr := os.Stat(home)
		return &Config{Home: home, HomeFromEnv: fromEnv, HomeMissing: errors.Is(statErr, os.ErrNotExist)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("codex config: %w", err)
	}
	var f file
	if _, err := toml.Decode(string(data), &f); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d:%d: %s", p, pe.Position.Line, pe.Position.Col, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	s := f.settings
	if f.Profile != "" {
		prof, ok := f.Profiles[f.Profile]
		if !ok {
			return nil, fmt.Errorf("%s: profile %q has no [profiles.%s] table", p, f.Profile, f.Profile)
		}
		over(&s.Model, prof.Model)
		over(&s.ContextWindow, prof.ContextWindow)
		over(&s.AutoCompactLimit, prof.AutoCompactLimit)
		over(&s.ProjectDocMaxBytes, prof.ProjectDocMaxBytes)
		over(&s.ToolOutputTokenLimit, prof.ToolOutputTokenLimit)
		if prof.ProjectDocFallbackFilenames != nil {
			s.ProjectDocFallbackFilenames = prof.ProjectDocFallbackFilenames
		}
	}
	cfg := &Config{Path: p, Home: home, HomeFromEnv: fromEnv, ContextWindow: s.ContextWindow, AutoCompactLimit: s.AutoCompactLimit,
		ProjectDocMaxBytes: s.ProjectDocMaxBytes, ProjectDocFallbackFilenames: s.ProjectDocFallbackFilenames,
		ToolOutputTokenLimit: s.ToolOutputTokenLimit}
	if s.Model != nil {
		cfg.Model = *s.Model
	}
	for _, name := range sortedKeys(f.MCPServers) {
		if e := f.MCPServers[name].Enabled; e == nil || *e {
			cfg.MCPServers = append(cfg.MCPServers, name)
		}
	}
	for _, v := range []struct {
		key string
		n   *int
	}{{"model_context_window", cfg.ContextWindow}, {"model_auto_compact_token_limit", cfg.AutoCompactLimit},
		{"project_doc_max_bytes", cfg.ProjectDocMaxBytes}, {"tool_output_token_limit", cfg.ToolOutputTokenLimit}} {
		if v.n != nil && *v.n < 0 {
			return nil, fmt.Errorf("%s: %s = %d is negative", p, v.key, *v.n)
		}
	}
	return cfg, nil
}

// Origin says which config.toml was read, or that none was and why, for
// the line ctxtrim prints about it: without it, a CODEX_HOME that names
// nothing made the budget Codex's defaults without a word.
func (c *Config) Origin() string {
	switch {
	case c.Path != "":
		return "read " + c.Path
	case c.HomeMissing && c.HomeFromEnv:
		return "no config read: CODEX_HOME " + c.Home + " does not exist (codex exec refuses to start without it)"
	}
	return "no config read: " + filepath.Join(c.Home, "config.toml") + " does not exist, so Codex's defaults apply"
}

func over[T any](dst **T, src *T) {
	if src != nil {
		*dst = src
	}
}
