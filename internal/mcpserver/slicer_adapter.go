package mcpserver

import (
	"context"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// This file is the only one that reads slicer.Select's result.

// maxBest is how many of the best files left out a selection names.
const maxBest = 10

// selection is what select_context needs of a slicer selection.
type selection struct {
	prompt       string // the rendered markdown prompt
	promptTokens int    // its exact count
	files        []SelectedFile
	leftOut      LeftOut
	unmatched    []string // include patterns that match no file
	outline      bool     // nothing of the task is in the repository
}

// selectFiles runs the selection over ix for task with opts, counted by c.
func selectFiles(ctx context.Context, ix *index.Index, task string, c budget.Counter, opts *slicer.SelectOptions) (*selection, error) {
	// Explain keeps the best unselected candidates, which left_out names.
	o := *opts
	o.Explain = true
	sel, err := slicer.Select(ctx, ix, task, c, &o)
	if err != nil {
		return nil, err
	}
	return fromSelection(sel), nil
}

// fromSelection is the structured form of sel, from its own fields: the
// files in the prompt in its order (content, then signatures), each with
// the line ranges it shows and, given as excerpts, the definitions chosen;
// what was left out, the best of it by name.
func fromSelection(sel *slicer.Selection) *selection {
	out := &selection{prompt: sel.Text, promptTokens: sel.Tokens, files: []SelectedFile{}, leftOut: LeftOut{Files: sel.Omitted}, unmatched: sel.UnmatchedInclude, outline: sel.Unmatched}
	add := func(s slicer.Selected) {
		f := SelectedFile{Path: s.Path, Granularity: string(s.Granularity), Tokens: s.Tokens}
		for _, r := range s.Ranges {
			f.Ranges = append(f.Ranges, LineRange{Start: r.Start, End: r.End})
		}
		for _, u := range s.Units {
			f.Definitions = append(f.Definitions, Definition{Name: u.Name, Start: u.Range.Start, End: u.Range.End})
		}
		out.files = append(out.files, f)
	}
	for _, s := range sel.Files {
		add(s)
	}
	for _, s := range sel.Map {
		add(s)
	}
	for _, s := range sel.Candidates {
		if len(out.leftOut.Best) == maxBest {
			break
		}
		out.leftOut.Best = append(out.leftOut.Best, s.Path)
	}
	for _, s := range sel.Skipped {
		out.leftOut.Unreadable = append(out.leftOut.Unreadable, s.Path+": "+s.Reason)
	}
	return out
}
