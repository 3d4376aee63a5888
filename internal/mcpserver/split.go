package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxtrim/ctxtrim/split"
)

// maxManifestItems is how many items per part the manifest lists before
// it is shortened to fit the client (halved until it does).
const maxManifestItems = 64

// SplitInput is the input of split_task.
type SplitInput struct {
	Diff         string   `json:"diff,omitempty" jsonschema:"a unified diff to split (cut by files and hunks; every part is a valid diff)"`
	Text         string   `json:"text,omitempty" jsonschema:"a text to split (cut by sections, paragraphs, lines)"`
	Range        string   `json:"range,omitempty" jsonschema:"split the diff between two commits of repo: REV..REV, or REV...REV from their merge base"`
	Staged       bool     `json:"staged,omitempty" jsonschema:"split the staged changes of repo (HEAD to the git index)"`
	Files        []string `json:"files,omitempty" jsonschema:"split the files of repo matching these doublestar globs (ignored and binary files left out)"`
	Repo         string   `json:"repo,omitempty" jsonschema:"repository for range, staged and files; default: the client's root, else the server's working directory"`
	Instructions string   `json:"instructions,omitempty" jsonschema:"instructions repeated at the top of every part"`
	Budget       int      `json:"budget,omitempty" jsonschema:"tokens per part; default: 80% of what this client accepts (8000 for Codex, 16000 for Claude Code)"`
	Model        string   `json:"model,omitempty" jsonschema:"model whose tokenizer counts the parts and whose window bounds the budget; default: the client's"`
	Part         int      `json:"part,omitempty" jsonschema:"return the text of this part (1-based); 0 or absent returns the manifest"`
}

// SplitOutput is the result of split_task.
type SplitOutput struct {
	Parts      int           `json:"parts" jsonschema:"how many parts the input takes"`
	Budget     int           `json:"budget" jsonschema:"tokens per part"`
	Kind       string        `json:"kind" jsonschema:"diff, files or text"`
	InputBytes int           `json:"input_bytes"`
	Tokens     PartTokens    `json:"tokens" jsonschema:"token counts of the parts"`
	Manifest   []PartSummary `json:"manifest,omitempty" jsonschema:"which part holds what, when no part was asked for"`
	Part       *PartText     `json:"part,omitempty" jsonschema:"the part asked for"`
}

// PartTokens summarises the token counts of the parts.
type PartTokens struct {
	Min    int `json:"min"`
	Median int `json:"median"`
	Max    int `json:"max"`
	Total  int `json:"total"`
}

// PartSummary says what one part holds.
type PartSummary struct {
	Part   int      `json:"part"`
	Tokens int      `json:"tokens"`
	Items  []string `json:"items" jsonschema:"source:first-last line (whole files marked whole), in order"`
	More   int      `json:"more,omitempty" jsonschema:"items not listed, to keep the manifest within the client's limit"`
}

// PartText is one part, ready to send as a request.
type PartText struct {
	Index  int    `json:"index"`
	Of     int    `json:"of"`
	Tokens int    `json:"tokens" jsonschema:"exact tokens of text"`
	Text   string `json:"text" jsonschema:"the instructions, a [part i of n] header and the part's share of the input"`
}

const splitDescription = `Cut an input too large for one request into parts that each fit a token budget, counted exactly,
losing nothing: a diff (inline, a commit range or the staged changes; cut by files and hunks, every part a
valid diff), files matching globs (cut between definitions) or a text (cut by sections and paragraphs).
Instructions, if given, are repeated in every part. Without part, returns the manifest (how many parts,
which files and lines each holds); with part = i, returns part i's text to work on, one call per part.
Parts are the same on every call with the same input. The default budget per part is 80% of what this
client accepts; a part whose text does not fit the client's limit is an error: pass a smaller budget.`

func (s *Server) addSplit() {
	addTool(s, &mcp.Tool{Name: "split_task", Title: "Split an oversized task", Description: splitDescription}, s.splitTask)
}

func (s *Server) splitTask(ctx context.Context, req *mcp.CallToolRequest, in SplitInput) (SplitOutput, string, error) {
	lim := s.clientLimit(req)
	cn, err := s.counting(in.Model, "", lim)
	if err != nil {
		return SplitOutput{}, "", err
	}
	limit, err := budgetFor(in.Budget, cn, lim, splitShare)
	if err != nil {
		return SplitOutput{}, "", err
	}
	if in.Part < 0 {
		return SplitOutput{}, "", fmt.Errorf("part %d: parts are numbered from 1", in.Part)
	}
	input, err := s.splitInput(ctx, req, in)
	if err != nil {
		return SplitOutput{}, "", err
	}
	res, err := split.Split(ctx, input, cn.c, &split.Options{Budget: limit, Instructions: in.Instructions, Model: cn.model})
	if err != nil {
		return SplitOutput{}, "", err
	}
	m := res.Manifest
	out := SplitOutput{Parts: len(res.Parts), Budget: limit, Kind: m.Kind, InputBytes: m.InputBytes,
		Tokens: PartTokens{Min: m.Tokens.Min, Median: m.Tokens.Median, Max: m.Tokens.Max, Total: m.Tokens.Total}}
	if in.Part > 0 {
		if in.Part > len(res.Parts) {
			return SplitOutput{}, "", fmt.Errorf("part %d: the input has %d parts", in.Part, len(res.Parts))
		}
		p := res.Parts[in.Part-1]
		out.Part = &PartText{Index: p.Index, Of: p.Of, Tokens: p.Tokens, Text: p.Text}
		_, size, err := measure(out, cn.c)
		if err != nil {
			return SplitOutput{}, "", err
		}
		if size > lim.maxBytes {
			return SplitOutput{}, "", fmt.Errorf("%w: part %d takes %d bytes as JSON, over this client's limit of %d; split with a smaller budget (now %d tokens)",
				errResultTooLarge, in.Part, size, lim.maxBytes, limit)
		}
		return out, p.Text, nil
	}
	for items := maxManifestItems; ; items /= 2 {
		out.Manifest = summarize(m, items)
		js, err := encodeJSON(out)
		if err != nil {
			return SplitOutput{}, "", err
		}
		if len(js) <= lim.maxBytes {
			return out, "", nil
		}
		if items == 0 {
			return SplitOutput{}, "", fmt.Errorf("%w: the manifest of %d parts takes %d bytes as JSON even without items, over this client's limit of %d; split with a larger budget",
				errResultTooLarge, len(res.Parts), len(js), lim.maxBytes)
		}
	}
}

// summarize lists at most items items per part of m.
func summarize(m split.Manifest, items int) []PartSummary {
	out := make([]PartSummary, 0, len(m.Parts))
	for _, p := range m.Parts {
		ps := PartSummary{Part: p.Part, Tokens: p.Tokens, Items: []string{}}
		for i, it := range p.Items {
			if i == items {
				ps.More = len(p.Items) - items
				break
			}
			desc := fmt.Sprintf("%s:%d-%d", it.Source, it.Lines[0], it.Lines[1])
			if it.Whole {
				desc = it.Source + " (whole)"
			}
			ps.Items = append(ps.Items, desc)
		}
		out = append(out, ps)
	}
	return out
}

// splitInput builds split's input from exactly one of the sources.
func (s *Server) splitInput(ctx context.Context, req *mcp.CallToolRequest, in SplitInput) (split.Input, error) {
	n := 0
	for _, set := range []bool{in.Diff != "", in.Text != "", in.Range != "", in.Staged, len(in.Files) > 0} {
		if set {
			n++
		}
	}
	if n != 1 {
		return split.Input{}, fmt.Errorf("pass exactly one of diff, text, range, staged and files (got %d)", n)
	}
	switch {
	case in.Diff != "":
		if !split.LooksLikeDiff(in.Diff) {
			return split.Input{}, errors.New("diff does not look like a unified diff (no ---/+++ or @@ lines); pass it as text instead")
		}
		return split.Input{Kind: split.Diff, Sources: []split.Source{{Name: "diff", Text: in.Diff}}}, nil
	case in.Text != "":
		if !utf8.ValidString(in.Text) {
			return split.Input{}, errors.New("text is not valid UTF-8")
		}
		return split.Input{Kind: split.Text, Sources: []split.Source{{Name: "text", Text: in.Text}}}, nil
	}
	dir, err := s.repoDir(ctx, req, in.Repo)
	if err != nil {
		return split.Input{}, err
	}
	switch {
	case in.Range != "":
		text, err := split.RangeDiff(dir, in.Range)
		if errors.Is(err, split.ErrBadRange) {
			return split.Input{}, fmt.Errorf("range wants REV..REV or REV...REV, got %q", in.Range)
		}
		if err != nil {
			return split.Input{}, err
		}
		if strings.TrimSpace(text) == "" {
			return split.Input{}, fmt.Errorf("range %s: no changes", in.Range)
		}
		return split.Input{Kind: split.Diff, Sources: []split.Source{{Name: in.Range, Text: text}}}, nil
	case in.Staged:
		text, err := split.StagedDiff(dir)
		if err != nil {
			return split.Input{}, err
		}
		if strings.TrimSpace(text) == "" {
			return split.Input{}, errors.New("staged: nothing is staged")
		}
		return split.Input{Kind: split.Diff, Sources: []split.Source{{Name: "staged", Text: text}}}, nil
	}
	input, _, err := split.ReadFiles(dir, in.Files, false)
	return input, err
}
