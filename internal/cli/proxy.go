package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/inflight"
	"github.com/ctxtrim/ctxtrim/internal/proxy"
)

const proxySynopsis = `ctxtrim proxy -upstream URL [-listen 127.0.0.1:7878] [-model M] [-window N] [-budget N]
              [-fallback MODEL=BACKUP[,BACKUP2]]... [-config FILE] [-dry-run] [flags]`

const proxyHelp = `Serves an HTTP proxy for OpenAI Responses (/v1/responses), Chat Completions
(/v1/chat/completions) and Anthropic Messages (/v1/messages) that fits every
request to its model before forwarding it to -upstream with the client's own
headers. Point the client at it: Codex's model_providers.<id>.base_url =
"http://127.0.0.1:7878/v1", Claude Code's ANTHROPIC_BASE_URL=http://127.0.0.1:7878.

A request that fits its model's window (the model table and configuration;
-model for models missing from it; -window replaces every model's window,
the table's too; the request's own max output and -reserve kept free) and
-budget (a cap on every request, whatever its model) goes upstream byte for
byte. One that does not is pruned as "ctxtrim history" prunes (old tool
outputs masked first, turns dropped last, tool calls kept paired, system
prompts and the instructions clients inject kept whole: Claude Code's
CLAUDE.md and environment reminders, Codex's AGENTS.md and environment
context), in steps that keep the provider's cached prefix, and the next
requests of the conversation reuse that pruned form. When even that is too
large, the smallest valid form goes, its max_tokens (or max_output_tokens)
lowered to what the window leaves.

A context-overflow error from the upstream makes it re-fit and retry, at
most twice per request, each attempt smaller. An error that states the
window (Chat Completions, Anthropic, vLLM, …) teaches that window; one that
states none (OpenAI's Responses API) teaches a ceiling: the largest request
accepted below the smallest refused, or three quarters of the refused size,
and no later request goes above it. What is learned lasts until the proxy
stops; it is not written anywhere. -fallback MODEL=BACKUP retries capacity
failures (429 capacity, 503, 529) on the backup, fitted to its window;
without it, every other error goes back to the client as the upstream sent
it.

One line per request goes to stderr (model, tokens before and after, the
limit, what was pruned, status, attempts, latency, what was learned), never
content or credentials. GET /healthz answers "ok". It listens on loopback
only unless -allow-remote: it forwards its clients' credentials and has no
authentication of its own. Stop it with Ctrl-C (exit 130) or SIGTERM (exit 0).`

// defaultListen is the proxy's address when -listen is not given.
const defaultListen = "127.0.0.1:7878"

// shutdownGrace is how long in-flight requests get to finish on a signal.
const shutdownGrace = 10 * time.Second

// fallbackFlag collects -fallback MODEL=BACKUP[,BACKUP2] flags.
type fallbackFlag map[string][]string

func (f fallbackFlag) String() string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+strings.Join(f[k], ","))
	}
	return strings.Join(parts, " ")
}

func (f fallbackFlag) Set(s string) error {
	model, list, ok := strings.Cut(s, "=")
	model = strings.TrimSpace(model)
	if !ok || model == "" || strings.TrimSpace(list) == "" {
		return fmt.Errorf("%q: want MODEL=BACKUP[,BACKUP2]", s)
	}
	for k := range f {
		if strings.EqualFold(k, model) {
			return fmt.Errorf("%q: %s already has backups (%s)", s, k, strings.Join(f[k], ","))
		}
	}
	var backups []string
	for _, b := range strings.Split(list, ",") {
		if b = strings.TrimSpace(b); b == "" {
			return fmt.Errorf("%q: empty backup name", s)
		}
		backups = append(backups, b)
	}
	f[model] = backups
	return nil
}

// proxyOptions is what runProxy parsed.
type proxyOptions struct {
	listen      string
	allowRemote bool
	opts        proxy.Options
	notes       []string // said once at start
}

func runProxy(e *env, args []string) error {
	po, err := parseProxy(e, args)
	if err != nil {
		return err
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan os.Signal, 1)
	go func() {
		select {
		case s := <-sigs:
			got <- s
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := serveProxy(ctx, e, po, nil); err != nil {
		return err
	}
	select {
	case s := <-got:
		if s == os.Interrupt {
			return exitStatus(exitInterrupt)
		}
	default:
	}
	return nil
}

// parseProxy parses and checks the flags; its errors are usage errors.
func parseProxy(e *env, args []string) (*proxyOptions, error) {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	var bf budgetFlags
	bf.register(fs)
	// In the proxy -window applies to every model the clients name.
	fs.Lookup("window").Usage = "context window `N` in tokens for every model, the table's included (a deployment's smaller window)"
	po := &proxyOptions{}
	fb := fallbackFlag{}
	fs.StringVar(&po.listen, "listen", defaultListen, "serve on `HOST:PORT` (loopback unless -allow-remote; port 0 picks one)")
	upstream := fs.String("upstream", "", "the provider's base `URL`, e.g. https://api.openai.com/v1 or https://api.anthropic.com (required)")
	configFile := fs.String("config", "", "read configuration `FILE` instead of the repository's .ctxtrim.toml")
	fs.Var(fb, "fallback", "on capacity answers retry `MODEL=BACKUP[,BACKUP2]` on the backups in turn (repeatable)")
	dryRun := fs.Bool("dry-run", false, "forward every request unchanged and log what would have been pruned")
	maxBody := fs.Int64("max-body", proxy.DefaultMaxBody, "refuse request bodies over `BYTES` with 413")
	fs.BoolVar(&po.allowRemote, "allow-remote", false, "allow a non-loopback -listen address (unsafe without an authenticating front proxy)")
	step := fs.Int("step", 0, "prune in steps of `TOKENS` beyond what a request needs, so the cached prefix lasts (default limit/8; -1 just enough)")
	pos, err := parseFlags(e, fs, args, proxySynopsis, proxyHelp)
	if err != nil {
		return nil, err
	}
	switch {
	case len(pos) > 0:
		return nil, usageError(fmt.Errorf("proxy takes no arguments, got %q", pos))
	case *upstream == "":
		return nil, usageError(errors.New("proxy: -upstream URL is required (the provider's base URL, e.g. https://api.openai.com/v1)"))
	case bf.fromError != "":
		return nil, usageError(errors.New("proxy: -from-error does not apply: the proxy reads each overflow error the upstream sends"))
	case *maxBody <= 0:
		return nil, usageError(fmt.Errorf("proxy: -max-body must be positive, got %d", *maxBody))
	case *step < -1:
		return nil, usageError(fmt.Errorf("proxy: -step must be -1 (just enough), 0 (default) or positive, got %d", *step))
	}
	if err := bf.validate(); err != nil {
		return nil, usageError(err)
	}
	if err := proxy.CheckListen(po.listen, po.allowRemote); err != nil {
		return nil, usageError(err)
	}
	ms, err := proxyModels(&bf, *configFile)
	if err != nil {
		return nil, usageError(err)
	}
	bf.warn(e)
	po.opts = proxy.Options{
		Upstream: *upstream,
		Resolve:  ms.Resolve,
		Budget:   bf.budget.v,
		DryRun:   *dryRun,
		MaxBody:  *maxBody,
		Step:     *step,
	}
	if len(fb) > 0 {
		po.opts.Fallback = fb
	}
	if bf.window.set {
		po.notes = append(po.notes, fmt.Sprintf("-window %d replaces the window of every model, the table's included (a smaller window an overflow error states still wins)", bf.window.v))
	}
	return po, nil
}

// serveProxy serves po until ctx ends, then lets in-flight requests finish
// for shutdownGrace. ready, when set, receives the address listened on.
func serveProxy(ctx context.Context, e *env, po *proxyOptions, ready chan<- string) error {
	opts := po.opts
	opts.Logf = func(format string, args ...any) {
		fmt.Fprintf(e.stderr, "ctxtrim: proxy: "+format+"\n", args...)
	}
	p, err := proxy.New(&opts)
	if err != nil {
		return usageError(err)
	}
	ln, err := net.Listen("tcp", po.listen)
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	mode := ""
	if opts.DryRun {
		mode = " (dry run: nothing is changed)"
	}
	fmt.Fprintf(e.stderr, "ctxtrim: proxy listening on http://%s, forwarding to %s%s\n", addr, opts.Upstream, mode)
	for _, n := range po.notes {
		fmt.Fprintf(e.stderr, "ctxtrim: proxy: %s\n", n)
	}
	if ready != nil {
		ready <- addr
	}
	// No read or write timeout: a model's answer may stream for minutes.
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 5 * time.Minute}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	fmt.Fprintln(e.stderr, "ctxtrim: proxy stopped")
	return nil
}

// proxyModels is how the proxy resolves the model of each request: the
// one resolution of inflight.Models, with the budget flags' and the
// configuration's choices: the request's model from the table
// (configuration rows included); a model missing from it as -model's (or
// the configuration's model), or with -window (counted with -encoding,
// else o200k_base); -window replaces every model's window, table or not;
// the reserve and margin as every budgeted command takes them (-reserve,
// -margin, the configuration, then the defaults).
func proxyModels(bf *budgetFlags, configFile string) (inflight.Models, error) {
	cfg, err := loadConfig(".", configFile)
	if err != nil {
		return inflight.Models{}, err
	}
	bf.warnings = append(bf.warnings, cfg.warnings...)
	table, err := cfg.table()
	if err != nil {
		return inflight.Models{}, err
	}
	if bf.encoding != "" {
		if _, err := budget.NewEncodingCounter(bf.encoding); err != nil {
			return inflight.Models{}, fmt.Errorf("-encoding: %w", err)
		}
	}
	name := strings.TrimSpace(bf.model)
	if name != "" && !bf.window.set {
		if _, err := table.Lookup(name); err != nil {
			return inflight.Models{}, err
		}
	}
	if name == "" {
		name = strings.TrimSpace(cfg.Model)
	}
	if bf.budget.set && bf.window.set && bf.budget.v > bf.window.v {
		return inflight.Models{}, fmt.Errorf("-budget %d exceeds the -window %d; lower -budget", bf.budget.v, bf.window.v)
	}
	ms := inflight.Models{Table: table, Default: name, Encoding: bf.encoding, Policy: bf.policy(cfg, false)}
	if bf.window.set {
		ms.Policy.Window = bf.window.v
	}
	return ms, nil
}
