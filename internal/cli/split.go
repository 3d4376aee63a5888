package cli

// ctxtrim split: cut an oversized task into requests that each fit.
//
//	git diff main...HEAD | ctxtrim split -budget 32000 -instructions review.md -request openai > parts.jsonl
//	ctxtrim split -budget 16000 -files 'internal/**/*.go' -instructions add-docs.md -out parts/
//	ctxtrim split -budget 8000 -diff v5.11.0..v5.12.0 -out parts/ -reduce -verify
//	ctxtrim split -budget 8000 big.log > parts.txt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ctxtrim/ctxtrim/internal/badutf8"
	"github.com/ctxtrim/ctxtrim/internal/codex"
	"github.com/ctxtrim/ctxtrim/split"
)

// minAnswerRoom is the fewest tokens per partial answer below which the
// reduce part is worth a warning: a review finding takes about 50 tokens,
// so less than this leaves room for a handful at most.
const minAnswerRoom = 256

const splitSynopsis = "ctxtrim split [-model M | -budget N] [flags] [FILE|-]"

const splitHelp = `Cuts a task too large for one request into parts that each fit the budget
(-budget N, else the model's input limit), counted exactly on the rendered
part: instructions + "[part i of n]" + payload, as text or request JSON.

Input: a unified diff or text on stdin or FILE, -diff REV..REV, -staged, or
-files GLOB. Output: plain parts separated by -delimiter on stdout, JSONL
request bodies with -request (which needs -model, or model in .ctxtrim.toml:
the APIs reject a body without one), or one file per part plus manifest.json with
-out DIR. split holds stdin or FILE in memory and reads at most 512 MiB of
it; more, or binary input (a NUL in the first 8000 bytes), is bad input.
Exit status: 0 done, 2 usage, 4 bad input, 5 the instructions leave no
room or more than -max-parts parts are needed, 1 other errors.`

// defaultDelimiter separates plain-text parts on stdout.
const defaultDelimiter = `\n<<<ctxtrim part boundary>>>\n`

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

type splitFlags struct {
	budgetFlags
	instructions string
	diffRange    string
	staged       bool
	files        stringList
	text         bool
	request      string
	out          string
	manifest     string
	delimiter    string
	reduce       bool
	reduceFile   string
	maxParts     int
	maxTokens    int
	verify       bool
	dir          string
	dirFlag      string // -C or -repo, as given, for errors
	noIgnore     bool
	verbose      bool
}

func runSplit(e *env, args []string) error {
	// SIGINT and SIGTERM end the run between parts, never in the middle
	// of one: -out DIR is then left as it was (writeDir), and stdout is
	// never left half-written without a message.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var f splitFlags
	fs := flag.NewFlagSet("split", flag.ContinueOnError)
	f.budgetFlags.register(fs)
	f.budgetFlags.registerFor(fs)
	fs.StringVar(&f.instructions, "instructions", "", "`FILE` of shared instructions, repeated in every part")
	fs.StringVar(&f.diffRange, "diff", "", "split the diff between two commits: `REV..REV` (or REV...REV from the merge base)")
	fs.BoolVar(&f.staged, "staged", false, "split the staged changes (HEAD to index)")
	fs.Var(&f.files, "files", "split the files matching `GLOB` (doublestar, repeatable)")
	fs.BoolVar(&f.text, "text", false, "treat the input as text even if it looks like a diff")
	fs.StringVar(&f.request, "request", "", "render parts as request bodies of `API` openai or anthropic (JSONL on stdout)")
	fs.StringVar(&f.out, "out", "", "write one file per part and manifest.json into `DIR`")
	fs.StringVar(&f.manifest, "manifest", "", "write the manifest (JSON) to `FILE`")
	fs.StringVar(&f.delimiter, "delimiter", defaultDelimiter, "separator `TEXT` between plain parts on stdout (\\n, \\t, \\f, \\0 escapes)")
	fs.BoolVar(&f.reduce, "reduce", false, "add a final part that merges the partial answers")
	fs.StringVar(&f.reduceFile, "reduce-instructions", "", "`FILE` replacing the default text of the reduce part")
	fs.IntVar(&f.maxParts, "max-parts", 0, "fail if more than `N` parts are needed (0: no limit)")
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "answer cap `N` of request parts: max_tokens (anthropic), max_completion_tokens (openai) (default 4096)")
	fs.BoolVar(&f.verify, "verify", false, "check that every part fits and that the parts hold the input exactly")
	fs.StringVar(&f.dir, "C", ".", "repository `DIR` for -diff, -staged and -files")
	aliasFlag(fs, "repo", "C")
	aliasFlag(fs, "staged-diff", "staged")
	fs.BoolVar(&f.noIgnore, "no-ignore", false, "with -files, keep files that ignore rules exclude (.gitignore, info/exclude, core.excludesFile, .ctxtrimignore)")
	fs.BoolVar(&f.verbose, "v", false, "report the parts on stderr")
	pos, err := parseFlags(e, fs, args, splitSynopsis, splitHelp)
	if err != nil {
		return err
	}
	f.dirFlag = flagAsSet(fs, "C", "repo")
	// Every flag conflict is rejected before any file is read.
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	opts, err := f.validate(pos, set)
	if err != nil {
		return usageError(err)
	}
	if err := f.budgetFlags.validate(); err != nil {
		return usageError(fmt.Errorf("split: %w", err))
	}
	plan, err := f.plan(f.dir, true)
	if errors.Is(err, codex.ErrNoRoom) {
		return noFitError(fmt.Errorf("split: %w", err))
	}
	if err != nil {
		return usageError(fmt.Errorf("split: %w", err))
	}
	c, limit, note := plan.counter, plan.limit, plan.note
	f.warn(e)
	if plan.codex != nil && f.verbose {
		fmt.Fprintf(e.stderr, "ctxtrim: for codex: %s\n", plan.codex)
	}
	opts.Model = f.modelName()
	if opts.Model == "" && opts.Format != split.Plain {
		// Both APIs reject a body without "model" (400): writing them
		// would succeed here and fail at the first request.
		return usageError(fmt.Errorf(`split: -request %s writes request bodies, which need a "model": pass -model M, or set model in .ctxtrim.toml`, f.request))
	}
	in, err := f.read(e, opts, pos)
	if err != nil {
		return err
	}
	opts.Budget = limit
	if note != "" {
		fmt.Fprintf(e.stderr, "ctxtrim: %s\n", note)
	}
	opts.Logf = e.logf(f.verbose)
	size := 0
	for _, src := range in.Sources {
		size += len(src.Text)
	}
	// The input is held once (the parts are rendered when written).
	defer capMemoryFor(size)()
	res, err := split.Split(ctx, in, c, opts)
	switch {
	case ctx.Err() != nil:
		return interruptError("interrupted before any part was written")
	case errors.Is(err, split.ErrNoFit), errors.Is(err, split.ErrTooManyParts):
		return noFitError(err)
	case err != nil:
		return err
	}
	if f.verify {
		if err := split.Verify(in, res, c, opts); err != nil {
			return err
		}
	}
	if err := f.write(ctx, e, res); err != nil {
		return err
	}
	if r := res.Manifest.Reduce; r != nil && r.AnswerRoomPerPart < minAnswerRoom {
		fmt.Fprintf(e.stderr, "ctxtrim: the reduce part leaves %d tokens for each of the %d partial answers; ask for shorter answers or raise the budget\n",
			r.AnswerRoomPerPart, len(res.Parts))
	}
	if f.verbose || f.verify {
		m := res.Manifest
		fmt.Fprintf(e.stderr, "ctxtrim: %d parts of %d bytes of %s input; tokens per part min %d, median %d, max %d (budget %d)\n",
			len(res.Parts), m.InputBytes, m.Kind, m.Tokens.Min, m.Tokens.Median, m.Tokens.Max, m.Budget)
		if f.verify {
			fmt.Fprintln(e.stderr, "ctxtrim: verified: every part fits, and the parts hold the input exactly once")
		}
	}
	return nil
}

// validate checks the flags and arguments alone (set holds the flags given
// on the command line) and returns the options they make.
func (f *splitFlags) validate(args []string, set map[string]bool) (*split.Options, error) {
	sources := 0
	for _, set := range []bool{f.diffRange != "", f.staged, len(f.files) > 0, len(args) > 0} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		return nil, fmt.Errorf("split: -diff, -staged, -files and a FILE argument exclude each other")
	}
	if len(args) > 1 {
		return nil, fmt.Errorf("split: one FILE at most, got %d: %q", len(args), args)
	}
	if f.text && (f.diffRange != "" || f.staged || len(f.files) > 0) {
		return nil, fmt.Errorf("split: -text applies only to stdin or a FILE")
	}
	// Lazy: the parts are written one at a time, rendered again then.
	opts := &split.Options{MaxParts: f.maxParts, MaxTokens: f.maxTokens, Reduce: f.reduce, Lazy: true}
	switch f.request {
	case "":
	case "openai":
		opts.Format = split.OpenAI
	case "anthropic":
		opts.Format = split.Anthropic
	default:
		return nil, fmt.Errorf("split: unknown -request %q (known: openai, anthropic)", f.request)
	}
	if f.maxParts < 0 {
		return nil, fmt.Errorf("split: -max-parts must not be negative, got %d", f.maxParts)
	}
	if f.maxTokens < 0 {
		return nil, fmt.Errorf("split: -max-tokens must not be negative, got %d", f.maxTokens)
	}
	if f.reduceFile != "" && !f.reduce {
		return nil, fmt.Errorf("split: -reduce-instructions needs -reduce")
	}
	if set["max-tokens"] && opts.Format == split.Plain {
		return nil, fmt.Errorf("split: -max-tokens sets the answer cap of request bodies: it needs -request openai or anthropic")
	}
	if set["delimiter"] && (f.request != "" || f.out != "") {
		return nil, fmt.Errorf("split: -delimiter separates plain parts on stdout; it does not apply with -request or -out")
	}
	if f.noIgnore && len(f.files) == 0 {
		return nil, fmt.Errorf("split: -no-ignore applies only to -files")
	}
	return opts, nil
}

// read reads the instructions and the input into opts and the returned
// Input, after validate.
func (f *splitFlags) read(e *env, opts *split.Options, args []string) (split.Input, error) {
	var in split.Input
	if f.instructions != "" {
		b, err := readTextFlag("-instructions "+f.instructions, f.instructions)
		if err != nil {
			return in, err
		}
		opts.Instructions = string(b)
	}
	if f.reduceFile != "" {
		b, err := readTextFlag("-reduce-instructions "+f.reduceFile, f.reduceFile)
		if err != nil {
			return in, err
		}
		opts.ReduceInstructions = string(b)
	}
	if f.diffRange != "" || f.staged || len(f.files) > 0 {
		if err := checkDir(f.dirFlag, f.dir); err != nil {
			return in, err
		}
		noteIgnoredStdin(e, "the repository's (-diff, -staged or -files)")
	} else if len(args) == 1 && args[0] != "-" {
		noteIgnoredStdin(e, args[0])
	}
	var err error
	switch {
	case f.diffRange != "":
		var text string
		text, err = split.RangeDiff(f.dir, f.diffRange)
		err = f.gitError("-diff "+f.diffRange, err)
		in = split.Input{Kind: split.Diff, Sources: []split.Source{{Name: f.diffRange, Text: text}}}
	case f.staged:
		var text string
		text, err = split.StagedDiff(f.dir)
		err = f.gitError("-staged", err)
		in = split.Input{Kind: split.Diff, Sources: []split.Source{{Name: "staged", Text: text}}}
	case len(f.files) > 0:
		for _, p := range f.files {
			if !doublestar.ValidatePattern(p) {
				return in, usageError(fmt.Errorf("split: bad -files pattern %q; see the doublestar syntax (**, *, ?, [abc], {a,b})", p))
			}
		}
		var skipped []split.Skip
		in, skipped, err = split.ReadFiles(f.dir, f.files, f.noIgnore)
		reportSkips(e, skipped)
		err = filesError(err, skipped)
	default:
		name := ""
		if len(args) == 1 {
			name = args[0]
		}
		r, where, closeIn, err := openInput(e, name, "the input", "use -files GLOB for the files in it")
		if err != nil {
			return in, err
		}
		defer closeIn()
		b, err := readText(r, where, splitInput)
		if err != nil {
			return in, err
		}
		if err := checkText(where, b, splitInput); err != nil {
			return in, err
		}
		kind := split.Text
		if !f.text && split.LooksLikeDiff(b) {
			kind = split.Diff
		}
		srcName := "-"
		if where != stdinName {
			srcName = where
		}
		in = split.Input{Kind: kind, Sources: []split.Source{{Name: srcName, Text: b}}}
	}
	if err != nil {
		return in, err
	}
	if opts.Format != split.Plain {
		for _, src := range in.Sources {
			if i := badutf8.Offset(src.Text); i < len(src.Text) {
				return in, badInputError(fmt.Errorf("split: %s: not valid UTF-8 (first bad byte at offset %d): JSON request bodies cannot carry it unchanged; convert it to UTF-8 or split without -request",
					displayName(src.Name), i))
			}
		}
	}
	empty := true
	for _, s := range in.Sources {
		empty = empty && s.Text == ""
	}
	if empty && in.Kind != split.Files {
		return in, inputProblem(probEmpty, in.Sources[0].Name, "empty diff", "nothing to split")
	}
	return in, nil
}

// gitError gives an error of reading the repository for flag (-diff
// REV..REV, -staged) its exit code: a range that is not REV..REV, a
// revision the repository lacks, and a -C directory that is no git
// repository are mistakes in how split was called (exit 2, as a bare
// repository is: exitCode); other failures (a corrupt object) stay
// runtime errors.
func (f *splitFlags) gitError(flag string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, split.ErrBadRange):
		return usageError(fmt.Errorf("split: %s: want REV..REV or REV...REV", flag))
	case errors.Is(err, git.ErrRepositoryNotExists):
		return usageError(fmt.Errorf("split: %s: %s %s is not inside a git repository; run it in one, or pass -C DIR", flag, f.dirFlag, f.dir))
	case errors.Is(err, plumbing.ErrReferenceNotFound), errors.Is(err, plumbing.ErrObjectNotFound):
		return usageError(fmt.Errorf("split: %s: %w; name commits of the repository (git log --oneline)", flag, err))
	}
	return err
}

// filesError gives an error of split.ReadFiles its exit code: a file that
// cannot be read is a runtime error (1); every matching file binary or
// not UTF-8 is bad input (4); otherwise no file matched the patterns, a
// usage error (2) as a path that does not exist is.
func filesError(err error, skipped []split.Skip) error {
	var pe *fs.PathError
	switch {
	case err == nil, errors.As(err, &pe):
		return err
	}
	for _, s := range skipped {
		if s.Reason == split.SkipBinary || s.Reason == split.SkipNotUTF8 {
			return badInputError(err)
		}
	}
	return usageError(fmt.Errorf("%w; check the pattern (relative to the -C directory)", err))
}

// splitInput is what split reads from stdin or FILE: it holds the input
// once, so it reads at most maxHeldInput, as fit does.
var splitInput = textRules{nonEmpty: true, what: "a diff or a text", max: maxHeldInput,
	tooLarge: "split holds its input in memory; cut it first (split -l, or -files GLOB for a tree)"}

// readTextFlag reads the text file a flag names: readFileFlag, then the
// content rows of the table (binary, not UTF-8).
func readTextFlag(where, path string) ([]byte, error) {
	b, err := readFileFlag(where, path)
	if err != nil {
		return nil, err
	}
	if err := checkText(where, b, textRules{}); err != nil {
		return nil, err
	}
	return b, nil
}

// unescape interprets \n, \t, \f, \0 and \\ in a flag value.
func unescape(s string) string {
	r := strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\f`, "\f", `\0`, "\x00")
	return r.Replace(s)
}

// write sends the parts where the flags say. An interrupt (ctx done)
// stops it between two parts: -out DIR and -manifest FILE are then left as
// they were; on stdout, what was written is said on stderr.
func (f *splitFlags) write(ctx context.Context, e *env, res *split.Result) error {
	parts := newPartList(res)
	manifest, err := jsonIndent(res.Manifest)
	if err != nil {
		return err
	}
	if f.out != "" {
		err := writeDir(ctx, f.out, parts, f.request != "", manifest)
		if errors.Is(err, context.Canceled) {
			return interruptError(fmt.Sprintf("interrupted; %s is left as it was (no part was written to it)", f.out))
		}
		if err != nil {
			return err
		}
	}
	if f.manifest != "" {
		if err := writeFileAtomic(f.manifest, manifest); err != nil {
			return fmt.Errorf("write manifest: %w", err)
		}
	}
	if f.out != "" {
		return nil
	}
	delim := unescape(f.delimiter)
	for i := range parts.n {
		if ctx.Err() != nil {
			return interruptError(fmt.Sprintf("interrupted after writing %d of %d parts to stdout; the output is incomplete", i, parts.n))
		}
		p, err := parts.get(i)
		if err != nil {
			return err
		}
		s := p.Text
		switch {
		case f.request != "":
			s += "\n"
		case i > 0:
			s = delim + s
		}
		if _, err := io.WriteString(e.stdout, s); err != nil {
			return err
		}
	}
	return nil
}

// partList is the parts to write, the reduce part last, rendered one at a
// time (split.Options.Lazy): a gigabyte of input is not held twice.
type partList struct {
	n      int // parts, the reduce part included
	reduce bool
	get    func(i int) (split.Part, error)
}

func newPartList(res *split.Result) partList {
	l := partList{n: len(res.Parts), reduce: res.Reduce != nil, get: res.Part}
	if l.reduce {
		l.n++
		l.get = func(i int) (split.Part, error) {
			if i == len(res.Parts) {
				return *res.Reduce, nil
			}
			return res.Part(i)
		}
	}
	return l
}

// partFileNames returns the file names of the parts in an -out directory:
// part-001.txt (or .json) …, the reduce part named part-NNN-reduce.
func partFileNames(parts partList, isJSON bool) []string {
	ext := ".txt"
	if isJSON {
		ext = ".json"
	}
	width := max(3, len(strconv.Itoa(parts.n)))
	names := make([]string, parts.n)
	for i := range names {
		name := fmt.Sprintf("part-%0*d", width, i+1)
		if parts.reduce && i == parts.n-1 {
			name += "-reduce"
		}
		names[i] = name + ext
	}
	return names
}

// manifestName is the manifest's file name in an -out directory.
const manifestName = "manifest.json"

// writeDir writes the parts and manifest.json into dir so that dir never
// holds half an output: everything is written into a fresh directory
// beside dir first, checking ctx before each file, and moved into place
// only when complete. A dir that does not exist, or holds nothing but an
// earlier run's output, is replaced by a rename; one that holds other
// files too keeps them and gets the new files renamed in one by one, the
// earlier run's part files removed. Signals are caught (runSplit), so
// this last step runs to its end. On an interrupt (context.Canceled) or an
// error, the fresh directory is removed and dir is as it was.
func writeDir(ctx context.Context, dir string, parts partList, isJSON bool, manifest []byte) (err error) {
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	// The parts are written beside dir, then moved into place: an error
	// names the directory the user chose, not that temporary one.
	cannot := func(err error) error {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("-out %s: cannot create it: %w", dir, err)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return cannot(err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".ctxtrim-")
	if err != nil {
		return cannot(err)
	}
	defer func() {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it 0700
		return err
	}
	names := partFileNames(parts, isJSON)
	for i := range parts.n {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := parts.get(i)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, names[i]), []byte(p.Text), 0o644); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, manifestName), manifest, 0o644); err != nil {
		return err
	}

	// Move into place.
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Rename(tmp, dir); err != nil {
			return err
		}
		tmp = ""
		return nil
	case err != nil:
		return err
	}
	ours := true
	for _, en := range entries {
		ours = ours && isOutputFile(en.Name())
	}
	if ours {
		old, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".ctxtrim-old-")
		if err != nil {
			return err
		}
		if err := os.Remove(old); err != nil {
			return err
		}
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		if err := os.Rename(tmp, dir); err != nil {
			os.Rename(old, dir) // put the earlier output back
			return err
		}
		tmp = ""
		return os.RemoveAll(old)
	}
	keep := map[string]bool{manifestName: true}
	for _, n := range names {
		keep[n] = true
	}
	for _, en := range entries {
		if n := en.Name(); isOutputFile(n) && !keep[n] {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return err
			}
		}
	}
	for _, n := range append(names, manifestName) {
		if err := os.Rename(filepath.Join(tmp, n), filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}

// isOutputFile reports whether name is a file split -out writes.
func isOutputFile(name string) bool {
	return name == manifestName ||
		strings.HasPrefix(name, "part-") && (strings.HasSuffix(name, ".txt") || strings.HasSuffix(name, ".json"))
}

// writeFileAtomic writes data to path through a temporary file in the
// same directory and a rename, so that an interrupt never leaves half a
// file.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".ctxtrim-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // fails harmlessly after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func jsonIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	return b.Bytes(), nil
}

// reportSkips tells on stderr which files split.ReadFiles left out: the
// number ignored by .gitignore, then each binary file.
func reportSkips(e *env, skipped []split.Skip) {
	ignored := 0
	for _, s := range skipped {
		if s.Reason == split.SkipIgnored {
			ignored++
		}
	}
	if ignored > 0 {
		noun := "files"
		if ignored == 1 {
			noun = "file"
		}
		fmt.Fprintf(e.stderr, "ctxtrim: left out %d %s that ignore rules exclude (-no-ignore keeps them)\n", ignored, noun)
	}
	for _, s := range skipped {
		switch s.Reason {
		case split.SkipBinary:
			fmt.Fprintf(e.stderr, "ctxtrim: skipping binary file %s\n", s.Path)
		case split.SkipNotUTF8:
			fmt.Fprintf(e.stderr, "ctxtrim: skipping %s: not valid UTF-8; convert it to UTF-8 (iconv -f LATIN1 -t UTF-8) to split it\n", s.Path)
		}
	}
}
