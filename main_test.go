package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run the test binary as the ctxtrim command
// (CTXTRIM_RUN_MAIN=1), for behaviour only a real process shows, such as
// a closed stdout pipe. Otherwise it runs the tests.
func TestMain(m *testing.M) {
	if os.Getenv("CTXTRIM_RUN_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestClosedStdoutIsSuccess: "ctxtrim … | head -c1" exits 0 and says
// nothing; before, Go's runtime killed fit, split and history with SIGPIPE
// (exit 141) once the reader had gone.
func TestClosedStdoutIsSuccess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command as a subprocess")
	}
	isolateConfig(t)
	text := strings.Repeat("a line of text that goes on for a while, 0123456789\n", 40000) // 2 MB
	var chat bytes.Buffer
	msgs := []map[string]string{}
	for range 20 {
		msgs = append(msgs, map[string]string{"role": "user", "content": text[:100000]})
	}
	if err := json.NewEncoder(&chat).Encode(map[string]any{"messages": msgs}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"fit", text, []string{"fit", "-budget", "10000000"}},
		{"split", text, []string{"split", "-budget", "2000"}},
		{"history", chat.String(), []string{"history", "-budget", "10000000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], tc.args...)
			cmd.Env = append(os.Environ(), "CTXTRIM_RUN_MAIN=1")
			cmd.Stdin = strings.NewReader(tc.stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(out, make([]byte, 1)); err != nil {
				t.Fatal(err)
			}
			out.Close() // the reader goes away, as head -c1 does
			err = cmd.Wait()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Errorf("%v (exit code %d); stderr %q", err, ee.ExitCode(), stderr.String())
			} else if err != nil {
				t.Fatal(err)
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr %q, want nothing", stderr.String())
			}
		})
	}
}

// isolateConfig points the user config at an empty directory and the
// working directory at a fresh repository, so no real config leaks in.
func isolateConfig(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
}

// TestVersionFromBuildInfo builds ctxtrim as a user does (go build in the
// checkout) and checks that --version reports the revision checked out,
// read from the build info git stamps. It skips outside a git checkout.
func TestVersionFromBuildInfo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): no revision to compare", err)
	}
	bin := filepath.Join(t.TempDir(), "ctxtrim")
	// -buildvcs=true: GOFLAGS may turn stamping off (sandboxes do).
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		if strings.Contains(string(out), "VCS") {
			t.Skipf("go cannot stamp the VCS revision here: %s", out)
		}
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// go stamps no revision in a linked worktree (its .git is a file).
	if m, err := exec.Command("go", "version", "-m", bin).Output(); err != nil || !strings.Contains(string(m), "vcs.revision=") {
		t.Skip("go stamped no VCS revision into the build (a linked worktree?): nothing to compare")
	}
	for _, arg := range []string{"--version", "version"} {
		out, err := exec.Command(bin, arg).Output()
		if err != nil {
			t.Fatalf("ctxtrim %s: %v", arg, err)
		}
		want := "revision " + strings.TrimSpace(string(head))
		if !strings.HasPrefix(string(out), "ctxtrim ") || !strings.Contains(string(out), want) {
			t.Errorf("ctxtrim %s = %q, want it to name %q", arg, out, want)
		}
	}
}

// TestSplitOutSIGTERM sends SIGTERM to ctxtrim split -out DIR at several
// moments of a run of about 800 parts: whenever it lands, DIR is either
// absent with a message on stderr and exit 130 (or the process was killed
// before it could catch the signal, having written nothing), or complete (every part
// the manifest lists, and no other) with exit 0, and nothing is left
// beside it. Before, the run died leaving 162 of 2,091 parts, no manifest
// and no message.
func TestSplitOutSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command as a subprocess")
	}
	isolateConfig(t)
	var text strings.Builder
	for i := range 150000 {
		fmt.Fprintf(&text, "line %d: retry the request body after a 503 from the server\n", i)
	}
	for _, delay := range []time.Duration{0, 20 * time.Millisecond, 150 * time.Millisecond, 500 * time.Millisecond, 2 * time.Second} {
		t.Run(delay.String(), func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "parts")
			cmd := exec.Command(os.Args[0], "split", "-budget", "2000", "-out", dir)
			cmd.Env = append(os.Environ(), "CTXTRIM_RUN_MAIN=1")
			cmd.Stdin = strings.NewReader(text.String())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay)
			cmd.Process.Signal(syscall.SIGTERM) // may land after the exit
			err := cmd.Wait()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			names, _ := filepath.Glob(filepath.Join(parent, "*"))
			switch code {
			case 130:
				if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("interrupted, but %s exists", dir)
				}
				if !strings.Contains(stderr.String(), "ctxtrim: interrupted") {
					t.Errorf("interrupted without saying so: stderr %q", stderr.String())
				}
				if len(names) != 0 {
					t.Errorf("left behind: %q", names)
				}
			case 0:
				data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
				if err != nil {
					t.Fatalf("exit 0 without a manifest: %v", err)
				}
				var m struct {
					Parts []json.RawMessage `json:"parts"`
				}
				if err := json.Unmarshal(data, &m); err != nil {
					t.Fatal(err)
				}
				files, _ := filepath.Glob(filepath.Join(dir, "part-*.txt"))
				if len(files) != len(m.Parts) || len(m.Parts) == 0 {
					t.Errorf("%d part files, the manifest lists %d", len(files), len(m.Parts))
				}
				if len(names) != 1 {
					t.Errorf("beside the output: %q", names)
				}
			case -1:
				// Killed before ctxtrim set up its handler: it had
				// written nothing.
				if len(names) != 0 {
					t.Errorf("killed early, but left %q", names)
				}
			default:
				t.Fatalf("exit %d; stderr %q", code, stderr.String())
			}
			t.Logf("SIGTERM after %v: exit %d", delay, code)
		})
	}
}
