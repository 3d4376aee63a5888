package slicer

import (
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
)

// This file holds extractMentions: its steps, one per kind of mention,
// read the task in a fixed order. mention.go holds the types they fill
// and the patterns they match.

// extractMentions finds what task names explicitly. It never fails: text
// without mentions gives empty lists.
//
// The steps run in this order, and the order is part of the result:
// Paths lists Python frames, then other frames, then paths and file
// names, each kind in order of appearance; a quote that writes a flag
// already found is no quote; a backquoted span makes its identifiers
// code-like.
func extractMentions(task string) mentions {
	x := newMentionExtractor(task)
	x.links()    // links to a file at a revision → Links
	x.commits()  // commit ids → Commits
	x.pyFrames() // Python traceback frames → Paths, with their lines
	x.frames()   // path:line frames → Paths, with their lines
	x.paths()    // paths and file names → Paths
	x.flags()    // long flags, brace patterns expanded → Flags
	x.quotes()   // quoted strings, not a flag of x.flags → Quotes
	x.idents()   // identifiers → Idents, sorted; the text outside code blocks
	return x.m
}

// mentionExtractor is extractMentions's state: the task, the mentions
// found so far, and what each kind has seen, to deduplicate.
type mentionExtractor struct {
	re   *mentionPatterns
	task string
	// noURL is the task with its URLs blanked: frames, paths, flags and
	// identifiers are read from it, as a URL's path names a file of
	// another repository and its host (code.google.com) is dotted like
	// a selector but names no code.
	noURL string
	m     mentions

	seenPath  map[string]int  // a path → its index in m.Paths
	seenFlag  map[string]bool // m.Flags, as a set
	seenQuote map[string]bool // m.Quotes, as a set
	seenIdent map[string]int  // a name → its index in m.Idents
	// codeSpans are the backquoted strings, untrimmed: an identifier
	// written as one is code-like.
	codeSpans map[string]bool
	inBlock   []bool // codeBlocks of noURL, once computed (blocks)
}

func newMentionExtractor(task string) *mentionExtractor {
	re := mentionREs()
	return &mentionExtractor{
		re:        re,
		task:      task,
		noURL:     re.url.ReplaceAllString(task, " "),
		seenPath:  map[string]int{},
		seenFlag:  map[string]bool{},
		seenQuote: map[string]bool{},
		seenIdent: map[string]int{},
		codeSpans: map[string]bool{},
		m:         mentions{blockOnly: map[string]bool{}},
	}
}

// links finds the URLs of a file at a revision, with their line anchors.
func (x *mentionExtractor) links() {
	for _, u := range x.re.url.FindAllString(x.task, -1) {
		u = strings.TrimRight(u, ".,;:)]}>'\"`")
		sm := x.re.link.FindStringSubmatch(u)
		if sm == nil {
			continue
		}
		p, err := url.PathUnescape(sm[3])
		if p = cleanMentionPath(p); err != nil || p == "" {
			continue
		}
		n, _ := strconv.Atoi(sm[4])
		x.m.Links = append(x.m.Links, linkMention{Repo: strings.ToLower(sm[1] + "/" + sm[2]), Path: p, Line: n})
	}
}

// commits finds commit ids, at most maxNamedCommits. A commit id may
// stand in a URL (…/commit/1a2b3c4): all the text counts. A word of hex
// letters alone (deadbeef, facade) or of digits alone (a date, a count)
// is no id.
func (x *mentionExtractor) commits() {
	for _, id := range x.re.commit.FindAllString(x.task, -1) {
		if len(x.m.Commits) == maxNamedCommits {
			break
		}
		if strings.Trim(id, "0123456789") == "" || strings.Trim(id, "abcdef") == "" {
			continue
		}
		dup := false
		for _, c := range x.m.Commits {
			dup = dup || c.ID == id
		}
		if !dup {
			x.m.Commits = append(x.m.Commits, commitMention{ID: id})
		}
	}
}

// pyFrames finds Python traceback frames (File "x.py", line 9), URLs
// included: the pattern's quotes bound the path.
func (x *mentionExtractor) pyFrames() {
	for _, sm := range x.re.pyFrame.FindAllStringSubmatch(x.task, -1) {
		n, _ := strconv.Atoi(sm[2])
		x.addPath(sm[1], n, true)
	}
}

// frames finds path:line frames (file.go:123, src/x.ts:10:5), not a
// host name's.
func (x *mentionExtractor) frames() {
	for _, sm := range x.re.frame.FindAllStringSubmatch(x.noURL, -1) {
		n, _ := strconv.Atoi(sm[2])
		if looksLikeURLHost(sm[1]) {
			continue
		}
		x.addPath(sm[1], n, true)
	}
}

// paths finds paths (words joined by slashes) and file names (a word
// with a known file extension), not host names.
func (x *mentionExtractor) paths() {
	for _, p := range x.re.path.FindAllString(x.noURL, -1) {
		if looksLikeURLHost(p) {
			continue
		}
		if !strings.Contains(p, "/") && !isFileExt(strings.TrimPrefix(path.Ext(p), ".")) {
			continue // Client.Do, v1.2: not a file name
		}
		x.addPath(p, 0, false)
	}
}

// addPath adds the path p, cleaned, unless it names no file. A path seen
// before keeps its place and takes the first line given to it.
func (x *mentionExtractor) addPath(p string, line int, frame bool) {
	p = cleanMentionPath(p)
	if p == "" {
		return
	}
	if i, ok := x.seenPath[p]; ok {
		if line > 0 && x.m.Paths[i].Line == 0 {
			x.m.Paths[i].Line, x.m.Paths[i].Frame = line, frame
		}
		return
	}
	x.seenPath[p] = len(x.m.Paths)
	x.m.Paths = append(x.m.Paths, pathMention{Path: p, Line: line, Frame: frame})
}

// flags finds long flags (--no-verify), each name of a brace pattern
// (--field-{context,match}-separator) among them.
func (x *mentionExtractor) flags() {
	inBlock := x.blocks()
	for _, loc := range x.re.flag.FindAllStringSubmatchIndex(x.noURL, -1) {
		names := []string{x.noURL[loc[2]:loc[3]]}
		switch rest := x.noURL[loc[3]:]; {
		case strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, "-{"):
			names = braceFlags(names[0], rest)
		case strings.HasPrefix(rest, "-"):
			continue // --x-- or --x-.: no flag's whole name
		}
		for _, name := range names {
			x.addFlag(name, inBlock[loc[2]])
		}
	}
}

// addFlag adds a flag's name, unless it is shorter than minFlagLen, seen
// before, or maxFlags are found; block: this occurrence is in a code
// block. A flag is sample input (m.blockOnly) when every occurrence is.
func (x *mentionExtractor) addFlag(name string, block bool) {
	if len(name) < minFlagLen || len(x.m.Flags) == maxFlags && !x.seenFlag[name] {
		return
	}
	if x.seenFlag[name] {
		if !block {
			delete(x.m.blockOnly, "--"+name)
		}
		return
	}
	x.seenFlag[name] = true
	x.m.Flags = append(x.m.Flags, name)
	if block {
		x.m.blockOnly["--"+name] = true
	}
}

// blocks is codeBlocks of noURL, computed once.
func (x *mentionExtractor) blocks() []bool {
	if x.inBlock == nil {
		x.inBlock = codeBlocks(x.noURL)
	}
	return x.inBlock
}

// braceFlags expands the shell brace pattern that follows a flag's first
// words, as a commit subject writes two flags in one: head "field" and
// rest "-{context,match}-separator" give field-context-separator and
// field-match-separator. A pattern that does not close, or whose names
// are not flag names, gives none.
func braceFlags(head, rest string) []string {
	if r, ok := strings.CutPrefix(rest, "-"); ok {
		head, rest = head+"-", r
	}
	// The pattern closes within maxBracePattern bytes, on its line: a
	// task full of unclosed "--x{" must not be read to its end for each.
	rest = rest[:min(len(rest), maxBracePattern)]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	body, tail, ok := strings.Cut(strings.TrimPrefix(rest, "{"), "}")
	if !ok {
		return nil
	}
	n := 0
	for n < len(tail) && isFlagByte(tail[n]) {
		n++
	}
	var out []string
	for _, alt := range strings.Split(body, ",") {
		name := head + alt + tail[:n]
		if !mentionREs().flagName.MatchString(name) {
			return nil
		}
		out = append(out, name)
	}
	return out
}

// quotes finds quoted strings of at least minQuoteLen bytes, trimmed,
// and records the backquoted ones as code spans. A flag in quotes is
// searched as a flag, word-bounded, so it is no quote.
func (x *mentionExtractor) quotes() {
	inBlock := codeBlocks(x.task) // quotes are read from the task, URLs and all
	for _, loc := range x.re.quote.FindAllStringSubmatchIndex(x.task, -1) {
		// One of the pattern's three groups matched: "…", `…` or '…'.
		var q string
		for g := 1; g <= 3; g++ {
			if loc[2*g] >= 0 {
				q = x.task[loc[2*g]:loc[2*g+1]]
				if g == 2 {
					x.codeSpans[q] = true
				}
			}
		}
		block := inBlock[loc[0]]
		q = strings.TrimSpace(q)
		if n, ok := strings.CutPrefix(q, "--"); ok && x.seenFlag[n] {
			continue
		}
		if len(q) < minQuoteLen {
			continue
		}
		if x.seenQuote[q] {
			if !block {
				delete(x.m.blockOnly, q)
			}
			continue
		}
		x.seenQuote[q] = true
		x.m.Quotes = append(x.m.Quotes, q)
		if block {
			x.m.blockOnly[q] = true
		}
	}
}

// idents finds identifiers, dotted selectors split into their names,
// and sorts them by name; it keeps the text outside code blocks in
// m.outside.
func (x *mentionExtractor) idents() {
	inBlock := x.blocks()
	x.m.outside = blankOut(x.noURL, inBlock)
	for _, loc := range x.re.ident.FindAllStringSubmatchIndex(x.noURL, -1) {
		x.identToken(loc, inBlock[loc[0]])
	}
	sort.SliceStable(x.m.Idents, func(i, j int) bool { return x.m.Idents[i].Name < x.m.Idents[j].Name })
}

// identToken adds the names of the identifier token at loc (a match of
// the ident pattern in noURL; block: it starts in a code block). Each
// name of two bytes or more is one mention, scoped by the name before
// it; a token that ends in a file extension is a file name, no
// identifier.
func (x *mentionExtractor) identToken(loc []int, block bool) {
	tok := x.noURL[loc[0]:loc[1]]
	call := loc[2] >= 0
	tok = strings.TrimSuffix(tok, "()")
	if !call && loc[1] < len(x.noURL) && x.noURL[loc[1]] == '(' {
		call = true
	}
	inSpan := x.codeSpans[tok]
	parts := strings.Split(tok, ".")
	if len(parts) > 1 && isFileExt(parts[len(parts)-1]) {
		return // a file name, handled as a path
	}
	for k, p := range parts {
		if len(p) < 2 {
			continue
		}
		scope := ""
		if k > 0 {
			scope = parts[k-1]
		}
		x.addIdent(identMention{
			Name:      p,
			Scope:     scope,
			CodeLike:  call || inSpan || len(parts) > 1 || isCodeLike(p),
			Qualifier: k < len(parts)-1,
			CodeBlock: block,
		})
	}
}

// addIdent adds id, or merges it into the earlier mention of its name,
// which keeps its place: the name is code-like when any occurrence is,
// a qualifier or in a code block only when every one is, and takes the
// first scope written.
func (x *mentionExtractor) addIdent(id identMention) {
	i, ok := x.seenIdent[id.Name]
	if !ok {
		x.seenIdent[id.Name] = len(x.m.Idents)
		x.m.Idents = append(x.m.Idents, id)
		return
	}
	e := &x.m.Idents[i]
	e.CodeBlock = e.CodeBlock && id.CodeBlock
	e.CodeLike = e.CodeLike || id.CodeLike
	e.Qualifier = e.Qualifier && id.Qualifier
	if e.Scope == "" {
		e.Scope = id.Scope
	}
}
