package history

import (
	"strings"
	"testing"
)

func TestField(t *testing.T) {
	conv, err := ParseFormat(strings.NewReader(`{"model":"gpt-4o","max_tokens":7,"messages":[{"role":"user","content":"hi"}]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(conv.Field("model")); got != `"gpt-4o"` {
		t.Errorf("model: %s", got)
	}
	if got := string(conv.Field("max_tokens")); got != `7` {
		t.Errorf("max_tokens: %s", got)
	}
	if conv.Field("stream") != nil {
		t.Errorf("absent field: want nil")
	}
	bare, err := ParseFormat(strings.NewReader(`[{"role":"user","content":"hi"}]`), "")
	if err != nil {
		t.Fatal(err)
	}
	if bare.Field("model") != nil {
		t.Errorf("bare array: want nil")
	}
}
