package cli

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
)

// TestCommandHelp: every command's -h (and --help) prints its help in the
// one layout (synopsis, description, flags) on stderr, nothing on stdout,
// and exits 0, before any other check runs.
func TestCommandHelp(t *testing.T) {
	isolateConfig(t)
	for _, name := range []string{"count", "models", "fit", "split", "history", "check", "index", "select"} {
		for _, h := range []string{"-h", "--help"} {
			t.Run(name+h, func(t *testing.T) {
				stdout, stderr, code := runBuf(t, "", name, "-nonsense-after-help-is-ignored=0", h)
				if code != exitUsage || stdout != "" || !strings.Contains(stderr, "-nonsense-after-help-is-ignored") {
					t.Fatalf("an unknown flag before -h: exit %d, stdout %q, stderr %q; want %d, nothing, and the flag named", code, stdout, stderr, exitUsage)
				}
				stdout, stderr, code = runBuf(t, "", name, h, "-budget", "-1")
				if code != exitOK || stdout != "" {
					t.Fatalf("exit %d, stdout %q; want 0 and nothing", code, stdout)
				}
				synopsis := "usage: ctxtrim " + name
				if name == "select" { // the default command
					synopsis = "usage: ctxtrim [select]"
				}
				if !strings.HasPrefix(stderr, synopsis) {
					t.Errorf("help does not open with the synopsis:\n%s", stderr)
				}
				if !strings.Contains(stderr, "\n\nflags:\n  -") {
					t.Errorf("help has no flags section:\n%s", stderr)
				}
				if strings.Contains(stderr, "ctxtrim: ") {
					t.Errorf("help holds an error line:\n%s", stderr)
				}
			})
		}
	}
}

// TestMisplacedAndEmptyArguments: flags after positional arguments are
// flags, and an empty MODEL is a usage error, not a budget error.
func TestMisplacedAndEmptyArguments(t *testing.T) {
	dir := isolateConfig(t)
	if err := os.WriteFile(dir+"/AGENTS.md", []byte("# Rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/a.json", []byte(`{"messages":[{"role":"user","content":"hi"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Outside dir, whose .git would make it the project of anything below.
	mirror := filepath.Join(t.TempDir(), "mirror.git")
	if _, err := git.PlainInit(mirror, true); err != nil {
		t.Fatal(err)
	}
	const bare = "mirror.git: a bare repository has no work tree; run ctxtrim in a checkout of it"
	tests := []struct {
		name    string
		args    []string
		code    int
		wantOut string
		wantErr string
	}{
		{"models MODEL -json", []string{"models", "gpt-4o", "-json"}, exitOK, `"name": "gpt-4o"`, ""},
		{"models empty name", []string{"models", ""}, exitUsage, "", "models: empty MODEL name"},
		{"models two names", []string{"models", "gpt-4o", "o3"}, exitUsage, "", "at most one MODEL"},
		{"check FILE -json", []string{"check", "AGENTS.md", "-json"}, exitOK, `"path": "AGENTS.md"`, ""},
		{"check a missing FILE", []string{"check", "AGENTS.md", "nope.md"}, exitUsage, "", "ctxtrim: nope.md: no such file or directory; check the path\n"},
		{"check absurd budget", []string{"check", "-staged-diff", "-budget", "999999999999"}, exitUsage, "", "absurd"},
		{"history FILE then flags", []string{"history", "a.json", "-budget", "100"}, exitOK, `"content":"hi"`, ""},
		{"history errors name the file", []string{"history", "AGENTS.md", "-budget", "100"}, exitBadInput, "", "ctxtrim: AGENTS.md: line 1, column 1: invalid character"},
		{"history on a directory", []string{"history", ".", "-budget", "100"}, exitUsage, "", ".: is a directory"},
		{"check -staged-diff outside a repository", []string{"check", "-staged-diff", "-C", "/"}, exitUsage, "", "is not inside a git repository"},
		{"history budget with margin", []string{"history", "-budget", "100", "-margin", "0", "/nonexistent"}, exitUsage, "", "-margin applies only"},
		// A missing directory is named by the flag as typed: -C, or its
		// alias -repo (--repo), which the error had called -C.
		{"select -repo missing", []string{"--repo", "/nonexistent", "fix"}, exitUsage, "", "ctxtrim: -repo /nonexistent: no such file or directory; check the path\n"},
		{"select -C and -repo missing", []string{"-repo", "/a", "-C", "/nonexistent", "fix"}, exitUsage, "", "ctxtrim: -C /nonexistent: no such file"},
		{"select -C missing", []string{"-C", "/nonexistent", "fix"}, exitUsage, "", "ctxtrim: -C /nonexistent: no such file or directory; check the path\n"},
		{"index -repo missing", []string{"index", "-repo", "/nonexistent"}, exitUsage, "", "ctxtrim: -repo /nonexistent: no such file"},
		{"check -staged-diff with a FILE", []string{"check", "-staged-diff", "AGENTS.md"}, exitUsage, "", "ctxtrim: -staged-diff takes no FILE arguments"},
		{"check -staged with a FILE", []string{"check", "-staged", "AGENTS.md"}, exitUsage, "", "ctxtrim: -staged takes no FILE arguments"},
		{"check -repo missing", []string{"check", "-repo", "/nonexistent"}, exitUsage, "", "ctxtrim: -repo /nonexistent: no such file"},
		{"split -repo missing", []string{"split", "-budget", "100", "-staged", "-repo", "/nonexistent"}, exitUsage, "", "ctxtrim: -repo /nonexistent: no such file"},
		{"mcp -repo missing", []string{"mcp", "-repo", "/nonexistent"}, exitUsage, "", "ctxtrim: mcp: -repo /nonexistent: not a directory"},
		// A bare repository has no files to read: every command that
		// reads a repository says so, where it had selected git's hook
		// samples.
		{"select -repo bare", []string{"-repo", mirror, "-budget", "2000", "fix"}, exitUsage, "", bare},
		{"index -repo bare", []string{"index", "-repo", mirror}, exitUsage, "", bare},
		{"check -repo bare", []string{"check", "-repo", mirror}, exitUsage, "", bare},
		{"check -staged-diff bare", []string{"check", "-staged-diff", "-C", mirror}, exitUsage, "", bare},
		{"split -staged -repo bare", []string{"split", "-budget", "100", "-staged", "-repo", mirror}, exitUsage, "", bare},
		{"mcp -repo bare", []string{"mcp", "-repo", mirror}, exitUsage, "", bare},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runBuf(t, "", tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.wantOut) || !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("exit %d, stdout %.200q, stderr %q; want %d, %q, %q", code, stdout, stderr, tc.code, tc.wantOut, tc.wantErr)
			}
		})
	}
}

// TestConfigModelErrorNamesTheFile: an unknown model set in a
// configuration file is reported with the file that set it; it fails only
// the commands that need the model for their window. Before, a bad model
// in the user config broke "ctxtrim count README.md".
func TestConfigModelErrorNamesTheFile(t *testing.T) {
	for _, where := range []string{"user", "repo"} {
		t.Run(where, func(t *testing.T) {
			file := "config.toml"
			if where == "user" {
				writeConfigs(t, `model = "gpt-9"`, "")
			} else {
				writeConfigs(t, "", `model = "gpt-9"`)
				file = repoConfigName
			}
			stdout, stderr, code := runBuf(t, "hello\n", "count")
			if code != exitOK || stdout != "2\n" || !strings.Contains(stderr, file+`: model: unknown model "gpt-9"`) || !strings.Contains(stderr, "counting with o200k_base") {
				t.Errorf("count: exit %d, stdout %q, stderr %q; want 0, a count, a note naming %s", code, stdout, stderr, file)
			}
			if _, stderr, code := runBuf(t, "hello\n", "fit", "-budget", "100"); code != exitOK || !strings.Contains(stderr, file+": model:") {
				t.Errorf("fit -budget: exit %d, stderr %q; want 0 and the note", code, stderr)
			}
			if _, stderr, code := runBuf(t, "hello\n", "fit"); code != exitUsage || !strings.Contains(stderr, file+`: model: unknown model "gpt-9"`) {
				t.Errorf("fit without a budget: exit %d, stderr %q; want %d naming %s", code, stderr, exitUsage, file)
			}
			_, stderr, code = runBuf(t, "hello\n", "count", "-model", "gpt-8")
			if code != exitUsage || strings.Contains(stderr, file+": model:") {
				t.Errorf("-model's error blames the config: exit %d, stderr %q", code, stderr)
			}
		})
	}
}

// TestTopLevelHelpAndTypos: help that was asked for goes to stdout; a
// first word close to a command name is a typo, not a task. Before,
// "ctxtrim spilt -budget 8000 big.log" and "ctxtrim version" ran as tasks
// and exited 0 with a prompt.
func TestTopLevelHelpAndTypos(t *testing.T) {
	isolateConfig(t)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // substring
		wantStderr string // substring
	}{
		{"help", []string{"help"}, exitOK, "usage: ctxtrim [COMMAND]", ""},
		{"-h", []string{"-h"}, exitOK, "\n  history ", ""},
		{"help command", []string{"help", "split"}, exitOK, "usage: ctxtrim split", ""},
		{"help unknown", []string{"help", "nosuch"}, exitUsage, "", `help: unknown command "nosuch"`},
		{"typo", []string{"histroy"}, exitUsage, "", `did you mean "history"?`},
		{"typo with flags and a file", []string{"spilt", "-budget", "8000", "big.log"}, exitUsage, "", `unknown command "spilt"; did you mean "split"? (for a task starting with "spilt", quote it, run ctxtrim select spilt …, or pipe it in)`},
		{"typo in capitals", []string{"COUNT", "README.md"}, exitUsage, "", `did you mean "count"?`},
		{"typo of fit", []string{"fti", "-budget", "10"}, exitUsage, "", `did you mean "fit"?`},
		{"typo of version", []string{"verison"}, exitUsage, "", `did you mean "version"?`},
		{"version", []string{"version"}, exitOK, "ctxtrim ", ""},
		{"--version", []string{"--version"}, exitOK, "ctxtrim ", ""},
		{"version takes no arguments", []string{"version", "bump"}, exitUsage, "", `version takes no arguments`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runBuf(t, "", tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.wantCode, stderr)
			}
			if !strings.Contains(stdout, tc.wantStdout) {
				t.Errorf("stdout %q lacks %q", stdout, tc.wantStdout)
			}
			if !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.wantStderr)
			}
		})
	}
}

// TestTyposAreNotTasks: which first words are typos of a command, and
// which start a task. Short English words that start tasks ("fix", "get",
// "find", "edit") are within two edits of "fit" but are not made of its
// letters.
func TestTyposAreNotTasks(t *testing.T) {
	tests := []struct{ word, want string }{
		{"spilt", "split"}, {"splt", "split"}, {"chekc", "check"}, {"conut", "count"},
		{"idnex", "index"}, {"selcet", "select"}, {"modles", "models"}, {"hisotry", "history"},
		{"fti", "fit"}, {"fitt", "fit"}, {"versoin", "version"},
		{"fix", ""}, {"get", ""}, {"set", ""}, {"find", ""}, {"edit", ""}, {"init", ""}, {"it", ""},
		{"add", ""}, {"why", ""}, {"retry", ""}, {"refactor", ""}, {"the", ""},
		{"fix the retry bug", ""}, // one quoted argument: a task
	}
	for _, tc := range tests {
		if got := nearestCommand(tc.word); got != tc.want {
			t.Errorf("nearestCommand(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

// TestVersionLine renders the build info: the module version, the VCS
// revision, time and modified flag git stamps, and the Go version.
func TestVersionLine(t *testing.T) {
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"go install of a tag", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}},
			"ctxtrim v1.2.0 (go1.26.8)"},
		{"go build in a checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2025-06-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"ctxtrim (devel) (revision 0123456789abcdef0123456789abcdef01234567, 2025-06-01T10:00:00Z, modified; go1.26.8)"},
		{"clean checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			"ctxtrim (devel) (revision abc; go1.26.8)"},
		{"no build info", nil, "ctxtrim (unknown version: built without module support)"},
	}
	for _, tc := range tests {
		if got := versionLine(tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
