package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxtrim/ctxtrim/internal/check"
	"github.com/ctxtrim/ctxtrim/internal/mcpserver"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

const mcpSynopsis = "ctxtrim mcp [-C DIR] [-no-cache] [-q]"

const mcpHelp = `Serves ctxtrim to a coding agent over the Model Context Protocol, on stdin and
stdout (JSON-RPC; diagnostics go to stderr). The agent starts it; its tools:

  select_context      the code a task needs, within a budget: one prompt and the
                      structured selection (files, line ranges, what was left out)
  count_tokens        exact token counts of a text or files, per model or encoding
  fit_text            a text trimmed to a budget, head and tail kept
  split_task          a diff, files or text too large for one request, in parts
  check_prompt_files  AGENTS.md, CLAUDE.md, … against their budgets

Results stay within what the client accepts (Codex keeps about 10,000 tokens of
a tool result, Claude Code 25,000 tokens or 50,000 characters): default budgets
are the client's. The repository is a call's repo argument, else the client's
root, else the directory the client starts the server in (-C DIR to change
it); its index is kept and refreshed when files change.

Codex, in ~/.codex/config.toml:
  [mcp_servers.ctxtrim]
  command = "ctxtrim"
  args = ["mcp"]

Claude Code, in .mcp.json at the project root:
  {"mcpServers": {"ctxtrim": {"command": "ctxtrim", "args": ["mcp"]}}}

Exit status: 0 when the client disconnects, 2 on a usage error, 1 on other
failures.`

func runMCP(e *env, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	dir := fs.String("C", ".", "default repository `DIR`, for calls that name none when the client lists no root")
	aliasFlag(fs, "repo", "C")
	noCache := fs.Bool("no-cache", false, "neither read nor write the extraction cache")
	quiet := fs.Bool("q", false, "log only errors and recovered panics on stderr, not index builds and calls")
	pos, err := parseFlags(e, fs, args, mcpSynopsis, mcpHelp)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError(fmt.Errorf("mcp: unexpected argument %q (the client sends the calls; use -C DIR for the repository)", pos[0]))
	}
	dirFlag := flagAsSet(fs, "C", "repo")
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return usageError(fmt.Errorf("mcp: %s %s: %w", dirFlag, *dir, err))
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return usageError(fmt.Errorf("mcp: %s %s: not a directory", dirFlag, *dir))
	}
	// Refused at start, not at the client's every call.
	if _, err := index.OpenRepository(abs); errors.Is(err, index.ErrBareRepository) {
		return usageError(fmt.Errorf("mcp: %s %s: %w", dirFlag, *dir, err))
	}
	cfg, err := loadConfig(abs, "")
	if err != nil {
		return usageError(err)
	}
	for _, w := range cfg.warnings {
		fmt.Fprintf(e.stderr, "ctxtrim: %s\n", w)
	}
	table, err := cfg.table()
	if err != nil {
		return usageError(err)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(e.stderr, "ctxtrim mcp: "+format+"\n", args...) }
	if *quiet {
		logf = func(string, ...any) {}
	}
	s, err := mcpserver.New(&mcpserver.Options{
		Dir: abs, Table: table, NoCache: *noCache, Version: version(), Logf: logf,
		CheckConfig: func(root string) (*check.Config, error) {
			c, err := loadConfig(root, "")
			if err != nil {
				return nil, err
			}
			return &c.Check, nil
		},
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go s.Prewarm(ctx)
	t := &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	if err := s.Run(ctx, t); err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// nopWriteCloser lets the server close stdout without closing it: the
// process's streams belong to main.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// version is the module version ctxtrim was built as ("devel" from a
// checkout), as go version -m shows it.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
