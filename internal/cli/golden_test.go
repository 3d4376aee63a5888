package cli

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
)

var update = flag.Bool("update", false, "rewrite testdata/cli.golden")

// cliCase is one invocation of the CLI. In args and stdin, $TESTDATA is
// this package's testdata directory and $REPO a small repository.
type cliCase struct {
	name  string
	args  []string
	stdin string // a file under $TESTDATA, or "" for none
}

// cliCases pin what users see: every command's help (its flags), results,
// diagnostics and exit codes, across commands.
func cliCases() []cliCase {
	cs := []cliCase{
		{name: "help", args: []string{"help"}},
		{name: "typo", args: []string{"histroy"}},
		{name: "help unknown", args: []string{"help", "nosuch"}},
	}
	for _, c := range commandNames() {
		cs = append(cs,
			cliCase{name: "help " + c, args: []string{"help", c}},
			cliCase{name: c + " unknown flag", args: []string{c, "-nope"}})
	}
	return append(cs, []cliCase{
		{name: "models", args: []string{"models"}},
		{name: "models one", args: []string{"models", "claude-sonnet-4-5-20250929"}},
		{name: "models fine-tune", args: []string{"models", "ft:gpt-4o-2024-08-06:acme::abc123"}},
		{name: "models unknown", args: []string{"models", "gpt-9"}},
		{name: "count files", args: []string{"count", "$TESTDATA/count/english.txt", "$TESTDATA/count/chinese.txt"}},
		{name: "count stdin estimate", args: []string{"count", "-model", "claude-sonnet-4-5"}, stdin: "count/code.go.txt"},
		{name: "count json", args: []string{"count", "-json", "-encoding", "cl100k_base", "$TESTDATA/count/english.txt"}},
		{name: "count chat", args: []string{"count", "-chat"}, stdin: "tau.json"},
		{name: "count missing and binary", args: []string{"count", "nope.txt", "$TESTDATA/cli/binary.dat", "$TESTDATA/count/special.txt"}},
		{name: "fit trimmed", args: []string{"fit", "-budget", "70"}, stdin: "count/code.go.txt"},
		{name: "fit unchanged", args: []string{"fit", "-model", "gpt-4o"}, stdin: "count/english.txt"},
		{name: "fit below the marker", args: []string{"fit", "-budget", "8"}, stdin: "count/code.go.txt"},
		{name: "fit no budget", args: []string{"fit"}, stdin: "count/code.go.txt"},
		{name: "fit from error", args: []string{"fit", "-from-error", "This model's maximum context length is 400 tokens. However, you requested 900 tokens (800 in the messages, 100 in the completion).", "-q"}, stdin: "count/mixed.txt"},
		{name: "fit budget and reserve", args: []string{"fit", "-budget", "100", "-reserve", "10"}, stdin: "count/code.go.txt"},
		{name: "fit unknown model", args: []string{"fit", "-model", "gpt-9"}, stdin: "count/code.go.txt"},
		{name: "history pruned", args: []string{"history", "-encoding", "o200k_base", "-budget", "6000", "-explain", "$TESTDATA/tau.json"}},
		{name: "history dry run", args: []string{"history", "-encoding", "o200k_base", "-budget", "4000", "-dry-run"}, stdin: "tau.json"},
		{name: "history no fit", args: []string{"history", "-encoding", "o200k_base", "-budget", "1000", "$TESTDATA/tau.json"}},
		{name: "history bad input", args: []string{"history", "-budget", "100"}, stdin: "count/english.txt"},
		{name: "history named format the body is not", args: []string{"history", "-format", "anthropic", "-budget", "3000", "$TESTDATA/tau.json"}},
		{name: "split diff", args: []string{"split", "-budget", "120", "-v"}, stdin: "cli/change.diff"},
		{name: "split openai", args: []string{"split", "-budget", "150", "-request", "openai", "-model", "gpt-4o", "-max-tokens", "500"}, stdin: "cli/change.diff"},
		{name: "split anthropic", args: []string{"split", "-budget", "150", "-request", "anthropic", "-model", "claude-sonnet-4-5"}, stdin: "cli/change.diff"},
		{name: "split conflicting sources", args: []string{"split", "-staged", "-files", "*.go"}},
		{name: "split staged", args: []string{"split", "-C", "$REPO", "-staged", "-budget", "1000"}},
		{name: "split staged alias", args: []string{"split", "-repo", "$REPO", "-staged-diff", "-budget", "1000"}},
		{name: "select paths", args: []string{"-C", "$REPO", "-budget", "2000", "-format", "paths", "retry on 503 loses the request body"}},
		{name: "select markdown", args: []string{"select", "-repo", "$REPO", "-budget", "400", "retry", "Do"}},
		{name: "select binary task", args: []string{"-C", "$REPO", "-budget", "2000"}, stdin: "cli/binary.dat"},
		{name: "select task too large", args: []string{"-C", "$REPO", "-budget", "20", strings.Repeat("retry the request body ", 10)}},
		{name: "index", args: []string{"index", "-C", "$REPO", "-explain"}},
		{name: "check", args: []string{"check", "-C", "$REPO"}},
		{name: "check json", args: []string{"check", "-repo", "$REPO", "-json"}},
		{name: "check staged", args: []string{"check", "-C", "$REPO", "-staged", "-budget", "1000"}},
		{name: "check staged alias", args: []string{"check", "-C", "$REPO", "-staged-diff", "-budget", "50", "-max-parts", "1"}},
	}...)
}

// cliRepo is the repository the cases run in: committed files, a staged
// change and an AGENTS.md.
const cliRepo = `
staged retry/retry.go
-- retry/retry.go --
package retry

// Do retries the request on 503 and rewinds its body.
func Do() error { return nil }
-- retry/retry.go --
package retry

// Do retries the request on 503 and rewinds its body.
func Do() error { return retryBody() }
-- cache/cache.go --
package cache

// Cache keeps values.
type Cache struct{}
-- AGENTS.md --
# Rules
Run go test before you commit.
`

// TestCLIGolden runs cliCases and compares exit codes, stdout and stderr
// with testdata/cli.golden (go test -run TestCLIGolden -update rewrites
// it). Outputs over 4 KB are pinned by size and SHA-256; elapsed times,
// hashes of the test repository and its paths are normalised.
func TestCLIGolden(t *testing.T) {
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	tau, err := filepath.Abs(tauBench)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ar := txtar.Parse([]byte(cliRepo))
	repo := txtartest.Repo(t, ar)
	work := isolateConfig(t)

	var got txtar.Archive
	for _, tc := range cliCases() {
		expand := func(s string) string {
			s = strings.ReplaceAll(s, "$TESTDATA/tau.json", tau)
			return strings.ReplaceAll(strings.ReplaceAll(s, "$TESTDATA", testdata), "$REPO", repo)
		}
		args := make([]string, len(tc.args))
		for i, a := range tc.args {
			args[i] = expand(a)
		}
		stdin := ""
		if tc.stdin != "" {
			p := filepath.Join(testdata, tc.stdin)
			if tc.stdin == "tau.json" {
				p = tau
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			stdin = string(b)
		}
		stdout, stderr, code := runBuf(t, stdin, args...)
		norm := func(s string) string {
			for _, r := range []struct{ from, to string }{{repo, "$REPO"}, {testdata, "$TESTDATA"}, {tau, "$TAU"}, {work, "$WORK"}} {
				s = strings.ReplaceAll(s, r.from, r.to)
			}
			s = regexp.MustCompile(`(elapsed:\s+|"elapsed": ")[0-9.]+(µs|ms|s)`).ReplaceAllString(s, "${1}ELAPSED")
			s = regexp.MustCompile(`\b[0-9a-f]{40}\b`).ReplaceAllString(s, "HASH")
			if len(s) > 8192 { // the model list (4.7 KB) stays readable
				s = fmt.Sprintf("(%d bytes, sha256 %x)\n", len(s), sha256.Sum256([]byte(s)))
			}
			return s
		}
		var b strings.Builder
		fmt.Fprintf(&b, "$ ctxtrim %s", strings.Join(tc.args, " "))
		if tc.stdin != "" {
			fmt.Fprintf(&b, " < %s", tc.stdin)
		}
		fmt.Fprintf(&b, "\nexit %d\n[stdout]\n%s[stderr]\n%s", code, norm(stdout), norm(stderr))
		got.Files = append(got.Files, txtar.File{Name: tc.name, Data: []byte(b.String())})
	}
	golden := filepath.Join(testdata, "cli.golden")
	if *update {
		if err := os.WriteFile(golden, txtar.Format(&got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestCLIGolden -update)", err)
	}
	want := txtar.Parse(data)
	wantBy := map[string]string{}
	for _, f := range want.Files {
		wantBy[f.Name] = string(f.Data)
	}
	for _, f := range got.Files {
		if d := cmp.Diff(wantBy[f.Name], string(f.Data)); d != "" {
			t.Errorf("%s (-golden +got):\n%s", f.Name, d)
		}
		delete(wantBy, f.Name)
	}
	for name := range wantBy {
		t.Errorf("%s: in the golden file, not run", name)
	}
}
