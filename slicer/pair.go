package slicer

import (
	"path"
	"strings"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// pairKey returns the key that a test and its source share, and whether p
// is a test by name (index.TestStem, the one recogniser of tests). The key
// is the path without extension and test marker. A test under a test suite
// directory (index.IsTestSuiteDir: tests/, test/, __tests__/, spec/) pairs
// with a source of the same name anywhere, so its key is "*/" and the
// lowercased stem; sourceKeys gives a source both keys.
func pairKey(p string) (key string, test bool) {
	dir, base := path.Split(p)
	stem, test := index.TestStem(base)
	for _, d := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		if d != "" && index.IsTestSuiteDir(d) {
			return "*/" + strings.ToLower(stem), true
		}
	}
	return dir + stem, test
}

// sourceKeys returns the pairing keys of a source file: its own and the
// one tests in a tests/ directory use.
func sourceKeys(p string) [2]string {
	dir, base := path.Split(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	return [2]string{dir + stem, "*/" + strings.ToLower(stem)}
}
