package slicer

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/slicer/index"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// historyRepo commits a few changes with go-git and returns the directory
// and the repository.
func historyRepo(t *testing.T) (string, *git.Repository) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	commits := [][]string{
		{"a.go", "b.go", "c.go"}, // root: skipped by both readers
		{"a.go", "a_test.go"},
		{"b.go"},
		{"a.go", "c.go"},
		{"dir/d.go", "a.go"},
	}
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for k, files := range commits {
		for _, f := range files {
			p := filepath.Join(dir, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("package x // "+string(rune('a'+k))+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := wt.Add(f); err != nil {
				t.Fatal(err)
			}
		}
		sig := &object.Signature{Name: "t", Email: "t@example.com", When: when.Add(time.Duration(k) * time.Hour)}
		if _, err := wt.Commit("c", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
			t.Fatal(err)
		}
	}
	return dir, repo
}

// TestHistoryReadersAgree checks that the git command and go-git give the
// same history, newest first, root commit left out.
func TestHistoryReadersAgree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: only the go-git reader is available")
	}
	dir, repo := historyRepo(t)
	ctx := context.Background()
	viaGoGit, err := readHistory(ctx, repo, 10)
	if err != nil {
		t.Fatal(err)
	}
	viaCLI, ok := readHistoryCLI(ctx, dir, 10)
	if !ok {
		t.Fatal("readHistoryCLI failed")
	}
	want := [][]string{{"a.go", "dir/d.go"}, {"a.go", "c.go"}, {"b.go"}, {"a.go", "a_test.go"}}
	if diff := cmp.Diff(want, viaGoGit.commits); diff != "" {
		t.Errorf("go-git history (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, viaCLI.commits); diff != "" {
		t.Errorf("git log history (-want +got):\n%s", diff)
	}
}

// TestRecencyAndCoChange states the git signals as formulas.
func TestRecencyAndCoChange(t *testing.T) {
	ix := &index.Index{Files: []index.File{{Path: "a.go"}, {Path: "a_test.go"}, {Path: "b.go"}, {Path: "c.go"}, {Path: "dir/d.go"}}}
	lk := newLookup(ix)
	h := &history{commits: [][]string{{"a.go", "dir/d.go"}, {"a.go", "c.go"}, {"b.go"}, {"a.go", "a_test.go"}}}
	e := func(d float64) float64 { return mathExp(-d / recencyScale) }
	rec := h.recency(lk, len(ix.Files))
	best := e(0) + e(1) + e(3) // a.go
	want := []float64{1, e(3) / best, e(2) / best, e(1) / best, e(0) / best}
	if diff := cmp.Diff(want, rec, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("recency (-want +got):\n%s", diff)
	}
	// Seed a.go (weight 1) changed in 3 commits: once each with d.go, c.go
	// and a_test.go, so each gets 1/3, normalized to 1.
	co := h.coChange(lk, len(ix.Files), []int{0}, []float64{1})
	if diff := cmp.Diff([]float64{0, 1, 0, 1, 1}, co, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("co-change (-want +got):\n%s", diff)
	}
}

func mathExp(x float64) float64 { return math.Exp(x) }
