package mcpserver

import (
	"context"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/check"
)

// CheckInput is the input of check_prompt_files.
type CheckInput struct {
	Repo     string `json:"repo,omitempty" jsonschema:"repository directory; default: the client's root, else the server's working directory"`
	Encoding string `json:"encoding,omitempty" jsonschema:"tiktoken encoding to count with: o200k_base (default) or cl100k_base"`
}

// CheckOutput is the result of check_prompt_files.
type CheckOutput struct {
	Root    string         `json:"root" jsonschema:"the repository's root"`
	Files   int            `json:"files" jsonschema:"prompt files checked"`
	Over    int            `json:"over" jsonschema:"files over their budget"`
	Results []check.Result `json:"results" jsonschema:"one per file, problems first: status ok, over or warn, the counts, the limit and why"`
	More    int            `json:"more,omitempty" jsonschema:"results of files within budget not listed, to stay within the client's limit"`
}

const checkDescription = `Check the prompt files this repository keeps for agents against their budgets, reading and never
writing them: the AGENTS.md chain Codex assembles from the root down to each directory (at most
project_doc_max_bytes, 32 KiB, beyond which Codex silently cuts it), CLAUDE.md (Claude Code warns above
40,000 characters), .github/copilot-instructions.md (Copilot code review reads 4,000 characters),
prompts/** (8,192 tokens), and the rules of the [check] section of .ctxtrim.toml. Each result gives the
tokens, bytes and characters against the limit and, when over, what the agent will not see.`

func (s *Server) addCheck() {
	addTool(s, &mcp.Tool{Name: "check_prompt_files", Title: "Check agent prompt files", Description: checkDescription}, s.checkPromptFiles)
}

func (s *Server) checkPromptFiles(ctx context.Context, req *mcp.CallToolRequest, in CheckInput) (CheckOutput, string, error) {
	enc := in.Encoding
	if enc == "" {
		enc = budget.O200kBase
	}
	c, err := budget.NewEncodingCounter(enc)
	if err != nil {
		return CheckOutput{}, "", fmt.Errorf("encoding: %w", err)
	}
	dir, err := s.repoDir(ctx, req, in.Repo)
	if err != nil {
		return CheckOutput{}, "", err
	}
	root, ok := check.RepoRoot(dir)
	if !ok {
		root = dir
	}
	var cfg *check.Config
	if s.checkConfig != nil {
		if cfg, err = s.checkConfig(root); err != nil {
			return CheckOutput{}, "", err
		}
	}
	rep, err := check.Repo(ctx, root, cfg, c)
	if err != nil {
		return CheckOutput{}, "", err
	}
	results := append([]check.Result{}, rep.Results...)
	rank := map[string]int{"over": 0, "warn": 1, "ok": 2}
	sort.SliceStable(results, func(i, j int) bool { return rank[results[i].Status] < rank[results[j].Status] })
	out := CheckOutput{Root: root, Files: len(results), Over: rep.Over(), Results: results}
	lim := s.clientLimit(req)
	for {
		js, err := encodeJSON(out)
		if err != nil {
			return CheckOutput{}, "", err
		}
		if len(js) <= lim.maxBytes || len(out.Results) == 0 || out.Results[len(out.Results)-1].Status != "ok" {
			return out, "", nil
		}
		out.Results = out.Results[:len(out.Results)-1]
		out.More++
	}
}
