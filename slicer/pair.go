package slicer

import (
	"path"
	"strings"
)

// pairKey returns the key that a test and its source share, and whether p
// is a test by name. The key is the path without extension and without the
// test affixes of Go (_test), Python (test_, _test), JavaScript (.test,
// .spec) and Java (Test, Tests). A test under a tests/, test/, __tests__/
// or spec/ directory pairs with a source of the same name anywhere, so its
// key is "*/" and the lowercased stem; sourceKeys gives a source both keys.
func pairKey(p string) (key string, test bool) {
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for _, suf := range []string{"_test", ".test", ".spec", "_spec", "Tests", "Test"} {
		if strings.HasSuffix(stem, suf) && len(stem) > len(suf) {
			stem, test = strings.TrimSuffix(stem, suf), true
			break
		}
	}
	if !test && strings.HasPrefix(stem, "test_") && len(stem) > 5 {
		stem, test = stem[5:], true
	}
	for _, d := range []string{"tests/", "test/", "__tests__/", "spec/"} {
		if strings.HasPrefix(dir, d) || strings.Contains(dir, "/"+d) {
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
