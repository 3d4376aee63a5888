package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// refObject is parseObject as encoding/json's Decoder does it: the oracle
// for the zero-copy scanner.
func refObject(raw []byte) ([]member, bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return nil, false
	}
	var ms []member
	for dec.More() {
		tok, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		ms = append(ms, member{tok.(string), v})
	}
	return ms, true
}

// refArray is parseArray by encoding/json.
func refArray(raw []byte) ([]json.RawMessage, bool) {
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil, false
	}
	if bytes.TrimSpace(raw)[0] != '[' {
		return nil, false
	}
	return elems, true
}

// FuzzParseObject: the zero-copy parseObject and parseArray agree with
// encoding/json on what is an object (or array), on the keys and on the
// value bytes, and their values are slices of the input.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, ` { "a" : [1, {"b":"}"}] , "c\"d": "x\\"y", "e":null } `, `[1,"]",{"a":[]}]`,
		`{"a":1}x`, `{"a":}`, `[]`, `{"\u00e9":true,"":-1.5e3}`, `"str"`, `12`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := parseObject(raw)
		want, ok := refObject(raw)
		if (err == nil) != ok {
			t.Fatalf("parseObject error %v, encoding/json ok %v", err, ok)
		}
		norm := func(ms []member) []member { // compare value bytes as compacted by the decoder
			for i := range ms {
				var b bytes.Buffer
				json.Compact(&b, ms[i].val)
				ms[i].val = b.Bytes()
			}
			return ms
		}
		if ok {
			for _, m := range got {
				if len(m.val) > 0 && !bytes.Contains(raw, m.val) {
					t.Fatalf("value %q is not from the input", m.val)
				}
			}
			if d := cmp.Diff(norm(want), norm(got), cmp.AllowUnexported(member{})); d != "" {
				t.Fatalf("(-encoding/json +parseObject):\n%s", d)
			}
		}
		elems, err := parseArray(raw)
		wantElems, ok := refArray(raw)
		if (err == nil) != ok {
			t.Fatalf("parseArray error %v, encoding/json ok %v", err, ok)
		}
		if ok && len(elems) != len(wantElems) {
			t.Fatalf("%d elements, encoding/json %d", len(elems), len(wantElems))
		}
		for i := range elems {
			var a, b bytes.Buffer
			json.Compact(&a, elems[i])
			json.Compact(&b, wantElems[i])
			if a.String() != b.String() {
				t.Fatalf("element %d: %q, encoding/json %q", i, elems[i], wantElems[i])
			}
		}
	})
}

// within reports whether b is a slice of src.
func within(b, src []byte) bool {
	if len(b) == 0 {
		return true
	}
	p, s := uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&src[0]))
	return p >= s && p+uintptr(len(b)) <= s+uintptr(len(src))
}

// bigRollout is a rollout of about n bytes whose tool outputs, each also
// in an event_msg record that passes through, make most of it.
func bigRollout(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"session_meta","payload":{"id":"s"}}` + "\n")
	out := strings.Repeat("go test ./... ok 0.01s\\n", 2000)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"step %d"}]}}`+"\n", i)
		fmt.Fprintf(&b, `{"type":"response_item","payload":{"type":"function_call","name":"exec","arguments":"{}","call_id":"c%d"}}`+"\n", i)
		fmt.Fprintf(&b, `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c%d","output":"%s"}}`+"\n", i, out)
		fmt.Fprintf(&b, `{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"c%d","aggregated_output":"%s"}}`+"\n", i, out)
	}
	return b.Bytes()
}

// TestRolloutHeldOnce: a parsed rollout's items are slices of the input,
// not copies, and Encode writes the pruned rollout without building it
// whole. Before, every record's values were copied (json.Decoder) and the
// output was assembled in one buffer: history of a 200 MB rollout peaked
// at 890 MB.
func TestRolloutHeldOnce(t *testing.T) {
	src := bigRollout(8 << 20)
	conv, err := ParseBytes(src, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range conv.items {
		if !within(it.raw, src) {
			t.Fatalf("item %d is a copy of the input", i)
		}
	}
	res, err := Prune(conv, counter(t), &Options{Budget: 60000})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var out countingWriter
	if err := res.Conversation.Encode(&out); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(out.n)/4 {
		t.Errorf("Encode allocated %d bytes for an output of %d", alloc, out.n)
	}
}

// countingWriter counts what is written and keeps nothing.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
