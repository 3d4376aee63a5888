package slicer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDefinitions feeds arbitrary bytes to every language's extractor: it
// must never panic, and what it returns must be well formed (lines in
// order and inside the file, sorted distinct references). The seed corpus
// is the per-language fixtures, each under every language's extension, so
// plain `go test` runs every grammar on foreign syntax too.
func FuzzDefinitions(f *testing.F) {
	exts := map[string]string{}
	for ext, lang := range extLang {
		if _, ok := exts[lang]; !ok || ext < exts[lang] {
			exts[lang] = ext
		}
	}
	var langs []string
	for _, l := range languages() {
		langs = append(langs, l.name)
	}
	fixtures, _ := filepath.Glob("testdata/extract/*")
	for i, fx := range fixtures {
		if strings.HasSuffix(fx, ".golden") {
			continue
		}
		src, err := os.ReadFile(fx)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), src)
	}
	f.Add(uint8(0), []byte{0, 0xff, '{', '(', '"'})
	f.Add(uint8(3), []byte("func (\n\n\n"))
	f.Fuzz(func(t *testing.T, which uint8, src []byte) {
		lang := langs[int(which)%len(langs)]
		p := "fuzz" + exts[lang]
		syms, refs, err := Definitions(p, src)
		if err != nil {
			return // tree-sitter gave up: allowed, as long as it did not crash
		}
		lines := strings.Count(string(src), "\n") + 1
		for _, s := range syms {
			if s.Start < 1 || s.End < s.Start || s.End > lines {
				t.Errorf("%s: symbol %q lines %d-%d outside 1-%d", lang, s.Name, s.Start, s.End, lines)
			}
		}
		for i := 1; i < len(refs); i++ {
			if refs[i-1] >= refs[i] {
				t.Errorf("%s: refs not sorted and distinct: %q >= %q", lang, refs[i-1], refs[i])
			}
		}
		if len(refs) > maxRefs {
			t.Errorf("%s: %d refs > maxRefs", lang, len(refs))
		}
	})
}
