package index

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitattributes"
)

// This file holds the linguist attributes of .gitattributes: how a
// repository tells GitHub (and so ctxtrim) which of its paths are someone
// else's code, generated, or documentation, where the path alone does not
// say, or says wrong.
//
//	gen/**          linguist-generated
//	extlib/**       linguist-vendored
//	vendor/**       -linguist-vendored       (our own code, despite the name)
//	docs/**         linguist-documentation
//	docs/examples/* linguist-documentation=false
//
// As linguist reads them, an attribute set, or set to any value but
// "false", is true; unset ("-attr") or "false" is false. A true attribute
// gives the file its class (vendored before generated before
// documentation), a false one takes away the class its path or content
// would give. go-git parses the lines and matches the patterns; the
// precedence is git's, resolved here: .git/info/attributes first, then the
// .gitattributes nearest the file, later lines before earlier ones.

// Linguist attribute names.
const (
	attrVendored      = "linguist-vendored"
	attrGenerated     = "linguist-generated"
	attrDocumentation = "linguist-documentation"
)

// tristate is an attribute's value for a file: unspecified (0), true or
// false.
type tristate int8

const (
	attrTrue  tristate = 1
	attrFalse tristate = -1
)

// linguist holds a file's linguist attributes, indexed by attrVendored
// and the rest, and for each the attributes file that decided it.
type linguist struct {
	state [3]tristate
	src   [3]string
}

// Indexes of the linguist attributes in linguist and attrRule.
const (
	lingVendored = iota
	lingGenerated
	lingDocumentation
)

// attrRule is one line of an attributes file that mentions a linguist
// attribute. A state of 0 means the line does not mention it; explicit
// marks "!attr", which makes the attribute unspecified and ends the
// search for it.
type attrRule struct {
	p      gitattributes.Pattern
	name   string      // the pattern as written
	domain []string    // the directory of its attributes file
	states [3]tristate // by lingVendored…
	clears [3]bool     // "!attr"
	src    string
}

// readAttributes parses the attributes file at file, whose patterns apply
// below domain, keeping only lines that mention a linguist attribute. A
// missing file has no rules; a line git would reject (a macro outside the
// top level, a bad name) is skipped, as git skips it.
func readAttributes(file string, domain []string, src string) []attrRule {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var rules []attrRule
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, "linguist-") {
			continue
		}
		m, err := gitattributes.ParseAttributesLine(strings.TrimSuffix(line, "\r"), domain, true)
		if err != nil || m.Pattern == nil || !filePattern(m.Name) {
			continue // a macro defines no path's attributes
		}
		r := attrRule{p: m.Pattern, name: m.Name, domain: domain, src: src}
		mentioned := false
		for _, a := range m.Attributes {
			var k int
			switch a.Name() {
			case attrVendored:
				k = lingVendored
			case attrGenerated:
				k = lingGenerated
			case attrDocumentation:
				k = lingDocumentation
			default:
				continue
			}
			mentioned = true
			switch {
			case a.IsUnspecified():
				r.clears[k] = true
			case a.IsUnset() || a.IsValueSet() && a.Value() == "false":
				r.states[k] = attrFalse
			default:
				r.states[k] = attrTrue
			}
		}
		if mentioned {
			rules = append(rules, r)
		}
	}
	return rules
}

// filePattern reports whether an attributes pattern can match a file: in
// git, "dir/" matches only the directory, so no file takes its
// attributes. An empty component elsewhere ("a//b") is left out too, as
// go-git's matcher indexes past the end of such a pattern.
func filePattern(name string) bool {
	for i, c := range strings.Split(name, "/") {
		if c == "" && i > 0 {
			return false
		}
	}
	return true
}

// infoAttributes reads .git/info/attributes, which outranks every
// .gitattributes.
func (b *builder) infoAttributes() []attrRule {
	if b.commonDir == "" {
		return nil
	}
	return readAttributes(filepath.Join(b.commonDir, "info", "attributes"), nil, ".git/info/attributes")
}

// linguistOf resolves the linguist attributes of the path comps: info
// rules first, then tree rules (root file first, so searched from the
// end), each attribute decided by the first rule that matches and names
// it.
func linguistOf(info, tree []attrRule, comps []string) linguist {
	var l linguist
	var done [3]bool
	apply := func(r *attrRule) {
		matched := false
		for k := range done {
			if done[k] || r.states[k] == 0 && !r.clears[k] {
				continue
			}
			if !matched {
				if !r.p.Match(comps) {
					return
				}
				matched = true
			}
			done[k] = true
			l.state[k], l.src[k] = r.states[k], r.src
		}
	}
	for i := len(info) - 1; i >= 0; i-- {
		apply(&info[i])
	}
	for i := len(tree) - 1; i >= 0; i-- {
		apply(&tree[i])
	}
	return l
}

// detail is the Detail of a skip for class c: the attributes file that
// gave the class, or "by path".
func (l linguist) detail(c Class) string {
	k := -1
	switch c {
	case Vendored:
		k = lingVendored
	case Generated:
		k = lingGenerated
	}
	if k >= 0 && l.state[k] == attrTrue {
		return "by " + l.src[k]
	}
	return "by path"
}

// unvendors reports whether a rule that sets linguist-vendored false
// may match a file under the directory dir (its path components): then
// dir, vendored by its path, may hold files that are not, and is walked
// rather than skipped whole. Other vendored trees (node_modules/ beside a
// rule for vendor/ours/) are still skipped whole.
func unvendors(info, tree []attrRule, dir []string) bool {
	for _, rs := range [][]attrRule{info, tree} {
		for i := range rs {
			if rs[i].states[lingVendored] == attrFalse && mayMatchUnder(rs[i].name, rs[i].domain, dir) {
				return true
			}
		}
	}
	return false
}

// mayMatchUnder reports whether the attributes pattern name, read in the
// directory domain, may match some file below dir. A one-component
// pattern matches a file's base name anywhere; a longer one is anchored
// at domain, so each of its directory components must match dir's, up
// to a "**".
func mayMatchUnder(name string, domain, dir []string) bool {
	pat := strings.Split(strings.TrimPrefix(name, "/"), "/")
	if len(pat) == 1 && !strings.HasPrefix(name, "/") {
		return true
	}
	if len(dir) < len(domain) {
		return true // dir is above the rule's own directory
	}
	for i, d := range domain {
		if dir[i] != d {
			return false
		}
	}
	rest := dir[len(domain):]
	for i := 0; i < len(pat)-1 && i < len(rest); i++ {
		if pat[i] == "**" {
			return true
		}
		if ok, err := filepath.Match(pat[i], rest[i]); err != nil || !ok {
			return false
		}
	}
	// Without "**" a pattern matches files exactly as deep as it is,
	// and a file below dir lies deeper than dir.
	return len(pat) > len(rest) || pat[len(pat)-1] == "**"
}
