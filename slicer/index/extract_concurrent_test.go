package index

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDefinitionsConcurrent extracts files of every language from several
// goroutines at once and expects what one goroutine alone finds. The Lua
// grammar's external scanner keeps its long-bracket state in C globals, so
// two Lua parses at once corrupt each other (moby's two Lua files got 10,
// 12, 18 or 27 symbols from run to run) unless they are serialized.
func TestDefinitionsConcurrent(t *testing.T) {
	var lua strings.Builder
	for i := range 60 {
		eq := strings.Repeat("=", i%4)
		fmt.Fprintf(&lua, "--[%s[ block comment %d\n]%s]\nlocal s%d = [%s[ long\nstring ]%s]\nfunction f%d(x)\n  return x .. [[%d]]\nend\n\n",
			eq, i, eq, i, eq, eq, i, i)
	}
	files := map[string]string{
		"a.lua": lua.String(),
		"b.lua": strings.ReplaceAll(lua.String(), "function f", "function g"),
		"c.py":  "def f():\n    return '''x'''\n\nclass C:\n    def m(self):\n        pass\n",
		"d.rb":  "def f\n  <<~EOS\n    text\n  EOS\nend\n",
	}
	want := map[string][]Symbol{}
	for p, src := range files {
		syms, _, err := Definitions(p, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		want[p] = syms
	}
	if len(want["a.lua"]) < 60 {
		t.Fatalf("a.lua: %d symbols, want at least 60 (fixture broken)", len(want["a.lua"]))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	failures := 0
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				for p, src := range files {
					syms, _, err := Definitions(p, []byte(src))
					if diff := cmp.Diff(want[p], syms); err != nil || diff != "" {
						mu.Lock()
						if failures++; failures <= 3 {
							t.Errorf("goroutine %d, round %d, %s: err %v, symbols (-alone +concurrent)\n%s", g, i, p, err, diff)
						}
						mu.Unlock()
					}
				}
			}
		}()
	}
	wg.Wait()
}
