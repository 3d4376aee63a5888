package budget

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The cookbook's examples, with the prompt_tokens the OpenAI API reported
// for them (openai-cookbook, How_to_count_tokens_with_tiktoken.ipynb,
// sections 6 and 7): 124 (gpt-4o) / 129 (gpt-4, gpt-3.5-turbo) for the
// jargon messages; 101 / 105 for the weather tool example.
const cookbookWeatherRequest = `{
  "model": "gpt-4o",
  "messages": [
    {"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."},
    {"role": "user", "content": "What's the weather like in San Francisco?"}
  ],
  "tools": [{
    "type": "function",
    "function": {
      "name": "get_current_weather",
      "description": "Get the current weather in a given location",
      "parameters": {
        "type": "object",
        "properties": {
          "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
          "unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]}
        },
        "required": ["location"]
      }
    }
  }]
}`

func cookbookJargonMessages() []Message {
	return []Message{
		{Role: "system", Content: "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
		{Role: "system", Name: "example_user", Content: "New synergies will help drive top-line growth."},
		{Role: "system", Name: "example_assistant", Content: "Things working well together will increase revenue."},
		{Role: "system", Name: "example_user", Content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
		{Role: "system", Name: "example_assistant", Content: "Let's talk later when we're less busy about how to do better."},
		{Role: "user", Content: "This late pivot means we don't have time to boil the ocean for the client deliverable."},
	}
}

func TestCountChatCookbook(t *testing.T) {
	msgs, tools, err := ParseChatRequest([]byte(cookbookWeatherRequest))
	if err != nil {
		t.Fatal(err)
	}
	wantTool := []Tool{{Name: "get_current_weather", Description: "Get the current weather in a given location", Properties: []Property{
		{Name: "location", Type: "string", Description: "The city and state, e.g. San Francisco, CA"},
		{Name: "unit", Type: "string", Description: "The unit of temperature to return", Enum: []string{"celsius", "fahrenheit"}},
	}}}
	if diff := cmp.Diff(wantTool, tools); diff != "" {
		t.Errorf("ParseChatRequest tools (-want +got):\n%s", diff)
	}
	tests := []struct {
		encoding string
		msgs     []Message
		tools    []Tool
		want     int
	}{
		{O200kBase, cookbookJargonMessages(), nil, 124},
		{Cl100kBase, cookbookJargonMessages(), nil, 129},
		{O200kBase, msgs, tools, 101},
		{Cl100kBase, msgs, tools, 105},
	}
	for _, tc := range tests {
		c, err := NewEncodingCounter(tc.encoding)
		if err != nil {
			t.Fatal(err)
		}
		if got := OverheadFor(tc.encoding).Count(c, tc.msgs, tc.tools); got != tc.want {
			t.Errorf("%s, %d messages, %d tools: got %d tokens, want %d (the API's count)", tc.encoding, len(tc.msgs), len(tc.tools), got, tc.want)
		}
	}
	c, _ := NewEncodingCounter(O200kBase)
	if got := CountChat(c, msgs, tools); got != 101 {
		t.Errorf("CountChat = %d, want 101", got)
	}
}

func TestCountChatFormula(t *testing.T) {
	c := lenCounter{}
	o := OverheadFor(O200kBase)
	msgs := []Message{
		{Role: "user", Content: "abcd"},
		{Role: "assistant", Name: "x", ToolCalls: []ToolCall{{Name: "f", Arguments: `{"a":1}`}}},
	}
	want := o.ReplyPriming +
		o.PerMessage + len("user") + len("abcd") +
		o.PerMessage + len("assistant") + len("x") + o.PerName + o.PerToolCall + len("f") + len(`{"a":1}`)
	if got := o.Count(c, msgs, nil); got != want {
		t.Errorf("Count = %d, want %d", got, want)
	}
	if got := o.Count(c, nil, nil); got != o.ReplyPriming {
		t.Errorf("empty request = %d, want %d", got, o.ReplyPriming)
	}
}

func TestCountChatScaled(t *testing.T) {
	c := lenCounter{}
	msgs := []Message{{Role: "user", Content: "a"}, {Role: "user", Content: "b"}}
	o := OverheadFor(O200kBase)
	exact := o.Count(c, msgs, nil)
	if got, want := o.Count(Scaled(c, 1.5), msgs, nil), (exact*3+1)/2; got != want {
		t.Errorf("scaled Count = %d, want ceil(%d × 1.5) = %d", got, exact, want)
	}
}

func TestParseChatRequestParts(t *testing.T) {
	msgs, tools, err := ParseChatRequest([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":"{}"}}]}],
	"tools":[{"type":"function","function":{"name":"g","description":"d.","parameters":{"type":"object","properties":{"z":{"type":["string","null"]},"a":{"type":"object","properties":{"b":{"type":"integer"}}}}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	wantMsgs := []Message{{Role: "user", Content: "ab", Images: 1}, {Role: "assistant", ToolCalls: []ToolCall{{ID: "1", Name: "f", Arguments: "{}"}}}}
	if diff := cmp.Diff(wantMsgs, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	wantTools := []Tool{{Name: "g", Description: "d.", Properties: []Property{
		{Name: "z", Type: "string|null"},
		{Name: "a", Type: "object", Nested: `{"b":{"type":"integer"}}`},
	}}}
	if diff := cmp.Diff(wantTools, tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`{`, `{"messages":[{"content":5}]}`, `{"tools":[{"function":{"parameters":{"properties":[1]}}}]}`} {
		if _, _, err := ParseChatRequest([]byte(bad)); err == nil {
			t.Errorf("ParseChatRequest(%s): no error", bad)
		}
	}
}

// lenCounter counts bytes: a stand-in that makes formulas easy to state.
type lenCounter struct{}

func (lenCounter) Count(s string) int { return len(s) }

func TestParseChatRequestSyntaxPosition(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"truncated", `{"messages":[`, "line 1, column 14: unexpected end of JSON input"},
		{"trailing comma on line 3", "{\"messages\":[\n  {\"role\":\"user\",\"content\":\"hi\"},\n]}", "line 3, column 1: invalid character ']'"},
		{"not JSON", "hello", "line 1, column 1: invalid character 'h'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseChatRequest([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestParseChatMessage: every part of a Chat message the model sees is
// kept for counting: names on any role, images, refusals, custom and
// legacy calls, unknown parts.
func TestParseChatMessage(t *testing.T) {
	tests := []struct {
		name, in string
		want     Message
	}{
		{"tool message with a name", `{"role":"tool","name":"get_user","tool_call_id":"1","content":"{}"}`,
			Message{Role: "tool", Name: "get_user", Content: "{}"}},
		{"refusal", `{"role":"assistant","content":null,"refusal":"no"}`,
			Message{Role: "assistant", Extra: []string{"no"}}},
		{"parts", `{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"u"}},{"type":"input_audio", "input_audio":{"data":"d"}},{"type":"refusal","refusal":"r"}]}`,
			Message{Role: "user", Content: "a", Images: 1, Extra: []string{`{"type":"input_audio","input_audio":{"data":"d"}}`, "r"}}},
		{"custom and legacy calls", `{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"name":"sh","input":"ls"}}],"function_call":{"name":"f","arguments":"{}"}}`,
			Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c", Name: "sh", Arguments: "ls", Custom: true}, {Name: "f", Arguments: "{}", Custom: true}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseChatMessage([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	c := lenCounter{}
	o := OverheadFor(O200kBase)
	m := Message{Role: "assistant", Images: 2, Extra: []string{"xy"}, ToolCalls: []ToolCall{{Name: "f", Arguments: "a", Custom: true}}}
	if got, want := o.Message(c, m), o.PerMessage+len("assistant")+2*ImageTokens+len("xy")+PerToolCallTokens+len("f")+len("a"); got != want {
		t.Errorf("Message = %d, want %d", got, want)
	}
}

// TestEncodingOf: the encoding counters say which they are, under Scaled
// too, and the chat overhead follows.
func TestEncodingOf(t *testing.T) {
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, err := NewEncodingCounter(enc)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReferenceCounter(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []Counter{c, r, Scaled(c, 1.3)} {
			if got := EncodingOf(x); got != enc {
				t.Errorf("EncodingOf(%T) = %q, want %q", x, got, enc)
			}
			if diff := cmp.Diff(OverheadFor(enc), OverheadOf(x)); diff != "" {
				t.Errorf("OverheadOf (-want +got):\n%s", diff)
			}
		}
	}
	if got := EncodingOf(lenCounter{}); got != "" {
		t.Errorf("EncodingOf(lenCounter) = %q, want \"\"", got)
	}
	if OverheadOf(lenCounter{}).FuncInit != OverheadFor(O200kBase).FuncInit {
		t.Error("an unnamed counter does not get o200k_base's overhead")
	}
}

// TestTotal: an estimate counter's parts are summed unscaled and scaled
// once.
func TestTotal(t *testing.T) {
	sum := func(c Counter) int { return c.Count("a") + c.Count("b") + c.Count("c") }
	if got := Total(lenCounter{}, sum); got != 3 {
		t.Errorf("exact Total = %d, want 3", got)
	}
	if got := Total(Scaled(lenCounter{}, 1.5), sum); got != 5 { // ceil(3 × 1.5), not 3 × ceil(1.5)
		t.Errorf("scaled Total = %d, want 5", got)
	}
}

// TestExactLimit: ExactLimit is the largest exact count whose scaled count
// is within the limit, for every limit and the factors of the model table;
// ScaleCount and Exact are what Total composes.
func TestExactLimit(t *testing.T) {
	c := lenCounter{}
	if Exact(c) != Counter(c) || ScaleCount(c, 7) != 7 || ExactLimit(c, 7) != 7 {
		t.Errorf("exact counter: Exact, ScaleCount(7), ExactLimit(7) = %v, %d, %d", Exact(c), ScaleCount(c, 7), ExactLimit(c, 7))
	}
	for _, f := range []float64{1.1, 1.15, 1.2, 1.25, 1.3, 1.5, 2, 3.7} {
		s := Scaled(c, f)
		if Exact(s) != Counter(c) {
			t.Errorf("factor %v: Exact is not the counter under Scaled", f)
		}
		for limit := 0; limit <= 2000; limit++ {
			n := ExactLimit(s, limit)
			if ScaleCount(s, n) > limit || ScaleCount(s, n+1) <= limit {
				t.Fatalf("factor %v, limit %d: ExactLimit %d scales to %d, %d scales to %d", f, limit, n, ScaleCount(s, n), n+1, ScaleCount(s, n+1))
			}
			if got := s.Count(strings.Repeat("x", n)); got != ScaleCount(s, n) {
				t.Fatalf("factor %v: Count of %d bytes = %d, ScaleCount = %d", f, n, got, ScaleCount(s, n))
			}
		}
	}
}

// TestParseChatRequestShapes: count -chat reads what history reads as
// Chat, a body with "messages" or a bare array of messages, and rejects
// the rest with a message in JSON terms, never Go types. Before, {"foo":1}
// counted as 3 tokens and a bare array was an error naming a Go struct.
func TestParseChatRequestShapes(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		msgs    int
		wantErr string
	}{
		{"body", `{"messages":[{"role":"user","content":"hi"}]}`, 1, ""},
		{"bare array", `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`, 2, ""},
		{"empty messages", `{"messages":[]}`, 0, ""},
		{"no messages", `{"foo":1}`, 0, `no "messages" array`},
		{"messages not an array", `{"messages":{}}`, 0, "messages: got a JSON object, want an array"},
		{"message not an object", `{"messages":[3]}`, 0, "message 0: got a JSON number, want an object"},
		{"message without role", `[{"content":"hi"}]`, 0, `message 0: message has no "role"`},
		{"scalar", `"hi"`, 0, `want a JSON object with "messages" or an array of messages`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs, _, err := ParseChatRequest([]byte(tc.body))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			case tc.wantErr == "" && len(msgs) != tc.msgs:
				t.Errorf("%d messages, want %d", len(msgs), tc.msgs)
			}
			if err != nil && strings.Contains(err.Error(), "Go ") {
				t.Errorf("error %q names Go types", err)
			}
		})
	}
}

// FuzzParseChatRequest: any input is a request whose every message has a
// role, or an error in JSON terms; CountChat of a request never panics and
// is at least the reply priming.
func FuzzParseChatRequest(f *testing.F) {
	f.Add([]byte(cookbookWeatherRequest))
	f.Add([]byte(`[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}}]}]`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}],"functions":[{"name":"g","parameters":{"properties":{"a":{"type":"string","enum":["x"]}}}}]}`))
	f.Add([]byte(`{"foo":1}`))
	c, err := NewEncodingCounter(O200kBase)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, tools, err := ParseChatRequest(data)
		if err != nil {
			if strings.Contains(err.Error(), "Go struct") || strings.Contains(err.Error(), "Go value") {
				t.Fatalf("error names Go types: %v", err)
			}
			return
		}
		for i, m := range msgs {
			if m.Role == "" {
				t.Fatalf("message %d has no role", i)
			}
		}
		if n := CountChat(c, msgs, tools); n < ReplyPrimingTokens {
			t.Fatalf("CountChat = %d, below the reply priming", n)
		}
	})
}
