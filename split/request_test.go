package split

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
)

// TestRequestTokensAreBudgets: a rendered request body is counted with
// budget's request accounting (CountChat for OpenAI, CountAnthropic with
// the system prompt outside the messages for Anthropic), recomputed here
// from the JSON each part carries.
func TestRequestTokensAreBudgets(t *testing.T) {
	c := counter(t)
	text := strings.Repeat("The quick brown fox jumps over the lazy dog.\n", 200)
	const instr = "Summarise the part below."
	for _, f := range []Format{OpenAI, Anthropic} {
		t.Run(f.String(), func(t *testing.T) {
			res := mustSplit(t, textInput(text), &Options{Budget: 600, Instructions: instr, Format: f, Model: "m"})
			for _, p := range res.Parts {
				var req struct {
					Model    string           `json:"model"`
					System   string           `json:"system"`
					Messages []budget.Message `json:"messages"`
				}
				if err := json.Unmarshal([]byte(p.Text), &req); err != nil {
					t.Fatalf("part %d: %v", p.Index, err)
				}
				var want int
				switch f {
				case OpenAI:
					want = budget.CountChat(c, req.Messages, nil)
				case Anthropic:
					want = budget.CountAnthropic(c, req.System, req.Messages, nil)
				}
				if p.Tokens != want || req.Model != "m" {
					t.Errorf("part %d: %d tokens, model %q; budget counts the body at %d, model m", p.Index, p.Tokens, req.Model, want)
				}
			}
		})
	}
}
