package history

import (
	"os"
	"testing"
)

// The JSON fixtures are indented the way json.Indent writes; Parse must
// notice, so that pruned output keeps their layout.
func TestIndentDetected(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		{"testdata/transcripts/tau-bench-airline-gpt4o-idx052-task2.json", " "},
		{"testdata/anthropic-tools.json", "  "},
		{"testdata/transcripts/marshmallow-1867.function_calling.traj", "  "},
		{"testdata/transcripts/codex-0.169-multiturn.jsonl", ""},
	}
	for _, tc := range tests {
		src, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := indentOf(src); got != tc.want {
			t.Errorf("indentOf(%s) = %q, want %q", tc.file, got, tc.want)
		}
	}
}
