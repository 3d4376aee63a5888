package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"github.com/ctxtrim/ctxtrim/internal/badutf8"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// Input problems. Every command reads its inputs through openInput,
// readFileFlag, checkDir and checkText, so that the same problem gives the
// same exit code and the same kind of message everywhere:
//
//	problem                                          exit  example
//	a path named on the command line does not exist  2     count nope.txt, -C /nonexistent, -instructions x.md
//	a path is a directory where a file is wanted,    2     history DIR, -C FILE
//	  or a file where a directory is
//	a file cannot be read                            1     permission denied, an I/O error
//	empty input where content is required            4     select, split, history on empty stdin
//	binary content (a NUL byte, as git decides)      4     a PNG piped in
//	not valid UTF-8                                  4     a Latin-1 file
//	not the structure expected                       4     not JSON, a JSON shape that is no conversation,
//	                                                       a body that is not the -format named
//	larger than the command can hold (input caps)    4     fit of more than 512 MiB, yes | ctxtrim …
//
// A wrong path is a mistake in how ctxtrim was called, like a bad flag
// (2); a file that exists but cannot be read is a failure of the
// environment (1); content that cannot be processed is 4. fit and count
// accept empty input (fit passes it through, count counts 0 tokens): they
// are filters whose empty result is meaningful.
type problem int

const (
	probMissing     problem = iota + 1 // the path does not exist
	probKind                           // a directory for a file, or a file for a directory
	probUnreadable                     // exists, cannot be read
	probEmpty                          // empty where content is required
	probBinary                         // a NUL byte in the sniffed prefix
	probNotUTF8                        // invalid UTF-8
	probMalformed                      // not the structure expected
	probWrongFormat                    // a valid input, but not of the format named
	probTooLarge                       // larger than the command can hold
)

// exit is the exit code of a problem: the table above.
func (p problem) exit() int {
	switch p {
	case probMissing, probKind:
		return exitUsage
	case probUnreadable:
		return exitError
	}
	return exitBadInput
}

// inputError is one input problem: what (the problem and its detail),
// where (a path, "(stdin)", or a flag and its value) and what to do (hint).
// Its message is one line: "where: detail; hint".
type inputError struct {
	problem problem
	where   string
	detail  string
	hint    string
	err     error // the cause, if any
}

func (e *inputError) Error() string {
	msg := e.detail
	if e.where != "" {
		msg = e.where + ": " + msg
	}
	if e.hint != "" {
		msg += "; " + e.hint
	}
	return msg
}

func (e *inputError) Unwrap() error { return e.err }

// inputProblem returns an inputError.
func inputProblem(p problem, where, detail, hint string) *inputError {
	return &inputError{problem: p, where: where, detail: detail, hint: hint}
}

// openError classifies the error of opening or reading the file at where.
func openError(where string, err error, hint string) error {
	var pe *fs.PathError
	detail := err.Error()
	if errors.As(err, &pe) {
		detail = pe.Err.Error()
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &inputError{problem: probMissing, where: where, detail: "no such file or directory", hint: "check the path", err: err}
	case errors.Is(err, fs.ErrPermission):
		return &inputError{problem: probUnreadable, where: where, detail: "permission denied", hint: "check its permissions", err: err}
	case errors.Is(err, syscall.EISDIR):
		// Read from a directory: "ctxtrim fit < /tmp". A directory where
		// a file is wanted, as openInput finds it for a named path.
		if strings.HasSuffix(where, stdinName) {
			hint = "redirect a file (< FILE), or pipe the input in"
		} else if hint == "" {
			hint = "name a file"
		}
		return &inputError{problem: probKind, where: where, detail: "is a directory", hint: hint, err: err}
	}
	return &inputError{problem: probUnreadable, where: where, detail: detail, hint: hint, err: err}
}

// noteIgnoredStdin says on stderr, in one line, that stdin is not read when
// a command was given its input as arguments (count a.txt < b.txt), when
// stdin is a regular file that is not empty: that much is known from a
// stat, without reading. A pipe is not looked into: whether it holds
// anything cannot be known without reading it (which could block on a
// writer that never writes), and an empty pipe is what harnesses give.
func noteIgnoredStdin(e *env, given string) {
	f, ok := e.stdin.(*os.File)
	if !ok {
		return
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		fmt.Fprintf(e.stderr, "ctxtrim: stdin is not read: the input is %s\n", given)
	}
}

// stdinName is how messages name standard input.
const stdinName = "(stdin)"

// openInput opens a command's input: stdin for "" or "-", else the file
// name. what names the input for the terminal note ("the conversation").
// It returns the reader, the name messages use for it, and a function that
// closes it. A directory is a probKind problem whose hint is dirHint (or a
// generic one when empty).
func openInput(e *env, name, what, dirHint string) (io.Reader, string, func(), error) {
	if name == "" || name == "-" {
		if stdinIsTerminal(e) {
			fmt.Fprintf(e.stderr, "ctxtrim: reading %s from the terminal; end it with Ctrl-D\n", what)
		}
		return e.stdin, stdinName, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, name, nil, openError(name, err, "")
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		if dirHint == "" {
			dirHint = "name a file"
		}
		return nil, name, nil, inputProblem(probKind, name, "is a directory", dirHint)
	}
	return f, name, func() { f.Close() }, nil
}

// readFileFlag reads the file at path that a flag names (-instructions
// FILE, -from-error @FILE, -config FILE); where is the flag as given
// ("-instructions x.md"). It reads through readInput with flagFileInput's
// cap: "-instructions /dev/zero" is binary at once, not an endless read.
func readFileFlag(where, path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, openError(where, err, "")
	}
	if st.IsDir() {
		return nil, inputProblem(probKind, where, "is a directory", "name a file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(where, err, "")
	}
	defer f.Close()
	return readInput(f, where, flagFileInput)
}

// checkDir checks that the directory a flag names (-C DIR) exists.
func checkDir(flagName, dir string) error {
	where := fmt.Sprintf("%s %s", flagName, dir)
	st, err := os.Stat(dir)
	if err != nil {
		return openError(where, err, "")
	}
	if !st.IsDir() {
		return inputProblem(probKind, where, "not a directory", "name the repository's directory")
	}
	return nil
}

// textRules says which content checkText rejects, and how much readInput
// reads.
type textRules struct {
	nonEmpty bool   // empty (or only white space) is probEmpty
	what     string // what the input should be, for hints: "a conversation", "text"
	max      int64  // readInput: more bytes than this is probTooLarge (0: maxTaskInput)
	tooLarge string // readInput: the hint when the input is over max
}

// Input caps. A command that holds its input whole reads at most this
// many bytes of it and stops at the first byte more, with probTooLarge
// (exit 4): an endless pipe (yes, /dev/zero) ends there, and memory stays
// bounded by the cap times what the command needs per byte held. The caps
// are sized so that no input drives the process out of memory under a
// 4 GB address-space limit (ulimit -v 4000000, TestInputCapsMemory): the
// Go runtime reserves about 1.6 GB of address space at start, a pipe's
// buffer grows to the cap through buffers a third its size, and the work
// on a held byte costs about 1.5 more (docs/large-inputs.md); at 1 GiB,
// fit died reading ("fatal error: out of memory"). Each command's help
// states its cap. count streams in constant memory (like wc) and has none.
const (
	// maxTaskInput caps select's task and a file a flag names: a task
	// or instructions of 64 MiB are ~16M tokens, eight times the
	// largest window; more is a file piped by mistake.
	maxTaskInput = 64 << 20
	// maxHeldInput caps fit, split and history, which hold their input
	// once: 512 MiB is ~130M tokens, far above any window, and a 500 MB
	// Codex rollout (the largest measured) still passes.
	maxHeldInput = 512 << 20
	// maxChatInput caps count -chat, which decodes the whole request
	// (3.2 bytes per byte, measured); a request body is a few MB.
	maxChatInput = 256 << 20
)

// The rules of each input a command reads whole.
var (
	taskInput = textRules{nonEmpty: true, what: "the task as text (arguments or stdin)", max: maxTaskInput,
		tooLarge: "a task is text of a few KB; pass the task, not the material (ctxtrim split cuts that)"}
	flagFileInput = textRules{what: "a text file", max: maxTaskInput,
		tooLarge: "name a text file of the size a prompt can hold"}
)

// checkText applies the content rows of the table to data, named where:
// binary (index.BinaryAt, the one binary check), invalid UTF-8 and, when
// rules.nonEmpty, empty input.
func checkText[T string | []byte](where string, data T, rules textRules) error {
	what := rules.what
	if what == "" {
		what = "text"
	}
	if rules.nonEmpty && len(trimSpace(data)) == 0 {
		detail := "empty input"
		if len(data) > 0 {
			detail = "input is only white space"
		}
		return inputProblem(probEmpty, where, detail, "pass "+what)
	}
	if i := index.BinaryAt([]byte(data[:min(len(data), index.BinarySniffBytes)])); i >= 0 {
		return inputProblem(probBinary, where, fmt.Sprintf("binary input (NUL byte at offset %d)", i), "pass "+what)
	}
	if i := badutf8.Offset(data); i < len(data) {
		return inputProblem(probNotUTF8, where, fmt.Sprintf("not valid UTF-8 (first bad byte at offset %d)", i),
			"convert it to UTF-8 first (iconv -f LATIN1 -t UTF-8)")
	}
	return nil
}

// trimSpace trims ASCII white space, without copying.
func trimSpace[T string | []byte](b T) T {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// readInput reads r, named where, whole, for a command that holds its
// input in memory, by rules:
//
//   - binary is decided first: the first index.BinarySniffBytes bytes are
//     read and searched for a NUL before anything more is read, so a
//     300 MB file of NULs, or /dev/zero, fails at once (probBinary);
//   - at most rules.max bytes (0: maxTaskInput) are read: the first byte
//     more is probTooLarge, found as it is read, and a regular file larger
//     than that fails after the sniff without being read;
//   - the input is held once: from a regular file the buffer is sized
//     once; from a pipe it grows fourfold each time it fills, never past
//     the cap (a grown buffer is allocated but not touched until read
//     into, so the room costs address space, not memory).
//
// A read error (reading a directory, EIO) is probUnreadable. The other
// rows of the table (UTF-8, empty) are checkText's.
func readInput(r io.Reader, where string, rules textRules) ([]byte, error) {
	limit := rules.max
	if limit <= 0 {
		limit = maxTaskInput
	}
	what := rules.what
	if what == "" {
		what = "text"
	}
	tooLarge := func() error {
		return inputProblem(probTooLarge, where, fmt.Sprintf("larger than %s, the most this command reads", sizeText(limit)), rules.tooLarge)
	}
	size := int64(-1) // of a regular file
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			size = st.Size()
		}
	}
	first := int64(readTextBuf)
	switch {
	case size > limit:
		first = index.BinarySniffBytes // the sniff, then tooLarge
	case size >= 0:
		first = size + 1 // +1: the read that sees EOF needs room
	}
	b := make([]byte, 0, first)
	sniffed := false
	for {
		if len(b) == cap(b) {
			nb := make([]byte, len(b), min(max(4*int64(cap(b)), readTextBuf), limit+1))
			copy(nb, b)
			b = nb
		}
		room := cap(b)
		if !sniffed {
			room = min(room, index.BinarySniffBytes)
		}
		n, err := r.Read(b[len(b):room])
		b = b[:len(b)+n]
		if !sniffed && (len(b) >= index.BinarySniffBytes || err != nil) {
			sniffed = true
			if i := index.BinaryAt(b); i >= 0 {
				return nil, inputProblem(probBinary, where, fmt.Sprintf("binary input (NUL byte at offset %d)", i), "pass "+what)
			}
			if size > limit {
				return nil, tooLarge()
			}
		}
		if int64(len(b)) > limit {
			return nil, tooLarge()
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, openError(where, err, "")
		}
	}
}

// readText is readInput for a caller that wants a string (fit, split),
// without the copy that string(b) would make of a gigabyte: b is not
// written again after readInput returns it, so the string may share it.
func readText(r io.Reader, where string, rules textRules) (string, error) {
	b, err := readInput(r, where, rules)
	if err != nil || len(b) == 0 {
		return "", err
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// sizeText renders a byte count for messages: "1 GiB", "512 MiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readTextBuf is readInput's first read size from a pipe.
const readTextBuf = 256 << 10
