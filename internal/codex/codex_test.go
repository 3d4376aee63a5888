package codex

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr(n int) *int { return &n }

// home writes config (unless "") into a new CODEX_HOME.
func home(t testing.TB, config string) string {
	t.Helper()
	h := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(h, "config.toml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func TestLoadConfig(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         Config // Path is filled in
		err          string
	}{
		{name: "no file", config: "", want: Config{}},
		{name: "settings", config: `
model = "gpt-5.5"
model_context_window = 32000
model_auto_compact_token_limit = 24000
project_doc_max_bytes = 65536
project_doc_fallback_filenames = ["CLAUDE.md"]
tool_output_token_limit = 12000
approval_policy = "never"   # not read

[mcp_servers.ctxtrim]
command = "ctxtrim"
args = ["mcp"]

[mcp_servers.off]
command = "x"
enabled = false
`, want: Config{Model: "gpt-5.5", ContextWindow: ptr(32000), AutoCompactLimit: ptr(24000), ProjectDocMaxBytes: ptr(65536),
			ProjectDocFallbackFilenames: []string{"CLAUDE.md"}, ToolOutputTokenLimit: ptr(12000), MCPServers: []string{"ctxtrim"}}},
		{name: "profile", config: `
model = "gpt-5.5"
model_context_window = 32000
profile = "big"
[profiles.big]
model = "gpt-6.1-sol"
model_auto_compact_token_limit = 400000
`, want: Config{Model: "gpt-6.1-sol", ContextWindow: ptr(32000), AutoCompactLimit: ptr(400000)}},
		{name: "missing profile", config: "profile = \"nope\"\n", err: `profile "nope" has no [profiles.nope] table`},
		{name: "malformed", config: "model = \"gpt-5.5\"\nmodel_context_window = = 3\n", err: "config.toml:2:"},
		{name: "negative", config: "model_context_window = -1\n", err: "model_context_window = -1 is negative"},
		{name: "wrong type", config: "model_context_window = \"big\"\n", err: "config.toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := home(t, tc.config)
			got, err := LoadConfig(h)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.config != "" {
				tc.want.Path = filepath.Join(h, "config.toml")
			}
			tc.want.Home = h
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("LoadConfig (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHome(t *testing.T) {
	t.Setenv("CODEX_HOME", "/x/codex")
	if h, err := Home(); err != nil || h != "/x/codex" {
		t.Errorf("Home() = %q, %v with CODEX_HOME set", h, err)
	}
	t.Setenv("CODEX_HOME", "")
	t.Setenv("HOME", "/home/u")
	if h, err := Home(); err != nil || h != "/home/u/.codex" {
		t.Errorf("Home() = %q, %v, want ~/.codex", h, err)
	}
}

// TestOrigin: the line about Codex's config names the file read, or says
// that none was and why; a CODEX_HOME that does not exist is called out,
// as Codex refuses to start with it. Before, such a home silently gave
// Codex's defaults.
func TestOrigin(t *testing.T) {
	withConfig := home(t, "model = \"gpt-5.5\"\n")
	empty := t.TempDir()
	missing := filepath.Join(t.TempDir(), "nonexistent")
	user := t.TempDir() // a HOME without .codex
	for _, tc := range []struct {
		name, codexHome, home, want string
	}{
		{"read", withConfig, "", "read " + filepath.Join(withConfig, "config.toml")},
		{"no config.toml", empty, "", "no config read: " + filepath.Join(empty, "config.toml") + " does not exist, so Codex's defaults apply"},
		{"CODEX_HOME does not exist", missing, "", "no config read: CODEX_HOME " + missing + " does not exist (codex exec refuses to start without it)"},
		{"no ~/.codex", "", user, "no config read: " + filepath.Join(user, ".codex", "config.toml") + " does not exist, so Codex's defaults apply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CODEX_HOME", tc.codexHome)
			if tc.home != "" {
				t.Setenv("HOME", tc.home)
			}
			cfg, err := LoadConfig("")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, cfg.Origin()); diff != "" {
				t.Errorf("Origin (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBudget states the plans as formulas over the table and the rules.
func TestBudget(t *testing.T) {
	gpt55, _ := lookup("gpt-5.5")
	def, _ := lookup(DefaultModel)
	unknown, known := lookup("my-model")
	if known || unknown.name != "" {
		t.Fatal("lookup of an unknown model must return the unknown entry")
	}
	for _, tc := range []struct {
		name         string
		cfg          Config
		agents, tabl int
		want         int
		err          error
	}{
		// The e2e scenario: a 32k window, auto-compaction at 24k.
		{name: "window and limit set", cfg: Config{Model: "gpt-5.5", ContextWindow: ptr(32000), AutoCompactLimit: ptr(24000)},
			want: min(32000*effectiveWindowPercent/100, 24000) - gpt55.fixed - Margin},
		{name: "Codex's window and default limit", cfg: Config{Model: "gpt-5.5"},
			want: min(gpt55.window*effectiveWindowPercent/100, gpt55.window*autoCompactPercent/100) - gpt55.fixed - Margin},
		{name: "default model", cfg: Config{},
			want: def.window*autoCompactPercent/100 - def.fixed - Margin},
		{name: "limit above the window", cfg: Config{Model: "gpt-5.5", ContextWindow: ptr(32000), AutoCompactLimit: ptr(1 << 20)},
			want: 32000*effectiveWindowPercent/100 - gpt55.fixed - Margin},
		{name: "AGENTS.md", cfg: Config{Model: "gpt-5.5", ContextWindow: ptr(32000), AutoCompactLimit: ptr(24000)}, agents: 1000,
			want: 24000 - gpt55.fixed - (1000 + agentsFrame) - Margin},
		{name: "MCP servers", cfg: Config{Model: "gpt-5.5", ContextWindow: ptr(32000), AutoCompactLimit: ptr(24000), MCPServers: []string{"a", "b"}},
			want: 24000 - gpt55.fixed - gpt55.mcp - Margin},
		{name: "unknown model, table window", cfg: Config{Model: "my-model"}, tabl: 128000,
			want: 128000*autoCompactPercent/100 - unknown.fixed - Margin},
		{name: "unknown model, no window", cfg: Config{Model: "my-model"}, err: errors.New("set model_context_window")},
		{name: "no room", cfg: Config{Model: "gpt-5.5", ContextWindow: ptr(8000)}, err: ErrNoRoom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Budget(&tc.cfg, tc.agents, tc.tabl)
			if tc.err != nil {
				if err == nil || !errors.Is(err, tc.err) && !strings.Contains(err.Error(), tc.err.Error()) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Budget != tc.want {
				t.Errorf("budget %d, want %d: %s", p.Budget, tc.want, p)
			}
		})
	}
}

// FuzzLoadConfig: any file is parsed or rejected with an error naming it,
// never a panic.
func FuzzLoadConfig(f *testing.F) {
	f.Add("model = \"gpt-5.5\"\nmodel_context_window = 32000\n")
	f.Add("profile = \"p\"\n[profiles.p]\nmodel_auto_compact_token_limit = 5\n")
	f.Add("[mcp_servers.x]\nenabled = true\n")
	f.Fuzz(func(t *testing.T, config string) {
		h := home(t, config)
		cfg, err := LoadConfig(h)
		if err != nil {
			if !strings.Contains(err.Error(), "config") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if config != "" && cfg.Path == "" {
			t.Error("no path for a file that was read")
		}
	})
}
