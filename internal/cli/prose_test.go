package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/txtartest"
)

// TestTaskIsProse: select reads flags only before the first task word;
// from there on every word is the task's, words that look like flags
// included, and "--" before the task ends the flags.
func TestTaskIsProse(t *testing.T) {
	type parsed struct {
		Task    string
		Budget  int
		Verbose bool
		Format  string
		Explain string
		Tail    string // trailingFlags: the note select prints
	}
	tests := []struct {
		name string
		args []string
		want parsed
	}{
		{"a flag the task names",
			[]string{"--budget", "4000", "fix", "the", "-v", "flag"},
			parsed{Task: "fix the -v flag", Budget: 4000, Format: "markdown"}},
		{"a flag select lacks",
			[]string{"--budget", "4000", "rg", "ignores", "-u", "flag"},
			parsed{Task: "rg ignores -u flag", Budget: 4000, Format: "markdown"}},
		{"flags before the task are read",
			[]string{"-v", "-budget=800", "--format", "xml", "retry", "the", "body"},
			parsed{Task: "retry the body", Budget: 800, Verbose: true, Format: "xml"}},
		{"-- before a task that starts with a dash",
			[]string{"-budget", "4000", "--", "-u", "is", "ignored"},
			parsed{Task: "-u is ignored", Budget: 4000, Format: "markdown"}},
		{"-- inside the task is the task's",
			[]string{"-budget", "4000", "pass", "--", "to", "git"},
			parsed{Task: "pass -- to git", Budget: 4000, Format: "markdown"}},
		{"a task word that looks like a flag value",
			[]string{"-budget", "4000", "-format", "json", "json", "output", "-format", "xml", "breaks"},
			parsed{Task: "json output -format xml breaks", Budget: 4000, Format: "json"}},
		{"a number after a bool flag is the task's",
			[]string{"-v", "4000", "tokens", "over"},
			parsed{Task: "4000 tokens over", Verbose: true, Format: "markdown"}},
		{"a bool flag takes no value: -explain json is the task json",
			[]string{"-explain", "json", "schema"},
			parsed{Task: "json schema", Format: "markdown", Explain: "text"}},
		{"flags after the task are the task's, and noted",
			[]string{"fix retry", "-budget", "800", "-v"},
			parsed{Task: "fix retry -budget 800 -v", Format: "markdown", Tail: "-budget 800 -v"}},
		{"a task ending with a flag it names is noted too",
			[]string{"-budget", "4000", "fix", "handling", "of", "-v"},
			parsed{Task: "fix handling of -v", Budget: 4000, Format: "markdown", Tail: "-v"}},
		{"one quoted argument is never noted",
			[]string{"fix retry -budget 800"},
			parsed{Task: "fix retry -budget 800", Format: "markdown"}},
		{"a lone dash is the task from stdin",
			[]string{"-budget", "4000", "-"},
			parsed{Task: "-", Budget: 4000, Format: "markdown"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var o selectOptions
			fs := o.flagSet()
			e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
			words, err := parseTaskFlags(e, fs, tc.args, selectSynopsis, selectHelp)
			if err != nil {
				t.Fatal(err)
			}
			got := parsed{
				Task: strings.Join(words, " "), Budget: o.bf.budget.v, Verbose: o.verbose,
				Format: o.format, Explain: o.explain.mode, Tail: trailingFlags(fs, words),
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

// proseRepo is a repository whose words the tasks name.
const proseRepo = `
-- flag/flag.go --
package flag

// Verbose is the -v flag; Unrestricted the -u flag, which ignores
// ignore files.
var Verbose, Unrestricted bool
`

// TestTaskIsProseRun runs the two commands whole: the first no
// longer turns -v on (no progress lines on stderr) and the second is not
// a usage error; both prompts hold the task as typed.
func TestTaskIsProseRun(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := txtartest.Repo(t, txtar.Parse([]byte(proseRepo)))
	for _, words := range [][]string{{"fix", "the", "-v", "flag"}, {"rg", "ignores", "-u", "flag"}} {
		args := append([]string{"-C", dir, "--budget", "4000"}, words...)
		stdout, stderr, code := runBuf(t, "", args...)
		task := strings.Join(words, " ")
		if code != exitOK || !strings.Contains(stdout, "# Task\n\n"+task+"\n") {
			t.Errorf("%q: exit %d, stderr %q; want exit 0 and the task %q in the prompt:\n%s", args, code, stderr, task, stdout)
		}
		if stderr != "" {
			t.Errorf("%q: stderr %q; want none (no -v, no note)", args, stderr)
		}
	}
	_, stderr, code := runBuf(t, "", "-C", dir, "--budget", "4000", "-u", "is", "ignored")
	if want := "a task that starts with a dash goes after --"; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("a task starting with a dash, without --: exit %d, stderr %q; want exit %d and %q", code, stderr, exitUsage, want)
	}
	_, stderr, _ = runBuf(t, "", "-C", dir, "--budget", "4000", "retry", "-budget", "800")
	if want := `ctxtrim: the task ends with "-budget 800", read as words of the task`; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q; want the note %q", stderr, want)
	}
}

// TestSelectMaxFileSize: select takes -max-file-size as index does, and
// the note about a file left out for its size points at it (issue 61
// item 17: it pointed at an option select lacked).
func TestSelectMaxFileSize(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	txtartest.Git(t, dir, "init", "-q")
	big := "def retry_request():\n    pass\n" + strings.Repeat("# filler line of text\n", 60000) // 1.3 MB
	if err := os.WriteFile(filepath.Join(dir, "retry.py"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	txtartest.Git(t, dir, "add", "-A")
	txtartest.Git(t, dir, "commit", "-q", "-m", "big")
	stdout, stderr, code := runBuf(t, "", "-C", dir, "-budget", "2000", "-format", "paths", "fix retry_request")
	if code != exitOK || stdout != "" || !strings.Contains(stderr, "raise it with -max-file-size BYTES") {
		t.Errorf("default limit: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = runBuf(t, "", "-C", dir, "-budget", "2000", "-format", "paths", "-max-file-size", "4000000", "fix retry_request")
	if code != exitOK || !strings.HasPrefix(stdout, "retry.py\t") {
		t.Errorf("-max-file-size 4000000: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}

// TestSelectWindowIsALimit: a model's window is a limit, not a target: a
// selection with -model spends at most selectCap of it, while -budget is
// an exact cap whatever its size (issue 63); so with --for codex, where
// -budget caps what Codex leaves.
func TestSelectWindowIsALimit(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	txtartest.Git(t, dir, "init", "-q")
	// Sixty files of about 1,500 tokens each hold the task's words: far
	// more than selectCap, far less than gpt-5's window.
	for i := range 60 {
		body := fmt.Sprintf("package retry\n\n// Retry%d retries the request body.\nfunc Retry%d() {\n%s}\n", i, i, strings.Repeat("\t// retry the request body again and again\n", 150))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("retry%02d.go", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	txtartest.Git(t, dir, "add", "-A")
	txtartest.Git(t, dir, "commit", "-q", "-m", "retries")
	count := func(s string) int {
		c, err := budget.NewEncodingCounter(budget.O200kBase)
		if err != nil {
			t.Fatal(err)
		}
		return c.Count(s)
	}
	codexHome(t, "model = \"gpt-5.5\"\n")
	t.Chdir(dir) // where codex exec would run
	for _, tc := range []struct {
		name     string
		args     []string
		min, max int
		explain  string
	}{
		// Without -budget, a window and what Codex leaves are limits.
		{"-model", []string{"-model", "gpt-5", "-explain"}, selectCap / 2, selectCap,
			fmt.Sprintf("selection budget %d: a window is a limit", selectCap)},
		{"--for codex", []string{"--for", "codex", "-explain"}, selectCap / 2, selectCap,
			fmt.Sprintf("selection budget %d: a window is a limit", selectCap)},
		{"json", []string{"-model", "gpt-5", "-explain=json"}, selectCap / 2, selectCap,
			fmt.Sprintf(`"budget_from": "selection cap %d: a window is a limit, not a target"`, selectCap)},
		// -budget is an exact cap whatever its size, and spent.
		{"-budget", []string{"-model", "gpt-5", "-budget", "60000", "-explain=json"}, selectCap + 1, 60000, `"budget_from": "-budget"`},
		{"--for codex -budget", []string{"--for", "codex", "-budget", "60000", "-explain=json"}, selectCap + 1, 60000, `"budget_from": "-budget"`},
		// A -budget over what Codex leaves does not set the budget.
		{"--for codex -budget over the room", []string{"--for", "codex", "-budget", "9000000", "-explain=json"}, selectCap + 1, 300000, `"budget_from": "for codex: what Codex leaves"`},
		{"--for codex -budget small", []string{"--for", "codex", "-budget", "9000", "-explain"}, 4500, 9000,
			"selection budget 9000: -budget caps what Codex leaves"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runBuf(t, "", append(append([]string{"-C", dir}, tc.args...), "retry the request body")...)
			if n := count(stdout); code != exitOK || n < tc.min || n > tc.max {
				t.Errorf("exit %d, %d tokens; want %d to %d; stderr:\n%.400s", code, n, tc.min, tc.max, stderr)
			}
			if !strings.Contains(stderr, tc.explain) {
				t.Errorf("-explain does not say %q:\n%.600s", tc.explain, stderr)
			}
		})
	}
}
