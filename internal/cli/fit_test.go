package cli

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxtrim/ctxtrim/budget"
)

func fitLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "log line %d: something happened here\n", i)
	}
	return b.String()
}

func TestFitCLI(t *testing.T) {
	isolateConfig(t)
	long := fitLines(500)
	tests := []struct {
		name     string
		stdin    string
		args     []string
		wantCode int
		wantErr  string // substring of stderr
		budget   int    // if > 0, stdout must count ≤ budget (o200k)
		marker   bool   // stdout holds the marker
	}{
		{"unchanged", "short text\n", []string{"fit", "-budget", "100"}, exitOK, "", 100, false},
		{"trimmed", long, []string{"fit", "-budget", "200"}, exitTrimmed, "trimmed", 200, true},
		{"trimmed head", long, []string{"fit", "-budget", "200", "-keep", "head"}, exitTrimmed, "trimmed", 200, true},
		{"quiet", long, []string{"fit", "-budget", "200", "-q"}, exitTrimmed, "", 200, true},
		{"model window", long, []string{"fit", "-window", "400", "-encoding", "o200k_base", "-reserve", "100", "-margin", "0"}, exitTrimmed, "fit 300", 300, true},
		{"model", long, []string{"fit", "-model", "gpt-4o"}, exitOK, "", 0, false},
		{"from error text", long, []string{"fit", "-from-error", "This model's maximum context length is 1000 tokens. However, you requested 1500 tokens (1200 in the messages, 300 in the completion)."}, exitTrimmed, "fit 680", 680, true},
		{"from error without numbers", long, []string{"fit", "-from-error", "Codex ran out of room in the model's context window."}, exitUsage, "states no window", 0, false},
		{"from error without numbers, model", long, []string{"fit", "-model", "gpt-4", "-from-error", "Codex ran out of room in the model's context window."}, exitOK, "", 0, false},
		{"not an overflow error", long, []string{"fit", "-model", "gpt-4", "-from-error", "rate limit exceeded"}, exitUsage, "not a recognised", 0, false},
		{"from error file missing", long, []string{"fit", "-from-error", "@/nonexistent/err.txt"}, exitUsage, "no such file", 0, false},
		{"from error with encoding", long, []string{"fit", "-encoding", "o200k_base", "-from-error", "This model's maximum context length is 1000 tokens. However, you requested 1500 tokens (1200 in the messages, 300 in the completion)."}, exitTrimmed, "fit 680", 680, true},
		{"binary", "a\x00b\n", []string{"fit", "-budget", "100"}, exitBadInput, "binary", 0, false},
		{"invalid utf8", "a\xffb\n", []string{"fit", "-budget", "100"}, exitBadInput, "not valid UTF-8", 0, false},
		{"empty input passes through", "", []string{"fit", "-budget", "100"}, exitOK, "", 0, false},
		{"budget below marker", long, []string{"fit", "-budget", "5"}, exitNoFit, "budget smaller than the marker", 0, false},
		{"negative budget", long, []string{"fit", "-budget", "-1"}, exitUsage, "negative", 0, false},
		{"zero budget", long, []string{"fit", "-budget", "0"}, exitUsage, "must be positive", 0, false},
		{"absurd budget", long, []string{"fit", "-budget", "1e12"}, exitUsage, "not an integer", 0, false},
		{"absurd window", long, []string{"fit", "-window", "999999999999", "-encoding", "o200k_base"}, exitUsage, "absurd", 0, false},
		{"budget over window", long, []string{"fit", "-model", "gpt-4", "-budget", "9000"}, exitUsage, "exceeds the 8192-token window", 0, false},
		{"reserve eats window", long, []string{"fit", "-model", "gpt-4", "-reserve", "8192"}, exitUsage, "leaves no room", 0, false},
		{"unknown model", long, []string{"fit", "-model", "gpt-9"}, exitUsage, "-window N", 0, false},
		{"window without encoding", long, []string{"fit", "-window", "1000"}, exitUsage, "-window 1000 needs -encoding E", 0, false},
		{"window 0", long, []string{"fit", "-window", "0", "-encoding", "o200k_base"}, exitUsage, "-window 0: a context window must be positive", 0, false},
		{"budget 0", long, []string{"fit", "-budget", "0"}, exitUsage, "-budget 0: the budget must be positive", 0, false},
		{"unknown model described", long, []string{"fit", "-model", "my-llm", "-window", "400", "-encoding", "cl100k_base"}, exitTrimmed, "trimmed", 0, true},
		{"no budget", long, []string{"fit"}, exitUsage, "no budget", 0, false},
		{"bad keep", long, []string{"fit", "-budget", "100", "-keep", "middle"}, exitUsage, "-keep", 0, false},
		{"arguments", long, []string{"fit", "-budget", "100", "file.txt"}, exitUsage, "takes no arguments", 0, false},
		{"budget with reserve", long, []string{"fit", "-budget", "100", "-reserve", "50"}, exitUsage, "drop one of them", 0, false},
		{"budget with margin", long, []string{"fit", "-margin", "5", "-budget", "100"}, exitUsage, "-margin applies only", 0, false},
		{"budget over -window", long, []string{"fit", "-window", "50", "-encoding", "o200k_base", "-budget", "100"}, exitUsage, "window given by -window; lower -budget", 0, false},
		{"flags after a misplaced argument", long, []string{"fit", "-budget", "100", "file.txt", "-q"}, exitUsage, `got "file.txt"`, 0, false},
		{"encoding differs from the model's", long, []string{"fit", "-model", "gpt-4o", "-encoding", "cl100k_base", "-budget", "300"}, exitTrimmed, "cl100k_base count as asked; gpt-4o uses o200k_base", 0, true},
		{"unknown flag", long, []string{"fit", "-nope"}, exitUsage, "ctxtrim: fit: flag provided but not defined: -nope (see ctxtrim fit -h)", 0, false},
		{"estimate note", long, []string{"fit", "-model", "claude-sonnet-4-5", "-budget", "300"}, exitTrimmed, "estimate: claude counts are o200k_base × 1.35", 0, true},
	}
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runBuf(t, tc.stdin, tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit = %d, want %d; stderr %q", code, tc.wantCode, stderr)
			}
			if !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.wantErr)
			}
			if strings.Count(stderr, "ctxtrim:") > 1 {
				t.Errorf("more than one diagnostic: %q", stderr)
			}
			if tc.wantCode != exitOK && tc.wantCode != exitTrimmed && stdout != "" {
				t.Errorf("stdout on failure: %q", stdout)
			}
			if tc.wantCode == exitOK && stdout != tc.stdin {
				t.Errorf("unchanged input was changed")
			}
			if tc.budget > 0 && c.Count(stdout) > tc.budget {
				t.Errorf("output has %d tokens > %d", c.Count(stdout), tc.budget)
			}
			if got := strings.Contains(stdout, budget.MarkerPrefix()); got != tc.marker {
				t.Errorf("marker present = %v, want %v", got, tc.marker)
			}
			if !utf8.ValidString(stdout) {
				t.Errorf("output is not UTF-8")
			}
		})
	}
}

// TestFitRegisteredByName checks that fit is in the command table and runs
// by its name.
func TestFitRegisteredByName(t *testing.T) {
	if _, ok := lookup("fit"); !ok {
		t.Fatal("fit is not registered")
	}
	isolateConfig(t)
	stdout, _, code := runBuf(t, "abc\n", "fit", "-budget", "10")
	if code != exitOK || stdout != "abc\n" {
		t.Errorf("fit: exit %d, stdout %q", code, stdout)
	}
}

func TestModelsCLI(t *testing.T) {
	isolateConfig(t)
	stdout, stderr, code := runBuf(t, "", "models")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"gpt-4.1", "1047576", "claude-sonnet-4-5", "estimate ×1.35", "gemini-2.5-pro", "in 1048576", "deepseek-chat", "qwen3-coder", "llama-3.3", "mistral-large", "o4-mini"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("models output lacks %q", want)
		}
	}
	stdout, _, code = runBuf(t, "", "models", "-json")
	if code != exitOK || !strings.Contains(stdout, `"name": "gpt-4.1"`) || !strings.Contains(stdout, `"why":`) {
		t.Errorf("models -json: exit %d, output %.200q", code, stdout)
	}
	if _, _, code := runBuf(t, "", "models", "a", "b"); code != exitUsage {
		t.Errorf("models a b: exit %d, want %d", code, exitUsage)
	}
	stdout, _, code = runBuf(t, "", "models", "claude-sonnet-4-5-20250929")
	for _, want := range []string{"model       claude-sonnet-4-5 (from", "input       132000 = window 200000 − reserve 64000 − margin 4000", "1.30× on Python"} {
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Errorf("models claude-sonnet-4-5-20250929: exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
	stdout, _, code = runBuf(t, "", "models", "-json", "gpt-4o")
	if code != exitOK || !strings.Contains(stdout, `"input_limit": 109056`) {
		t.Errorf("models -json gpt-4o: exit %d, output %s", code, stdout)
	}
	if _, stderr, code := runBuf(t, "", "models", "gpt-9"); code != exitUsage || !strings.Contains(stderr, "-window N") {
		t.Errorf("models gpt-9: exit %d, stderr %q", code, stderr)
	}
}
