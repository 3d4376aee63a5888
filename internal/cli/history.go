package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
)

const historySynopsis = "ctxtrim history [-model M | -budget N] [flags] [FILE|-] > pruned"

const historyHelp = `Prunes a conversation history to the token budget and writes it in the same
format. Formats: OpenAI Chat Completions request, OpenAI Responses request,
Anthropic Messages request, Codex CLI rollout JSONL, a SWE-agent .traj, or a
bare JSON array of messages; detected unless -format is given.

The model is -model, else the "model" the request body names, else model in
.ctxtrim.toml: its tokenizer counts, and its window gives the budget unless
-budget does. A -model other than the body's wins, with a warning.

Steps, cheapest loss first, each only as far as needed: mask old tool
outputs, replace superseded outputs and old images, cut the middle out of
oversized items, drop the oldest turns (one notice says how many). System
and developer messages, the context clients inject (Claude Code's
<system-reminder> blocks of its first message, Codex's AGENTS.md and
environment context), the latest user turn and the last -keep-last turns
are never touched. A cut is reported in one line on stderr (-q: none). history
holds the conversation in memory and reads at most 512 MiB; more, or
binary input (a NUL in the first 8000 bytes), is bad input.
Exit status: 0 unchanged, 3 pruned, 2 usage, 4 bad input, 5 the pinned part
alone does not fit, 1 other errors. With -dry-run nothing is
written to stdout: the report of what would be removed goes to stderr and
the exit status is the same.`

func runHistory(e *env, args []string) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	var bf budgetFlags
	bf.register(fs)
	format := fs.String("format", "auto", "input format `F`: auto, chat, responses, anthropic, codex")
	keepLast := fs.Int("keep-last", history.DefaultKeepLast, "never touch the last `N` turns (the last turn is always kept)")
	maskAfter := fs.Int("mask-after", history.DefaultMaskAfter, "mask tool outputs older than the last `N` turns first (0: all outside -keep-last)")
	maxItem := fs.Int("max-item", 0, "truncate the middle of items over `TOKENS` (default budget/8)")
	dryRun := fs.Bool("dry-run", false, "report what would be removed on stderr; write nothing to stdout")
	explain := fs.Bool("explain", false, "report tokens before and after each step on stderr")
	verbose := fs.Bool("v", false, "log progress on stderr")
	quiet := fs.Bool("q", false, "do not report the cut on stderr")
	files, err := parseFlags(e, fs, args, historySynopsis, historyHelp)
	if err != nil {
		return err
	}
	if len(files) > 1 {
		return usageError(fmt.Errorf("history takes at most one FILE, got %d: %q", len(files), files))
	}
	f, err := history.ParseFormatName(*format)
	if err != nil {
		return usageError(err)
	}
	for name, v := range map[string]int{"-keep-last": *keepLast, "-mask-after": *maskAfter, "-max-item": *maxItem} {
		if v < 0 {
			return usageError(fmt.Errorf("%s must not be negative, got %d", name, v))
		}
	}
	// Flags that contradict each other are rejected before any reading;
	// the budget itself is resolved after, for the body may name the
	// model.
	if err := bf.validate(); err != nil {
		return usageError(err)
	}

	name := ""
	if len(files) == 1 {
		name = files[0]
		if name != "-" {
			noteIgnoredStdin(e, name)
		}
	}
	in, where, closeIn, err := openInput(e, name, "the conversation", "name the conversation file")
	if err != nil {
		return err
	}
	defer closeIn()
	data, err := readInput(in, where, historyInput)
	if err != nil {
		return err
	}
	if err := checkText(where, data, historyInput); err != nil {
		return err
	}
	defer capMemoryFor(len(data))()
	conv, err := history.ParseBytes(data, f)
	if err != nil {
		if errors.Is(err, history.ErrBadInput) {
			return historyInputError(where, err)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	plan, err := historyPlan(e, &bf, bodyModel(conv))
	if err != nil {
		return usageError(err)
	}
	counter, limit := plan.counter, plan.limit
	if plan.note != "" {
		fmt.Fprintf(e.stderr, "ctxtrim: %s\n", plan.note)
	}

	opts := &history.Options{Budget: limit, KeepLast: *keepLast, MaskAfter: *maskAfter, MaxItem: *maxItem}
	if *keepLast == 0 {
		opts.KeepLast = -1
	}
	if *maskAfter == 0 {
		opts.MaskAfter = -1
	}
	opts.Logf = e.logf(*verbose)
	res, err := history.Prune(conv, counter, opts)
	if err != nil {
		if errors.Is(err, history.ErrNoFit) {
			return noFitError(fmt.Errorf("%w or lower -keep-last", err))
		}
		return err
	}
	if *explain || *dryRun {
		reportPrune(e.stderr, conv, res, *dryRun)
	} else if res.Changed() && !*quiet {
		// A cut is said, as fit says it: the exit status alone (3) is
		// lost in a pipeline.
		fmt.Fprintln(e.stderr, "ctxtrim: "+pruneSummary(res))
	}
	var done error // unchanged
	if res.Changed() {
		done = exitStatus(exitTrimmed)
	}
	if *dryRun {
		return done
	}
	// Straight to stdout: a pruned rollout is written line by line from
	// the input, never held whole a second time.
	if err := res.Conversation.Encode(e.stdout); err != nil {
		return err
	}
	return done
}

// bodyModel returns the "model" a request body names, or "" (a rollout,
// a bare array, a body without one).
func bodyModel(conv *history.Conversation) string {
	var m string
	if raw := conv.Field("model"); raw != nil && json.Unmarshal(raw, &m) == nil {
		return strings.TrimSpace(m)
	}
	return ""
}

// historyPlan resolves history's budget for a body that names the model
// body ("" for none). The model is -model, else the body's (the model the
// request goes to, which a default in the configuration must not
// override), else the configuration's: its tokenizer counts, and its
// window gives the budget when -budget does not. A -model that is not the
// body's model is a warning: the flag wins, as the user may be moving the
// conversation to another model. A body's model the table lacks is a
// warning when the budget does not need it, and counting goes on as if
// the body named none.
func historyPlan(e *env, bf *budgetFlags, body string) (*budgetPlan, error) {
	flagModel := strings.TrimSpace(bf.model)
	if flagModel != "" || body == "" {
		p, err := bf.plan(".", true)
		if err != nil {
			return nil, err
		}
		bf.warn(e)
		if body != "" {
			if m, err := p.table.Lookup(body); err != nil || m.Name != p.model.Name {
				fmt.Fprintf(e.stderr, "ctxtrim: -model %s, but the body names %q; counting for %s\n", flagModel, body, flagModel)
			}
		}
		return p, nil
	}
	bf.model = body
	p, err := bf.plan(".", true)
	bf.model = ""
	if errors.Is(err, budget.ErrUnknownModel) {
		p, err = bf.plan(".", true)
		if err != nil {
			return nil, fmt.Errorf("the body's model %q is not in the model table (ctxtrim models), and %w", body, err)
		}
		fmt.Fprintf(e.stderr, "ctxtrim: the body's model %q is not in the model table (ctxtrim models); counting with %s (pass -model M or -encoding E to choose)\n", body, p.encName)
	}
	if err != nil {
		return nil, err
	}
	bf.warn(e)
	return p, nil
}

// conversationWhat is what history reads, for hints.
const conversationWhat = "a conversation: a Chat, Responses or Anthropic request body, a Codex rollout (JSONL) or a JSON array of messages"

// historyInput is what history reads: a conversation of at most
// maxHeldInput bytes.
var historyInput = textRules{nonEmpty: true, what: conversationWhat, max: maxHeldInput,
	tooLarge: "history holds the conversation in memory; prune it in pieces, or start a new session"}

// historyInputError is the input problem of a history.ErrBadInput error:
// a body of another format than -format names (history.FormatError), or
// one that is malformed.
func historyInputError(where string, err error) error {
	detail := strings.TrimPrefix(err.Error(), history.ErrBadInput.Error()+": ")
	var fe *history.FormatError
	if errors.As(err, &fe) {
		return &inputError{problem: probWrongFormat, where: where, detail: detail,
			hint: fmt.Sprintf("drop -format to detect it, or pass -format %s", fe.Found), err: err}
	}
	return &inputError{problem: probMalformed, where: where, detail: detail, hint: "pass " + conversationWhat, err: err}
}

func reportPrune(w io.Writer, conv *history.Conversation, res *history.Result, dry bool) {
	fmt.Fprintf(w, "history: %s, %d items, %d tokens, budget %d, pinned %d\n",
		conv.Format(), conv.Len(), res.Before, res.Limit, res.Pinned)
	for _, s := range res.Steps {
		fmt.Fprintf(w, "  %-9s %7d → %7d tokens  (%d edits)\n", s.Name, s.Before, s.After, s.Edits)
	}
	if dry {
		for _, r := range res.Removed {
			fmt.Fprintf(w, "  would %s item %d (-%d tokens): %s\n", r.Step, r.Item, r.Tokens, r.What)
		}
	}
	verb := "pruned to"
	if !res.Changed() {
		verb = "unchanged at"
	}
	fmt.Fprintf(w, "history: %s %d tokens", verb, res.After)
	if res.DroppedTurns > 0 {
		fmt.Fprintf(w, ", %s dropped", plural(res.DroppedTurns, "turn"))
	}
	fmt.Fprintln(w)
}

// pruneSummary is the one line that says what a prune cut: "pruned 9120
// → 5980 tokens to fit 6000, 2 turns dropped".
func pruneSummary(res *history.Result) string {
	msg := fmt.Sprintf("pruned %d → %d tokens to fit %d", res.Before, res.After, res.Limit)
	if res.DroppedTurns > 0 {
		msg += ", " + plural(res.DroppedTurns, "turn") + " dropped"
	}
	return msg + " (-explain for each step)"
}
