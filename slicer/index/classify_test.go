package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetectLang(t *testing.T) {
	for _, tc := range []struct {
		path, head, want string
	}{
		{"a/b.go", "", "go"},
		{"x.PY", "", "python"},
		{"comp.tsx", "", "tsx"},
		{"lib.h", "", "c"},
		{"lib.hpp", "", "cpp"},
		{"Rakefile", "", "ruby"},
		{"README.md", "", ""},
		{"script", "#!/usr/bin/env python3\nprint(1)", "python"},
		{"script", "#!/bin/sh -e\n", "bash"},
		{"script", "#!/usr/bin/env -S node --flag\n", "javascript"},
		{"script", "no shebang", ""},
		{"notes.txt", "#!/bin/bash\n", ""}, // the extension decides
	} {
		if got := DetectLang(tc.path, []byte(tc.head)); got != tc.want {
			t.Errorf("DetectLang(%q, %q) = %q, want %q", tc.path, tc.head, got, tc.want)
		}
	}
}

func TestClassifyPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want Class
	}{
		{"main.go", Source},
		{"pkg/x_test.go", Test},
		{"tests/test_util.py", Test},
		{"src/App.test.tsx", Test},
		{"src/test/java/FooTest.java", Test},
		{"gmock/gmock-gtest-all.cc", Test}, // a bundled Google Test and Mock
		{"gmock/gtest/gtest.h", Test},
		{"third_party/googletest/googletest/src/gtest.cc", Vendored},
		{"src/gtest_util.cc", Source}, // a name, not a directory
		{"vendor/github.com/x/y.go", Vendored},
		{"web/node_modules/react/index.js", Vendored},
		{"third_party/zlib/zlib.c", Vendored},
		{"src/pip/_vendor/six.py", Vendored},
		{"botocore/vendored/requests/api.py", Vendored},
		{"requests/packages/urllib3/poolmanager.py", Source}, // bundlesPackages looks at the tree
		{"go.sum", Lock},
		{"web/yarn.lock", Lock},
		{"Cargo.lock", Lock},
		{"api/v1/api.pb.go", Generated},
		{"zz_generated.deepcopy.go", Generated},
		{"static/app.min.js", Minified},
		{"README.md", Doc},
		{"docs/design.txt", Doc},
		{"doc/md_docs.go", Source},               // cobra's doc package
		{"crates/core/flags/doc/man.rs", Source}, // ripgrep's man page writer
		{"doc/md_docs.md", Doc},                  // its prose stays prose
		{"man/docker-run.1.md", Doc},
		{"docs/conf.py", Doc}, // a docs site's build
		{"doc/conf.py", Doc},  // a Sphinx site in doc/
		{"doc/man_docs_test.go", Test},
		{"cobra/cmd/licenses.go", Source}, // code named like prose
		{"daemon/changes.go", Source},
		{"packages/vite/src/node/plugins/license.ts", Source},
		{"CHANGES", Doc},
		{"LICENSE-MIT", Doc},
		{"LICENSE", Doc},
		{"Makefile", Config},
		{"pyproject.toml", Config},
		{"setup.py", Source}, // a program: install_requires, extras
		{".github/workflows/ci.yml", Config},
		{"Dockerfile", Config},
		{"src/Serilog/Serilog.csproj", Config},
		{"Serilog.sln", Config},
		{"sinatra.gemspec", Config},
		{"Alamofire.podspec", Config},
		{"Serilog.sln.DotSettings", Config},
		{"Directory.Build.props", Config},
		{"src/App/web.config", Config},
		{"App.xcodeproj/project.pbxproj", Config},
		{".nvmrc", Config},
		{".github/CODEOWNERS", Config},
		{"src/Serilog/Log.cs", Source},
		{"uv.gyp", Config},
		{"Makefile.am", Config},
		{"configure.ac", Config},
		{"m4/libuv-check-flags.m4", Config},
		{"meson.build", Config},
		{"BUILD.gn", Config},
		{"Alamofire.xcodeproj/xcshareddata/xcschemes/iOS.xcscheme", Config},
		{"Alamofire.xcworkspace/contents.xcworkspacedata", Config},
		{"phpunit.xml.dist", Config},
		{"build.xml", Config},
		{"config/app.yaml", Config},
		{"checkstyle.xml", Config},
		{"lib/gson-formatting-styles.xml", Config},
		{"app/src/main/AndroidManifest.xml", Config},
		{"app/src/main/res/layout/activity_login.xml", Source}, // an Android interface
		{"phpstan.neon", Config},
		{".idea/runConfigurations/Lint.xml", Config},
		{".vscode/launch.json", Config},
		{".vscode/tasks.js", Config}, // settings even in a code file
		{"tests/fixtures/feed.xml", Test},
		{"packages/Newtonsoft.Json.4.5.11/lib/net40/Newtonsoft.Json.xml", Vendored},
		{"packages/Microsoft.AspNet.Mvc.3.0.20105.1/tools/install.ps1", Vendored},
		{"packages/Serilog.2.0.0-beta-1/lib/Serilog.xml", Vendored},
		{"packages/vite/src/node/config.ts", Source}, // a monorepo's own package
		{"packages/repositories.config", Config},
		{"src/packages/io.2/x.go", Source}, // not <id>.<major>.<minor>
		{"benchsuite/runs/2016-09-17/raw.csv", Data},
		{"requests/cacert.pem", Data},
		{"artwork/logo.svg", Data},
		{"db/migrations/001_init.sql", Source},
		{"tests/data/rows.csv", Test},
		{"crates/grep/UNLICENSE", Doc},
		{"debian/copyright", Doc},
		{"packaging/debian/rules", Config},
		{"packaging/debian/control", Config},
		{".clang-format", Config},
		{".mailmap", Config},
		{".eslintrc.js", Source},                  // code by its extension
		{"playground/css/vite.config.ts", Source}, // settings as a module stay source: vite's tasks edit them
		{"Jenkinsfile", Config},
		{"support/C++.sublime-syntax", Config},
		{"dist/axios.js", Generated}, // a bundler's output
		{"dist/node/axios.cjs", Generated},
		{"dist/esm/axios.js.map", Generated},
		{"dist/install.sh", Source}, // not a bundle
		{"distribution/app.js", Source},
		{"internal/testutil/daemon.go", Test}, // helpers only tests use
		{"src/__mocks__/fs.js", Test},
		{"pkg/testutils/netns.go", Test},
	} {
		if got := ClassifyPath(tc.path); got != tc.want {
			t.Errorf("ClassifyPath(%q) = %s, want %s", tc.path, className(got), className(tc.want))
		}
	}
}

func TestContentClassifiers(t *testing.T) {
	long := strings.Repeat("x", minifiedAvgLine+1)
	for _, tc := range []struct {
		name                       string
		src                        string
		binary, generated, minifed bool
	}{
		{name: "plain", src: "package p\n"},
		{name: "nul", src: "GIF89a\x00\x01", binary: true},
		{name: "text key", src: "-----BEGIN KEY-----\nabc\n"},
		{name: "minified", src: strings.Repeat(long, minifiedMinBytes/len(long)+1), minifed: true},
		{name: "long but small", src: long},
		{name: "many short lines", src: strings.Repeat("a = 1\n", 1000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			if got := isBinary(src); got != tc.binary {
				t.Errorf("isBinary = %v, want %v", got, tc.binary)
			}
			if got := isGeneratedContent("x.txt", src); got != tc.generated {
				t.Errorf("isGeneratedContent = %v, want %v", got, tc.generated)
			}
			if got := isMinified(src); got != tc.minifed {
				t.Errorf("isMinified = %v, want %v", got, tc.minifed)
			}
		})
	}
}

// TestGeneratedHeader: a file is generated when its header, the lines
// before the first line of code, says so: by the Go convention for Go,
// by the markers of other tools elsewhere. Before, "generated" near the
// top anywhere counted, and cobra's hand-written doc/util.go was skipped
// for a comment above a function that mentions "the autogenerated help
// command".
func TestGeneratedHeader(t *testing.T) {
	for _, tc := range []struct {
		name, path, src string
		want            bool
	}{
		{"go convention", "p.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage p\n", true},
		{"go convention CRLF", "p.go", "// Code generated by x. DO NOT EDIT.\r\npackage p\r\n", true},
		{"go after a licence block and a build tag", "p.go", "/*\nCopyright 2024 The Authors.\n*/\n\n//go:build linux\n\n// Code generated by mkall.go. DO NOT EDIT.\n\npackage p\n", true},
		{"go after a long licence", "p.go", strings.Repeat("// Licensed under the Apache License.\n", 200) + "// Code generated by x. DO NOT EDIT.\npackage p\n", true},
		{"go marker after the package clause", "p.go", "package p\n\n// Code generated by x. DO NOT EDIT.\n", false},
		{"go without the convention's form", "p.go", "// DO NOT EDIT: generated by mkall.go\npackage p\n", false},
		{"go convention needs text between", "p.go", "// Code generated DO NOT EDIT.\npackage p\n", false},
		{"go: cobra's doc/util.go", "doc/util.go", "// Copyright 2013-2023 The Cobra Authors\n//\n// Licensed under the Apache License, Version 2.0.\n\npackage doc\n\nimport (\n\t\"strings\"\n)\n\n// Test to see if we have a reason to print See Also information in docs.\n// It is a parent command or a subcommand which is both not deprecated\n// and not the autogenerated help command.\nfunc hasSeeAlso() bool { return false }\n", false},
		{"go: generated by, do not, after the package", "p.go", "package p\n\n// Generated By mkall.go; Do Not modify\n", false},
		{"@generated", "a.js", "/**\n * @generated\n */\nmodule.exports = {}\n", true},
		{"python autogenerated", "a.py", "# This file is autogenerated.\nx = 1\n", true},
		{"protoc python", "a_pb2.py", "# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\n# source: a.proto\n", true},
		{"shell after a shebang", "a.sh", "#!/bin/sh\n# Auto-Generated file\n", true},
		{"C block comment", "a.c", "/* generated by mkerrors.sh; do not edit */\n#include <errno.h>\n", true},
		{"C: marker after an include", "a.c", "#include <x.h>\n// autogenerated\n", false},
		{"C#", "A.Designer.txt", "// <auto-generated>\n//     This code was generated by a tool.\n// </auto-generated>\nnamespace A {}\n", true},
		{"XML", "a.xml", "<?xml version=\"1.0\"?>\n<!-- DO NOT EDIT: generated by xsdgen -->\n<a/>\n", true},
		{"autogenerated by a tool", "a.py", "# Autogenerated by Thrift Compiler (0.9.3)\nx = 1\n", true},
		{"auto-generated, do not modify", "a.ts", "// This is auto-generated; do not modify.\nexport {}\n", true},
		{"auto-generated in prose: ripgrep's zsh.rs", "zsh.rs", "/*!\nProvides completions for ripgrep's CLI for the zsh shell.\n\n1. They are lovingly written by an expert in such things.\n2. Are much higher in quality than the ones below that are auto-generated.\n*/\n\npub(crate) fn generate() -> String { String::new() }\n", false},
		{"python single-quoted docstring", "a.py", "'''\nGenerated file. DO NOT EDIT.\n'''\nx = 1\n", true},
		{"a line of code starting with a comma", "a.txt", ", DO NOT EDIT\n", false},
		{"generated by alone", "a.txt", "// Generated by hand, carefully\nx\n", false},
		{"marker in code is not a header", "a.js", "const s = \"DO NOT EDIT\"\n", false},
		{"marker past the header", "a.js", "const a = 1\n// @generated\n", false},
		{"marker past the sniffed bytes", "a.js", strings.Repeat("\n", generatedSniffBytes) + "// autogenerated\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isGeneratedContent(tc.path, []byte(tc.src)); got != tc.want {
				t.Errorf("isGeneratedContent(%s) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

// TestBinaryAt: git's rule, a NUL in the first 8000 bytes, with its offset.
func TestBinaryAt(t *testing.T) {
	text := make([]byte, BinarySniffBytes+10)
	for i := range text {
		text[i] = 'a'
	}
	at := func(i int) []byte { b := append([]byte(nil), text...); b[i] = 0; return b }
	tests := []struct {
		name string
		in   []byte
		want int
	}{
		{"empty", nil, -1},
		{"text", text, -1},
		{"NUL first", at(0), 0},
		{"NUL at the last sniffed byte", at(BinarySniffBytes - 1), BinarySniffBytes - 1},
		{"NUL past the sniffed bytes", at(BinarySniffBytes), -1},
		{"short with NUL", []byte("ab\x00"), 2},
	}
	for _, tc := range tests {
		if got := BinaryAt(tc.in); got != tc.want {
			t.Errorf("%s: BinaryAt = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestInFixtureDir(t *testing.T) {
	for p, want := range map[string]bool{
		"budget/testdata/tokens/invalid.txt": true,
		"web/__fixtures__/a.json":            true,
		"testdata/x.go":                      true,
		"testdata.go":                        false,
		"src/fixtures.go":                    false,
		"budget/fit.go":                      false,
	} {
		if got := InFixtureDir(p); got != want {
			t.Errorf("InFixtureDir(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestLicenceEnd: a licence header is a comment block that opens the
// file, names a copyright or a licence and is set apart from the code by
// a blank line.
func TestLicenceEnd(t *testing.T) {
	apache := "/*\n * Copyright (C) 2008 Google Inc.\n *\n * Licensed under the Apache License, Version 2.0 (the \"License\");\n */\n\npackage com.google.gson;\n"
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"java block comment", apache, 6},
		{"go line comments, two blank lines", "// Copyright 2013 The Cobra Authors\n// SPDX-License-Identifier: Apache-2.0\n\n\npackage cobra\n", 4},
		{"python after a shebang", "#!/usr/bin/env python\n# Copyright 2019 Kenneth Reitz\n# Licensed under Apache 2.0\n\nimport os\n", 4},
		{"one-line block", "/*! express | MIT Licensed */\n\n'use strict';\n", 2},
		{"a package doc comment runs into the code", "// Package license reads licence files.\npackage license\n", 0},
		{"no copyright or licence", "// Helpers for the CLI.\n\npackage cli\n", 0},
		{"code first", "package p\n\n// Copyright 2020\n", 0},
		{"nothing after the header", "// Copyright 2020 The Authors\n", 0},
		{"an unclosed block", "/* Copyright 2020\n\npackage p\n", 0},
		{"a lua header", "-- Copyright 2020 The Authors\n\nlocal M = {}\n", 2},
		{"a python docstring", "\"\"\"\nCopyright 2020. MIT licence.\n\"\"\"\n\nimport os\n", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LicenceEnd([]byte(tc.src)); got != tc.want {
				t.Errorf("LicenceEnd = %d, want %d", got, tc.want)
			}
		})
	}
}

// FuzzCommentHeader: the header scan never panics, and a licence header
// it finds names a copyright or a licence and ends before a line that is
// not blank.
func FuzzCommentHeader(f *testing.F) {
	for _, s := range []string{
		"/*\n * Copyright 2008 Google Inc.\n */\n\npackage p\n",
		"# Copyright 2020\n\n\nimport os\n",
		"'''\nLicensed under MIT.\n'''\n\nx = 1\n",
		"// Code generated by x. DO NOT EDIT.\npackage p\n",
		"<!-- licence\n-->\r\n\r\n<a/>",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		isGeneratedContent("a.go", []byte(src))
		isGeneratedContent("a.py", []byte(src))
		end := LicenceEnd([]byte(src))
		lines := strings.Split(src, "\n")
		if end < 0 || end > len(lines) {
			t.Fatalf("LicenceEnd = %d, file has %d lines", end, len(lines))
		}
		if end == 0 {
			return
		}
		head := strings.ToLower(strings.Join(lines[:end], "\n"))
		if !strings.Contains(head, "copyright") && !strings.Contains(head, "licen") {
			t.Fatalf("LicenceEnd = %d over a header that names no copyright or licence: %q", end, head)
		}
		if strings.TrimSpace(lines[end-1]) != "" {
			t.Fatalf("LicenceEnd = %d ends on %q, want the blank lines after the header", end, lines[end-1])
		}
	})
}

// TestBinaryHead: a file is judged binary by its head, without reading the
// rest: a NUL byte, or bytes that are not UTF-8 in a format whose signature
// is not text. Legacy text and UTF-8 cut inside a rune at the end of the
// head are text.
func TestBinaryHead(t *testing.T) {
	// Valid UTF-8 whose é is cut by the head's end, behind a signature
	// that is not text: only the cut rune looks bad, and it is not.
	utf8Cut := append([]byte("%PDF-"+strings.Repeat("a", BinarySniffBytes-6)), "é"...)
	for _, tc := range []struct {
		name    string
		content []byte
		want    bool
	}{
		{"nul", []byte("PK\x03\x04\x00\x00rest"), true},
		{"pdf", []byte("%PDF-1.5\r%\xe2\xe3\xcf\xd3\r\n1 0 obj\r<</Metadata 2 0 R>>\r\n"), true},
		{"latin-1 text", []byte("// Caf\xe9: r\xe9essaie la requ\xeate\npackage retry\n"), false},
		{"utf-8 cut in a rune", utf8Cut, false},
		{"ascii", []byte("package main\n"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(p, tc.content, 0o644); err != nil {
				t.Fatal(err)
			}
			if got := binaryHead(p); got != tc.want {
				t.Errorf("binaryHead = %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzClassifyPath: any path classifies without a panic, the same way
// twice, and anything under vendor/ is vendored whatever its name says.
func FuzzClassifyPath(f *testing.F) {
	for _, p := range []string{"main.go", "dist/axios.js", "packages/Newtonsoft.Json.4.5.11/lib/x.xml", ".idea/x.xml",
		"debian/rules", ".clang-format", "res/layout/a.xml", "CHANGES", "a/b/", "", "/", "packages/", "packages/1.2.3"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c := ClassifyPath(p)
		if again := ClassifyPath(p); again != c {
			t.Fatalf("ClassifyPath(%q) = %s, then %s", p, className(c), className(again))
		}
		if got := ClassifyPath("vendor/" + p); got != Vendored {
			t.Fatalf("ClassifyPath(%q) = %s, want vendored", "vendor/"+p, className(got))
		}
	})
}
