package slicer

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// This file renders a selection as a prompt. Every format carries the same
// parts in the same order: the task, a note on what was left out and how
// to ask for more, the content blocks in rank order, then the signature map.

// renderer renders one format. FormatPaths is sized as markdown.
type renderer struct {
	format string
	task   string
	noTask bool   // leave the task out of the text (the builder places it)
	none   string // why no file could be selected, when none could: for the note
	repo   string // short description of the repository, for the note
}

// page is what a renderer renders: the views and map entries shown, how
// many files that matched the task were left out, and the facts of the
// packing that the note states. The packer hands it over whole; the
// renderer keeps nothing of it.
type page struct {
	views   []*view
	maps    []*mapEntry
	omitted int
	notes   noteFacts
}

// noteFacts are the facts of a packing that only the note states.
type noteFacts struct {
	// unmatched: nothing of the task is in the repository, and the
	// prompt outlines it instead (packer.outline).
	unmatched bool
	// twins: for a path that may be shown, the paths of the same
	// content left out for it (dropTwins).
	twins map[string][]string
}

func newRenderer(format, task string, ix *index.Index) *renderer {
	repo := path.Base(strings.ReplaceAll(ix.Root, `\`, "/"))
	if repo == "." || repo == "/" || repo == "" {
		repo = "the repository"
	}
	if ix.Head != "" {
		repo += " at " + ix.Head[:min(12, len(ix.Head))]
	}
	return &renderer{format: format, task: task, repo: repo}
}

// note is the short header telling the model what it sees, what was left
// out and how to ask for more.
func (r *renderer) note(pg page) string {
	views, maps, omitted := pg.views, pg.maps, pg.omitted
	whole, parts := 0, 0
	for _, v := range views {
		if v.gran == GranWhole {
			whole++
		} else {
			parts++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Context from %s, selected by ctxtrim for the task above: ", r.repo)
	switch {
	case pg.notes.unmatched && len(views) == 0 && len(maps) > 0:
		what := plural(len(maps), "most central file")
		if len(maps) == 1 {
			what = "most central file"
		}
		fmt.Fprintf(&b, "no word, name or path of the task is in the repository, so this is an outline of it instead: the signatures of its %s", what)
		omitted = 0 // they did not match the task
	case len(views) == 0 && len(maps) == 0 && omitted == 0 && r.none != "":
		b.WriteString(r.none)
	case len(views) == 0 && len(maps) == 0 && omitted == 0:
		b.WriteString("no file matched the task")
	case len(views) == 0 && len(maps) == 0:
		b.WriteString("no file fitted the budget")
	default:
		var what []string
		if whole > 0 {
			what = append(what, plural(whole, "file")+" whole")
		}
		if parts > 0 {
			what = append(what, plural(parts, "file")+" as excerpts")
		}
		if len(what) == 0 {
			what = append(what, "no file content")
		}
		b.WriteString(strings.Join(what, ", "))
		if len(maps) > 0 {
			fmt.Fprintf(&b, ", and the signatures of %s", plural(len(maps), "more file"))
		}
	}
	b.WriteString(".")
	if omitted > 0 {
		fmt.Fprintf(&b, " %s also matched the task but did not fit the budget.", plural(omitted, "more file"))
	}
	b.WriteString(twinNote(pg))
	if parts > 0 {
		b.WriteString(" Elided lines are marked ⋮.")
	}
	b.WriteString(" To see more of any file, ask for it by path and line range.")
	return b.String()
}

// maxTwinNames bounds the twins the note names per file shown.
const maxTwinNames = 3

// twinNote names, for each file shown, the files of the same content
// left out for it: " CLAUDE.md has the same content as AGENTS.md."
func twinNote(pg page) string {
	views, maps := pg.views, pg.maps
	if len(pg.notes.twins) == 0 {
		return ""
	}
	var b strings.Builder
	say := func(kept string) {
		ts := pg.notes.twins[kept]
		if len(ts) == 0 {
			return
		}
		var names []string
		for _, t := range ts[:min(len(ts), maxTwinNames)] {
			names = append(names, QuotePath(t))
		}
		if n := len(ts) - maxTwinNames; n > 0 {
			names = append(names, plural(n, "more file"))
		}
		list := names[0]
		if k := len(names) - 1; k > 0 {
			list = strings.Join(names[:k], ", ") + " and " + names[k]
		}
		verb := "has"
		if len(ts) > 1 {
			verb = "have"
		}
		fmt.Fprintf(&b, " %s %s the same content as %s.", list, verb, QuotePath(kept))
	}
	for _, v := range views {
		say(v.path)
	}
	for _, m := range maps {
		say(m.path)
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// taskBlock is the task as rendered, alone.
func (r *renderer) taskBlock() string {
	if r.noTask {
		return ""
	}
	switch r.format {
	case FormatXML:
		return "<task>" + xmlCode("\n"+r.task+"\n") + "</task>\n"
	case FormatJSON:
		b, _ := json.Marshal(r.task)
		return string(b)
	}
	return "# Task\n\n" + r.task + "\n"
}

// render renders the whole prompt.
func (r *renderer) render(pg page) string {
	views, maps := pg.views, pg.maps
	note := r.note(pg)
	switch r.format {
	case FormatXML:
		// One root, context, so that the text is an XML document
		// (see xmlCode); the task is its first child, where it costs no
		// element of its own.
		var b strings.Builder
		b.WriteString("<context>\n")
		b.WriteString(r.taskBlock())
		fmt.Fprintf(&b, "<note>%s</note>\n", xmlEscape(note))
		for _, v := range views {
			b.WriteString(r.block(v))
		}
		if len(maps) > 0 {
			b.WriteString("<signatures>\n")
			for _, m := range maps {
				b.WriteString(r.mapLine(m))
			}
			b.WriteString("</signatures>\n")
		}
		b.WriteString("</context>\n")
		return b.String()
	case FormatJSON:
		// Compact, one file or map entry per line: the document is for
		// tools, and indentation would only add tokens to a request that
		// embeds it.
		var b strings.Builder
		b.WriteString("{")
		if !r.noTask {
			b.WriteString(`"task":` + r.taskBlock() + ",")
		}
		nj, _ := json.Marshal(note)
		b.WriteString("\n\"note\":" + string(nj) + ",\n\"files\":[")
		for k, v := range views {
			if k > 0 {
				b.WriteString(",")
			}
			b.WriteString(r.block(v))
		}
		b.WriteString("],\n\"signatures\":[")
		for k, m := range maps {
			if k > 0 {
				b.WriteString(",")
			}
			e, _ := json.Marshal(jsonMap{jsonPath(m.path), m.sigs, m.more})
			b.WriteString("\n" + string(e))
		}
		b.WriteString("]}\n")
		return b.String()
	case FormatPaths:
		var b strings.Builder
		for _, v := range views {
			b.WriteString(QuotePath(v.path) + "\t" + formatRanges(v.ranges) + "\n")
		}
		return b.String()
	}
	var b strings.Builder
	b.WriteString(r.taskBlock())
	b.WriteString("\n# Context\n\n")
	b.WriteString(note)
	b.WriteString("\n")
	for _, v := range views {
		b.WriteString("\n")
		b.WriteString(r.block(v))
	}
	if len(maps) > 0 {
		fence := "```"
		lines := make([]string, len(maps))
		for k, m := range maps {
			lines[k] = r.mapLine(m)
			for strings.Contains(lines[k], fence) {
				fence += "`"
			}
		}
		heading := "Signatures of other relevant files"
		if pg.notes.unmatched && len(views) == 0 {
			heading = "Signatures of the most central files"
		}
		b.WriteString("\n## " + heading + "\n\n" + fence + "text\n")
		for _, l := range lines {
			b.WriteString(l)
		}
		b.WriteString(fence + "\n")
	}
	return b.String()
}

// block renders one file's content block.
func (r *renderer) block(v *view) string {
	ranges := formatRanges(v.ranges)
	switch r.format {
	case FormatJSON:
		// As render writes it, so that the packer counts what it emits.
		f, _ := json.Marshal(r.jsonFile(v))
		return "\n" + string(f)
	case FormatXML:
		return fmt.Sprintf("<file path=\"%s\" lines=\"%s\" of=\"%d\" granularity=\"%s\">%s</file>\n",
			xmlEscape(xmlPath(v.path)), ranges, v.lines, v.gran, xmlCode("\n"+v.body))
	}
	kind := "excerpts"
	if v.gran == GranWhole {
		kind = "whole file"
	}
	fence := "```"
	for strings.Contains(v.body, fence) {
		fence += "`"
	}
	return fmt.Sprintf("## %s:%s (%s, %d lines)\n\n%s%s\n%s%s\n", QuotePath(v.path), ranges, kind, v.lines,
		fence, fenceLang(v.lang, v.path), v.body, fence)
}

// formatRanges renders ranges as start-end,start-end: the form the
// markdown headers and the paths format share.
func formatRanges(rs []LineRange) string {
	parts := make([]string, len(rs))
	for k, rg := range rs {
		parts[k] = fmt.Sprintf("%d-%d", rg.Start, rg.End)
	}
	return strings.Join(parts, ",")
}

// jsonFile is one content block of the JSON format.
type jsonFile struct {
	Path        string      `json:"path"`
	Lang        string      `json:"lang,omitempty"`
	Granularity Granularity `json:"granularity"`
	Ranges      []LineRange `json:"ranges"`
	Lines       int         `json:"lines"`
	Content     string      `json:"content"`
}

func (r *renderer) jsonFile(v *view) jsonFile {
	return jsonFile{Path: jsonPath(v.path), Lang: v.lang, Granularity: v.gran, Ranges: v.ranges, Lines: v.lines, Content: v.body}
}

// jsonMap is one signature-map entry of the JSON format.
type jsonMap struct {
	Path       string   `json:"path"`
	Signatures []string `json:"signatures"`
	More       bool     `json:"more,omitempty"`
}

// mapLine renders one file of the signature map: its path, then one line
// per definition.
func (r *renderer) mapLine(m *mapEntry) string {
	if r.format == FormatJSON {
		b, _ := json.Marshal(jsonMap{jsonPath(m.path), m.sigs, m.more})
		return string(b) + "\n"
	}
	var b strings.Builder
	b.WriteString(QuotePath(m.path) + ":\n")
	for _, s := range m.sigs {
		b.WriteString("  " + s + "\n")
	}
	if m.more {
		b.WriteString("  …\n")
	}
	if r.format == FormatXML {
		return xmlEscape(b.String())
	}
	return b.String()
}

// QuotePath writes a path for line-based text: the formats' markdown
// header, the paths format's path<TAB>ranges, the map, the XML attribute,
// and the lines a command prints about files (-explain's), so that all
// write one name one way. A path holding a control
// character (a tab or a newline among them, which git allows) or invalid
// UTF-8 would break those lines, and one starting with a double quote
// would read as quoted: such a path is written as a double-quoted Go
// string literal, as git writes unusual names (core.quotePath), which
// strconv.Unquote reads back; any other path is returned as it is. JSON
// escapes paths itself.
func QuotePath(p string) string {
	if strings.HasPrefix(p, `"`) || !utf8.ValidString(p) || strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return strconv.Quote(p)
	}
	return p
}

// jsonPath writes a path for JSON, which escapes control characters but
// cannot carry bytes that are not UTF-8 (encoding/json writes U+FFFD for
// them, another path): such a path is written quoted, as QuotePath does.
func jsonPath(p string) string {
	if !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	return p
}

// XML. The xml format is an XML 1.0 document: one root element, context,
// holding the task, the note, the files and the signatures. The task and file content are written as they
// are when they hold no "<" or "&", and in a CDATA section when they do,
// so that they read as written: escaping would turn every && and < of the
// code into entities, which cost tokens and are not the code a model is
// asked to change, and a section around text that needs none costs its
// markup (a dozen characters) for nothing. The one sequence a CDATA
// section cannot hold, "]]>", is split across two sections ("]]" then
// ">"). The note, attribute values and signatures, short lines where a
// section's own markup would cost more than the escapes, are escaped.
//
// XML 1.0 cannot carry the control characters other than tab, newline and
// carriage return, nor U+FFFE, U+FFFF or bytes that are not UTF-8, neither
// raw nor as character references. Each is written as U+FFFD, the
// replacement character (as encoding/xml's EscapeText does): a marker that
// something stood there, where dropping it would join the words around it.
// A path holding one is Go-quoted instead (xmlPath), so it reads back.
// The budget counts the text as written, replacements included.
const (
	cdataOpen  = "<![CDATA["
	cdataClose = "]]>"
)

// xmlCode returns code or prose for XML character data, reading as
// written: s itself when it holds no markup, else in a CDATA section.
func xmlCode(s string) string {
	s = xmlChars(s)
	if !strings.ContainsAny(s, "<&") && !strings.Contains(s, cdataClose) {
		return s
	}
	return cdataOpen + xmlCDATA(s) + cdataClose
}

// xmlCDATA returns s for a CDATA section: XML characters only, and every
// "]]>" split so that it does not end the section.
func xmlCDATA(s string) string {
	return strings.ReplaceAll(xmlChars(s), cdataClose, "]]"+cdataClose+cdataOpen+">")
}

// xmlEscape returns s for XML character data or a double-quoted attribute
// value: XML characters only, and the markup characters escaped.
func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(xmlChars(s))
}

// xmlPath writes a path for an XML attribute: as QuotePath does, and
// Go-quoted too when it holds a character XML cannot carry (U+FFFE, which
// QuotePath leaves), so that every path reads back as itself.
func xmlPath(p string) string {
	if q := QuotePath(p); xmlChars(q) == q {
		return q
	}
	return strconv.Quote(p)
}

// xmlChars returns s with each character that XML 1.0 cannot carry, and
// each byte that is not UTF-8, replaced by U+FFFD.
func xmlChars(s string) string {
	if strings.IndexFunc(s, func(c rune) bool { return !isXMLChar(c) }) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c, n := utf8.DecodeRuneInString(s[i:])
		if (c == utf8.RuneError && n == 1) || !isXMLChar(c) {
			c = utf8.RuneError
		}
		b.WriteRune(c)
		i += n
	}
	return b.String()
}

// isXMLChar reports whether c is a Char of XML 1.0 (section 2.2).
func isXMLChar(c rune) bool {
	return c == '\t' || c == '\n' || c == '\r' ||
		0x20 <= c && c <= 0xD7FF || 0xE000 <= c && c <= 0xFFFD || 0x10000 <= c && c <= 0x10FFFF
}

// fenceLang names a markdown fence's language: the index's language name,
// or the file's extension.
func fenceLang(lang, p string) string {
	switch lang {
	case "":
		return strings.TrimPrefix(path.Ext(p), ".")
	case "csharp":
		return "cs"
	}
	return lang
}

// elisionMarker is the line that stands for elided lines, written as a
// comment of the file's language so the excerpt still reads as code.
func elisionMarker(lang string, from, to int) string {
	text := fmt.Sprintf("⋮ lines %d-%d elided", from, to)
	switch lang {
	case "python", "ruby", "bash", "shell", "yaml", "toml", "perl", "r", "elixir", "make", "dockerfile":
		return "# " + text
	case "lua", "sql", "haskell":
		return "-- " + text
	case "html", "xml", "markdown":
		return "<!-- " + text + " -->"
	case "":
		return text
	}
	return "// " + text
}
