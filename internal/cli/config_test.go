package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/nonroot"
	"github.com/google/go-cmp/cmp"
)

// writeConfigs writes the user file and the repository file (empty: none).
func writeConfigs(t *testing.T, user, repo string) {
	t.Helper()
	dir := isolateConfig(t)
	if user != "" {
		p := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), userConfigPath)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(user), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if repo != "" {
		if err := os.WriteFile(filepath.Join(dir, repoConfigName), []byte(repo), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// planFor parses budget flags as a command would and resolves them.
func planFor(t *testing.T, args ...string) (*budgetPlan, error) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	var bf budgetFlags
	bf.register(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return bf.plan(".", true)
}

func TestResolvePrecedence(t *testing.T) {
	type got struct {
		Model                          string
		Window, Reserve, Margin, Limit int
	}
	tests := []struct {
		name       string
		user, repo string
		args       []string
		want       got
	}{
		{"defaults from model", "", "", []string{"-model", "gpt-4o"}, got{"gpt-4o", 128000, 16384, 0, 128000 - 16384 - 2560}},
		{"user config model", `model = "gpt-4.1"`, "", nil, got{"gpt-4.1", 1047576, 32768, 0, 1047576 - 32768 - 20952}},
		{"repo beats user", `model = "gpt-4.1"`, `model = "gpt-4o"`, nil, got{"gpt-4o", 128000, 16384, 0, 128000 - 16384 - 2560}},
		{"flag beats config", `model = "gpt-4.1"`, `model = "gpt-4o"`, []string{"-model", "o4-mini"}, got{"o4-mini", 200000, 50000, 0, 200000 - 50000 - 4000}},
		{"config reserve and margin", "reserve = 1000\nmargin = 500", `model = "gpt-4o"`, nil, got{"gpt-4o", 128000, 1000, 500, 128000 - 1000 - 500}},
		{"flags beat config reserve", "reserve = 1000\nmargin = 500", `model = "gpt-4o"`, []string{"-reserve", "2000", "-margin", "0"}, got{"gpt-4o", 128000, 2000, -1, 128000 - 2000}},
		{"gemini output is separate", "", "", []string{"-model", "gemini-2.5-pro"}, got{"gemini-2.5-pro", 1048576, 0, 0, 1048576 - 20972}},
		{"gpt-4 reserve capped", "", "", []string{"-model", "gpt-4"}, got{"gpt-4", 8192, 2048, 0, 8192 - 2048 - 164}},
		// A model known only by its window and encoding reserves what a
		// model of unknown max output does: a quarter (issue 61 item 5).
		{"window and encoding reserve a quarter", "", "", []string{"-window", "8192", "-encoding", "o200k_base"}, got{"", 8192, 2048, 0, 8192 - 2048 - 164}},
		{"window from error, reserve from model", "", "", []string{"-model", "claude-sonnet-4-5", "-from-error", "prompt is too long: 210000 tokens > 200000 maximum"}, got{"claude-sonnet-4-5", 200000, 64000, 0, 200000 - 64000 - 4000}},
		{"reserve from error", "", "", []string{"-model", "gpt-4o", "-from-error", "This model's maximum context length is 24000 tokens. However, you requested 30000 tokens (26000 in the messages, 4000 in the completion)."}, got{"gpt-4o", 24000, 4000, 0, 24000 - 4000 - 480}},
		{"config adds a model", "", "[models.\"my-llm\"]\nfamily = \"llama\"\nwindow = 32768\nmax_output = 4096\n", []string{"-model", "my-llm"}, got{"my-llm", 32768, 4096, 0, 32768 - 4096 - 656}},
		{"config overrides a window", "", "[models.\"gpt-4o\"]\nwindow = 64000\n", []string{"-model", "gpt-4o-2024-08-06"}, got{"gpt-4o", 64000, 16384, 0, 64000 - 16384 - 1280}},
		{"small server window", "", "", []string{"-model", "llama-3.1", "-from-error", "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens."}, got{"llama-3.1", 8192, 8192 / budget.LearnedReserveDivisor, 0, 8192 - 8192/budget.LearnedReserveDivisor - 164}},
		{"budget flag", "", `model = "gpt-4o"`, []string{"-budget", "5000"}, got{"gpt-4o", 128000, 0, 0, 5000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			writeConfigs(t, tc.user, tc.repo)
			p, err := planFor(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			g := got{p.model.Name, p.limits.Window, p.limits.Reserve, p.limits.Margin, p.limit}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveFamilyOverride(t *testing.T) {
	writeConfigs(t, "[families.claude]\nfactor = 1.5\n", "")
	p, err := planFor(t, "-model", "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	if p.factor != 1.5 || p.note != "estimate: claude counts are o200k_base × 1.50" {
		t.Errorf("factor %v, note %q", p.factor, p.note)
	}
	if got := p.counter.Count("hello world"); got != 3 { // 2 × 1.5
		t.Errorf("Count = %d, want 3", got)
	}
	c, _, limit, err := func() (any, string, int, error) {
		c, l, n, err := (&budgetFlags{model: "gpt-4o"}).resolve(".")
		return c, n, l, err
	}()
	if err != nil || c == nil || limit != 128000-16384-2560 {
		t.Errorf("resolve: %v %d %v", c, limit, err)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, user, repo string
		want             []string
	}{
		{"syntax", "", "model = \"gpt-4o\"\nreserve = = 3\n", []string{repoConfigName + ":2:", "expected"}},
		{"type", "", "reserve = \"lots\"\n", []string{repoConfigName + ":1:"}},
		{"unknown key", "modle = \"gpt-4o\"\n", "", []string{"config.toml", "unknown key modle"}},
		{"negative reserve", "", "reserve = -5\n", []string{repoConfigName, "negative"}},
		{"bad family", "", "[models.x]\nfamily = \"nope\"\nwindow = 10\n", []string{repoConfigName, `unknown family "nope"`}},
		{"bad window", "", "[models.x]\nwindow = 0\n", []string{repoConfigName, "window 0 out of range"}},
		{"bad encoding", "", "[families.claude]\nencoding = \"gpt2\"\n", []string{repoConfigName, `unknown encoding "gpt2"`}},
		{"unknown default model", "", "model = \"gpt-9\"\n", []string{`unknown model "gpt-9"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			writeConfigs(t, tc.user, tc.repo)
			_, stderr, code := runBuf(t, "text\n", "fit", "-budget", "100")
			if tc.name == "unknown default model" {
				_, stderr, code = runBuf(t, "text\n", "fit")
			}
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

func TestRepoRoot(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: elsewhere\n"), 0o644) // a linked worktree
	got, ok := repoRoot(sub)
	if !ok || got != dir {
		t.Errorf("repoRoot(%s) = %q, %v; want %q", sub, got, ok, dir)
	}
}

// TestConfigCheckSectionIsCheckOwned: a [check] section belongs to "ctxtrim
// check"; the other commands must accept a config that has one.
func TestConfigCheckSectionIsCheckOwned(t *testing.T) {
	writeConfigs(t, "", "reserve = 0\n[check]\nreview_max_parts = 3\n")
	out, stderr, code := runBuf(t, "hello\n", "fit", "-budget", "100")
	if code != exitOK || out != "hello\n" {
		t.Fatalf("fit with [check] in config: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// TestModelName: the model a command works for comes from -model, else
// from the configuration, as written; request bodies carry it.
func TestModelName(t *testing.T) {
	tests := []struct {
		name       string
		user, repo string
		args       []string
		want       string
	}{
		{"none", "", "", []string{"-budget", "1000"}, ""},
		{"flag", "", "", []string{"-model", "gpt-4o-2024-08-06"}, "gpt-4o-2024-08-06"},
		{"user config", `model = "gpt-4.1"`, "", nil, "gpt-4.1"},
		{"repo config beats user", `model = "gpt-4.1"`, `model = "claude-sonnet-4-5"`, nil, "claude-sonnet-4-5"},
		{"flag beats config", "", `model = "gpt-4o"`, []string{"-model", "o4-mini"}, "o4-mini"},
		{"label of a model described by flags", "", "", []string{"-model", "my-llm", "-encoding", "cl100k_base", "-window", "8000"}, "my-llm"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			writeConfigs(t, tc.user, tc.repo)
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			var bf budgetFlags
			bf.register(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := bf.resolve("."); err != nil {
				t.Fatal(err)
			}
			if got := bf.modelName(); got != tc.want {
				t.Errorf("modelName() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCheckConfigOneLoader: check reads [check] through loadConfig, as the
// other commands read theirs: the user file applies (the repository file
// wins key by key), and a malformed file is reported as path:line:col.
// check used to read .ctxtrim.toml alone with its own decoder.
func TestCheckConfigOneLoader(t *testing.T) {
	agents := "AGENTS.md\n" + strings.Repeat("Keep handlers small.\n", 2000) // 42,010 bytes
	tests := []struct {
		name, user, repo string
		code             int
		stdout, stderr   string // substrings
	}{
		{"defaults", "", "", exitNoFit, "chain 42010/32768 bytes", ""},
		{"user file raises the limit", "[check]\nproject_doc_max_bytes = 65536\n", "", exitOK, "chain 42010/65536 bytes", ""},
		{"repository file wins key by key", "[check]\nproject_doc_max_bytes = 65536\nagents_max_tokens = 1\n", "[check]\nproject_doc_max_bytes = 50000\n", exitNoFit, "chain 42010/50000 bytes, chain", ""},
		{"syntax error", "", "model = \"gpt-4o\"\n[check]\nreview_budget = = 3\n", exitUsage, "", repoConfigName + ":3:17: "},
		{"unknown key", "", "[check]\n\n  project_doc_max_byte = 1\n", exitUsage, "", repoConfigName + `:3:3: unknown key "check.project_doc_max_byte"`},
		{"unknown key in a rule", "[[check.files]]\nglob = \"x\"\nmax_token = 3\n", "", exitUsage, "", `config.toml:3:1: unknown key "check.files.max_token"`},
		{"negative value", "", "[check]\nreview_budget = -1\n", exitUsage, "", repoConfigName + ": check.review_budget and check.review_max_parts must not be negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			writeConfigs(t, tc.user, tc.repo)
			if err := os.WriteFile("AGENTS.md", []byte(agents), 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runBuf(t, "", "check")
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// FuzzKeyPos: keyPos never panics, and returns the path alone or a
// position on a line of the text.
func FuzzKeyPos(f *testing.F) {
	f.Add("[check]\n  review_budgt = 1\n", "check.review_budgt")
	f.Add("[[check.files]]\n\"glob\" = 'x'\n", "check.files.glob")
	f.Add("a = 1 # [b]\n[ \"c\" . d ]\ne=2", "c.d.e")
	f.Fuzz(func(t *testing.T, text, key string) {
		got := keyPos("p", []byte(text), strings.Split(key, "."))
		if got == "p" {
			return
		}
		var line, col int
		if _, err := fmt.Sscanf(got, "p:%d:%d", &line, &col); err != nil || line < 1 || line > strings.Count(text, "\n")+1 || col < 1 {
			t.Fatalf("keyPos = %q for a %d-line text", got, strings.Count(text, "\n")+1)
		}
	})
}

// FuzzReadConfig: readConfig never panics on any file, and its every
// error names the file (so the user knows which one to fix).
func FuzzReadConfig(f *testing.F) {
	f.Add("model = \"gpt-4o\"\nreserve = 100\n[check]\nproject_doc_max_bytes = 1\n[[check.files]]\nglob = \"x\"\nmax_tokens = 3\n")
	f.Add("[models.\"my\"]\nfamily = \"llama\"\nwindow = 100\nmax_output = 10\n[families.claude]\nfactor = 1.5\n")
	f.Add("reserve = -1\n")
	f.Add("[check]\nreview_budgt = 1\n")
	f.Add("model = 3\n")
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readConfig(p); err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not name the file", err)
		}
	})
}

// TestUnreadableUserConfig: a user configuration location that cannot be
// read is one warning, and every command goes on, as git does with its
// own (HOME=/root under another user gave "open
// /root/.config/ctxtrim/config.toml: permission denied", exit 2, in every
// command but index). Tests run as root, whom a directory at mode 000 does
// not stop, so the location is made unreadable in two ways: a path through
// a regular file (ENOTDIR, which root meets too), and, as nobody
// (internal/nonroot), a directory at mode 000 (EACCES, the report's case).
func TestUnreadableUserConfig(t *testing.T) {
	t.Run("parent is a file", func(t *testing.T) {
		isolateConfig(t)
		file := filepath.Join(t.TempDir(), "config-home")
		if err := os.WriteFile(file, []byte("not a directory\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("XDG_CONFIG_HOME", file)
		checkUnreadableUserConfig(t, filepath.Join(file, userConfigPath), "not a directory")
	})
	t.Run("permission denied", func(t *testing.T) {
		if !nonroot.Here(t) {
			return
		}
		isolateConfig(t)
		home := t.TempDir()
		if err := os.MkdirAll(filepath.Join(home, "ctxtrim"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, userConfigPath), []byte("model = \"gpt-4o\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(home, "ctxtrim"), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(home, "ctxtrim"), 0o755) })
		t.Setenv("XDG_CONFIG_HOME", home)
		checkUnreadableUserConfig(t, filepath.Join(home, userConfigPath), "permission denied")
	})
}

// checkUnreadableUserConfig checks that the user file at path, unreadable
// for the reason why, is a warning: loadConfig returns one, and commands
// succeed, each printing the warning once.
func checkUnreadableUserConfig(t *testing.T, path, why string) {
	t.Helper()
	cfg, err := loadConfig(".", "")
	if err != nil {
		t.Fatalf("loadConfig: %v, want a warning only", err)
	}
	if len(cfg.warnings) != 1 || !strings.Contains(cfg.warnings[0], path) || !strings.Contains(cfg.warnings[0], why) {
		t.Errorf("warnings %q, want one naming %s and %q", cfg.warnings, path, why)
	}
	for _, args := range [][]string{
		{"fit", "-budget", "100"},
		{"count"},
		{"history", "-budget", "1000"},
		{"split", "-budget", "1000"},
		{"-budget", "1000", "retry"},
	} {
		stdin := "some text\n"
		if args[0] == "history" {
			stdin = `{"messages":[{"role":"user","content":"hi"}]}`
		}
		_, stderr, code := runBuf(t, stdin, args...)
		if code != exitOK {
			t.Errorf("ctxtrim %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), code, exitOK, stderr)
		}
		// Every command says once what it went on without, as git does.
		if strings.Count(stderr, path) != 1 {
			t.Errorf("ctxtrim %s: stderr names %s %d times, want once:\n%s", strings.Join(args, " "), path, strings.Count(stderr, path), stderr)
		}
	}
	if _, stderr, code := runBuf(t, "", "models"); code != exitOK || strings.Count(stderr, path) != 1 {
		t.Errorf("models: exit %d, want %d and one warning naming %s:\n%s", code, exitOK, path, stderr)
	}
	_, stderr, code := runBuf(t, "", "check")
	if code != exitOK || strings.Count(stderr, path) != 1 || strings.Count(stderr, "\n") != 1 {
		t.Errorf("check: exit %d, stderr %q; want %d and one warning line naming %s", code, stderr, exitOK, path)
	}
}

// TestFromErrorDisagrees: -from-error stating another window than the
// named model's is used, and said (issue 61 item 13): a pasted error of
// another model would otherwise give an 8k model a 200k budget silently.
func TestFromErrorDisagrees(t *testing.T) {
	writeConfigs(t, "", "")
	for _, tc := range []struct {
		name, errText string
		warn          bool
	}{
		{"another window", "prompt is too long: 210000 tokens > 200000 maximum", true},
		{"the model's own window", "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", false},
		{"no window stated", "Input is too long for requested model.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runBuf(t, "hello\n", "fit", "-model", "gpt-4", "-from-error", tc.errText)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := strings.Contains(stderr, "-from-error states a window of"); got != tc.warn {
				t.Errorf("warning %v, want %v; stderr:\n%s", got, tc.warn, stderr)
			}
		})
	}
}
