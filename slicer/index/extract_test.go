package index

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// formatSymbols renders extraction results for golden files: one line per
// definition, then the references.
func formatSymbols(syms []Symbol, refs []string) string {
	var b strings.Builder
	for _, s := range syms {
		scope := ""
		if s.Scope != "" {
			scope = " in " + s.Scope
		}
		fmt.Fprintf(&b, "%d-%d %s %s%s: %s\n", s.Start, s.End, s.Kind, s.Name, scope, strings.ReplaceAll(s.Signature, "\n", `\n`))
	}
	fmt.Fprintf(&b, "refs: %s\n", strings.Join(refs, " "))
	return b.String()
}

// TestDefinitionsGolden checks one fixture per language against its
// expected symbols in testdata/extract/*.golden (go test -update rewrites).
func TestDefinitionsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/extract/*")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			covered[DetectLang(f, src)] = true
			syms, refs, err := Definitions(f, src)
			if err != nil {
				t.Fatal(err)
			}
			if len(syms) == 0 {
				t.Errorf("no definitions found")
			}
			got := formatSymbols(syms, refs)
			golden := f + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-want +got)\n%s", golden, diff)
			}
		})
	}
	for _, l := range languages() {
		if !covered[l.name] {
			t.Errorf("no fixture for language %s", l.name)
		}
	}
}
