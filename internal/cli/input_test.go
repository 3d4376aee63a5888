package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// TestReadText: readText returns the input unchanged, from a regular file
// (sized once) and from a pipe-like reader (grown as it fills), and stops
// at the first byte past the cap with probTooLarge.
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
		got, err := readText(r, name, textRules{max: 1 << 30})
		if err != nil || got != text {
			t.Errorf("%s: %d bytes, %v; want the %d bytes of the input", name, len(got), err, len(text))
		}
	}
	if got, err := readText(strings.NewReader(text), "pipe", textRules{max: 10}); exitCode(err) != exitBadInput || got != "" {
		t.Errorf("cap 10: %d bytes, %v (exit %d); want nothing and exit %d", len(got), err, exitCode(err), exitBadInput)
	}
	if _, err := readText(iotest.ErrReader(os.ErrPermission), "x", textRules{max: 10}); exitCode(err) != exitError {
		t.Errorf("a failing read: %v (exit %d), want exit %d", err, exitCode(err), exitError)
	}
}

// endless is an endless input (/dev/zero, yes) that counts what was read
// from it.
type endless struct {
	line string
	read int64
}

func (r *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], r.line)
	}
	r.read += int64(n)
	return n, nil
}

// TestReadInputStopsEarly: binary input is decided on its first
// index.BinarySniffBytes bytes, before more is read, and an endless text
// stops at the first byte past the cap, with the exit codes of the table.
// A regular file larger than the cap fails after the sniff.
func TestReadInputStopsEarly(t *testing.T) {
	zeros := &endless{line: "\x00"}
	_, err := readInput(zeros, stdinName, textRules{max: 1 << 30})
	if exitCode(err) != exitBadInput || !strings.Contains(err.Error(), "NUL byte at offset 0") {
		t.Errorf("/dev/zero: %v (exit %d), want binary input, exit %d", err, exitCode(err), exitBadInput)
	}
	if zeros.read > index.BinarySniffBytes {
		t.Errorf("/dev/zero: read %d bytes before deciding binary, want at most %d", zeros.read, index.BinarySniffBytes)
	}

	const limit = 3 << 20
	yes := &endless{line: "line of text\n"}
	_, err = readInput(yes, stdinName, textRules{max: limit, tooLarge: "cut it"})
	if exitCode(err) != exitBadInput || !strings.Contains(err.Error(), "larger than 3 MiB") || !strings.Contains(err.Error(), "; cut it") {
		t.Errorf("yes: %v (exit %d), want larger than 3 MiB; cut it, exit %d", err, exitCode(err), exitBadInput)
	}
	if yes.read > limit+1+int64(len(yes.line)) {
		t.Errorf("yes: read %d bytes past a cap of %d", yes.read, limit)
	}

	p := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(p, []byte(strings.Repeat("text\n", 2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 2*limit); err != nil { // NULs after the sniffed prefix
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := readInput(f, p, textRules{max: limit}); exitCode(err) != exitBadInput || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a file over the cap: %v (exit %d), want larger than, exit %d", err, exitCode(err), exitBadInput)
	}
	if off, _ := f.Seek(0, io.SeekCurrent); off > index.BinarySniffBytes {
		t.Errorf("a file over the cap: read %d bytes of it, want only the sniff", off)
	}
}
