package index

import (
	"path"
	"slices"
	"strings"
)

// Recognising tests has one home, this file: the index's Test class,
// selection's pairing of a test with its source (package slicer) and
// split's placing of a test after its source all ask TestStem and
// IsTestSuiteDir.

// testSuffixes mark a test at the end of a file's stem, most specific
// first: Go and Python (_test), Ruby and Elixir (_spec), JavaScript and
// TypeScript (.test, .spec), Python's plural (_tests), and the CamelCase
// of Java, Kotlin, Scala, C# and Swift (FooTests, FooTest), which must
// follow the name it tests (Latest.java is no test).
var testSuffixes = []string{"_test", ".test", ".spec", "_spec", "_tests", "Tests", "Test"}

// testPrefix marks a test at the start of a stem: pytest's test_foo.py.
const testPrefix = "test_"

// testSuiteDirs hold a project's tests, named after the sources they test
// (tests/test_client.py tests src/client.py).
var testSuiteDirs = []string{"test", "tests", "__tests__", "spec"}

// testSupportDirs hold tests and what only tests use: more suites
// (specs, e2e, integration), fixtures and snapshots, a bundled Google Test
// or Mock (fmt kept gtest/ and gmock/ at its root: test support, often
// fused into a gtest-all.cc and a gtest.h of 10–20k lines whose words
// match any task), Go's internal/testutil and Jest's manual mocks.
var testSupportDirs = []string{
	"specs", "testdata", "testing", "fixtures", "__fixtures__", "__snapshots__", "e2e", "integration-cli", "integration",
	"gtest", "gmock", "googletest", "googlemock",
	"testutil", "testutils", "test_utils", "test-utils", "testhelpers", "__mocks__",
}

// TestStem returns the stem of the file name base (its extension removed)
// without its test marker, and whether the name marks a test:
// client_test.go, test_client.py, client.spec.ts and ClientTest.java all
// give "client" (or "Client") and true; a stem that is only "tests"
// (Django's tests.py) or "Test" (Test.java) is a test of nothing in
// particular.
func TestStem(base string) (stem string, test bool) {
	stem = strings.TrimSuffix(base, path.Ext(base))
	for _, suf := range testSuffixes {
		if t, ok := strings.CutSuffix(stem, suf); ok && t != "" {
			return t, true
		}
	}
	if t, ok := strings.CutPrefix(stem, testPrefix); ok && t != "" {
		return t, true
	}
	// A module of tests of nothing in particular: Django's tests.py, a
	// Test.java. A lower-case test.yml or test.sh is a CI workflow or a
	// runner script: configuration, not a test.
	if stem == "Test" || strings.EqualFold(stem, "tests") {
		return stem, true
	}
	return stem, false
}

// IsTestSuiteDir reports whether a directory of this name (one path
// element, any case) holds a project's tests named after their sources.
func IsTestSuiteDir(name string) bool {
	return slices.Contains(testSuiteDirs, strings.ToLower(name))
}

// isTestPath reports whether a file is a test or test support by its
// directories or its name.
func isTestPath(dirs []string, base string) bool {
	for _, d := range dirs {
		if IsTestSuiteDir(d) || slices.Contains(testSupportDirs, strings.ToLower(d)) {
			return true
		}
	}
	_, test := TestStem(base)
	return test
}
