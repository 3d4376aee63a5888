package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
)

const indexRepo = `
untracked notes.md
-- main.go --
package cli

func main() {}

func helper() {}
-- lib.py --
def f():
    pass
-- go.sum --
x v1 h1:=
-- notes.md --
# Notes
`

func TestIndexCommand(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir := txtartest.Repo(t, txtar.Parse([]byte(indexRepo)))

	t.Run("json", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := Run([]string{"index", "--repo", dir, "--json"}, nil, &out, &errb); code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, errb.String())
		}
		var got indexSummary
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		want := indexSummary{
			Files:     3,
			Languages: map[string]int{"go": 1, "python": 1, "(lexical)": 1},
			Classes:   map[string]int{"source": 2, "doc": 1},
			Status:    map[string]int{"untracked": 1},
			Symbols:   3,
			Skipped:   map[string]int{"lock file": 1},
		}
		got.Root, got.Head, got.Elapsed, got.Tokens, got.FileList, got.SkipList = "", "", "", 0, nil, nil
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("summary (-want +got)\n%s", diff)
		}
		if errb.Len() != 0 {
			t.Errorf("stderr %q, want nothing (no progress off a terminal)", errb.String())
		}
	})

	t.Run("text with -explain", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := Run([]string{"index", "-repo", dir, "-explain"}, nil, &out, &errb); code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, errb.String())
		}
		for _, want := range []string{"files:      3", "symbols:    3 definitions", "skipped:    1 (lock file 1)", "go.sum", "changes:    untracked 1"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
	})

	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"extra argument", []string{"index", dir}, exitUsage},
		{"unknown flag", []string{"index", "-nope"}, exitUsage},
		{"missing directory", []string{"index", "-repo", filepath.Join(dir, "nope")}, exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := Run(tc.args, nil, &out, &errb); code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q on error", out.String())
			}
		})
	}
}

func TestMemoryLimitFor(t *testing.T) {
	tests := []struct {
		name string
		live uint64
		want int64
	}{
		{"nothing live", 0, baseMemoryLimit},
		{"small index", 50 << 20, baseMemoryLimit},
		{"at the base", uint64(float64(baseMemoryLimit) / memoryHeadroom), baseMemoryLimit},
		{"large index", 5 << 30, 5 << 30 * memoryHeadroom},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := memoryLimitFor(tc.live); got != tc.want {
				t.Errorf("memoryLimitFor(%d) = %d, want %d", tc.live, got, tc.want)
			}
		})
	}
}

// TestIndexMemoryCapRestored checks that an index run leaves the process's
// memory limit as it found it (tests and library users share the process).
func TestIndexMemoryCapRestored(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	dir := txtartest.Repo(t, txtar.Parse([]byte(indexRepo)))
	var out, errb bytes.Buffer
	if code := Run([]string{"index", "--repo", dir, "--no-cache"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("memory limit %d after index, want %d as before", after, before)
	}
}
