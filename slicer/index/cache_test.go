package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

func TestCacheRoundTrip(t *testing.T) {
	m := &cacheData{Trees: map[string]string{"c1": "t1"}, Entries: map[string]*cacheEntry{
		"aa/go": {Lang: "go", Tokens: 12, Symbols: []Symbol{{Name: "F", Kind: "function", Start: 3, End: 5, Signature: "func F()", Scope: ""}}, Refs: []string{"fmt", "x"}},
		"bb/":   {Binary: true},
		"cc/#!": {Generated: true, Minified: true, Tokens: 1},
		"dd/":   {NotUTF8: true, BadByte: 300},
	}}
	var buf bytes.Buffer
	if err := encodeCache(&buf, "v1", m); err != nil {
		t.Fatal(err)
	}
	got, err := decodeCache(buf.Bytes(), "v1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("round trip (-want +got)\n%s", diff)
	}
}

func TestCacheRejects(t *testing.T) {
	var buf bytes.Buffer
	if err := encodeCache(&buf, "v1", &cacheData{Entries: map[string]*cacheEntry{"k/go": {Lang: "go", Refs: []string{"a"}}}}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	flip := bytes.Clone(good)
	flip[len(flip)-1] ^= 0xff
	for _, tc := range []struct {
		name    string
		data    []byte
		version string
		corrupt bool // errCorrupt, as opposed to a foreign version
	}{
		{"empty", nil, "v1", true},
		{"garbage", []byte("not a cache at all"), "v1", true},
		{"foreign version", good, "v2", false},
		{"truncated", good[:len(good)-3], "v1", true},
		{"bit flip", flip, "v1", true},
		{"header only", good[:len(cacheMagic)+3], "v1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := decodeCache(tc.data, tc.version)
			if err == nil {
				t.Fatalf("decoded %v, want an error", m)
			}
			if got := errors.Is(err, errCorrupt); got != tc.corrupt {
				t.Errorf("errors.Is(%v, errCorrupt) = %v, want %v", err, got, tc.corrupt)
			}
		})
	}
}

// FuzzDecodeCache: no input makes the decoder panic or allocate without
// bound.
func FuzzDecodeCache(f *testing.F) {
	var buf bytes.Buffer
	encodeCache(&buf, "v", &cacheData{Entries: map[string]*cacheEntry{"k/go": {Lang: "go", Symbols: []Symbol{{Name: "A"}}, Refs: []string{"a", "b"}}}})
	f.Add(buf.Bytes())
	f.Add([]byte(cacheMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeCache(data, "v")
	})
}

const cacheScenario = `
-- main.go --
package main

func Hello() {}
-- util.py --
def helper():
    pass
`

// TestIndexCache covers a miss (first run writes the file), a hit (the
// second run takes results from the file, shown by planting a marker in
// it), and corruption (garbage is logged, ignored and rewritten).
func TestIndexCache(t *testing.T) {
	dir := txtartest.Repo(t, txtar.Parse([]byte(cacheScenario)))
	cacheDir := t.TempDir()
	var logs []string
	opts := &Options{Dir: dir, CacheDir: cacheDir, Logf: func(f string, a ...any) { logs = append(logs, f) }}
	ctx := context.Background()

	// Miss: nothing cached yet.
	first, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cacheDir, "index-*.bin"))
	if len(files) != 1 {
		t.Fatalf("cache files after the first run: %v, want one", files)
	}
	cacheFile := files[0]

	// Hit: plant a symbol in the cached entry of main.go.
	data, err := os.ReadFile(cacheFile)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decodeCache(data, cacheVersion())
	if err != nil {
		t.Fatal(err)
	}
	f, _ := first.File("main.go")
	key := cacheKey(f.Blob, "go")
	if m.Entries[key] == nil {
		t.Fatalf("no cache entry %s (have %d entries)", key, len(m.Entries))
	}
	m.Entries[key].Symbols = append(m.Entries[key].Symbols, Symbol{Name: "FromCache", Kind: "function"})
	var buf bytes.Buffer
	encodeCache(&buf, cacheVersion(), m)
	if err := os.WriteFile(cacheFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := second.File("main.go"); len(f.Symbols) != 2 || f.Symbols[1].Name != "FromCache" {
		t.Errorf("second run symbols %v: the cache was not used", f.Symbols)
	}

	// Corruption: garbage in the file is ignored, reported, and replaced.
	if err := os.WriteFile(cacheFile, []byte(cacheMagic+"garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	logs = nil
	third, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first.Files, third.Files); diff != "" {
		t.Errorf("after corruption (-first +third)\n%s", diff)
	}
	if !strings.Contains(strings.Join(logs, "\n"), "rebuilding") {
		t.Errorf("corruption not reported; logs: %q", logs)
	}
	data, _ = os.ReadFile(cacheFile)
	if _, err := decodeCache(data, cacheVersion()); err != nil {
		t.Errorf("cache not rewritten after corruption: %v", err)
	}

	// NoCache: neither reads nor writes.
	os.Remove(cacheFile)
	os.Remove(filepath.Join(cacheDir, cacheTrimStamp))
	if _, err := New(ctx, &Options{Dir: dir, CacheDir: cacheDir, NoCache: true}); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(cacheDir, "*")); len(files) != 0 {
		t.Errorf("NoCache wrote %v", files)
	}
}

// gitCLI runs git in dir, skipping the test when git is not installed.
func gitCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e", "GIT_ALLOW_PROTOCOL=file")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestIndexGitLayouts indexes a linked worktree, a detached HEAD and a
// shallow clone made by the git CLI; a linked worktree shares the cache of
// its main work tree.
func TestIndexGitLayouts(t *testing.T) {
	main := txtartest.Repo(t, txtar.Parse([]byte(cacheScenario)))
	head := gitCLI(t, main, "rev-parse", "HEAD")
	// A second commit, so that the shallow clone really is shallow.
	os.WriteFile(filepath.Join(main, "more.go"), []byte("package main\n\nfunc More() {}\n"), 0o644)
	gitCLI(t, main, "add", "more.go")
	gitCLI(t, main, "commit", "-q", "-m", "more")

	linked := filepath.Join(t.TempDir(), "linked")
	gitCLI(t, main, "worktree", "add", "-q", "--detach", linked, head)
	os.WriteFile(filepath.Join(linked, "local.go"), []byte("package main\n"), 0o644)
	os.Mkdir(filepath.Join(linked, "empty"), 0o755)

	detached := t.TempDir()
	gitCLI(t, detached, "clone", "-q", main, ".")
	gitCLI(t, detached, "checkout", "-q", "--detach", head)

	shallow := t.TempDir()
	gitCLI(t, shallow, "clone", "-q", "--depth=1", "file://"+main, ".")
	if _, err := os.Stat(filepath.Join(shallow, ".git", "shallow")); err != nil {
		t.Fatalf("clone is not shallow: %v", err)
	}

	// A sparse checkout of the root only: util.py stays, sub/ is not checked out.
	sparse := t.TempDir()
	gitCLI(t, sparse, "clone", "-q", main, ".")
	os.MkdirAll(filepath.Join(sparse, "sub"), 0o755)
	os.WriteFile(filepath.Join(sparse, "sub", "x.go"), []byte("package sub\n"), 0o644)
	gitCLI(t, sparse, "add", "sub/x.go")
	gitCLI(t, sparse, "commit", "-q", "-m", "sub")
	// The classic way: `git sparse-checkout` sets extensions.worktreeConfig,
	// which go-git refuses (see the "unsupported extension" case).
	gitCLI(t, sparse, "config", "core.sparseCheckout", "true")
	os.WriteFile(filepath.Join(sparse, ".git", "info", "sparse-checkout"), []byte("/*\n!/sub/\n"), 0o644)
	gitCLI(t, sparse, "read-tree", "-mu", "HEAD")
	if _, err := os.Stat(filepath.Join(sparse, "sub", "x.go")); err == nil {
		t.Fatalf("sparse checkout left sub/x.go in place")
	}

	// A repository format go-git cannot open is indexed as a plain
	// directory, from its root.
	unsupported := t.TempDir()
	gitCLI(t, unsupported, "clone", "-q", main, ".")
	gitCLI(t, unsupported, "config", "extensions.worktreeConfig", "true")
	os.Mkdir(filepath.Join(unsupported, "empty"), 0o755)

	cacheDir := t.TempDir()
	for _, tc := range []struct {
		name, dir, head string
		files           []string
	}{
		{"main", main, "", []string{"main.go", "more.go", "util.py"}},
		{"linked worktree", linked, head, []string{"local.go", "main.go", "util.py"}},
		{"linked worktree subdirectory", filepath.Join(linked, "empty"), head, []string{"local.go", "main.go", "util.py"}},
		{"detached", detached, head, []string{"main.go", "util.py"}},
		{"shallow", shallow, "", []string{"main.go", "more.go", "util.py"}},
		{"sparse", sparse, "", []string{"main.go", "more.go", "util.py"}},
		{"unsupported extension", filepath.Join(unsupported, "empty"), "", []string{"main.go", "more.go", "util.py"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, err := New(context.Background(), &Options{Dir: tc.dir, CacheDir: cacheDir, Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range ix.Files {
				got = append(got, f.Path)
				if f.Path == "local.go" && f.Status != Untracked {
					t.Errorf("local.go status %v, want untracked", f.Status)
				}
			}
			if diff := cmp.Diff(tc.files, got); diff != "" {
				t.Errorf("files (-want +got)\n%s", diff)
			}
			if tc.name == "sparse" {
				want := []Skip{{Path: "sub/x.go", Reason: SkipSparse}}
				if diff := cmp.Diff(want, ix.Skipped); diff != "" {
					t.Errorf("skipped (-want +got)\n%s", diff)
				}
			}
			if tc.head != "" && ix.Head != tc.head {
				t.Errorf("Head = %s, want %s", ix.Head, tc.head)
			}
			if plain := tc.name == "unsupported extension"; (ix.Repository() == nil) != plain {
				t.Errorf("Repository() = %v, want nil: %v", ix.Repository(), plain)
			}
			if f, ok := ix.File("main.go"); !ok || len(f.Symbols) == 0 || f.Symbols[0].Name != "Hello" {
				t.Errorf("main.go symbols: %+v", f)
			}
			if _, err := ix.ReadFile("main.go"); err != nil {
				t.Errorf("ReadFile: %v", err)
			}
		})
	}
	// main, linked and their subdirectory share one cache file; the clones
	// are repositories of their own.
	files, _ := filepath.Glob(filepath.Join(cacheDir, "index-*.bin"))
	if len(files) != 5 {
		t.Errorf("cache files %d, want 5 (main+linked shared, detached, shallow, sparse, unsupported)", len(files))
	}
}

func TestIndexCancelled(t *testing.T) {
	dir := txtartest.Repo(t, txtar.Parse([]byte(cacheScenario)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ix, err := New(ctx, &Options{Dir: dir, NoCache: true})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("New on a cancelled context = %v, %v; want context.Canceled", ix, err)
	}
}

func TestIndexBadDir(t *testing.T) {
	for _, dir := range []string{filepath.Join(t.TempDir(), "missing"), "cache_test.go"} {
		if _, err := New(context.Background(), &Options{Dir: dir, NoCache: true}); err == nil {
			t.Errorf("New(%s) succeeded, want an error", dir)
		}
	}
}

// TestIndexStatFastPath shows that a tracked file whose size and mtime
// match its git index entry is not read: its content is changed behind
// git's back (same size, same mtime) and the index still reports the
// committed blob, as git itself would. A change of size is detected.
func TestIndexStatFastPath(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	write("same.go", "package a // one\n")
	write("grown.go", "package a\n")
	wt, _ := repo.Worktree()
	for _, name := range []string{"same.go", "grown.go"} {
		if _, err := wt.Add(name); err != nil {
			t.Fatal(err)
		}
	}
	sig := &object.Signature{Name: "t", Email: "t@e", When: past}
	if _, err := wt.Commit("c", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	committed := hashBlob([]byte("package a // one\n"))
	write("same.go", "package a // two\n") // same size, same mtime
	write("grown.go", "package a\n\nfunc F() {}\n")

	ix, err := New(context.Background(), &Options{Dir: dir, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	same, _ := ix.File("same.go")
	if same.Blob != committed || same.Status != 0 {
		t.Errorf("same.go: blob %s status %v; want the index's blob %s, clean (not read)", same.Blob, same.Status, committed)
	}
	grown, _ := ix.File("grown.go")
	if want := hashBlob([]byte("package a\n\nfunc F() {}\n")); grown.Blob != want || grown.Status != Modified {
		t.Errorf("grown.go: blob %s status %v; want %s, modified", grown.Blob, grown.Status, want)
	}
}

// TestCacheLazy: a loaded entry is decoded when asked for, written back
// as it was when not (a stale one too, within the stale bound), and one
// that does not decode is a miss that a new entry replaces.
func TestCacheLazy(t *testing.T) {
	dir := t.TempDir()
	good := &cacheEntry{Lang: "go", Tokens: 7, Symbols: []Symbol{{Name: "F", Kind: "function", Start: 1, End: 2}}, Refs: []string{"x"}}
	stale := &cacheEntry{Lang: "python", Tokens: 3}
	var buf bytes.Buffer
	if err := encodeCache(&buf, "v", &cacheData{
		Entries: map[string]*cacheEntry{"good/go": good, "stale/python": stale},
		Raw:     map[string][]byte{"bad/go": []byte("\x02go\x00\x07\xff")}, // a symbol count past the end
	}); err != nil {
		t.Fatal(err)
	}
	c := openCache(dir, "repo", "v", t.Logf)
	if err := os.WriteFile(c.path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c = openCache(dir, "repo", "v", t.Logf)
	if len(c.old.Raw) != 3 || len(c.old.Entries) != 0 {
		t.Fatalf("loaded %d raw and %d decoded entries, want 3 and 0", len(c.old.Raw), len(c.old.Entries))
	}
	if e, ok := c.get("good/go"); !ok || !cmp.Equal(e, good) {
		t.Errorf("get(good/go) = %+v, %v; want %+v", e, ok, good)
	}
	if len(c.decoded) != 1 {
		t.Errorf("%d entries decoded after one get, want 1", len(c.decoded))
	}
	if e, ok := c.get("bad/go"); ok {
		t.Errorf("get(bad/go) = %+v: an entry that does not decode must be a miss", e)
	}
	fixed := &cacheEntry{Lang: "go", Tokens: 9}
	c.put("bad/go", fixed)
	if err := c.save(map[string]bool{"good/go": true, "bad/go": true}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decodeCache(data, "v")
	if err != nil {
		t.Fatalf("the saved cache does not decode: %v", err)
	}
	want := map[string]*cacheEntry{"good/go": good, "stale/python": stale, "bad/go": fixed}
	if diff := cmp.Diff(want, m.Entries); diff != "" {
		t.Errorf("saved entries (-want +got)\n%s", diff)
	}
}

// TestCacheStaleBound: a save keeps as many stale entries as are in use,
// and at least minStaleEntries, and every entry in use.
func TestCacheStaleBound(t *testing.T) {
	for _, tc := range []struct{ inUse, stale, want int }{
		{10, 100, 100},
		{10, minStaleEntries + 50, minStaleEntries},
		{minStaleEntries + 7, 2 * minStaleEntries, minStaleEntries + 8}, // in use: the 7 more and the new entry
	} {
		dir := t.TempDir()
		d := &cacheData{Raw: map[string][]byte{}}
		inUse := map[string]bool{}
		payload := appendEntry(nil, &cacheEntry{Lang: "go", Tokens: 1})
		for i := range tc.inUse + tc.stale {
			k := fmt.Sprintf("%08d/go", i)
			d.Raw[k] = payload
			if i < tc.inUse {
				inUse[k] = true
			}
		}
		var buf bytes.Buffer
		if err := encodeCache(&buf, "v", d); err != nil {
			t.Fatal(err)
		}
		c := openCache(dir, "repo", "v", t.Logf)
		if err := os.WriteFile(c.path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		c = openCache(dir, "repo", "v", t.Logf)
		c.put("new/go", &cacheEntry{Lang: "go"}) // a save writes only when something was added
		inUse["new/go"] = true
		if err := c.save(inUse); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(c.path)
		m, err := loadCache(data, "v")
		if err != nil {
			t.Fatal(err)
		}
		stale := 0
		for k := range m.Raw {
			if !inUse[k] {
				stale++
			}
		}
		for k := range inUse {
			if _, ok := m.Raw[k]; !ok {
				t.Errorf("in use %d, stale %d: entry %s in use was dropped", tc.inUse, tc.stale, k)
				break
			}
		}
		if stale != tc.want {
			t.Errorf("in use %d, stale %d: kept %d stale, want %d", tc.inUse, tc.stale, stale, tc.want)
		}
	}
}

// FuzzDecodeEntry: an entry's bytes, which a run decodes only when it
// needs the entry, decode or fail cleanly, and what decodes encodes back
// to bytes that decode to the same entry.
func FuzzDecodeEntry(f *testing.F) {
	f.Add(appendEntry(nil, &cacheEntry{Lang: "go", Tokens: 3, Symbols: []Symbol{{Name: "F", Kind: "function", Start: 1, End: 2, Signature: "func F()"}}, Refs: []string{"x"}}))
	f.Add(appendEntry(nil, &cacheEntry{NotUTF8: true, BadByte: 70000}))
	f.Add([]byte("\x02go\x00\x07\xff"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		e, err := decodeEntry(raw, map[string]string{})
		if err != nil {
			return
		}
		again, err := decodeEntry(appendEntry(nil, e), map[string]string{})
		if err != nil {
			t.Fatalf("re-encoded entry does not decode: %v", err)
		}
		if !cmp.Equal(e, again) {
			t.Fatalf("round trip: %+v, then %+v", e, again)
		}
	})
}

// BenchmarkCacheLoad opens a cache of 2,600 entries in use and 50,000
// stale ones (moby's worktrees at many commits, before the stale bound)
// and reads the entries in use: lazily, as openCache does, and decoding
// every entry, as the loader did before cache format 5.
func BenchmarkCacheLoad(b *testing.B) {
	const inUse, stale = 2600, 50000
	d := &cacheData{Entries: map[string]*cacheEntry{}}
	var syms []Symbol
	for i := range 12 {
		syms = append(syms, Symbol{Name: fmt.Sprintf("Func%d", i), Kind: "function", Start: i * 10, End: i*10 + 8, Signature: fmt.Sprintf("func Func%d(ctx context.Context, id string) error", i)})
	}
	refs := []string{"context", "Context", "errors", "New", "fmt", "Errorf", "strings", "TrimSpace"}
	for i := range inUse + stale {
		d.Entries[fmt.Sprintf("%040x/go", i)] = &cacheEntry{Lang: "go", Tokens: 900, Symbols: syms, Refs: refs}
	}
	var buf bytes.Buffer
	if err := encodeCache(&buf, "v", d); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	c := openCache(dir, "repo", "v", b.Logf)
	if err := os.WriteFile(c.path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("cache file: %d MB", buf.Len()>>20)
	b.Run("lazy", func(b *testing.B) {
		for b.Loop() {
			c := openCache(dir, "repo", "v", b.Logf)
			for i := range inUse {
				if _, ok := c.get(fmt.Sprintf("%040x/go", i)); !ok {
					b.Fatal("miss")
				}
			}
		}
	})
	b.Run("eager", func(b *testing.B) {
		for b.Loop() {
			data, err := os.ReadFile(c.path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := decodeCache(data, "v"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
