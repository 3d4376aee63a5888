package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
