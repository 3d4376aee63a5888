package slicer

import (
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// mentionTarget is one file a mention points at.
type mentionTarget struct {
	score    float64
	explicit bool  // a path, file name or frame names the file: class does not matter
	lines    []int // lines the mention points at (frames, definitions)
	why      []string
}

// lookup holds the index's names for mention matching.
type lookup struct {
	byPath   map[string]int
	byBase   map[string][]int
	byStem   map[string][]int
	dirs     map[string][]int // directory path → files directly or deeply inside
	dirNames map[string]bool  // base names of directories: Go and Python package names
	topNames map[string]bool  // names of types, classes and variables defined outside any type or class
	modules  map[string]bool  // lowered stems of files that name a module (all but Go's)
	defs     map[string][]int // symbol name → files defining it (distinct, sorted)
}

func newLookup(ix *index.Index) *lookup {
	lk := &lookup{
		byPath:   make(map[string]int, len(ix.Files)),
		byBase:   map[string][]int{},
		byStem:   map[string][]int{},
		dirs:     map[string][]int{},
		dirNames: map[string]bool{},
		topNames: map[string]bool{},
		modules:  map[string]bool{},
		defs:     map[string][]int{},
	}
	for i := range ix.Files {
		f := &ix.Files[i]
		lk.byPath[f.Path] = i
		base := path.Base(f.Path)
		lk.byBase[base] = append(lk.byBase[base], i)
		stem := strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))
		lk.byStem[stem] = append(lk.byStem[stem], i)
		if f.Lang != "go" {
			lk.modules[stem] = true // Python, Ruby, JavaScript: a file is a module; a Go file's name names no package
		}
		for d := path.Dir(f.Path); d != "." && d != "/"; d = path.Dir(d) {
			lk.dirs[d] = append(lk.dirs[d], i)
			lk.dirNames[path.Base(d)] = true
		}
		for _, s := range f.Symbols {
			if len(s.Name) < minSymbolLen {
				continue
			}
			if s.Scope == "" && s.Kind != "function" {
				lk.topNames[s.Name] = true // a type, class, module or variable may qualify a name; a function may not
			}
			l := lk.defs[s.Name]
			if len(l) == 0 || l[len(l)-1] != i {
				lk.defs[s.Name] = append(l, i)
			}
		}
	}
	return lk
}

// foreignScope reports a qualifier that names nothing in the repository:
// in "path.Dir" or "res.Body" the name is the standard library's or a
// local variable's, and the repository's own Dir or Body is no more named
// than by a plain word. (Measured on go-git: "a path.Dir heuristic" put a
// file defining an unrelated Dir first.)
func (lk *lookup) foreignScope(scope string) bool {
	switch scope {
	case "", "self", "this", "cls", "super":
		return false
	}
	return !lk.topNames[scope] && !lk.dirNames[scope] && !lk.modules[strings.ToLower(scope)]
}

// matchMentions scores each file by what the task names. The result maps
// file index to its target record.
//
// Each kind of mention is matched by its own rule, in this order (a
// file's score is their sum, in this order, capped at maxMention):
//
//	paths     matchPath: the first of its rules that finds a file
//	stems     matchStem: a name equal to a file's name without extension
//	symbols   matchSymbol: a name a file defines, as code or as a word
//	quotes    matchQuote: a quoted string or flag a file holds
//	commits   matchCommit: a named commit changed the file
func matchMentions(ix *index.Index, lk *lookup, q *query, stats []fileStats) map[int]*mentionTarget {
	mt := &mentionMatcher{ix: ix, lk: lk, out: map[int]*mentionTarget{}}
	for _, pm := range q.m.Paths {
		mt.matchPath(pm)
	}
	for _, id := range q.m.Idents {
		mt.matchStem(id)
		mt.matchSymbol(id)
	}
	for k, lit := range q.lits {
		mt.matchQuote(k, lit, stats)
	}
	for _, cm := range q.m.Commits {
		mt.matchCommit(cm)
	}
	for _, t := range mt.out {
		t.score = math.Min(t.score, maxMention)
		sort.Ints(t.lines)
	}
	return mt.out
}

// mentionMatcher is matchMentions's state: the index, its names, and
// the targets found so far.
type mentionMatcher struct {
	ix  *index.Index
	lk  *lookup
	out map[int]*mentionTarget // file index → its target
}

// add adds s to file i's score, the line it points at (unless 0) and a
// reason (up to maxWhy).
func (mt *mentionMatcher) add(i int, s float64, line int, why string) {
	t := mt.out[i]
	if t == nil {
		t = &mentionTarget{}
		mt.out[i] = t
	}
	t.score += s
	if line > 0 {
		t.lines = append(t.lines, line)
	}
	if len(t.why) < maxWhy {
		t.why = append(t.why, why)
	}
}

// addExplicit adds strength, split among files, to each of them, with
// line, and marks them named explicitly.
func (mt *mentionMatcher) addExplicit(files []int, strength float64, line int, why string) {
	for _, j := range files {
		mt.add(j, strength/float64(len(files)), line, why)
		mt.out[j].explicit = true
	}
}

// addDir adds mentionDir, split by square root among files, to each of
// them: files are a named directory's.
func (mt *mentionMatcher) addDir(files []int, why string) {
	for _, j := range files {
		mt.add(j, mentionDir/math.Sqrt(float64(len(files))), 0, why)
	}
}

// matchPath scores the files a path mention names by the first of its
// rules, in order, that finds one.
func (mt *mentionMatcher) matchPath(pm pathMention) {
	rules := [...]func(pathMention) bool{
		mt.matchFullPath,   // mentionFullPath or mentionFrame
		mt.matchPathSuffix, // mentionFullPath or mentionFrame, split
		mt.matchFileName,   // mentionBaseName or mentionFrame, split
		mt.matchDir,        // mentionDir, split by square root
		mt.matchDirSuffix,  // mentionDir, split by square root
	}
	for _, rule := range rules {
		if rule(pm) {
			return
		}
	}
}

// pathStrength returns the strength of a path or frame mention, and its
// kind for the reason.
func pathStrength(pm pathMention) (float64, string) {
	if pm.Frame {
		return mentionFrame, "frame"
	}
	return mentionFullPath, "path"
}

// matchFullPath: the mention is a file's path.
func (mt *mentionMatcher) matchFullPath(pm pathMention) bool {
	i, ok := mt.lk.byPath[pm.Path]
	if !ok {
		return false
	}
	strength, kind := pathStrength(pm)
	mt.addExplicit([]int{i}, strength, pm.Line, fmt.Sprintf("%s %s", kind, pm.Path))
	return true
}

// matchPathSuffix: the mention ends a file's path, or a file's path ends
// it ("/abs/checkout/pkg/x.go" or "pkg/x.go" in a subdirectory), at a
// slash.
func (mt *mentionMatcher) matchPathSuffix(pm pathMention) bool {
	p := pm.Path
	if !strings.Contains(p, "/") {
		return false
	}
	var suffix []int
	for j := range mt.ix.Files {
		fp := mt.ix.Files[j].Path
		if strings.HasSuffix(fp, "/"+p) || strings.HasSuffix(p, "/"+fp) {
			suffix = append(suffix, j)
		}
	}
	if len(suffix) == 0 {
		return false
	}
	strength, kind := pathStrength(pm)
	mt.addExplicit(suffix, strength, pm.Line, fmt.Sprintf("%s %s", kind, p))
	return true
}

// matchFileName: the mention's last element, with an extension, is a
// file's base name.
func (mt *mentionMatcher) matchFileName(pm pathMention) bool {
	base := path.Base(pm.Path)
	l := mt.lk.byBase[base]
	if len(l) == 0 || !strings.Contains(base, ".") {
		return false
	}
	s := mentionBaseName
	if pm.Frame {
		s = mentionFrame
	}
	mt.addExplicit(l, s, pm.Line, "file "+base)
	return true
}

// matchDir: the mention is a directory's path.
func (mt *mentionMatcher) matchDir(pm pathMention) bool {
	l := mt.lk.dirs[pm.Path]
	if len(l) == 0 {
		return false
	}
	mt.addDir(l, "dir "+pm.Path)
	return true
}

// matchDirSuffix: the mention ends directories' paths at a slash
// ("format/packfile"); their files are taken together.
func (mt *mentionMatcher) matchDirSuffix(pm pathMention) bool {
	p := pm.Path
	if !strings.Contains(p, "/") {
		return false
	}
	var hits []int
	for d, l := range mt.lk.dirs {
		if strings.HasSuffix(d, "/"+p) {
			hits = append(hits, l...)
		}
	}
	sort.Ints(hits)
	mt.addDir(hits, "dir "+p)
	return len(hits) > 0
}

// codeBlockWeighting returns the weight of a name's mention, and the
// note its reason takes: a name the task writes only in its code blocks
// counts codeBlockWeight.
func codeBlockWeighting(id identMention) (float64, string) {
	if id.CodeBlock {
		return codeBlockWeight, " (code block)"
	}
	return 1.0, ""
}

// matchStem: a code-like name, or a plain word of minStemWordLen or more
// and no stop word, is the name without extension of at most
// maxSymbolDefiners files (mentionStem, split among them).
func (mt *mentionMatcher) matchStem(id identMention) {
	if !id.CodeLike && len(id.Name) < minStemWordLen {
		return
	}
	l := mt.lk.byStem[strings.ToLower(id.Name)]
	if len(l) == 0 || len(l) > maxSymbolDefiners || !id.CodeLike && isStopWord([]byte(strings.ToLower(id.Name))) {
		return
	}
	w, where := codeBlockWeighting(id)
	for _, j := range l {
		mt.add(j, w*mentionStem/float64(len(l)), 0, "name "+id.Name+where)
	}
}

// symbolStrength returns how strongly id names a definition of the
// repository, and whether it points at the definition's lines: a name
// written as code names a symbol (mentionSymbol), unless its scope, or
// itself as a qualifier, names nothing of the repository (foreignScope);
// a plain word of minWordSymbolLen or more names one weakly
// (mentionWord); a shorter one none (ok false).
func (mt *mentionMatcher) symbolStrength(id identMention) (s float64, code, ok bool) {
	if id.CodeLike && !mt.lk.foreignScope(id.Scope) && !(id.Qualifier && mt.lk.foreignScope(id.Name)) {
		return mentionSymbol, true, true
	}
	if len(id.Name) < minWordSymbolLen {
		return 0, false, false
	}
	return mentionWord, false, true
}

// matchSymbol: a name at most maxSymbolDefiners files define, split
// among them by square root, ×scopedSymbolBoost in a file whose
// definition has the scope the task writes (Client.Do).
func (mt *mentionMatcher) matchSymbol(id identMention) {
	l := mt.lk.defs[id.Name]
	if len(l) == 0 || len(l) > maxSymbolDefiners {
		return
	}
	s, code, ok := mt.symbolStrength(id)
	if !ok {
		return
	}
	w, where := codeBlockWeighting(id)
	for _, j := range l {
		lines, scoped := definitionLines(&mt.ix.Files[j], id)
		mt.add(j, w*scoped*s/math.Sqrt(float64(len(l))), 0, "symbol "+id.Name+where)
		if code {
			// Only a name written as code points into the file: a plain
			// word ("type", "build") that happens to name a definition
			// says which file, not which lines. A capitalized word in
			// mid-sentence naming a type ("commands to Group") taken as
			// code, its constructor pointed at too, won 2 kit tasks and
			// lost 3 (round 34).
			mt.out[j].lines = append(mt.out[j].lines, lines...)
		}
	}
}

// definitionLines returns the first lines of f's definitions of id's
// name, and scopedSymbolBoost when one of them has id's scope, else 1.
func definitionLines(f *index.File, id identMention) (lines []int, scoped float64) {
	scoped = 1.0
	for _, sym := range f.Symbols {
		if sym.Name == id.Name {
			lines = append(lines, sym.Start)
			if id.Scope != "" && sym.Scope == id.Scope {
				scoped = scopedSymbolBoost
			}
		}
	}
	return lines, scoped
}

// matchQuote: the k-th literal (a quote or a flag) is held by at most
// maxSymbolDefiners files (mentionQuote, split among them; times
// codeBlockWeight for one the task writes only in code blocks, as sample
// input quotes a config's flags). It points
// at its lines in a file that holds it on at most maxQuoteLines; one all
// over the file (a name in backticks) is a term there (fileUnits).
func (mt *mentionMatcher) matchQuote(k int, lit literal, stats []fileStats) {
	var files []int
	for i := range stats {
		if slices.Contains(stats[i].quotes, k) {
			files = append(files, i)
		}
	}
	if len(files) == 0 || len(files) > maxSymbolDefiners {
		return
	}
	for _, i := range files {
		var lines []int
		for _, h := range stats[i].hits {
			if h.Term == int32(-1-k) {
				lines = append(lines, int(h.Line))
			}
		}
		w, why := 1.0, lit.String()
		if lit.block {
			w, why = codeBlockWeight, why+" (code block)"
		}
		mt.add(i, w*mentionQuote/float64(len(files)), 0, why)
		if len(lines) <= maxQuoteLines {
			mt.out[i].lines = append(mt.out[i].lines, lines...)
		}
	}
}

// matchCommit: a commit the task names changed the file (mentionCommit,
// split by square root among the files it changed that the index
// holds), and points at the lines it wrote: a revert takes them out, a
// follow-up or a regression fix works on them.
func (mt *mentionMatcher) matchCommit(cm commitMention) {
	var files []commitFile
	for _, f := range cm.Files {
		if _, ok := mt.lk.byPath[f.Path]; ok {
			files = append(files, f)
		}
	}
	for _, f := range files {
		i := mt.lk.byPath[f.Path]
		mt.add(i, mentionCommit/math.Sqrt(float64(len(files))), 0, "commit "+clip(cm.ID, 10))
		mt.out[i].lines = append(mt.out[i].lines, f.Lines...)
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
