package slicer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/storage/memory"
)

// TestSelectLinkedFile: a link to a file of this repository (its remote)
// names the file and its line, like a stack frame, even when no word of
// the task is in it; the same link to another repository names nothing.
func TestSelectLinkedFile(t *testing.T) {
	var deep strings.Builder
	deep.WriteString("package store\n")
	for k := 0; k < 12; k++ {
		fmt.Fprintf(&deep, "\n// step%d does step %d of the pipeline.\nfunc step%d(xs []int) int {\n\tn := 0\n\tfor _, x := range xs {\n\t\tn += x * %d\n\t}\n\treturn n\n}\n", k, k, k, k+2)
	}
	files := map[string]string{
		"pkg/deep.go":    deep.String(),
		"pkg/timeout.go": "package store\n\n// Timeout is how long a request may wait before it is ignored.\nvar Timeout = 30\n\n// ignoredTimeouts counts requests whose timeout was ignored.\nfunc ignoredTimeouts() int { return Timeout }\n",
		"pkg/retry.go":   "package store\n\n// Retry retries after a timeout.\nfunc Retry() { _ = Timeout }\n",
	}
	lines := strings.Split(deep.String(), "\n")
	line := 0
	for k, l := range lines {
		if strings.HasPrefix(l, "func step7(") {
			line = k + 1
		}
	}
	task := fmt.Sprintf("Timeouts are ignored, see https://github.com/o/r/blob/abc123/pkg/deep.go#L%d-L%d", line, line+6)
	for _, tc := range []struct {
		remote string
		named  bool
	}{
		{"git@github.com:o/r.git", true},
		{"https://github.com/other/r.git", false},
	} {
		t.Run(tc.remote, func(t *testing.T) {
			repo, err := git.Init(memory.NewStorage(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{tc.remote}}); err != nil {
				t.Fatal(err)
			}
			ix, read := memIndex(t, files)
			sel, err := Select(context.Background(), ix, task, testCounter(t), &SelectOptions{Budget: 600, ReadFile: read, Repository: repo})
			if err != nil {
				t.Fatal(err)
			}
			first := sel.Files[0]
			shown := false
			for _, rg := range first.Ranges {
				shown = shown || (rg.Start <= line && line <= rg.End)
			}
			if got := first.Path == "pkg/deep.go" && shown; got != tc.named {
				t.Errorf("first file %s:%s; want pkg/deep.go with line %d first: %v", first.Path, formatRanges(first.Ranges), line, tc.named)
			}
		})
	}
}
