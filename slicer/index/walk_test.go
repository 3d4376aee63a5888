package index

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"github.com/go-git/go-git/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/tools/txtar"
)

// TestIndexScenarios runs testdata/index/*.txtar. Besides txtartest's setup
// directives, a scenario may use:
//
//	index [-all] [-max=N] [-dir=PATH]  options for New
//	fill PATH N                        append N bytes of "x" (no newline) to PATH
//	lines PATH N                       append N lines of 10 bytes to PATH
//	nul PATH                           append a NUL byte to PATH
//	rm PATH                            delete PATH after the commit
//	fifo PATH                          create a named pipe
//	nestedrepo PATH                    git init inside PATH (not a submodule)
//	exclude PATTERN                    a line of .git/info/exclude
//	infoattr LINE                      a line of .git/info/attributes
//	globalignore PATTERN               a line of $XDG_CONFIG_HOME/git/ignore
//
// and states the complete outcome:
//
//	file PATH LANG CLASS STATUS        LANG "-" when lexical, STATUS "-" when clean
//	skip PATH REASON [DETAIL]          REASON as in the Skip* constants
//	symbol PATH NAME                   PATH defines NAME
//
// Every indexed file and every skip must be listed: extra ones fail.
func TestIndexScenarios(t *testing.T) {
	txtartest.Run(t, "testdata/index/*.txtar", func(t *testing.T, ar *txtar.Archive) {
		// Hermetic git configuration: no user excludes file unless the
		// scenario writes one.
		home := t.TempDir()
		t.Setenv("HOME", home)
		t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
		dir := txtartest.Repo(t, ar)
		opts := &Options{Dir: dir, CacheDir: t.TempDir(), Logf: t.Logf}
		wantFiles, wantSkips := map[string]string{}, map[string]string{}
		wantSyms := map[string][]string{}
		wantDetails := map[string]string{}
		for _, d := range txtartest.Directives(t, ar) {
			arg := func(i int) string {
				if i >= len(d.Args) {
					t.Fatalf("%v: missing argument %d", d, i+1)
				}
				return d.Args[i]
			}
			abs := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
			switch d.Name {
			case "index":
				for _, a := range d.Args {
					switch k, v, _ := strings.Cut(a, "="); k {
					case "-all":
						opts.All = true
					case "-max":
						n, err := strconv.ParseInt(v, 10, 64)
						if err != nil {
							t.Fatalf("%v: %v", d, err)
						}
						opts.MaxFileSize = n
					case "-dir":
						opts.Dir = abs(v)
					default:
						t.Fatalf("%v: unknown option %s", d, a)
					}
				}
			case "fill":
				n, err := strconv.Atoi(arg(1))
				if err != nil {
					t.Fatalf("%v: %v", d, err)
				}
				appendBytes(t, abs(arg(0)), []byte(strings.Repeat("x", n)))
			case "lines":
				n, err := strconv.Atoi(arg(1))
				if err != nil {
					t.Fatalf("%v: %v", d, err)
				}
				appendBytes(t, abs(arg(0)), []byte(strings.Repeat("123456789\n", n)))
			case "nul":
				appendBytes(t, abs(arg(0)), []byte{0})
			case "rm":
				if err := os.Remove(abs(arg(0))); err != nil {
					t.Fatal(err)
				}
			case "fifo":
				if err := syscall.Mkfifo(abs(arg(0)), 0o644); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
			case "nestedrepo":
				if _, err := git.PlainInit(abs(arg(0)), false); err != nil {
					t.Fatal(err)
				}
			case "exclude":
				appendBytes(t, filepath.Join(dir, ".git", "info", "exclude"), []byte(arg(0)+"\n"))
			case "infoattr":
				appendBytes(t, filepath.Join(dir, ".git", "info", "attributes"), []byte(arg(0)+"\n"))
			case "globalignore":
				appendBytes(t, filepath.Join(home, ".config", "git", "ignore"), []byte(arg(0)+"\n"))
			case "file":
				wantFiles[arg(0)] = strings.Join([]string{arg(1), arg(2), arg(3)}, " ")
			case "skip":
				wantSkips[arg(0)] = arg(1)
				if len(d.Args) > 2 {
					wantDetails[arg(0)] = arg(2)
				}
			case "symbol":
				wantSyms[arg(0)] = append(wantSyms[arg(0)], arg(1))
			}
		}
		ix, err := New(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		checkListFiles(t, opts, ix)
		gotFiles, gotSkips := map[string]string{}, map[string]string{}
		for _, f := range ix.Files {
			lang := f.Lang
			if lang == "" {
				lang = "-"
			}
			gotFiles[f.Path] = strings.Join([]string{lang, className(f.Class), statusString(f.Status)}, " ")
		}
		for _, s := range ix.Skipped {
			gotSkips[s.Path] = s.Reason
			if want, ok := wantDetails[s.Path]; ok && s.Detail != want {
				t.Errorf("skip %s: detail %q, want %q", s.Path, s.Detail, want)
			}
		}
		if diff := cmp.Diff(wantFiles, gotFiles); diff != "" {
			t.Errorf("files (-want +got)\n%s", diff)
		}
		if diff := cmp.Diff(wantSkips, gotSkips); diff != "" {
			t.Errorf("skips (-want +got)\n%s", diff)
		}
		for p, names := range wantSyms {
			f, ok := ix.File(p)
			if !ok {
				t.Errorf("symbol %s: file not indexed", p)
				continue
			}
			have := map[string]bool{}
			for _, s := range f.Symbols {
				have[s.Name] = true
			}
			for _, n := range names {
				if !have[n] {
					t.Errorf("%s: no symbol %s (have %v)", p, n, f.Symbols)
				}
			}
		}
		if !sort.SliceIsSorted(ix.Files, func(i, j int) bool { return ix.Files[i].Path < ix.Files[j].Path }) {
			t.Errorf("Files not sorted by path")
		}
	})
}

// checkListFiles holds ListFiles to New on the same options: its
// Paths are the indexed files plus those New skipped after the walk,
// and its Skipped are exactly New's skips of paths it did not list.
func checkListFiles(t *testing.T, opts *Options, ix *Index) {
	t.Helper()
	list, err := ListFiles(context.Background(), opts)
	if err != nil {
		t.Fatalf("ListFiles: %v", err)
	}
	if list.Root != ix.Root {
		t.Errorf("ListFiles Root = %q, New Root = %q", list.Root, ix.Root)
	}
	listed := map[string]bool{}
	for _, p := range list.Paths {
		listed[p] = true
	}
	var wantPaths []string
	for _, f := range ix.Files {
		wantPaths = append(wantPaths, f.Path)
	}
	var wantSkipped []Skip
	for _, s := range ix.Skipped {
		if listed[s.Path] {
			wantPaths = append(wantPaths, s.Path) // skipped after the walk
		} else {
			wantSkipped = append(wantSkipped, s)
		}
	}
	sort.Strings(wantPaths)
	if diff := cmp.Diff(wantPaths, list.Paths); diff != "" {
		t.Errorf("ListFiles Paths (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantSkipped, list.Skipped); diff != "" {
		t.Errorf("ListFiles Skipped (-want +got):\n%s", diff)
	}
	checkFindFiles(t, opts, list)
}

// checkFindFiles holds FindFiles to ListFiles on the same options, for
// pattern sets of every kind: its Paths are ListFiles' Paths that match a
// pattern, except untracked files that a pattern ending in a literal name
// ("**/NAME") is documented to miss: those in a directory holding no
// tracked file, when no other pattern reaches them.
func checkFindFiles(t *testing.T, opts *Options, list *FileList) {
	t.Helper()
	tracked := map[string]bool{}
	trackedDir := map[string]bool{"": true}
	isRepo := false
	if repo, err := git.PlainOpenWithOptions(list.Root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true}); err == nil {
		isRepo = true
		idx, err := repo.Storer.Index()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range idx.Entries {
			tracked[e.Name] = true
			for d := path.Dir(e.Name); d != "."; d = path.Dir(d) {
				trackedDir[d] = true
			}
		}
	}
	sets := [][]string{
		{"**"},
		{"**/*.go", "**/README.md", "**/x.md"},
		{"**/AGENTS.override.md", "**/AGENTS.md", "**/CLAUDE.md", ".github/copilot-instructions.md", "prompts/**"},
		{"{sub,logs}/**", "*.{md,go}"},
		{"no/such/file", "nosuchdir/**", "**/nosuchname"},
	}
	var literal, names []string
	tops := map[string]struct{}{}
	for _, p := range list.Paths {
		literal = append(literal, strings.NewReplacer("*", `\*`, "?", `\?`, "[", `\[`, "{", `\{`).Replace(p))
		names = append(names, "**/"+path.Base(p))
		if i := strings.IndexByte(p, '/'); i > 0 {
			tops[p[:i]+"/**"] = struct{}{}
		}
	}
	sets = append(sets, literal, names, sortedKeys(tops))
	for _, patterns := range sets {
		got, err := FindFiles(context.Background(), opts, patterns)
		if err != nil {
			t.Fatalf("FindFiles(%q): %v", patterns, err)
		}
		if got.Root != list.Root {
			t.Errorf("FindFiles Root = %q, ListFiles Root = %q", got.Root, list.Root)
		}
		var want []string
		for _, p := range list.Paths {
			var matched, reached bool
			for _, pat := range patterns {
				if ok, _ := doublestar.Match(pat, p); ok {
					matched = true
					pp := placePattern(pat)
					reached = reached || pp.kind != nameInDirs || !isRepo || tracked[p] || trackedDir[parentDir(p)]
				}
			}
			if matched && reached {
				want = append(want, p)
			}
		}
		if diff := cmp.Diff(want, got.Paths, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("FindFiles(%q) Paths (-ListFiles, filtered +FindFiles):\n%s", patterns, diff)
		}
	}
}

func appendBytes(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func className(c Class) string {
	return [...]string{"source", "test", "doc", "config", "vendored", "generated", "lock", "minified", "fixture", "data"}[c]
}

func statusString(s Status) string {
	var parts []string
	for _, x := range []struct {
		bit  Status
		name string
	}{{Staged, "staged"}, {Modified, "modified"}, {Untracked, "untracked"}} {
		if s&x.bit != 0 {
			parts = append(parts, x.name)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "+")
}

var _ = exec.LookPath
var _ = fmt.Sprint
