package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxtrim/ctxtrim/slicer"
)

// SelectInput is the input of select_context.
type SelectInput struct {
	Task    string   `json:"task" jsonschema:"the task the context is for, as the user gave it: a bug report, a change to make, a failing test or stack trace; paths, identifiers and quoted strings in it steer the selection"`
	Budget  int      `json:"budget,omitempty" jsonschema:"tokens the whole result may take; default: what this client accepts (10000 for Codex, 20000 for Claude Code, 10000 otherwise); the result is also kept under the client's byte limit"`
	Model   string   `json:"model,omitempty" jsonschema:"model whose tokenizer counts the budget and whose context window bounds it, e.g. gpt-5.5 or claude-opus-5-5; default: the client's"`
	Repo    string   `json:"repo,omitempty" jsonschema:"repository directory, absolute or relative to the client's root; default: the client's root, else the server's working directory"`
	Include []string `json:"include,omitempty" jsonschema:"show only files matching one of these gitignore patterns, e.g. pkg/api/ or *.py; every file still counts for the ranking"`
	Exclude []string `json:"exclude,omitempty" jsonschema:"never show files matching these gitignore patterns, even when the task names them: e.g. the files you have already read, to get the next most relevant ones, or *_test.go"`
}

// SelectOutput is the result of select_context.
type SelectOutput struct {
	Prompt       string         `json:"prompt" jsonschema:"the context as one markdown prompt: the task, a note on what was left out, then each file whole, as its relevant definitions (gaps marked) or as signatures"`
	PromptTokens int            `json:"prompt_tokens" jsonschema:"exact tokens of prompt"`
	Budget       int            `json:"budget" jsonschema:"the budget the whole result was held to"`
	Repo         string         `json:"repo" jsonschema:"the repository's root"`
	Files        []SelectedFile `json:"files" jsonschema:"the files in the prompt, best first"`
	LeftOut      LeftOut        `json:"left_out" jsonschema:"what matched the task but is not in the prompt"`
	Index        string         `json:"index" jsonschema:"built (first call on this repository), rebuilt (files changed since the last call) or reused"`
	// UnmatchedInclude is slicer.Selection.UnmatchedInclude: a typo the
	// agent can correct, which the prompt's note names only when no file
	// at all is left in scope.
	UnmatchedInclude []string `json:"unmatched_include,omitempty" jsonschema:"include patterns that match no file of the repository"`
	// Outline is slicer.Selection.Unmatched: the agent should ask again
	// with something of the repository in the task.
	Outline bool `json:"outline,omitempty" jsonschema:"true when no word, name or path of the task is in the repository: the prompt then outlines it (the signatures of its most central files) and shows no code; ask again naming a file, a function or an error message"`
}

// SelectedFile is one file in a selection.
type SelectedFile struct {
	Path        string      `json:"path" jsonschema:"slash-separated, relative to repo"`
	Granularity string      `json:"granularity" jsonschema:"whole, definitions (only ranges, the rest elided) or signatures (one line per definition)"`
	Ranges      []LineRange `json:"ranges,omitempty" jsonschema:"the lines included, for definitions and whole files"`
	// Definitions are the definitions shown of a file given as excerpts.
	Definitions []Definition `json:"definitions,omitempty" jsonschema:"for granularity definitions: the definitions shown, best first, each with its lines"`
	Tokens      int          `json:"tokens" jsonschema:"tokens of the file's block in the prompt"`
}

// Definition is one definition shown of a file given as excerpts, or a
// block of code that is not one (no name).
type Definition struct {
	Name  string `json:"name,omitempty"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// LineRange is an inclusive range of 1-based lines.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// LeftOut says what a selection left out.
type LeftOut struct {
	Files      int      `json:"files" jsonschema:"files that matched the task but did not fit the budget"`
	Best       []string `json:"best,omitempty" jsonschema:"the best-ranked of them: ask again with a larger budget or with exclude naming the files shown, or read them directly"`
	Unreadable []string `json:"unreadable,omitempty" jsonschema:"files that could not be read, with the reason"`
}

const selectDescription = `Select the code a task needs from a repository, within a token budget: ranks every file for the task
(names, identifiers and stack frames in it, the call graph, recent history), then packs the best into the
budget whole, as their relevant definitions, or as signatures. Returns one markdown prompt to read instead
of opening files one by one, and the structured selection: each file with its line ranges, and what was left
out. The whole result stays within the budget, which defaults to what this client accepts (Codex keeps
about 10,000 tokens of a tool result, Claude Code 25,000 tokens or 50,000 characters); pass a budget to ask
for less, or for more when the client allows it; to see what comes next, call again with exclude naming the
files already shown (include and exclude take gitignore patterns: pkg/api/, *_test.go). The first call on a
repository indexes it (seconds on a large one); later calls reuse the index and refresh it when files change.
Fails when the task alone exceeds the budget: then cut it with split_task.`

func (s *Server) addSelect() {
	addTool(s, &mcp.Tool{Name: "select_context", Title: "Select repository context", Description: selectDescription}, s.selectContext)
}

func (s *Server) selectContext(ctx context.Context, req *mcp.CallToolRequest, in SelectInput) (SelectOutput, string, error) {
	task := strings.TrimSpace(in.Task)
	if task == "" {
		return SelectOutput{}, "", errors.New("no task: pass the task the context is for")
	}
	lim := s.clientLimit(req)
	cn, err := s.counting(in.Model, "", lim)
	if err != nil {
		return SelectOutput{}, "", err
	}
	limit, err := budgetFor(in.Budget, cn, lim, 100)
	if err != nil {
		return SelectOutput{}, "", err
	}
	dir, err := s.repoDir(ctx, req, in.Repo)
	if err != nil {
		return SelectOutput{}, "", err
	}
	ix, state, err := s.ix.get(ctx, dir)
	if err != nil {
		return SelectOutput{}, "", err
	}
	out, _, err := fitResult(limit, lim.maxBytes, cn.c, func(b int) (SelectOutput, error) {
		sel, err := selectFiles(ctx, ix, task, cn.c, &slicer.SelectOptions{Budget: b, Include: in.Include, Exclude: in.Exclude})
		if err != nil {
			if errors.Is(err, slicer.ErrTaskTooLarge) && b < limit {
				return SelectOutput{}, fmt.Errorf("%w (the budget was lowered from %d to fit the result's JSON under the client's limit of %d bytes)", err, limit, lim.maxBytes)
			}
			return SelectOutput{}, err
		}
		return SelectOutput{
			Prompt: sel.prompt, PromptTokens: sel.promptTokens, Budget: limit, Repo: ix.Root,
			Files: sel.files, LeftOut: sel.leftOut, Index: state, UnmatchedInclude: sel.unmatched, Outline: sel.outline,
		}, nil
	})
	if err != nil {
		return SelectOutput{}, "", err
	}
	return out, out.Prompt, nil
}
