package split

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// unitKind says how a unit is cut and rendered.
type unitKind uint8

const (
	unitText     unitKind = iota // text: sections, paragraphs, lines
	unitDiffFile                 // one file of a diff: header + hunks
	unitFile                     // one file of a file set
)

// unit is the coarsest piece of the input: a file of a diff, a file of a
// file set, a diff's preamble, or a whole text.
type unit struct {
	kind       unitKind
	name       string // path, or the source name
	src        int    // source index
	start, end int    // byte range in the source
	headerEnd  int    // unitDiffFile: end of the file header (start of the first hunk)
	hunks      []hunk // unitDiffFile
	// commit numbers the commits of a multi-commit diff (git log -p, git
	// format-patch) from 0: units are kept in commit order, and a commit's
	// header before its files.
	commit int
}

// hunk is one "@@" hunk of a diff file.
type hunk struct {
	start     int    // the "@@" line
	headerEnd int    // end of the "@@" line
	bodyEnd   int    // end of the lines the header counts (plus "\ No newline" lines)
	end       int    // end including trailing lines up to the next hunk or file
	oldStart  int    // numbers from the header
	oldCount  int    //
	newStart  int    //
	newCount  int    //
	section   string // text after the closing "@@", including its leading space
	valid     bool   // header parsed and body matched its counts
}

// lineEnd returns the end of the line starting at i (after its '\n', or len).
func lineEnd(s string, i int) int {
	j := strings.IndexByte(s[i:], '\n')
	if j < 0 {
		return len(s)
	}
	return i + j + 1
}

// isSectionStart reports whether the line at i starts a file section of a
// diff: a "diff " line, or a "--- " line directly followed by "+++ " and "@@".
func isSectionStart(s string, i int) bool {
	if strings.HasPrefix(s[i:], "diff ") {
		return true
	}
	if !strings.HasPrefix(s[i:], "--- ") {
		return false
	}
	j := lineEnd(s, i)
	if !strings.HasPrefix(s[j:], "+++ ") {
		return false
	}
	return strings.HasPrefix(s[lineEnd(s, j):], "@@ ")
}

// isCommitStart reports whether the line at i starts a commit of a
// multi-commit diff: "commit <hash>" (git log -p, with or without
// decorations) or "From <hash> " (git format-patch's mbox separator).
func isCommitStart(s string, i int) bool {
	var rest string
	switch {
	case strings.HasPrefix(s[i:], "commit "):
		rest = s[i+len("commit "):]
	case strings.HasPrefix(s[i:], "From "):
		rest = s[i+len("From "):]
	default:
		return false
	}
	n := 0
	for n < len(rest) && (rest[n] >= '0' && rest[n] <= '9' || rest[n] >= 'a' && rest[n] <= 'f') {
		n++
	}
	return (n == 40 || n == 64) && (n == len(rest) || rest[n] == ' ' || rest[n] == '\n' || rest[n] == '\r')
}

// commitMark is the short form of a commit's header that opens a part
// continuing the commit from an earlier part: the part's diff sections
// then still say which commit (id and subject) they belong to.
type commitMark struct {
	line int    // offset of the commit's "commit <id>" or "From <id>" line
	text string // the marker, with its newline
}

// maxSubject bounds the subject a commit marker repeats, in bytes: the
// marker is paid for in every part that continues the commit.
const maxSubject = 100

// commitMarks returns, per commit number of units, the marker of parts
// that continue it, found in the commit's preamble unit; a commit whose
// preamble holds no commit line (a plain diff's preamble) has none.
func commitMarks(text string, units []unit) []commitMark {
	var marks []commitMark
	for _, u := range units {
		if u.kind != unitText {
			continue
		}
		for len(marks) <= u.commit {
			marks = append(marks, commitMark{line: -1})
		}
		for i := u.start; i < u.end; i = lineEnd(text, i) {
			if isCommitStart(text, i) {
				marks[u.commit] = commitMark{line: i, text: continuedCommit(text[i:u.end])}
				break
			}
		}
	}
	return marks
}

// continuedCommit renders the marker of the commit whose header and
// message is header: "commit <id> (continued): <subject>", the form git
// log writes, so that a model reads it as the commit it continues. The
// subject is the message's first line (git log), or the Subject: line
// without its "[PATCH]" tag (git format-patch).
func continuedCommit(header string) string {
	first := header[:lineEnd(header, 0)]
	id := strings.TrimPrefix(strings.TrimPrefix(first, "commit "), "From ")
	id, _, _ = strings.Cut(strings.TrimRight(id, "\r\n"), " ")
	subject := ""
	inMessage := false
	for i := lineEnd(header, 0); i < len(header); i = lineEnd(header, i) {
		line := strings.TrimRight(header[i:lineEnd(header, i)], "\r\n")
		if s, ok := strings.CutPrefix(line, "Subject: "); ok {
			if strings.HasPrefix(s, "[") {
				if _, rest, ok := strings.Cut(s, "] "); ok {
					s = rest
				}
			}
			subject = s
			break
		}
		if strings.TrimSpace(line) == "" {
			inMessage = true
			continue
		}
		if inMessage {
			subject = strings.TrimSpace(line)
			break
		}
	}
	if len(subject) > maxSubject {
		cut := maxSubject
		for cut > 0 && !utf8.RuneStart(subject[cut]) {
			cut--
		}
		subject = subject[:cut] + "…"
	}
	if subject == "" {
		return "commit " + id + " (continued)\n"
	}
	return "commit " + id + " (continued): " + subject + "\n"
}

// parseDiff cuts a unified diff into units: a preamble (text before the
// first file, such as a commit message) and one unit per file section;
// for a multi-commit diff (git log -p, git format-patch), each commit's
// header and message is a preamble unit before its files (isCommitStart).
// It never fails: anything it does not understand stays in the unit it
// follows, and the units always tile text exactly.
func parseDiff(text string, src int) []unit {
	var units []unit
	commit := 0
	// boundary reports whether a file section or a hunk ends at j.
	boundary := func(j int) bool { return isSectionStart(text, j) || isCommitStart(text, j) }
	i := 0
	// Preamble.
	for i < len(text) && !isSectionStart(text, i) && (i == 0 || !isCommitStart(text, i)) {
		i = lineEnd(text, i)
	}
	if i > 0 {
		units = append(units, unit{kind: unitText, name: "(preamble)", src: src, start: 0, end: i})
	}
	for i < len(text) {
		if isCommitStart(text, i) {
			// A commit's header and message, up to its first file.
			if len(units) > 0 {
				commit++
			}
			j := lineEnd(text, i)
			for j < len(text) && !boundary(j) {
				j = lineEnd(text, j)
			}
			units = append(units, unit{kind: unitText, name: "(preamble)", src: src, start: i, end: j, commit: commit})
			i = j
			continue
		}
		u := unit{kind: unitDiffFile, src: src, start: i, commit: commit}
		// Header: up to the first "@@" line or the next section.
		j := lineEnd(text, i)
		if strings.HasPrefix(text[i:], "--- ") { // plain unified diff: take "+++" too
			j = lineEnd(text, j)
		}
		// In a "diff " header, "---"/"+++" lines belong to the header.
		for j < len(text) && !strings.HasPrefix(text[j:], "@@ ") && !strings.HasPrefix(text[j:], "diff ") && !isCommitStart(text, j) &&
			(strings.HasPrefix(text[i:], "diff ") || !isSectionStart(text, j)) {
			j = lineEnd(text, j)
		}
		u.headerEnd = j
		u.name = diffPath(text[u.start:u.headerEnd])
		// Hunks.
		for j < len(text) && strings.HasPrefix(text[j:], "@@ ") {
			h := parseHunk(text, j)
			// Trailing lines up to the next hunk or section belong to h.
			k := h.bodyEnd
			for k < len(text) && !strings.HasPrefix(text[k:], "@@ ") && !boundary(k) {
				k = lineEnd(text, k)
			}
			h.end = k
			u.hunks = append(u.hunks, h)
			j = k
		}
		u.end = j
		units = append(units, u)
		i = j
	}
	return units
}

// parseHunk reads the hunk whose "@@" line starts at i.
func parseHunk(text string, i int) hunk {
	h := hunk{start: i, headerEnd: lineEnd(text, i)}
	h.bodyEnd = h.headerEnd
	var ok bool
	h.oldStart, h.oldCount, h.newStart, h.newCount, h.section, ok = parseHunkHeader(strings.TrimRight(text[i:h.headerEnd], "\r\n"))
	if !ok {
		return h
	}
	old, nw := h.oldCount, h.newCount
	j := h.headerEnd
	for j < len(text) && (old > 0 || nw > 0) {
		switch text[j] {
		case ' ', '\n', '\r':
			if old == 0 || nw == 0 {
				return h
			}
			old--
			nw--
		case '-':
			if old == 0 {
				return h
			}
			old--
		case '+':
			if nw == 0 {
				return h
			}
			nw--
		case '\\':
		default:
			return h
		}
		j = lineEnd(text, j)
		h.bodyEnd = j
	}
	for j < len(text) && text[j] == '\\' { // "\ No newline at end of file"
		j = lineEnd(text, j)
		h.bodyEnd = j
	}
	h.valid = old == 0 && nw == 0
	return h
}

// parseHunkHeader parses "@@ -a[,b] +c[,d] @@[ section]".
func parseHunkHeader(line string) (oldStart, oldCount, newStart, newCount int, section string, ok bool) {
	rest, found := strings.CutPrefix(line, "@@ -")
	if !found {
		return
	}
	ranges, section, found := strings.Cut(rest, " @@")
	if !found {
		return
	}
	oldR, newR, found := strings.Cut(ranges, " +")
	if !found {
		return
	}
	var ok1, ok2 bool
	oldStart, oldCount, ok1 = parseRange(oldR)
	newStart, newCount, ok2 = parseRange(newR)
	return oldStart, oldCount, newStart, newCount, section, ok1 && ok2
}

func parseRange(r string) (start, count int, ok bool) {
	a, b, hasCount := strings.Cut(r, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		count, err = strconv.Atoi(b)
		if err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}

// diffPath names a file section from its header: the "+++" path, or the
// "---" path for a deletion, or the "diff --git" line's second path.
func diffPath(header string) string {
	var minus, plus, git string
	for _, line := range strings.Split(header, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, "+++ "):
			plus = cleanDiffPath(line[4:])
		case strings.HasPrefix(line, "--- "):
			minus = cleanDiffPath(line[4:])
		case strings.HasPrefix(line, "diff --git "):
			f := strings.Fields(line[len("diff --git "):])
			if len(f) > 0 {
				git = cleanDiffPath(f[len(f)-1])
			}
		case strings.HasPrefix(line, "rename to "):
			git = line[len("rename to "):]
		}
	}
	switch {
	case plus != "" && plus != "/dev/null":
		return plus
	case minus != "" && minus != "/dev/null":
		return minus
	case git != "":
		return git
	}
	return "(unknown)"
}

func cleanDiffPath(p string) string {
	if t, _, ok := strings.Cut(p, "\t"); ok { // plain diff: "--- a/x\t2024-01-01 …"
		p = t
	}
	if strings.HasPrefix(p, `"`) {
		if u, err := strconv.Unquote(p); err == nil {
			p = u
		}
	}
	if p == "/dev/null" {
		return p
	}
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		p = p[2:]
	}
	return p
}

// LooksLikeDiff reports whether text is a unified diff: whether it opens,
// after blank lines, with real diff headers at line starts, in the order
// git and diff write them. Either a file section comes first (isSectionStart:
// a "diff " line, or "--- " directly followed by "+++ " and a hunk header),
// or a commit header does (git log -p, git show: "commit <hash>"; git
// format-patch: "From <hash> ") and its first file section follows the
// commit's message. That first section must be whole: a "diff" line, the
// extended header lines git writes (index, mode, rename, copy,
// similarity), then "--- " and "+++ " and a hunk header that parses, or a
// binary patch, or nothing more for a change of mode or name only.
//
// Diff-like lines anywhere else do not count: Go source holding test
// fixtures such as "--- a/README.md" is text.
func LooksLikeDiff(text string) bool {
	// Blank lines first, LF or CRLF; a lone CR is no line break to the
	// parser, so "\r--- " does not start a section.
	i := 0
	for i < len(text) {
		if text[i] == '\n' {
			i++
		} else if strings.HasPrefix(text[i:], "\r\n") {
			i += 2
		} else {
			break
		}
	}
	if isCommitStart(text, i) {
		// The message, and commits without files (merges), up to the
		// first file section.
		for i = lineEnd(text, i); i < len(text) && !isSectionStart(text, i); i = lineEnd(text, i) {
		}
	}
	return i < len(text) && wholeSection(text, i)
}

// gitHeaderPrefixes are the extended header lines git writes between
// "diff --git" and "---" (git-diff(1), "Generating patch text with -p").
var gitHeaderPrefixes = []string{
	"index ", "old mode ", "new mode ", "deleted file mode ", "new file mode ",
	"copy from ", "copy to ", "rename from ", "rename to ",
	"similarity index ", "dissimilarity index ",
}

// wholeSection reports whether a complete file section starts at i (see
// LooksLikeDiff).
func wholeSection(text string, i int) bool {
	line := func(j int) string { return strings.TrimRight(text[j:lineEnd(text, j)], "\r\n") }
	j := i
	if strings.HasPrefix(text[i:], "diff ") {
		git := strings.HasPrefix(text[i:], "diff --git ")
		j = lineEnd(text, i)
		extended := false
		for git && j < len(text) && hasAnyPrefix(text[j:], gitHeaderPrefixes) {
			j, extended = lineEnd(text, j), true
		}
		switch {
		case j >= len(text):
			return extended // a change of mode or name only, at the end
		case strings.HasPrefix(text[j:], "Binary files ") || strings.HasPrefix(text[j:], "GIT binary patch"):
			return true
		case git && extended && (strings.HasPrefix(text[j:], "diff ") || isCommitStart(text, j)):
			return true // a change of mode or name only, then the next file
		}
	}
	if !strings.HasPrefix(text[j:], "--- ") {
		return false
	}
	j = lineEnd(text, j)
	if !strings.HasPrefix(text[j:], "+++ ") {
		return false
	}
	j = lineEnd(text, j)
	_, _, _, _, _, ok := parseHunkHeader(line(j))
	return j < len(text) && ok
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
