package slicer

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestMatchMentionRules states each rule of matchMentions as a formula
// over its strength constant: the path rules in order (the first that
// finds a file decides), then names as stems and symbols.
func TestMatchMentionRules(t *testing.T) {
	ix, _ := memIndex(t, map[string]string{
		"a/pkg/retry/retry.go":   "package retry\n\ntype Client struct{}\n\nfunc (c *Client) Send() {}\n",
		"a/pkg/retry/backoff.go": "package retry\n\nfunc Backoff() {}\n",
		"cmd/retry.go":           "package main\n\nfunc main() {}\n",
	})
	lk := newLookup(ix)
	type target struct {
		Score    float64
		Explicit bool
		Lines    []int
	}
	const (
		retry   = "a/pkg/retry/retry.go"
		backoff = "a/pkg/retry/backoff.go"
		cmdMain = "cmd/retry.go"
	)
	dir := mentionDir / math.Sqrt(2)
	for _, tc := range []struct {
		name string
		m    mentions
		want map[string]target
	}{
		{"full path", mentions{Paths: []pathMention{{Path: retry}}},
			map[string]target{retry: {mentionFullPath, true, nil}}},
		{"frame", mentions{Paths: []pathMention{{Path: retry, Line: 3, Frame: true}}},
			map[string]target{retry: {mentionFrame, true, []int{3}}}},
		{"path ends with the file's", mentions{Paths: []pathMention{{Path: "/abs/checkout/" + retry}}},
			map[string]target{retry: {mentionFullPath, true, nil}}},
		{"file's path ends with the path", mentions{Paths: []pathMention{{Path: "pkg/retry/retry.go"}}},
			map[string]target{retry: {mentionFullPath, true, nil}}},
		{"file name, split", mentions{Paths: []pathMention{{Path: "retry.go"}}},
			map[string]target{retry: {mentionBaseName / 2, true, nil}, cmdMain: {mentionBaseName / 2, true, nil}}},
		{"file name in a frame", mentions{Paths: []pathMention{{Path: "x/retry.go", Line: 5, Frame: true}}},
			map[string]target{retry: {mentionFrame / 2, true, []int{5}}, cmdMain: {mentionFrame / 2, true, []int{5}}}},
		{"directory", mentions{Paths: []pathMention{{Path: "a/pkg/retry"}}},
			map[string]target{retry: {dir, false, nil}, backoff: {dir, false, nil}}},
		{"directory suffix", mentions{Paths: []pathMention{{Path: "pkg/retry"}}},
			map[string]target{retry: {dir, false, nil}, backoff: {dir, false, nil}}},
		{"nothing", mentions{Paths: []pathMention{{Path: "pkg/none"}}}, map[string]target{}},
		{"scoped symbol and its qualifier", extractMentions("Client.Send fails"),
			map[string]target{retry: {mentionSymbol + scopedSymbolBoost*mentionSymbol, false, []int{3, 5}}}},
		{"plain word: stem and word", extractMentions("the Backoff waits"),
			map[string]target{backoff: {mentionStem + mentionWord, false, nil}}},
		{"call in a code block", extractMentions("waits\n```go\nBackoff()\n```\n"),
			map[string]target{backoff: {codeBlockWeight*mentionStem + codeBlockWeight*mentionSymbol, false, []int{3}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]target{}
			for i, mt := range matchMentions(ix, lk, &query{m: tc.m}, nil) {
				got[ix.Files[i].Path] = target{mt.score, mt.explicit, mt.lines}
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestExtractMentionsOrder: Paths lists Python frames, then other
// frames, then paths and file names; a path seen again takes the first
// line given to it, and keeps its place.
func TestExtractMentionsOrder(t *testing.T) {
	m := extractMentions("see docs/a.md and b.go; b.go:7 then File \"c.py\", line 2")
	want := []pathMention{
		{Path: "c.py", Line: 2, Frame: true},
		{Path: "b.go", Line: 7, Frame: true},
		{Path: "docs/a.md"},
	}
	if diff := cmp.Diff(want, m.Paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}
