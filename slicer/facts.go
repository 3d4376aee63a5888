package slicer

import (
	"context"
	"time"

	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// facts are what a selection reads of the repository's git state beyond
// the index, read once, before ranking, as plain data no later stage
// changes: the history that recency and co-change come from, and the work
// tree's edits, which point the packer at the definitions they touch.
type facts struct {
	hist  *history // nil without a repository, or when it does not read
	edits edits
}

// readFacts reads the git facts the query needs and completes the query's
// mentions with them: a link to a file of one of the repository's remotes
// becomes a path mention (acceptLinks); a commit the task names is
// resolved to the files and lines it changed (resolveCommits), or
// dropped. It then reads the history (opts.HistoryCommits; -1: none) and
// the work tree's edits against HEAD (readEdits). A
// fact that cannot be read leaves the selection without it, said
// through logf: git never fails a selection.
func readFacts(ctx context.Context, ix *index.Index, opts *SelectOptions, q *query, logf func(string, ...any)) facts {
	t0 := time.Now()
	if len(q.m.Links) > 0 || len(q.m.Commits) > 0 {
		repo := selectRepository(ix, opts)
		if len(q.m.Links) > 0 {
			q.m.acceptLinks(remoteSet(repo))
		}
		if n := len(q.m.Commits); n > 0 {
			q.m.Commits = resolveCommits(ctx, ix.Root, repo, q.m.Commits)
			logf("named commits: %d of %d found in %v", len(q.m.Commits), n, time.Since(t0).Round(time.Millisecond))
		}
	}
	var f facts
	if opts.HistoryCommits >= 0 {
		h, err := loadHistory(ctx, ix, opts)
		if err != nil {
			logf("history: %v (ranking without it)", err)
		} else {
			f.hist = h
		}
	}
	logf("history: %v", time.Since(t0).Round(time.Millisecond))
	f.edits = readEdits(ctx, ix, !opts.NoRedact, logf)
	return f
}
