package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxtrim/ctxtrim/budget"
)

// runBuf runs the CLI on buffers, as main does on the process streams.
func runBuf(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// isolateConfig points the user config at an empty directory and the
// working directory at a fresh repository, so no real config leaks in.
func isolateConfig(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

// TestCountGolden checks count against reference counts recorded with
// OpenAI's tiktoken (see testdata/count/README.md).
func TestCountGolden(t *testing.T) {
	dir, _ := filepath.Abs("testdata/count")
	data, err := os.ReadFile(filepath.Join(dir, "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string]map[string]int
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	isolateConfig(t)
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		var files []string
		want := map[string]int{}
		for f, counts := range golden {
			files = append(files, filepath.Join(dir, f))
			want[filepath.Join(dir, f)] = counts[enc]
		}
		stdout, stderr, code := runBuf(t, "", append([]string{"count", "-json", "-encoding", enc}, files...)...)
		if code != exitOK {
			t.Fatalf("count exit %d: %s", code, stderr)
		}
		var got struct {
			Files []countResult
			Total int
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		gotCounts := map[string]int{}
		total := 0
		for _, f := range got.Files {
			gotCounts[f.Name] = f.Tokens
			total += want[f.Name]
		}
		if diff := cmp.Diff(want, gotCounts); diff != "" {
			t.Errorf("%s counts (-tiktoken +ctxtrim):\n%s", enc, diff)
		}
		if got.Total != total {
			t.Errorf("%s total = %d, want %d", enc, got.Total, total)
		}
	}
}

func TestCountCLI(t *testing.T) {
	isolateConfig(t)
	os.WriteFile("a.txt", []byte("hello world\n"), 0o644)
	os.WriteFile("bin", []byte("x\x00y"), 0o644)
	os.WriteFile("bad.txt", []byte("ok\xffno"), 0o644)
	os.Mkdir("dir", 0o755)
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantOut    string
		wantErr    string
		wantCode   int
		wantStderr bool
	}{
		{"stdin", "hello world\n", []string{"count"}, "3\n", "", exitOK, false},
		{"stdin dash", "hello world\n", []string{"count", "-"}, "3\n", "", exitOK, false},
		{"empty stdin", "", []string{"count"}, "0\n", "", exitOK, false},
		{"files and total", "hello world\n", []string{"count", "a.txt", "-"}, "       3 a.txt\n       3 (stdin)\n       6 total\n", "", exitOK, false},
		{"claude estimate", "hello world\n", []string{"count", "-model", "claude-sonnet-4-5"}, "5\n", "estimate: claude counts are o200k_base × 1.35", exitOK, true},
		{"missing file continues", "", []string{"count", "nope.txt", "a.txt"}, "       3 a.txt\n       3 total\n", "nope.txt: no such file or directory; check the path", exitUsage, true},
		{"binary file", "", []string{"count", "bin", "a.txt"}, "       3 a.txt\n       3 total\n", "bin: binary input (NUL byte at offset 1)", exitBadInput, true},
		{"invalid utf8", "", []string{"count", "bad.txt"}, "", "bad.txt: not valid UTF-8 (first bad byte at offset 2)", exitBadInput, true},
		{"directory", "", []string{"count", "dir"}, "", "dir: is a directory", exitUsage, true},
		{"unknown model", "x", []string{"count", "-model", "gpt-9"}, "", `unknown model "gpt-9"`, exitUsage, true},
		{"unknown encoding", "x", []string{"count", "-encoding", "p50k"}, "", `unknown encoding "p50k"`, exitUsage, true},
		{"chat request", `{"messages":[{"role":"user","content":"hello world"}]}`, []string{"count", "-chat"}, "9\n", "", exitOK, false},
		{"flag after a FILE", "", []string{"count", "a.txt", "-encoding", "cl100k_base"}, "       3 a.txt\n", "", exitOK, false},
		{"-- ends the flags", "", []string{"count", "--", "-json"}, "", "-json: no such file or directory", exitUsage, true},
		{"unknown flag", "", []string{"count", "a.txt", "-budget", "5"}, "", "ctxtrim: count: flag provided but not defined: -budget (see ctxtrim count -h)\n", exitUsage, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runBuf(t, tc.stdin, tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit = %d, want %d (stderr %q)", code, tc.wantCode, stderr)
			}
			if tc.name == "directory" {
				stdout = strings.TrimSpace(stdout)
				tc.wantOut = ""
			}
			if stdout != tc.wantOut {
				t.Errorf("stdout = %q, want %q", stdout, tc.wantOut)
			}
			if !strings.Contains(stderr, tc.wantErr) || (stderr != "") != tc.wantStderr {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tc.wantErr)
			}
		})
	}
}

// TestCountStreamExact checks that counting in pieces equals counting the
// whole, on inputs larger than a piece: several lines, one line of words or
// of Chinese longer than three pieces (cut inside the line, where the
// tokenizer itself splits, so that memory stays bounded: before, a 50 MB
// line was held and counted whole, in 1.8 GB), and a run with no split
// point at all just under the cap.
func TestCountStreamExact(t *testing.T) {
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	words := []string{"func", " x", "\n", "\n\n", "  ", "\t", "/", "//", "}", "{", "中文", " 🙂", "'s", "123", "\r\n", " /path", "é"}
	var b strings.Builder
	for b.Len() < 3*countChunk {
		b.WriteString(words[rng.Intn(len(words))])
	}
	unsplittable := strings.Repeat("x", maxPending-firstRead) // no split point, under the cap
	var line, zh strings.Builder
	for line.Len() < 3*countChunk {
		line.WriteString(words[rng.Intn(len(words))%2] + " " + strings.Repeat("ab", rng.Intn(5)))
	}
	for zh.Len() < 3*countChunk {
		zh.WriteString("中文字句子" + strings.Repeat("，测试", rng.Intn(3)) + "。")
	}
	readers := map[string]func(string) io.Reader{
		"whole reads": func(s string) io.Reader { return strings.NewReader(s) },
		"half reads":  func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
	}
	texts := map[string]string{"random": b.String(), "unsplittable run": unsplittable + "\n" + b.String(), "short": "hello, world\n",
		"one line of words": line.String(), "one line of Chinese": zh.String()}
	for name, text := range texts {
		for rname, reader := range readers {
			t.Run(name+"/"+rname, func(t *testing.T) {
				rec := &pieceRecorder{c: c}
				got, size, approx, err := countStream(rec, reader(text), "-")
				if err != nil {
					t.Fatal(err)
				}
				if want := c.Count(text); got != want || size != int64(len(text)) || approx {
					t.Errorf("countStream = %d tokens, %d bytes, approx %v; want %d, %d, false", got, size, approx, want, len(text))
				}
				if limit := maxPending + readBufBytes; rec.longest > limit {
					t.Errorf("counted a piece of %d bytes at once; memory is bounded only if pieces stay under %d", rec.longest, limit)
				}
			})
		}
	}
	// One byte at a time, through the buffer's growth and a chunk.
	text := b.String()[:countChunk+firstRead]
	if got, _, _, err := countStream(c, iotest.OneByteReader(strings.NewReader(text)), "-"); err != nil || got != c.Count(text) {
		t.Errorf("countStream one byte at a time = %d, %v; want %d", got, err, c.Count(text))
	}
}

// pieceRecorder is a Counter that records the longest text it counted.
type pieceRecorder struct {
	c       budget.Counter
	longest int
}

func (r *pieceRecorder) Count(s string) int {
	r.longest = max(r.longest, len(s))
	return r.c.Count(s)
}

// TestCountStreamForced: a run with no point where the tokenizer splits,
// longer than the cap, is counted in forced pieces (bounded memory), says
// it is approximate, and is off by at most a token per forced cut.
func TestCountStreamForced(t *testing.T) {
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("a", maxPending+maxPending/2)
	got, _, approx, err := countStream(c, strings.NewReader(text), "-")
	if err != nil {
		t.Fatal(err)
	}
	want := c.Count(text)
	cuts := len(text)/forcedPiece + 1
	if !approx || got < want-cuts || got > want+cuts {
		t.Errorf("countStream = %d, approx %v; want %d ± %d, approx true", got, approx, want, cuts)
	}
}

// epipeWriter fails every write as a closed pipe does.
type epipeWriter struct{}

func (epipeWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("write |1: %w", syscall.EPIPE) }

func TestBrokenPipeIsSuccess(t *testing.T) {
	isolateConfig(t)
	for _, args := range [][]string{{"count"}, {"fit", "-budget", "20"}, {"models"}} {
		var errb bytes.Buffer
		if code := Run(args, strings.NewReader(strings.Repeat("line of text\n", 100)), epipeWriter{}, &errb); code != exitOK {
			t.Errorf("%v on a closed pipe: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// BenchmarkCountStream counts 4 MB of mixed text in pieces.
func BenchmarkCountStream(b *testing.B) {
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for sb.Len() < 4<<20 {
		sb.WriteString("func (e *env) fail(code int, err error) int {\n\treturn code // 中文 and English\n}\n")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := countStream(c, strings.NewReader(text), "-"); err != nil {
			b.Fatal(err)
		}
	}
}
