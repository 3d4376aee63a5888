package slicer

import (
	"fmt"
	"math"
	"path"
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
func matchMentions(ix *index.Index, lk *lookup, q *query, stats []fileStats) map[int]*mentionTarget {
	out := map[int]*mentionTarget{}
	add := func(i int, s float64, line int, why string) {
		t := out[i]
		if t == nil {
			t = &mentionTarget{}
			out[i] = t
		}
		t.score += s
		if line > 0 {
			t.lines = append(t.lines, line)
		}
		if len(t.why) < maxWhy {
			t.why = append(t.why, why)
		}
	}
	for _, pm := range q.m.Paths {
		p := pm.Path
		strength, kind := mentionFullPath, "path"
		if pm.Frame {
			strength, kind = mentionFrame, "frame"
		}
		if i, ok := lk.byPath[p]; ok {
			add(i, strength, pm.Line, fmt.Sprintf("%s %s", kind, p))
			out[i].explicit = true
			continue
		}
		// A path suffix: "/abs/checkout/pkg/x.go" or "pkg/x.go" in a subdirectory.
		var suffix []int
		if strings.Contains(p, "/") {
			for j := range ix.Files {
				fp := ix.Files[j].Path
				if strings.HasSuffix(fp, "/"+p) || strings.HasSuffix(p, "/"+fp) {
					suffix = append(suffix, j)
				}
			}
		}
		if len(suffix) > 0 {
			for _, j := range suffix {
				add(j, strength/float64(len(suffix)), pm.Line, fmt.Sprintf("%s %s", kind, p))
				out[j].explicit = true
			}
			continue
		}
		base := path.Base(p)
		if l := lk.byBase[base]; len(l) > 0 && strings.Contains(base, ".") {
			s := mentionBaseName
			if pm.Frame {
				s = mentionFrame
			}
			for _, j := range l {
				add(j, s/float64(len(l)), pm.Line, "file "+base)
				out[j].explicit = true
			}
			continue
		}
		if l := lk.dirs[p]; len(l) > 0 {
			for _, j := range l {
				add(j, mentionDir/math.Sqrt(float64(len(l))), 0, "dir "+p)
			}
			continue
		}
		// A directory named by a suffix: "format/packfile".
		if strings.Contains(p, "/") {
			var hits []int
			for d, l := range lk.dirs {
				if strings.HasSuffix(d, "/"+p) {
					hits = append(hits, l...)
				}
			}
			sort.Ints(hits)
			for _, j := range hits {
				add(j, mentionDir/math.Sqrt(float64(len(hits))), 0, "dir "+p)
			}
		}
	}
	for _, id := range q.m.Idents {
		w, where := 1.0, ""
		if id.CodeBlock {
			w, where = codeBlockWeight, " (code block)"
		}
		if id.CodeLike || len(id.Name) >= minStemWordLen {
			if l := lk.byStem[strings.ToLower(id.Name)]; len(l) > 0 && len(l) <= maxSymbolDefiners && (id.CodeLike || !isStopWord([]byte(strings.ToLower(id.Name)))) {
				for _, j := range l {
					add(j, w*mentionStem/float64(len(l)), 0, "name "+id.Name+where)
				}
			}
		}
		l := lk.defs[id.Name]
		if len(l) == 0 || len(l) > maxSymbolDefiners {
			continue
		}
		s := mentionWord
		if id.CodeLike && !lk.foreignScope(id.Scope) && !(id.Qualifier && lk.foreignScope(id.Name)) {
			s = mentionSymbol
		} else if len(id.Name) < minWordSymbolLen {
			continue
		}
		for _, j := range l {
			f := &ix.Files[j]
			var lines []int
			scoped := 1.0
			for _, sym := range f.Symbols {
				if sym.Name == id.Name {
					lines = append(lines, sym.Start)
					if id.Scope != "" && sym.Scope == id.Scope {
						scoped = scopedSymbolBoost
					}
				}
			}
			add(j, w*scoped*s/math.Sqrt(float64(len(l))), 0, "symbol "+id.Name+where)
			if s == mentionSymbol {
				// Only a name written as code points into the file: a plain
				// word ("type", "build") that happens to name a definition
				// says which file, not which lines. A capitalized word in
				// mid-sentence naming a type ("commands to Group") taken as
				// code, its constructor pointed at too, won 2 kit tasks and
				// lost 3 (round 34).
				out[j].lines = append(out[j].lines, lines...)
			}
		}
	}
	for k, lit := range q.lits {
		var files []int
		for i := range stats {
			for _, qk := range stats[i].quotes {
				if qk == k {
					files = append(files, i)
					break
				}
			}
		}
		if len(files) == 0 || len(files) > maxSymbolDefiners {
			continue
		}
		for _, i := range files {
			var lines []int
			for _, h := range stats[i].hits {
				if h.Term == int32(-1-k) {
					lines = append(lines, int(h.Line))
				}
			}
			add(i, mentionQuote/float64(len(files)), 0, lit.String())
			if len(lines) <= maxQuoteLines {
				// A quote on a few lines points at them; one all over the
				// file (a name in backticks) is a term there (fileUnits).
				out[i].lines = append(out[i].lines, lines...)
			}
		}
	}
	// A commit the task names points at what it changed, and at the lines
	// it wrote: a revert takes them out, a follow-up or a regression fix
	// works on them.
	for _, cm := range q.m.Commits {
		var files []commitFile
		for _, f := range cm.Files {
			if _, ok := lk.byPath[f.Path]; ok {
				files = append(files, f)
			}
		}
		for _, f := range files {
			i := lk.byPath[f.Path]
			add(i, mentionCommit/math.Sqrt(float64(len(files))), 0, "commit "+clip(cm.ID, 10))
			out[i].lines = append(out[i].lines, f.Lines...)
		}
	}
	for _, t := range out {
		t.score = math.Min(t.score, maxMention)
		sort.Ints(t.lines)
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
