package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestHistoryCommand(t *testing.T) {
	tau, err := os.ReadFile("../../history/testdata/transcripts/tau-bench-airline-gpt4o-idx052-task2.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		stdin      []byte
		wantCode   int
		wantStdout string // "input": the input unchanged; "json": valid JSON; "": empty
		wantStderr string // substring; "" means stderr must be empty
	}{
		{"unchanged", []string{"-encoding", "o200k_base", "-budget", "100000"}, tau, exitOK, "input", ""},
		{"pruned", []string{"--encoding", "o200k_base", "--budget", "6000"}, tau, exitTrimmed, "json", "ctxtrim: pruned 11700 → 5922 tokens to fit 6000, 4 turns dropped (-explain for each step)\n"},
		{"pruned quietly", []string{"--encoding", "o200k_base", "--budget", "6000", "-q"}, tau, exitTrimmed, "json", ""},
		{"explain", []string{"-encoding", "o200k_base", "-budget", "6000", "-explain"}, tau, exitTrimmed, "json", "mask "},
		{"dry run writes nothing", []string{"-encoding", "o200k_base", "-budget", "6000", "-dry-run"}, tau, exitTrimmed, "", "would mask item"},
		{"dry run unchanged", []string{"-encoding", "o200k_base", "-budget", "100000", "-dry-run"}, tau, exitOK, "", "unchanged at"},
		{"no fit", []string{"-encoding", "o200k_base", "-budget", "1000"}, tau, exitNoFit, "", "pinned minimum is"},
		{"keep-last 0 fits lower", []string{"-encoding", "o200k_base", "-budget", "3600", "-keep-last", "0"}, tau, exitTrimmed, "json", "ctxtrim: pruned"},
		{"bad input", []string{"-encoding", "o200k_base", "-budget", "1000"}, []byte("not json"), exitBadInput, "", "(stdin): line 1, column 2: invalid character"},
		{"bad format", []string{"-encoding", "o200k_base", "-budget", "1000", "-format", "xml"}, tau, exitUsage, "", `unknown format "xml"`},
		{"forced wrong format", []string{"-encoding", "o200k_base", "-budget", "1000", "-format", "responses"}, tau, exitBadInput, "", "input is an OpenAI Chat Completions conversation, not an OpenAI Responses conversation"},
		{"named format the body is not", []string{"-encoding", "o200k_base", "-budget", "3000", "-format", "anthropic"}, tau, exitBadInput, "", `messages[0] has role "system" (Anthropic messages are user or assistant; its system prompt is a top-level "system"); drop -format to detect it, or pass -format chat`},
		{"negative", []string{"-encoding", "o200k_base", "-budget", "1000", "-max-item", "-1"}, tau, exitUsage, "", "must not be negative"},
		{"file argument", []string{"-encoding", "o200k_base", "-budget", "100000", "../../history/testdata/transcripts/tau-bench-airline-gpt4o-idx052-task2.json"}, nil, exitOK, "input", ""},
		{"flags after the file", []string{"../../history/testdata/transcripts/tau-bench-airline-gpt4o-idx052-task2.json", "-encoding", "o200k_base", "-budget", "6000"}, nil, exitTrimmed, "json", "ctxtrim: pruned"},
		{"two files", []string{"-encoding", "o200k_base", "-budget", "100000", "a", "b"}, nil, exitUsage, "", "at most one FILE"},
		// No -format given: the error must not tell the user to drop it.
		{"mixed formats detected", []string{"-encoding", "o200k_base", "-budget", "1000"}, []byte(`{"system":"s","messages":[{"role":"tool","content":"x"}]}`), exitBadInput, "", "input mixes formats: it reads as an Anthropic Messages conversation, but messages[0] has role \"tool\" (Anthropic messages are user or assistant; its system prompt is a top-level \"system\"), as an OpenAI Chat Completions conversation does; pass a conversation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(append([]string{"history"}, tc.args...), bytes.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.wantCode, stderr.String())
			}
			switch tc.wantStdout {
			case "input":
				if !bytes.Equal(stdout.Bytes(), tau) {
					t.Error("stdout is not the unchanged input")
				}
			case "json":
				if !json.Valid(stdout.Bytes()) || stdout.Len() >= len(tau) {
					t.Errorf("stdout is not a smaller JSON document (%d bytes)", stdout.Len())
				}
			case "":
				if stdout.Len() != 0 {
					t.Errorf("stdout = %q, want nothing", historyClip(stdout.String()))
				}
			}
			if tc.wantStderr == "" && stderr.Len() != 0 {
				t.Errorf("stderr = %q, want nothing", stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}

func historyClip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// TestHistoryBodyModel: history counts with the model the request body
// names (its tokenizer, and its window when no budget is given), a -model
// that differs from it wins with a warning, and a body's model the table
// lacks is a warning when the budget does not need it.
func TestHistoryBodyModel(t *testing.T) {
	isolateConfig(t)
	body := func(model string) string {
		return `{"model":"` + model + `","max_tokens":1024,"system":"Be terse.","messages":[{"role":"user","content":"Say hi."},{"role":"assistant","content":"Hi."},{"role":"user","content":"Again."}]}`
	}
	for _, tc := range []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stderr   []string // substrings, in order of the lines
		noStderr string   // must not appear
	}{
		// Was: "no budget: pass -model M …", exit 2.
		{"window from the body", nil, body("claude-sonnet-4-5"), exitOK, []string{"estimate: claude counts are o200k_base × "}, "no budget"},
		// Was: counted with o200k_base, unscaled, and no note.
		{"tokenizer from the body", []string{"-budget", "20000"}, body("claude-sonnet-4-5"), exitOK, []string{"estimate: claude counts are o200k_base × "}, ""},
		{"-model disagrees", []string{"-model", "gpt-4o"}, body("claude-sonnet-4-5"), exitOK, []string{`-model gpt-4o, but the body names "claude-sonnet-4-5"; counting for gpt-4o`}, "estimate"},
		{"-model agrees", []string{"-model", "claude-sonnet-4-5"}, body("claude-sonnet-4-5-20250929"), exitOK, []string{"estimate: claude"}, "but the body names"},
		{"unknown body model with a budget", []string{"-budget", "20000"}, body("my-llama"), exitOK, []string{`the body's model "my-llama" is not in the model table`}, ""},
		{"unknown body model without a budget", nil, body("my-llama"), exitUsage, []string{`the body's model "my-llama" is not in the model table (ctxtrim models), and no budget`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runBuf(t, tc.stdin, append([]string{"history"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if code == exitOK && stdout != tc.stdin {
				t.Errorf("stdout %q, want the body unchanged", stdout)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if tc.noStderr != "" && strings.Contains(stderr, tc.noStderr) {
				t.Errorf("stderr %q holds %q", stderr, tc.noStderr)
			}
		})
	}
}
