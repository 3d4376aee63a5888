package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadText: readText returns the input unchanged, from a regular file
// (sized once) and from a pipe-like reader (grown as it fills), and stops
// one byte past the limit so that the caller can tell the input is over.
func TestReadText(t *testing.T) {
	text := strings.Repeat("a line of text, 0123456789\n", 120000) // 3.2 MB
	p := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, r := range map[string]interface{ Read([]byte) (int, error) }{
		"file": f, "pipe": strings.NewReader(text), "half reads": iotest.HalfReader(strings.NewReader(text)),
	} {
		got, err := readText(r, name, 1<<30)
		if err != nil || got != text {
			t.Errorf("%s: %d bytes, %v; want the %d bytes of the input", name, len(got), err, len(text))
		}
	}
	if got, _ := readText(strings.NewReader(text), "pipe", 10); len(got) != 11 {
		t.Errorf("limit 10: read %d bytes, want 11", len(got))
	}
	if _, err := readText(iotest.ErrReader(os.ErrPermission), "x", 10); exitCode(err) != exitError {
		t.Errorf("a failing read: %v (exit %d), want exit %d", err, exitCode(err), exitError)
	}
}
