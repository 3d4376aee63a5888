package slicer

import (
	"regexp"
	"strings"
	"sync"

	"github.com/ctxtrim/ctxtrim/slicer/internal/ascii"
)

// This file finds what a task names explicitly: paths, file names,
// stack-trace frames, identifiers and quoted strings. It is pure text work:
// it holds the mentions' types and patterns, mention_extract.go the steps
// of extractMentions; match.go matches the mentions against the index.

// mentions is what a task names explicitly.
type mentions struct {
	Paths  []pathMention  // path-like tokens and stack frames, in order of appearance
	Idents []identMention // identifier-like tokens, deduplicated
	Quotes []string       // quoted strings worth searching for verbatim
	// Flags are the long command-line flags the task writes (--pre,
	// --no-ignore-dot), by name without the dashes, deduplicated: code
	// that defines or reads one holds its name as a literal.
	Flags []string
	Links []linkMention // links to a file at a revision of some repository
	// Commits are the commit ids the task writes (7 to 40 hex digits, a
	// digit and a letter among them), in order, at most maxNamedCommits;
	// resolveCommits finds the files each changed.
	Commits []commitMention
	// blockOnly holds the quotes, and the flags as "--name", that the
	// task writes only in its code blocks: sample input (a config
	// snippet, a command line, a log) quotes them, and they point at the
	// fix no more than the block's other words (codeBlockWeight).
	blockOnly map[string]bool
	// outside is the task without URLs and without what codeBlocks
	// marks (blanked, line breaks kept): the text newQuery takes the
	// words written outside code blocks from.
	outside string
}

// commitMention is a commit the task names ("This reverts commit 1a2b3c4",
// "a regression from 5d6e7f8"). Files is what it changed, filled in by
// resolveCommits; nil until then, or when the repository lacks it.
type commitMention struct {
	ID    string
	Files []commitFile
}

// commitFile is a file a named commit changed, with the lines of its
// version at HEAD that the commit wrote, when the file has not changed
// since (so that the commit's line numbers still hold).
type commitFile struct {
	Path  string
	Lines []int
}

// linkMention is a link to a file of a hosted repository: a GitHub or
// GitLab "blob" URL, a Bitbucket "src" one. It names a file of this
// repository only when Repo is one of its remotes (see acceptLinks).
type linkMention struct {
	Repo string // host/owner/name, lowercased, as normalizeRemote gives it
	Path string // the file's path in the repository
	Line int    // the first line the link's anchor points at; 0 when none
}

// pathMention is a path or file name in the task, with the line of a stack
// frame when it came from one.
type pathMention struct {
	Path  string // slash-separated, without leading "./", "a/" or "b/"
	Line  int    // 1-based line from a stack frame; 0 when none
	Frame bool   // it came from a stack-trace frame
}

// identMention is an identifier in the task.
type identMention struct {
	Name     string
	Scope    string // "Client" in "Client.Do"; "" when none
	CodeLike bool   // written like code: camelCase, snake_case, call, backticks or dotted
	// Qualifier: it appears only before a dot ("path" in "path.Dir"), so
	// it names a package, type or variable, never a function or field.
	Qualifier bool
	// CodeBlock: it appears only in the task's code blocks (see
	// codeBlocks), as a bug report's reproduction writes the user's own
	// names and the public calls it makes.
	CodeBlock bool
}

// mentionPatterns are the regular expressions of extractMentions. They
// are compiled on first use, once (at package initialisation they cost
// every ctxtrim process, selecting or not, part of a millisecond); they
// are immutable, so sharing them is safe.
type mentionPatterns struct {
	// pyFrame matches Python traceback frames: File "x.py", line 9.
	pyFrame *regexp.Regexp
	// frame matches path:line frames of Go, JavaScript, Java, Rust, C and
	// compiler messages: file.go:123, src/x.ts:10:5, (Foo.java:42).
	frame *regexp.Regexp
	// path matches path-like tokens: words joined by slashes or ending in
	// a file extension.
	path *regexp.Regexp
	// url matches URLs. Their paths name files of other repositories,
	// and are no path mentions; only a link to a file of this one is.
	url *regexp.Regexp
	// link matches a URL of a file at a revision (GitHub and Gitea
	// /blob/ and /raw/, GitLab /-/blob/, Bitbucket /src/): group 1 is the
	// host, 2 the repository (owner/name, or a GitLab group path), 3 the
	// file's path, 4 the anchor's first line (#L10, #L10-L20, #lines-10).
	link *regexp.Regexp
	// ident matches identifiers, dotted selectors included.
	ident *regexp.Regexp
	// quote matches double-quoted, backquoted and single-quoted strings on
	// one line.
	quote *regexp.Regexp
	// flag matches a long command-line flag, --all or --no-verify,
	// after a space, a quote or an opening bracket; group 1 is its name.
	flag *regexp.Regexp
	// flagName matches a whole flag name, flag's group 1.
	flagName *regexp.Regexp
	// issueRef matches a reference to an issue or pull request with the
	// word that introduces it: "Closes #12", "fixes owner/repo#3", "see
	// GH-40", "refs: https://…". GitHub's closing keywords and their kin.
	// Group 1 is the reference.
	issueRef *regexp.Regexp
	// trailer matches a git trailer line: a hyphenated key (Signed-off-by,
	// Assisted-by, Change-Id) or any key whose value ends in an address
	// in angle brackets.
	trailer *regexp.Regexp
	// commit matches a commit id: 7 to 40 lowercase hex digits as a word.
	commit *regexp.Regexp
	// signoff matches a trailer line that credits a person by address
	// (Co-authored-by: A B <a@b.c>): metadata wherever it stands, as in
	// the body of a squash merge, which repeats each commit's trailers.
	signoff *regexp.Regexp
}

// mentionREs returns the compiled mentionPatterns.
var mentionREs = sync.OnceValue(func() *mentionPatterns {
	return &mentionPatterns{
		pyFrame:  regexp.MustCompile(`File "([^"\n]+)", line (\d+)`),
		frame:    regexp.MustCompile(`([A-Za-z0-9_.$@~+\-/\\]*[A-Za-z0-9_$\-]\.[A-Za-z][A-Za-z0-9]{0,9}):(\d+)`),
		path:     regexp.MustCompile(`[A-Za-z0-9_.@~+\-]*(?:/[A-Za-z0-9_.@~+\-]+)+/?|[A-Za-z0-9_\-+@]+(?:\.[A-Za-z0-9_\-]+)*\.[A-Za-z][A-Za-z0-9]{0,9}\b`),
		url:      regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://\S+`),
		ident:    regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*(\(\))?`),
		flag:     regexp.MustCompile("(?:^|[\\s(\\[`'\"])--(" + flagNameRE + ")\\b"),
		flagName: regexp.MustCompile(`^` + flagNameRE + `$`),
		link:     regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.\-]*://([^/\s]+)/((?:[^/\s]+/)*?[^/\s]+)/(?:-/)?(?:blob|raw|src)/[^/\s]+/([^#?\s]+)(?:\?[^#\s]*)?(?:#(?:L|lines-)(\d+)\S*)?$`),
		issueRef: regexp.MustCompile(`(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?|see|addresse[sd]?)\s*:?\s+((?:[\w.\-]+/[\w.\-]+)?#\d+|gh-\d+|[a-z][a-z0-9+.\-]*://\S+)`),
		trailer:  regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+:\s|[A-Za-z][A-Za-z0-9-]*:.*<[^<>\s]+@[^<>\s]+>\s*$)`),
		commit:   regexp.MustCompile(`\b[0-9a-f]{7,40}\b`),
		signoff:  regexp.MustCompile(`^\s*[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+:.*<[^<>\s]+@[^<>\s]+>\s*$`),
		quote:    regexp.MustCompile("\"([^\"\n]{4,200})\"|`([^`\n]{2,200})`|(?:^|[\\s(\\[{=:,])'([^'\n]{4,200})'"),
	}
})

// flagNameRE is a long flag's name: words of letters and digits joined
// by single dashes, the first starting with a letter.
const flagNameRE = `[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*`

// codeBlocks reports, for each byte of task, whether it lies in a fenced
// code block, from its opening fence (whose info string is the block's
// language) to the line before its closing one, on a line that is not a
// stack trace's: a frame (a Python "File …, line N" and the source line
// after it, a path:line, a Java or JavaScript "at …") points into the
// repository wherever it stands, while the rest of a bug report's block
// is mostly the reporter's own code, naming the public calls it makes and
// its own variables. Fences follow CommonMark: three or more backticks or
// tildes (a backtick fence's info string holds no backtick, so
// ```x``` on one line is inline code), closed by a line of at least as
// many of the same character and nothing else; one left open runs to the
// end.
func codeBlocks(task string) []bool {
	in := make([]bool, len(task))
	re := mentionREs()
	var fence string // the open fence; "" outside a block
	afterPyFrame := false
	off := 0
	for _, l := range strings.SplitAfter(task, "\n") {
		t := strings.TrimSpace(l)
		mark := false
		switch {
		case fence == "":
			if f := fenceOpening(t); f != "" {
				fence, mark = f, true
			}
		case strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "":
			fence = ""
		default:
			py := re.pyFrame.MatchString(l)
			mark = !py && !afterPyFrame && !re.frame.MatchString(l) && !strings.HasPrefix(t, "at ")
			afterPyFrame = py
		}
		if mark {
			for i := off; i < off+len(l); i++ {
				in[i] = true
			}
		}
		off += len(l)
	}
	return in
}

// fenceOpening returns the fence that line (trimmed) opens, its run of
// backticks or tildes, or "" when it opens none.
func fenceOpening(line string) string {
	if line == "" || line[0] != '`' && line[0] != '~' {
		return ""
	}
	n := len(line) - len(strings.TrimLeft(line, line[:1]))
	if n < 3 || line[0] == '`' && strings.Contains(line[n:], "`") {
		return ""
	}
	return line[:n]
}

// blankOut returns task with the bytes in marks blanked, line breaks kept.
func blankOut(task string, in []bool) string {
	b := []byte(task)
	for i, blank := range in {
		if blank && b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// cleanMentionPath normalizes a path written in a task, or returns "" when
// it cannot name a file in a repository.
func cleanMentionPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	p = strings.Trim(p, ".,;:()[]{}<>'\"`")
	for _, pre := range []string{"./", "a/", "b/"} {
		if strings.HasPrefix(p, pre) && len(p) > len(pre) {
			p = p[len(pre):]
		}
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" || p == "." || p == ".." || strings.HasPrefix(p, "../") && strings.Count(p, "/") < 2 {
		return ""
	}
	// Version numbers and decimals: 1.2.3, v0.5.
	if strings.Trim(p, "0123456789.v") == "" {
		return ""
	}
	return p
}

// looksLikeURLHost reports whether s is a host name such as github.com,
// which the path patterns would otherwise take for a file name.
func looksLikeURLHost(s string) bool {
	first := s
	if i := strings.IndexByte(s, '/'); i >= 0 {
		first = s[:i]
	}
	for _, tld := range []string{".com", ".org", ".net", ".io", ".dev"} {
		if strings.HasSuffix(first, tld) && strings.Count(first, ".") >= 1 && !strings.Contains(s[len(first):], ".") {
			return true
		}
	}
	return false
}

// isCodeLike reports whether an identifier is written the way code is, not
// prose: camelCase humps, an inner underscore, or an inner capital.
func isCodeLike(s string) bool {
	if strings.Contains(strings.Trim(s, "_"), "_") {
		return true
	}
	for i := 1; i < len(s); i++ {
		if ascii.IsUpper(s[i]) && (ascii.IsLower(s[i-1]) || ascii.IsDigit(s[i-1])) {
			return true
		}
	}
	return false
}

// isFileExt reports whether s is a common source or text file extension.
func isFileExt(s string) bool {
	switch strings.ToLower(s) {
	case "go", "py", "js", "ts", "tsx", "jsx", "mjs", "cjs", "java", "kt", "rb", "rs", "c", "h",
		"cc", "cpp", "hpp", "cs", "php", "swift", "scala", "sh", "md", "txt", "json", "yaml",
		"yml", "toml", "xml", "html", "css", "scss", "sql", "proto", "mod", "sum", "lock", "cfg",
		"ini", "rst", "vue", "svelte", "lua", "ex", "exs", "erl", "hs", "ml", "dart", "m", "mm":
		return true
	}
	return false
}

// taskText returns the task without what names no code: a closing
// paragraph of git trailers (Signed-off-by, "Assisted-by: Claude Opus"),
// a trailer that credits someone by address wherever it stands, and the
// words that introduce an issue reference ("Closes #12": close
// would match every Close method of a repository).
func taskText(task string) string {
	re := mentionREs()
	lines := strings.Split(strings.TrimRight(task, " \t\r\n"), "\n")
	last := len(lines) - 1
	for last >= 0 && strings.TrimSpace(lines[last]) != "" {
		last--
	}
	// The block after the last blank line is trailers when every line is
	// one or continues one, and text comes before it. There is no block
	// when the last line is itself blank (a form feed that TrimRight
	// kept): an empty block would have dropped that line as trailers.
	if last > 0 && last < len(lines)-1 && strings.TrimSpace(strings.Join(lines[:last], "")) != "" {
		trailers := true
		for k, l := range lines[last+1:] {
			cont := k > 0 && l != strings.TrimLeft(l, " \t")
			if !cont && !re.trailer.MatchString(l) {
				trailers = false
				break
			}
		}
		if trailers {
			lines = lines[:last]
		}
	}
	kept := lines[:0:0]
	for _, l := range lines {
		if !re.signoff.MatchString(l) {
			kept = append(kept, l)
		}
	}
	if strings.TrimSpace(strings.Join(kept, "")) != "" {
		lines = kept
	}
	// A URL stays: it may link to a file of this repository (Links).
	return re.issueRef.ReplaceAllStringFunc(strings.Join(lines, "\n"), func(m string) string {
		if ref := re.issueRef.FindStringSubmatch(m)[1]; strings.Contains(ref, "://") {
			return " " + ref
		}
		return " "
	})
}

// normalizeRemote returns a remote's URL as host/owner/name, lowercased,
// the form linkMention.Repo takes: https://github.com/psf/requests.git,
// git@github.com:psf/requests and ssh://git@github.com:22/psf/requests
// all give github.com/psf/requests. "" when it names no host.
func normalizeRemote(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if i := strings.Index(u, ":"); i > 1 && !strings.Contains(u[:i], "/") {
		// scp-like, as git reads it; one letter is a Windows drive
		u = u[:i] + "/" + u[i+1:]
	} else {
		return ""
	}
	if i := strings.Index(u, "@"); i >= 0 && i < strings.Index(u+"/", "/") {
		u = u[i+1:]
	}
	host, rest, ok := strings.Cut(u, "/")
	if !ok || host == "" || rest == "" {
		return ""
	}
	if h, port, ok := strings.Cut(host, ":"); ok && port != "" && allDigits([]byte(port)) {
		host = h
	}
	rest = strings.TrimSuffix(strings.TrimSuffix(rest, "/"), ".git")
	return host + "/" + rest
}

// acceptLinks turns the task's links to files of this repository (one of
// remotes, normalized) into path mentions, a line anchor into a frame's
// line; a link to another repository names none of its files, however
// alike their paths (README.md, setup.py).
func (m *mentions) acceptLinks(remotes map[string]bool) {
	for _, l := range m.Links {
		if !remotes[l.Repo] {
			continue
		}
		dup := false
		for k := range m.Paths {
			if m.Paths[k].Path == l.Path {
				if l.Line > 0 && m.Paths[k].Line == 0 {
					m.Paths[k].Line, m.Paths[k].Frame = l.Line, true
				}
				dup = true
			}
		}
		if !dup {
			m.Paths = append(m.Paths, pathMention{Path: l.Path, Line: l.Line, Frame: l.Line > 0})
		}
	}
}
