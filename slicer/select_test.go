package slicer

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// TestSelectScenarios runs testdata/select/*.txtar: the archive is the
// repository, and its directives are
//
//	ctxtrim [-budget=N] [-format=F] [-no-redact] [-include=P] [-exclude=P] TASK
//	               select (once, first; \n and \t in TASK are a line break
//	               and a tab; -include and -exclude repeat)
//	want TEXT      the output contains TEXT
//	!want TEXT     the output does not contain TEXT
//	paths P...     the selected files start with P..., in this order
//	err TEXT       Select fails with an error containing TEXT
func TestSelectScenarios(t *testing.T) {
	c := testCounter(t)
	txtartest.Run(t, "testdata/select/*.txtar", func(t *testing.T, ar *txtar.Archive) {
		dir := txtartest.Repo(t, ar)
		ix, err := index.New(context.Background(), &index.Options{Dir: dir, NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		var opts SelectOptions
		var task string
		var sel *Selection
		var selErr error
		run := func() {
			if sel == nil && selErr == nil {
				sel, selErr = Select(context.Background(), ix, task, c, &opts)
			}
		}
		for _, d := range txtartest.Directives(t, ar) {
			switch d.Name {
			case "ctxtrim":
				opts = SelectOptions{Budget: 4000}
				for _, a := range d.Args {
					switch {
					case strings.HasPrefix(a, "-budget="):
						opts.Budget, _ = strconv.Atoi(strings.TrimPrefix(a, "-budget="))
					case strings.HasPrefix(a, "-format="):
						opts.Format = strings.TrimPrefix(a, "-format=")
					case a == "-no-redact":
						opts.NoRedact = true
					case strings.HasPrefix(a, "-include="):
						opts.Include = append(opts.Include, strings.TrimPrefix(a, "-include="))
					case strings.HasPrefix(a, "-exclude="):
						opts.Exclude = append(opts.Exclude, strings.TrimPrefix(a, "-exclude="))
					default:
						task = strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(a)
					}
				}
			case "want", "!want":
				run()
				if selErr != nil {
					t.Fatalf("%v: Select: %v", d, selErr)
				}
				for _, w := range d.Args {
					if got := strings.Contains(sel.Text, w); got != (d.Name == "want") {
						t.Errorf("%v: output contains %q = %v\n%s", d, w, got, sel.Text)
					}
				}
			case "paths":
				run()
				if selErr != nil {
					t.Fatalf("%v: Select: %v", d, selErr)
				}
				var got []string
				for _, f := range sel.Files {
					if len(got) < len(d.Args) {
						got = append(got, f.Path)
					}
				}
				if diff := cmp.Diff(d.Args, got); diff != "" {
					t.Errorf("%v: selected paths (-want +got):\n%s", d, diff)
				}
			case "err":
				run()
				if selErr == nil || !strings.Contains(selErr.Error(), d.Args[0]) {
					t.Errorf("%v: Select error = %v, want one containing %q", d, selErr, d.Args[0])
				}
			}
		}
		if sel != nil && sel.Tokens > opts.Budget {
			t.Errorf("Tokens = %d > budget %d", sel.Tokens, opts.Budget)
		}
	})
}

// randomRepo generates a repository of n Go files that call each other,
// with names drawn from a small vocabulary so that tasks match several.
func randomRepo(r *rand.Rand, n int) map[string]string {
	words := []string{"retry", "request", "body", "header", "parse", "client", "cache", "token", "budget", "render", "index", "walk"}
	name := func() string {
		a, b := words[r.IntN(len(words))], words[r.IntN(len(words))]
		return a + strings.ToUpper(b[:1]) + b[1:]
	}
	files := map[string]string{}
	for i := 0; i < n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i%3)
		for k := 0; k < 1+r.IntN(12); k++ {
			fmt.Fprintf(&b, "// %s does things.\nfunc %s%d(x int) int {\n", name(), name(), k)
			for l := 0; l < r.IntN(30); l++ {
				fmt.Fprintf(&b, "\tx += %s(x) // %s\n", name(), words[r.IntN(len(words))])
			}
			b.WriteString("\treturn x\n}\n\n")
		}
		dir := []string{"", "pkg/", "internal/x/", "vendor/v/"}[r.IntN(4)]
		files[fmt.Sprintf("%sf%d.go", dir, i)] = b.String()
	}
	files[".env"] = "API_TOKEN=abc123def456\n"
	return files
}

// TestSelectFitsAndIsDeterministic is the budget property: for random
// repositories, budgets and formats, the output's exact count is at most
// the budget, Tokens is that count, and a second run gives the same bytes.
func TestSelectFitsAndIsDeterministic(t *testing.T) {
	c := testCounter(t)
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 12; trial++ {
		files := randomRepo(r, 5+r.IntN(40))
		ix, read := memIndex(t, files)
		budget := 150 + r.IntN(6000)
		format := formats[r.IntN(len(formats))]
		task := "retry the request body when the header parse fails in clientCache"
		opts := &SelectOptions{Budget: budget, Format: format, ReadFile: read}
		t.Run(fmt.Sprintf("%d-%s-%d", trial, format, budget), func(t *testing.T) {
			a, err := Select(context.Background(), ix, task, c, opts)
			if errors.Is(err, ErrTaskTooLarge) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Tokens > budget {
				t.Fatalf("Tokens = %d > budget %d", a.Tokens, budget)
			}
			if promptFormat(format) {
				if n := c.Count(a.Text); n != a.Tokens || n > budget {
					t.Fatalf("Count(Text) = %d, Tokens = %d, budget %d", n, a.Tokens, budget)
				}
			}
			// The same again, serially: parallel reads must not change a byte.
			serial := *opts
			serial.Parallelism = 1
			b, err := Select(context.Background(), ix, task, c, &serial)
			if err != nil {
				t.Fatal(err)
			}
			if a.Text != b.Text {
				t.Fatalf("two runs differ:\n%s\n----\n%s", a.Text, b.Text)
			}
			if strings.Contains(a.Text, "abc123def456") {
				t.Fatalf("secret from .env in the output")
			}
			checkBreakdown(t, c, a)
		})
	}
}

// TestSelectScope is the scope property: for random repositories and
// include and exclude patterns, every file in the prompt or its map is in
// scope, the prompt still fits, and a file out of scope is never shown
// though the task names it. A bad pattern is an error naming it.
// TestSelectNothing: a prompt without context says why. An empty index
// (an empty work tree, or every file ignored) and a scope that holds no
// file must not read "no file matched the task", which sends a user or an
// agent rewording a task that had nothing to match.
func TestSelectNothing(t *testing.T) {
	c := testCounter(t)
	repo := map[string]string{"retry/retry.go": "package retry\n\n// Do retries.\nfunc Do() {}\n"}
	repo2 := map[string]string{"retry/retry.go": repo["retry/retry.go"], "cache/cache.go": "package cache\n\n// Get gets.\nfunc Get() {}\n"}
	for _, tc := range []struct {
		name      string
		files     map[string]string
		include   []string
		exclude   []string
		task      string
		nothing   string // "" when files could be shown
		note      string
		unmatched []string
	}{
		{"empty index", map[string]string{}, nil, nil, "retry the request", "the repository holds no file to select from", "the repository holds no file to select from", nil},
		{"empty index, with patterns", map[string]string{}, []string{"pkg/"}, nil, "retry", "the repository holds no file to select from", "holds no file", nil},
		{"no word matches: an outline", repo, nil, nil, "zebra quagga", "", "an outline of it instead: the signatures of its most central file.", nil},
		{"no word matches: an outline of the scope", repo2, []string{"cache/"}, nil, "zebra quagga", "", "its most central file.", nil},
		{"no word matches, no file defines anything", map[string]string{"notes.txt": "a b c\n"}, nil, nil, "zebra quagga", "", "no file matched the task", nil},
		{"include matches nothing", repo, []string{"retyr/"}, nil, "retry", "no file is in the scope of the include and exclude patterns", "no file is in the scope", []string{"retyr/"}},
		{"one include of two matches", repo, []string{"retyr/", "retry/"}, nil, "retry", "", "retry/retry.go", []string{"retyr/"}},
		{"a negated include is not unmatched", repo, []string{"retry/", "!retry/x.go"}, nil, "retry", "", "retry/retry.go", nil},
		{"exclude takes everything", repo, nil, []string{"*"}, "retry", "no file is in the scope of the include and exclude patterns", "no file is in the scope", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, read := memIndex(t, tc.files)
			sel, err := Select(context.Background(), ix, tc.task, c, &SelectOptions{Budget: 400, ReadFile: read, Include: tc.include, Exclude: tc.exclude})
			if err != nil {
				t.Fatal(err)
			}
			if sel.Nothing != tc.nothing || !strings.Contains(sel.Text, tc.note) || !slices.Equal(sel.UnmatchedInclude, tc.unmatched) {
				t.Errorf("Nothing %q, UnmatchedInclude %q, text %q; want %q, %q, text holding %q", sel.Nothing, sel.UnmatchedInclude, sel.Text, tc.nothing, tc.unmatched, tc.note)
			}
			if tc.include != nil && sel.Unmatched {
				for _, m := range sel.Map {
					if !strings.HasPrefix(m.Path, strings.TrimSuffix(tc.include[0], "/")) {
						t.Errorf("outline lists %s, outside the scope %q", m.Path, tc.include)
					}
				}
			}
			if sel.Tokens > 400 || sel.Tokens != c.Count(sel.Text) {
				t.Errorf("Tokens %d for a text of %d, budget 400", sel.Tokens, c.Count(sel.Text))
			}
		})
	}
}

func TestSelectScope(t *testing.T) {
	c := testCounter(t)
	r := rand.New(rand.NewPCG(3, 4))
	pool := []string{"*.go", "pkg/", "/internal", "vendor/", "f1*.go", "!pkg/", "**/x/*.go", "/f2.go", "nowhere/"}
	pick := func() []string {
		var ps []string
		for range r.IntN(3) {
			ps = append(ps, pool[r.IntN(len(pool))])
		}
		return ps
	}
	for trial := range 30 {
		files := randomRepo(r, 5+r.IntN(30))
		ix, read := memIndex(t, files)
		opts := &SelectOptions{Budget: 500 + r.IntN(4000), ReadFile: read, Include: pick(), Exclude: pick()}
		inc, err := index.ParsePatterns(opts.Include)
		if err != nil {
			t.Fatal(err)
		}
		exc, err := index.ParsePatterns(opts.Exclude)
		if err != nil {
			t.Fatal(err)
		}
		in := func(p string) bool { return !exc.Match(p) && (inc.Empty() || inc.Match(p)) }
		var named []string
		for p := range files {
			if strings.HasSuffix(p, ".go") && !in(p) && len(named) < 3 {
				named = append(named, p)
			}
		}
		task := "retry the request body when the header parse fails in clientCache " + strings.Join(named, " ")
		sel, err := Select(context.Background(), ix, task, c, opts)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if sel.Tokens > opts.Budget {
			t.Fatalf("trial %d: Tokens = %d > budget %d", trial, sel.Tokens, opts.Budget)
		}
		for _, f := range append(sel.Files, sel.Map...) {
			if !in(f.Path) {
				t.Fatalf("trial %d: include %q exclude %q: %s is shown", trial, opts.Include, opts.Exclude, f.Path)
			}
		}
		// Nothing says so exactly when no file is in scope, and the note
		// says it; each include pattern that alone matches no file (a
		// negated one matches nothing by itself) is reported.
		anyIn := false
		for p := range files {
			anyIn = anyIn || in(p)
		}
		if (sel.Nothing == "") != anyIn || !strings.Contains(sel.Note, sel.Nothing) {
			t.Fatalf("trial %d: include %q exclude %q: a file in scope %v, Nothing %q, note %q", trial, opts.Include, opts.Exclude, anyIn, sel.Nothing, sel.Note)
		}
		var unmatched []string
		for _, pat := range opts.Include {
			one, _ := index.ParsePatterns([]string{pat})
			hit := strings.HasPrefix(pat, "!")
			for p := range files {
				hit = hit || one.Match(p)
			}
			if !hit {
				unmatched = append(unmatched, pat)
			}
		}
		if !slices.Equal(sel.UnmatchedInclude, unmatched) {
			t.Fatalf("trial %d: include %q: UnmatchedInclude = %q, want %q", trial, opts.Include, sel.UnmatchedInclude, unmatched)
		}
	}
	for _, bad := range []SelectOptions{{Include: []string{""}}, {Exclude: []string{"#x"}}} {
		bad.Budget = 1000
		bad.ReadFile = func(string) ([]byte, error) { return nil, nil }
		ix, _ := memIndex(t, map[string]string{"a.go": "package a\n"})
		_, err := Select(context.Background(), ix, "a", c, &bad)
		if err == nil || !strings.Contains(err.Error(), "pattern") {
			t.Errorf("Select(include %q, exclude %q) = %v, want a pattern error", bad.Include, bad.Exclude, err)
		}
	}
}

// checkBreakdown checks that the budget breakdown counts each part as the
// prompt holds it: the note is its own count, free is what Tokens leaves,
// and the parts add up to Tokens but for the headings between them and a
// token or two at each join.
func checkBreakdown(t *testing.T, c budget.Counter, sel *Selection) {
	t.Helper()
	b := sel.Breakdown
	if b.Header != c.Count(sel.Note) || (sel.Note != "" && b.Header == 0) {
		t.Errorf("Breakdown.Header = %d, the note counts %d", b.Header, c.Count(sel.Note))
	}
	if b.Free != b.Budget-sel.Tokens || b.Context != b.Whole+b.Definitions {
		t.Errorf("Breakdown %+v, Tokens %d: free or context does not add up", b, sel.Tokens)
	}
	sum, slack := b.Task+b.Header+b.Context+b.Map, 16+2*(len(sel.Files)+len(sel.Map))
	if d := sel.Tokens - sum; d < -slack || d > slack {
		t.Errorf("Breakdown parts add up to %d, Tokens %d (allowed ±%d)", sum, sel.Tokens, slack)
	}
}

// TestSelectTaskTooLarge: a task over the budget is a
// *budget.TaskTooLargeError with the numbers, both ErrTaskTooLarge and
// budget.ErrNoFit, whose message names no CLI flag or command (the CLI adds
// its own hint). Need is the count of the smallest prompt Select could
// render: the task and frame with no file shown and every file left out.
func TestSelectTaskTooLarge(t *testing.T) {
	ix, read := memIndex(t, map[string]string{"a.go": "package a\n"})
	task := strings.Repeat("retry the request ", 200)
	c := testCounter(t)
	_, err := Select(context.Background(), ix, task, c, &SelectOptions{Budget: 100, ReadFile: read})
	if !errors.Is(err, ErrTaskTooLarge) || !errors.Is(err, budget.ErrNoFit) {
		t.Fatalf("Select error = %v, want ErrTaskTooLarge and budget.ErrNoFit", err)
	}
	var tl *budget.TaskTooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("Select error = %#v, want a *budget.TaskTooLargeError", err)
	}
	need := c.Count(newRenderer(FormatMarkdown, strings.TrimRight(task, "\n\r\t "), ix).render(page{omitted: len(ix.Files)}))
	for _, f := range []string{FormatXML} {
		need = max(need, c.Count(newRenderer(f, strings.TrimRight(task, "\n\r\t "), ix).render(page{omitted: len(ix.Files)})))
	}
	if tl.Need != need || tl.Budget != 100 {
		t.Errorf("TaskTooLargeError{Need: %d, Budget: %d}, want {%d, 100}", tl.Need, tl.Budget, need)
	}
	for _, cli := range []string{"ctxtrim", "--budget", "-budget"} {
		if strings.Contains(err.Error(), cli) {
			t.Errorf("library error %q names the CLI's %q", err, cli)
		}
	}
}

// goldenRepo is the small repository of the golden and ranking tests.
var goldenRepo = map[string]string{
	"retry/retry.go": `package retry

import "net/http"

// Policy says how often to retry.
type Policy struct {
	Max int
}

// Do sends req, retrying on 503. The body is rewound before each attempt.
func Do(c *http.Client, req *http.Request, p Policy) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i <= p.Max; i++ {
		if req.GetBody != nil && i > 0 {
			req.Body, err = req.GetBody()
			if err != nil {
				return nil, err
			}
		}
		resp, err = c.Do(req)
		if err == nil && resp.StatusCode != http.StatusServiceUnavailable {
			return resp, nil
		}
	}
	return resp, err
}
`,
	"retry/retry_test.go": `package retry

import "testing"

func TestDoRewindsBody(t *testing.T) {
	_ = Policy{Max: 2}
}
`,
	"header/parse.go": `package header

import "strings"

// ParseHTTPHeader splits "Key: value" into its parts.
func ParseHTTPHeader(line string) (key, value string, ok bool) {
	key, value, ok = strings.Cut(line, ":")
	if !ok {
		return "", "", false
	}
	return strings.TrimSpace(key), strings.TrimSpace(value), true
}
`,
	"cache/cache.go": `package cache

import "errors"

// ErrMiss is returned when a key is absent.
var ErrMiss = errors.New("cache: key not found")

// Cache maps keys to values.
type Cache struct{ m map[string]string }

// Get returns the value of key.
func (c *Cache) Get(key string) (string, error) {
	v, ok := c.m[key]
	if !ok {
		return "", ErrMiss
	}
	return v, nil
}

// Put stores value under key.
func (c *Cache) Put(key, value string) { c.m[key] = value }
`,
	"cmd/app/main.go": `package main

import (
	"example.com/app/cache"
	"example.com/app/retry"
)

func main() {
	c := &cache.Cache{}
	_ = c
	_ = retry.Policy{Max: 3}
}
`,
	"docs/retry.md":     "# Retry\n\nThe client retries on 503 and rewinds the request body.\n",
	"vendor/x/retry.go": "package x\n\n// Retry retries the request on 503 and keeps the body.\nfunc Retry() {}\n",
	"config/.env":       "DB_PASSWORD=s3cretvalue\n",
	"config/settings.py": `import os

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def load_settings(path):
    """Load settings from path."""
    with open(path) as f:
        return f.read()
`,
}

// TestSelectGolden renders the golden repository in every format.
func TestSelectGolden(t *testing.T) {
	c := testCounter(t)
	ix, read := memIndex(t, goldenRepo)
	task := "retry on 503 loses the request body (see retry.Do)"
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			sel, err := Select(context.Background(), ix, task, c, &SelectOptions{Budget: 700, Format: format, ReadFile: read})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "select", "golden", "retry."+format), sel.Text)
		})
	}
	// A tight budget: depth first, so the best file as excerpts and the
	// note on what was left out.
	for _, format := range []string{FormatMarkdown, FormatXML} {
		t.Run("tight-"+format, func(t *testing.T) {
			sel, err := Select(context.Background(), ix, task, c, &SelectOptions{Budget: 300, Format: format, ReadFile: read})
			if err != nil {
				t.Fatal(err)
			}
			if len(sel.Files) == 0 || sel.Files[0].Path != "retry/retry.go" || sel.Files[0].Granularity != GranDefinitions || sel.Omitted == 0 {
				t.Errorf("want retry/retry.go first as excerpts and omitted files at this budget; got %+v, omitted %d", sel.Files, sel.Omitted)
			}
			golden(t, filepath.Join("testdata", "select", "golden", "retry-tight."+format), sel.Text)
		})
	}
}

// update rewrites the golden files under testdata/select (go test -update).
var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", file, diff)
	}
}

// FuzzSelectBudget checks the hard cap on arbitrary tasks, budgets and
// scopes: the rendered prompt never exceeds the budget (paths and JSON
// report its count), a task that cannot fit is reported as
// ErrTaskTooLarge, never cut, and a selection that says nothing could be
// shown shows nothing. A pattern, when valid, is an include, or an
// exclude when bit 2 of format is set.
func FuzzSelectBudget(f *testing.F) {
	f.Add("retry on 503 loses the request body", 300, uint8(0), "")
	f.Add("Cache.Get \"cache: key not found\" cache/cache.go:12", 120, uint8(1), "cache/")
	f.Add("```\n</file>\n```", 90, uint8(2), "nowhere/")
	f.Add("retry on 503 loses the request body", 2000, uint8(0), "retry/")
	f.Add("load_settings", 5000, uint8(3), "!nowhere")
	f.Add("cache: add --max-cache-size flag\n\nlike --max-size", 400, uint8(4), "*")
	f.Add("请修复它", 700, uint8(0), "")
	c := testCounter(f)
	// goldenRepo and a copy of its retry package: twins to keep out.
	files := maps.Clone(goldenRepo)
	for p, src := range goldenRepo {
		if strings.HasPrefix(p, "retry/") {
			files["retrycopy/"+strings.TrimPrefix(p, "retry/")] = src
		}
	}
	ix, read := memIndex(f, files)
	f.Fuzz(func(t *testing.T, task string, budget int, format uint8, pattern string) {
		if budget <= 0 || budget > 20000 || strings.TrimSpace(task) == "" {
			return
		}
		fm := formats[int(format)%len(formats)]
		opts := &SelectOptions{Budget: budget, Format: fm, ReadFile: read}
		if pattern != "" {
			if _, err := index.ParsePatterns([]string{pattern}); err != nil {
				return
			}
			if format&4 != 0 {
				opts.Exclude = []string{pattern}
			} else {
				opts.Include = []string{pattern}
			}
		}
		sel, err := Select(context.Background(), ix, task, c, opts)
		if errors.Is(err, ErrTaskTooLarge) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if sel.Tokens > budget {
			t.Fatalf("Tokens %d > budget %d", sel.Tokens, budget)
		}
		if promptFormat(fm) {
			if n := c.Count(sel.Text); n > budget {
				t.Fatalf("Count(Text) %d > budget %d", n, budget)
			}
		}
		if sel.Nothing != "" && len(sel.Files)+len(sel.Map) > 0 {
			t.Fatalf("pattern %q: Nothing %q, yet %d files shown", pattern, sel.Nothing, len(sel.Files)+len(sel.Map))
		}
		if sel.Unmatched && len(sel.Files) > 0 {
			t.Fatalf("an outline shows %d files' content", len(sel.Files))
		}
		seen := map[string]string{} // content → the path shown with it
		for _, f := range append(append([]Selected(nil), sel.Files...), sel.Map...) {
			src := files[f.Path]
			if other, ok := seen[src]; ok && src != "" {
				t.Fatalf("%s and %s, of the same content, are both shown", other, f.Path)
			}
			seen[src] = f.Path
		}
	})
}
