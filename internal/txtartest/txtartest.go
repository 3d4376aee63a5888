// Package txtartest turns txtar archives into scenario repositories for
// tests, and reads the directives written in an archive's comment section.
//
// A scenario is one testdata/*.txtar file. Its files are the repository; its
// comment section holds directives, one per line, each a name followed by
// shell-quoted arguments:
//
//	# lines starting with '#' and blank lines are ignored
//	ctxtrim -budget=800 "fix retry"
//	want "func Retry"
//	!want "vendor/"
//
// Repo writes the files into t.TempDir() and commits them with go-git, with a
// fixed author and time so that commit hashes are reproducible. A few
// directives shape the repository before the test sees it; Repo interprets
// them and Directives returns them too, so a test simply ignores the names it
// does not know:
//
//	nogit                  a plain directory: no repository at all
//	untracked PATH...      written after the commit and never added
//	staged PATH...         added to the git index after the commit, not committed
//	symlink LINK TARGET    a symbolic link at LINK pointing to TARGET, committed
//	                       (unless LINK is also listed as untracked); a TARGET
//	                       of the form $OUTSIDE/NAME becomes the relative path
//	                       from LINK to a file NAME that Repo writes in a
//	                       directory beside the repository, so the link leaves
//	                       the repository and resolves wherever the test runs
//	submodule PATH         the archive files under PATH/ become a separate
//	                       repository, committed there and recorded in the
//	                       parent as a gitlink (mode 160000) with .gitmodules
//	emptyrepo              git init only: nothing is committed (all files untracked)
//
// A path that appears twice in the archive is a modification: the first
// content is committed, the second is left in the work tree (and staged if
// the path is listed by "staged").
//
// Everything here calls t.Fatal on error; helpers never return errors.
package txtartest

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/tools/txtar"
)

// Directive is one line of an archive's comment section.
type Directive struct {
	Line int      // 1-based line number within the comment
	Name string   // first word, e.g. "want" or "!want"
	Args []string // remaining words, with shell-style quotes removed
}

// String formats d as "line N: name args" for test failure messages.
func (d Directive) String() string {
	return fmt.Sprintf("line %d: %s %s", d.Line, d.Name, strings.Join(d.Args, " "))
}

// Load parses the txtar file at file, failing t if it cannot be read.
func Load(t testing.TB, file string) *txtar.Archive {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatalf("load %s: %v", file, err)
	}
	return ar
}

// Run calls f in a subtest for every file matching pattern (for example
// "testdata/*.txtar"), named after the file without its extension. It fails t
// if nothing matches, so a mistyped pattern cannot make a suite pass vacuously.
func Run(t *testing.T, pattern string, f func(t *testing.T, ar *txtar.Archive)) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatalf("glob %s: %v", pattern, err)
	}
	if len(files) == 0 {
		t.Fatalf("no scenario matches %s", pattern)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		t.Run(name, func(t *testing.T) { f(t, Load(t, file)) })
	}
}

// Directives parses ar's comment section. It fails t on an unterminated
// quote.
func Directives(t testing.TB, ar *txtar.Archive) []Directive {
	t.Helper()
	var ds []Directive
	for i, line := range strings.Split(string(ar.Comment), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := splitWords(line)
		if err != nil {
			t.Fatalf("comment line %d: %v", i+1, err)
		}
		ds = append(ds, Directive{Line: i + 1, Name: words[0], Args: words[1:]})
	}
	return ds
}

// splitWords splits s at unquoted spaces. Single quotes keep everything
// literally; double quotes allow \" and \\ escapes.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Unpack writes ar's files into a new t.TempDir() without any git
// repository and returns the directory. When a path appears twice, the last
// content wins.
func Unpack(t testing.TB, ar *txtar.Archive) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range ar.Files {
		writeFile(t, dir, f.Name, f.Data)
	}
	return dir
}

// Repo builds the scenario repository described by ar in a new t.TempDir()
// and returns its directory; see the package documentation for the
// directives it obeys.
func Repo(t testing.TB, ar *txtar.Archive) string {
	t.Helper()
	set := func(args []string) map[string]bool {
		m := map[string]bool{}
		for _, a := range args {
			m[path.Clean(a)] = true
		}
		return m
	}
	untracked, staged := map[string]bool{}, map[string]bool{}
	symlinks := map[string]string{}
	var submodules []string
	nogit, empty := false, false
	for _, d := range Directives(t, ar) {
		switch d.Name {
		case "nogit":
			nogit = true
		case "emptyrepo":
			empty = true
		case "untracked":
			for k := range set(d.Args) {
				untracked[k] = true
			}
		case "staged":
			for k := range set(d.Args) {
				staged[k] = true
			}
		case "symlink":
			if len(d.Args) != 2 {
				t.Fatalf("%v: want symlink LINK TARGET", d)
			}
			symlinks[path.Clean(d.Args[0])] = d.Args[1]
		case "submodule":
			if len(d.Args) != 1 {
				t.Fatalf("%v: want submodule PATH", d)
			}
			submodules = append(submodules, path.Clean(d.Args[0]))
		}
	}
	if nogit {
		dir := Unpack(t, ar)
		outside := outsideDir(t, symlinks)
		for link, target := range symlinks {
			symlink(t, dir, outside, link, target)
		}
		return dir
	}

	dir := t.TempDir()
	outside := outsideDir(t, symlinks)
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatalf("git init %s: %v", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatalf("worktree: %v", err)
	}

	inSub := func(name string) string {
		for _, s := range submodules {
			if strings.HasPrefix(name, s+"/") {
				return s
			}
		}
		return ""
	}

	// First pass: first occurrences, committed unless untracked.
	committed := time.Now().Add(-time.Hour)
	seen := map[string]bool{}
	var later []txtar.File // second occurrences and untracked files
	var add []string
	for _, f := range ar.Files {
		name := path.Clean(f.Name)
		if seen[name] || untracked[name] {
			later = append(later, f)
			continue
		}
		seen[name] = true
		writeFile(t, dir, name, f.Data)
		// The committed copy is dated an hour back. go-git writes the
		// index without git's racy-entry check, so a second copy written
		// in the same second, at the same size ("return 2" for "return
		// 1"), looked clean to git diff whenever the index was rewritten
		// (for a staged file) after a second boundary: TestEditedLines
		// failed so under CI's load.
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), committed, committed); err != nil {
			t.Fatal(err)
		}
		if inSub(name) == "" {
			add = append(add, name)
		}
	}
	for link, target := range symlinks {
		symlink(t, dir, outside, link, target)
		if !untracked[link] {
			add = append(add, link)
		}
	}
	sort.Strings(add)

	subHeads := map[string]plumbing.Hash{}
	for _, s := range submodules {
		subHeads[s] = commitSubmodule(t, filepath.Join(dir, filepath.FromSlash(s)))
		gm := fmt.Sprintf("[submodule %q]\n\tpath = %s\n\turl = ./%s\n", s, s, s)
		appendFile(t, filepath.Join(dir, ".gitmodules"), gm)
	}
	if len(submodules) > 0 {
		add = append(add, ".gitmodules")
	}

	if !empty {
		for _, name := range add {
			if err := wt.AddWithOptions(&git.AddOptions{Path: name, SkipStatus: true}); err != nil {
				t.Fatalf("git add %s: %v", name, err)
			}
		}
		for _, s := range submodules {
			addGitlink(t, repo, s, subHeads[s])
		}
		if _, err := wt.Commit("scenario", &git.CommitOptions{Author: signature(), Committer: signature(), AllowEmptyCommits: true}); err != nil {
			t.Fatalf("git commit: %v", err)
		}
	}

	for _, f := range later {
		writeFile(t, dir, path.Clean(f.Name), f.Data)
	}
	for name := range staged {
		if err := wt.AddWithOptions(&git.AddOptions{Path: name, SkipStatus: true}); err != nil {
			t.Fatalf("git add %s: %v", name, err)
		}
	}
	return dir
}

// signature is the fixed author of every scenario commit.
func signature() *object.Signature {
	return &object.Signature{Name: "txtartest", Email: "txtartest@example.com", When: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func commitSubmodule(t testing.TB, dir string) plumbing.Hash {
	t.Helper()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatalf("git init %s: %v", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatalf("worktree: %v", err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatalf("git add in %s: %v", dir, err)
	}
	h, err := wt.Commit("submodule", &git.CommitOptions{Author: signature(), Committer: signature(), AllowEmptyCommits: true})
	if err != nil {
		t.Fatalf("git commit in %s: %v", dir, err)
	}
	return h
}

// addGitlink records a submodule commit in the parent's git index.
func addGitlink(t testing.TB, repo *git.Repository, name string, hash plumbing.Hash) {
	t.Helper()
	idx, err := repo.Storer.Index()
	if err != nil {
		t.Fatalf("read index: %v", err)
	}
	for _, e := range idx.Entries {
		if e.Name == name {
			return
		}
	}
	e := idx.Add(name)
	e.Hash = hash
	e.Mode = filemode.Submodule
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	if err := repo.Storer.SetIndex(idx); err != nil {
		t.Fatalf("write index: %v", err)
	}
}

func writeFile(t testing.TB, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t testing.TB, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// outsidePrefix starts a symlink target that names a file outside the
// repository; see the package documentation.
const outsidePrefix = "$OUTSIDE/"

// outsideDir returns a new directory beside the repository holding every
// file named by a $OUTSIDE/NAME symlink target, or "" when no target is
// of that form. Each file's content is its name and a newline.
func outsideDir(t testing.TB, symlinks map[string]string) string {
	t.Helper()
	dir := ""
	for _, target := range symlinks {
		name, ok := strings.CutPrefix(target, outsidePrefix)
		if !ok {
			continue
		}
		if name = path.Clean(name); name == "." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
			t.Fatalf("symlink target %s: want %sNAME with NAME inside that directory", target, outsidePrefix)
		}
		if dir == "" {
			dir = t.TempDir()
		}
		writeFile(t, dir, name, []byte(name+"\n"))
	}
	return dir
}

// symlink makes the link at link inside dir. A $OUTSIDE/NAME target is
// rewritten to the relative path from the link to NAME in outside.
func symlink(t testing.TB, dir, outside, link, target string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(link))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if name, ok := strings.CutPrefix(target, outsidePrefix); ok {
		rel, err := filepath.Rel(filepath.Dir(p), filepath.Join(outside, filepath.FromSlash(path.Clean(name))))
		if err != nil {
			t.Fatalf("symlink %s -> %s: %v", link, target, err)
		}
		target = rel
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatalf("symlink %s -> %s: %v", link, target, err)
	}
}

// Git runs the git command in dir for a test, with a fixed identity and
// dates and no signing, and returns its combined output; it fails the test
// when git fails and skips it when git is not installed.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
