package slicer

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractMentions(t *testing.T) {
	tests := []struct {
		name string
		task string
		want mentions
	}{
		{
			name: "go panic frame",
			task: "panic in\n\t/home/me/src/app/internal/retry/retry.go:42 +0x1d",
			want: mentions{
				Paths: []pathMention{{Path: "/home/me/src/app/internal/retry/retry.go", Line: 42, Frame: true}},
			},
		},
		{
			name: "python traceback",
			task: `File "app/models.py", line 9, in save`,
			want: mentions{
				Paths:  []pathMention{{Path: "app/models.py", Line: 9, Frame: true}},
				Quotes: []string{"app/models.py"},
			},
		},
		{
			name: "quoted error and code identifiers",
			task: "Client.Do fails with \"connection reset by peer\" in `retryBody()`",
			want: mentions{
				Quotes: []string{"connection reset by peer", "retryBody()"},
			},
		},
		{
			name: "flags",
			task: "make `--pre` and --type=all work; --field-{context,match}-separator; -x; (--no-ignore-dot) --pre --ip",
			want: mentions{
				Flags: []string{"pre", "type", "field-context-separator", "field-match-separator", "no-ignore-dot", "ip"},
			},
		},
		{
			name: "brace patterns of flags",
			task: "add --color{,ed} and --x{a,b and --sort-{path,,name}; --max-{count}-- --no{-,}ignore --y-{a b} --z{a,\nb} --w{" + strings.Repeat("a,", 100) + "}",
			want: mentions{
				Flags: []string{"color", "colored", "no-ignore", "noignore"},
			},
		},
		{
			name: "path with a/ prefix and a URL",
			task: "see a/pkg/x.go and https://github.com/o/r/blob/main/y.go",
			want: mentions{
				Paths: []pathMention{{Path: "pkg/x.go"}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := extractMentions(tc.task) // identifiers: TestExtractMentionsIdents
			if diff := cmp.Diff(tc.want.Paths, got.Paths); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want.Quotes, got.Quotes); diff != "" {
				t.Errorf("quotes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want.Flags, got.Flags); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractMentionsIdents(t *testing.T) {
	got := extractMentions("Client.Do drops the body; see `newRetrier` and parse_header() but not Retry; res.Body, and body.Close")
	want := map[string]identMention{
		"Client":       {Name: "Client", CodeLike: true, Qualifier: true},
		"res":          {Name: "res", CodeLike: true, Qualifier: true},
		"Body":         {Name: "Body", Scope: "res", CodeLike: true},
		"Do":           {Name: "Do", Scope: "Client", CodeLike: true},
		"newRetrier":   {Name: "newRetrier", CodeLike: true},
		"parse_header": {Name: "parse_header", CodeLike: true},
		"Retry":        {Name: "Retry"},
		"body":         {Name: "body", CodeLike: true}, // a qualifier once, a word once
	}
	have := map[string]identMention{}
	for _, id := range got.Idents {
		have[id.Name] = id
	}
	for name, w := range want {
		if diff := cmp.Diff(w, have[name]); diff != "" {
			t.Errorf("ident %s (-want +got):\n%s", name, diff)
		}
	}
}

// TestExtractMentionsIdentsSkipURLs: a URL's host and path are dotted
// and slashed like code, but name none; identifiers around it still count.
func TestExtractMentionsIdentsSkipURLs(t *testing.T) {
	got := extractMentions("fixed https://code.google.com/p/google-gson/issues/detail?id=509 in Gson.fromJson")
	var names []string
	for _, id := range got.Idents {
		names = append(names, id.Name)
	}
	want := []string{"Gson", "fixed", "fromJson", "in"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("idents (-want +got):\n%s", diff)
	}
}

func FuzzExtractMentions(f *testing.F) {
	for _, s := range []string{
		`File "x.py", line 9`, "a.go:12:3", "`x` \"yyyy\" 'zzzz'", "../../..", "http://x.com/a.go:1",
		"https://github.com/o/r/blob/main/a%2Fb/c.go#L9-L12).", "https://h/g/-/blob/x/../y#lines-3", "--a-b --cd={x} (--e_f) '--gh'", "--field-{context,match}-separator --x{,y}z --{a,b}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := extractMentions(s)
		if len(m.Commits) > maxNamedCommits {
			t.Fatalf("%d commits from %q", len(m.Commits), s)
		}
		for _, c := range m.Commits {
			if len(c.ID) < 7 || len(c.ID) > 40 || strings.Trim(c.ID, "0123456789abcdef") != "" || !strings.Contains(s, c.ID) {
				t.Fatalf("bad commit id %q from %q", c.ID, s)
			}
		}
		if len(m.Flags) > maxFlags {
			t.Fatalf("%d flags from %q", len(m.Flags), s)
		}
		for _, fl := range m.Flags {
			// A flag is written whole, or comes out of a brace pattern.
			braced := strings.Contains(s, "{") && strings.Contains(s, "}")
			if len(fl) < minFlagLen || !mentionREs().flagName.MatchString(fl) || !strings.Contains(s, "--"+fl) && !braced {
				t.Fatalf("bad flag %q from %q", fl, s)
			}
		}
		for _, p := range m.Paths {
			if p.Path == "" || p.Line < 0 {
				t.Fatalf("bad path mention %+v from %q", p, s)
			}
		}
		for _, l := range m.Links {
			if l.Path == "" || l.Line < 0 || !strings.Contains(l.Repo, "/") || l.Repo != strings.ToLower(l.Repo) {
				t.Fatalf("bad link mention %+v from %q", l, s)
			}
		}
	})
}

func TestExtractCommits(t *testing.T) {
	tests := []struct {
		name, task string
		want       []string
	}{
		{"revert message", "Revert \"fix: x\"\n\nThis reverts commit 833fc302f3f4a5030f49207b5fbf10422f3247a2.", []string{"833fc302f3f4a5030f49207b5fbf10422f3247a2"}},
		{"short ids, once each", "a regression from 1a2b3c4 (see 1a2b3c4 and e519c7a5)", []string{"1a2b3c4", "e519c7a5"}},
		{"in a URL", "https://github.com/o/r/commit/0a2919f34fcbc635", []string{"0a2919f34fcbc635"}},
		{"words and numbers are no ids", "deadbeef facade 20240131 0x1f2e3d4c ABCDEF1234", nil},
		{"too short or too long", "abc1234 is; ab12cd is not; " + strings.Repeat("a1", 21) + " is not", []string{"abc1234"}},
		{"at most four", "1111111a 2222222b 3333333c 4444444d 5555555e", []string{"1111111a", "2222222b", "3333333c", "4444444d"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range extractMentions(tc.task).Commits {
				got = append(got, c.ID)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("commits of %q (-want +got):\n%s", tc.task, diff)
			}
		})
	}
}

func TestTaskText(t *testing.T) {
	tests := []struct {
		name, task, want string
	}{
		{
			name: "closing keyword and trailers",
			task: "git: push, reject tag updates\n\nCloses #3298\n\nAssisted-by: Claude Opus 4.8 <noreply@anthropic.com>\nSigned-off-by: A B <a@b.c>",
			want: "git: push, reject tag updates\n\n ",
		},
		{
			name: "references of every form",
			task: "Aliased app.helpers(). Closes #481, fixes o/r#2, resolved GH-7, see https://x.org/i/9 and refs: #3",
			want: "Aliased app.helpers().  ,  ,  ,  https://x.org/i/9 and  ",
		},
		{
			name: "a trailer continued on an indented line",
			task: "Fix it\n\nCo-authored-by: A B\n  <a@b.c>",
			want: "Fix it",
		},
		{
			name: "credits inside a squash merge's body",
			task: "Drop it (#1073)\n\n* Drop it\n\nCo-authored-by: F M <f@m.c>\n\n* Linting",
			want: "Drop it (#1073)\n\n* Drop it\n\n\n* Linting",
		},
		{
			name: "an error message is not a trailer",
			task: "Fix the retry\n\nError: connection refused",
			want: "Fix the retry\n\nError: connection refused",
		},
		{
			name: "a paragraph that is partly trailers stays",
			task: "Fix the retry\n\nChange-Id: I12ab\nand the close path",
			want: "Fix the retry\n\nChange-Id: I12ab\nand the close path",
		},
		{
			name: "a task of trailers alone stays",
			task: "Signed-off-by: A <a@b.c>",
			want: "Signed-off-by: A <a@b.c>",
		},
		{
			name: "words without a reference stay",
			task: "close the pool; see the retry loop; fixes the #-prefixed names",
			want: "close the pool; see the retry loop; fixes the #-prefixed names",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := taskText(tc.task); got != tc.want {
				t.Errorf("taskText(%q) = %q, want %q", tc.task, got, tc.want)
			}
		})
	}
}

// FuzzTaskText checks that cleaning a task never panics, never adds text,
// and leaves alone a task with nothing it removes but trailing space: no
// colon (trailers, "refs:", URLs) and no '#' or "GH-" (issue numbers).
func FuzzTaskText(f *testing.F) {
	for _, s := range []string{
		"Fix it\n\nSigned-off-by: A <a@b.c>",
		"Closes #12, fixes o/r#3, see https://x.y/z",
		"Fix the retry\n\nError: connection refused",
		"\n\nAssisted-by: X\n  cont",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, task string) {
		got := taskText(task)
		if len(got) > len(task) {
			t.Fatalf("taskText grew %q to %q", task, got)
		}
		if !strings.ContainsAny(task, ":#") && !strings.Contains(strings.ToLower(task), "gh-") && got != strings.TrimRight(task, " \t\r\n") {
			t.Fatalf("taskText(%q) = %q, want it unchanged", task, got)
		}
	})
}

func TestExtractLinks(t *testing.T) {
	tests := []struct {
		name, task string
		want       []linkMention
	}{
		{
			name: "GitHub permalink with a line range, in parentheses",
			task: "breaks here (https://github.com/Psf/Requests/blob/4e5b8f1/src/requests/sessions.py#L500-L510).",
			want: []linkMention{{Repo: "github.com/psf/requests", Path: "src/requests/sessions.py", Line: 500}},
		},
		{
			name: "GitLab group path and /-/blob/",
			task: "see https://gitlab.com/grp/sub/proj/-/blob/main/lib/a%20b.rb#L7",
			want: []linkMention{{Repo: "gitlab.com/grp/sub/proj", Path: "lib/a b.rb", Line: 7}},
		},
		{
			name: "Bitbucket src with lines anchor, and a raw link without one",
			task: "https://bitbucket.org/o/r/src/abc/x/y.py#lines-12 and https://github.com/o/r/raw/main/z.go",
			want: []linkMention{
				{Repo: "bitbucket.org/o/r", Path: "x/y.py", Line: 12},
				{Repo: "github.com/o/r", Path: "z.go"},
			},
		},
		{
			name: "issue, tree and plain URLs are no file links",
			task: "https://github.com/o/r/issues/630 https://github.com/o/r/tree/main/pkg https://bugs.python.org/issue1208304",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, extractMentions(tc.task).Links); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNormalizeRemote(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/psf/requests.git":    "github.com/psf/requests",
		"git@github.com:psf/requests.git":        "github.com/psf/requests",
		"ssh://git@github.com:22/psf/requests":   "github.com/psf/requests",
		"https://user:tok@GitLab.com/grp/sub/p/": "gitlab.com/grp/sub/p",
		"/work/.mirror/psf+requests/repo":        "",
		"file:///srv/git/r.git":                  "",
		"C:/repos/r":                             "",
		"github.com":                             "",
	} {
		if got := normalizeRemote(in); got != want {
			t.Errorf("normalizeRemote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCodeBlocks: a fenced block is marked up to its closing fence (its
// opening fence holds its language), the text around it is not, nor a
// stack trace's lines inside it.
func TestCodeBlocks(t *testing.T) {
	for _, tc := range []struct {
		name, task string
		want       []string // the marked lines, trimmed
	}{
		{"backticks", "Title\n\n```go\nc := New()\nc.Do()\n```\nafter", []string{"```go", "c := New()", "c.Do()"}},
		{"tildes, a longer fence", "t\n~~~~\nx = 1\n~~~~\ny", []string{"~~~~", "x = 1"}},
		{"backticks do not close tildes", "t\n~~~\na()\n```\nb()\n~~~\nc", []string{"~~~", "a()", "```", "b()"}},
		{"left open runs to the end", "t\n```\na()\nb()", []string{"```", "a()", "b()"}},
		{"inline code on one line", "t\n```x()``` is slow\ny()", nil},
		{"a fence with text closes nothing", "t\n```\na()\n```bash\nb()\n```\nc()", []string{"```", "a()", "```bash", "b()"}},
		{"a shorter fence closes nothing", "t\n````\na()\n```\n````\nc()", []string{"````", "a()", "```"}},
		{"indented fence", "t\n  ```js\n  app.get()\n  ```", []string{"```js", "app.get()"}},
		{"no block", "Fix `Do` in client.go\n\n    indented()", nil},
		{"python traceback", "t\n```\nr = s.get(u)\nTraceback (most recent call last):\n  File \"/x/requests/utils.py\", line 830, in select_proxy\n    urlparts = urlparse(url)\nKeyError: ''\n```",
			[]string{"```", "r = s.get(u)", "Traceback (most recent call last):", "KeyError: ''"}},
		{"go and java frames", "t\n```\npanic: boom\n\t/src/app/pick.go:9 +0x1d\n\tat com.x.Gson.fromJson(Gson.java:12)\nmine()\n```", []string{"```", "panic: boom", "mine()"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := codeBlocks(tc.task)
			if len(in) != len(tc.task) {
				t.Fatalf("%d marks for %d bytes", len(in), len(tc.task))
			}
			var got []string
			off := 0
			for _, l := range strings.SplitAfter(tc.task, "\n") {
				if in[off] != in[off+len(l)-1] {
					t.Errorf("line %q is marked in part", l)
				}
				if in[off] {
					got = append(got, strings.TrimSpace(l))
				}
				off += len(l)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("marked lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExtractMentionsCodeBlock: a name only in code blocks is marked, one
// the text also writes is not, whichever comes first.
func TestExtractMentionsCodeBlock(t *testing.T) {
	m := extractMentions("Do ignores Retries\n\n```go\nc := NewClient(Options{Retries: 3})\nc.Do(req)\n```\nThe Options are fine.")
	got := map[string]bool{}
	for _, id := range m.Idents {
		got[id.Name] = id.CodeBlock
	}
	want := map[string]bool{"Do": false, "Retries": false, "Options": false, "NewClient": true, "req": true, "ignores": false, "go": true}
	for name, block := range want {
		if b, ok := got[name]; !ok || b != block {
			t.Errorf("%s: CodeBlock %v (found %v), want %v", name, b, ok, block)
		}
	}
}

// TestExtractMentionsBlockOnly: flags and quotes a task writes only in its
// code blocks are sample input (mentions.blockOnly); written once outside,
// they are the task's own.
func TestExtractMentionsBlockOnly(t *testing.T) {
	task := "A trailing comment breaks --max-columns in `APP_CONFIG_PATH`\n\n```\n--smart-case      # \"case-insensitive\"\n--max-columns=150\nrg: unrecognized flag `--smart-case`\n```\nAlso \"case-insensitive\" later; ```inline --inline-flag```."
	m := extractMentions(task)
	want := map[string]bool{"--smart-case": true, "--max-columns": false, "APP_CONFIG_PATH": false, "case-insensitive": false, "--inline-flag": false}
	for k, block := range want {
		if m.blockOnly[k] != block {
			t.Errorf("%s: block only %v, want %v (flags %v, quotes %v)", k, m.blockOnly[k], block, m.Flags, m.Quotes)
		}
	}
	if !slices.Contains(m.Flags, "smart-case") || !slices.Contains(m.Flags, "inline-flag") {
		t.Errorf("flags %v lack smart-case or inline-flag", m.Flags)
	}
	lits := literals(m)
	for _, l := range lits {
		if want := m.blockOnly[map[bool]string{true: "--", false: ""}[l.flag]+string(l.text)]; l.block != want {
			t.Errorf("literal %s: block %v, want %v", l, l.block, want)
		}
	}
}
