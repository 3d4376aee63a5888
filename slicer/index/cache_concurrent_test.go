package index

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
	"golang.org/x/tools/txtar"
)

// cacheWriterEnv tells the test binary, started again by
// TestCacheConcurrentProcesses, to act as one indexing process:
// "repo dir|cache dir|writer id".
const cacheWriterEnv = "CTXTRIM_TEST_CACHE_WRITER"

// cacheWriterRounds is how many times each process adds a file and
// indexes: every round misses the cache once and so rewrites it.
const cacheWriterRounds = 8

// TestCacheConcurrentProcesses runs several indexing processes on one
// repository and one cache directory at once, each adding files (so each
// run rewrites the cache file while the others read and rewrite it). No
// process may fail, see a corrupt cache or lose its own results; the cache
// left behind must decode, with no temporary file beside it.
func TestCacheConcurrentProcesses(t *testing.T) {
	if os.Getenv(cacheWriterEnv) != "" {
		t.Skip("running as a cache writer")
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := txtartest.Repo(t, txtar.Parse([]byte(cacheScenario)))
	cacheDir := t.TempDir()
	const procs = 4
	var wg sync.WaitGroup
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestCacheWriterProcess$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), cacheWriterEnv+"="+dir+"|"+cacheDir+"|"+strconv.Itoa(i))
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range procs {
		if errs[i] != nil || !strings.Contains(string(outs[i]), "--- PASS: TestCacheWriterProcess") {
			t.Errorf("writer %d: %v\n%s", i, errs[i], outs[i])
		}
	}

	left, _ := filepath.Glob(filepath.Join(cacheDir, "index-*")) // and the trim stamp
	if len(left) != 1 || !strings.HasSuffix(left[0], ".bin") {
		t.Fatalf("cache directory holds %v, want one index-*.bin", left)
	}
	data, err := os.ReadFile(left[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeCache(data, cacheVersion()); err != nil {
		t.Fatalf("cache left behind: %v", err)
	}
	var logs []string
	ix, err := New(context.Background(), &Options{Dir: dir, CacheDir: cacheDir,
		Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) > 0 {
		t.Errorf("final index logged %q", logs)
	}
	for i := range procs {
		for r := range cacheWriterRounds {
			p := fmt.Sprintf("w%d_%d.go", i, r)
			if f, ok := ix.File(p); !ok || len(f.Symbols) != 1 || f.Symbols[0].Name != writerFunc(i, r) {
				t.Errorf("%s: %+v, want one symbol %s", p, f, writerFunc(i, r))
			}
		}
	}
}

func writerFunc(id, round int) string { return fmt.Sprintf("Writer%dRound%d", id, round) }

// TestCacheWriterProcess is one process of TestCacheConcurrentProcesses;
// on its own it skips.
func TestCacheWriterProcess(t *testing.T) {
	spec := os.Getenv(cacheWriterEnv)
	if spec == "" {
		t.Skip("a helper process of TestCacheConcurrentProcesses")
	}
	parts := strings.Split(spec, "|")
	dir, cacheDir := parts[0], parts[1]
	id, _ := strconv.Atoi(parts[2])
	for r := range cacheWriterRounds {
		name := fmt.Sprintf("w%d_%d.go", id, r)
		// Written whole under a temporary name, so that the other
		// processes never index half a file under this name.
		tmp := filepath.Join(dir, name+".part")
		if err := os.WriteFile(tmp, []byte("package main\n\nfunc "+writerFunc(id, r)+"() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		var logs []string
		var mu sync.Mutex
		ix, err := New(context.Background(), &Options{Dir: dir, CacheDir: cacheDir, Logf: func(f string, a ...any) {
			mu.Lock()
			logs = append(logs, fmt.Sprintf(f, a...))
			mu.Unlock()
		}})
		if err != nil {
			t.Fatalf("round %d: %v", r, err)
		}
		for _, l := range logs {
			if strings.Contains(l, "cache") {
				t.Errorf("round %d: %s", r, l)
			}
		}
		for q := 0; q <= r; q++ {
			p := fmt.Sprintf("w%d_%d.go", id, q)
			if f, ok := ix.File(p); !ok || len(f.Symbols) != 1 || f.Symbols[0].Name != writerFunc(id, q) {
				t.Errorf("round %d: %s: %+v, want one symbol %s", r, p, f, writerFunc(id, q))
			}
		}
	}
}
