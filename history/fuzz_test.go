package history

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"testing"
)

func addSeeds(f *testing.F) {
	for _, p := range []string{"testdata/transcripts/codex-0.135-redacted.jsonl"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 500)
	}
	for seed := uint64(0); seed < 4; seed++ {
		g := &gen{r: rand.New(rand.NewPCG(seed, 9)), small: true}
		f.Add(g.chat(), 150)
		f.Add(g.anthropic(), 120)
		f.Add(g.responses(), 100)
		f.Add(g.codex(), 200)
	}
	f.Add([]byte(`[{"role":"tool","tool_call_id":"x","content":"orphan"}]`), 10)
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result"}]}]}`), 10)
	f.Add([]byte("{\"type\":\"compacted\",\"payload\":{\"replacement_history\":[{\"type\":\"reasoning\"}]}}\n"), 10)
}

// FuzzParse: any input is an error or a conversation that encodes back to
// the input unchanged and re-parses to the same items.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, _ int) {
		c, err := Parse(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error does not wrap ErrBadInput: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if err := c.Encode(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), data) {
			t.Fatal("Encode of an unpruned conversation changed it")
		}
		_ = c.Validate()
	})
}

// FuzzPrune: any input and budget give an error, or an output within the
// budget that parses, and is valid when the input was.
func FuzzPrune(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		c, err := Parse(bytes.NewReader(data))
		if err != nil || limit <= 0 || limit > 1<<24 {
			return
		}
		res, err := Prune(c, limit, counter(t), &Options{KeepLast: limit % 3, MaskAfter: limit%5 - 1})
		if err != nil {
			return // ErrNoFit, or an input Prune refuses to break further
		}
		var b bytes.Buffer
		if err := res.Conversation.Encode(&b); err != nil {
			t.Fatal(err)
		}
		re, err := ParseFormat(bytes.NewReader(b.Bytes()), c.Format())
		if err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, clip(b.Bytes()))
		}
		if n := Tokens(re, counter(t)); n > limit {
			t.Fatalf("output has %d tokens, budget %d", n, limit)
		}
		if c.Validate() == nil {
			if err := re.Validate(); err != nil {
				t.Fatalf("valid input, invalid output: %v", err)
			}
		}
	})
}
