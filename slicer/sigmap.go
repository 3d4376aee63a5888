package slicer

import (
	"sort"
	"strings"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// mapEntry is one file of the signature map.
type mapEntry struct {
	rk     *ranked
	path   string
	sigs   []string
	more   bool // the file has more definitions than sigs lists
	tokens int  // exact count in the dearer prompt format
}

// outline packs the prompt for a task that reaches no file ("fix it", a
// task in another language, a typo): the whole context goes to the
// signature map of the most central files, best first, and the note says
// why. Packed as usual it had shown the first hundred lines of the most
// central file, whatever they held, and a map of five files.
func (p *packer) outline(cands []*ranked, pool int) error {
	// The map pass alone: nothing is chosen and nothing mapped yet.
	p.addMaps(cands, map[int]int{}, pool)
	return p.finish(nil, p.maps)
}

// outlineOrder ranks the files in scope that define something for an
// outline when no signal ranks any: sources first (by class factor), then
// the files that define most, then by path. Their scores are zero.
func outlineOrder(ix *index.Index, include, exclude index.Patterns) []ranked {
	var out []ranked
	for i := range ix.Files {
		f := &ix.Files[i]
		if len(f.Symbols) == 0 || !inScope(include, exclude, f.Path) {
			continue
		}
		c := rankClass(f, false) // no task reaches a file: none is about completion
		out = append(out, ranked{file: i, class: c, signals: Signals{Class: classFactor(c)}})
	}
	sort.SliceStable(out, func(a, b int) bool {
		fa, fb := &ix.Files[out[a].file], &ix.Files[out[b].file]
		if ca, cb := out[a].signals.Class, out[b].signals.Class; ca != cb {
			return ca > cb
		}
		if len(fa.Symbols) != len(fb.Symbols) {
			return len(fa.Symbols) > len(fb.Symbols)
		}
		return fa.Path < fb.Path
	})
	return out
}

// mapEntry renders one map entry: at most maxMapDefs of the file's
// definitions, as mapDefs orders them.
func (p *packer) mapEntry(r *ranked) *mapEntry {
	f := &p.ix.Files[r.file]
	var sigs []string
	for _, k := range p.mapDefs(r) {
		s := f.Symbols[k]
		sig := s.Signature
		if sig == "" {
			sig = s.Kind + " " + s.Name
		}
		sigs = append(sigs, strings.Join(strings.Fields(sig), " "))
		if len(sigs) == maxMapDefs {
			break
		}
	}
	m := &mapEntry{rk: r, path: f.Path, sigs: sigs, more: len(f.Symbols) > len(sigs)}
	m.tokens = p.count(func(r *renderer) string { return r.mapLine(m) })
	return m
}

// mapDefs returns the indexes into a file's Symbols that its map entry may
// list, in the order it lists them. The definitions the task hits come
// first: those a mention points into (r.lines: a name written as code, a
// frame, a quote on a few lines), then those holding the task's terms or
// quotes, by the weight of the distinct ones each holds (IDF times the
// task's own weight, as units are scored; a quote weighs as the strongest
// term); ties, and the definitions the task does not hit, in file order.
// Members of a file with more than maxMapDefs definitions are listed only
// when hit: otherwise a class's methods would crowd out the file's other
// top-level definitions. Listing the first definitions alone, the entry of
// a test file with 30 tests showed the first 12 and never the test the
// task named. The entry keeps its maxMapDefs lines, so its room is the
// same; the order depends on the task and the file only.
func (p *packer) mapDefs(r *ranked) []int {
	f := &p.ix.Files[r.file]
	var hits []hit
	if r.file < len(p.stats) {
		hits = p.stats[r.file].hits // in line order, as scanFile finds them
	}
	maxW := 0.0
	for k, w := range p.termW {
		maxW = max(maxW, w*p.q.tfWeight(k))
	}
	if maxW == 0 {
		maxW = 1 // a task of quotes alone: they still count
	}
	type def struct {
		k       int
		pointed bool
		weight  float64
	}
	var hit, rest []def
	seen := make([]int, len(p.termW)+len(p.q.lits)) // term or quote → last def k+1 that counted it
	for k, s := range f.Symbols {
		d := def{k: k}
		for _, line := range r.lines {
			if s.Start <= line && line <= s.End {
				d.pointed = true
				break
			}
		}
		for i := sort.Search(len(hits), func(i int) bool { return int(hits[i].Line) >= s.Start }); i < len(hits) && int(hits[i].Line) <= s.End; i++ {
			t := int(hits[i].Term)
			w := maxW
			if t >= 0 {
				w = p.termW[t] * p.q.tfWeight(t)
			} else {
				t = len(p.termW) - 1 - t // quote -1-k after the terms
			}
			if t < len(seen) && seen[t] != k+1 {
				seen[t] = k + 1
				d.weight += w
			}
		}
		switch {
		case d.pointed || d.weight > 0:
			hit = append(hit, d)
		case s.Scope == "" || len(f.Symbols) <= maxMapDefs:
			rest = append(rest, d)
		}
	}
	sort.SliceStable(hit, func(a, b int) bool {
		if hit[a].pointed != hit[b].pointed {
			return hit[a].pointed
		}
		return hit[a].weight > hit[b].weight
	})
	out := make([]int, 0, len(hit)+len(rest))
	for _, d := range append(hit, rest...) {
		out = append(out, d.k)
	}
	return out
}
