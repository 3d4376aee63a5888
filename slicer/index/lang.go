package index

import (
	"bytes"
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/lua"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/scala"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// language is one tree-sitter language: its grammar and the queries that
// find definitions and references (see extract_queries.go).
type language struct {
	name    string                  // File.Lang value
	grammar func() *sitter.Language // grammar constructor
	defs    string                  // definitions query
	refs    string                  // references query
	// serial says the grammar's external scanner keeps state in C globals
	// (tree-sitter-lua's long-bracket level in this go-tree-sitter), so
	// two of its parses must never run at once.
	serial bool
}

// languages lists the languages with symbol extraction, by File.Lang.
// It is never modified.
func languages() []*language {
	return []*language{
		{name: "bash", grammar: bash.GetLanguage, defs: bashDefs, refs: bashRefs},
		{name: "c", grammar: c.GetLanguage, defs: cDefs, refs: cRefs},
		{name: "cpp", grammar: cpp.GetLanguage, defs: cppDefs, refs: cppRefs},
		{name: "csharp", grammar: csharp.GetLanguage, defs: csharpDefs, refs: csharpRefs},
		{name: "go", grammar: golang.GetLanguage, defs: goDefs, refs: goRefs},
		{name: "java", grammar: java.GetLanguage, defs: javaDefs, refs: javaRefs},
		{name: "javascript", grammar: javascript.GetLanguage, defs: jsDefs, refs: jsRefs},
		{name: "kotlin", grammar: kotlin.GetLanguage, defs: kotlinDefs, refs: kotlinRefs},
		{name: "lua", grammar: lua.GetLanguage, defs: luaDefs, refs: luaRefs, serial: true},
		{name: "php", grammar: php.GetLanguage, defs: phpDefs, refs: phpRefs},
		{name: "python", grammar: python.GetLanguage, defs: pythonDefs, refs: pythonRefs},
		{name: "ruby", grammar: ruby.GetLanguage, defs: rubyDefs, refs: rubyRefs},
		{name: "rust", grammar: rust.GetLanguage, defs: rustDefs, refs: rustRefs},
		{name: "scala", grammar: scala.GetLanguage, defs: scalaDefs, refs: scalaRefs},
		{name: "swift", grammar: swift.GetLanguage, defs: swiftDefs, refs: swiftRefs},
		{name: "tsx", grammar: tsx.GetLanguage, defs: tsDefs + tsxExtraDefs, refs: tsRefs},
		{name: "typescript", grammar: typescript.GetLanguage, defs: tsDefs, refs: tsRefs},
	}
}

// extLang maps file extensions (lower case, with the dot) to File.Lang.
var extLang = map[string]string{
	".sh": "bash", ".bash": "bash", ".zsh": "bash", ".ksh": "bash", ".bats": "bash",
	".c": "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".tpp": "cpp",
	".cs":   "csharp",
	".go":   "go",
	".java": "java",
	".js":   "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".kt": "kotlin", ".kts": "kotlin",
	".lua": "lua",
	".php": "php", ".phtml": "php",
	".py": "python", ".pyi": "python", ".pyw": "python",
	".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
	".rs":    "rust",
	".scala": "scala", ".sc": "scala", ".sbt": "scala",
	".swift": "swift",
	".ts":    "typescript", ".mts": "typescript", ".cts": "typescript",
	".tsx": "tsx",
}

// nameLang maps whole file names to File.Lang.
var nameLang = map[string]string{
	"Rakefile": "ruby", "Gemfile": "ruby", "Vagrantfile": "ruby", "Podfile": "ruby", "Fastfile": "ruby",
	".bashrc": "bash", ".bash_profile": "bash", ".profile": "bash", ".zshrc": "bash", "PKGBUILD": "bash",
}

// shebangLang maps interpreters named on a "#!" line to File.Lang.
var shebangLang = map[string]string{
	"sh": "bash", "bash": "bash", "zsh": "bash", "dash": "bash", "ksh": "bash",
	"python": "python", "python2": "python", "python3": "python",
	"node": "javascript", "ruby": "ruby", "php": "php", "lua": "lua",
}

// DetectLang returns the File.Lang New records for a file at the
// slash-separated path p whose content starts with head, or "" when it has
// no grammar. The file name decides first; a "#!" line decides for files
// without an extension (head may be nil when there is none to read).
func DetectLang(p string, head []byte) string {
	base := path.Base(p)
	if l, ok := nameLang[base]; ok {
		return l
	}
	ext := strings.ToLower(path.Ext(base))
	if l, ok := extLang[ext]; ok {
		return l
	}
	if ext != "" || !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line := head[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	interp := path.Base(fields[0])
	if interp == "env" {
		interp = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				interp = f
				break
			}
		}
	}
	interp = strings.TrimRight(interp, "0123456789.")
	if l, ok := shebangLang[interp]; ok {
		return l
	}
	if l, ok := shebangLang[interp+"3"]; ok {
		return l
	}
	return ""
}
