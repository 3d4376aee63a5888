package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/internal/badutf8"
	"github.com/ctxtrim/ctxtrim/slicer"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// Streaming limits of count. Memory stays below maxPending + one read,
// plus what counting a piece of that size takes: tens of bytes per byte
// for a piece the tokenizer cannot cut, which the cap and forcedPiece
// bound (a text of one 50 MB line counts in under 40 MiB of RSS).
const (
	countChunk   = 1 << 20  // count in pieces of about 1 MiB
	maxPending   = 1 << 20  // a run with no safe split point this long is cut anyway …
	forcedPiece  = 64 << 10 // … into pieces of this size, whose merges stay small
	readBufBytes = 256 << 10
	firstRead    = 16 << 10 // the first read; later ones double up to readBufBytes
)

// countResult is one row of count's output.
type countResult struct {
	Name    string `json:"name"`
	Tokens  int    `json:"tokens"`
	Bytes   int64  `json:"bytes"`
	Error   string `json:"error,omitempty"`
	Approx  bool   `json:"approx,omitempty"` // a run over maxPending without a safe split point was split
	errCode int
}

func runCount(e *env, args []string) error {
	fs := flag.NewFlagSet("count", flag.ContinueOnError)
	var bf budgetFlags
	bf.registerCounting(fs)
	asJSON := fs.Bool("json", false, "print JSON: per-file counts, total, encoding, estimate")
	chat := fs.Bool("chat", false, "each input is an OpenAI Chat Completions request body (JSON): count the whole request, message framing and tool definitions included")
	names, err := parseFlags(e, fs, args, "ctxtrim count [-model M | -encoding E] [-json] [-chat] [FILE...]",
		"Counts tokens per file and in total, like wc; reads stdin when no FILE is given or FILE is -.\n"+
			"With -model, counts with the model's tokenizer (an estimate for non-OpenAI models, noted on stderr).\n"+
			"count streams in constant memory and reads any size, like wc; -chat decodes the whole request\n"+
			fmt.Sprintf("and reads at most %s of it. Binary input (a NUL in the first %d bytes) is not counted.\n", sizeText(maxChatInput), index.BinarySniffBytes)+
			fmt.Sprintf("Exit status: 0 ok, %d a FILE could not be read, %d usage or no such FILE, %d binary or not UTF-8 input;\n", exitError, exitUsage, exitBadInput)+
			"the other files are still counted.")
	if err != nil {
		return err
	}
	p, err := bf.plan(".", false)
	if err != nil {
		return usageError(err)
	}
	bf.warn(e)

	if len(names) == 0 {
		names = []string{"-"}
	} else if !slices.Contains(names, "-") {
		noteIgnoredStdin(e, "the FILE arguments")
	}
	var results []countResult
	total := 0
	var totalBytes int64
	code := exitOK
	for _, name := range names {
		r := countOne(e, p, name, *chat)
		if r.Error != "" {
			fmt.Fprintf(e.stderr, "ctxtrim: %s\n", r.Error)
			code = worseExit(code, r.errCode)
		} else {
			total += r.Tokens
			totalBytes += r.Bytes
			if r.Approx {
				fmt.Fprintf(e.stderr, "ctxtrim: %s: a run of over %d MiB that the tokenizer cannot cut (one letter or digit repeated) was counted in pieces of %d KiB; its count may be off by a few tokens\n", displayName(name), maxPending>>20, forcedPiece>>10)
			}
		}
		results = append(results, r)
	}

	if *asJSON {
		out := struct {
			Encoding string        `json:"encoding"`
			Model    string        `json:"model,omitempty"`
			Factor   float64       `json:"factor"`
			Estimate bool          `json:"estimate"`
			Note     string        `json:"note,omitempty"`
			Files    []countResult `json:"files"`
			Total    int           `json:"total"`
			Bytes    int64         `json:"bytes"`
		}{p.encName, p.model.Name, p.factor, p.factor != 1, p.note, results, total, totalBytes}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
		return statusOf(code)
	}
	if p.note != "" {
		fmt.Fprintf(e.stderr, "ctxtrim: %s\n", p.note)
	}
	var buf bytes.Buffer
	for _, r := range results {
		if r.Error != "" {
			continue
		}
		if r.Name == "-" && len(names) == 1 {
			fmt.Fprintf(&buf, "%d\n", r.Tokens)
		} else {
			fmt.Fprintf(&buf, "%8d %s\n", r.Tokens, displayName(r.Name))
		}
	}
	if len(names) > 1 {
		fmt.Fprintf(&buf, "%8d total\n", total)
	}
	if _, err := e.stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	return statusOf(code)
}

// statusOf is count's outcome when it has reported each file's problem
// itself: nil, or the exit status of the worst one.
func statusOf(code int) error {
	if code == exitOK {
		return nil
	}
	return exitStatus(code)
}

func displayName(name string) string {
	if name == "-" {
		return "(stdin)"
	}
	// A newline or a byte that is not UTF-8 in a name would split the
	// table: quoted as git and the prompt quote such names.
	return slicer.QuotePath(name)
}

// worseExit keeps the more serious of two exit codes: runtime errors beat
// usage errors (a path that does not exist), which beat bad input, which
// beats success.
func worseExit(a, b int) int {
	rank := func(c int) int {
		switch c {
		case exitOK:
			return 0
		case exitBadInput:
			return 1
		case exitUsage:
			return 2
		}
		return 3
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// countOne counts one file ("-" for stdin). Problems with the file are
// reported in the result (Error holds the one-line message, naming the
// file), not returned: one bad file does not stop the run.
func countOne(e *env, p *budgetPlan, name string, chat bool) countResult {
	r := countResult{Name: name}
	fail := func(err error) countResult {
		r.Error, r.errCode, r.Tokens, r.Bytes = err.Error(), exitCode(err), 0, 0
		return r
	}
	in, where, done, err := openInput(e, name, "the text", "count the files in it: ctxtrim count DIR/*")
	if err != nil {
		return fail(err)
	}
	defer done()
	if chat {
		data, err := readInput(in, where, chatInput)
		if err != nil {
			return fail(err)
		}
		if err := checkText(where, data, chatInput); err != nil {
			return fail(err)
		}
		msgs, tools, err := budget.ParseChatRequest(data)
		if err != nil {
			return fail(&inputError{problem: probMalformed, where: where, detail: err.Error(), hint: "pass " + chatRequestWhat, err: err})
		}
		r.Bytes = int64(len(data))
		// budget's one accounting of a Chat request, which scales an
		// estimate's total once.
		r.Tokens = budget.CountChat(p.counter, msgs, tools)
		return r
	}
	var size int64
	var approx bool
	// Counted exactly piece by piece, the total scaled once.
	r.Tokens = budget.Total(p.counter, func(exact budget.Counter) (n int) {
		n, size, approx, err = countStream(exact, in, where)
		return n
	})
	r.Bytes, r.Approx = size, approx
	if err != nil {
		return fail(err)
	}
	return r
}

// chatRequestWhat is what count -chat reads, for hints.
const chatRequestWhat = `an OpenAI Chat Completions request body ({"messages": [...]}) or a JSON array of messages`

// chatInput is what count -chat reads: it decodes the whole request, so
// it reads at most maxChatInput.
var chatInput = textRules{nonEmpty: true, what: chatRequestWhat, max: maxChatInput,
	tooLarge: "a request body is at most a few MB; count it without -chat"}

// countStream counts r exactly in bounded memory: it reads pieces of about
// countChunk bytes and counts each up to a split point where the tokenizer
// itself splits (see safeSplit), so the sum equals the count of the whole.
// It rejects binary input (a NUL byte in the first 8000 bytes) and invalid
// UTF-8 as the input problems of checkText, naming the input where.
func countStream(c budget.Counter, r io.Reader, where string) (tokens int, size int64, approx bool, err error) {
	// Reads go straight into buf, whose room grows from firstRead to
	// readBufBytes: a short input costs a small buffer, not the 2 MiB of
	// zeroed pages a full chunk would (a third of a millisecond of page
	// faults in a fresh process).
	var buf []byte
	want := firstRead
	var offset int64 // bytes before buf
	sniffed := false
	for eof := false; !eof; {
		buf = slices.Grow(buf, want)
		n, rerr := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		want = min(2*want, readBufBytes)
		size += int64(n)
		if rerr == io.EOF {
			eof = true
		} else if rerr != nil {
			return 0, size, approx, openError(where, rerr, "")
		}
		if !sniffed && (len(buf) >= index.BinarySniffBytes || eof) {
			sniffed = true
			if i := index.BinaryAt(buf); i >= 0 {
				return 0, size, approx, inputProblem(probBinary, where, fmt.Sprintf("binary input (NUL byte at offset %d), not counted", offset+int64(i)), "pass text")
			}
		}
		if !eof && len(buf) < countChunk {
			continue
		}
		// forced: the piece has no point where the tokenizer splits, and
		// is over maxPending: it is counted in forcedPiece pieces.
		cut, forced := len(buf), false
		switch {
		case eof:
			forced = len(buf) > maxPending && budget.LastSafeSplit(buf) == 0
		default:
			cut = budget.LastSafeSplit(buf)
			if cut == 0 {
				if len(buf) < maxPending {
					continue // keep reading until a safe point or the cap
				}
				cut, forced = lastRuneStart(buf), true
			}
		}
		piece := buf[:cut]
		if !utf8.Valid(piece) {
			i := badutf8.Offset(piece)
			return 0, size, approx, inputProblem(probNotUTF8, where, fmt.Sprintf("not valid UTF-8 (first bad byte at offset %d)", offset+int64(i)),
				"convert it to UTF-8 first (iconv -f LATIN1 -t UTF-8)")
		}
		if forced {
			// One letter repeated, a run of digits: byte-pair merging a
			// piece costs tens of bytes per byte, so such a run is
			// counted in small pieces, and the count is approximate.
			approx = true
			for len(piece) > 0 {
				k := len(piece)
				if k > forcedPiece {
					k = lastRuneStart(piece[:forcedPiece+1])
				}
				tokens += c.Count(string(piece[:k]))
				piece = piece[k:]
			}
		} else {
			tokens += c.Count(string(piece))
		}
		offset += int64(cut)
		buf = append(buf[:0], buf[cut:]...)
	}
	return tokens, size, approx, nil
}

// lastRuneStart returns the start of the last rune in b (for a forced split).
func lastRuneStart(b []byte) int {
	i := len(b) - 1
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	if i <= 0 {
		return len(b)
	}
	return i
}
