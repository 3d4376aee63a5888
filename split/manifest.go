package split

import (
	"sort"
)

// Manifest says which part holds which file, hunk and line range, with
// token counts. It is written as manifest.json.
type Manifest struct {
	Kind       string `json:"kind"`   // "diff", "files" or "text"
	Format     string `json:"format"` // "plain", "openai" or "anthropic"
	Budget     int    `json:"budget"` // tokens per part
	InputBytes int    `json:"input_bytes"`
	// Overhead is the most tokens a part takes with an empty payload:
	// instructions, "[part i of n]" header and request framing.
	Overhead int         `json:"overhead_tokens"`
	Tokens   Spread      `json:"tokens"` // of the parts, reduce part excluded
	Parts    []PartInfo  `json:"parts"`
	Reduce   *ReduceInfo `json:"reduce,omitempty"`
}

// Spread summarises the token counts of the parts.
type Spread struct {
	Min    int `json:"min"`
	Median int `json:"median"`
	Max    int `json:"max"`
	Total  int `json:"total"`
}

// PartInfo describes one part.
type PartInfo struct {
	Part         int    `json:"part"`   // 1-based
	Tokens       int    `json:"tokens"` // exact, rendered
	PayloadBytes int    `json:"payload_bytes"`
	Items        []Item `json:"items"`
}

// Item is one run of a part's payload taken from one file (or text).
type Item struct {
	Source string `json:"source"` // file path; the source name for a text; "(preamble)" for a diff's preamble
	Whole  bool   `json:"whole"`  // the whole file is in this part
	Bytes  [2]int `json:"bytes"`  // [start, end) in the input source (the diff, the file, the text)
	Lines  [2]int `json:"lines"`  // first and last line, 1-based, in the input source
	// Hunks is the first and last hunk (1-based) of a diff file held here,
	// of HunksOf; zero when the item holds only the file header.
	Hunks   [2]int `json:"hunks,omitzero"`
	HunksOf int    `json:"hunks_of,omitempty"`
	Tokens  int    `json:"tokens"` // the item's chunks counted apart
}

// ReduceInfo describes the reduce part.
type ReduceInfo struct {
	Part   int `json:"part"`
	Tokens int `json:"tokens"`
	// AnswerRoom is what remains of the budget for the pasted answers, and
	// AnswerRoomPerPart that divided by the number of parts: a max_tokens
	// for the parts' answers that keeps the reduce part within the budget.
	AnswerRoom        int `json:"answer_room"`
	AnswerRoomPerPart int `json:"answer_room_per_part"`
}

func (s *splitter) manifest(ch []chunk, starts []int, res *Result, overhead int) Manifest {
	m := Manifest{Kind: s.in.Kind.String(), Format: s.opts.Format.String(), Budget: s.opts.Budget, Parts: []PartInfo{}}
	for _, src := range s.in.Sources {
		m.InputBytes += len(src.Text)
	}
	var toks []int
	for pi, p := range res.Parts {
		payloadBytes := 0 // len(p.Payload), which Options.Lazy leaves out
		for _, g := range p.Segments {
			payloadBytes += g.Len
		}
		info := PartInfo{Part: p.Index, Tokens: p.Tokens, PayloadBytes: payloadBytes, Items: []Item{}}
		toks = append(toks, p.Tokens)
		end := len(ch)
		if pi+1 < len(starts) {
			end = starts[pi+1]
		}
		for k := starts[pi]; k < end; {
			c := ch[k]
			u := &s.units[c.unit]
			it := Item{Source: u.name, Bytes: [2]int{c.start, c.end}}
			for ; k < end && ch[k].unit == c.unit; k++ {
				it.Bytes[1] = ch[k].end
				it.Tokens += ch[k].tokens
				if h := ch[k].hunk; h >= 0 {
					if it.Hunks[0] == 0 {
						it.Hunks[0] = h + 1
					}
					it.Hunks[1] = h + 1
				}
			}
			it.Whole = it.Bytes[0] == u.start && it.Bytes[1] == u.end
			if u.kind == unitDiffFile {
				it.HunksOf = len(u.hunks)
				if it.Whole && len(u.hunks) > 0 {
					it.Hunks = [2]int{1, len(u.hunks)}
				}
			}
			it.Lines = [2]int{s.lineOf(u.src, it.Bytes[0]), s.lineOf(u.src, max(it.Bytes[1]-1, it.Bytes[0]))}
			info.Items = append(info.Items, it)
		}
		m.Parts = append(m.Parts, info)
	}
	m.Tokens = spread(toks)
	m.Overhead = overhead
	if r := res.Reduce; r != nil {
		room := s.opts.Budget - r.Tokens
		m.Reduce = &ReduceInfo{Part: r.Index, Tokens: r.Tokens, AnswerRoom: room, AnswerRoomPerPart: room / len(res.Parts)}
	}
	return m
}

// spread returns min, median (lower middle), max and total of v.
func spread(v []int) Spread {
	if len(v) == 0 {
		return Spread{}
	}
	s := append([]int(nil), v...)
	sort.Ints(s)
	total := 0
	for _, x := range s {
		total += x
	}
	return Spread{Min: s[0], Median: s[(len(s)-1)/2], Max: s[len(s)-1], Total: total}
}
