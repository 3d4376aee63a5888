package index

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Classification thresholds, each with its reason.
const (
	// BinarySniffBytes is how much of a file is searched for a NUL byte to
	// call it binary: git's own heuristic (buffer_is_binary, 8000 bytes),
	// so ctxtrim and `git diff` agree on what is text. BinaryAt applies it.
	BinarySniffBytes = 8000
	// generatedSniffBytes bounds the header searched for a "generated"
	// marker (see isGeneratedContent): the header ends at the first line
	// of code, well before this in any file but one with a long licence.
	generatedSniffBytes = 16 << 10
	// minifiedMinBytes and minifiedAvgLine: a file of at least 2 KiB whose
	// lines average over 300 bytes is a bundle or a one-line data dump, not
	// something a person wrote and wants to read in a prompt.
	minifiedMinBytes = 2048
	minifiedAvgLine  = 300
	// maxFixtureBytes: a file under a test-data directory larger than this
	// is a fixture (recorded responses, golden dumps); smaller ones are kept
	// as tests because they often show what the code under test expects.
	maxFixtureBytes = 32 << 10
)

// Skip reasons. Every file that is not indexed is reported with one of them.
const (
	SkipBinary         = "binary"                     // a NUL byte in the first 8000 bytes
	SkipNotUTF8        = "not UTF-8"                  // invalid UTF-8 (Latin-1, Windows-1252…): see notUTF8Detail
	SkipTooLarge       = "too large"                  // over Options.MaxFileSize
	SkipVendored       = "vendored"                   // vendor/, node_modules/…, bundled Python packages, virtualenvs
	SkipLock           = "lock file"                  // go.sum, package-lock.json, Cargo.lock…
	SkipGenerated      = "generated"                  // "Code generated … DO NOT EDIT." and the like
	SkipMinified       = "minified"                   // *.min.js or very long lines
	SkipFixture        = "large fixture"              // big files under testdata/, fixtures/…
	SkipIgnored        = "ignored"                    // .gitignore, .git/info/exclude, core.excludesFile
	SkipCtxtrimignore  = "ctxtrimignore"              // .ctxtrimignore
	SkipSubmodule      = "submodule"                  // listed, not descended
	SkipNestedRepo     = "nested repository"          // a directory with its own .git, not a submodule
	SkipCacheDir       = "cache directory"            // tagged by CACHEDIR.TAG (cargo's target/…)
	SkipSymlinkOutside = "symlink outside repository" // a link whose target leaves the work tree
	SkipSymlinkLoop    = "symlink loop"               // a link that never resolves
	SkipSymlinkBroken  = "broken symlink"             // a link to nothing
	SkipSymlinkDir     = "symlink to directory"       // its target is indexed under its own path
	SkipSpecial        = "not a regular file"         // sockets, devices, FIFOs
	SkipUnreadable     = "unreadable"                 // permission or I/O error
	SkipDeleted        = "deleted"                    // in the git index, missing from the work tree
	SkipSparse         = "sparse checkout"            // in the git index, outside the sparse cone
)

// classSkip maps the classes skipped by default to their reason.
func classSkip(c Class) string {
	switch c {
	case Vendored:
		return SkipVendored
	case Lock:
		return SkipLock
	case Generated:
		return SkipGenerated
	case Minified:
		return SkipMinified
	case Fixture:
		return SkipFixture
	}
	return ""
}

// BinaryAt returns the offset of the NUL byte that makes content binary
// the way git decides (a NUL in the first BinarySniffBytes bytes), or -1
// for text. It is ctxtrim's one binary check: the index, split's file
// reading and the CLI's filters use it. The index alone adds that content
// which is not UTF-8 is binary when its signature is not text
// (textSignature): it would be skipped either way, and only the reason
// it gives the user changes.
func BinaryAt(content []byte) int {
	return bytes.IndexByte(content[:min(len(content), BinarySniffBytes)], 0)
}

// Text that is not UTF-8. A repository file that is not valid UTF-8 (an
// old Latin-1 or Windows-1252 source, a file in another legacy encoding)
// is left out with SkipNotUTF8, never pasted: a prompt must be valid UTF-8,
// and a JSON output would replace its bytes with U+FFFD without a word.
// Transcoding would have to guess the encoding (every byte sequence is
// valid Latin-1), so ctxtrim does not; the detail says how to convert the
// file, and select reports the skip when the file would have ranked.

// notUTF8Detail is the Detail of a SkipNotUTF8 skip.
func notUTF8Detail(at int) string {
	return fmt.Sprintf("first bad byte at offset %d; convert the file to UTF-8 (iconv -f LATIN1 -t UTF-8) to have it indexed", at)
}

// isBinary reports whether content looks binary (BinaryAt).
func isBinary(head []byte) bool { return BinaryAt(head) >= 0 }

// ClassifyPath returns the class a slash-separated path implies on its
// own, before the content is read: the class New starts from. Content can
// still make a file Generated or Minified, and size a test a Fixture (see
// process.go); the repository's linguist attributes and a bundle of
// Python packages (walk.go) can change it too. A caller building an Index by hand (over files that are not
// on disk, say) classifies its files with it.
func ClassifyPath(p string) Class { return classifyPath(p, linguist{}) }

// classifyPath is ClassifyPath under the file's linguist attributes
// (attributes.go): a true one gives its class, a false one takes away
// the class the path would give.
func classifyPath(p string, l linguist) Class {
	switch {
	case l.state[lingVendored] == attrTrue:
		return Vendored
	case l.state[lingGenerated] == attrTrue:
		return Generated
	case l.state[lingDocumentation] == attrTrue:
		return Doc
	}
	dirs := strings.Split(p, "/")
	base := dirs[len(dirs)-1]
	dirs = dirs[:len(dirs)-1]
	lower := strings.ToLower(base)
	if l.state[lingVendored] != attrFalse && inVendoredDir(dirs) {
		return Vendored
	}
	if isLockFile(lower) {
		return Lock
	}
	if l.state[lingGenerated] != attrFalse && (isGeneratedName(lower) || isBuildOutput(dirs, lower)) {
		return Generated
	}
	if strings.Contains(lower, ".min.") || strings.HasSuffix(lower, "-min.js") || strings.HasSuffix(lower, ".bundle.js") {
		return Minified
	}
	if isTestPath(dirs, base) {
		return Test
	}
	if l.state[lingDocumentation] != attrFalse && isDoc(dirs, lower) {
		return Doc
	}
	if isConfig(dirs, lower) {
		return Config
	}
	if isData(lower) {
		return Data
	}
	return Source
}

// nugetPackageDir matches a package that NuGet's packages.config restored
// into the solution's packages/ folder, named <id>.<version>
// (Newtonsoft.Json.4.5.11, Microsoft.AspNet.Mvc.3.0.20105.1): serilog
// committed its packages/ until 2013, and their XML API docs, which
// repeat every word of a logging task, ranked in the first ten files.
// A monorepo's packages/vite carries no version and is the project's own.
var nugetPackageDir = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*\.[0-9]+(\.[0-9]+){1,3}(-[0-9A-Za-z.-]+)?$`)

// inVendoredDir reports whether one of dirs names a vendored tree.
func inVendoredDir(dirs []string) bool {
	for i, d := range dirs {
		if d == "packages" && i+1 < len(dirs) && nugetPackageDir.MatchString(dirs[i+1]) {
			return true
		}
		switch d {
		case "vendor", "third_party", "thirdparty", "third-party", "node_modules", "bower_components", "Godeps", ".yarn", "vendored", "external_libs",
			"_vendor", "_vendored", // pip, setuptools, poetry
			"site-packages", "dist-packages", "__pypackages__": // installed Python packages
			return true
		}
	}
	return false
}

func isLockFile(lower string) bool {
	switch lower {
	case "go.sum", "go.work.sum", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml",
		"bun.lock", "bun.lockb", "cargo.lock", "gemfile.lock", "poetry.lock", "pipfile.lock", "uv.lock",
		"pdm.lock", "composer.lock", "mix.lock", "flake.lock", "pubspec.lock", "podfile.lock",
		"packages.lock.json", "gradle.lockfile", "deno.lock", "package.resolved", "cartfile.resolved":
		return true
	}
	return strings.HasSuffix(lower, ".lock") || strings.HasSuffix(lower, ".lockfile")
}

func isGeneratedName(lower string) bool {
	for _, suf := range []string{".pb.go", ".pb.gw.go", "_pb2.py", "_pb2_grpc.py", "_pb2.pyi", ".pb.cc", ".pb.h",
		".pb.swift", "_pb.js", "_pb.d.ts", ".g.dart", ".freezed.dart", ".designer.cs", ".generated.cs", ".g.cs"} {
		if strings.HasSuffix(lower, suf) {
			return true
		}
	}
	return strings.HasPrefix(lower, "zz_generated") || strings.Contains(lower, "_generated.")
}

// isBuildOutput reports a script or style sheet under a dist/ directory:
// what a JavaScript library's bundler writes and its repository commits
// for those who load it without a build. axios keeps dist/axios.js,
// dist/esm/axios.js and dist/node/axios.cjs, each all of lib/ in one file,
// which matched every task's words and were in the first nine files of
// nearly all its kit tasks. Other files under dist/ (an installer's
// scripts, packaging) keep their class.
func isBuildOutput(dirs []string, lower string) bool {
	switch path.Ext(lower) {
	case ".js", ".mjs", ".cjs", ".css", ".map":
		return slices.Contains(dirs, "dist")
	}
	return false
}

// InFixtureDir reports whether p (slash-separated) lies under a test-data
// directory: testdata/, fixtures/, __snapshots__/ and the like.
func InFixtureDir(p string) bool { return isFixtureDir(strings.Split(p, "/")[:strings.Count(p, "/")]) }

func isFixtureDir(dirs []string) bool {
	for _, d := range dirs {
		switch strings.ToLower(d) {
		case "testdata", "fixtures", "__fixtures__", "__snapshots__", "test-data", "test_data", "golden", "snapshots":
			return true
		}
	}
	return false
}

func isDoc(dirs []string, lower string) bool {
	_, code := extLang[path.Ext(lower)]
	for _, d := range dirs {
		switch strings.ToLower(d) {
		case "docs", "documentation":
			return true
		case "doc", "man":
			// A package or module named doc or man (cobra's doc, which
			// writes man pages and markdown; ripgrep's flags/doc) is code
			// like any other: only its prose is documentation, and a
			// Sphinx site's conf.py. A docs/ or documentation/ tree is a
			// site, whose code is its build and its examples.
			if !code || lower == "conf.py" {
				return true
			}
		}
	}
	switch path.Ext(lower) {
	case ".md", ".markdown", ".rst", ".adoc", ".asciidoc", ".txt", ".org", ".rdoc", ".pod":
		return true
	}
	if code {
		return false // licenses.go, security.go, changes.py: code named like prose
	}
	for _, p := range []string{"readme", "changelog", "changes", "license", "licence", "copying", "notice", "authors", "contributing", "security", "code_of_conduct", "maintainers",
		// ripgrep has an UNLICENSE in each of its crates; Debian's
		// copyright is a licence too.
		"unlicense", "copyright", "patents", "news", "history", "hacking", "thanks", "todo"} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	return false
}

func isConfig(dirs []string, lower string) bool {
	if len(dirs) > 0 && (dirs[0] == ".github" || dirs[0] == ".circleci" || dirs[0] == ".gitlab") {
		return true
	}
	for _, d := range dirs {
		switch d {
		// An editor's or IDE's project settings: JetBrains' run
		// configurations and module lists (viper's .idea/ held six),
		// VS Code's, Eclipse's, a dev container's.
		case ".idea", ".vscode", ".settings", ".fleet", ".devcontainer":
			return true
		}
	}
	// A Debian package's files (control, rules, copyright, *.install)
	// build the package, not the program.
	if len(dirs) > 0 && dirs[len(dirs)-1] == "debian" {
		return true
	}
	// A dotfile that is not code by its extension configures a tool:
	// .clang-format, .mailmap, .swiftformat, .yardopts.
	if _, code := extLang[path.Ext(lower)]; strings.HasPrefix(lower, ".") && !code {
		return true
	}
	switch lower {
	case "jenkinsfile":
		return true
	}
	if path.Ext(lower) == ".xml" && slices.Contains(dirs, "res") {
		// An Android resource (res/layout/, res/values/, res/drawable/) is
		// the app's interface, which a UI task edits: source.
		return false
	}
	switch path.Ext(lower) {
	case ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".properties", ".json", ".jsonc", ".json5", ".editorconfig", ".env", ".gradle", ".cmake", ".mk", ".bazel", ".bzl",
		// .NET projects and settings (MSBuild XML, solutions, NuGet,
		// app.config, ReSharper's .DotSettings), Xcode, Terraform values.
		".csproj", ".vbproj", ".fsproj", ".vcxproj", ".xproj", ".kproj", ".sln", ".props", ".targets", ".nuspec",
		// Ruby's and CocoaPods' package specs, package.json's kin: an old
		// gemspec lists every file of the repository, so it matched any task.
		".gemspec", ".podspec",
		".ruleset", ".runsettings", ".dotsettings", ".config", ".xcconfig", ".pbxproj", ".plist", ".entitlements", ".tfvars", ".cabal",
		".xcscheme", ".xcworkspacedata", ".xcplayground", ".xcsettings", ".xctestplan",
		".dist", // phpunit.xml.dist, .env.dist: a project's default settings
		// C and C++ builds: GYP, autotools (Makefile.am, configure.ac,
		// m4 macros), GN, Soong.
		".gyp", ".gypi", ".am", ".ac", ".m4", ".gn", ".gni", ".bp",
		// XML in a repository is settings: Maven, Ant and Phing builds,
		// checkstyle and formatter rules, manifests, framework wiring.
		// It ranked as source, where a rule file that repeats a Java
		// project's words (checkstyle.xml: "modifier", "java") took one
		// of the first ten places in 37 of javapoet's 60 kit tasks.
		// PHPStan's neon and Xcode's playground timelines are the same.
		".xml", ".neon", ".xctimeline",
		// Editors' syntax definitions and settings (fmt's
		// support/C++.sublime-syntax lists every C++ keyword and was in
		// the first ten files of 23 of its 60 kit tasks at 8k).
		".sublime-syntax", ".sublime-settings", ".sublime-project", ".tmlanguage", ".tmpreferences":
		return true
	}
	// setup.py is not here: it is a Python program (install_requires,
	// extras, entry points), and a dependency or packaging change edits
	// it as code. Measured on requests and httpx, where it is gold in 6 of
	// 120 kit tasks: 3 tasks won, none lost.
	switch lower {
	case "makefile", "gnumakefile", "dockerfile", "containerfile", "go.mod", "go.work", "package.json", "tsconfig.json",
		"cargo.toml", "pyproject.toml", "setup.cfg", "requirements.txt", "gemfile", "rakefile", "pom.xml",
		"build.gradle", "settings.gradle", "cmakelists.txt", "build", "workspace", "justfile", "procfile", "vagrantfile",
		".gitignore", ".gitattributes", ".gitmodules", ".dockerignore", ".ctxtrimignore", ".golangci.yml", ".prettierrc", ".eslintrc",
		"meson.build", "meson_options.txt", "meson.options", "sconstruct", "sconscript", "build.xml", "phpunit.xml",
		".babelrc", ".npmrc", ".nvmrc", ".yarnrc", ".browserslistrc", ".npmignore", ".prettierignore", ".eslintignore", "codeowners":
		return true
	}
	return strings.HasPrefix(lower, "dockerfile.") || strings.HasSuffix(lower, ".dockerfile") || strings.HasPrefix(lower, ".env")
}

// isDataFile names the formats that make a large file under a test
// directory a fixture: data (isData), and XML and SQL, which there are
// recorded documents and dumps rather than settings or migrations.
func isDataFile(base string) bool {
	lower := strings.ToLower(base)
	switch path.Ext(lower) {
	case ".xml", ".sql":
		return true
	}
	return isData(lower)
}

// isData names text formats that hold data and no code, wherever they
// lie: tables and logs (ripgrep's benchsuite/runs/*/raw.csv), recorded
// HTTP, certificates (requests' cacert.pem, 250 KB of base64 that a TLS
// task's words reach) and SVG images. SQL and XML are not here: a
// migration is code, and XML is settings (isConfig).
func isData(lower string) bool {
	switch path.Ext(lower) {
	case ".csv", ".tsv", ".jsonl", ".ndjson", ".har", ".dump", ".log", ".parquet", ".pem", ".crt", ".cer", ".svg":
		return true
	}
	return false
}

// goGenerated is the Go convention for generated files
// (https://go.dev/s/generatedcode): a line matching it before the first
// non-comment, non-blank text, which is how go vet, gopls and GitHub tell.
var goGenerated = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// isGeneratedContent reports a file that its header marks as generated.
// The header is what comes before the first line that is neither blank
// nor a comment (for Go, before the package clause), as generators write
// it; a comment further down is not a marker: cobra's doc/util.go says
// "the autogenerated help command" above a function and is hand-written.
//
// A .go file is generated only by the Go convention (goGenerated). In
// other files a header comment is a marker when it holds "@generated"
// (Meta's convention, written by many tools), "DO NOT EDIT" (protoc's "#
// Generated by the protocol buffer compiler.  DO NOT EDIT!"), "generated
// by" with "do not", or "auto-generated" said of the file
// (generatedMarker).
func isGeneratedContent(p string, src []byte) bool {
	goFile := strings.HasSuffix(p, ".go")
	generated := false
	scanHeader(src, func(_ int, line, t []byte, comment bool) bool {
		if !comment {
			return true // a blank line
		}
		if goFile {
			generated = goGenerated.Match(line)
		} else {
			generated = generatedMarker(t)
		}
		return !generated
	})
	return generated
}

// scanHeader calls fn for each line of the comment header that opens src
// (its first generatedSniffBytes), in order, until fn returns false: the
// line's index, the line without its \r, the line trimmed, and whether
// it is a comment (false for a blank line). The header ends at the first
// line that is neither: the first line of code. Comments are line
// comments (//, #, --, ;, %; not #include or #define), <?xml and <?php
// lines, and /* */, <!-- --> and Python's triple-quoted blocks (either quote).
func scanHeader(src []byte, fn func(i int, line, t []byte, comment bool) bool) {
	head := src[:min(len(src), generatedSniffBytes)]
	block := "" // the end of the block comment the line is in, if any
	for i := 0; len(head) > 0; i++ {
		line := head
		if k := bytes.IndexByte(head, '\n'); k >= 0 {
			line, head = head[:k], head[k+1:]
		} else {
			head = nil
		}
		line = bytes.TrimRight(line, "\r")
		t := bytes.TrimSpace(line)
		comment := block != ""
		switch {
		case comment:
			if bytes.Contains(t, []byte(block)) {
				block = ""
			}
		case len(t) == 0:
		case bytes.HasPrefix(t, []byte("//")), bytes.HasPrefix(t, []byte("--")), bytes.HasPrefix(t, []byte(";")),
			bytes.HasPrefix(t, []byte("%")), bytes.HasPrefix(t, []byte("<?xml")), bytes.HasPrefix(t, []byte("<?php")):
			comment = true
		case bytes.HasPrefix(t, []byte("#")):
			// "# …", "#!", "##": a comment; "#include", "#define": code.
			comment = len(t) == 1 || !(t[1] >= 'a' && t[1] <= 'z')
		default:
			for _, bc := range [][2]string{{"/*", "*/"}, {"<!--", "-->"}, {`"""`, `"""`}, {"'''", "'''"}} {
				if bytes.HasPrefix(t, []byte(bc[0])) {
					comment = true
					if !bytes.Contains(t[len(bc[0]):], []byte(bc[1])) {
						block = bc[1]
					}
					break
				}
			}
		}
		if !comment && len(t) > 0 {
			return // the header has ended
		}
		if !fn(i, line, t, comment) {
			return
		}
	}
}

// LicenceEnd returns the last line (1-based) of the licence header that
// opens src, with the blank lines after it: the first comment block of
// its header (scanHeader), when it names a copyright or a licence and a
// blank line sets it apart from what follows (a comment that runs into
// the code documents it); 0 when src has none.
func LicenceEnd(src []byte) int {
	block, end, named := 0, 0, false
	scanHeader(src, func(i int, _, t []byte, comment bool) bool {
		switch {
		case end == 0 && comment:
			block = i + 1
			low := bytes.ToLower(t)
			named = named || bytes.Contains(low, []byte("copyright")) || bytes.Contains(low, []byte("licen"))
		case !comment && block > 0:
			end = i + 1 // a blank line after the block
		default:
			return false // a blank line first, or a second block
		}
		return true
	})
	if !named {
		return 0
	}
	return end
}

// generatedMarker reports a header comment line t that marks its file as
// generated. "auto-generated" counts where it says so of the file: as the
// comment's first word ("Auto-generated file", "<auto-generated>") or
// with "this file", "this code" or "do not"; in the middle of prose it
// speaks of other files (ripgrep's hand-written zsh.rs: "higher in
// quality than the ones below that are auto-generated").
func generatedMarker(t []byte) bool {
	if bytes.Contains(t, []byte("@generated")) || bytes.Contains(t, []byte("DO NOT EDIT")) {
		return true
	}
	low := bytes.ToLower(t)
	doNot := bytes.Contains(low, []byte("do not"))
	if bytes.Contains(low, []byte("generated by")) && doNot {
		return true
	}
	if !bytes.Contains(low, []byte("auto-generated")) && !bytes.Contains(low, []byte("autogenerated")) {
		return false
	}
	if doNot || bytes.Contains(low, []byte("this file")) || bytes.Contains(low, []byte("this code")) {
		return true
	}
	text := bytes.TrimLeft(low, "/*#;-!<% \t")
	return bytes.HasPrefix(text, []byte("auto-generated")) || bytes.HasPrefix(text, []byte("autogenerated"))
}

// isMinified reports text whose lines are too long to be written by hand.
func isMinified(src []byte) bool {
	if len(src) < minifiedMinBytes {
		return false
	}
	lines := bytes.Count(src, []byte{'\n'}) + 1
	return len(src)/lines > minifiedAvgLine
}

func isFixturePath(p string) bool {
	dirs := strings.Split(p, "/")
	base := dirs[len(dirs)-1]
	return isFixtureDir(dirs[:len(dirs)-1]) || isDataFile(base) || strings.HasSuffix(base, ".golden") || strings.HasSuffix(base, ".snap")
}
