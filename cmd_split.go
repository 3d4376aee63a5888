package main

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
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	fdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/ctxtrim/ctxtrim/split"
)

func init() {
	commands["split"] = command{summary: "cut an oversized task into requests that each fit the budget", run: runSplit}
}

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
request bodies with -request, or one file per part plus manifest.json with
-out DIR. Exit status: 0 done, 2 usage, 4 bad input, 5 the instructions
leave no room or more than -max-parts parts are needed, 1 other errors.`

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
	noIgnore     bool
	verbose      bool
}

func runSplit(e *env, args []string) int {
	var f splitFlags
	fs := flag.NewFlagSet("split", flag.ContinueOnError)
	f.budgetFlags.register(fs)
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
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "max_tokens `N` of Anthropic requests (default 4096)")
	fs.BoolVar(&f.verify, "verify", false, "check that every part fits and that the parts hold the input exactly")
	fs.StringVar(&f.dir, "C", ".", "repository `DIR` for -diff, -staged and -files")
	fs.BoolVar(&f.noIgnore, "no-ignore", false, "with -files, keep files that .gitignore ignores")
	fs.BoolVar(&f.verbose, "v", false, "report the parts on stderr")
	pos, code, ok := parseFlags(e, fs, args, splitSynopsis, splitHelp)
	if !ok {
		return code
	}
	// Every flag conflict is rejected before any file is read.
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	opts, err := f.validate(pos, set)
	if err != nil {
		return e.fail(exitUsage, err)
	}
	if err := f.budgetFlags.validate(); err != nil {
		return e.fail(exitUsage, fmt.Errorf("split: %w", err))
	}
	c, limit, note, err := f.resolve(f.dir)
	if err != nil {
		return e.fail(exitUsage, fmt.Errorf("split: %w", err))
	}
	opts.Model = f.modelName()
	if opts.Model == "" && opts.Format != split.Plain {
		fmt.Fprintln(e.stderr, `ctxtrim: split: the request bodies have no "model" (the API requires one): pass -model M or set model in .ctxtrim.toml`)
	}
	in, code, err := f.read(e, opts, pos)
	if err != nil {
		return e.fail(code, err)
	}
	opts.Budget = limit
	if note != "" {
		fmt.Fprintf(e.stderr, "ctxtrim: %s\n", note)
	}
	if f.verbose {
		opts.Logf = func(format string, args ...any) { fmt.Fprintf(e.stderr, "ctxtrim: "+format+"\n", args...) }
	}
	res, err := split.Split(context.Background(), in, c, opts)
	switch {
	case errors.Is(err, split.ErrNoFit), errors.Is(err, split.ErrTooManyParts):
		return e.fail(exitNoFit, err)
	case err != nil:
		return e.fail(exitError, err)
	}
	if f.verify {
		if err := split.Verify(in, res, c, opts); err != nil {
			return e.fail(exitError, err)
		}
	}
	if err := f.write(e, res); err != nil {
		return e.fail(exitError, err)
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
	return exitOK
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
	opts := &split.Options{MaxParts: f.maxParts, MaxTokens: f.maxTokens, Reduce: f.reduce}
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
	if set["max-tokens"] && opts.Format != split.Anthropic {
		return nil, fmt.Errorf("split: -max-tokens sets max_tokens of Anthropic requests: it needs -request anthropic")
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
func (f *splitFlags) read(e *env, opts *split.Options, args []string) (split.Input, int, error) {
	var in split.Input
	if f.instructions != "" {
		b, err := os.ReadFile(f.instructions)
		if err != nil {
			return in, exitError, fmt.Errorf("read instructions: %w", err)
		}
		opts.Instructions = string(b)
	}
	if f.reduceFile != "" {
		b, err := os.ReadFile(f.reduceFile)
		if err != nil {
			return in, exitError, fmt.Errorf("read reduce instructions: %w", err)
		}
		opts.ReduceInstructions = string(b)
	}
	var err error
	switch {
	case f.diffRange != "":
		var text string
		text, err = gitRangeDiff(f.dir, f.diffRange)
		in = split.Input{Kind: split.Diff, Sources: []split.Source{{Name: f.diffRange, Text: text}}}
	case f.staged:
		var text string
		text, err = gitStagedDiff(f.dir)
		in = split.Input{Kind: split.Diff, Sources: []split.Source{{Name: "staged", Text: text}}}
	case len(f.files) > 0:
		in, err = readGlobs(e, f.dir, f.files, !f.noIgnore)
	default:
		name, r := "-", e.stdin
		if len(args) == 1 && args[0] != "-" {
			file, err := os.Open(args[0])
			if err != nil {
				return in, exitError, err
			}
			defer file.Close()
			if st, err := file.Stat(); err == nil && st.IsDir() {
				return in, exitBadInput, fmt.Errorf("%s: is a directory (use -files GLOB for the files in it)", args[0])
			}
			name, r = args[0], file
		}
		if name == "-" && stdinIsTerminal(e) {
			fmt.Fprintln(e.stderr, "ctxtrim: reading the input from the terminal; end it with Ctrl-D")
		}
		b, err := io.ReadAll(r)
		if err != nil {
			if name == "-" {
				err = fmt.Errorf("read stdin: %w", err)
			}
			return in, exitError, err // a file's error names it
		}
		if i := bytes.IndexByte(b[:min(len(b), binarySniff)], 0); i >= 0 {
			return in, exitBadInput, fmt.Errorf("%s: binary input (NUL byte at offset %d)", displayName(name), i)
		}
		kind := split.Text
		if !f.text && split.LooksLikeDiff(string(b)) {
			kind = split.Diff
		}
		in = split.Input{Kind: kind, Sources: []split.Source{{Name: name, Text: string(b)}}}
	}
	if err != nil {
		return in, exitError, err
	}
	if opts.Format != split.Plain {
		for _, src := range in.Sources {
			if !utf8.ValidString(src.Text) {
				return in, exitBadInput, fmt.Errorf("split: %s: not valid UTF-8 (first bad byte at offset %d): JSON request bodies cannot carry it unchanged; convert it to UTF-8 or split without -request",
					displayName(src.Name), invalidAt([]byte(src.Text)))
			}
		}
	}
	empty := true
	for _, s := range in.Sources {
		empty = empty && s.Text == ""
	}
	if empty && in.Kind != split.Files {
		return in, exitBadInput, fmt.Errorf("split: empty input")
	}
	return in, exitOK, nil
}

// unescape interprets \n, \t, \f, \0 and \\ in a flag value.
func unescape(s string) string {
	r := strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\f`, "\f", `\0`, "\x00")
	return r.Replace(s)
}

// write sends the parts where the flags say.
func (f *splitFlags) write(e *env, res *split.Result) error {
	parts := res.Parts
	if res.Reduce != nil {
		parts = append(parts[:len(parts):len(parts)], *res.Reduce)
	}
	manifest, err := jsonIndent(res.Manifest)
	if err != nil {
		return err
	}
	if f.manifest != "" {
		if err := os.WriteFile(f.manifest, manifest, 0o644); err != nil {
			return fmt.Errorf("write manifest: %w", err)
		}
	}
	if f.out != "" {
		return writeDir(f.out, parts, res.Reduce != nil, f.request != "", manifest)
	}
	if f.request != "" {
		for _, p := range parts {
			if _, err := io.WriteString(e.stdout, p.Text+"\n"); err != nil {
				return err
			}
		}
		return nil
	}
	delim := unescape(f.delimiter)
	for i, p := range parts {
		s := p.Text
		if i > 0 {
			s = delim + s
		}
		if _, err := io.WriteString(e.stdout, s); err != nil {
			return err
		}
	}
	return nil
}

// writeDir writes part-001.txt (or .json) … and manifest.json into dir,
// first removing the files of an earlier run that the new one would not
// overwrite.
func writeDir(dir string, parts []split.Part, reduce, isJSON bool, manifest []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil {
		return err
	}
	for _, p := range old {
		if strings.HasSuffix(p, ".txt") || strings.HasSuffix(p, ".json") {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	ext := ".txt"
	if isJSON {
		ext = ".json"
	}
	width := max(3, len(strconv.Itoa(len(parts))))
	for i, p := range parts {
		name := fmt.Sprintf("part-%0*d", width, p.Index)
		if reduce && i == len(parts)-1 {
			name += "-reduce"
		}
		if err := os.WriteFile(filepath.Join(dir, name+ext), []byte(p.Text), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644)
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

// readGlobs reads the regular, non-binary files under dir matching any of
// the patterns, sorted by path. Binary files are reported and left out, and
// so, when dir is in a git work tree and ignore is set, are files that its
// .gitignore files ignore.
func readGlobs(e *env, dir string, patterns []string, ignore bool) (split.Input, error) {
	in := split.Input{Kind: split.Files}
	fsys := os.DirFS(dir)
	seen := map[string]bool{}
	var paths []string
	for _, p := range patterns {
		if !doublestar.ValidatePattern(p) {
			return in, fmt.Errorf("split: bad -files pattern %q", p)
		}
		matches, err := doublestar.Glob(fsys, p, doublestar.WithFilesOnly(), doublestar.WithNoFollow())
		if err != nil {
			return in, fmt.Errorf("glob %q: %w", p, err)
		}
		for _, m := range matches {
			if !seen[m] && !strings.HasPrefix(m, ".git/") {
				seen[m] = true
				paths = append(paths, m)
			}
		}
	}
	if ignore {
		kept, ignored, err := dropIgnored(dir, paths)
		if err != nil {
			return in, err
		}
		if ignored > 0 {
			fmt.Fprintf(e.stderr, "ctxtrim: left out %d files that .gitignore ignores (-no-ignore keeps them)\n", ignored)
		}
		paths = kept
	}
	if len(paths) == 0 {
		return in, fmt.Errorf("split: no file matches %s", strings.Join(patterns, ", "))
	}
	sort.Strings(paths)
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return in, fmt.Errorf("read %s: %w", p, err)
		}
		if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
			fmt.Fprintf(e.stderr, "ctxtrim: skipping binary file %s\n", p)
			continue
		}
		in.Sources = append(in.Sources, split.Source{Name: p, Text: string(b)})
	}
	if len(in.Sources) == 0 {
		return in, fmt.Errorf("split: every file matching %s is binary", strings.Join(patterns, ", "))
	}
	return in, nil
}

// dropIgnored removes from paths (relative to dir) the files ignored by
// the .gitignore files of the work tree holding dir. Outside a work tree it
// keeps every path.
func dropIgnored(dir string, paths []string) (kept []string, ignored int, err error) {
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return paths, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open repository %s: %w", dir, err)
	}
	wt, err := r.Worktree()
	if errors.Is(err, git.ErrIsBareRepository) {
		return paths, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open work tree of %s: %w", dir, err)
	}
	ps, err := gitignore.ReadPatterns(wt.Filesystem, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("read .gitignore files: %w", err)
	}
	m := gitignore.NewMatcher(ps)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, 0, err
	}
	root := wt.Filesystem.Root()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for _, p := range paths {
		rel, err := filepath.Rel(root, filepath.Join(abs, filepath.FromSlash(p)))
		if err == nil && m.Match(strings.Split(filepath.ToSlash(rel), "/"), false) {
			ignored++
			continue
		}
		kept = append(kept, p)
	}
	return kept, ignored, nil
}

func openRepo(dir string) (*git.Repository, error) {
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	return r, nil
}

func resolveCommit(r *git.Repository, rev string) (*object.Commit, error) {
	h, err := r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("resolve %q: %w", rev, err)
	}
	c, err := r.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", rev, err)
	}
	return c, nil
}

// gitRangeDiff returns the unified diff of REV..REV, or of REV...REV from
// the merge base, read with go-git.
func gitRangeDiff(dir, spec string) (string, error) {
	from, to, ok := strings.Cut(spec, "...")
	mergeBase := ok
	if !ok {
		from, to, ok = strings.Cut(spec, "..")
	}
	if !ok || from == "" || to == "" {
		return "", fmt.Errorf("split: -diff wants REV..REV or REV...REV, got %q", spec)
	}
	r, err := openRepo(dir)
	if err != nil {
		return "", err
	}
	a, err := resolveCommit(r, from)
	if err != nil {
		return "", err
	}
	b, err := resolveCommit(r, to)
	if err != nil {
		return "", err
	}
	if mergeBase {
		bases, err := a.MergeBase(b)
		if err != nil {
			return "", fmt.Errorf("merge base of %s and %s: %w", from, to, err)
		}
		if len(bases) == 0 {
			return "", fmt.Errorf("%s and %s have no merge base", from, to)
		}
		a = bases[0]
	}
	p, err := a.Patch(b)
	if err != nil {
		return "", fmt.Errorf("diff %s: %w", spec, err)
	}
	var buf bytes.Buffer
	if err := fdiff.NewUnifiedEncoder(&buf, fdiff.DefaultContextLines).Encode(p); err != nil {
		return "", fmt.Errorf("encode diff %s: %w", spec, err)
	}
	return buf.String(), nil
}

// gitStagedDiff returns the unified diff from HEAD to the git index.
func gitStagedDiff(dir string) (string, error) {
	r, err := openRepo(dir)
	if err != nil {
		return "", err
	}
	idx, err := r.Storer.Index()
	if err != nil {
		return "", fmt.Errorf("read index: %w", err)
	}
	head := map[string]stagedFile{}
	if ref, err := r.Head(); err == nil {
		c, err := r.CommitObject(ref.Hash())
		if err != nil {
			return "", fmt.Errorf("read HEAD: %w", err)
		}
		tree, err := c.Tree()
		if err != nil {
			return "", fmt.Errorf("read HEAD tree: %w", err)
		}
		err = tree.Files().ForEach(func(f *object.File) error {
			head[f.Name] = stagedFile{f.Hash, f.Mode, f.Name}
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("walk HEAD tree: %w", err)
		}
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	staged := map[string]stagedFile{}
	for _, en := range idx.Entries {
		if en.Mode == filemode.Submodule {
			continue
		}
		staged[en.Name] = stagedFile{en.Hash, en.Mode, en.Name}
	}
	names := map[string]bool{}
	for n := range head {
		names[n] = true
	}
	for n := range staged {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var patch stagedPatch
	for _, n := range sorted {
		a, inHead := head[n]
		b, inIndex := staged[n]
		if inHead && inIndex && a.hash == b.hash && a.mode == b.mode {
			continue
		}
		fp := &stagedFilePatch{}
		var from, to string
		if inHead {
			fp.from = &a
			if from, err = blobText(r, a.hash); err != nil {
				return "", err
			}
		}
		if inIndex {
			fp.to = &b
			if to, err = blobText(r, b.hash); err != nil {
				return "", err
			}
		}
		fp.binary = strings.IndexByte(from, 0) >= 0 || strings.IndexByte(to, 0) >= 0
		if !fp.binary {
			for _, d := range diff.Do(from, to) {
				op := fdiff.Equal
				switch d.Type {
				case diffmatchpatch.DiffInsert:
					op = fdiff.Add
				case diffmatchpatch.DiffDelete:
					op = fdiff.Delete
				}
				fp.chunks = append(fp.chunks, stagedChunk{d.Text, op})
			}
		}
		patch = append(patch, fp)
	}
	var buf bytes.Buffer
	if err := fdiff.NewUnifiedEncoder(&buf, fdiff.DefaultContextLines).Encode(patch); err != nil {
		return "", fmt.Errorf("encode staged diff: %w", err)
	}
	return buf.String(), nil
}

func blobText(r *git.Repository, h plumbing.Hash) (string, error) {
	b, err := r.BlobObject(h)
	if err != nil {
		return "", fmt.Errorf("read blob %s: %w", h, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return "", fmt.Errorf("read blob %s: %w", h, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return "", fmt.Errorf("read blob %s: %w", h, err)
	}
	return string(data), nil
}

// The staged* types implement go-git's diff.Patch for HEAD → index.
type stagedFile struct {
	hash plumbing.Hash
	mode filemode.FileMode
	path string
}

func (f *stagedFile) Hash() plumbing.Hash     { return f.hash }
func (f *stagedFile) Mode() filemode.FileMode { return f.mode }
func (f *stagedFile) Path() string            { return f.path }

type stagedChunk struct {
	content string
	op      fdiff.Operation
}

func (c stagedChunk) Content() string       { return c.content }
func (c stagedChunk) Type() fdiff.Operation { return c.op }

type stagedFilePatch struct {
	from, to *stagedFile
	binary   bool
	chunks   []stagedChunk
}

func (p *stagedFilePatch) IsBinary() bool { return p.binary }
func (p *stagedFilePatch) Files() (from, to fdiff.File) {
	if p.from != nil {
		from = p.from
	}
	if p.to != nil {
		to = p.to
	}
	return from, to
}
func (p *stagedFilePatch) Chunks() []fdiff.Chunk {
	out := make([]fdiff.Chunk, len(p.chunks))
	for i, c := range p.chunks {
		out[i] = c
	}
	return out
}

type stagedPatch []*stagedFilePatch

func (p stagedPatch) FilePatches() []fdiff.FilePatch {
	out := make([]fdiff.FilePatch, len(p))
	for i, f := range p {
		out[i] = f
	}
	return out
}
func (p stagedPatch) Message() string { return "" }
