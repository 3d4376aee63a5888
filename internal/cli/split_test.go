package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
)

// splitRepo builds testdata/split/repo.txtar: a committed repository whose
// pkg/store/store.go is modified and staged. With commit set, the staged
// change is committed too, so HEAD~1..HEAD is that change.
func splitRepo(t *testing.T, commit bool) string {
	t.Helper()
	dir := txtartest.Repo(t, txtartest.Load(t, filepath.Join("testdata", "split", "repo.txtar")))
	if commit {
		r, err := git.PlainOpen(dir)
		if err != nil {
			t.Fatal(err)
		}
		wt, err := r.Worktree()
		if err != nil {
			t.Fatal(err)
		}
		sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
		if _, err := wt.Commit("change store", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runSplitCLI runs "ctxtrim split args..." on stdin.
func runSplitCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(append([]string{"split"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestSplitCLI(t *testing.T) {
	staged := splitRepo(t, false)
	committed := splitRepo(t, true)
	diff := func() string {
		_, out, _ := runSplitCLI(t, "", "-budget", "100000", "-staged", "-C", staged)
		return strings.TrimPrefix(out, "[part 1 of 1]\n")
	}()
	if !strings.HasPrefix(diff, "diff --git a/pkg/store/store.go b/pkg/store/store.go\n") {
		t.Fatalf("staged diff:\n%s", diff)
	}
	instr := filepath.Join(t.TempDir(), "review.md")
	if err := os.WriteFile(instr, []byte("Review this change. List bugs only.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(t.TempDir(), "big.md")
	if err := os.WriteFile(big, []byte(strings.Repeat("Follow every rule. ", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		stdin      string
		args       []string
		code       int
		wantOut    []string // substrings of stdout
		wantErr    []string // substrings of stderr
		partsJSONL int      // >0: stdout is at least this many JSON request lines
	}{
		{"stdin diff, plain, verified", diff, []string{"-budget", "250", "-instructions", instr, "-verify"}, exitOK,
			[]string{"Review this change.", "[part 1 of ", "<<<ctxtrim part boundary>>>", "diff --git a/pkg/store/store.go"},
			[]string{"verified: every part fits"}, 0},
		{"staged diff as OpenAI requests", "", []string{"-budget", "300", "-staged", "-C", staged, "-request", "openai", "-model", "gpt-4.1"}, exitOK,
			[]string{`"model":"gpt-4.1"`, `"role":"user"`}, nil, 2},
		{"range diff as Anthropic requests with reduce", "", []string{"-budget", "300", "-diff", "HEAD~1..HEAD", "-C", committed, "-request", "anthropic", "-model", "claude-sonnet-4-5", "-reduce"}, exitOK,
			[]string{`"max_tokens":4096`, "{{ANSWERS}}"}, nil, 3},
		{"files by glob", "", []string{"-budget", "400", "-files", "pkg/**/*.go", "-C", committed, "-verify"}, exitOK,
			[]string{"==> pkg/api/api.go <==", "==> pkg/api/api_test.go <==", "(continued at line "}, []string{"verified"}, 0},
		{"ignored files left out", "", []string{"-budget", "100000", "-files", "**/*.go", "-C", committed}, exitOK,
			[]string{"==> pkg/api/api.go <=="}, []string{"left out 1 file that ignore rules exclude"}, 0},
		// (gen/out.go absent: checked below by name)
		{"ignored files kept", "", []string{"-budget", "100000", "-files", "**/*.go", "-C", committed, "-no-ignore"}, exitOK,
			[]string{"==> gen/out.go <=="}, nil, 0},
		{"text forced", diff, []string{"-budget", "100000", "-text", "-delimiter", `\0`}, exitOK, []string{"[part 1 of 1]\ndiff --git"}, nil, 0},
		{"instructions too large", diff, []string{"-budget", "300", "-instructions", big}, exitNoFit, nil,
			[]string{"the instructions and part header take", "tokens short"}, 0},
		{"too many parts", diff, []string{"-budget", "200", "-max-parts", "2"}, exitNoFit, nil,
			[]string{"more than the maximum of 2", "tokens too many"}, 0},
		{"unknown request format", diff, []string{"-budget", "300", "-request", "gemini"}, exitUsage, nil,
			[]string{`unknown -request "gemini" (known: openai, anthropic)`}, 0},
		{"conflicting inputs", "", []string{"-budget", "300", "-staged", "-files", "*.go"}, exitUsage, nil, []string{"exclude each other"}, 0},
		{"no budget", diff, nil, exitUsage, nil, []string{"no budget"}, 0},
		{"empty input", "", []string{"-budget", "300"}, exitBadInput, nil, []string{"empty input"}, 0},
		{"binary input", "a\x00b", []string{"-budget", "300"}, exitBadInput, nil, []string{"binary input"}, 0},
		{"bad range", "", []string{"-budget", "300", "-diff", "HEAD", "-C", committed}, exitUsage, nil, []string{"REV..REV"}, 0},
		{"no file matches", "", []string{"-budget", "300", "-files", "*.rs", "-C", committed}, exitUsage, nil, []string{"no file matches"}, 0},
		// Conflicts are reported before any file is read: the missing
		// instructions file is never opened.
		{"budget with reserve", diff, []string{"-budget", "300", "-reserve", "10", "-instructions", "/nonexistent"}, exitUsage, nil, []string{"-reserve applies only", "drop one"}, 0},
		{"max-tokens without a request format", diff, []string{"-budget", "300", "-max-tokens", "100", "-instructions", "/nonexistent"}, exitUsage, nil, []string{"needs -request openai or anthropic"}, 0},
		{"max-tokens of openai parts", "text\n", []string{"-budget", "300", "-max-tokens", "100", "-request", "openai", "-model", "gpt-4o"}, exitOK, []string{`"max_completion_tokens":100`}, nil, 1},
		{"openai parts cap the answer by default", "text\n", []string{"-budget", "300", "-request", "openai", "-model", "gpt-4o"}, exitOK, []string{`{"model":"gpt-4o","max_completion_tokens":4096,"messages":`}, nil, 1},
		{"delimiter with request", diff, []string{"-budget", "300", "-delimiter", "--", "-request", "openai"}, exitUsage, nil, []string{"-delimiter separates plain parts"}, 0},
		{"no-ignore without files", diff, []string{"-budget", "300", "-no-ignore"}, exitUsage, nil, []string{"-no-ignore applies only to -files"}, 0},
		{"negative max-tokens", diff, []string{"-budget", "300", "-max-tokens", "-1", "-request", "anthropic"}, exitUsage, nil, []string{"must not be negative"}, 0},
		{"unknown flag, one line", diff, []string{"-budget", "300", "-nope"}, exitUsage, nil, []string{"ctxtrim: split: flag provided but not defined: -nope (see ctxtrim split -h)\n"}, 0},
		{"invalid UTF-8 in a request body", "ok \xff bad\n", []string{"-budget", "300", "-request", "openai", "-model", "gpt-4o"}, exitBadInput, nil, []string{"(stdin): not valid UTF-8 (first bad byte at offset 3)"}, 0},
		{"invalid UTF-8 is bad input", "ok \xff bad\n", []string{"-budget", "300"}, exitBadInput, nil, []string{"(stdin): not valid UTF-8 (first bad byte at offset 3)"}, 0},
		{"request without a model", "text\n", []string{"-budget", "300", "-request", "anthropic"}, exitUsage, nil, []string{`-request anthropic writes request bodies, which need a "model": pass -model M`}, 0},
		{"openai request without a model", "text\n", []string{"-budget", "300", "-request", "openai"}, exitUsage, nil, []string{`-request openai writes request bodies, which need a "model"`}, 0},
		{"a directory", "", []string{"-budget", "300", staged}, exitUsage, nil, []string{"is a directory; use -files GLOB"}, 0},
		{"flags after the FILE", "", []string{instr, "-budget", "300", "-request", "openai", "-model", "gpt-4o"}, exitOK, []string{"Review this change."}, nil, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runSplitCLI(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errs)
			}
			if code == exitUsage && (out != "" || strings.Count(errs, "ctxtrim: ") != 1 || strings.Count(errs, "\n") != 1) {
				t.Errorf("a usage error prints one line on stderr and nothing on stdout; stdout %q, stderr %q", out, errs)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%.2000s", w, out)
				}
			}
			if strings.HasPrefix(tc.name, "ignored files left out") && strings.Contains(out, "gen/out.go") {
				t.Errorf("stdout holds the ignored gen/out.go")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if tc.partsJSONL > 0 {
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if len(lines) < tc.partsJSONL {
					t.Errorf("%d JSONL lines, want at least %d", len(lines), tc.partsJSONL)
				}
				for i, l := range lines {
					var v map[string]any
					if err := json.Unmarshal([]byte(l), &v); err != nil {
						t.Errorf("line %d is not JSON: %v", i+1, err)
					}
				}
			}
		})
	}
}

// TestSplitCLIOutDir: -out writes one file per part, the reduce part and a
// manifest, removes stale parts of an earlier run, and every part applies
// with git apply --check.
func TestSplitCLIOutDir(t *testing.T) {
	repo := splitRepo(t, false)
	out := filepath.Join(t.TempDir(), "parts")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "part-099.txt"), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := runSplitCLI(t, "", "-budget", "300", "-staged", "-C", repo, "-out", out, "-reduce")
	if code != exitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, errs)
	}
	var m struct {
		Parts []struct {
			Part   int
			Tokens int
		}
		Reduce *struct{ Part int }
	}
	data, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(out, "part-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Parts) < 2 || m.Reduce == nil || len(names) != len(m.Parts)+1 {
		t.Fatalf("%d parts in the manifest (reduce %v), files %v", len(m.Parts), m.Reduce, names)
	}
	if _, err := os.Stat(filepath.Join(out, "part-099.txt")); err == nil {
		t.Errorf("stale part-099.txt was not removed")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: parts not checked with git apply")
	}
	// The old tree: the archive's first copy of each file.
	old := t.TempDir()
	seen := map[string]bool{}
	for _, f := range txtartest.Load(t, filepath.Join("testdata", "split", "repo.txtar")).Files {
		if !seen[f.Name] {
			seen[f.Name] = true
			p := filepath.Join(old, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range names[:len(names)-1] {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		_, payload, _ := strings.Cut(string(text), "]\n") // after "[part i of n]"
		cmd := exec.Command("git", "apply", "--check", "--unidiff-zero", "-")
		cmd.Dir = old
		cmd.Stdin = strings.NewReader(payload)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s does not apply to HEAD: %v\n%s\n%s", filepath.Base(name), err, msg, payload)
		}
	}
}

// TestSplitRequestModelFromConfig: request bodies carry the model set in
// .ctxtrim.toml when -model is not given, and -model when it is.
func TestSplitRequestModelFromConfig(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"config", nil, "gpt-4.1"},
		{"flag beats config", []string{"-model", "gpt-4o"}, "gpt-4o"},
	}
	for _, api := range []string{"openai", "anthropic"} {
		for _, tc := range tests {
			t.Run(api+"/"+tc.name, func(t *testing.T) {
				writeConfigs(t, "", `model = "gpt-4.1"`)
				args := append([]string{"-budget", "2000", "-request", api}, tc.args...)
				code, out, stderr := runSplitCLI(t, "some text to review\n", args...)
				if code != exitOK {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				var body struct {
					Model string `json:"model"`
				}
				if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &body); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if body.Model != tc.want {
					t.Errorf("model %q, want %q", body.Model, tc.want)
				}
			})
		}
	}
}

// TestSplitFilesIndexIgnoreRules checks that -files leaves out what the
// index leaves out: here an untracked file that .git/info/exclude ignores
// and a tracked one that .ctxtrimignore hides, beside gen/ of .gitignore;
// -no-ignore keeps all three.
func TestSplitFilesIndexIgnoreRules(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	dir := splitRepo(t, true)
	for name, content := range map[string]string{
		".git/info/exclude":  "scratch.go\n",
		".ctxtrimignore":     "pkg/api/api_test.go\n",
		"pkg/api/scratch.go": "package api\n\nfunc Scratch() {}\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all := []string{"pkg/api/api.go", "pkg/store/store.go", "gen/out.go", "pkg/api/api_test.go", "pkg/api/scratch.go"}
	tests := []struct {
		name       string
		args       []string
		wantIn     []string
		wantStderr string
	}{
		{"ignored by every rule", nil, all[:2],
			"ctxtrim: left out 3 files that ignore rules exclude (-no-ignore keeps them)\n"},
		{"no-ignore", []string{"-no-ignore"}, all, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-budget", "100000", "-files", "**/*.go", "-C", dir}, tc.args...)
			code, out, errs := runSplitCLI(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, errs)
			}
			if errs != tc.wantStderr {
				t.Errorf("stderr = %q, want %q", errs, tc.wantStderr)
			}
			for _, p := range all {
				want := false
				for _, w := range tc.wantIn {
					want = want || w == p
				}
				if got := strings.Contains(out, "==> "+p+" <=="); got != want {
					t.Errorf("%s in stdout: %v, want %v", p, got, want)
				}
			}
		})
	}
}
