package split

import (
	"fmt"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/ctxtrim/ctxtrim/budget"
)

// maxRounds bounds the render-and-check rounds of run; each round after the
// first lowers the capacity by the last overshoot, so two or three suffice.
const maxRounds = 8

// overhead returns the largest token cost of a part with an empty payload
// among parts 1..n (the digits of i and n change it).
func (s *splitter) overhead(n int) (int, error) {
	worst := 0
	for _, i := range []int{1, n} {
		_, t, err := s.render(partHeader(i, n))
		if err != nil {
			return 0, err
		}
		worst = max(worst, t)
	}
	return worst, nil
}

func (s *splitter) run() (*Result, error) {
	limit := s.opts.Budget
	margin, n := 0, 1
	var parts []Part
	var ch []chunk
	var starts []int
	for round := 0; ; round++ {
		if round == maxRounds {
			return nil, fmt.Errorf("could not fit the parts in %d rounds (margin %d tokens)", maxRounds, margin)
		}
		over, err := s.overhead(n)
		if err != nil {
			return nil, err
		}
		capacity := limit - over - margin
		if capacity <= 0 {
			return nil, &budget.TaskTooLargeError{What: "the instructions and part header", Need: over + margin, Budget: limit, Err: ErrNoFit}
		}
		// The number of parts comes from whole units (coarse chunks); the
		// cuts are chosen among fine chunks, so a part may end inside a
		// file that fits when that balances the parts.
		coarse, err := s.chunks(capacity, false)
		if err != nil {
			return nil, err
		}
		nCoarse := minParts(coarse, capacity)
		ch, err = s.chunks(capacity, true)
		if err != nil {
			return nil, err
		}
		ch = coarsen(ch, capacity)
		starts = partition(ch, capacity, nCoarse)
		s.logf("split: round %d: capacity %d, %d coarse chunks need %d parts, %d fine chunks give %d", round, capacity, len(coarse), nCoarse, len(ch), len(starts))
		got := len(starts)
		if s.opts.MaxParts > 0 && got > s.opts.MaxParts {
			total := 0
			for _, c := range ch {
				total += c.tokens
			}
			return nil, fmt.Errorf("%w: the input needs %d parts of at most %d tokens, %d more than the maximum of %d "+
				"(%d tokens of input, %d per part fit; about %d tokens too many)",
				ErrTooManyParts, got, limit, got-s.opts.MaxParts, s.opts.MaxParts, total, capacity, total-capacity*s.opts.MaxParts)
		}
		if got > 0 && len(strconv.Itoa(got)) != len(strconv.Itoa(n)) {
			if o2, err := s.overhead(got); err != nil {
				return nil, err
			} else if o2 > over {
				s.logf("split: %d parts change the header cost from %d to %d tokens; repacking", got, over, o2)
				n = got
				continue
			}
		}
		n = got
		parts, err = s.renderParts(ch, starts)
		if err != nil {
			return nil, err
		}
		worst, at := 0, 0
		for i, p := range parts {
			if p.Tokens-limit > worst {
				worst, at = p.Tokens-limit, i
			}
		}
		if worst <= 0 {
			break
		}
		s.logf("split: part %d came out %d tokens over the limit (pieces were counted apart); repacking", at+1, worst)
		margin += worst
	}
	res := &Result{Parts: parts}
	if s.opts.Lazy {
		res.render = func(i int) (Part, error) {
			p := parts[i]
			text, _, err := s.renderPart(ch, starts, i, false)
			if err != nil {
				return p, err
			}
			p.Text, p.Payload = text.text, text.payload
			return p, nil
		}
	}
	if s.opts.Reduce && len(parts) > 0 {
		r, err := s.reducePart(len(parts))
		if err != nil {
			return nil, err
		}
		res.Reduce = r
	}
	over := 0
	if len(parts) > 0 {
		var err error
		if over, err = s.overhead(len(parts)); err != nil {
			return nil, err
		}
	}
	res.Manifest = s.manifest(ch, starts, res, over)
	return res, nil
}

// renderParts renders and counts every part, in parallel.
func (s *splitter) renderParts(ch []chunk, starts []int) ([]Part, error) {
	n := len(starts)
	parts := make([]Part, n)
	g, ctx := errgroup.WithContext(s.ctx)
	g.SetLimit(s.par)
	for i := range n {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			r, segs, err := s.renderPart(ch, starts, i, true)
			if err != nil {
				return err
			}
			parts[i] = Part{Index: i + 1, Of: n, Tokens: r.tokens, Segments: segs}
			if !s.opts.Lazy {
				parts[i].Text, parts[i].Payload = r.text, r.payload
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return parts, nil
}

// rendered is one rendered part.
type rendered struct {
	text, payload string
	tokens        int
}

// renderPart renders part i of the parts starting at starts, and counts
// it when count is set.
func (s *splitter) renderPart(ch []chunk, starts []int, i int, count bool) (rendered, []Segment, error) {
	n := len(starts)
	end := len(ch)
	if i+1 < n {
		end = starts[i+1]
	}
	payload, segs := s.payload(ch, starts[i], end)
	text, tokens, err := s.renderAs(partHeader(i+1, n)+payload, count)
	return rendered{text, payload, tokens}, segs, err
}

// reducePart renders the merge part for n parts.
func (s *splitter) reducePart(n int) (*Part, error) {
	body := s.opts.ReduceInstructions
	if body == "" {
		body = fmt.Sprintf(defaultReduce, n)
	}
	payload := body + "\n\n" + ReducePlaceholder + "\n"
	text, tokens, err := s.render(reduceHeader(n) + payload)
	if err != nil {
		return nil, err
	}
	if tokens > s.opts.Budget {
		return nil, fmt.Errorf("%w: the reduce part takes %d tokens, %d over the budget of %d",
			ErrNoFit, tokens, tokens-s.opts.Budget, s.opts.Budget)
	}
	return &Part{Index: n + 1, Of: n, Text: text, Payload: payload, Tokens: tokens}, nil
}
