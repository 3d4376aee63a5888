package check

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// checkLenCounter counts one token per byte, so expected counts in these
// tests are plain arithmetic.
type checkLenCounter struct{}

func (checkLenCounter) Count(s string) int { return len(s) }

// writeCheckTree creates files (slash paths → content) under a new temp
// directory that holds an empty .git directory, and returns it.
func writeCheckTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func intPtr(n int) *int { return &n }

func TestCheckRepo(t *testing.T) {
	type row struct {
		Status, Path string
		Bytes        int
		Chain        []string
		ChainBytes   int
		Message      string
	}
	a := strings.Repeat("a", 60)
	b := strings.Repeat("b", 50)
	tests := []struct {
		name  string
		files map[string]string
		cfg   Config
		want  []row
	}{
		{
			name:  "codex chain within limit",
			files: map[string]string{"AGENTS.md": a, "svc/AGENTS.md": b},
			cfg:   Config{ProjectDocMaxBytes: intPtr(110), NoDefaults: true},
			want: []row{
				{Status: "ok", Path: "AGENTS.md", Bytes: 60, Chain: []string{"AGENTS.md"}, ChainBytes: 60},
				{Status: "ok", Path: "svc/AGENTS.md", Bytes: 50, Chain: []string{"AGENTS.md", "svc/AGENTS.md"}, ChainBytes: 110},
			},
		},
		{
			name:  "codex chain cut: the deepest file loses the overshoot",
			files: map[string]string{"AGENTS.md": a, "svc/AGENTS.md": b},
			cfg:   Config{ProjectDocMaxBytes: intPtr(100), NoDefaults: true},
			want: []row{
				{Status: "ok", Path: "AGENTS.md", Bytes: 60, Chain: []string{"AGENTS.md"}, ChainBytes: 60},
				{Status: "over", Path: "svc/AGENTS.md", Bytes: 50, Chain: []string{"AGENTS.md", "svc/AGENTS.md"}, ChainBytes: 110,
					Message: "chain is 110 bytes > 100 (Codex project_doc_max_bytes): Codex silently cuts the last 10 bytes of svc/AGENTS.md (from line 1 on)"},
			},
		},
		{
			name:  "codex drops files after the limit is reached",
			files: map[string]string{"AGENTS.md": a, "x/AGENTS.md": a, "x/y/AGENTS.md": b},
			cfg:   Config{ProjectDocMaxBytes: intPtr(60), NoDefaults: true},
			want: []row{
				{Status: "ok", Path: "AGENTS.md", Bytes: 60, Chain: []string{"AGENTS.md"}, ChainBytes: 60},
				{Status: "over", Path: "x/AGENTS.md", Bytes: 60, Chain: []string{"AGENTS.md", "x/AGENTS.md"}, ChainBytes: 120,
					Message: "chain is 120 bytes > 60 (Codex project_doc_max_bytes): Codex silently drops x/AGENTS.md"},
				{Status: "over", Path: "x/y/AGENTS.md", Bytes: 50, Chain: []string{"AGENTS.md", "x/AGENTS.md", "x/y/AGENTS.md"}, ChainBytes: 170,
					Message: "chain is 170 bytes > 60 (Codex project_doc_max_bytes): Codex silently drops x/AGENTS.md, x/y/AGENTS.md"},
			},
		},
		{
			name:  "override wins; whitespace-only files cost nothing",
			files: map[string]string{"AGENTS.md": a, "AGENTS.override.md": b, "svc/AGENTS.md": " \n"},
			cfg:   Config{NoDefaults: true},
			want: []row{
				{Status: "warn", Path: "AGENTS.override.md", Bytes: 50, Chain: []string{"AGENTS.override.md"}, ChainBytes: 50,
					Message: "AGENTS.override.md hides AGENTS.md: Codex reads one file per directory"},
				{Status: "ok", Path: "svc/AGENTS.md", Bytes: 2, Chain: []string{"AGENTS.override.md"}, ChainBytes: 50},
			},
		},
		{
			name:  "fallback names are read where no AGENTS file exists",
			files: map[string]string{"AGENTS.md": a, "svc/CLAUDE.md": b, "web/AGENTS.md": b, "web/CLAUDE.md": a},
			cfg:   Config{ProjectDocFallbackFilenames: []string{"CLAUDE.md"}, NoDefaults: true},
			want: []row{
				{Status: "ok", Path: "AGENTS.md", Bytes: 60, Chain: []string{"AGENTS.md"}, ChainBytes: 60},
				{Status: "ok", Path: "svc/CLAUDE.md", Bytes: 50, Chain: []string{"AGENTS.md", "svc/CLAUDE.md"}, ChainBytes: 110},
				{Status: "warn", Path: "web/AGENTS.md", Bytes: 50, Chain: []string{"AGENTS.md", "web/AGENTS.md"}, ChainBytes: 110,
					Message: "web/AGENTS.md hides web/CLAUDE.md: Codex reads one file per directory"},
			},
		},
		{
			name:  "project_doc_max_bytes = 0 turns the chain check off",
			files: map[string]string{"AGENTS.md": a},
			cfg:   Config{ProjectDocMaxBytes: intPtr(0), NoDefaults: true},
			want:  nil,
		},
		{
			name: "default rules: CLAUDE.md chars, copilot chars, prompts tokens",
			files: map[string]string{
				"CLAUDE.md":                       strings.Repeat("é", claudeMDMaxChars), // 2 bytes per char: chars count
				"sub/CLAUDE.md":                   strings.Repeat("x", claudeMDMaxChars+1),
				".github/copilot-instructions.md": strings.Repeat("x", copilotInstructionsMaxChars+1),
				"prompts/review/go.md":            strings.Repeat("x", promptFileMaxTokens),
				"docs/notes.md":                   "not a prompt file",
			},
			want: []row{
				{Status: "over", Path: ".github/copilot-instructions.md", Bytes: copilotInstructionsMaxChars + 1,
					Message: "4001 chars > 4000 (Copilot code review reads the first 4,000 chars)"},
				{Status: "ok", Path: "CLAUDE.md", Bytes: 2 * claudeMDMaxChars},
				{Status: "ok", Path: "prompts/review/go.md", Bytes: promptFileMaxTokens},
				{Status: "over", Path: "sub/CLAUDE.md", Bytes: claudeMDMaxChars + 1,
					Message: "40001 chars > 40000 (Claude Code warns above 40.0k chars)"},
			},
		},
		{
			name:  "config rule replaces the default of the same glob and adds others",
			files: map[string]string{"prompts/a.md": b, "docs/sys.txt": a},
			cfg: Config{Files: []Rule{
				{Glob: "prompts/**", MaxTokens: 40},
				{Glob: "docs/*.txt", MaxBytes: 100, Why: "system prompt"},
			}},
			want: []row{
				{Status: "ok", Path: "docs/sys.txt", Bytes: 60},
				{Status: "over", Path: "prompts/a.md", Bytes: 50, Message: "50 tokens > 40"},
			},
		},
		{
			name:  "gitignored files are not checked",
			files: map[string]string{".gitignore": "build/\n", "build/AGENTS.md": a, "build/prompts/x.md": a},
			cfg:   Config{},
			want:  nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := writeCheckTree(t, tc.files)
			rep, err := Repo(context.Background(), root, &tc.cfg, checkLenCounter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []row
			for _, r := range rep.Results {
				got = append(got, row{r.Status, r.Path, r.Bytes, r.Chain, r.ChainBytes, r.Message})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Repo (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckRulesRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		rule Rule
		want string
	}{
		{"no glob", Rule{MaxTokens: 1}, "rule without glob"},
		{"bad glob", Rule{Glob: "[", MaxTokens: 1}, `bad glob "["`},
		{"no limit", Rule{Glob: "x"}, "no limit"},
		{"negative", Rule{Glob: "x", MaxBytes: -1}, "negative limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{Files: []Rule{tc.rule}}
			_, err := c.Rules()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Rules() error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestReview(t *testing.T) {
	file := func(name string, lines int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -0,0 +1,%d @@\n", name, name, name, name, lines)
		for i := 0; i < lines; i++ {
			fmt.Fprintf(&b, "+line %d of %s\n", i, name)
		}
		return b.String()
	}
	tests := []struct {
		name      string
		diff      string
		instr     string
		limit     int
		wantParts int
		wantFiles int
	}{
		{"empty", "", "", 1000, 0, 0},
		{"one small file", file("a", 5), "", 1000, 1, 1},
		{"two files share a part", file("a", 10) + file("b", 10), "", 1000, 1, 2},
		{"two files need two parts", file("a", 40) + file("b", 40), "", 1000, 2, 2},
		{"a big file is cut at hunk and line boundaries", file("a", 200), "", 1000, 4, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			est, err := Review(context.Background(), tc.diff, tc.instr, tc.limit, checkLenCounter{})
			if err != nil {
				t.Fatal(err)
			}
			got := []int{est.Parts, est.Files, est.DiffTokens}
			want := []int{tc.wantParts, tc.wantFiles, len(tc.diff)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("parts, files, tokens (-want +got):\n%s", diff)
			}
			if est.MaxPart > tc.limit {
				t.Errorf("largest part %d > budget %d", est.MaxPart, tc.limit)
			}
		})
	}
	if _, err := Review(context.Background(), file("a", 3), strings.Repeat("i", 990), 1000, checkLenCounter{}); err == nil {
		t.Error("instructions filling the budget: want an error")
	}
}

// FuzzCheckAgentsChain checks the Codex chain arithmetic against its
// definition: for the directory at depth d, Codex loads the non-blank
// AGENTS.md files of depths 0..d, in order, and the chain is over budget
// exactly when their total size exceeds project_doc_max_bytes.
func FuzzCheckAgentsChain(f *testing.F) {
	f.Add([]byte{10, 20, 30}, uint16(45))
	f.Add([]byte{0, 200, 0, 1}, uint16(200))
	f.Add([]byte{255}, uint16(1))
	f.Fuzz(func(t *testing.T, sizes []byte, max uint16) {
		if len(sizes) == 0 || len(sizes) > 12 || max == 0 {
			return
		}
		contents := map[string][]byte{}
		var files []string
		dir := ""
		for i, n := range sizes {
			if i > 0 {
				dir = path.Join(dir, fmt.Sprintf("d%d", i))
			}
			p := path.Join(dir, codexAgentsName)
			files = append(files, p)
			if n == 0 {
				contents[p] = []byte(" \n") // blank: skipped by Codex
			} else {
				contents[p] = bytes.Repeat([]byte("x"), int(n))
			}
		}
		read := func(p string) ([]byte, error) { return contents[p], nil }
		rs, err := agentsChains(files, []string{codexOverrideName, codexAgentsName}, read, int(max), 0, checkLenCounter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != len(files) {
			t.Fatalf("%d results for %d files", len(rs), len(files))
		}
		for d, r := range rs {
			var wantChain []string
			total := 0
			for i := 0; i <= d; i++ {
				if sizes[i] != 0 {
					wantChain = append(wantChain, files[i])
					total += int(sizes[i])
				}
			}
			if diff := cmp.Diff(wantChain, r.Chain); diff != "" {
				t.Errorf("depth %d chain (-want +got):\n%s", d, diff)
			}
			if r.ChainBytes != total {
				t.Errorf("depth %d: chain bytes %d, want %d", d, r.ChainBytes, total)
			}
			if over := total > int(max); over != (r.Status == "over") {
				t.Errorf("depth %d: status %q with %d bytes against %d", d, r.Status, total, max)
			}
		}
	})
}

// An unreadable prompt file is reported, and the others are still checked.
func TestCheckRepoUnreadableFile(t *testing.T) {
	root := writeCheckTree(t, map[string]string{"AGENTS.md": "rules\n", "docs/x.md": "x"})
	if err := os.Symlink("docs", filepath.Join(root, "CLAUDE.md")); err != nil { // a directory: unreadable
		t.Skip("no symlinks here:", err)
	}
	rep, err := Repo(context.Background(), root, &Config{}, checkLenCounter{})
	if err != nil {
		t.Fatal(err)
	}
	wantStatuses(t, rep, []string{"ok AGENTS.md", "warn CLAUDE.md"})
}

// A prompt file that is not UTF-8 (a Latin-1 é) or binary is a warning
// naming the problem and the offset of its first bad byte; the others are
// still checked.
func TestCheckRepoUndecodableFiles(t *testing.T) {
	root := writeCheckTree(t, map[string]string{
		"AGENTS.md":       "rules\n",
		"CLAUDE.md":       "caf\xe9 rules\n",
		"prompts/logo.md": "\x89PNG\x00\x00",
	})
	rep, err := Repo(context.Background(), root, &Config{}, checkLenCounter{})
	if err != nil {
		t.Fatal(err)
	}
	wantStatuses(t, rep, []string{"ok AGENTS.md", "warn CLAUDE.md", "warn prompts/logo.md"})
	want := map[string][2]string{
		"CLAUDE.md":       {ProblemNotUTF8, "not valid UTF-8 (first bad byte at offset 3)"},
		"prompts/logo.md": {ProblemBinary, "binary (NUL byte at offset 4), not a prompt file"},
	}
	for _, r := range rep.Results {
		if w, ok := want[r.Path]; ok && (r.Problem != w[0] || !strings.Contains(r.Message, w[1])) {
			t.Errorf("%s: problem %q, message %q; want %q and %q", r.Path, r.Problem, r.Message, w[0], w[1])
		}
	}
}

// A file git tracks is checked even under an ignored directory (added with
// git add -f), as the index lists it: check used to walk with its own
// ignore rules and said "no prompt files found".
func TestRepoTrackedUnderIgnoredDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	git := func(args ...string) { txtartest.Git(t, root, args...) }
	git("init", "-q")
	for p, c := range map[string]string{
		".gitignore":     "docs/\n",
		"docs/CLAUDE.md": strings.Repeat("x", claudeMDMaxChars+1),
		"docs/notes.md":  "untracked and ignored\n",
	} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", ".gitignore")
	git("add", "-f", "docs/CLAUDE.md")
	git("commit", "-q", "-m", "x")
	rep, err := Repo(context.Background(), root, nil, checkLenCounter{})
	if err != nil {
		t.Fatal(err)
	}
	wantStatuses(t, rep, []string{"over docs/CLAUDE.md"})
}

// A fallback file name is a name, not a pattern: its wildcard characters
// are quoted before it is looked for in every directory.
func TestRepoFallbackNameIsLiteral(t *testing.T) {
	root := writeCheckTree(t, map[string]string{
		"sub/notes[1].md": "fallback\n",
		"sub/notes1.md":   "not the fallback\n",
	})
	rep, err := Repo(context.Background(), root, &Config{ProjectDocFallbackFilenames: []string{"notes[1].md"}}, checkLenCounter{})
	if err != nil {
		t.Fatal(err)
	}
	wantStatuses(t, rep, []string{"ok sub/notes[1].md"})
}

// TestChain checks the AGENTS.md chain Codex loads in one directory: root
// first, one file per directory (override, then AGENTS.md, then the
// fallbacks), blank files skipped, the total cut at project_doc_max_bytes.
func TestChain(t *testing.T) {
	files := map[string]string{
		"AGENTS.md":                 "root rules\n",
		"svc/AGENTS.md":             "svc rules\n",
		"svc/AGENTS.override.md":    "svc override\n",
		"svc/api/CLAUDE.md":         "api via fallback\n",
		"svc/api/v1/AGENTS.md":      "   \n",
		"docs/AGENTS.md":            "docs rules\n",
		"svc/api/v1/handlers/x.txt": "not a doc\n",
		"vendor/lib/AGENTS.md":      "lib rules\n",
	}
	root := writeCheckTree(t, files)
	for _, tc := range []struct {
		name, dir string
		cfg       Config
		want      CodexChain
	}{
		{name: "root", dir: ".", want: CodexChain{Files: []string{"AGENTS.md"}, Text: "root rules\n", Bytes: 11}},
		{name: "override wins", dir: "svc", want: CodexChain{Files: []string{"AGENTS.md", "svc/AGENTS.override.md"},
			Text: "root rules\n\n\nsvc override\n", Bytes: 11 + 13}},
		{name: "no fallback by default, blank skipped", dir: "svc/api/v1/handlers",
			want: CodexChain{Files: []string{"AGENTS.md", "svc/AGENTS.override.md"}, Text: "root rules\n\n\nsvc override\n", Bytes: 24}},
		{name: "fallback", dir: "svc/api/v1", cfg: Config{ProjectDocFallbackFilenames: []string{"CLAUDE.md"}},
			want: CodexChain{Files: []string{"AGENTS.md", "svc/AGENTS.override.md", "svc/api/CLAUDE.md"},
				Text: "root rules\n\n\nsvc override\n\n\napi via fallback\n", Bytes: 24 + 17}},
		{name: "cut", dir: "svc", cfg: Config{ProjectDocMaxBytes: intPtr(15)},
			want: CodexChain{Files: []string{"AGENTS.md", "svc/AGENTS.override.md"}, Text: "root rules\n\n\nsvc ", Bytes: 24}},
		// Check skips vendored trees; the chain does not: Codex run
		// there reads them.
		{name: "vendored", dir: "vendor/lib", want: CodexChain{Files: []string{"AGENTS.md", "vendor/lib/AGENTS.md"},
			Text: "root rules\n\n\nlib rules\n", Bytes: 11 + 10}},
		{name: "off", dir: "svc", cfg: Config{ProjectDocMaxBytes: intPtr(0)}, want: CodexChain{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Chain(context.Background(), root, filepath.Join(root, filepath.FromSlash(tc.dir)), &tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("Chain (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := Chain(context.Background(), root, t.TempDir(), nil); err == nil {
		t.Error("a directory outside the root: want an error")
	}
}

// TestRepoSkipsWhatTheIndexSkips: check reports the prompt files the index
// lists, and none it skips as vendored. Before, check reported
// vendor/**/AGENTS.md (and failed on it), which index skips.
func TestRepoSkipsWhatTheIndexSkips(t *testing.T) {
	big := strings.Repeat("x", defaultProjectDocMaxBytes+1)
	root := writeCheckTree(t, map[string]string{
		"AGENTS.md":                            "# Rules\n",
		"vendor/github.com/acme/lib/AGENTS.md": big,
		"node_modules/pkg/CLAUDE.md":           strings.Repeat("y", claudeMDMaxChars+1),
		"svc/AGENTS.md":                        "# Service\n",
	})
	rep, err := Repo(context.Background(), root, nil, checkLenCounter{})
	if err != nil {
		t.Fatal(err)
	}
	wantStatuses(t, rep, []string{"ok AGENTS.md", "ok svc/AGENTS.md"})
	ix, err := index.New(context.Background(), &index.Options{Dir: root, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	indexed := map[string]bool{}
	for _, f := range ix.Files {
		indexed[f.Path] = true
	}
	for _, r := range rep.Results {
		if !indexed[r.Path] {
			t.Errorf("check reports %s, which the index leaves out", r.Path)
		}
	}
}

// wantStatuses compares a report's results, as "status path", with want.
func wantStatuses(t *testing.T, rep *Report, want []string) {
	t.Helper()
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Status+" "+r.Path)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}
