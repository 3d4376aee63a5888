package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/split"
)

// DefaultReviewBudget is the review request size assumed for a staged
// diff when neither the command line nor review_budget sets one: a
// 32k-token request is the size teams commonly give a review step, well
// inside every current window.
const DefaultReviewBudget = 32000

// ReviewEstimate is how a diff splits into review requests.
type ReviewEstimate struct {
	Budget            int `json:"budget"`
	DiffTokens        int `json:"diff_tokens"`
	InstructionTokens int `json:"instruction_tokens"`
	Files             int `json:"files"`
	Parts             int `json:"parts"`
	// MinPart and MaxPart are the smallest and largest rendered parts.
	MinPart int `json:"min_part_tokens,omitempty"`
	MaxPart int `json:"max_part_tokens,omitempty"`
}

// Review cuts diff with split.Split, as "ctxtrim split" would for a review
// (instructions repeated in every part, each part within limit counted
// exactly by c), and reports how many parts it takes. An empty diff takes
// none. Its error wraps split's when no part can fit.
func Review(ctx context.Context, diff, instructions string, limit int, c budget.Counter) (*ReviewEstimate, error) {
	if c == nil {
		return nil, budget.ErrNilCounter
	}
	est := &ReviewEstimate{Budget: limit, InstructionTokens: c.Count(instructions),
		DiffTokens: c.Count(diff), Files: strings.Count("\n"+diff, "\ndiff --git ")}
	if strings.TrimSpace(diff) == "" {
		return est, nil
	}
	res, err := split.Split(ctx, split.Input{Kind: split.Diff, Sources: []split.Source{{Name: "staged", Text: diff}}},
		c, &split.Options{Budget: limit, Instructions: instructions})
	if err != nil {
		return nil, fmt.Errorf("split the staged diff: %w", err)
	}
	est.Parts = len(res.Parts)
	for i, p := range res.Parts {
		if i == 0 || p.Tokens < est.MinPart {
			est.MinPart = p.Tokens
		}
		est.MaxPart = max(est.MaxPart, p.Tokens)
	}
	return est, nil
}
