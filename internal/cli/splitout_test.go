package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxtrim/ctxtrim/split"
)

// cancelAfter is a context whose Err turns to context.Canceled after n
// calls: an interrupt arriving while part n is being written.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

func testParts(n int) partList {
	return newPartList(testResult(n))
}

func testResult(n int) *split.Result {
	parts := make([]split.Part, n)
	for i := range parts {
		parts[i] = split.Part{Index: i + 1, Text: fmt.Sprintf("part %d\n", i+1)}
	}
	return &split.Result{Parts: parts}
}

// listDir returns the names in dir, sorted, "" entries for none.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// TestWriteDirInterrupted: an interrupt while the parts are written leaves
// the output directory as it was (absent, or the earlier run's output) and
// no temporary directory beside it. Before, SIGTERM during split -out DIR
// left 162 of 2,091 parts and no manifest, without a message.
func TestWriteDirInterrupted(t *testing.T) {
	for _, before := range []string{"absent", "earlier output", "other files"} {
		for _, after := range []int{0, 1, 3, 5} {
			t.Run(fmt.Sprintf("%s/after %d files", before, after), func(t *testing.T) {
				parent := t.TempDir()
				dir := filepath.Join(parent, "parts")
				var want []string
				switch before {
				case "earlier output":
					if err := writeDir(context.Background(), dir, testParts(2), false, []byte("{}\n")); err != nil {
						t.Fatal(err)
					}
					want = listDir(t, dir)
				case "other files":
					os.Mkdir(dir, 0o755)
					os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644)
					want = []string{"notes.md"}
				}
				err := writeDir(&cancelAfter{context.Background(), after}, dir, testParts(5), false, []byte("{}\n"))
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v, want context.Canceled", err)
				}
				if before == "absent" {
					if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s exists after an interrupted first run", dir)
					}
				} else if diff := cmp.Diff(want, listDir(t, dir)); diff != "" {
					t.Errorf("output directory changed (-before +after):\n%s", diff)
				}
				var left []string
				for _, n := range listDir(t, parent) {
					if n != "parts" {
						left = append(left, n)
					}
				}
				if len(left) > 0 {
					t.Errorf("left beside the output: %q", left)
				}
			})
		}
	}
}

// TestWriteDirReplaces: a complete run replaces an earlier run's output
// (fewer parts: the extra ones go) and keeps the user's other files.
func TestWriteDirReplaces(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "parts")
	if err := writeDir(context.Background(), dir, testParts(4), false, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if err := writeDir(context.Background(), dir, testParts(2), true, []byte("{\"n\":2}\n")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"manifest.json", "part-001.json", "part-002.json"}, listDir(t, dir)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644)
	if err := writeDir(context.Background(), dir, testParts(1), false, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"manifest.json", "notes.md", "part-001.txt"}, listDir(t, dir)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"parts"}, listDir(t, parent)); diff != "" {
		t.Errorf("beside the output (-want +got):\n%s", diff)
	}
}

// TestSplitStdoutInterrupted: an interrupt while parts go to stdout says
// on stderr, in the one line Run reports, how many were written and that
// the output is incomplete.
func TestSplitStdoutInterrupted(t *testing.T) {
	var stdout, stderr strings.Builder
	e := &env{stdout: &stdout, stderr: &stderr}
	f := &splitFlags{delimiter: defaultDelimiter}
	res := testResult(4)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	err := f.write(&cancelAfter{ctx, 2}, e, res)
	if code := e.report(err); code != exitInterrupt {
		t.Fatalf("exit %d, want %d", code, exitInterrupt)
	}
	if want := "ctxtrim: interrupted after writing 2 of 4 parts to stdout; the output is incomplete\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if !strings.Contains(stdout.String(), "part 2") || strings.Contains(stdout.String(), "part 3") {
		t.Errorf("stdout %q, want parts 1 and 2", stdout.String())
	}
}

// TestWriteDirNamesOut: a -out directory that cannot be made is named as
// the user gave it, not as the temporary directory beside it that the
// parts are first written to (issue 61 item 11).
func TestWriteDirNamesOut(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{
		filepath.Join(file, "parts"),        // the parent is a file
		filepath.Join(file, "sub", "parts"), // MkdirAll of the parent fails
	} {
		err := writeDir(context.Background(), dir, testParts(2), false, []byte("{}"))
		if err == nil || !strings.HasPrefix(err.Error(), "-out "+dir+": cannot create it: ") || strings.Contains(err.Error(), ".ctxtrim-") {
			t.Errorf("writeDir(%s) = %v; want an error naming -out %s and no temporary directory", dir, err, dir)
		}
	}
}
