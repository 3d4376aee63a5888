package split

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
)

// maxProblems bounds the problems Verify lists in its error.
const maxProblems = 10

// Verify checks res against in from the rendered parts alone:
//
//   - every part's Text, recounted with c, is within opts.Budget, and its
//     user content is its "[part i of n]" header followed by its Payload;
//   - the segments of every part tile its Payload, and each verbatim
//     segment equals the input bytes it names;
//   - a replaced segment is a hunk header standing for a hunk header;
//   - over all parts, the verbatim and replaced segments cover every byte
//     of every source exactly once: the union of the payloads is the input.
//
// It returns nil or an error listing the first problems found.
func Verify(in Input, res *Result, c budget.Counter, opts *Options) error {
	if c == nil {
		return budget.ErrNilCounter
	}
	if opts == nil {
		opts = &Options{}
	}
	s := newSplitter(context.Background(), in, c, opts)
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	type cover struct{ start, end, part int }
	covers := make([][]cover, len(in.Sources))
	check := func(p Part, header string) {
		user, err := userContent(p.Text, opts.Format, opts.Instructions)
		if err != nil {
			bad("part %d: %v", p.Index, err)
			return
		}
		if user != header+p.Payload {
			bad("part %d: the rendered text does not hold the header and payload", p.Index)
		}
		_, tokens, err := s.render(user)
		if err != nil {
			bad("part %d: %v", p.Index, err)
		}
		if tokens != p.Tokens {
			bad("part %d: recounted %d tokens, the part says %d", p.Index, tokens, p.Tokens)
		}
		if opts.Budget > 0 && tokens > opts.Budget {
			bad("part %d: %d tokens, %d over the budget of %d", p.Index, tokens, tokens-opts.Budget, opts.Budget)
		}
	}
	for i := range res.Parts {
		p, err := res.Part(i)
		if err != nil {
			bad("part %d: render: %v", i+1, err)
			continue
		}
		check(p, partHeader(p.Index, p.Of))
		off := 0
		for _, g := range p.Segments {
			if g.Offset != off || g.Len < 0 || g.Offset+g.Len > len(p.Payload) {
				bad("part %d: segment at payload offset %d does not follow the previous one (%d)", p.Index, g.Offset, off)
				break
			}
			off = g.Offset + g.Len
			if g.Kind == Synthetic {
				continue
			}
			if g.Source < 0 || g.Source >= len(in.Sources) || g.Start < 0 || g.End < g.Start || g.End > len(in.Sources[g.Source].Text) {
				bad("part %d: segment names source %d bytes [%d, %d), out of range", p.Index, g.Source, g.Start, g.End)
				continue
			}
			got, want := p.Payload[g.Offset:g.Offset+g.Len], in.Sources[g.Source].Text[g.Start:g.End]
			switch g.Kind {
			case Verbatim:
				if got != want {
					bad("part %d: payload bytes [%d, %d) differ from %s bytes [%d, %d)", p.Index, g.Offset, off, in.Sources[g.Source].Name, g.Start, g.End)
				}
			case Replaced:
				if !strings.HasPrefix(got, "@@ -") || !strings.HasPrefix(want, "@@ -") {
					bad("part %d: replaced segment at payload offset %d is not a hunk header", p.Index, g.Offset)
				}
			}
			covers[g.Source] = append(covers[g.Source], cover{g.Start, g.End, p.Index})
		}
		if off != len(p.Payload) {
			bad("part %d: segments cover %d of %d payload bytes", p.Index, off, len(p.Payload))
		}
	}
	if r := res.Reduce; r != nil {
		check(*r, reduceHeader(r.Of))
	}
	for i, cs := range covers {
		sort.Slice(cs, func(a, b int) bool { return cs[a].start < cs[b].start })
		at := 0
		for _, c := range cs {
			switch {
			case c.start > at:
				bad("%s: bytes [%d, %d) are in no part", in.Sources[i].Name, at, c.start)
			case c.start < at:
				bad("%s: bytes [%d, %d) are in more than one part (again in part %d)", in.Sources[i].Name, c.start, min(at, c.end), c.part)
			}
			at = max(at, c.end)
		}
		if n := len(in.Sources[i].Text); at < n {
			bad("%s: bytes [%d, %d) are in no part", in.Sources[i].Name, at, n)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	more := ""
	if len(problems) > maxProblems {
		more = fmt.Sprintf("\n(and %d more)", len(problems)-maxProblems)
		problems = problems[:maxProblems]
	}
	return errors.New("verify: " + strings.Join(problems, "\n") + more)
}
