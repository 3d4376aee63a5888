package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// plural renders n and noun, in the plural unless n is 1: "1 line",
// "2 lines".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// fitInput is what fit reads: it must hold the whole text to keep its
// tail, so it reads at most maxHeldInput.
var fitInput = textRules{what: "text", max: maxHeldInput,
	tooLarge: "fit holds its input in memory; cut it first (head -c, or ctxtrim split)"}

func runFit(e *env, args []string) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	var bf budgetFlags
	bf.register(fs)
	keep := fs.String("keep", "both", "which ends to keep: `both|head|tail` (both drops the middle)")
	quiet := fs.Bool("q", false, "do not report the cut on stderr")
	help := "Trims text from stdin to the input budget at line boundaries, keeping head and tail,\n" +
		"with a marker line saying how much was dropped. It holds the text in memory and reads\n" +
		fmt.Sprintf("at most %s of it: more, or binary input (a NUL in the first %d bytes), is bad input.\n", sizeText(maxHeldInput), index.BinarySniffBytes) +
		fmt.Sprintf("Exit status: 0 unchanged, %d trimmed, %d usage, %d bad input, %d budget smaller than the marker, %d error.", exitTrimmed, exitUsage, exitBadInput, exitNoFit, exitError)
	pos, err := parseFlags(e, fs, args, "ctxtrim fit (-model M | -budget N | -window N -encoding E) [-reserve N] [-from-error TEXT|@FILE] [-keep both|head|tail] < text", help)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError(fmt.Errorf("fit reads stdin and takes no arguments, got %q (use: ctxtrim fit … < %[1]s)", pos[0]))
	}
	var opts budget.FitOptions
	if opts.Keep, err = budget.ParseKeep(*keep); err != nil {
		return usageError(fmt.Errorf("-keep %w", err))
	}
	c, limit, note, err := bf.resolve(".")
	if err != nil {
		return usageError(err)
	}
	bf.warn(e)

	in, where, done, err := openInput(e, "-", "the text", "")
	if err != nil {
		return err
	}
	defer done()
	data, err := readText(in, where, fitInput)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		// Nothing fits any budget: a filter passes empty input through
		// (git diff | ctxtrim fit | … must not fail on a clean tree).
		return nil
	}
	if err := checkText(where, data, fitInput); err != nil {
		return err
	}
	defer capMemoryFor(len(data))()

	opts.Budget = limit
	r, err := budget.Fit(data, c, &opts)
	if errors.Is(err, budget.ErrBudgetTooSmall) {
		return noFitError(err)
	}
	if err != nil {
		return err
	}
	if _, err := io.WriteString(e.stdout, r.Text); err != nil {
		return err
	}
	if !r.Cut {
		return nil
	}
	if !*quiet {
		msg := fmt.Sprintf("ctxtrim: trimmed %d → %d tokens to fit %d (dropped %s, %s)", r.InputTokens, r.Tokens, limit, plural(r.DroppedLines, "line"), plural(r.DroppedTokens, "token"))
		if note != "" {
			msg += "; " + note
		}
		fmt.Fprintln(e.stderr, msg)
	}
	return exitStatus(exitTrimmed)
}
