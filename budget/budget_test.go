package budget

import "testing"

func TestReferenceCounterSpecialTokensArePlainText(t *testing.T) {
	c, err := NewReferenceCounter(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	// "<|endoftext|>" is one special token; as plain text it is several.
	if n := c.Count("<|endoftext|>"); n <= 1 {
		t.Fatalf("Count(<|endoftext|>) = %d, want > 1 (plain text)", n)
	}
}
