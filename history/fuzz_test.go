package history

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
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
	f.Add([]byte(`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"q1 with a long question about many things"}]}}
{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a long answer about many other things"}]}}
{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":900},"last_token_usage":{"input_tokens":400,"cached_input_tokens":390,"total_tokens":420}}}}
{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"q2"}]}}
`), 30)
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
		res, err := Prune(c, counter(t), &Options{Budget: limit, KeepLast: limit % 3, MaskAfter: limit%5 - 1})
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
		// Codex's last usage record stays, never raised.
		if c.shape != shapeRollout {
			return
		}
		if (c.usageLine < 0) != (re.usageLine < 0) {
			t.Fatalf("last token_count record: line %d in the input, %d in the output", c.usageLine, re.usageLine)
		}
		if c.usageLine >= 0 {
			if a, b := lastTotal(c.lines[c.usageLine]), lastTotal(re.lines[re.usageLine]); b > a || b < 0 {
				t.Fatalf("last token_count total %d → %d", a, b)
			}
		}
	})
}

// lastTotal reads last_token_usage.total_tokens from a token_count record
// the way the package does (first key wins).
func lastTotal(line []byte) int64 {
	ms, _ := parseObject(line)
	pm, _ := parseObject(get(ms, "payload"))
	info, _ := parseObject(get(pm, "info"))
	last, _ := parseObject(get(info, "last_token_usage"))
	n, err := strconv.ParseInt(string(get(last, "total_tokens")), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// FuzzParseFormat: with any format named, any input is an error wrapping
// ErrBadInput (a *FormatError when it is another format) or a conversation
// of that format that encodes back to the input unchanged.
func FuzzParseFormat(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		all := Formats()
		named := all[(n%len(all)+len(all))%len(all)]
		c, err := ParseFormat(bytes.NewReader(data), named)
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error does not wrap ErrBadInput: %v", err)
			}
			var fe *FormatError
			if errors.As(err, &fe) && (fe.Named != named || fe.Found == named || fe.Evidence == "") {
				t.Fatalf("FormatError{%s, %s, %q} for -format %s", fe.Named, fe.Found, fe.Evidence, named)
			}
			return
		}
		if c.Format() != named {
			t.Fatalf("parsed as %s, named %s", c.Format(), named)
		}
		var b bytes.Buffer
		if err := c.Encode(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), data) {
			t.Fatal("Encode of an unpruned conversation changed it")
		}
	})
}
