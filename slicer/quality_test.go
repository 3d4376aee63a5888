package slicer_test

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer"
	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/google/go-cmp/cmp"
)

// Files of TestRankingQuality, under testdata/quality.
const (
	qualityTasks  = "tasks.txt"      // the commits, by id
	qualityGolden = "quality.golden" // the scores, rewritten by -update
)

// qualityBudgets are the budgets every task is selected at: a tight one,
// where ranking decides, and twice it.
var qualityBudgets = []int{8000, 16000}

// updateQuality is the -update flag of the package's test binary:
// select_test.go (package slicer, initialized before this package)
// defines it, and this file defines it only if that one is gone, since a
// second definition panics.
var updateQuality = func() func() bool {
	if f := flag.Lookup("update"); f != nil {
		return func() bool { return f.Value.String() == "true" }
	}
	b := flag.Bool("update", false, "rewrite golden files")
	return func() bool { return *b }
}()

// TestRankingQuality measures the ranking on this repository's own history,
// as the commit-history relevance kit outside the repository does, so that a
// change of ranking quality shows up in CI as a diff of
// testdata/quality/quality.golden, which a change then updates on purpose
// (go test ./slicer -run TestRankingQuality -update).
//
// A task is a commit listed in testdata/quality/tasks.txt: its message is
// the task, its first parent the repository, and its answer the base lines
// that the commit changes in its Go source files (.go, not _test.go, not
// under testdata/): every deleted or changed line, and for a pure insertion
// the base lines just before and after it. Select runs with FormatPaths at
// each of qualityBudgets, and a task scores the share of those lines that
// the printed ranges hold (recall) and whether they hold all of them.
//
// The parent is checked out, HEAD detached at it, in a linked worktree of a
// temporary repository that borrows this one's objects
// (objects/info/alternates), as the kit checks out a worktree of a clone:
// Select sees what a user's clone at that commit holds, the same tracked
// files and git index, and HEAD's history for recency, co-change and named
// commits. An archive of the tree committed once has no history (its
// selections differed from a clone's in all 16 of a sample), and a
// worktree of this repository itself would write into its .git. The
// worktrees share one extraction cache, as a user's worktrees do.
//
// The test skips in a shallow clone or when a listed commit is missing (a
// source archive without .git), and under -short.
func TestRankingQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an index per task; skipped under -short")
	}
	start := time.Now()
	userEnv := os.Environ() // for this repository, which may need the user's safe.directory
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	root, err := gitOut(userEnv, "", "rev-parse", "--show-toplevel")
	if err != nil {
		t.Skipf("not in a git work tree, so there is no history to take tasks from: %v", err)
	}
	root = strings.TrimSpace(root)
	if shallow, err := gitOut(userEnv, root, "rev-parse", "--is-shallow-repository"); err != nil {
		t.Fatal(err)
	} else if strings.TrimSpace(shallow) == "true" {
		t.Skip("shallow clone: the tasks' commits and their history are not all here (git fetch --unshallow)")
	}
	ids := readQualityTasks(t, filepath.Join("testdata", "quality", qualityTasks))
	if missing := missingCommits(t, userEnv, root, ids); len(missing) > 0 {
		t.Skipf("%d of the %d listed commits are not in %s (first: %s): a partial clone or a copy of another history",
			len(missing), len(ids), root, missing[0])
	}
	objects, err := gitOut(userEnv, root, "rev-parse", "--git-path", "objects")
	if err != nil {
		t.Fatal(err)
	}
	if objects = strings.TrimSpace(objects); !filepath.IsAbs(objects) {
		objects = filepath.Join(root, objects) // relative to -C root
	}

	// The checkouts and Select's own git calls read no user or system
	// configuration (diff prefixes, autocrlf, log settings).
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES"} {
		if _, ok := os.LookupEnv(k); ok {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	env := os.Environ()

	ctx := context.Background()
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	// The tasks' worktrees belong to one repository that borrows this
	// one's objects, so they share one extraction cache, which lives and
	// dies with the test.
	base := t.TempDir()
	if _, err := gitOut(env, base, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	alternates := filepath.Join(base, ".git", "objects", "info", "alternates")
	if err := os.WriteFile(alternates, []byte(objects+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()

	var got strings.Builder
	sums := make([]qualitySum, len(qualityBudgets))
	for _, id := range ids {
		q := loadQualityTask(t, userEnv, env, root, base, id)
		ix, err := index.New(ctx, &index.Options{Dir: q.dir, CacheDir: cache})
		if err != nil {
			t.Fatalf("%s: index the parent: %v", short(id), err)
		}
		for k, b := range qualityBudgets {
			shown := map[string][]slicer.LineRange{}
			sel, err := slicer.Select(ctx, ix, q.task, c, &slicer.SelectOptions{Budget: b, Format: slicer.FormatPaths})
			if err != nil {
				t.Errorf("%s at %d: %v (scored as an empty selection)", short(id), b, err)
			} else if shown, err = parsePaths(sel.Text); err != nil {
				t.Errorf("%s at %d: %v", short(id), b, err)
			}
			hit, total := q.score(shown)
			recall := float64(hit) / float64(total)
			fmt.Fprintf(&got, "%s %5d %4d/%-4d %.3f %s\n", short(id), b, hit, total, recall, yesNo(hit == total))
			sums[k].n++
			sums[k].recall += recall
			if hit == total {
				sums[k].all++
			}
		}
	}
	for k, b := range qualityBudgets {
		s := sums[k]
		fmt.Fprintf(&got, "summary %5d: %d tasks, lines all %.1f%%, mean recall %.3f\n",
			b, s.n, 100*float64(s.all)/float64(s.n), s.recall/float64(s.n))
	}
	t.Logf("%d tasks at %d budgets in %s", len(ids), len(qualityBudgets), time.Since(start).Round(time.Millisecond))

	file := filepath.Join("testdata", "quality", qualityGolden)
	if updateQuality() {
		if err := os.WriteFile(file, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./slicer -run TestRankingQuality -update)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("ranking quality changed; if on purpose, run go test ./slicer -run TestRankingQuality -update\n%s (-want +got):\n%s", file, diff)
	}
}

// qualitySum adds up one budget's scores.
type qualitySum struct {
	n, all int     // tasks, and tasks with every line shown
	recall float64 // sum of the tasks' line recall
}

// qualityTask is one task, ready to select for.
type qualityTask struct {
	dir  string                  // the parent checked out
	task string                  // the commit's message
	gold map[string]map[int]bool // base lines the commit changes, per path
}

// score returns how many of the gold lines shown holds, and how many
// there are.
func (q *qualityTask) score(shown map[string][]slicer.LineRange) (hit, total int) {
	for p, lines := range q.gold {
		for n := range lines {
			total++
			if slices.ContainsFunc(shown[p], func(r slicer.LineRange) bool { return r.Start <= n && n <= r.End }) {
				hit++
			}
		}
	}
	return hit, total
}

// readQualityTasks returns the commit ids listed in file: the first field
// of each line that is neither blank nor a # comment.
func readQualityTasks(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, _, _ := strings.Cut(line, " ")
		if !commitID.MatchString(id) {
			t.Fatalf("%s:%d: %q is no full commit id", file, n, id)
		}
		if slices.Contains(ids, id) {
			t.Fatalf("%s:%d: %s is listed twice", file, n, id)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		t.Fatalf("%s lists no commit", file)
	}
	return ids
}

// commitID is a full commit id as tasks.txt lists it.
var commitID = regexp.MustCompile(`^[0-9a-f]{40}$`)

// missingCommits returns the ids that are no commit of the repository at
// root, in one git cat-file call.
func missingCommits(t *testing.T, env []string, root string, ids []string) []string {
	t.Helper()
	cmd := exec.Command("git", "-C", root, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch-check: %v", err)
	}
	found := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == "commit" {
			found[f[0]] = true
		}
	}
	var missing []string
	for _, id := range ids {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	return missing
}

// loadQualityTask checks out id's first parent in a new linked worktree of
// the repository at base and reads the task and its gold lines. userEnv
// runs git in root, env in base and the worktree.
func loadQualityTask(t *testing.T, userEnv, env []string, root, base, id string) *qualityTask {
	t.Helper()
	must := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", short(id), err)
		}
		return s
	}
	parent := strings.TrimSpace(must(gitOut(userEnv, root, "rev-parse", "--verify", id+"^1")))
	msg := must(gitOut(userEnv, root, "log", "-1", "--format=%B", id))
	q := &qualityTask{dir: t.TempDir(), task: strings.TrimSpace(msg), gold: map[string]map[int]bool{}}
	must(gitOut(env, base, "worktree", "add", "-q", "--detach", q.dir, parent))

	status := must(gitOut(userEnv, root, "diff", "--no-renames", "--name-status", "-z", parent, id))
	f := strings.Split(strings.TrimSuffix(status, "\x00"), "\x00")
	for k := 0; k+1 < len(f); k += 2 {
		if p := f[k+1]; f[k] == "M" && isGoSource(p) {
			q.gold[p] = goldLines(t, userEnv, root, q.dir, parent, id, p)
		}
	}
	total := 0
	for _, lines := range q.gold {
		total += len(lines)
	}
	if total == 0 {
		t.Fatalf("%s changes no line of a Go source file at its parent; take it out of %s", short(id), qualityTasks)
	}
	return q
}

// isGoSource reports whether p is Go source that a task's answer counts:
// not a test, not test data.
func isGoSource(p string) bool {
	return strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") &&
		!slices.Contains(strings.Split(p, "/"), "testdata")
}

// hunkHeader is a unified diff hunk's header: base start and count.
var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@`)

// goldLines returns the base lines of path p (checked out under dir) that
// the change from parent to id touches: every deleted or changed line, and
// for a pure insertion the lines just before and after it that exist.
func goldLines(t *testing.T, env []string, root, dir, parent, id, p string) map[int]bool {
	t.Helper()
	diff, err := gitOut(env, root, "--literal-pathspecs", "diff", "--no-color", "--no-ext-diff", "--no-renames",
		"-U0", parent, id, "--", p)
	if err != nil {
		t.Fatalf("%s: %v", short(id), err)
	}
	base, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatalf("%s: %v", short(id), err)
	}
	nlines := bytes.Count(base, []byte("\n"))
	if len(base) > 0 && base[len(base)-1] != '\n' {
		nlines++
	}
	lines := map[int]bool{}
	for _, h := range strings.Split(diff, "\n") {
		m := hunkHeader.FindStringSubmatch(h)
		if m == nil {
			continue
		}
		start, _ := strconv.Atoi(m[1])
		count := 1
		if m[2] != "" {
			count, _ = strconv.Atoi(m[2])
		}
		if count == 0 { // inserted after line start
			for _, n := range []int{start, start + 1} {
				if n >= 1 && n <= nlines {
					lines[n] = true
				}
			}
			continue
		}
		for n := start; n < start+count; n++ {
			lines[n] = true
		}
	}
	return lines
}

// parsePaths reads FormatPaths text: per line a path (quoted as
// slicer.QuotePath quotes unusual names), a tab and the ranges shown,
// "12-40,88-90"; no ranges means the whole file.
func parsePaths(text string) (map[string][]slicer.LineRange, error) {
	shown := map[string][]slicer.LineRange{}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" {
			continue
		}
		p, ranges, _ := strings.Cut(line, "\t")
		if strings.HasPrefix(p, `"`) {
			u, err := strconv.Unquote(p)
			if err != nil {
				return nil, fmt.Errorf("paths line %q: %w", line, err)
			}
			p = u
		}
		if ranges == "" {
			shown[p] = append(shown[p], slicer.LineRange{Start: 1, End: int(^uint(0) >> 1)})
			continue
		}
		for _, r := range strings.Split(ranges, ",") {
			a, b, ok := strings.Cut(r, "-")
			if !ok {
				b = a
			}
			start, err1 := strconv.Atoi(a)
			end, err2 := strconv.Atoi(b)
			if err1 != nil || err2 != nil || start < 1 || end < start {
				return nil, fmt.Errorf("paths line %q: bad range %q", line, r)
			}
			shown[p] = append(shown[p], slicer.LineRange{Start: start, End: end})
		}
	}
	return shown, nil
}

// gitOut runs git in dir ("" for the current directory) with env and
// returns its stdout.
func gitOut(env []string, dir string, args ...string) (string, error) {
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.Command("git", args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

func short(id string) string { return id[:12] }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
