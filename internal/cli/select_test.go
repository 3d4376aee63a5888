package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/internal/nonroot"
	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"golang.org/x/tools/txtar"
)

const selectRepo = `
-- retry/retry.go --
package retry

// Do retries the request on 503 and rewinds its body.
func Do() error { return nil }
-- cache/cache.go --
package cache

// Cache keeps values.
type Cache struct{}
-- deploy/.env --
TOKEN=abc123secret9
`

func TestSelectCLI(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the index cache stays in the test
	dir := txtartest.Repo(t, txtar.Parse([]byte(selectRepo)))
	tests := []struct {
		name       string
		args       []string
		stdin      string
		code       int
		stdout     []string // substrings of stdout
		notStdout  []string
		stderr     []string // substrings of stderr
		notStderr  []string
		exactPaths string // when set, stdout must equal it
	}{
		{
			name:       "default command reads stdin, paths format",
			args:       []string{"--repo", dir, "--budget", "2000", "--format", "paths"},
			stdin:      "retry on 503 loses the request body",
			code:       exitOK,
			exactPaths: "retry/retry.go\t1-4\n",
			notStderr:  []string{"matches no file", "the task alone"},
		},
		{
			name:   "select subcommand, task as arguments, markdown",
			args:   []string{"select", "-repo", dir, "-budget", "2000", "retry", "on", "503"},
			code:   exitOK,
			stdout: []string{"# Task\n\nretry on 503", "## retry/retry.go", "func Do() error"},
		},
		{
			name:      "redaction reported on stderr",
			args:      []string{"--repo", dir, "--budget", "2000", "deploy/.env TOKEN is wrong"},
			code:      exitOK,
			stdout:    []string{"[REDACTED:env-value]"},
			notStdout: []string{"abc123secret9"},
			stderr:    []string{"redacted 1 secret(s): deploy/.env:1 (env-value)"},
		},
		{
			name:   "no-redact",
			args:   []string{"--repo", dir, "--budget", "2000", "--no-redact", "deploy/.env TOKEN is wrong"},
			code:   exitOK,
			stdout: []string{"abc123secret9"},
		},
		{
			name:   "explain on stderr",
			args:   []string{"--repo", dir, "--budget", "2000", "--explain", "--format", "paths", "retry body"},
			code:   exitOK,
			stderr: []string{"budget 2000: task", "retry/retry.go"},
		},
		{
			name:   "task alone over budget",
			args:   []string{"--repo", dir, "--budget", "30", strings.Repeat("retry the request body ", 20)},
			code:   exitNoFit,
			stderr: []string{"ctxtrim split"},
		},
		{
			name:       "exclude wins over the task's naming",
			args:       []string{"--repo", dir, "--budget", "2000", "--format", "paths", "-exclude", "retry/", "-exclude", "*.env"},
			stdin:      "retry/retry.go: Do loses the Cache",
			code:       exitOK,
			exactPaths: "cache/cache.go\t1-4\n",
		},
		{
			name:       "include scopes the prompt",
			args:       []string{"--repo", dir, "--budget", "2000", "--format", "paths", "-include", "/cache"},
			stdin:      "retry on 503 loses the request body in the cache",
			code:       exitOK,
			exactPaths: "cache/cache.go\t1-4\n",
		},
		{
			name:       "an include that matches no file is named",
			args:       []string{"--repo", dir, "--budget", "2000", "--format", "paths", "-include", "retyr/", "-include", "/cache"},
			stdin:      "retry on 503 loses the request body in the cache",
			code:       exitOK,
			exactPaths: "cache/cache.go\t1-4\n",
			stderr:     []string{`ctxtrim: -include "retyr/" matches no file of ` + dir + "\n"},
			notStderr:  []string{"/cache", "the task alone"},
		},
		{
			name:   "a scope that holds no file says so",
			args:   []string{"--repo", dir, "--budget", "2000", "-include", "retyr/"},
			stdin:  "retry on 503 loses the request body",
			code:   exitOK,
			stdout: []string{"selected by ctxtrim for the task above: no file is in the scope of the include and exclude patterns."},
			stderr: []string{`-include "retyr/" matches no file`, ": no file is in the scope of the include and exclude patterns: the prompt is the task alone"},
		},
		{
			// Nothing of the task is in the repository, whose files do
			// not refer to each other either: an outline of them, and a
			// note on stderr saying how to get code.
			name:      "a task that reaches no file gets an outline",
			args:      []string{"--repo", dir, "--budget", "2000"},
			stdin:     "请修复它",
			code:      exitOK,
			stdout:    []string{"so this is an outline of it instead: the signatures of its 2 most central files", "retry/retry.go:\n  func Do() error", "cache/cache.go:"},
			notStdout: []string{"```go", "## retry/retry.go:"},
			stderr:    []string{"ctxtrim: " + dir + ": no word of the task is in the repository: the prompt outlines it (the signatures of 2 files); name a file"},
			notStderr: []string{"the task alone"},
		},
		{
			name:   "bad pattern",
			args:   []string{"--repo", dir, "--budget", "2000", "-include", "*.go", "-exclude", "", "x"},
			code:   exitUsage,
			stderr: []string{`-exclude: pattern "": empty; give a gitignore pattern`},
		},
		{
			name:   "unknown format",
			args:   []string{"--repo", dir, "--budget", "2000", "--format", "yaml", "x"},
			code:   exitUsage,
			stderr: []string{`unknown format "yaml"`},
		},
		{
			name:   "empty task",
			args:   []string{"--repo", dir, "--budget", "2000"},
			stdin:  "  \n",
			code:   exitBadInput,
			stderr: []string{"the task on (stdin): input is only white space"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			if tc.exactPaths != "" && stdout.String() != tc.exactPaths {
				t.Errorf("stdout = %q, want %q", stdout.String(), tc.exactPaths)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			for _, s := range tc.notStdout {
				if strings.Contains(stdout.String(), s) {
					t.Errorf("stdout has %q", s)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
			for _, s := range tc.notStderr {
				if strings.Contains(stderr.String(), s) {
					t.Errorf("stderr has %q:\n%s", s, stderr.String())
				}
			}
		})
	}
}

// TestSelectEmptyRepository: a repository with no file to select from
// (an empty work tree, the wrong directory, every file left out) gives
// the task alone, exit 0 for the pipe, and says so on stderr, with how
// many files were left out and how to list them.
func TestSelectEmptyRepository(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	txtartest.Git(t, dir, "init", "-q")
	stdout, stderr, code := runBuf(t, "", "-C", dir, "-budget", "1000", "retry", "the", "request")
	if code != exitOK || !strings.Contains(stdout, "the repository holds no file to select from.") {
		t.Fatalf("exit %d, stdout %q; want the task alone, saying why", code, stdout)
	}
	want := "ctxtrim: " + dir + ": the repository holds no file to select from: the prompt is the task alone\n"
	if stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "blob.bin"), []byte("a\x00b"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, _ = runBuf(t, "", "-C", dir, "-budget", "1000", "retry")
	if !strings.Contains(stderr, "holds no file to select from (1 left out: binary 1; -v lists them)") {
		t.Errorf("stderr %q does not say a file was left out", stderr)
	}
}

func TestSelectCLIExplainJSON(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := txtartest.Repo(t, txtar.Parse([]byte(selectRepo)))
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"--repo", dir, "--budget", "2000", "--explain=json", "retry"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got struct {
		Tokens    int
		Breakdown struct{ Budget, Task int }
		Files     []struct {
			Path    string
			Signals struct{ Score float64 }
		}
	}
	if err := json.Unmarshal(stderr.Bytes()[bytes.IndexByte(stderr.Bytes(), '{'):], &got); err != nil {
		t.Fatalf("explain JSON: %v\n%s", err, stderr.String())
	}
	if got.Breakdown.Budget != 2000 || got.Tokens > 2000 || len(got.Files) == 0 || got.Files[0].Path != "retry/retry.go" || got.Files[0].Signals.Score <= 0 {
		t.Errorf("explain JSON = %+v", got)
	}
	// What the warnings say on stderr, the report carries for tools.
	for _, tc := range []struct {
		include   []string
		nothing   string
		unmatched []string
	}{
		{[]string{"retyr/", "retry/"}, "", []string{"retyr/"}},
		{[]string{"retyr/"}, "no file is in the scope of the include and exclude patterns", []string{"retyr/"}},
		{[]string{"retry/"}, "", nil},
	} {
		args := []string{"--repo", dir, "--budget", "2000", "--explain=json"}
		for _, p := range tc.include {
			args = append(args, "-include", p)
		}
		stderr.Reset()
		if code := Run(append(args, "retry"), nil, &stdout, &stderr); code != exitOK {
			t.Fatalf("include %q: exit %d: %s", tc.include, code, stderr.String())
		}
		var rep struct {
			Nothing   string
			Unmatched []string `json:"unmatched_include"`
		}
		if err := json.Unmarshal(stderr.Bytes()[bytes.IndexByte(stderr.Bytes(), '{'):], &rep); err != nil {
			t.Fatalf("include %q: explain JSON: %v\n%s", tc.include, err, stderr.String())
		}
		if rep.Nothing != tc.nothing || !slices.Equal(rep.Unmatched, tc.unmatched) {
			t.Errorf("include %q: nothing %q, unmatched_include %q; want %q, %q", tc.include, rep.Nothing, rep.Unmatched, tc.nothing, tc.unmatched)
		}
	}
}

// TestSelectCLIExplainFill: the units shown only to fill the best file's
// room are counted in one line of the text explanation, not listed, and
// marked in the JSON one.
func TestSelectCLIExplainFill(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var src strings.Builder
	src.WriteString("-- retry/retry.go --\npackage retry\n\n// Do retries the request on 503 and rewinds its body.\nfunc Do() error { return nil }\n")
	for k := range 60 {
		fmt.Fprintf(&src, "\n// Step%d is step %d.\nfunc Step%d(v int) int {\n\tv += %d\n\treturn v * 2\n}\n", k, k, k, k)
	}
	dir := txtartest.Repo(t, txtar.Parse([]byte(src.String())))
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"--repo", dir, "--budget", "900", "--explain", "retry the request body"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	text := stderr.String()
	for _, want := range []string{"retry/retry.go:\n  block:3-4 (", "that the task does not hit, nearest first"} {
		if !strings.Contains(text, want) {
			t.Errorf("-explain lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "  Step1:") {
		t.Errorf("-explain lists a fill unit:\n%s", text)
	}
	if !strings.Contains(stdout.String(), "func Step0(") {
		t.Errorf("the prompt lacks Step0, the unit next to Do:\n%s", stdout.String())
	}
	stderr.Reset()
	if code := Run([]string{"--repo", dir, "--budget", "900", "--explain=json", "retry the request body"}, nil, io.Discard, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"fill": true`) {
		t.Errorf("-explain=json marks no unit as fill:\n%s", stderr.String())
	}
}

// TestSelectHistoryUnreadable: a repository whose objects cannot be read
// (a git clone --shared whose source store is gone) is selected from
// anyway, without the git signals, saying so on stderr; split -diff of a
// --shared clone whose store is there reads it. Before, both failed with
// "read HEAD commit …: object not found".
func TestSelectHistoryUnreadable(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	src := txtartest.Repo(t, txtar.Parse([]byte("-- retry/retry.go --\npackage retry\n\n// Do retries the request body.\nfunc Do() {}\n")))
	if err := os.WriteFile(filepath.Join(src, "retry", "retry.go"), []byte("package retry\n\n// Do retries the request body twice.\nfunc Do() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	txtartest.Git(t, src, "commit", "-qam", "second")
	clone := filepath.Join(t.TempDir(), "clone")
	txtartest.Git(t, src, "clone", "-q", "--shared", src, clone)

	stdout, stderr, code := runBuf(t, "", "split", "-C", clone, "-diff", "HEAD~1..HEAD", "-budget", "1000")
	if code != exitOK || !strings.Contains(stdout, "+// Do retries the request body twice.") {
		t.Errorf("split -diff of a --shared clone: exit %d, stderr %q", code, stderr)
	}
	if err := os.RemoveAll(filepath.Join(src, ".git", "objects")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runBuf(t, "", "-C", clone, "-budget", "1000", "retry", "the", "request", "body")
	if code != exitOK || !strings.Contains(stdout, "func Do()") {
		t.Fatalf("select: exit %d, stdout %q, stderr %q; want the selection", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "cannot read the repository's history") || !strings.Contains(stderr, "selecting without git signals") {
		t.Errorf("stderr %q does not say the history was left out", stderr)
	}
}

// TestSelectReportsSkipsThatMatter: a file the task points at that cannot
// be read or is not UTF-8 is reported on stderr by default, with what to
// do; another left out is reported only with -v. Before, the unreadable
// best file vanished silently, even with -v, and a Latin-1 file was pasted
// into the prompt, which ctxtrim count then rejected (and --format json
// turned its bytes into U+FFFD).
func TestSelectReportsSkipsThatMatter(t *testing.T) {
	if !nonroot.Here(t) {
		return
	}
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	repo := txtartest.Repo(t, txtar.Parse([]byte("-- retry/retry.go --\npackage retry\n\n// Do retries the request.\nfunc Do() {}\n-- cache/cache.go --\npackage cache\n-- body/body.go --\npackage body\n\n// Body rewinds the request body.\nfunc Body() {}\n")))
	if err := os.WriteFile(filepath.Join(repo, "retry", "latin1.go"), []byte("// Caf\xe9 r\xe9essaie\npackage retry\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"retry/retry.go", "cache/cache.go"} {
		if err := os.Chmod(filepath.Join(repo, p), 0); err != nil {
			t.Fatal(err)
		}
	}
	task := []string{"-C", repo, "-budget", "2000", "-format", "json", "retry", "loses", "the", "request", "body"}
	stdout, stderr, code := runBuf(t, "", task...)
	if code != exitOK {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
	for _, want := range []string{
		"ctxtrim: retry/retry.go: left out: unreadable (",
		"though the task points at it; check its permissions",
		"ctxtrim: retry/latin1.go: left out: not UTF-8 (first bad byte at offset 6; convert the file to UTF-8 (iconv",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	if strings.Contains(stderr, "cache/cache.go") {
		t.Errorf("stderr %q reports a skip the task does not point at", stderr)
	}
	if !json.Valid([]byte(stdout)) || strings.ContainsRune(stdout, '\uFFFD') || !strings.Contains(stdout, "body/body.go") {
		t.Errorf("stdout is not clean JSON holding body/body.go: %q", clipString(stdout))
	}
	// The prompt is ctxtrim's own input: valid UTF-8, counted.
	if _, stderr, code := runBuf(t, stdout, "count"); code != exitOK {
		t.Errorf("ctxtrim count of the prompt: exit %d, %q", code, stderr)
	}
	_, stderr, _ = runBuf(t, "", append([]string{"-v"}, task...)...)
	if !strings.Contains(stderr, "ctxtrim: skipped cache/cache.go: unreadable") {
		t.Errorf("-v stderr %q does not list every skip", stderr)
	}
}

// TestPathMatters: which skipped paths a task points at. A word of the
// file's own name counts; a word of its directories only for code, so
// "fit … to a budget" does not point at budget/tables/*.ranks or a fixture
// under budget/testdata (this repository's README command reported them).
func TestPathMatters(t *testing.T) {
	task := "how does fit cut text to a budget? retry loses the request body"
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"budget/fit.go", true},                    // its name
		{"budget/tables/cl100k_base.ranks", false}, // a directory word, not code
		{"budget/testdata/tokens/invalid.txt", false},
		{"budget/testdata/tokens/invalid.go", false}, // code, but a fixture
		{"retry/latin1.go", true},                    // code in the package the task names
		{"docs/request-body.md", true},               // its name
		{"cache/cache.go", false},
	} {
		if got := pathMatters(tc.path, strings.ToLower(task), pathWords(task)); got != tc.want {
			t.Errorf("pathMatters(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
