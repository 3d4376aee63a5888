package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAppend: a message appended to every fixture comes back last after
// Encode and Parse, in the conversation's own format, counted once more;
// the rest of the output is the input's.
func TestAppend(t *testing.T) {
	for _, p := range fixtures(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			c, src := parseFile(t, p)
			before := Tokens(c, counter(t))
			n := c.Len()
			const text = "One more question: does the fix hold under load?"
			if err := c.Append("user", text); err != nil {
				t.Fatal(err)
			}
			out := encode(t, c)
			re, err := ParseFormat(bytes.NewReader(out), c.Format())
			if err != nil {
				t.Fatalf("appended output does not parse: %v\n%s", err, clip(out))
			}
			if re.Len() != n+1 || !strings.Contains(string(re.Items()[n]), text) {
				t.Fatalf("%d items after append (want %d), last %s", re.Len(), n+1, re.Items()[re.Len()-1])
			}
			if got := Tokens(re, counter(t)); got <= before {
				t.Errorf("tokens %d after append, %d before", got, before)
			}
			if c.Validate() == nil {
				if err := re.Validate(); err != nil && !strings.Contains(err.Error(), "user") {
					t.Errorf("appended conversation is not valid: %v", err)
				}
			}
			if c.Format() == FormatCodex {
				// The input's lines are kept, one response_item record is added.
				if !bytes.HasPrefix(out, bytes.TrimSuffix(src, []byte("\n"))) {
					t.Error("the rollout's lines changed")
				}
				last := out[bytes.LastIndexByte(bytes.TrimSuffix(out, []byte("\n")), '\n')+1:]
				var rec struct {
					Timestamp string          `json:"timestamp"`
					Ordinal   *int            `json:"ordinal"`
					Type      string          `json:"type"`
					Payload   json.RawMessage `json:"payload"`
				}
				if err := json.Unmarshal(last, &rec); err != nil || rec.Type != "response_item" {
					t.Fatalf("last record %s: %v", last, err)
				}
				if _, err := time.Parse(time.RFC3339, rec.Timestamp); err != nil {
					t.Errorf("timestamp %q: %v", rec.Timestamp, err)
				}
				if hasOrdinal := bytes.Contains(src, []byte(`"ordinal":`)); hasOrdinal != (rec.Ordinal != nil) {
					t.Errorf("ordinal %v, input has ordinals: %v", rec.Ordinal, hasOrdinal)
				}
			}
			// Pruning sees the new item: it is the latest user turn, kept.
			res, err := Prune(re, counter(t), &Options{Budget: Tokens(re, counter(t))})
			if err != nil || res.Changed() {
				t.Errorf("Prune at the full size: changed %v, %v", res != nil && res.Changed(), err)
			}
		})
	}
}

func TestAppendItemErrors(t *testing.T) {
	c, src := parseFile(t, filepath.Join("testdata", "anthropic-tools.json"))
	for _, bad := range []string{`[1]`, `{"role":`, `{"content":"no role"}`} {
		if err := c.AppendItem(json.RawMessage(bad)); !errors.Is(err, ErrBadInput) {
			t.Errorf("AppendItem(%s) = %v, want ErrBadInput", bad, err)
		}
	}
	if !bytes.Equal(encode(t, c), src) {
		t.Error("a rejected append changed the conversation")
	}
}

func TestInstructionsAndTools(t *testing.T) {
	tests := []struct {
		file  string
		instr string // substring of the first instruction, "" for none
		tools string // substring of the tools, "" for none
	}{
		{"testdata/anthropic-tools.json", "You are a careful coding assistant", `"name":"read_file"`},
		{"testdata/responses-tools.json", "You are a coding agent.", `"type":"function"`},
		{"testdata/transcripts/codex-0.169-multiturn.jsonl", "You are", ""},
		{"testdata/transcripts/tau-bench-airline-gpt4o-idx052-task2.json", "", `"name":"book_reservation"`},
	}
	for _, tc := range tests {
		c, _ := parseFile(t, tc.file)
		in := c.Instructions()
		if (tc.instr == "") != (len(in) == 0) || len(in) > 0 && !strings.Contains(in[0], tc.instr) {
			t.Errorf("%s: Instructions() = %.80q, want one holding %q", tc.file, in, tc.instr)
		}
		tools := compact(c.Tools())
		if (tc.tools == "") != (c.Tools() == nil) || !strings.Contains(tools, tc.tools) {
			t.Errorf("%s: Tools() = %.80s, want %q", tc.file, tools, tc.tools)
		}
	}
}
