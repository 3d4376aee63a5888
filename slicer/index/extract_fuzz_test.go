package index

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
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

// TestDefinitionsNoLeak runs every fixture through Definitions many times
// and checks that the process does not grow: a parser, tree or cursor left
// to a finalizer (or never freed) would leak tens of kilobytes of C memory
// per call.
func TestDefinitionsNoLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	if raceEnabled {
		// It grew by 95 MiB here under -race, where go test ./... keeps
		// it within 16: the detector's own memory is not the parsers'.
		t.Skip("the race detector's shadow memory grows outside the Go heap: this measure means nothing under -race")
	}
	fixtures, _ := filepath.Glob("testdata/extract/*")
	var srcs [][]byte
	var paths []string
	for _, fx := range fixtures {
		if strings.HasSuffix(fx, ".golden") || strings.HasSuffix(fx, ".go") {
			continue // Go takes the go/parser path
		}
		src, err := os.ReadFile(fx)
		if err != nil {
			t.Fatal(err)
		}
		srcs, paths = append(srcs, src), append(paths, fx)
	}
	round := func(n int) {
		for range n {
			for i, src := range srcs {
				if _, _, err := Definitions(paths[i], src); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	round(20) // compile every query, settle the heap
	// With the collector off no finalizer runs, so only explicit Close
	// calls free C memory; Go's own growth is subtracted.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before, goBefore := rssBytes(t), int64(ms.Sys)
	round(200)
	runtime.ReadMemStats(&ms)
	cGrowth := (rssBytes(t) - before) - (int64(ms.Sys) - goBefore)
	const limit = 16 << 20
	if cGrowth > limit {
		t.Errorf("memory outside the Go heap grew by %d MiB over %d parses (limit %d MiB): something is not closed", cGrowth>>20, 200*len(srcs), limit>>20)
	}
	t.Logf("memory outside the Go heap grew by %d KiB over %d parses", cGrowth>>10, 200*len(srcs))
}

// rssBytes reads the resident set size from /proc, skipping elsewhere.
func rssBytes(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(data))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}
