package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/check"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// Options configures New. The zero value is valid; New does not modify it.
type Options struct {
	// Dir is the default repository, used when a call names none and the
	// client lists no root. "" means the working directory.
	Dir string
	// Table is the model table that model names are looked up in; nil
	// means budget.DefaultTable().
	Table *budget.Table
	// CacheDir and NoCache configure the slicer's extraction cache for
	// every index the server builds (see index.Options).
	CacheDir string
	NoCache  bool
	// CheckConfig returns the prompt-file budgets of the repository at root
	// (the [check] section of its .ctxtrim.toml) for check_prompt_files;
	// nil means the built-in defaults.
	CheckConfig func(root string) (*check.Config, error)
	// Version is the server version sent to clients in initialize.
	Version string
	// Logf receives diagnostics: index builds and refreshes, recovered
	// panics with their stacks. Nil discards them. On stdio it must not
	// write to stdout, which carries JSON-RPC.
	Logf func(format string, args ...any)
}

// Server is ctxtrim's MCP server. It is safe for concurrent use; one
// Server may serve several sessions.
type Server struct {
	mcp   *mcp.Server
	dir   string // absolute default repository
	table *budget.Table
	ix    *indexes
	logf  func(format string, args ...any)

	checkConfig func(root string) (*check.Config, error)
}

// maxTokens bounds every token quantity a call may pass, as the CLI's
// flags do: no model comes near 100M tokens.
const maxTokens = 100_000_000

// rootsTimeout bounds the wait for a client's answer to roots/list: a
// client that never answers must not hold up the call.
const rootsTimeout = 2 * time.Second

// Fitting a result to the client (fitResult). A result's JSON escapes
// every newline, tab and quote of the code it holds: measured on moby,
// select_context's JSON counts 1.33-1.39 times the tokens of its prompt,
// and up to 1.55 times on the small test repository, whose frame weighs
// more.
const (
	// firstShare is the share of the budget, in percent, the first round
	// builds for, so that a result made mostly of code fits at once.
	firstShare = 66
	// goodShare is the share of a limit, in percent, a fitting result must
	// use to be taken without another round (for prose, which JSON costs
	// less, the next round grows it).
	goodShare = 90
	// fitSlack is the share, in percent, by which a round scales its
	// budget short of the measured ratio, so that it lands under the limit.
	fitSlack = 2
	// minFitStep is the least share, in percent, by which a round that
	// did not fit lowers its budget, doubled each time a round measures
	// the same count again: a selection is a step function of its
	// budget, and a step by the ratio alone can land on the same
	// selection again (measured: 402, 390 and 379 all gave one result,
	// 5 tokens over).
	minFitStep = 5
	// maxFitRounds bounds the rounds: one or two are the rule.
	maxFitRounds = 6
)

// New returns a server with every tool registered.
func New(opts *Options) (*Server, error) {
	if opts == nil {
		opts = &Options{}
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("default repository %s: %w", dir, err)
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	table := opts.Table
	if table == nil {
		table = budget.DefaultTable()
	}
	version := opts.Version
	if version == "" {
		version = "devel"
	}
	s := &Server{
		mcp: mcp.NewServer(&mcp.Implementation{Name: "ctxtrim", Title: "ctxtrim", Version: version}, &mcp.ServerOptions{
			Instructions: serverInstructions,
			// No logging capability: diagnostics go to Logf (stderr).
			Capabilities: &mcp.ServerCapabilities{},
		}),
		dir:   abs,
		table: table,
		ix: &indexes{
			template: index.Options{CacheDir: opts.CacheDir, NoCache: opts.NoCache, Logf: logf},
			logf:     logf,
		},
		logf:        logf,
		checkConfig: opts.CheckConfig,
	}
	s.addSelect()
	s.addCount()
	s.addFit()
	s.addSplit()
	s.addCheck()
	return s, nil
}

// serverInstructions is sent to clients in initialize; clients show it to
// the model with the tool list.
const serverInstructions = `ctxtrim makes requests fit a token budget exactly. Call select_context with the task
before reading files one by one: it returns the files and definitions the task needs, within a budget
that fits this client's tool-output limit. count_tokens and fit_text count and trim text; split_task cuts
a diff, files or text too large for one request into parts; check_prompt_files checks AGENTS.md and
CLAUDE.md against their budgets.`

// Run serves one session on t (mcp.StdioTransport for ctxtrim mcp) until
// the client disconnects or ctx is done.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

// Prewarm builds the index of the default repository, so that the first
// select_context finds it ready; ctxtrim mcp runs it in the background
// while the client initializes. Errors are logged, not returned: the call
// that needs the index reports them.
func (s *Server) Prewarm(ctx context.Context) {
	if _, _, err := s.ix.get(ctx, s.dir); err != nil {
		s.logf("prewarm: %v", err)
	}
}

// readOnly marks a tool that reads files and never writes them, so that
// clients may run it without asking (Codex refuses an unmarked MCP tool
// under approval_policy = "never").
func readOnly() *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
}

// handler is a typed tool handler: it returns the output and the text
// content to send beside it ("" for the output's JSON alone).
type handler[In, Out any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, string, error)

// addTool registers h under t, with the typed schemas the SDK derives from
// In and Out. A panic in h is recovered into a tool error naming the tool,
// with its stack sent to Logf, so that one bad call never takes the server
// down.
func addTool[In, Out any](s *Server, t *mcp.Tool, h handler[In, Out]) {
	t.Annotations = readOnly()
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.logf("panic in %s: %v\n%s", t.Name, p, debug.Stack())
				var zero Out
				res, out = nil, zero
				err = fmt.Errorf("internal error in %s: %v (recovered; the server keeps running: please report it with the call's arguments)", t.Name, p)
			}
		}()
		start := time.Now()
		out, text, err := h(ctx, req, in)
		if err != nil {
			s.logf("%s: %v", t.Name, err)
			return nil, out, err
		}
		s.logf("%s: done in %v", t.Name, time.Since(start).Round(time.Millisecond))
		if text == "" {
			return nil, out, nil // the SDK sends the output's JSON as the text too
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
	})
}

// clientLimit returns the limits of the client of req.
func (s *Server) clientLimit(req *mcp.CallToolRequest) clientLimit {
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			return limitFor(p.ClientInfo.Name)
		}
	}
	return limitFor("")
}

// root is the directory relative repository paths start from: the client's
// first file root if it lists one, else the default repository. Only a
// client that declares the roots capability is asked (Codex 0.171 does
// not); Claude Code 2.1.332 declares it but speaks protocol 2026-07-28, on
// which a server cannot ask during a call. Both start the server in the
// project directory, the default. That protocol deprecates roots
// (SEP-2577, the SDK marks ListRoots so): they are asked only of clients
// that still declare them, and every tool takes a repo argument instead.
func (s *Server) root(ctx context.Context, req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return s.dir
	}
	if p := req.Session.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		return s.dir
	}
	ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, err := req.Session.ListRoots(ctx, nil)
	if err != nil || res == nil {
		return s.dir
	}
	for _, r := range res.Roots {
		if u, err := url.Parse(r.URI); err == nil && u.Scheme == "file" && u.Path != "" {
			return filepath.Clean(filepath.FromSlash(u.Path))
		}
	}
	return s.dir
}

// repoDir resolves a call's repo argument to an absolute directory.
func (s *Server) repoDir(ctx context.Context, req *mcp.CallToolRequest, repo string) (string, error) {
	root := s.root(ctx, req)
	dir := repo
	switch {
	case dir == "":
		dir = root
	case !filepath.IsAbs(dir):
		dir = filepath.Join(root, dir)
	}
	dir = filepath.Clean(dir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		what := "not a directory"
		if errors.Is(err, fs.ErrNotExist) {
			what = "no such directory"
		}
		// Say where a path was taken from only when it was taken from
		// somewhere: an absolute repo is its own answer.
		switch {
		case repo == "":
			return "", fmt.Errorf("repo: none given, and the default, %s (the client's root, else the server's working directory), is %s", dir, what)
		case filepath.IsAbs(repo):
			return "", fmt.Errorf("repo %s: %s", repo, what)
		}
		return "", fmt.Errorf("repo %s: %s (a relative repo is taken from %s: %s)", repo, what, root, dir)
	}
	return dir, nil
}

// counting is how a call counts: the counter and what it stands for.
type counting struct {
	c        budget.Counter
	model    string // the model looked up, "" when none
	encoding string // the encoding counted with
	estimate bool   // counts are an estimate (a non-OpenAI tokenizer)
	window   int    // the model's context window; 0 when no model
}

// counting resolves a call's model and encoding, as the CLI's -model and
// -encoding do: a model's tokenizer (an estimate for non-OpenAI models) and
// window; an encoding counts exactly (the model, if named too, still gives
// the window); neither means the client's tokenizer (lim.countModel, else
// o200k_base).
func (s *Server) counting(model, encoding string, lim clientLimit) (*counting, error) {
	if encoding != "" {
		if _, err := budget.NewEncodingCounter(encoding); err != nil {
			return nil, fmt.Errorf("encoding: %w", err)
		}
	}
	cn := &counting{}
	m := budget.Model{Encoding: budget.O200kBase}
	switch {
	case model != "":
		var err error
		m, err = s.table.Lookup(model)
		if errors.Is(err, budget.ErrUnknownModel) {
			return nil, fmt.Errorf("%w; ctxtrim models lists the known ones, and without a model this client's tokenizer counts", err)
		}
		if err != nil {
			return nil, err
		}
		cn.model, cn.window = m.Name, m.Window
	case encoding == "" && lim.countModel != "":
		// The client's own tokenizer, when the table knows its model.
		if cm, err := s.table.Lookup(lim.countModel); err == nil {
			m = cm
			cn.model = cm.Name
		}
	}
	// budget's one way from a model (and an encoding) to its counter.
	m = m.WithEncoding(encoding)
	c, err := m.Counter()
	if err != nil {
		return nil, err
	}
	cn.c, cn.encoding, cn.estimate = c, m.Encoding, m.Estimate
	return cn, nil
}

// budgetFor returns the token budget of a call: requested if given (at
// most the model's window), else share percent of the client's default
// (at most the window).
func budgetFor(requested int, cn *counting, lim clientLimit, share int) (int, error) {
	switch {
	case requested < 0:
		return 0, fmt.Errorf("budget %d is negative; pass a positive number of tokens, or none for the default %d", requested, lim.budget*share/100)
	case requested > maxTokens:
		return 0, fmt.Errorf("budget %d tokens is absurd (limit %d)", requested, maxTokens)
	case requested == 0:
		b := lim.budget * share / 100
		if cn.window > 0 {
			b = min(b, cn.window)
		}
		return b, nil
	case cn.window > 0 && requested > cn.window:
		return 0, fmt.Errorf("budget %d exceeds the %d-token window of %s; lower budget", requested, cn.window, cn.model)
	}
	return requested, nil
}

// errResultTooLarge: a result cannot be made to fit the client.
var errResultTooLarge = errors.New("result does not fit")

// modelViews returns v as the clients show it to the model: JSON without
// Go's HTML escaping (clients decode a result and encode it again, leaving
// < > & as they are), once with the fields in the struct's order (as
// JavaScript clients keep them: Claude Code) and once with the keys sorted
// (as Rust's serde_json map does: Codex). Token counts of the two differ
// by a few tokens at the joins; a result must fit both.
func modelViews(v any) ([2]string, error) {
	var views [2]string
	js, err := encodeJSON(v)
	if err != nil {
		return views, err
	}
	var generic any
	if err := json.Unmarshal([]byte(js), &generic); err != nil {
		return views, err
	}
	sorted, err := encodeJSON(generic) // encoding/json sorts map keys
	if err != nil {
		return views, err
	}
	return [2]string{js, sorted}, nil
}

func encodeJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// measure returns the most tokens (counted with c) and bytes of v's model
// views.
func measure(v any, c budget.Counter) (tokens, size int, err error) {
	views, err := modelViews(v)
	if err != nil {
		return 0, 0, err
	}
	for _, js := range views {
		tokens, size = max(tokens, c.Count(js)), max(size, len(js))
	}
	return tokens, size, nil
}

// fitResult builds a result with build(b) and adjusts b until the result,
// as JSON, counts at most budgetTokens tokens with c and takes at most
// maxBytes bytes, using at least goodShare of one of them when it can.
// Every round is counted exactly; the best fitting result is returned. The
// first round builds for firstShare of the budget; a build error there is
// retried at the whole budget (a task that only fits it), other build
// errors are returned as they are. A result that cannot be made to fit is
// an error wrapping errResultTooLarge.
func fitResult[T any](budgetTokens, maxBytes int, c budget.Counter, build func(b int) (T, error)) (T, int, error) {
	var best T
	bestN := -1
	b := max(1, budgetTokens*firstShare/100)
	var n, size int
	prevN, step := -1, minFitStep
	for round := 1; round <= maxFitRounds; round++ {
		out, err := build(b)
		if err != nil {
			if round == 1 && b < budgetTokens {
				b = budgetTokens
				continue
			}
			if bestN >= 0 {
				break
			}
			return best, 0, err
		}
		if n, size, err = measure(out, c); err != nil {
			return best, 0, err
		}
		fits := n <= budgetTokens && size <= maxBytes
		if fits && n > bestN {
			best, bestN = out, n
		}
		if fits && (n*100 >= budgetTokens*goodShare || size*100 >= maxBytes*goodShare || b >= budgetTokens) {
			break
		}
		ratio := min(float64(budgetTokens)/float64(max(n, 1)), float64(maxBytes)/float64(max(size, 1)))
		next := min(budgetTokens, int(float64(b)*ratio*(100-fitSlack)/100))
		if !fits {
			if n == prevN {
				step *= 2
			}
			next = min(next, b-max(1, b*step/100))
		}
		prevN = n
		if next < 1 || next == b || fits && next < b {
			break
		}
		b = next
	}
	if bestN < 0 {
		return best, 0, fmt.Errorf("%w: %d tokens and %d bytes as JSON at budget %d, the limits are %d tokens and %d bytes; lower the budget",
			errResultTooLarge, n, size, b, budgetTokens, maxBytes)
	}
	return best, bestN, nil
}
