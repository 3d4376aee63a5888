package split

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
)

// ReducePlaceholder stands, in the reduce part, for the partial answers the
// caller pastes in after running the other parts.
const ReducePlaceholder = "{{ANSWERS}}"

// defaultReduce is the reduce part's text when Options.ReduceInstructions
// is empty. %d is the number of parts.
const defaultReduce = "The input of the task in the instructions was too large for one request, so it was split into %d parts " +
	"and each part was answered on its own. The answers follow, each under a heading \"## Answer to part i of n\". " +
	"Merge them into one answer to the task, as if the whole input had been seen at once: combine related points, " +
	"drop duplicates, and keep every distinct finding."

// partHeader opens the user content of part i of n.
func partHeader(i, n int) string { return fmt.Sprintf("[part %d of %d]\n", i, n) }

// reduceHeader opens the reduce part.
func reduceHeader(n int) string {
	return fmt.Sprintf("[final part: merge the answers to parts 1-%d]\n", n)
}

// chatRequest is the body of an OpenAI Chat Completions request.
type chatRequest struct {
	Model string `json:"model,omitempty"`
	// MaxCompletionTokens caps the answer, as max_tokens does Anthropic's
	// (max_tokens is deprecated in Chat Completions and refused by the
	// reasoning models).
	MaxCompletionTokens int       `json:"max_completion_tokens"`
	Messages            []message `json:"messages"`
}

// messagesRequest is the body of an Anthropic Messages request.
type messagesRequest struct {
	Model     string    `json:"model,omitempty"`
	MaxTokens int       `json:"max_tokens"`
	System    string    `json:"system,omitempty"`
	Messages  []message `json:"messages"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// maxTokens is the answer cap of request parts: Options.MaxTokens, else
// DefaultMaxTokens.
func (s *splitter) maxTokens() int {
	if s.opts.MaxTokens > 0 {
		return s.opts.MaxTokens
	}
	return DefaultMaxTokens
}

// render returns the rendered form of a part whose user content is user,
// and its exact token count.
func (s *splitter) render(user string) (string, int, error) {
	return s.renderAs(user, true)
}

// renderAs is render; without count it only renders (a lazy Result's
// parts are rendered again to be written, their tokens known).
func (s *splitter) renderAs(user string, count bool) (string, int, error) {
	instr := strings.TrimRight(s.opts.Instructions, "\n")
	n := 0
	switch s.opts.Format {
	case OpenAI:
		req := chatRequest{Model: s.opts.Model, MaxCompletionTokens: s.maxTokens()}
		if instr != "" {
			req.Messages = append(req.Messages, message{"system", instr})
		}
		req.Messages = append(req.Messages, message{"user", user})
		text, err := marshal(req)
		if count {
			n = budget.CountChat(s.c, chatMessages(req.Messages), nil)
		}
		return text, n, err
	case Anthropic:
		req := messagesRequest{Model: s.opts.Model, MaxTokens: s.maxTokens(), System: instr}
		req.Messages = []message{{"user", user}}
		text, err := marshal(req)
		if count {
			n = budget.CountAnthropic(s.c, instr, chatMessages(req.Messages), nil)
		}
		return text, n, err
	}
	text := user
	if instr != "" {
		text = instr + "\n\n" + user
	}
	if count {
		n = s.c.Count(text)
	}
	return text, n, nil
}

// chatMessages converts request messages for budget's request accounting
// (budget.CountChat, the OpenAI cookbook's; budget.CountAnthropic, with
// the system prompt outside the messages as Anthropic sends it).
func chatMessages(msgs []message) []budget.Message {
	bm := make([]budget.Message, len(msgs))
	for i, m := range msgs {
		bm[i] = budget.Message{Role: m.Role, Content: m.Content}
	}
	return bm
}

func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode request: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// userContent extracts the user content from a rendered part.
func userContent(text string, f Format, instructions string) (string, error) {
	switch f {
	case OpenAI:
		var req chatRequest
		if err := json.Unmarshal([]byte(text), &req); err != nil {
			return "", fmt.Errorf("decode request: %w", err)
		}
		if len(req.Messages) == 0 {
			return "", fmt.Errorf("request has no messages")
		}
		return req.Messages[len(req.Messages)-1].Content, nil
	case Anthropic:
		var req messagesRequest
		if err := json.Unmarshal([]byte(text), &req); err != nil {
			return "", fmt.Errorf("decode request: %w", err)
		}
		if len(req.Messages) == 0 {
			return "", fmt.Errorf("request has no messages")
		}
		return req.Messages[len(req.Messages)-1].Content, nil
	}
	instr := strings.TrimRight(instructions, "\n")
	if instr == "" {
		return text, nil
	}
	u, ok := strings.CutPrefix(text, instr+"\n\n")
	if !ok {
		return "", fmt.Errorf("part does not start with the instructions")
	}
	return u, nil
}

// payloadBuilder accumulates a payload and its segments.
type payloadBuilder struct {
	b    strings.Builder
	segs []Segment
}

func (p *payloadBuilder) add(k SegmentKind, src, a, b int, t string) {
	if t == "" && k != Replaced {
		return
	}
	off := p.b.Len()
	p.b.WriteString(t)
	if n := len(p.segs); n > 0 && k == Verbatim {
		last := &p.segs[n-1]
		if last.Kind == Verbatim && last.Source == src && last.End == a && last.Offset+last.Len == off {
			last.Len += len(t)
			last.End = b
			return
		}
	}
	if k == Synthetic {
		src, a, b = -1, 0, 0
	}
	p.segs = append(p.segs, Segment{Kind: k, Offset: off, Len: len(t), Source: src, Start: a, End: b})
}

// payload renders the chunks [s, e) as part i.
func (s *splitter) payload(ch []chunk, s0, e int) (string, []Segment) {
	var p payloadBuilder
	p.add(Synthetic, 0, 0, 0, s.markBefore(ch[s0]))
	for k := s0; k < e; {
		c := ch[k]
		u := &s.units[c.unit]
		text := s.text(u)
		k2 := k + 1
		for k2 < e && ch[k2].unit == c.unit {
			k2++
		}
		switch u.kind {
		case unitText:
			if c.cont && k == s0 {
				p.add(Synthetic, 0, 0, 0, fragmentLead)
			}
			p.add(Verbatim, u.src, c.start, ch[k2-1].end, text[c.start:ch[k2-1].end])
		case unitFile:
			if c.start == u.start {
				p.add(Synthetic, 0, 0, 0, fileHeader(u.name))
			} else {
				p.add(Synthetic, 0, 0, 0, fileContinued(u.name, s.lineOf(u.src, c.start)))
			}
			if c.cont && k == s0 {
				p.add(Synthetic, 0, 0, 0, fragmentLead)
			}
			end := ch[k2-1].end
			p.add(Verbatim, u.src, c.start, end, text[c.start:end])
			if end == u.end && u.end > u.start && !strings.HasSuffix(text, "\n") {
				p.add(Synthetic, 0, 0, 0, "\n")
			}
		case unitDiffFile:
			if c.start >= u.headerEnd && c.hunk >= 0 {
				p.add(Synthetic, 0, 0, 0, text[u.start:u.headerEnd])
			}
			if c.cont && k == s0 {
				p.add(Synthetic, 0, 0, 0, fragmentLead)
			}
			for j := k; j < k2; {
				j2 := j + 1
				for j2 < k2 && ch[j2].hunk == ch[j].hunk {
					j2++
				}
				s.diffPiece(&p, u, ch[j].hunk, ch[j].start, ch[j2-1].end)
				j = j2
			}
		}
		k = k2
	}
	if ch[e-1].frag {
		p.add(Synthetic, 0, 0, 0, fragmentEnd)
	}
	return p.b.String(), p.segs
}

// diffPiece writes [a, b) of hunk hi of u: verbatim when it holds the whole
// hunk, else as a sub-hunk with a recomputed header.
func (s *splitter) diffPiece(p *payloadBuilder, u *unit, hi, a, b int) {
	text := s.text(u)
	if hi < 0 || !u.hunks[hi].valid {
		p.add(Verbatim, u.src, a, b, text[a:b])
		return
	}
	h := u.hunks[hi]
	if a <= h.start && b >= h.end || b <= h.headerEnd || a > h.start && a < h.headerEnd {
		// Whole hunk, or a fragment of a header line cut for being longer
		// than a part (such a part is not a valid diff anyway).
		p.add(Verbatim, u.src, a, b, text[a:b])
		return
	}
	if a < h.start {
		p.add(Verbatim, u.src, a, h.start, text[a:h.start])
	}
	bodyA := max(a, h.headerEnd)
	from := bodyA
	if from > 0 && text[from-1] != '\n' { // starts inside a line: that line belongs to the previous piece
		from = lineEnd(text, from)
	}
	oldBefore, newBefore := countSides(text, h.headerEnd, min(from, h.bodyEnd))
	oldN, newN := countSides(text, min(from, h.bodyEnd), min(b, h.bodyEnd))
	sub := "@@ -" + subRange(h.oldStart, h.oldCount, oldBefore, oldN) +
		" +" + subRange(h.newStart, h.newCount, newBefore, newN) + " @@" + h.section + "\n"
	if a <= h.start {
		p.add(Replaced, u.src, h.start, h.headerEnd, sub)
	} else {
		p.add(Synthetic, 0, 0, 0, sub)
	}
	p.add(Verbatim, u.src, bodyA, b, text[bodyA:b])
}

// countSides counts the old-side and new-side lines among the lines that
// start in [a, b), a being a line start.
func countSides(text string, a, b int) (old, nw int) {
	for i := a; i < b; i = lineEnd(text, i) {
		switch text[i] {
		case ' ', '\n', '\r':
			old++
			nw++
		case '-':
			old++
		case '+':
			nw++
		}
	}
	return old, nw
}

// subRange formats one side of a sub-hunk header: the hunk's first line on
// that side is start (or, when count is 0, the line before it).
func subRange(start, count, before, n int) string {
	first := start
	if count == 0 {
		first = start + 1
	}
	first += before
	if n == 0 {
		first--
	}
	return fmt.Sprintf("%d,%d", first, n)
}
