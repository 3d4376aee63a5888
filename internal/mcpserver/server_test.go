package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/check"
	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"github.com/ctxtrim/ctxtrim/slicer"
	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/ctxtrim/ctxtrim/split"
)

// testRepo builds testdata/repo.txtar as a git repository.
func testRepo(t *testing.T) string {
	t.Helper()
	return txtartest.Repo(t, txtartest.Load(t, "testdata/repo.txtar"))
}

// testServer returns a server whose default repository is dir, with a
// private extraction cache and a log that stays quiet once t is done.
func testServer(t *testing.T, dir string) *Server {
	t.Helper()
	var done atomic.Bool
	t.Cleanup(func() { done.Store(true) })
	s, err := New(&Options{Dir: dir, CacheDir: t.TempDir(), Version: "test", Logf: func(format string, args ...any) {
		if !done.Load() {
			t.Logf(format, args...)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// connect opens a session with s over the SDK's in-memory transport, as a
// client named name speaking protocol (""; the SDK's latest) and listing
// roots (directories).
func connect(t *testing.T, s *Server, name, protocol string, roots ...string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "test"}, nil)
	for _, r := range roots {
		c.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(r)}).String()})
	}
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls tool with args and returns the result; a protocol error fails t.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// decode checks that res is not an error and decodes its structured content.
func decode[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var out T
	if res.IsError {
		t.Fatalf("tool error: %s", resultText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return out
}

// resultText joins res's text content.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// wantToolError checks that res is a tool error whose text holds want.
func wantToolError(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error containing %q, got a result: %s", want, resultText(res))
	}
	if got := resultText(res); !strings.Contains(got, want) {
		t.Errorf("tool error %q does not contain %q", got, want)
	}
}

// viewTokens counts the structured content as the clients show it to the
// model (both key orders), with c.
func viewTokens(t *testing.T, res *mcp.CallToolResult, c budget.Counter) (tokens, size int) {
	t.Helper()
	tokens, size, err := measure(res.StructuredContent, c)
	if err != nil {
		t.Fatal(err)
	}
	return tokens, size
}

func o200k(t *testing.T) budget.Counter {
	t.Helper()
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestListTools(t *testing.T) {
	s := testServer(t, testRepo(t))
	cs := connect(t, s, "test", "")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: want input and output schemas from the structs", tool.Name)
		}
		if a := tool.Annotations; a == nil || !a.ReadOnlyHint {
			t.Errorf("%s: want the read-only hint (Codex runs unmarked MCP tools only after asking)", tool.Name)
		}
		if len(tool.Description) < 200 {
			t.Errorf("%s: description of %d bytes is too short for an agent to act on", tool.Name, len(tool.Description))
		}
	}
	want := []string{"check_prompt_files", "count_tokens", "fit_text", "select_context", "split_task"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestSelectContext(t *testing.T) {
	dir := testRepo(t)
	// Files written within a clock tick of the index build count as
	// changed (racy); the repository was made long ago.
	backdate(t, dir, time.Now().Add(-time.Hour))
	s := testServer(t, dir)
	cs := connect(t, s, "test", "")
	c := o200k(t)
	const budgetTokens = 700
	args := SelectInput{Task: "retry.Do drops the request body after the first attempt; fix it", Budget: budgetTokens}

	res := call(t, cs, "select_context", args)
	out := decode[SelectOutput](t, res)
	if out.Index != indexBuilt || out.Budget != budgetTokens || out.Repo != dir {
		t.Errorf("index %q, budget %d, repo %q; want %q, %d, %q", out.Index, out.Budget, out.Repo, indexBuilt, budgetTokens, dir)
	}
	if len(out.Files) == 0 || out.Files[0].Path != "retry/retry.go" {
		t.Fatalf("want retry/retry.go first, got %+v", out.Files)
	}
	if f := out.Files[0]; f.Granularity != "whole" || len(f.Ranges) != 1 || f.Ranges[0].Start != 1 {
		t.Errorf("retry/retry.go: want whole from line 1, got %+v", f)
	}
	if !strings.Contains(out.Prompt, "func Do(attempts int") {
		t.Errorf("the prompt lacks retry.Do:\n%s", out.Prompt)
	}
	checkFiles(t, out.Files)
	if got := resultText(res); got != out.Prompt {
		t.Errorf("the text content is not the prompt:\n%s", got)
	}
	if n := c.Count(out.Prompt); n != out.PromptTokens {
		t.Errorf("prompt_tokens %d, the prompt counts %d", out.PromptTokens, n)
	}
	if n, _ := viewTokens(t, res, c); n > budgetTokens {
		t.Errorf("the result as JSON counts %d tokens, over the budget %d", n, budgetTokens)
	}

	// The second call reuses the index; a change rebuilds it.
	if out := decode[SelectOutput](t, call(t, cs, "select_context", args)); out.Index != indexReused {
		t.Errorf("second call: index %q, want %q", out.Index, indexReused)
	}
	p := filepath.Join(dir, "retry", "retry.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(src, []byte("\n// Again resends the body: a NEWMARKER.\nfunc Again() {}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	out = decode[SelectOutput](t, call(t, cs, "select_context", args))
	if out.Index != indexRebuilt || !strings.Contains(out.Prompt, "NEWMARKER") {
		t.Errorf("after an edit: index %q (want %q), edit in prompt: %v", out.Index, indexRebuilt, strings.Contains(out.Prompt, "NEWMARKER"))
	}
}

// TestSelectContextNext: a second call that excludes the files the first
// showed gets the next ones, none of the first; include scopes a call.
func TestSelectContextNext(t *testing.T) {
	dir := testRepo(t)
	s := testServer(t, dir)
	cs := connect(t, s, "test", "")
	args := SelectInput{Task: "retry.Do drops the request body after the first attempt; fix it", Budget: 700}
	first := decode[SelectOutput](t, call(t, cs, "select_context", args))
	if len(first.Files) == 0 {
		t.Fatal("the first call shows no file")
	}
	shown := map[string]bool{}
	for _, f := range first.Files {
		shown[f.Path] = true
		args.Exclude = append(args.Exclude, "/"+f.Path)
	}
	next := decode[SelectOutput](t, call(t, cs, "select_context", args))
	if len(next.Files) == 0 {
		t.Fatalf("the second call shows nothing; the first showed %v", args.Exclude)
	}
	for _, f := range next.Files {
		if shown[f.Path] {
			t.Errorf("the second call shows %s again", f.Path)
		}
	}
	only := decode[SelectOutput](t, call(t, cs, "select_context", SelectInput{Task: args.Task, Budget: 700, Include: []string{next.Files[0].Path}}))
	if len(only.Files) != 1 || only.Files[0].Path != next.Files[0].Path || only.UnmatchedInclude != nil {
		t.Errorf("include %s: files %+v, unmatched %q", next.Files[0].Path, only.Files, only.UnmatchedInclude)
	}
	// A mistyped include is named, so that the agent can correct it.
	typo := decode[SelectOutput](t, call(t, cs, "select_context", SelectInput{Task: args.Task, Budget: 700, Include: []string{next.Files[0].Path, "retyr/"}}))
	if len(typo.Files) != 1 || !slices.Equal(typo.UnmatchedInclude, []string{"retyr/"}) {
		t.Errorf("include %s and retyr/: files %+v, unmatched %q", next.Files[0].Path, typo.Files, typo.UnmatchedInclude)
	}
}

// TestSelectContextOutline: a task that names nothing of the repository
// gets an outline, and says so in the result, so that the agent asks again
// with a name; a task that does, code and no outline flag.
func TestSelectContextOutline(t *testing.T) {
	dir := testRepo(t)
	s := testServer(t, dir)
	cs := connect(t, s, "test", "")
	out := decode[SelectOutput](t, call(t, cs, "select_context", SelectInput{Task: "请修复它", Budget: 700}))
	if !out.Outline || len(out.Files) == 0 || !strings.Contains(out.Prompt, "an outline of it instead") {
		t.Fatalf("outline %v, %d files, prompt %q; want an outline of the repository", out.Outline, len(out.Files), out.Prompt)
	}
	for _, f := range out.Files {
		if f.Granularity != "signatures" {
			t.Errorf("%s: granularity %s; an outline shows signatures only", f.Path, f.Granularity)
		}
	}
	code := decode[SelectOutput](t, call(t, cs, "select_context", SelectInput{Task: "retry.Do drops the request body", Budget: 700}))
	if code.Outline || len(code.Files) == 0 || code.Files[0].Granularity == "signatures" {
		t.Errorf("a task that names code: outline %v, files %+v", code.Outline, code.Files)
	}
}

// TestSelectClientLimits checks the default budget per client and that a
// result never exceeds the client's byte limit, whatever the budget.
func TestSelectClientLimits(t *testing.T) {
	dir := t.TempDir()
	// About 200 files of 1.5k tokens, all relevant: any budget fills up.
	for i := range 200 {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i)
		for k := range 30 {
			fmt.Fprintf(&b, "// Retry%d_%d resends the request body after a failed attempt <%d>.\nfunc Retry%d_%d(body []byte) []byte { return append(body, %d) }\n\n", i, k, k, i, k, k)
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("p%d", i), "retry.go"), b.String())
	}
	s := testServer(t, dir)
	task := "the retry resends an empty request body"
	for _, tc := range []struct {
		client string
		budget int
	}{
		{"codex-mcp-client", 0},
		{"codex-mcp-client", 30000},
		{"claude-code", 0},
		{"some-editor", 0},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.client, tc.budget), func(t *testing.T) {
			lim := limitFor(tc.client)
			cn, err := s.counting("", "", lim)
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, connect(t, s, tc.client, ""), "select_context", SelectInput{Task: task, Budget: tc.budget})
			out := decode[SelectOutput](t, res)
			want := tc.budget
			if want == 0 {
				want = lim.budget
			}
			n, size := viewTokens(t, res, cn.c)
			t.Logf("%s: budget %d, %d tokens, %d bytes as JSON (limit %d), %d files", tc.client, out.Budget, n, size, lim.maxBytes, len(out.Files))
			if out.Budget != want || n > want || size > lim.maxBytes {
				t.Errorf("budget %d (want %d): %d tokens, %d bytes (limit %d)", out.Budget, want, n, size, lim.maxBytes)
			}
			if size < lim.maxBytes/2 && n < want/2 {
				t.Errorf("the result uses less than half of both limits: the fit is too eager")
			}
			if checkFiles(t, out.Files)["definitions"] == 0 {
				t.Errorf("no file given as definitions: 200 files of 30 definitions each should need excerpts")
			}
		})
	}
	if lim := limitFor("claude-code"); lim.countModel == "" {
		t.Error("claude-code: want its tokenizer estimated, not o200k_base")
	}
}

// checkFiles checks the structured selection against what each
// granularity promises and returns how many files each has: a whole file
// is one range from line 1 and no definitions; a file given as
// definitions has them, each inside the ranges shown; signatures show no
// ranges.
func checkFiles(t *testing.T, files []SelectedFile) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, f := range files {
		n[f.Granularity]++
		switch f.Granularity {
		case "whole":
			if len(f.Ranges) != 1 || f.Ranges[0].Start != 1 || len(f.Definitions) != 0 {
				t.Errorf("%s: whole, yet %+v", f.Path, f)
			}
		case "definitions":
			if len(f.Definitions) == 0 || len(f.Ranges) == 0 {
				t.Errorf("%s: definitions, yet none or no ranges: %+v", f.Path, f)
			}
			for _, d := range f.Definitions {
				inside := false
				for _, r := range f.Ranges {
					inside = inside || (r.Start <= d.Start && d.End <= r.End)
				}
				if !inside || d.Start > d.End {
					t.Errorf("%s: definition %+v not within the ranges shown %+v", f.Path, d, f.Ranges)
				}
			}
		case "signatures":
			if len(f.Ranges) != 0 || len(f.Definitions) != 0 {
				t.Errorf("%s: signatures, yet %+v", f.Path, f)
			}
		default:
			t.Errorf("%s: unknown granularity %q", f.Path, f.Granularity)
		}
	}
	return n
}

// TestFromSelection: the structured selection is the slicer's, field by
// field — files in the prompt's order (content, then signatures), their
// ranges and definitions, the omitted count, the best maxBest candidates,
// the unreadable files with their reasons.
func TestFromSelection(t *testing.T) {
	var candidates []slicer.Selected
	var best []string
	for i := range maxBest + 3 {
		p := fmt.Sprintf("left/out%02d.go", i)
		candidates = append(candidates, slicer.Selected{Path: p})
		if i < maxBest {
			best = append(best, p)
		}
	}
	sel := &slicer.Selection{
		Text: "PROMPT", Tokens: 42, Omitted: 13,
		Files: []slicer.Selected{
			{Path: "a.go", Granularity: slicer.GranWhole, Ranges: []slicer.LineRange{{Start: 1, End: 30}}, Tokens: 200, Content: "package a"},
			{Path: "b.go", Granularity: slicer.GranDefinitions, Tokens: 90,
				Ranges: []slicer.LineRange{{Start: 1, End: 3}, {Start: 40, End: 52}},
				Units:  []slicer.Unit{{Name: "Retry", Range: slicer.LineRange{Start: 40, End: 52}, Score: 3.5}, {Range: slicer.LineRange{Start: 1, End: 3}}}},
		},
		Map:        []slicer.Selected{{Path: "c.go", Granularity: slicer.GranSignatures, Tokens: 12, Content: "c.go: func C()"}},
		Candidates: candidates,
		Skipped:    []index.Skip{{Path: "d.go", Reason: "unreadable", Detail: "permission denied"}},
	}
	got := fromSelection(sel)
	want := &selection{
		prompt: "PROMPT", promptTokens: 42,
		files: []SelectedFile{
			{Path: "a.go", Granularity: "whole", Ranges: []LineRange{{1, 30}}, Tokens: 200},
			{Path: "b.go", Granularity: "definitions", Ranges: []LineRange{{1, 3}, {40, 52}},
				Definitions: []Definition{{Name: "Retry", Start: 40, End: 52}, {Start: 1, End: 3}}, Tokens: 90},
			{Path: "c.go", Granularity: "signatures", Tokens: 12},
		},
		leftOut: LeftOut{Files: 13, Best: best, Unreadable: []string{"d.go: unreadable"}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(selection{})); diff != "" {
		t.Errorf("fromSelection (-want +got):\n%s", diff)
	}
	if got := fromSelection(&slicer.Selection{}); got.files == nil || len(got.files) != 0 {
		t.Errorf("an empty selection: files %#v, want [] (the JSON has a list)", got.files)
	}
}

func TestSelectErrors(t *testing.T) {
	dir := testRepo(t)
	s := testServer(t, dir)
	cs := connect(t, s, "test", "")
	for _, tc := range []struct {
		name string
		args SelectInput
		want string
	}{
		{"unknown model", SelectInput{Task: "fix retry", Model: "gpt-9"}, `unknown model "gpt-9"; did you mean`},
		{"unknown model, none close", SelectInput{Task: "fix retry", Model: "nosuch"}, `known models is close; ctxtrim models lists the known ones`},
		{"missing repo", SelectInput{Task: "fix retry", Repo: "no/such/dir"}, "repo no/such/dir: no such directory"},
		{"budget over window", SelectInput{Task: "fix retry", Model: "gpt-4", Budget: 9000}, "exceeds the 8192-token window of gpt-4"},
		{"negative budget", SelectInput{Task: "fix retry", Budget: -5}, "budget -5 is negative"},
		{"budget too small", SelectInput{Task: "fix retry", Budget: 5}, "task alone exceeds the budget"},
		{"task over budget", SelectInput{Task: strings.Repeat("the retry drops the body ", 400), Budget: 1000}, "task alone exceeds the budget"},
		{"empty task", SelectInput{Task: "  "}, "no task"},
		{"bad pattern", SelectInput{Task: "fix retry", Exclude: []string{"#x"}}, `exclude: pattern "#x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantToolError(t, call(t, cs, "select_context", tc.args), tc.want)
		})
	}
	// Arguments the schema rejects are tool errors too, before the handler.
	wantToolError(t, call(t, cs, "select_context", map[string]any{"budget": 100}), "task")
	// The server still serves.
	decode[SelectOutput](t, call(t, cs, "select_context", SelectInput{Task: "fix retry", Budget: 500}))
}

func TestRoots(t *testing.T) {
	dir := testRepo(t)
	s := testServer(t, t.TempDir()) // the default repository is elsewhere
	// A client listing a root (protocol 2025-06-18, as Codex speaks) gets it.
	out := decode[SelectOutput](t, call(t, connect(t, s, "test", "2025-06-18", dir), "select_context", SelectInput{Task: "fix retry.Do", Budget: 500}))
	if out.Repo != dir || len(out.Files) == 0 {
		t.Errorf("repo %q with %d files, want the client's root %q", out.Repo, len(out.Files), dir)
	}
	// A relative repo is taken from the root.
	out = decode[SelectOutput](t, call(t, connect(t, s, "test", "2025-06-18", filepath.Dir(dir)), "select_context",
		SelectInput{Task: "fix retry.Do", Budget: 500, Repo: filepath.Base(dir)}))
	if out.Repo != dir {
		t.Errorf("repo %q, want %q", out.Repo, dir)
	}
	// Without roots the default repository is used.
	s = testServer(t, dir)
	out = decode[SelectOutput](t, call(t, connect(t, s, "test", ""), "select_context", SelectInput{Task: "fix retry.Do", Budget: 500}))
	if out.Repo != dir {
		t.Errorf("repo %q, want the default %q", out.Repo, dir)
	}
}

func TestCountTokens(t *testing.T) {
	dir := testRepo(t)
	writeFile(t, filepath.Join(dir, "blob.bin"), "a\x00b")
	s := testServer(t, dir)
	cs := connect(t, s, "test", "")
	c := o200k(t)
	src, err := os.ReadFile(filepath.Join(dir, "retry", "retry.go"))
	if err != nil {
		t.Fatal(err)
	}
	text := "Hello, tokens. Привет."
	out := decode[CountOutput](t, call(t, cs, "count_tokens", CountInput{Text: text, Paths: []string{"retry/retry.go", "missing.go", "blob.bin", "retry"}}))
	want := CountOutput{
		Total: c.Count(text) + c.Count(string(src)), Encoding: budget.O200kBase,
		Items: []CountItem{
			{Source: "text", Tokens: c.Count(text), Bytes: len(text)},
			{Source: "retry/retry.go", Tokens: c.Count(string(src)), Bytes: len(src)},
			{Source: "missing.go", Error: "no such file"},
			{Source: "blob.bin", Error: "binary (a NUL byte in the first 8000 bytes), not counted"},
			{Source: "retry", Error: "is a directory"},
		},
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("count_tokens (-want +got):\n%s", diff)
	}

	// A Claude model is an estimate: o200k × the family's factor, rounded up.
	m, err := budget.Lookup("claude-opus-5-5")
	if err != nil {
		t.Fatal(err)
	}
	mc, err := m.Counter()
	if err != nil {
		t.Fatal(err)
	}
	out = decode[CountOutput](t, call(t, cs, "count_tokens", CountInput{Text: text, Model: "claude-opus-5-5"}))
	if !out.Estimate || out.Total != mc.Count(text) || out.Model != "claude-opus-5-5" {
		t.Errorf("claude: %+v, want an estimate of %d", out, mc.Count(text))
	}
	// Claude Code's default is the same estimate.
	out = decode[CountOutput](t, call(t, connect(t, s, "claude-code", ""), "count_tokens", CountInput{Text: text}))
	if !out.Estimate || out.Total != mc.Count(text) {
		t.Errorf("claude-code default: %+v, want an estimate of %d", out, mc.Count(text))
	}
	// An encoding counts exactly.
	cl, err := budget.NewEncodingCounter(budget.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	out = decode[CountOutput](t, call(t, cs, "count_tokens", CountInput{Text: text, Encoding: budget.Cl100kBase}))
	if out.Estimate || out.Total != cl.Count(text) || out.Encoding != budget.Cl100kBase {
		t.Errorf("cl100k: %+v, want %d", out, cl.Count(text))
	}

	wantToolError(t, call(t, cs, "count_tokens", CountInput{}), "nothing to count")
	wantToolError(t, call(t, cs, "count_tokens", CountInput{Text: "x", Encoding: "p50k"}), `encoding: unknown encoding "p50k"`)
	wantToolError(t, call(t, cs, "count_tokens", CountInput{Text: "x", Model: "nope"}), `unknown model "nope"`)
}

func TestFitText(t *testing.T) {
	s := testServer(t, testRepo(t))
	cs := connect(t, s, "test", "")
	c := o200k(t)
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "2026-11-29T17:00:%02d worker-%d request id=%d status=200 latency=%dms\n", i%60, i%7, i, i*13%900)
	}
	text := b.String()
	for _, keep := range []string{"", "head", "tail"} {
		t.Run("keep="+keep, func(t *testing.T) {
			const limit = 300
			res := call(t, cs, "fit_text", FitInput{Text: text, Budget: limit, Keep: keep})
			out := decode[FitOutput](t, res)
			if n, _ := viewTokens(t, res, c); !out.Cut || out.Tokens != c.Count(out.Text) || n > limit {
				t.Errorf("cut %v, tokens %d (text counts %d), result %d tokens; budget %d", out.Cut, out.Tokens, c.Count(out.Text), n, limit)
			}
			if !strings.Contains(out.Text, budget.MarkerPrefix()) {
				t.Error("no marker in the fitted text")
			}
			lines := strings.SplitAfter(text, "\n")
			first, last := strings.HasPrefix(out.Text, lines[0]), strings.HasSuffix(out.Text, lines[len(lines)-2])
			if (keep != "tail") != first || (keep != "head") != last {
				t.Errorf("keep %q: head kept %v, tail kept %v", keep, first, last)
			}
		})
	}
	out := decode[FitOutput](t, call(t, cs, "fit_text", FitInput{Text: "short\n", Budget: 100}))
	if out.Cut || out.Text != "short\n" {
		t.Errorf("a text within the budget comes back unchanged, got %+v", out)
	}
	wantToolError(t, call(t, cs, "fit_text", FitInput{Text: text, Keep: "middle"}), `keep "middle": want both, head or tail`)
	wantToolError(t, call(t, cs, "fit_text", FitInput{Text: text, Budget: 3}), "budget 3 is too small to cut this text")
}

func TestSplitTask(t *testing.T) {
	dir := testRepo(t)
	s := testServer(t, dir)
	cs := connect(t, s, "test", "")
	c := o200k(t)
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "## Section %d\n\n", i)
		for k := range 8 {
			fmt.Fprintf(&b, "Paragraph %d.%d says the retry resends the request body after every failed attempt.\n", i, k)
		}
		b.WriteString("\n")
	}
	text := b.String()
	const limit = 1500
	args := SplitInput{Text: text, Budget: limit, Instructions: "Summarise this part."}
	man := decode[SplitOutput](t, call(t, cs, "split_task", args))

	// The tool is split.Split: same parts as the library.
	want, err := splitDirect(text, limit, "Summarise this part.", c)
	if err != nil {
		t.Fatal(err)
	}
	if man.Parts != len(want) || man.Parts < 3 || len(man.Manifest) != man.Parts || man.Kind != "text" {
		t.Fatalf("%d parts (%d in the manifest, kind %s), want %d (≥ 3)", man.Parts, len(man.Manifest), man.Kind, len(want))
	}
	for i := range want {
		args.Part = i + 1
		res := call(t, cs, "split_task", args)
		got := decode[SplitOutput](t, res)
		if got.Part == nil || got.Part.Text != want[i] || got.Part.Tokens > limit || got.Part.Tokens != c.Count(want[i]) {
			t.Fatalf("part %d differs from split.Split's, or is over %d tokens", i+1, limit)
		}
		if resultText(res) != want[i] || got.Manifest != nil {
			t.Errorf("part %d: want its text as the content and no manifest", i+1)
		}
		if man.Manifest[i].Tokens != got.Part.Tokens {
			t.Errorf("part %d: manifest says %d tokens, the part has %d", i+1, man.Manifest[i].Tokens, got.Part.Tokens)
		}
	}

	// A staged diff is read from the repository.
	writeFile(t, filepath.Join(dir, "orders", "orders.go"), "package orders\n\n// Order is gone.\n")
	gitAdd(t, dir, "orders/orders.go")
	st := decode[SplitOutput](t, call(t, cs, "split_task", SplitInput{Staged: true, Part: 1}))
	if st.Kind != "diff" || st.Parts != 1 || !strings.Contains(st.Part.Text, "+// Order is gone.") {
		t.Errorf("staged: %+v", st)
	}

	for _, tc := range []struct {
		name string
		args SplitInput
		want string
	}{
		{"no source", SplitInput{}, "pass exactly one of diff, text, range, staged and files (got 0)"},
		{"two sources", SplitInput{Text: "a", Staged: true}, "(got 2)"},
		{"part out of range", SplitInput{Text: text, Budget: limit, Instructions: args.Instructions, Part: 99}, fmt.Sprintf("part 99: the input has %d parts", man.Parts)},
		{"not a diff", SplitInput{Diff: "hello"}, "does not look like a unified diff"},
		{"bad range", SplitInput{Range: "main"}, `range wants REV..REV or REV...REV, got "main"`},
		{"no files", SplitInput{Files: []string{"*.rs"}}, "no file matches *.rs"},
		{"no room", SplitInput{Text: text, Budget: 20, Instructions: strings.Repeat("Read it all. ", 20)}, "cannot fit the budget"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantToolError(t, call(t, cs, "split_task", tc.args), tc.want)
		})
	}
}

func TestCheckPromptFiles(t *testing.T) {
	dir := testRepo(t)
	writeFile(t, filepath.Join(dir, "svc", "CLAUDE.md"), strings.Repeat("Keep it short. ", 3000))
	// Tracked: check finds an untracked prompt file only in a directory git
	// knows (index.FindFiles), and svc is new.
	gitAdd(t, dir, "svc/CLAUDE.md")
	s := testServer(t, dir)
	cs := connect(t, s, "test", "")
	out := decode[CheckOutput](t, call(t, cs, "check_prompt_files", CheckInput{}))
	if out.Root != dir || out.Files != 2 || out.Over != 1 || len(out.Results) != 2 {
		t.Fatalf("root %q, %d files, %d over: %+v", out.Root, out.Files, out.Over, out.Results)
	}
	if r := out.Results[0]; r.Path != "svc/CLAUDE.md" || r.Status != "over" || r.Chars != 45000 || !strings.Contains(r.Message, "45000 chars > 40000") {
		t.Errorf("first result: %+v, want svc/CLAUDE.md over its 40,000 chars", r)
	}
	if r := out.Results[1]; r.Path != "AGENTS.md" || r.Status != "ok" || r.Rule != "codex AGENTS.md chain" {
		t.Errorf("second result: %+v, want AGENTS.md ok", r)
	}
	// The repository's [check] budgets come from Options.CheckConfig.
	s, err := New(&Options{Dir: dir, CacheDir: t.TempDir(), CheckConfig: func(root string) (*check.Config, error) {
		if root != dir {
			t.Errorf("CheckConfig(%q), want the root %q", root, dir)
		}
		n := 10
		return &check.Config{ProjectDocMaxBytes: &n}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	out = decode[CheckOutput](t, call(t, connect(t, s, "test", ""), "check_prompt_files", CheckInput{Repo: "svc"}))
	if out.Over != 2 {
		t.Errorf("with project_doc_max_bytes = 10: %d over, want AGENTS.md too: %+v", out.Over, out.Results)
	}
	wantToolError(t, call(t, cs, "check_prompt_files", CheckInput{Encoding: "nope"}), `encoding: unknown encoding "nope"`)
}

// TestConcurrentCalls runs calls of every tool at once on one repository,
// while a file changes; run it with -race. Every selection of the same
// index state is the same.
func TestConcurrentCalls(t *testing.T) {
	dir := testRepo(t)
	s := testServer(t, dir)
	cs := connect(t, s, "test", "")
	c := o200k(t)
	args := SelectInput{Task: "retry.Do drops the request body", Budget: 600}
	first := decode[SelectOutput](t, call(t, cs, "select_context", args))
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan string, 4*n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == n/2 {
				writeFile(t, filepath.Join(dir, "orders", "more.go"), "package orders\n\n// More orders.\nfunc More() {}\n")
			}
			tools := []struct {
				name string
				args any
			}{
				{"select_context", args},
				{"count_tokens", CountInput{Text: "retry", Paths: []string{"retry/retry.go"}}},
				{"fit_text", FitInput{Text: strings.Repeat("line of text\n", 500), Budget: 100}},
				{"split_task", SplitInput{Text: strings.Repeat("paragraph of text.\n\n", 300), Budget: 400, Part: 1}},
			}
			tc := tools[i%len(tools)]
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.name, Arguments: tc.args})
			switch {
			case err != nil:
				errs <- fmt.Sprintf("%s: %v", tc.name, err)
			case res.IsError:
				errs <- fmt.Sprintf("%s: %s", tc.name, resultText(res))
			case tc.name == "select_context":
				var out SelectOutput
				b, _ := json.Marshal(res.StructuredContent)
				json.Unmarshal(b, &out)
				if n, _, _ := measure(res.StructuredContent, c); n > args.Budget || len(out.Files) == 0 || out.Files[0].Path != first.Files[0].Path {
					errs <- fmt.Sprintf("select_context: %d tokens (budget %d), files %+v", n, args.Budget, out.Files)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// After the dust settles the index holds the new file.
	out := decode[SelectOutput](t, call(t, cs, "select_context", SelectInput{Task: "func More in orders/more.go", Budget: 600}))
	if len(out.Files) == 0 || out.Files[0].Path != "orders/more.go" {
		t.Errorf("the new file is not first: %+v", out.Files)
	}
}

// TestPanicRecovered registers a tool that panics: the call is a tool error
// naming the tool and the panic, and the server serves the next call.
func TestPanicRecovered(t *testing.T) {
	s := testServer(t, testRepo(t))
	addTool(s, &mcp.Tool{Name: "boom", Description: "panics"}, func(ctx context.Context, req *mcp.CallToolRequest, in CountInput) (CountOutput, string, error) {
		var m map[string]int
		m[in.Text]++ // assignment to a nil map
		return CountOutput{}, "", nil
	})
	cs := connect(t, s, "test", "")
	wantToolError(t, call(t, cs, "boom", CountInput{Text: "x"}), "internal error in boom: assignment to entry in nil map")
	out := decode[CountOutput](t, call(t, cs, "count_tokens", CountInput{Text: "still here"}))
	if out.Total == 0 {
		t.Error("no count after the panic")
	}
}

func TestFitResult(t *testing.T) {
	c := o200k(t)
	type result struct {
		Text string `json:"text"`
	}
	// build returns b tokens of text with quotes and newlines, which JSON
	// escapes: the first round is over, the next fits.
	build := func(b int) (result, error) {
		var s strings.Builder
		for c.Count(s.String()) < b-4 {
			s.WriteString("say \"hi\"\n")
		}
		return result{s.String()}, nil
	}
	for _, tc := range []struct{ budget, maxBytes int }{
		{500, 1 << 20}, // tokens bind
		{5000, 2000},   // bytes bind
	} {
		out, n, err := fitResult(tc.budget, tc.maxBytes, c, build)
		if err != nil {
			t.Fatal(err)
		}
		tokens, size, _ := measure(out, c)
		if n != tokens || tokens > tc.budget || size > tc.maxBytes || size < tc.maxBytes*8/10 && tokens < tc.budget*8/10 {
			t.Errorf("budget %d, max %d bytes: %d tokens (reported %d), %d bytes", tc.budget, tc.maxBytes, tokens, n, size)
		}
	}
	// A selection is a step function of its budget: here builds for
	// 300-449 give one result, 5 tokens over the limit (JSON costs this
	// text 1.25 times its tokens). A round that steps by the ratio alone
	// lands on it again (as TestConcurrentCalls did, 402, 390 and 379 in
	// a row); a step that doubles on each repeat leaves it.
	steps := func(b int) (result, error) {
		if b >= 300 && b < 450 {
			return build(484)
		}
		return build(b)
	}
	if r, _ := steps(400); func() bool { n, _, _ := measure(r, c); return n <= 600 }() {
		t.Fatal("the step's result fits: the case tests nothing")
	}
	if out, _, err := fitResult(600, 1<<20, c, steps); err != nil {
		t.Errorf("a step over the limit: %v", err)
	} else if tokens, _, _ := measure(out, c); tokens > 600 {
		t.Errorf("a step over the limit: %d tokens", tokens)
	}
	if _, _, err := fitResult(10, 1<<20, c, func(int) (result, error) { return result{strings.Repeat("x ", 100)}, nil }); err == nil {
		t.Error("a result that never shrinks: want an error")
	}
}

func TestStamp(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(dir string)
		want   string // substring of changed(); "" for none
	}{
		{"nothing", func(string) {}, ""},
		{"edit", func(dir string) { appendTo(t, filepath.Join(dir, "orders", "orders.go"), "// more\n") }, "orders.go changed"},
		{"new file", func(dir string) { writeFile(t, filepath.Join(dir, "client", "new.go"), "package client\n") }, "client changed"},
		{"removed", func(dir string) { os.Remove(filepath.Join(dir, "README.md")) }, " changed"}, // its directory
		{"staged", func(dir string) { gitAdd(t, dir, "orders/orders.go") }, filepath.Join(".git", "index") + " changed"},
		{"racy", func(string) {}, "changed while it was indexed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testRepo(t)
			// Everything was last modified an hour ago, so that a change now
			// shows in the mtimes whatever their resolution.
			backdate(t, dir, time.Now().Add(-time.Hour))
			// start is when the build began, as the server takes it: the
			// time after indexing made the racy case fail on a loaded
			// machine, where indexing outlasts the racy window.
			start := time.Now()
			if tc.name == "racy" {
				backdate(t, filepath.Join(dir, "README.md"), start)
			}
			ix := newIndex(t, dir)
			st := takeStamp(ix, start)
			tc.change(dir)
			if got := st.changed(); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("changed() = %q, want %q", got, tc.want)
			}
		})
	}
}

func newIndex(t *testing.T, dir string) *index.Index {
	t.Helper()
	ix, err := index.New(context.Background(), &index.Options{Dir: dir, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// backdate sets the mtime of p and, for a directory, of everything under
// it to when.
func backdate(t *testing.T, p string, when time.Time) {
	t.Helper()
	err := filepath.Walk(p, func(q string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(q, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// gitAdd stages path (slash-separated) in the repository at dir.
func gitAdd(t *testing.T, dir, path string) {
	t.Helper()
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Add(path); err != nil {
		t.Fatal(err)
	}
}

// splitDirect returns the parts split.Split makes of text.
func splitDirect(text string, limit int, instructions string, c budget.Counter) ([]string, error) {
	res, err := split.Split(context.Background(), split.Input{Kind: split.Text, Sources: []split.Source{{Name: "text", Text: text}}},
		c, &split.Options{Budget: limit, Instructions: instructions})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range res.Parts {
		out = append(out, p.Text)
	}
	return out, nil
}

// TestFitTextTooSmall: a budget that cannot hold the smallest cut says
// what the result's fields took and the least budget that works, and that
// budget does work. Before, a budget of 50 failed saying "the budget is
// 14": what Fit was left after the fields, a number the caller never
// passed.
func TestFitTextTooSmall(t *testing.T) {
	cs := connect(t, testServer(t, testRepo(t)), "test", "")
	text := strings.Repeat("2026-11-29T17:00:00 worker-1 request id=1 status=200 latency=13ms\n", 400)
	least := regexp.MustCompile(`raise the budget to at least (\d+)$`)
	for _, tc := range []struct {
		budget int
		want   string
	}{
		{3, "budget 3 is too small to cut this text: the result's fields (JSON keys, counts, escapes) alone take "},
		{50, "budget 50 is too small to cut this text: the result's fields (JSON keys, counts, escapes) take "},
	} {
		t.Run(fmt.Sprint(tc.budget), func(t *testing.T) {
			res := call(t, cs, "fit_text", FitInput{Text: text, Budget: tc.budget})
			wantToolError(t, res, tc.want)
			m := least.FindStringSubmatch(resultText(res))
			if m == nil {
				t.Fatalf("%q names no least budget", resultText(res))
			}
			n, _ := strconv.Atoi(m[1])
			if out := decode[FitOutput](t, call(t, cs, "fit_text", FitInput{Text: text, Budget: n})); !out.Cut {
				t.Errorf("budget %d: not cut", n)
			}
			wantToolError(t, call(t, cs, "fit_text", FitInput{Text: text, Budget: n - 1}), fmt.Sprintf("raise the budget to at least %d", n))
		})
	}
}

// TestRepoErrors: a repo that is no directory is named as given, and only
// a relative one says where it was taken from. Before, an absolute
// "/nonexistent" was said to be taken from the default repository.
func TestRepoErrors(t *testing.T) {
	dir := testRepo(t)
	cs := connect(t, testServer(t, dir), "test", "")
	missing := filepath.Join(t.TempDir(), "nonexistent")
	file := filepath.Join(dir, "go.mod")
	for _, tc := range []struct {
		name, repo, want string
	}{
		{"absolute", missing, "repo " + missing + ": no such directory"},
		{"absolute file", file, "repo " + file + ": not a directory"},
		{"relative", "no/such/dir", "repo no/such/dir: no such directory (a relative repo is taken from " + dir + ": " +
			filepath.Join(dir, "no", "such", "dir") + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, "select_context", SelectInput{Task: "fix retry", Repo: tc.repo})
			if !res.IsError {
				t.Fatalf("want a tool error, got %s", resultText(res))
			}
			if diff := cmp.Diff(tc.want, resultText(res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
