package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ctxtrim/ctxtrim/internal/check"
	"github.com/ctxtrim/ctxtrim/internal/txtartest"
)

// checkTree makes a committed repository of files (slash paths →
// content) and returns its root.
func checkTree(t *testing.T, files map[string]string) string {
	t.Helper()
	var ar txtar.Archive
	for p, c := range files {
		ar.Files = append(ar.Files, txtar.File{Name: p, Data: []byte(c)})
	}
	return txtartest.Repo(t, &ar)
}

// TestRunCheck drives the command as the CLI does, with the real counter.
func TestRunCheck(t *testing.T) {
	root := checkTree(t, map[string]string{
		"AGENTS.md":     "# Rules\nRun go test.\n",
		"svc/AGENTS.md": strings.Repeat("Keep handlers small.\n", 2000), // 42,000 bytes
		"CLAUDE.md":     "See AGENTS.md.\n",
		".ctxtrim.toml": "[check]\nreview_budget = 5000\n",
	})
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    []string
		wantStderr string
	}{
		{"over", []string{"-C", root}, exitNoFit,
			[]string{"over: svc/AGENTS.md: chain is 42021 bytes > 32768", "chain 42021/32768 bytes", "cuts the last 9253 bytes of svc/AGENTS.md"},
			"ctxtrim: 1 of 3 prompt files over budget\n"},
		{"filter to a fitting file", []string{"-C", root, filepath.Join(root, "CLAUDE.md")}, exitOK,
			[]string{"CLAUDE.md", "40000 chars"}, ""},
		{"config raises the limit", []string{"-C", root, "-config", checkWriteFile(t, "[check]\nproject_doc_max_bytes = 65536\n")}, exitOK,
			[]string{"chain 42021/65536 bytes"}, ""},
		{"unknown config key", []string{"-C", root, "-config", checkWriteFile(t, "[check]\nproject_doc_max_byte = 1\n")}, exitUsage,
			nil, "unknown key \"check.project_doc_max_byte\""},
		{"diff flags need -staged", []string{"-budget", "10"}, exitUsage, nil, "need -staged"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run(append([]string{"check"}, tc.args...), strings.NewReader(""), &out, &errb)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.wantCode, errb.String())
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			if !strings.Contains(errb.String(), tc.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", errb.String(), tc.wantStderr)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		var out, errb bytes.Buffer
		Run([]string{"check", "-C", root, "-json"}, strings.NewReader(""), &out, &errb)
		var rep check.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
		}
		if len(rep.Results) != 3 || rep.Over() != 1 {
			t.Errorf("results = %+v, want 3 with 1 over", rep.Results)
		}
	})
}

func TestRunCheckStagedDiff(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	git := func(args ...string) { txtartest.Git(t, root, args...) }
	git("init", "-q")
	for i, n := range []int{3000, 3000, 3000} {
		p := filepath.Join(root, "f"+string(rune('a'+i))+".txt")
		if err := os.WriteFile(p, []byte(strings.Repeat("line of text number\n", n/4)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", ".")
	var out, errb bytes.Buffer
	code := Run([]string{"check", "-C", root, "-staged-diff", "-budget", "1000", "-max-parts", "2"}, strings.NewReader(""), &out, &errb)
	if code != exitNoFit || !strings.Contains(out.String(), "needs splitting") || !strings.Contains(errb.String(), "more than -max-parts 2") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code = Run([]string{"check", "-C", root, "-staged-diff", "-budget", "100000"}, strings.NewReader(""), &out, &errb)
	if code != exitOK || !strings.Contains(out.String(), "fits one review request") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
}

func checkWriteFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckDirectoryArgument: a directory argument stands for the files
// under it that the rules cover; "check prompts" said "no prompt files
// found", exit 0, while prompts/big.md was over its 8,192 tokens.
func TestCheckDirectoryArgument(t *testing.T) {
	isolateConfig(t)
	root := checkTree(t, map[string]string{
		"AGENTS.md":         "# Rules\n",
		"prompts/big.md":    strings.Repeat("review the change carefully ", 2500), // ~10,000 tokens
		"prompts/ok.md":     "Summarize the diff.\n",
		"prompts/sub/s.md":  "Short.\n",
		"docs/readme.md":    "Docs.\n",
		"promptsextra/x.md": strings.Repeat("x ", 10),
	})
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		want    []string
		notWant []string
	}{
		{"the directory", []string{"-C", root, "prompts"}, exitNoFit, []string{"prompts/big.md", "prompts/ok.md", "prompts/sub/s.md"}, []string{"AGENTS.md", "promptsextra"}},
		{"with a final slash", []string{"-C", root, "prompts/"}, exitNoFit, []string{"prompts/big.md"}, []string{"AGENTS.md"}},
		{"a subdirectory", []string{"-C", root, "prompts/sub"}, exitOK, []string{"prompts/sub/s.md"}, []string{"prompts/big.md"}},
		{"the root", []string{"-C", root, "."}, exitNoFit, []string{"AGENTS.md", "prompts/big.md"}, nil},
		{"a directory no rule covers", []string{"-C", root, "docs"}, exitOK, []string{"no prompt files found"}, []string{"prompts/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runBuf(t, "", append([]string{"check"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(stdout, w) {
					t.Errorf("stdout holds %q:\n%s", w, stdout)
				}
			}
		})
	}
}
