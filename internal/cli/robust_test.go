package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/ctxtrim/ctxtrim/internal/nonroot"
	"github.com/ctxtrim/ctxtrim/internal/txtartest"
)

// The bad inputs every command is run on (robustCases), as files in a test
// directory: $F in a case's args is the file of its input, $D the
// directory, $R a small repository holding the input as bad.txt.
const (
	inEmpty       = "empty"
	inBinary      = "binary"
	inNotUTF8     = "invalid UTF-8"
	inShape       = "wrong JSON shape"
	inWrongFormat = "wrong format named"
	inHugeLine    = "huge single line"
	inUnreadable  = "unreadable file"
	inMissing     = "missing path"
	inZeros       = "endless NULs" // stdin only: /dev/zero
	inYes         = "endless text" // stdin only: yes "line of text"
)

// hugeLine is a single line of 3 MB: three times count's 1 MiB chunk, over
// index's 1 MiB file limit.
var hugeLine = strings.Repeat("lorem ipsum dolor sit amet ", 3<<20/27)

// inputFiles are the contents of each bad input.
func inputFiles() map[string]string {
	chat := `{"model":"gpt-4o","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hi."},{"role":"assistant","content":"Hi."},{"role":"user","content":"Again."}]}`
	hugeChat, _ := json.Marshal(map[string]any{"messages": []map[string]string{
		{"role": "user", "content": hugeLine}, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "and now?"}}})
	return map[string]string{
		inEmpty:       "",
		inBinary:      "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		inNotUTF8:     "caf\xe9 cr\xe8me\n",
		inShape:       `{"messages": {"role": "user", "content": "hi"}}`,
		inWrongFormat: chat,
		inHugeLine:    hugeLine,
		"huge chat":   string(hugeChat),
		inUnreadable:  "secret\n",
	}
}

// robustCase is one command on one bad input. code is the exit status;
// where, for a failure, is what the one-line message must name. stdout
// "" requires an empty stdout; otherwise it is a substring stdout must
// hold (a report, or the result of a command that succeeds).
type robustCase struct {
	input  string
	args   []string
	stdin  string // the name of an input whose content is piped in
	code   int
	where  string
	stdout string
}

// robustCases are the commands' answers to the same bad inputs: the table
// of input problems (input.go) applied by each. A command for which an
// input means nothing special (JSON for fit) shows that it takes it as
// what it is.
func robustCases() map[string][]robustCase {
	return map[string][]robustCase{
		"count": {
			{input: inEmpty, args: []string{"count", "$F"}, code: exitOK, stdout: "0 $F"},
			{input: inBinary, args: []string{"count", "$F"}, code: exitBadInput, where: "$F"},
			{input: inNotUTF8, args: []string{"count", "$F"}, code: exitBadInput, where: "$F"},
			{input: inShape, args: []string{"count", "-chat", "$F"}, code: exitBadInput, where: "$F"},
			{input: inWrongFormat, args: []string{"count", "-chat", "-encoding", "p50k", "$F"}, code: exitUsage, where: "p50k"},
			{input: inHugeLine, args: []string{"count", "$F"}, code: exitOK, stdout: "$F"},
			{input: inUnreadable, args: []string{"count", "$F"}, code: exitError, where: "$F"},
			{input: inMissing, args: []string{"count", "$F"}, code: exitUsage, where: "$F"},
			{input: inZeros, args: []string{"count"}, stdin: inZeros, code: exitBadInput, where: stdinName},
			{input: inZeros, args: []string{"count", "-chat"}, stdin: inZeros, code: exitBadInput, where: stdinName},
		},
		"fit": {
			{input: inEmpty, args: []string{"fit", "-budget", "100"}, stdin: inEmpty, code: exitOK},
			{input: inBinary, args: []string{"fit", "-budget", "100"}, stdin: inBinary, code: exitBadInput, where: stdinName},
			{input: inNotUTF8, args: []string{"fit", "-budget", "100"}, stdin: inNotUTF8, code: exitBadInput, where: stdinName},
			{input: inShape, args: []string{"fit", "-budget", "100"}, stdin: inShape, code: exitOK, stdout: `"messages"`},
			{input: inWrongFormat, args: []string{"fit", "-budget", "100", "-keep", "middle"}, stdin: inWrongFormat, code: exitUsage, where: "-keep"},
			{input: inHugeLine, args: []string{"fit", "-budget", "1000"}, stdin: inHugeLine, code: exitTrimmed, stdout: "ctxtrim: dropped"},
			{input: inUnreadable, args: []string{"fit", "-from-error", "@$F"}, stdin: inShape, code: exitError, where: "-from-error @$F"},
			{input: inMissing, args: []string{"fit", "-from-error", "@$F"}, stdin: inShape, code: exitUsage, where: "-from-error @$F"},
			{input: inZeros, args: []string{"fit", "-budget", "100"}, stdin: inZeros, code: exitBadInput, where: stdinName},
			{input: inZeros, args: []string{"fit", "-from-error", "@/dev/zero"}, stdin: inShape, code: exitBadInput, where: "-from-error @/dev/zero"},
		},
		"history": {
			{input: inEmpty, args: []string{"history", "-budget", "1000", "$F"}, code: exitBadInput, where: "$F"},
			{input: inBinary, args: []string{"history", "-budget", "1000", "$F"}, code: exitBadInput, where: "$F"},
			{input: inNotUTF8, args: []string{"history", "-budget", "1000", "$F"}, code: exitBadInput, where: "$F"},
			{input: inShape, args: []string{"history", "-budget", "1000", "$F"}, code: exitBadInput, where: "$F"},
			{input: inWrongFormat, args: []string{"history", "-budget", "1000", "-format", "anthropic", "$F"}, code: exitBadInput, where: "$F"},
			{input: "huge chat", args: []string{"history", "-budget", "3000", "$F"}, code: exitTrimmed, stdout: "and now?"},
			{input: inUnreadable, args: []string{"history", "-budget", "1000", "$F"}, code: exitError, where: "$F"},
			{input: inMissing, args: []string{"history", "-budget", "1000", "$F"}, code: exitUsage, where: "$F"},
			{input: inZeros, args: []string{"history", "-budget", "1000"}, stdin: inZeros, code: exitBadInput, where: stdinName},
		},
		"split": {
			{input: inEmpty, args: []string{"split", "-budget", "1000", "$F"}, code: exitBadInput, where: "$F"},
			{input: inBinary, args: []string{"split", "-budget", "1000", "$F"}, code: exitBadInput, where: "$F"},
			{input: inNotUTF8, args: []string{"split", "-budget", "1000", "$F"}, code: exitBadInput, where: "$F"},
			{input: inShape, args: []string{"split", "-budget", "1000", "$F"}, code: exitOK, stdout: `"messages"`},
			{input: inWrongFormat, args: []string{"split", "-budget", "1000", "-request", "yaml", "$F"}, code: exitUsage, where: "-request"},
			{input: inHugeLine, args: []string{"split", "-budget", "100000", "$F"}, code: exitOK, stdout: "[ctxtrim: line cut here"},
			{input: inUnreadable, args: []string{"split", "-budget", "1000", "$F"}, code: exitError, where: "$F"},
			{input: inMissing, args: []string{"split", "-budget", "1000", "$F"}, code: exitUsage, where: "$F"},
			{input: inZeros, args: []string{"split", "-budget", "1000"}, stdin: inZeros, code: exitBadInput, where: stdinName},
			{input: inZeros, args: []string{"split", "-budget", "1000", "-instructions", "/dev/zero"}, stdin: inShape, code: exitBadInput, where: "-instructions /dev/zero"},
		},
		"select": {
			{input: inEmpty, args: []string{"-C", "$R", "-budget", "1000"}, stdin: inEmpty, code: exitBadInput, where: "the task on (stdin)"},
			{input: inBinary, args: []string{"-C", "$R", "-budget", "1000"}, stdin: inBinary, code: exitBadInput, where: "the task on (stdin)"},
			{input: inNotUTF8, args: []string{"-C", "$R", "-budget", "1000"}, stdin: inNotUTF8, code: exitBadInput, where: "the task on (stdin)"},
			{input: inShape, args: []string{"-C", "$R", "-budget", "1000"}, stdin: inShape, code: exitOK, stdout: "# Task"},
			{input: inWrongFormat, args: []string{"-C", "$R", "-budget", "1000", "-format", "yaml", "retry"}, code: exitUsage, where: `"yaml"`},
			{input: inHugeLine, args: []string{"-C", "$R", "-budget", "1000"}, stdin: inHugeLine, code: exitNoFit, where: "task"},
			{input: inUnreadable, args: []string{"-C", "$R", "-budget", "1000", "the", "bad", "text"}, code: exitOK, stdout: "# Task"},
			{input: inMissing, args: []string{"-C", "$F", "-budget", "1000", "retry"}, code: exitUsage, where: "-C $F"},
			{input: inZeros, args: []string{"-C", "$R", "-budget", "4000"}, stdin: inZeros, code: exitBadInput, where: stdinName},
			// The task's cap is 64 MiB: cheap enough to read here (fit's
			// and split's are run in a subprocess: TestInputCapsMemory).
			{input: inYes, args: []string{"-C", "$R", "-budget", "4000"}, stdin: inYes, code: exitBadInput, where: "larger than 64 MiB"},
		},
		"index": {
			{input: inEmpty, args: []string{"index", "-C", "$D"}, code: exitOK, stdout: "files:"},
			{input: inBinary, args: []string{"index", "-C", "$R", "-explain"}, code: exitOK, stdout: "bad.txt  binary"},
			{input: inNotUTF8, args: []string{"index", "-C", "$R", "-explain"}, code: exitOK, stdout: "bad.txt  not UTF-8"},
			{input: inHugeLine, args: []string{"index", "-C", "$R", "-explain"}, code: exitOK, stdout: "bad.txt  too large"},
			{input: inUnreadable, args: []string{"index", "-C", "$R", "-explain"}, code: exitOK, stdout: "bad.txt  unreadable"},
			{input: inMissing, args: []string{"index", "-C", "$F"}, code: exitUsage, where: "-C $F"},
		},
		"check": {
			{input: inEmpty, args: []string{"check", "-C", "$D", "$F"}, code: exitOK, stdout: "ok"},
			{input: inBinary, args: []string{"check", "-C", "$D", "$F"}, code: exitBadInput, where: "AGENTS.md", stdout: "warn"},
			{input: inNotUTF8, args: []string{"check", "-C", "$D", "$F"}, code: exitBadInput, where: "AGENTS.md", stdout: "warn"},
			{input: inWrongFormat, args: []string{"check", "-C", "$D", "-encoding", "p50k", "$F"}, code: exitUsage, where: "p50k"},
			{input: inHugeLine, args: []string{"check", "-C", "$D", "$F"}, code: exitNoFit, where: "over budget", stdout: "over"},
			{input: inUnreadable, args: []string{"check", "-C", "$D", "$F"}, code: exitError, where: "AGENTS.md", stdout: "warn"},
			{input: inMissing, args: []string{"check", "-C", "$D", "$F"}, code: exitUsage, where: "$F"},
		},
	}
}

// TestRobustInputs runs every command on the same bad inputs and checks
// the exit code, a one-line message on stderr that says where the problem
// is and what to do ("where: what; what to do"), and that a failed command
// writes no partial result to stdout. The unreadable file is checked by
// TestRobustUnreadable, which needs a user that permissions apply to.
func TestRobustInputs(t *testing.T) {
	runRobust(t, func(c robustCase) bool { return c.input != inUnreadable })
}

// TestRobustUnreadable is TestRobustInputs for a file at mode 000, as a
// user that is not root (internal/nonroot).
func TestRobustUnreadable(t *testing.T) {
	if !nonroot.Here(t) {
		return
	}
	runRobust(t, func(c robustCase) bool { return c.input == inUnreadable })
}

func runRobust(t *testing.T, keep func(robustCase) bool) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	isolateConfig(t)
	for cmd, cases := range robustCases() {
		for _, tc := range cases {
			if !keep(tc) {
				continue
			}
			t.Run(cmd+"/"+tc.input, func(t *testing.T) {
				f, d, r := robustFixture(t, cmd, tc.input)
				expand := func(s string) string {
					return strings.NewReplacer("$F", f, "$D", d, "$R", r).Replace(s)
				}
				args := make([]string, len(tc.args))
				for i, a := range tc.args {
					args[i] = expand(a)
				}
				var stdin io.Reader = strings.NewReader(inputFiles()[tc.stdin])
				switch tc.stdin {
				case inZeros:
					stdin = &endless{line: "\x00"}
				case inYes:
					stdin = &endless{line: "line of text\n"}
				}
				var stdout, stderr bytes.Buffer
				code := Run(args, stdin, &stdout, &stderr)
				if code != tc.code {
					t.Fatalf("ctxtrim %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), code, tc.code, clipString(stderr.String()))
				}
				out := stdout.String()
				if want := expand(tc.stdout); want == "" && out != "" {
					t.Errorf("stdout %q, want nothing", clipString(out))
				} else if !strings.Contains(out, want) {
					t.Errorf("stdout %q, want it to hold %q", clipString(out), want)
				}
				if tc.where == "" {
					return
				}
				msg := stderr.String()
				lines := strings.Split(strings.TrimSuffix(msg, "\n"), "\n")
				last := lines[len(lines)-1]
				switch {
				case !strings.HasPrefix(last, "ctxtrim: "):
					t.Errorf("stderr %q: the last line is not one ctxtrim: message", msg)
				case !strings.Contains(last, expand(tc.where)):
					t.Errorf("message %q does not name %q", last, expand(tc.where))
				case !strings.Contains(last, "; ") && !strings.Contains(last, "(known: ") && !strings.Contains(last, ": want ") && tc.code != exitNoFit:
					// what to do: a hint after "; ", or the valid values
					t.Errorf("message %q does not say what to do (\"what; what to do\", or the valid values)", last)
				case strings.Contains(msg, "struct {") || strings.Contains(msg, "Go value"):
					t.Errorf("message %q shows Go types", msg)
				}
			})
		}
	}
}

// robustFixture writes the input for a command into a fresh directory and
// returns the file's path ($F), the directory ($D) and a repository ($R)
// holding it as bad.txt. For check the file is the directory's AGENTS.md;
// a missing input is a path that does not exist.
func robustFixture(t *testing.T, cmd, input string) (f, d, r string) {
	t.Helper()
	d = t.TempDir()
	name := "input.txt"
	if cmd == "check" {
		name = "AGENTS.md"
	}
	f = filepath.Join(d, name)
	content := inputFiles()[input]
	if input == inMissing {
		f = filepath.Join(d, "nope", name)
	} else if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if input == inUnreadable {
		if err := os.Chmod(f, 0); err != nil {
			t.Fatal(err)
		}
	}
	if cmd != "select" && cmd != "index" {
		return f, d, ""
	}
	ar := &txtar.Archive{Files: []txtar.File{
		{Name: "retry/retry.go", Data: []byte("package retry\n\n// Do retries the request.\nfunc Do() error { return nil }\n")},
		{Name: "bad.txt", Data: []byte(content)},
	}}
	r = txtartest.Repo(t, ar)
	if input == inUnreadable {
		if err := os.Chmod(filepath.Join(r, "bad.txt"), 0); err != nil {
			t.Fatal(err)
		}
	}
	if input == inEmpty {
		d = t.TempDir() // an empty directory
	}
	return f, d, r
}

// clipString shortens s for a failure message.
func clipString(s string) string {
	if len(s) > 400 {
		return s[:200] + " … " + s[len(s)-200:]
	}
	return s
}

// TestInputCapsMemory runs the built binary under a 4 GB address-space
// limit (ulimit -v, in the subprocess's shell only) on endless text, as
// "yes | ctxtrim fit" is: each command must stop at its input cap with one
// line and exit 4, never die out of memory with a Go runtime trace. The
// binary is built once, into the test's directory.
func TestInputCapsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a gigabyte per command")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for ulimit")
	}
	bin := filepath.Join(t.TempDir(), "ctxtrim")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ctxtrim/ctxtrim").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	isolateConfig(t)
	for _, args := range [][]string{
		{"fit", "-budget", "100"},
		{"split", "-budget", "1000"},
		{"history", "-budget", "1000"},
		{"count", "-chat"},
		{"-budget", "4000", "-C", t.TempDir()},
	} {
		t.Run(args[0], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			// 4,000,000 KiB, as the report ran it.
			cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `ulimit -v 4000000 && exec "$0" "$@"`, bin}, args...)...)
			cmd.Stdin = &endless{line: "line of text\n"}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			msg := stderr.String()
			if strings.Contains(msg, "goroutine ") || strings.Contains(msg, "fatal error") || strings.Count(msg, "\n") != 1 {
				t.Fatalf("ctxtrim %s: %v; stderr is not one line:\n%s", strings.Join(args, " "), err, clipString(msg))
			}
			if code != exitBadInput || !strings.Contains(msg, "larger than") {
				t.Errorf("ctxtrim %s: exit %d, %q; want exit %d, larger than the cap", strings.Join(args, " "), code, msg, exitBadInput)
			}
		})
	}
}

// TestHelpStatesInputCaps: the help of each command that holds its input
// whole states its cap (input.go), and each command that can exit 4 says
// so, so that exit 4 is documented where the user looks.
func TestHelpStatesInputCaps(t *testing.T) {
	isolateConfig(t)
	for _, tc := range []struct {
		cmd  string
		want string
	}{
		{"fit", sizeText(maxHeldInput)},
		{"split", sizeText(maxHeldInput)},
		{"history", sizeText(maxHeldInput)},
		{"count", sizeText(maxChatInput)},
		{"count", "constant memory"},
		{"check", "4 when a file cannot be checked"},
	} {
		_, stderr, _ := runBuf(t, "", tc.cmd, "-h")
		if !strings.Contains(strings.Join(strings.Fields(stderr), " "), tc.want) {
			t.Errorf("ctxtrim %s -h does not state %q:\n%s", tc.cmd, tc.want, stderr)
		}
	}
}

// TestSplitSourceExits: the repository sources of split (-diff, -staged,
// -files) named wrongly are usage errors (2), as the exit-code table has
// them; they were runtime errors (1). So is -request without a model.
func TestSplitSourceExits(t *testing.T) {
	isolateConfig(t)
	repo := txtartest.Repo(t, &txtar.Archive{Files: []txtar.File{
		{Name: "a.go", Data: []byte("package a\n")},
		{Name: "img.bin", Data: []byte("\x00\x01\x02")},
	}})
	nongit := t.TempDir()
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		where string
	}{
		{"range without ..", []string{"-diff", "HEAD", "-C", repo}, exitUsage, "-diff HEAD: want REV..REV"},
		{"unknown revision", []string{"-diff", "nosuch..HEAD", "-C", repo}, exitUsage, `-diff nosuch..HEAD: resolve "nosuch": reference not found; name commits`},
		{"-diff outside a repository", []string{"-diff", "HEAD~1..HEAD", "-C", nongit}, exitUsage, "-C " + nongit + " is not inside a git repository"},
		{"-staged outside a repository", []string{"-staged", "-C", nongit}, exitUsage, "-C " + nongit + " is not inside a git repository"},
		{"no file matches", []string{"-files", "nosuch/**", "-C", repo}, exitUsage, "no file matches nosuch/**; check the pattern"},
		{"bad pattern", []string{"-files", "[", "-C", repo}, exitUsage, `bad -files pattern "["`},
		{"every match binary", []string{"-files", "*.bin", "-C", repo}, exitBadInput, "every file matching *.bin is binary"},
		{"a range that exists", []string{"-diff", "HEAD..HEAD", "-C", repo}, exitBadInput, "empty diff"},
		// Issue 61 item 14: bodies without "model" were written, exit 0.
		{"anthropic bodies without a model", []string{"-staged", "-C", repo, "-request", "anthropic"}, exitUsage, `which need a "model": pass -model M`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runBuf(t, "", append([]string{"split", "-budget", "1000"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.where) {
				t.Errorf("ctxtrim split %s: exit %d, %q; want %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.where)
			}
		})
	}
}

// TestCLISmallThings: the small items of issue 61 (item 17), each a row:
// the exit status, and what stderr and stdout must hold. stdin is the
// text piped in, or a directory or a regular file opened as stdin ("<").
func TestCLISmallThings(t *testing.T) {
	d := isolateConfig(t)
	file := filepath.Join(d, "a.txt")
	if err := os.WriteFile(file, []byte("some text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := filepath.Join(d, "chat.json")
	big := strings.Repeat("word ", 400)
	if err := os.WriteFile(chat, []byte(`{"messages":[{"role":"user","content":"`+big+`"},{"role":"assistant","content":"`+big+`"},{"role":"user","content":"`+big+`"},{"role":"assistant","content":"ok"},{"role":"user","content":"and now?"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "AGENTS.md"), []byte("\x00binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("word ", 30) + "\n"
	const isDir, isFile = "<DIR", "<FILE"
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr string
		stdout string
	}{
		{"fit < DIR", []string{"fit", "-budget", "100"}, isDir, exitUsage, "ctxtrim: (stdin): is a directory; redirect a file (< FILE)", ""},
		{"count < DIR", []string{"count"}, isDir, exitUsage, "(stdin): is a directory; redirect a file", ""},
		{"history < DIR", []string{"history", "-budget", "100"}, isDir, exitUsage, "(stdin): is a directory; redirect a file", ""},
		{"select < DIR", []string{"-budget", "1000"}, isDir, exitUsage, "the task on (stdin): is a directory; redirect a file", ""},
		{"count FILE < FILE", []string{"count", file}, isFile, exitOK, "ctxtrim: stdin is not read: the input is the FILE arguments\n", "3"},
		{"count - < FILE reads it", []string{"count", file, "-"}, isFile, exitOK, "", "total"},
		{"history FILE < FILE", []string{"history", "-budget", "100000", chat}, isFile, exitOK, "ctxtrim: stdin is not read: the input is " + chat + "\n", "and now?"},
		{"index -jobs negative", []string{"index", "-jobs", "-3"}, "", exitUsage, "-jobs must not be negative, got -3", ""},
		{"select \"\" is not stdin", []string{"-budget", "8000", ""}, "a task on stdin", exitUsage, "the task argument is empty", ""},
		{"select -history negative", []string{"-budget", "8000", "-history", "-5", "retry"}, "", exitUsage, "-history -5: want a number of commits", ""},
		{"select TASK < FILE", []string{"-C", d, "-budget", "8000", "retry"}, isFile, exitOK, "ctxtrim: stdin is not read: the input is the task arguments\n", ""},
		{"fit: 1 line", []string{"fit", "-budget", "80"}, line + line + line, exitTrimmed, "(dropped 1 line, 31 tokens)", "word"},
		{"history says a cut", []string{"history", "-budget", "600", chat}, "", exitTrimmed, "ctxtrim: pruned ", "and now?"},
		{"history -q says nothing", []string{"history", "-q", "-budget", "600", chat}, "", exitTrimmed, "", "and now?"},
		{"check exit 4 has its summary", []string{"check", "-C", d}, "", exitBadInput, "ctxtrim: 1 of 1 prompt files could not be checked (AGENTS.md); the report is incomplete", "AGENTS.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdin io.Reader = strings.NewReader(tc.stdin)
			switch tc.stdin {
			case isDir, isFile:
				p := map[string]string{isDir: t.TempDir(), isFile: file}[tc.stdin]
				f, err := os.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				stdin = f
			}
			var stdout, stderr bytes.Buffer
			code := Run(tc.args, stdin, &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("ctxtrim %s: exit %d, want %d; stderr:\n%s", strings.Join(tc.args, " "), code, tc.code, stderr.String())
			}
			if tc.stderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.stderr)
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout %q, want it to hold %q", clipString(stdout.String()), tc.stdout)
			}
		})
	}
}
