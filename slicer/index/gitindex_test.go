package index

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	gitidx "github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/google/go-cmp/cmp"
)

// goGitDecode decodes data with go-git's index decoder, the reference.
func goGitDecode(data []byte) (*gitidx.Index, error) {
	idx := &gitidx.Index{}
	err := gitidx.NewDecoder(bufio.NewReader(bytes.NewReader(data))).Decode(idx)
	return idx, err
}

// sameAsGoGit reports how got (decodeIndex) differs from want (go-git) in
// what decodeIndex reads: version, entries and the cached tree, whose
// invalidated entries go-git drops.
func sameAsGoGit(want, got *gitidx.Index) string {
	type tree struct{ Entries []gitidx.TreeEntry }
	view := func(idx *gitidx.Index, dropInvalid bool) (uint32, []gitidx.Entry, *tree) {
		var es []gitidx.Entry
		for _, e := range idx.Entries {
			es = append(es, *e)
		}
		var t *tree
		if idx.Cache != nil {
			t = &tree{}
			for _, e := range idx.Cache.Entries {
				if !dropInvalid || e.Entries >= 0 {
					t.Entries = append(t.Entries, e)
				}
			}
		}
		return idx.Version, es, t
	}
	wv, we, wt := view(want, false)
	gv, ge, gt := view(got, true)
	return cmp.Diff(struct {
		V uint32
		E []gitidx.Entry
		T *tree
	}{wv, we, wt}, struct {
		V uint32
		E []gitidx.Entry
		T *tree
	}{gv, ge, gt})
}

// withChecksum appends the SHA-1 trailer git writes.
func withChecksum(body []byte) []byte {
	h := sha1.Sum(body)
	return append(body[:len(body):len(body)], h[:]...)
}

// encodeIndex writes idx with go-git's encoder.
func encodeIndex(t testing.TB, idx *gitidx.Index) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := gitidx.NewEncoder(&b).Encode(idx); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withTreeExtension replaces the checksum of an index by a TREE extension
// holding entries (in preorder) and a new checksum.
func withTreeExtension(data []byte, entries []gitidx.TreeEntry) []byte {
	var ext bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&ext, "%s\x00%d %d\n", e.Path, e.Entries, e.Trees)
		if e.Entries >= 0 {
			ext.Write(e.Hash[:])
		}
	}
	body := append([]byte(nil), data[:len(data)-sha1.Size]...)
	body = append(body, "TREE"...)
	body = append(body, byte(ext.Len()>>24), byte(ext.Len()>>16), byte(ext.Len()>>8), byte(ext.Len()))
	body = append(body, ext.Bytes()...)
	return withChecksum(body)
}

// sampleIndex is an index with every kind of entry decodeIndex reads: the
// modes, a conflict's three stages, intent-to-add and skip-worktree
// (extended flags), a name too long for the 12-bit length, times with and
// without nanoseconds, and names sharing prefixes (for v4).
func sampleIndex(version uint32) *gitidx.Index {
	h := func(s string) plumbing.Hash { return plumbing.ComputeHash(plumbing.BlobObject, []byte(s)) }
	when := time.Unix(1700000000, 123456789)
	idx := &gitidx.Index{Version: version}
	add := func(e gitidx.Entry) { idx.Entries = append(idx.Entries, &e) }
	add(gitidx.Entry{Name: "README.md", Mode: filemode.Regular, Hash: h("a"), Size: 1, ModifiedAt: when, CreatedAt: when, Dev: 1, Inode: 2, UID: 3, GID: 4})
	add(gitidx.Entry{Name: "a/b/c.go", Mode: filemode.Executable, Hash: h("b"), Size: 70000, ModifiedAt: time.Unix(1700000001, 0)})
	add(gitidx.Entry{Name: "a/b/d.go", Mode: filemode.Symlink, Hash: h("c")})
	add(gitidx.Entry{Name: "a/bc", Mode: filemode.Regular, Hash: h("d"), IntentToAdd: true})
	add(gitidx.Entry{Name: "conflict", Mode: filemode.Regular, Hash: h("e"), Stage: gitidx.AncestorMode})
	add(gitidx.Entry{Name: "conflict", Mode: filemode.Regular, Hash: h("f"), Stage: gitidx.OurMode})
	add(gitidx.Entry{Name: "conflict", Mode: filemode.Regular, Hash: h("g"), Stage: gitidx.TheirMode})
	add(gitidx.Entry{Name: "sparse/x", Mode: filemode.Regular, Hash: h("h"), SkipWorktree: true})
	add(gitidx.Entry{Name: "sub", Mode: filemode.Submodule, Hash: h("i")})
	add(gitidx.Entry{Name: strings.Repeat("long/", 1000) + "name", Mode: filemode.Regular, Hash: h("j")})
	add(gitidx.Entry{Name: "z", Mode: filemode.Regular, Hash: h("k")})
	return idx
}

// sampleTree is a cached tree for sampleIndex's directories, with the
// subtree a/b invalidated.
func sampleTree() []gitidx.TreeEntry {
	h := func(s string) plumbing.Hash { return plumbing.ComputeHash(plumbing.TreeObject, []byte(s)) }
	return []gitidx.TreeEntry{
		{Path: "", Entries: 11, Trees: 3, Hash: h("root")},
		{Path: "a", Entries: 3, Trees: 1, Hash: h("a")},
		{Path: "b", Entries: -1, Trees: 0},
		{Path: "long", Entries: 1, Trees: 0, Hash: h("long")},
		{Path: "sparse", Entries: 1, Trees: 0, Hash: h("sparse")},
	}
}

// gitIndexes returns index files written by the git command, if there is
// one: versions 2, 3 and 4, with a cached tree, after a change that
// invalidates part of it.
func gitIndexes(t *testing.T) map[string][]byte {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Log("no git command: indexes written by go-git only")
		return nil
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Skipf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	for _, f := range []string{"a.go", "d/b.go", "d/e/c.go", "d/e/f/g.md", "x/y.txt"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", ".")
	// A name longer than the 12-bit length field, in the index only.
	run("update-index", "--add", "--cacheinfo", "100644,"+run("rev-parse", ":a.go")+","+strings.Repeat("long/", 1000)+"name")
	run("commit", "-q", "-m", "x")
	out := map[string][]byte{}
	read := func(name string) {
		b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	for _, v := range []string{"2", "3", "4"} {
		run("update-index", "--index-version", v)
		read("git v" + v)
	}
	if err := os.WriteFile(filepath.Join(dir, "d", "e", "c.go"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "d/e/c.go")
	run("update-index", "--skip-worktree", "x/y.txt")
	read("git v4, invalidated tree, skip-worktree")
	run("update-index", "--index-version", "2")
	read("git v2, invalidated tree, skip-worktree")
	return out
}

// testIndexes are the index files the tests decode, by name.
func testIndexes(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for _, v := range []uint32{2, 3, 4} {
		data := encodeIndex(t, sampleIndex(v))
		out[fmt.Sprintf("go-git v%d", v)] = data
		out[fmt.Sprintf("go-git v%d, tree", v)] = withTreeExtension(data, sampleTree())
	}
	for k, v := range gitIndexes(t) {
		out[k] = v
	}
	// This checkout's own index, when the tests run in one.
	if wd, err := os.Getwd(); err == nil {
		if gitDir, _ := gitDirs(filepath.Dir(wd)); gitDir != "" {
			if b, err := os.ReadFile(filepath.Join(gitDir, "index")); err == nil {
				out["this checkout"] = b
			}
		}
	}
	return out
}

func TestDecodeIndexMatchesGoGit(t *testing.T) {
	for name, data := range testIndexes(t) {
		t.Run(name, func(t *testing.T) {
			want, err := goGitDecode(data)
			if err != nil && name == "this checkout" {
				t.Skipf("go-git cannot read this checkout's index (a split or sparse index?): %v", err)
			}
			if err != nil {
				t.Fatalf("go-git: %v", err)
			}
			got, err := decodeIndex(data)
			if err != nil {
				t.Fatalf("decodeIndex: %v", err)
			}
			if diff := sameAsGoGit(want, got); diff != "" {
				t.Errorf("decodeIndex differs from go-git (-go-git +decodeIndex):\n%s", diff)
			}
			if len(got.Entries) == 0 {
				t.Errorf("no entries")
			}
		})
	}
}

// TestDecodeIndexKeepsInvalidatedTrees checks what go-git does not: an
// invalidated cached tree stays in the preorder, so that cacheTree maps
// every valid subtree to its own directory.
func TestDecodeIndexKeepsInvalidatedTrees(t *testing.T) {
	data := withTreeExtension(encodeIndex(t, sampleIndex(2)), sampleTree())
	idx, err := decodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	tr := sampleTree()
	want := map[string]plumbing.Hash{"": tr[0].Hash, "a/": tr[1].Hash, "long/": tr[3].Hash, "sparse/": tr[4].Hash}
	if diff := cmp.Diff(want, cacheTree(idx)); diff != "" {
		t.Errorf("cacheTree (-want +got):\n%s", diff)
	}
}

func TestDecodeIndexErrors(t *testing.T) {
	good := encodeIndex(t, sampleIndex(2))
	body := good[:len(good)-sha1.Size]
	edit := func(f func(b []byte) []byte) []byte {
		return withChecksum(f(append([]byte(nil), body...)))
	}
	v4 := encodeIndex(t, sampleIndex(4))
	tests := []struct {
		name string
		data []byte
		want error // nil: any error
	}{
		{"empty", nil, gitidx.ErrMalformedSignature},
		{"signature", edit(func(b []byte) []byte { b[0] = 'X'; return b }), gitidx.ErrMalformedSignature},
		{"checksum", append(append([]byte(nil), body...), bytes.Repeat([]byte{1}, sha1.Size)...), gitidx.ErrInvalidChecksum},
		{"version 1", edit(func(b []byte) []byte { b[7] = 1; return b }), gitidx.ErrUnsupportedVersion},
		{"version 5", edit(func(b []byte) []byte { b[7] = 5; return b }), gitidx.ErrUnsupportedVersion},
		{"too many entries", edit(func(b []byte) []byte { b[11]++; return b }), nil},
		{"huge count", edit(func(b []byte) []byte { copy(b[8:], []byte{0x7f, 0xff, 0xff, 0xff}); return b }), errIndexTruncated},
		{"cut in an entry", edit(func(b []byte) []byte { return b[:100] }), nil},
		{"mandatory extension", edit(func(b []byte) []byte { return append(b, "link\x00\x00\x00\x00"...) }), gitidx.ErrUnknownExtension},
		{"extension too long", edit(func(b []byte) []byte { return append(b, "ABCD\x00\x00\x01\x00"...) }), errIndexTruncated},
		{"trailing bytes", edit(func(b []byte) []byte { return append(b, 0, 0, 0) }), errIndexTruncated},
		{"v4 strip", withChecksum(func() []byte {
			b := append([]byte(nil), v4[:len(v4)-sha1.Size]...)
			b[indexHeaderLen+indexEntryLen] = 0x7f // the first name strips 127 bytes
			return b
		}()), gitidx.ErrMalformedIndexFile},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeIndex(tc.data)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("decodeIndex error = %v, want %v", err, tc.want)
			}
			if _, gerr := goGitDecode(tc.data); gerr == nil {
				t.Errorf("go-git decodes it; decodeIndex: %v", err)
			}
		})
	}
}

// TestDecodeIndexSkipHash checks that an index written with
// index.skipHash (an all-zero trailer) is read.
func TestDecodeIndexSkipHash(t *testing.T) {
	data := encodeIndex(t, sampleIndex(3))
	clear(data[len(data)-sha1.Size:])
	idx, err := decodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Entries) != len(sampleIndex(3).Entries) {
		t.Errorf("%d entries, want %d", len(idx.Entries), len(sampleIndex(3).Entries))
	}
}

// FuzzDecodeIndex holds decodeIndex to go-git's decoder on arbitrary
// index bodies (the checksum is appended, so that both read past it):
// decodeIndex never panics, and when both succeed they agree.
func FuzzDecodeIndex(f *testing.F) {
	for _, v := range []uint32{2, 3, 4} {
		data := encodeIndex(f, sampleIndex(v))
		f.Add(data[:len(data)-sha1.Size])
		data = withTreeExtension(data, sampleTree())
		f.Add(data[:len(data)-sha1.Size])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		data := withChecksum(body)
		got, err := decodeIndex(data)
		want, gerr := goGitDecode(data)
		if err != nil || gerr != nil {
			return
		}
		if diff := sameAsGoGit(want, got); diff != "" {
			t.Errorf("decodeIndex differs from go-git (-go-git +decodeIndex):\n%s", diff)
		}
	})
}

func BenchmarkDecodeIndex(b *testing.B) {
	idx := &gitidx.Index{Version: 2}
	for i := range 20000 {
		idx.Entries = append(idx.Entries, &gitidx.Entry{Name: fmt.Sprintf("dir%d/sub%d/file%d.go", i/500, i/50, i), Mode: filemode.Regular, ModifiedAt: time.Unix(1700000000, 1)})
	}
	data := encodeIndex(b, idx)
	for _, d := range []struct {
		name string
		f    func([]byte) (*gitidx.Index, error)
	}{{"decodeIndex", decodeIndex}, {"go-git", goGitDecode}} {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := d.f(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
