package codex

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Version is the Codex CLI release the table below was measured with (npm
// @openai/codex, the version the e2e tests pin).
const Version = "0.171.0"

// DefaultModel is the model Codex 0.171.0 runs when config.toml names
// none: measured, the model of its first request with an API-key provider.
const DefaultModel = "gpt-6.2-sol"

// Codex's rules, each with its source.
const (
	// effectiveWindowPercent: Codex treats this share of a model's window
	// as usable (the default of its effective_context_window_percent); the
	// rest is the answer's room.
	effectiveWindowPercent = 95
	// autoCompactPercent: without model_auto_compact_token_limit, Codex
	// compacts once a conversation passes this share of the window (the
	// default of its models' auto_compact_token_limit).
	autoCompactPercent = 90
	// agentsFrame is what Codex wraps the AGENTS.md chain in (a heading
	// naming the directory, <INSTRUCTIONS> tags, the item's framing):
	// measured, an AGENTS.md of 14 tokens adds 41 for every model.
	agentsFrame = 27
	// Margin covers what the table cannot see: the environment context
	// Codex sends holds the working directory and the date (126 tokens
	// measured in a temporary directory), and skills installed in
	// CODEX_HOME are listed in its prompt too.
	Margin = 500
	// DefaultProjectDocMaxBytes is project_doc_max_bytes's default: Codex
	// reads at most 32 KiB of the AGENTS.md chain.
	DefaultProjectDocMaxBytes = 32 << 10
)

// model is what Codex adds to a first turn with one model.
type model struct {
	name string
	// window is Codex's context window for the model: context_window in
	// the models.json embedded in Codex 0.171.0.
	window int
	// fixed is Codex's fixed prompt: measured (e2e TestCodexFixedPrompt)
	// with Codex 0.171.0 in a fresh CODEX_HOME, no AGENTS.md, no MCP server.
	fixed int
	// mcp is what configuring MCP servers adds: measured with ctxtrim's
	// server. Known models defer MCP tools behind tool_search, so this is
	// tool_search and its companions, whatever the servers; a model Codex
	// does not know gets every tool's schema (ctxtrim's: 1,925 tokens).
	mcp int
}

// models is Codex 0.171.0's model list (visibility "list", plus the hidden
// ones users name) and, last, a model it does not know.
func models() []model {
	return []model{
		{"gpt-6.2-sol", 500_000, 12_694, 33},
		{"gpt-6.2-astra", 272_000, 12_634, 33},
		{"gpt-6.1-sol", 500_000, 11_586, 33},
		{"gpt-6.1-terra", 500_000, 11_543, 33},
		{"gpt-6-astra", 272_000, 11_522, 33},
		{"gpt-6-sol", 272_000, 11_074, 33},
		{"gpt-6-luna", 272_000, 10_895, 33},
		{"gpt-5.6-sol", 272_000, 10_283, 33},
		{"gpt-5.6-terra", 272_000, 10_283, 33},
		{"gpt-5.6-luna", 272_000, 8_298, 24},
		{"gpt-5.5", 272_000, 7_581, 393},
		{"", 0, 8_069, 1_925},
	}
}

// lookup returns the table's entry for name: exact, else the unknown one.
func lookup(name string) (model, bool) {
	ms := models()
	for _, m := range ms {
		if m.name != "" && m.name == name {
			return m, true
		}
	}
	return ms[len(ms)-1], false
}

// ErrNoRoom is returned (wrapped) by Budget when Codex's own prompt leaves
// nothing for the user's.
var ErrNoRoom = errors.New("no room for a prompt")

// Plan is the budget of a prompt piped into codex exec, with its parts.
type Plan struct {
	Model       string `json:"model"`        // the model Codex runs
	Known       bool   `json:"known"`        // Codex's table has it (else its fixed prompt is the unknown model's)
	Window      int    `json:"window"`       //
	WindowFrom  string `json:"window_from"`  // where Window comes from
	Effective   int    `json:"effective"`    // effectiveWindowPercent of Window
	AutoCompact int    `json:"auto_compact"` //
	CompactFrom string `json:"compact_from"` // where AutoCompact comes from
	Fixed       int    `json:"fixed"`        // Codex's fixed prompt
	MCP         int    `json:"mcp"`          // added by the configured MCP servers
	Agents      int    `json:"agents"`       // the AGENTS.md chain as Codex loads it, with its frame; 0 for none
	Margin      int    `json:"margin"`       //
	Budget      int    `json:"budget"`       // what is left for the prompt
}

// Budget returns the plan for cfg. agentsTokens is the tokens of the
// AGENTS.md chain Codex loads in the working directory (cut at
// project_doc_max_bytes), 0 for none. tableWindow is the window of the
// model in ctxtrim's model table (0 if it has none); it is used when
// neither model_context_window nor Codex's table gives one.
func Budget(cfg *Config, agentsTokens, tableWindow int) (*Plan, error) {
	p := &Plan{Model: cfg.Model, Margin: Margin}
	if p.Model == "" {
		p.Model = DefaultModel
	}
	m, known := lookup(p.Model)
	p.Known, p.Fixed = known, m.fixed
	switch {
	case cfg.ContextWindow != nil && *cfg.ContextWindow > 0:
		p.Window, p.WindowFrom = *cfg.ContextWindow, "model_context_window in "+cfg.Path
	case known:
		p.Window, p.WindowFrom = m.window, fmt.Sprintf("Codex %s's window for %s", Version, p.Model)
	case tableWindow > 0:
		p.Window, p.WindowFrom = tableWindow, fmt.Sprintf("ctxtrim's model table (Codex %s does not know %s)", Version, p.Model)
	default:
		where := "config.toml"
		if cfg.Path != "" {
			where = cfg.Path
		}
		return nil, fmt.Errorf("codex: no context window for model %q: Codex %s and ctxtrim's table do not know it; set model_context_window in %s", p.Model, Version, where)
	}
	p.Effective = p.Window * effectiveWindowPercent / 100
	if cfg.AutoCompactLimit != nil && *cfg.AutoCompactLimit > 0 {
		p.AutoCompact, p.CompactFrom = *cfg.AutoCompactLimit, "model_auto_compact_token_limit in "+cfg.Path
	} else {
		p.AutoCompact, p.CompactFrom = p.Window*autoCompactPercent/100, fmt.Sprintf("Codex's default, %d%% of the window", autoCompactPercent)
	}
	if len(cfg.MCPServers) > 0 {
		p.MCP = m.mcp
	}
	if agentsTokens > 0 {
		p.Agents = agentsTokens + agentsFrame
	}
	p.Budget = min(p.Effective, p.AutoCompact) - p.Fixed - p.MCP - p.Agents - p.Margin
	if p.Budget <= 0 {
		return nil, fmt.Errorf("codex: %w: %s", ErrNoRoom, p)
	}
	return p, nil
}

// String spells the arithmetic out, for -explain and errors.
func (p *Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "budget %d = min(window %d × %d%% = %d [%s], auto-compaction %d [%s]) − Codex %s's fixed prompt %d",
		p.Budget, p.Window, effectiveWindowPercent, p.Effective, p.WindowFrom, p.AutoCompact, p.CompactFrom, Version, p.Fixed)
	if !p.Known {
		fmt.Fprintf(&b, " (of a model it does not know: %s)", p.Model)
	} else {
		fmt.Fprintf(&b, " (%s)", p.Model)
	}
	if p.MCP > 0 {
		fmt.Fprintf(&b, " − MCP tools %d", p.MCP)
	}
	if p.Agents > 0 {
		fmt.Fprintf(&b, " − AGENTS.md %d", p.Agents)
	}
	fmt.Fprintf(&b, " − margin %d", p.Margin)
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
