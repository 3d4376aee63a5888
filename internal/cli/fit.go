package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// maxFitInput bounds what fit reads: it must hold the whole text to keep
// its tail. 1 GiB of text is ~250M tokens, far above any window.
const maxFitInput = 1 << 30

func runFit(e *env, args []string) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	var bf budgetFlags
	bf.register(fs)
	keep := fs.String("keep", "both", "which ends to keep: `both|head|tail` (both drops the middle)")
	quiet := fs.Bool("q", false, "do not report the cut on stderr")
	help := "Trims text from stdin to the input budget at line boundaries, keeping head and tail,\n" +
		"with a marker line saying how much was dropped.\n" +
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

	if stdinIsTerminal(e) {
		fmt.Fprintln(e.stderr, "ctxtrim: reading the text from the terminal; end it with Ctrl-D")
	}
	data, err := io.ReadAll(io.LimitReader(e.stdin, maxFitInput+1))
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	switch {
	case len(data) > maxFitInput:
		return badInputError(fmt.Errorf("stdin is larger than %d MiB; fit holds its input in memory", maxFitInput>>20))
	case len(data) == 0:
		// Nothing fits any budget: a filter passes empty input through
		// (git diff | ctxtrim fit | … must not fail on a clean tree).
		return nil
	}
	if i := index.BinaryAt(data); i >= 0 {
		return badInputError(fmt.Errorf("stdin looks binary (NUL byte at offset %d)", i))
	}
	if !utf8.Valid(data) {
		return badInputError(fmt.Errorf("stdin is not valid UTF-8 (first bad byte at offset %d)", invalidAt(data)))
	}

	opts.Budget = limit
	r, err := budget.Fit(string(data), c, &opts)
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
		msg := fmt.Sprintf("ctxtrim: trimmed %d → %d tokens to fit %d (dropped %d lines, %d tokens)", r.InputTokens, r.Tokens, limit, r.DroppedLines, r.DroppedTokens)
		if note != "" {
			msg += "; " + note
		}
		fmt.Fprintln(e.stderr, msg)
	}
	return exitStatus(exitTrimmed)
}
