package history

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedKit returns the project's shared evaluation kit: $CTXTRIM_SHARED,
// else ../shared beside the checkout. It skips the test when there is none,
// as on a plain clone: the kit is for extra evaluation, and the fixtures in
// testdata/ cover what the tests need.
func sharedKit(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CTXTRIM_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "eval", "transcripts")); err != nil {
		t.Skipf("no shared evaluation kit at %s (set CTXTRIM_SHARED to its directory): %v", dir, err)
	}
	return dir
}

// TestSharedTranscripts runs the invariants of TestRoundTripUnchanged and
// TestPruneTranscripts over every transcript of the shared kit, untrimmed
// and including the ones testdata/ leaves out.
func TestSharedTranscripts(t *testing.T) {
	root := filepath.Join(sharedKit(t), "eval", "transcripts")
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch filepath.Ext(p) {
		case ".json", ".jsonl", ".traj":
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no transcripts under %s", root)
	}
	for _, p := range files {
		name := strings.TrimPrefix(p, root+string(filepath.Separator))
		t.Run(name, func(t *testing.T) {
			c, src := parseFile(t, p)
			if got := encode(t, c); string(got) != string(src) {
				t.Fatal("Encode changed an unpruned conversation")
			}
			_, pinned, bs := budgets(t, c)
			for _, b := range bs {
				if b < pinned {
					continue
				}
				t.Run(fmt.Sprint(b), func(t *testing.T) {
					res, err := Prune(c, counter(t), &Options{Budget: b})
					if err != nil {
						t.Fatal(err)
					}
					checkPruned(t, c, src, res, b)
				})
			}
		})
	}
}
