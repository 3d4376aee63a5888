package history

import (
	"encoding/json"
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

func TestWithItems(t *testing.T) {
	src := `{"model":"m","tools":[],"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}],"x":1}`
	conv, err := ParseFormat(strings.NewReader(src), FormatChat)
	if err != nil {
		t.Fatal(err)
	}
	items := conv.Items()
	out, err := conv.WithItems(append(items[:1:1], []byte(`{"role":"user","content":"c"}`)))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := out.Encode(&b); err != nil {
		t.Fatal(err)
	}
	if want := `{"model":"m","tools":[],"messages":[{"role":"user","content":"a"},{"role":"user","content":"c"}],"x":1}`; b.String() != want {
		t.Errorf("got %s\nwant %s", b.String(), want)
	}
	if out.Len() != 2 || out.Format() != FormatChat {
		t.Errorf("len %d format %s", out.Len(), out.Format())
	}
	if _, err := conv.WithItems([]json.RawMessage{[]byte(`7`)}); err == nil {
		t.Errorf("an item that is not a message: want an error")
	}
	bare, _ := ParseFormat(strings.NewReader(`[{"role":"user","content":"hi"}]`), "")
	if _, err := bare.WithItems(nil); err == nil {
		t.Errorf("bare array: want an error")
	}
}
