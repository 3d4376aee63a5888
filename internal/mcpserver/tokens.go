package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// maxCountFile bounds a file count_tokens reads: it holds the file in
// memory. 64 MiB of text is about 16M tokens, far above any window.
const maxCountFile = 64 << 20

// CountInput is the input of count_tokens.
type CountInput struct {
	Text     string   `json:"text,omitempty" jsonschema:"text to count"`
	Paths    []string `json:"paths,omitempty" jsonschema:"files to count, absolute or relative to repo"`
	Repo     string   `json:"repo,omitempty" jsonschema:"directory relative paths start from; default: the client's root, else the server's working directory"`
	Model    string   `json:"model,omitempty" jsonschema:"model whose tokenizer to count with, e.g. gpt-5.5 (exact) or claude-opus-5-5 (an estimate); default: the client's"`
	Encoding string   `json:"encoding,omitempty" jsonschema:"tiktoken encoding to count with exactly: o200k_base or cl100k_base (instead of a model's)"`
}

// CountOutput is the result of count_tokens.
type CountOutput struct {
	Total    int         `json:"total" jsonschema:"tokens of the text and every readable file"`
	Encoding string      `json:"encoding" jsonschema:"the encoding counted with"`
	Model    string      `json:"model,omitempty" jsonschema:"the model whose tokenizer this is"`
	Estimate bool        `json:"estimate" jsonschema:"true when the model's own tokenizer is not public and counts are the encoding's times a safety factor"`
	Items    []CountItem `json:"items" jsonschema:"one per input: the text, then each path"`
}

// CountItem is the count of one input.
type CountItem struct {
	Source string `json:"source" jsonschema:"text, or the path as given"`
	Tokens int    `json:"tokens"`
	Bytes  int    `json:"bytes"`
	Error  string `json:"error,omitempty" jsonschema:"why the file was not counted (missing, a directory, binary, not UTF-8, too large)"`
}

const countDescription = `Count tokens exactly, as the model's tokenizer does: a text and/or files (paths absolute or relative
to the repository). With a model, its tokenizer (exact for OpenAI models, a documented over-estimate for
Claude, Gemini and others); with an encoding (o200k_base, cl100k_base), that encoding; by default this
client's. A file that cannot be counted (missing, binary, not UTF-8, over 64 MiB) is reported in its item
and the others are still counted. The result is a few hundred bytes.`

func (s *Server) addCount() {
	addTool(s, &mcp.Tool{Name: "count_tokens", Title: "Count tokens", Description: countDescription}, s.countTokens)
}

func (s *Server) countTokens(ctx context.Context, req *mcp.CallToolRequest, in CountInput) (CountOutput, string, error) {
	if in.Text == "" && len(in.Paths) == 0 {
		return CountOutput{}, "", errors.New("nothing to count: pass text, paths or both")
	}
	cn, err := s.counting(in.Model, in.Encoding, s.clientLimit(req))
	if err != nil {
		return CountOutput{}, "", err
	}
	out := CountOutput{Encoding: cn.encoding, Model: cn.model, Estimate: cn.estimate, Items: []CountItem{}}
	if in.Text != "" {
		n := cn.c.Count(in.Text)
		out.Items = append(out.Items, CountItem{Source: "text", Tokens: n, Bytes: len(in.Text)})
		out.Total += n
	}
	if len(in.Paths) > 0 {
		dir, err := s.repoDir(ctx, req, in.Repo)
		if err != nil {
			return CountOutput{}, "", err
		}
		for _, p := range in.Paths {
			it := CountItem{Source: p}
			full := p
			if !filepath.IsAbs(full) {
				full = filepath.Join(dir, filepath.FromSlash(p))
			}
			text, err := readText(full)
			if err != nil {
				it.Error = err.Error()
			} else {
				it.Tokens, it.Bytes = cn.c.Count(text), len(text)
				out.Total += it.Tokens
			}
			out.Items = append(out.Items, it)
		}
	}
	return out, "", nil
}

// readText reads a text file of at most maxCountFile bytes; a binary or
// non-UTF-8 file is an error saying so.
func readText(name string) (string, error) {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return "", errors.New("no such file")
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", errors.New("is a directory")
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCountFile+1))
	if err != nil {
		return "", err
	}
	switch {
	case len(b) > maxCountFile:
		return "", fmt.Errorf("larger than %d MiB", maxCountFile>>20)
	case index.BinaryAt(b) >= 0:
		return "", fmt.Errorf("binary (a NUL byte in the first %d bytes), not counted", index.BinarySniffBytes)
	case !utf8.Valid(b):
		return "", errors.New("not valid UTF-8, not counted")
	}
	return string(b), nil
}

// FitInput is the input of fit_text.
type FitInput struct {
	Text   string `json:"text" jsonschema:"the text to trim"`
	Budget int    `json:"budget,omitempty" jsonschema:"tokens the whole result may take; default: what this client accepts (10000 for Codex, 20000 for Claude Code)"`
	Model  string `json:"model,omitempty" jsonschema:"model whose tokenizer counts the budget, e.g. gpt-5.5; default: the client's"`
	Keep   string `json:"keep,omitempty" jsonschema:"which ends to keep: both (default: head and tail, the middle dropped), head or tail"`
}

// FitOutput is the result of fit_text.
type FitOutput struct {
	Text          string `json:"text" jsonschema:"the text, trimmed at line boundaries around a marker line saying what was dropped when cut"`
	Cut           bool   `json:"cut" jsonschema:"whether anything was dropped"`
	Tokens        int    `json:"tokens" jsonschema:"exact tokens of text"`
	InputTokens   int    `json:"input_tokens"`
	DroppedLines  int    `json:"dropped_lines"`
	DroppedTokens int    `json:"dropped_tokens"`
	Budget        int    `json:"budget" jsonschema:"the budget the whole result was held to"`
}

const fitDescription = `Trim a text to a token budget, counted exactly, at line boundaries: keeps the head and the tail (or only
one of them) around a marker line that says how many lines and tokens were dropped. For logs, diffs and
documents too long to paste. The whole result stays within the budget, which defaults to what this client
accepts (10,000 tokens for Codex, 20,000 for Claude Code). Fails when the budget cannot hold the marker.`

func (s *Server) addFit() {
	addTool(s, &mcp.Tool{Name: "fit_text", Title: "Fit text to a budget", Description: fitDescription}, s.fitText)
}

func (s *Server) fitText(ctx context.Context, req *mcp.CallToolRequest, in FitInput) (FitOutput, string, error) {
	var opts budget.FitOptions
	if in.Keep != "" {
		keep, err := budget.ParseKeep(in.Keep)
		if err != nil {
			return FitOutput{}, "", fmt.Errorf("keep %w", err)
		}
		opts.Keep = keep
	}
	if !utf8.ValidString(in.Text) {
		return FitOutput{}, "", errors.New("text is not valid UTF-8")
	}
	lim := s.clientLimit(req)
	cn, err := s.counting(in.Model, "", lim)
	if err != nil {
		return FitOutput{}, "", err
	}
	limit, err := budgetFor(in.Budget, cn, lim, 100)
	if err != nil {
		return FitOutput{}, "", err
	}
	out, _, err := fitResult(limit, lim.maxBytes, cn.c, func(b int) (FitOutput, error) {
		o := opts
		o.Budget = b
		r, err := budget.Fit(in.Text, cn.c, &o)
		if err != nil {
			return FitOutput{}, err
		}
		return FitOutput{Text: r.Text, Cut: r.Cut, Tokens: r.Tokens, InputTokens: r.InputTokens,
			DroppedLines: r.DroppedLines, DroppedTokens: r.DroppedTokens, Budget: limit}, nil
	})
	if errors.Is(err, budget.ErrBudgetTooSmall) {
		return FitOutput{}, "", tooSmallToCut(in.Text, cn.c, limit)
	}
	if err != nil {
		return FitOutput{}, "", err
	}
	return out, out.Text, nil
}

// tooSmallToCut explains a budget that cannot hold the smallest cut of
// text: its marker line alone, in the result's fields. The budget counts
// the whole result as the client shows it, so Fit is given what the fields
// leave, and its own "the budget is N" named a budget the caller never
// passed (14 of 50).
func tooSmallToCut(text string, c budget.Counter, limit int) error {
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		lines++
	}
	total := c.Count(text)
	marker := budget.Marker(lines, total)
	m := c.Count(marker)
	need, _, err := measure(FitOutput{Text: marker, Cut: true, Tokens: m, InputTokens: total,
		DroppedLines: lines, DroppedTokens: total, Budget: limit}, c)
	if err != nil {
		return err
	}
	fields := max(need-m, 0)
	if limit > fields {
		return fmt.Errorf("budget %d is too small to cut this text: the result's fields (JSON keys, counts, escapes) take %d tokens of it, "+
			"which leaves %d for the text, and the marker line saying what was cut needs %d; raise the budget to at least %d",
			limit, fields, limit-fields, m, need)
	}
	return fmt.Errorf("budget %d is too small to cut this text: the result's fields (JSON keys, counts, escapes) alone take %d tokens, "+
		"and the marker line saying what was cut needs %d more; raise the budget to at least %d", limit, fields, m, need)
}
