package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ctxtrim/ctxtrim/slicer/internal/ascii"
	sitter "github.com/smacker/go-tree-sitter"
)

// Extraction limits, each with its reason.
const (
	// maxSignatureLines bounds a definition's header: enough for a Go
	// function whose parameters wrap over a few lines, short enough that a
	// signature never stands in for the body.
	maxSignatureLines = 6
	// maxRefs bounds the distinct identifiers kept per file. Ranking needs
	// the vocabulary a file uses, not every local variable of a 20k-line
	// file; the bound keeps the cache and memory small.
	maxRefs = 4096
	// parseTimeoutMicros stops tree-sitter on pathological input (deeply
	// nested generated code); such a file is then indexed lexically, and
	// the cache keeps that. tree-sitter's limit is wall-clock time, so it
	// must leave room for a loaded machine: at 2 s, googletest's gtest.h
	// (830 KB, which fmt kept in its tree; about 1 s to parse on an idle
	// core) timed out beside five busy processes, and the selection
	// changed with the load and then stayed changed through the cache.
	// Files over the index's size limit (1 MiB) are never parsed, so no
	// ordinary file comes near 10 s.
	parseTimeoutMicros = 10_000_000
)

// scopeKinds are the definition kinds that make a nested "function" a
// "method".
var scopeKinds = map[string]bool{
	"class": true, "struct": true, "interface": true, "trait": true, "impl": true,
	"object": true, "enum": true, "protocol": true, "extension": true, "module": true, "record": true,
}

// Definitions returns the definitions in src, in source order, and the
// distinct identifiers it references, sorted. The language is chosen by
// path's name (and a "#!" line for files without an extension); for a path
// with no grammar both results are nil and the error is nil. A file that
// does not parse cleanly still yields what tree-sitter recovered.
//
// Definitions builds and closes its own parser; the compiled queries are
// shared (see queryCache). It is safe for concurrent use. Index
// construction uses a long-lived extractor per worker instead.
func Definitions(path string, src []byte) ([]Symbol, []string, error) {
	lang := DetectLang(path, src)
	if lang == "" {
		return nil, nil, nil
	}
	x := newExtractor(compiled)
	defer x.close()
	return x.extract(context.Background(), lang, src)
}

// compiledLang is a language with its queries compiled. Queries are
// read-only once compiled and are shared between extractors; the
// queryCache that compiled them closes them.
type compiledLang struct {
	*language
	grammar  *sitter.Language
	defs     *sitter.Query
	refs     *sitter.Query
	defNames []string // capture index → capture name, for defs
	// parsing serializes the parses of a language marked serial.
	parsing sync.Mutex
}

// queryCache compiles each language's queries on first use: compiling is
// slow for large grammars (Swift's takes most of a second) and most
// repositories use two or three languages. It is safe for concurrent use.
//
// There is one, compiled: the package's only package-level variable. It is
// derived data, like a compiled regexp: immutable once built, holding no
// configuration, and too slow to rebuild per Definitions call. Its queries
// live as long as the process and are therefore never closed; every
// parser, tree and cursor still is.
type queryCache struct {
	mu    sync.Mutex
	langs map[string]*compiledLang
	errs  map[string]error
}

var compiled = newQueryCache()

func newQueryCache() *queryCache {
	return &queryCache{langs: map[string]*compiledLang{}, errs: map[string]error{}}
}

// get returns the compiled queries of the named language.
func (qc *queryCache) get(name string) (*compiledLang, error) {
	qc.mu.Lock()
	defer qc.mu.Unlock()
	if cl, ok := qc.langs[name]; ok {
		return cl, nil
	}
	if err, ok := qc.errs[name]; ok {
		return nil, err
	}
	cl, err := compileLang(name)
	if err != nil {
		qc.errs[name] = err
		return nil, err
	}
	qc.langs[name] = cl
	return cl, nil
}

func compileLang(name string) (*compiledLang, error) {
	for _, l := range languages() {
		if l.name != name {
			continue
		}
		g := l.grammar()
		cl := &compiledLang{language: l, grammar: g}
		var err error
		if cl.defs, err = sitter.NewQuery([]byte(l.defs), g); err != nil {
			return nil, fmt.Errorf("compile %s definitions query: %w", l.name, err)
		}
		if cl.refs, err = sitter.NewQuery([]byte(l.refs), g); err != nil {
			cl.defs.Close()
			return nil, fmt.Errorf("compile %s references query: %w", l.name, err)
		}
		for i := uint32(0); i < cl.defs.CaptureCount(); i++ {
			cl.defNames = append(cl.defNames, cl.defs.CaptureNameForId(i))
		}
		return cl, nil
	}
	return nil, fmt.Errorf("no grammar for %q", name)
}

// extractor is one worker's tree-sitter state: a parser and a query
// cursor, reused from file to file. It is not safe for concurrent use.
type extractor struct {
	qc     *queryCache
	parser *sitter.Parser
	cursor *sitter.QueryCursor
	seen   map[string]struct{} // scratch set for refs
	// goBodies holds the Go fast path's scratch buffers.
	goBodies goBodies
}

func newExtractor(qc *queryCache) *extractor {
	p := sitter.NewParser()
	p.SetOperationLimit(parseTimeoutMicros)
	return &extractor{qc: qc, parser: p, cursor: sitter.NewQueryCursor(), seen: map[string]struct{}{}}
}

// close frees the parser and cursor; the extractor is unusable afterwards.
func (x *extractor) close() {
	x.cursor.Close()
	x.parser.Close()
}

// errParse reports that tree-sitter gave up on a file.
var errParse = errors.New("parse failed")

// span is a definition under construction.
type span struct {
	sym        Symbol
	start, end uint32 // bytes of the whole definition
	nameStart  uint32
	pattern    uint16 // query pattern index: the earlier pattern wins ties
	explicit   bool   // scope came from a @scope capture
}

// extract parses src as lang and runs its queries.
func (x *extractor) extract(ctx context.Context, lang string, src []byte) ([]Symbol, []string, error) {
	if lang == "go" {
		if syms, refs, ok := x.goBodies.definitions(src, x.seen); ok {
			return syms, refs, nil
		}
	}
	syms, refs, _, err := x.treeSitter(ctx, lang, src)
	return syms, refs, err
}

// treeSitter is extract with tree-sitter, whatever the language; it also
// reports whether the tree has syntax errors.
func (x *extractor) treeSitter(ctx context.Context, lang string, src []byte) ([]Symbol, []string, bool, error) {
	cl, err := x.qc.get(lang)
	if err != nil {
		return nil, nil, false, err
	}
	x.parser.SetLanguage(cl.grammar)
	if cl.serial {
		cl.parsing.Lock()
	}
	tree, err := x.parser.ParseCtx(ctx, nil, src)
	if cl.serial {
		cl.parsing.Unlock()
	}
	if err != nil || tree == nil {
		x.parser.Reset()
		if ctx.Err() != nil {
			return nil, nil, false, ctx.Err()
		}
		return nil, nil, false, fmt.Errorf("%w: %v", errParse, err)
	}
	defer tree.Close()
	root := tree.RootNode()

	// Definitions.
	var spans []span
	names := map[uint32]bool{} // start bytes of definition names, not references
	x.cursor.Exec(cl.defs, root)
	for {
		m, ok := x.cursor.NextMatch()
		if !ok {
			break
		}
		var def, name, scope *sitter.Node
		kind := ""
		for _, c := range m.Captures {
			switch n := cl.defNames[c.Index]; {
			case n == "name":
				name = c.Node
			case n == "scope":
				scope = c.Node
			case strings.HasPrefix(n, "definition."):
				def, kind = c.Node, strings.TrimPrefix(n, "definition.")
			}
		}
		if def == nil || name == nil {
			continue
		}
		s := span{start: def.StartByte(), end: def.EndByte(), nameStart: name.StartByte(), pattern: m.PatternIndex}
		start, line := skipSpace(src, s.start, int(def.StartPoint().Row)+1)
		s.sym = Symbol{
			Name:      name.Content(src),
			Kind:      kind,
			Start:     line,
			End:       max(line, endLine(def)),
			Signature: signature(src, def, start),
		}
		if scope != nil {
			s.sym.Scope = scope.Content(src)
			s.explicit = true
		}
		names[s.nameStart] = true
		spans = append(spans, s)
	}
	syms := nest(spans)

	// References.
	clear(x.seen)
	x.cursor.Exec(cl.refs, root)
	for len(x.seen) < maxRefs {
		m, ok := x.cursor.NextMatch()
		if !ok {
			break
		}
		for _, c := range m.Captures {
			if names[c.Node.StartByte()] {
				continue
			}
			b := src[c.Node.StartByte():c.Node.EndByte()]
			if len(b) < 2 || len(b) > 128 {
				continue
			}
			if _, ok := x.seen[string(b)]; !ok {
				x.seen[string(b)] = struct{}{}
			}
		}
	}
	refs := sortedKeys(x.seen)
	return syms, refs, root.HasError(), nil
}

// nest sorts spans into source order, removes duplicates and fills Scope
// from the innermost enclosing definition; a nested "function" in a type-like
// scope becomes a "method".
func nest(spans []span) []Symbol {
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		if spans[i].end != spans[j].end {
			return spans[i].end > spans[j].end
		}
		return spans[i].pattern < spans[j].pattern
	})
	if len(spans) == 0 {
		return nil
	}
	out := make([]Symbol, 0, len(spans)) // the index keeps it: no slack
	var stack []span
	for i, s := range spans {
		if i > 0 && s.start == spans[i-1].start && s.end == spans[i-1].end && s.nameStart == spans[i-1].nameStart {
			continue // the same definition matched by two patterns
		}
		for len(stack) > 0 && stack[len(stack)-1].end <= s.start {
			stack = stack[:len(stack)-1]
		}
		if !s.explicit && len(stack) > 0 {
			parent := stack[len(stack)-1]
			s.sym.Scope = parent.sym.Name
			if s.sym.Kind == "function" && scopeKinds[parent.sym.Kind] {
				s.sym.Kind = "method"
			}
		}
		if s.explicit && s.sym.Kind == "function" {
			s.sym.Kind = "method"
		}
		stack = append(stack, s)
		out = append(out, s.sym)
	}
	return out
}

// endLine is the 1-based last line of n, not counting a final newline.
func endLine(n *sitter.Node) int {
	p := n.EndPoint()
	if p.Column == 0 && p.Row > n.StartPoint().Row {
		return int(p.Row)
	}
	return int(p.Row) + 1
}

// skipSpace moves a definition's start past leading white space, which some
// grammars (Lua) attach to the first token, and returns the new start byte
// and its 1-based line.
func skipSpace(src []byte, start uint32, line int) (int, int) {
	i := int(start)
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		if src[i] == '\n' {
			line++
		}
		i++
	}
	return i, line
}

// signature is the header of a definition: from its start to its body, or
// its first line when it has no body, trimmed and bounded by
// maxSignatureLines. Modifiers written before the definition node on the
// same line ("export const", "type" in Go) are included unless that prefix
// holds other code (a '{', ';' or '}').
func signature(src []byte, def *sitter.Node, start int) string {
	body := -1
	if b := def.ChildByFieldName("body"); b != nil {
		body = int(b.StartByte())
	}
	return signatureOf(src, start, int(def.EndByte()), body)
}

// signatureOf is signature over byte offsets: the definition spans
// src[start:end] and its body starts at body (-1 when it has none).
func signatureOf(src []byte, start, end, body int) string {
	if end < start {
		end = start
	}
	if body > start {
		end = body
	} else if i := bytes.IndexByte(src[start:end], '\n'); i >= 0 {
		end = start + i
	}
	ls := bytes.LastIndexByte(src[:start], '\n') + 1
	if bytes.ContainsAny(src[ls:start], "{;}") {
		ls = start
	}
	sig := src[ls:end]
	for i, n := 0, 0; i < len(sig); i++ {
		if sig[i] == '\n' {
			if n++; n == maxSignatureLines {
				sig = sig[:i]
				break
			}
		}
	}
	s := strings.TrimSpace(string(sig))
	s = strings.TrimSpace(strings.TrimSuffix(s, "{"))
	return s
}

func sortedKeys(m map[string]struct{}) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// lexicalRefs returns the distinct identifier-like words in text: what a
// file without a grammar (Markdown, YAML, SQL…) offers to ranking.
func lexicalRefs(src []byte, seen map[string]struct{}) []string {
	clear(seen)
	for i := 0; i < len(src) && len(seen) < maxRefs; {
		if !ascii.IsIdentStart(src[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(src) && ascii.IsWordByte(src[j]) {
			j++
		}
		if w := src[i:j]; len(w) >= 3 && len(w) <= 64 {
			if _, ok := seen[string(w)]; !ok {
				seen[string(w)] = struct{}{}
			}
		}
		i = j
	}
	return sortedKeys(seen)
}
