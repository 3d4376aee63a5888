package slicer

import "strings"

// A sorted table is a run of entries, one per line at one indentation,
// each led by a quoted key, in order: file types, languages, MIME types,
// keywords. A change that adds an entry inserts it where its key sorts,
// a place no word of the task matches (the key is new), so sortedTables
// finds the tables for insertionLines to point into.

// minTableKeys is the fewest keys of a sorted table: fewer sorted lines
// are sorted by chance.
const minTableKeys = 8

// sortedTable is one table: the line (1-based) and key of each entry, and
// the last line of the table.
type sortedTable struct {
	lines []int
	keys  []string
	end   int
}

// tableKey returns the indentation and the lower-cased quoted key that
// lead line s, if it is an entry: optional openers ( [ { & then a quote.
func tableKey(s string) (indent, key string, ok bool) {
	t := strings.TrimLeft(s, " \t")
	indent = s[:len(s)-len(t)]
	t = strings.TrimLeft(t, "([{& ")
	if len(t) < 3 {
		return "", "", false
	}
	q := t[0]
	if q != '"' && q != '\'' && q != '`' {
		return "", "", false
	}
	end := strings.IndexByte(t[1:], q)
	if end <= 0 {
		return "", "", false
	}
	return indent, strings.ToLower(t[1 : 1+end]), true
}

// sortedTables finds the sorted tables of a file; imp marks its import
// lines, which are sorted too but hold no entries.
func sortedTables(lines []string, imp []bool) []sortedTable {
	var out []sortedTable
	var cur sortedTable
	indent := ""
	flush := func() {
		if len(cur.keys) >= minTableKeys && mostlySorted(cur.keys) {
			out = append(out, cur)
		}
		cur = sortedTable{}
	}
	for i, s := range lines {
		if imp[i] {
			flush()
			continue
		}
		in, key, ok := tableKey(s)
		switch {
		case ok && (len(cur.keys) == 0 || in == indent):
			if len(cur.keys) == 0 {
				indent = in
			}
			cur.lines = append(cur.lines, i+1)
			cur.keys = append(cur.keys, key)
			cur.end = i + 1
		case len(cur.keys) > 0 && continues(s, indent):
			cur.end = i + 1
		default:
			flush()
			if ok {
				indent = in
				cur.lines, cur.keys, cur.end = []int{i + 1}, []string{key}, i+1
			}
		}
	}
	flush()
	return out
}

// continues reports whether line s, inside a table whose entries start
// at indent, belongs to the entry before it: deeper indented, a closer at
// the entries' indentation, or a comment.
func continues(s, indent string) bool {
	if !strings.HasPrefix(s, indent) {
		return false
	}
	t := s[len(indent):]
	if t == "" {
		return false
	}
	if t[0] == ' ' || t[0] == '\t' {
		return true
	}
	return strings.HasPrefix(t, ")") || strings.HasPrefix(t, "]") || strings.HasPrefix(t, "}") ||
		strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#")
}

// insertionLines returns the lines around where key would be inserted in
// t: the last line of the entry before it and the first line of the
// entry after it (the lines a pure insertion sits between).
func (t *sortedTable) insertionLines(key string) (before, after int) {
	// The place with the fewest keys on the wrong side of it: tables are
	// kept sorted by hand, and a slip must not move every insertion.
	cost := 0
	for _, k := range t.keys {
		if k == key {
			return 0, 0
		}
		if k < key {
			cost++
		}
	}
	best, j := cost, 0
	for i, k := range t.keys {
		if k > key {
			cost++
		} else {
			cost--
		}
		if cost < best {
			best, j = cost, i+1
		}
	}
	switch {
	case j == 0:
		return t.lines[0] - 1, t.lines[0]
	case j == len(t.keys):
		return t.end, t.end + 1
	}
	return t.lines[j] - 1, t.lines[j]
}

// mostlySorted reports whether at least 90% of the neighbouring keys are
// in order.
func mostlySorted(keys []string) bool {
	bad := 0
	for i := 1; i < len(keys); i++ {
		if keys[i] < keys[i-1] {
			bad++
		}
	}
	return bad*10 <= len(keys)-1
}
