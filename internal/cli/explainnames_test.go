package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"github.com/ctxtrim/ctxtrim/slicer"
)

// TestExplainUnusualNames: -explain writes a file name holding a newline or
// a byte that is not UTF-8 as the prompt does, Go-quoted (slicer.QuotePath),
// so that it stays one cell of one row; printed raw, the newline split the
// table. -explain=json stays valid JSON and carries the newline as itself.
func TestExplainUnusualNames(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the index cache stays in the test
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	const src = "package retry\n\n// Retry%d retries the request and rewinds its body.\nfunc Retry%d() error { return nil }\n"
	names := []string{"new\nline.go", "bad\xffname.go"}
	dir := t.TempDir()
	txtartest.Git(t, dir, "init", "-q")
	var made []string
	for k, name := range names {
		body := strings.ReplaceAll(src, "%d", string(rune('0'+k)))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			// macOS refuses names that are not UTF-8 (EILSEQ), Windows
			// a newline: nothing to explain there.
			t.Logf("the OS refuses the name %q, so it is not tested here: %v", name, err)
			continue
		}
		made = append(made, name)
	}
	if len(made) == 0 {
		t.Skip("the OS refuses every unusual name tested")
	}
	txtartest.Git(t, dir, "add", "-A")
	txtartest.Git(t, dir, "commit", "-q", "-m", "unusual names")
	run := func(t *testing.T, explain string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Run([]string{"-C", dir, "-budget", "2000", "-format", "paths", explain, "retry the request body"}, strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
		}
		return errb.String()
	}
	t.Run("text", func(t *testing.T) {
		stderr := run(t, "-explain")
		for _, name := range made {
			if strings.Contains(stderr, name) {
				t.Errorf("-explain prints %q raw:\n%s", name, stderr)
			}
			if q := slicer.QuotePath(name); !strings.Contains(stderr, " "+q+" ") {
				t.Errorf("-explain lacks %s as a cell of its table:\n%s", q, stderr)
			}
		}
	})
	t.Run("json", func(t *testing.T) {
		stderr := run(t, "-explain=json")
		if !json.Valid([]byte(stderr)) {
			t.Fatalf("-explain=json is not valid JSON:\n%s", stderr)
		}
		var doc struct {
			Files []struct{ Path string } `json:"files"`
		}
		if err := json.Unmarshal([]byte(stderr), &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range doc.Files {
			got = append(got, f.Path)
		}
		// JSON escapes a newline itself; a byte that is not UTF-8 it can
		// only write as U+FFFD.
		var want []string
		for _, name := range made {
			want = append(want, strings.ToValidUTF8(name, "\uFFFD"))
		}
		slices.Sort(want)
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("-explain=json files (-want +got):\n%s", diff)
		}
	})
}

// TestCountUnusualNames: count writes such names quoted as -explain and the
// prompt do, one row each (issue 61 item 10).
func TestCountUnusualNames(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for _, name := range []string{"new\nline.txt", "bad\xffname.txt"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("hello world\n"), 0o644); err != nil {
			t.Logf("the OS refuses the name %q, so it is not tested here: %v", name, err)
			continue
		}
		args = append(args, p)
	}
	if len(args) == 0 {
		t.Skip("the OS refuses every unusual name tested")
	}
	stdout, stderr, code := runBuf(t, "", append([]string{"count"}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if want := len(args) + 1; len(lines) != want { // a total row after them
		t.Errorf("%d lines, want %d (one per file and the total):\n%s", len(lines), want, stdout)
	}
	for _, p := range args {
		if !strings.Contains(stdout, slicer.QuotePath(p)) {
			t.Errorf("stdout lacks %s:\n%s", slicer.QuotePath(p), stdout)
		}
	}
}
