package slicer

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/ctxtrim/ctxtrim/slicer/internal/ascii"
	"golang.org/x/sync/errgroup"
)

// hit is one occurrence of a query term or quote in a file.
type hit struct {
	Line int32 // 1-based
	Term int32 // index into query.terms, or -1-k for quote k
}

// fileStats is what one pass over a file's contents yields.
type fileStats struct {
	tf     []int32 // per query term
	length int     // number of terms
	lines  int
	hits   []hit
	quotes []int // indexes of quotes found
	read   bool  // contents were scanned
	err    error
}

// skipContent reports whether a file's contents are not worth scanning:
// they could only be context if named, and the path still matches.
func skipContent(f *index.File) bool {
	switch f.Class {
	case index.Vendored, index.Lock, index.Minified:
		return true
	}
	return false
}

// scanContents reads every file once and counts query terms, quotes and
// their lines, then keeps the sibling flags that stand in (keepSiblings).
// Files are read in parallel; results land in an index-addressed slice.
func scanContents(ctx context.Context, ix *index.Index, q *query, par int, read func(string) ([]byte, error)) ([]fileStats, error) {
	stats := make([]fileStats, len(ix.Files))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(par)
	const chunk = 64
	quotes := q.lits
	only := new(prefixSet)
	for _, t := range q.terms {
		if len(t) >= 2 {
			only[prefixKey([]byte(t))] = true
		}
	}
	pool := sync.Pool{New: func() any { return &termScanner{only: only, keep: q.keep} }}
	for lo := 0; lo < len(ix.Files); lo += chunk {
		hi := min(lo+chunk, len(ix.Files))
		g.Go(func() error {
			sc := pool.Get().(*termScanner)
			defer pool.Put(sc)
			for i := lo; i < hi; i++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				f := &ix.Files[i]
				if skipContent(f) {
					continue
				}
				src, err := read(f.Path)
				if err != nil {
					stats[i].err = err
					continue
				}
				stats[i] = scanFile(sc, src, q, quotes)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Which sibling flags stand in for a new flag is known only once every
	// file is scanned; the stats handed on are final.
	keepSiblings(q, stats)
	return stats, nil
}

// scanFile counts the query's terms and literals in one file's contents.
func scanFile(sc *termScanner, src []byte, q *query, quotes []literal) fileStats {
	st := fileStats{tf: make([]int32, len(q.terms)), read: true}
	// Each literal's lines, found in the whole text; next[k] is the
	// index of the first of them not yet passed.
	var litLines [][]int32
	var next []int
	if len(quotes) > 0 {
		litLines, next = make([][]int32, len(quotes)), make([]int, len(quotes))
		for k, lit := range quotes {
			litLines[k] = lit.lines(src)
		}
	}
	line := int32(0)
	for len(src) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			l, src = src[:i], src[i+1:]
		} else {
			l, src = src, nil
		}
		st.length += sc.scan(l, func(t []byte) {
			if k, ok := q.termIdx[string(t)]; ok {
				st.tf[k]++
				if len(st.hits) < maxHitsPerFile {
					st.hits = append(st.hits, hit{Line: line, Term: int32(k)})
				}
			}
		})
		for k := range quotes {
			if ls := litLines[k]; next[k] < len(ls) && ls[next[k]] == line {
				next[k]++
				if len(st.quotes) == 0 || st.quotes[len(st.quotes)-1] != k {
					st.quotes = appendUnique(st.quotes, k)
				}
				if len(st.hits) < maxHitsPerFile {
					st.hits = append(st.hits, hit{Line: line, Term: int32(-1 - k)})
				}
			}
		}
	}
	st.lines = int(line)
	return st
}

// literal is text of the task that code holds verbatim: a quoted string,
// found anywhere in a line, or a flag's name, found as a string ("pre",
// 'pre') or with its dashes (--pre, and not --pre-glob), where the code
// that defines, reads or documents the flag is.
type literal struct {
	text []byte // the quote, or the flag's name
	flag bool
	// block: the task writes it only in code blocks (mentions.blockOnly),
	// as sample input; its mention weighs codeBlockWeight.
	block bool
	// of is, for a sibling flag, the new flag of the title it may stand
	// for (siblingFlags); empty for every other literal.
	of string
}

// literals returns the quotes of m, then its flags; a hit's Term -1-k
// is the k-th of them.
func literals(m mentions) []literal {
	out := make([]literal, 0, len(m.Quotes)+len(m.Flags))
	for _, s := range m.Quotes {
		out = append(out, literal{text: []byte(s), block: m.blockOnly[s]})
	}
	for _, s := range m.Flags {
		out = append(out, literal{text: []byte(s), flag: true, block: m.blockOnly["--"+s]})
	}
	return out
}

// siblingFlags returns the flags that may stand for a new flag of the
// title: a task that adds --no-ignore-dot adds it where --no-ignore is
// defined and read, as a new identifier goes in next to its sibling
// (siblings). The candidates are the flag's names cut at a dash, from
// either end, of at least minSiblingLen bytes and minSiblingShare of its
// length (no-ignore and ignore-dot; not no or dot), longest first.
// Which of them count is decided once the files are scanned
// (keepSiblings): only when the flag itself is found nowhere.
func siblingFlags(lits []literal, title []string) []literal {
	have := map[string]bool{}
	for _, l := range lits {
		if l.flag {
			have[string(l.text)] = true
		}
	}
	var out []literal
	for _, name := range title {
		if !have[name] {
			continue // over maxFlags: not searched itself
		}
		var cands []string
		for i := 0; i < len(name); i++ {
			if name[i] != '-' {
				continue
			}
			for _, c := range []string{name[:i], name[i+1:]} {
				if len(c) >= minSiblingLen && float64(len(c)) >= minSiblingShare*float64(len(name)) && !have[c] {
					have[c] = true
					cands = append(cands, c)
				}
			}
		}
		sort.SliceStable(cands, func(a, b int) bool { return len(cands[a]) > len(cands[b]) })
		for _, c := range cands {
			if len(out) == maxSiblingFlags {
				return out
			}
			out = append(out, literal{text: []byte(c), flag: true, of: name})
		}
	}
	return out
}

// keepSiblings drops from stats the hits of every sibling flag that does
// not stand in for its new flag: the flag itself is found in some file,
// so it is not new, or a longer sibling of it is found. What is left
// counts as the flag would: a mention of the files that hold it and a
// pointer to the lines.
func keepSiblings(q *query, stats []fileStats) {
	if len(q.lits) == 0 || q.lits[len(q.lits)-1].of == "" {
		return // siblings come last; there are none
	}
	found := make([]bool, len(q.lits))
	for i := range stats {
		for _, k := range stats[i].quotes {
			found[k] = true
		}
	}
	byName := map[string]int{}
	for k, l := range q.lits {
		if l.flag && l.of == "" {
			byName[string(l.text)] = k
		}
	}
	longest := map[string]int{}
	for k, l := range q.lits {
		if l.of != "" && found[k] && !found[byName[l.of]] {
			longest[l.of] = max(longest[l.of], len(l.text))
		}
	}
	drop := map[int32]bool{}
	for k, l := range q.lits {
		if l.of != "" && found[k] && (longest[l.of] == 0 || len(l.text) < longest[l.of]) {
			drop[int32(-1-k)] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	for i := range stats {
		st := &stats[i]
		if len(st.quotes) == 0 {
			continue // no literal, so no literal's hits
		}
		quotes := st.quotes[:0]
		for _, k := range st.quotes {
			if !drop[int32(-1-k)] {
				quotes = append(quotes, k)
			}
		}
		st.quotes = quotes
		hits := st.hits[:0]
		for _, h := range st.hits {
			if !drop[h.Term] {
				hits = append(hits, h)
			}
		}
		st.hits = hits
	}
}

// String is the literal as -explain names it.
func (l literal) String() string {
	if l.of != "" {
		return "flag --" + string(l.text) + ", sibling of --" + l.of
	}
	if l.flag {
		return "flag --" + string(l.text)
	}
	return fmt.Sprintf("quote %q", clip(string(l.text), 40))
}

// lines returns the 1-based lines of src that hold the literal, in
// order, each once. It searches the whole text, not line by line: most
// files hold no literal, and one search rules them out.
func (l literal) lines(src []byte) []int32 {
	var out []int32
	line, pos := int32(1), 0 // the line that src[pos] is on
	for off := 0; off < len(src); {
		i := bytes.Index(src[off:], l.text)
		if i < 0 {
			break
		}
		i += off
		off = i + 1
		if l.flag && !flagAt(src, i, i+len(l.text)) {
			continue
		}
		line += int32(bytes.Count(src[pos:i], []byte{'\n'}))
		pos = i
		if len(out) == 0 || out[len(out)-1] != line {
			out = append(out, line)
		}
	}
	return out
}

// flagAt reports whether src[i:end], a flag's name, is written as the
// flag: in matching quotes ("pre", 'pre', `pre`) or after two dashes and
// no third (--pre), where no character of a name follows (not --pre-glob).
func flagAt(src []byte, i, end int) bool {
	at := func(k int) byte {
		if k < 0 || k >= len(src) {
			return 0
		}
		return src[k]
	}
	before, after := at(i-1), at(end)
	switch {
	case (before == '"' || before == '\'' || before == '`') && after == before:
		return true
	case before == '-' && at(i-2) == '-' && at(i-3) != '-' && !isFlagByte(after):
		return true
	}
	return false
}

// isFlagByte reports whether c continues a flag's name.
func isFlagByte(c byte) bool {
	return ascii.IsLetter(c) || ascii.IsDigit(c) || c == '-' || c == '_'
}

func appendUnique(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}
