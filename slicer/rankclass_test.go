package slicer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/google/go-cmp/cmp"
)

// TestRankSignals holds two ranking rules, each against the file the
// task is about. A Go doc.go without definitions ranks as documentation:
// a package comment repeats the task's words without being what changes.
// A qualified name whose qualifier names nothing in the repository
// ("path.Dir", "res.Body") counts as a plain word: it names the standard
// library's Dir or a local's Body, not the repository's.
func TestRankSignals(t *testing.T) {
	prose := "// Package index encodes and decodes the git index.\n//\n" +
		strings.Repeat("// The decoder reads each entry name; the encoder writes the prefix of each entry name with its length field.\n", 40) +
		"package index\n"
	decoder := "package index\n\n// Decoder reads an index.\ntype Decoder struct{ r io.Reader }\n\n" +
		"// readEntry reads one entry.\nfunc (d *Decoder) readEntry() (string, error) {\n\tn := d.length() // the length field\n\treturn d.name(n)\n}\n"
	options := "package git\n\n// CloneOptions describes a clone.\ntype CloneOptions struct {\n\t// Dir is where to clone.\n\tDir string\n}\n"
	files := map[string]string{
		"plumbing/format/index/doc.go":     prose,
		"plumbing/format/index/decoder.go": decoder,
		"options.go":                       options,
		"x/worktree.go":                    "package worktree\n\n// Worktree is a checkout.\ntype Worktree struct {\n\tpath string\n}\n",
	}
	ix, read := memIndex(t, files)
	cases := []struct {
		task, first, not string
	}{
		{"format/index: the decoder truncates long entry names", "plumbing/format/index/decoder.go", ""},
		{"the index encoder uses a path.Dir heuristic for the entry prefix", "plumbing/format/index/decoder.go", "options.go"},
	}
	for _, tc := range cases {
		rk := rankTask(t, ix, read, tc.task)
		if got := rankedPaths(ix, rk); len(got) == 0 || got[0] != tc.first {
			t.Errorf("%q: ranked %v, want %s first", tc.task, got, tc.first)
		}
		for _, r := range rk {
			if f := ix.Files[r.file].Path; f == tc.not && r.signals.Mention >= weightMention*mentionSymbol/2 {
				t.Errorf("%q: %s has mention %.3f from a foreign qualifier (%v)", tc.task, f, r.signals.Mention, r.signals.Why)
			}
		}
	}
}

// TestMentionLines: only a name written as code points into a file's
// lines (its definition gets the unit bonus); a plain word that happens to
// name a definition ranks the file but points nowhere in it.
func TestMentionLines(t *testing.T) {
	files := map[string]string{
		"build.go": "package b\n\n// Settings hold flags.\ntype Settings struct{ n int }\n\n// build builds.\nfunc build(s Settings) int {\n\treturn s.n\n}\n",
	}
	ix, read := memIndex(t, files)
	for _, tc := range []struct {
		task string
		want []int
	}{
		{"the build settings are wrong", nil},
		{"build() ignores the settings", []int{7}},
	} {
		rk := rankTask(t, ix, read, tc.task)
		if len(rk) != 1 {
			t.Fatalf("%q: ranked %d files, want 1", tc.task, len(rk))
		}
		if diff := cmp.Diff(tc.want, rk[0].lines); diff != "" {
			t.Errorf("%q: lines pointed at (-want +got):\n%s", tc.task, diff)
		}
	}
}

// TestExampleRanksAsTest: a source file under an examples directory ranks
// as a test, below the code it uses, though it repeats the task's words
// more often.
func TestExampleRanksAsTest(t *testing.T) {
	files := map[string]string{
		"lib/response.js":        "// Send a response with an etag.\nexports.send = function(body){\n  this.set('ETag', etag(body));\n  return this.end(body);\n};\n",
		"examples/etag/index.js": "// An etag example: send, etag, etag again.\nvar app = express();\napp.get('/', function(req, res){\n  res.send('etag etag etag');\n  res.set('ETag', 'etag');\n});\n",
	}
	ix, read := memIndex(t, files)
	got := rankedPaths(ix, rankTask(t, ix, read, "res.send sets a weak etag"))
	if len(got) != 2 || got[0] != "lib/response.js" {
		t.Errorf("ranked %v, want lib/response.js first", got)
	}
}

// TestChangelogRanksAsData: a changelog repeats past tasks' words, so it
// ranks below prose that explains the code, by the data factor; a file
// merely named like one in a package (history.go) is source.
func TestChangelogRanksAsData(t *testing.T) {
	files := map[string]string{
		"CHANGES.md":       strings.Repeat("- Fixed the retry backoff so a 503 with Retry-After waits as told.\n", 30),
		"docs/retry.md":    "# Retries\n\nThe client retries a 503 after the backoff, or as Retry-After says.\n",
		"retry.go":         "package client\n\n// backoff is the wait before a retry.\nfunc backoff(n int) int { return n * 2 }\n",
		"history/store.go": "package history\n\n// Store keeps the retry history.\ntype Store struct{ n int }\n",
	}
	ix, read := memIndex(t, files)
	rk := rankTask(t, ix, read, "the retry backoff ignores Retry-After on a 503")
	factor := map[string]float64{}
	place := map[string]int{}
	for k, r := range rk {
		p := ix.Files[r.file].Path
		factor[p], place[p] = r.signals.Class, k
	}
	if got, want := factor["CHANGES.md"], classFactor(index.Data); got != want {
		t.Errorf("CHANGES.md ranks with class factor %v, want the data factor %v", got, want)
	}
	if got := factor["history/store.go"]; got != 1 {
		t.Errorf("history/store.go ranks with class factor %v, want 1 (source)", got)
	}
	if place["CHANGES.md"] < place["docs/retry.md"] {
		t.Errorf("CHANGES.md ranked %d, above docs/retry.md (%d)", place["CHANGES.md"], place["docs/retry.md"])
	}
}

// TestTestRanksBelowSource: a test repeats its subject's words in every
// case, so by words alone it outscores the code a task changes; its class
// factor keeps it below a source that matches the same words once.
func TestTestRanksBelowSource(t *testing.T) {
	files := map[string]string{
		"backoff/wait.go":       "package backoff\n\n// Wait sleeps between attempts, with jitter.\nfunc Wait(n int) int {\n\treturn spread(n)\n}\n\nfunc spread(n int) int { return n }\n",
		"client/client_test.go": "package client\n\n" + strings.Repeat("// TestJitter: the retry jitter between attempts after a 503 is applied.\nfunc TestJitterX(t *testing.T) { get(t) }\n", 6),
		"cmd/main.go":           "package main\n\nfunc main() { run() }\n\nfunc run() {}\n",
	}
	ix, read := memIndex(t, files)
	got := rankedPaths(ix, rankTask(t, ix, read, "jitter is not applied between attempts after a 503"))
	if len(got) < 2 || got[0] != "backoff/wait.go" || got[1] != "client/client_test.go" {
		t.Errorf("ranked %v, want backoff/wait.go, then client/client_test.go", got)
	}
}

// TestCompletionScriptRanksAsDoc: a shell completion script lists every
// option with its prose, so a task about one option matches it more than
// the code that reads the option; it ranks as documentation. One with an
// extension, or code that generates completions, stays source.
func TestCompletionScriptRanksAsDoc(t *testing.T) {
	var opts strings.Builder
	opts.WriteString("#compdef fd\n\n_fd() {\n  _arguments \\\n")
	for _, o := range []string{"hidden", "no-ignore", "follow", "exclude", "max-depth", "type", "extension"} {
		fmt.Fprintf(&opts, "    '--%s[search hidden files, ignore files and follow symlinks when the %s option is set]' \\\n", o, o)
	}
	opts.WriteString("}\n")
	files := map[string]string{
		"contrib/completion/_fd": opts.String(),
		"src/cli.rs":             "pub struct Opts {\n    /// Search hidden files and directories.\n    #[arg(long = \"hidden\")]\n    pub hidden: bool,\n}\n",
	}
	ix, read := memIndex(t, files)
	got := rankedPaths(ix, rankTask(t, ix, read, "the --hidden option does not search hidden files"))
	if len(got) == 0 || got[0] != "src/cli.rs" {
		t.Errorf("ranked %v, want src/cli.rs first", got)
	}
}

// TestPathRankClasses states the path rules that make a source rank as
// another class: examples, demos and samples as tests, completion scripts
// without an extension as documentation.
func TestPathRankClasses(t *testing.T) {
	for _, tc := range []struct {
		rule string
		is   func(string) bool
		path string
		want bool
	}{
		{"example", isExample, "examples/etag/index.js", true},
		{"example", isExample, "_examples/log/main.go", true},
		{"example", isExample, "docs/samples/a.py", true},
		{"example", isExample, "lib/example.js", false},
		{"example", isExample, "examplesx/a.go", false},
		{"completion", isShellCompletion, "contrib/completion/_fd", true},
		{"completion", isShellCompletion, "complete/_rg", true},
		{"completion", isShellCompletion, "contrib/completion/bash/docker", true},
		{"completion", isShellCompletion, "autocomplete/bash_autocomplete", true},
		{"completion", isShellCompletion, "crates/core/flags/complete/rg.zsh", true},
		{"completion", isShellCompletion, "contrib/completion/git-completion.bash", true},
		{"completion", isShellCompletion, "scripts/bash_completion.sh", true},
		{"completion", isShellCompletion, "complete/fd.FISH", true},
		{"completion", isShellCompletion, "scripts/build.sh", false},
		{"completion", isShellCompletion, "completions/gen.py", false},
		{"completion", isShellCompletion, "crates/core/flags/complete/zsh.rs", false},
		{"completion", isShellCompletion, "src/completion.go", false},
		{"completion", isShellCompletion, "bin/fd", false},
	} {
		if got := tc.is(tc.path); got != tc.want {
			t.Errorf("%s rule on %q = %v, want %v", tc.rule, tc.path, got, tc.want)
		}
	}
}

// rankedPaths lists the ranked files' paths, best first.
func rankedPaths(ix *index.Index, rk []ranked) []string {
	var out []string
	for _, r := range rk {
		out = append(out, ix.Files[r.file].Path)
	}
	return out
}
