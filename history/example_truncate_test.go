package history_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
)

// A request builder prunes the messages it is about to send. The tool
// output is recent (within the last 4 turns), so it is not masked but cut in
// the middle.
func ExamplePrune_truncate() {
	log := strings.Repeat("GET /api/orders 200 12ms\n", 400)
	body := `{"model":"gpt-4.1","messages":[
{"role":"system","content":"You are a support agent."},
{"role":"user","content":"Why is checkout slow?"},
{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_log","arguments":"{\"service\":\"api\"}"}}]},
{"role":"tool","tool_call_id":"call_1","content":` + string(mustJSON(log)) + `},
{"role":"assistant","content":"The API log shows no slow requests."},
{"role":"user","content":"And the payments service?"}]}`

	conv, err := history.Parse(strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		panic(err)
	}
	res, err := history.Prune(conv, c, &history.Options{Budget: 500}) // the other options at their defaults
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d → %d tokens\n", conv.Format(), res.Before, res.After)
	for _, s := range res.Steps {
		fmt.Printf("step %s: %d edits\n", s.Name, s.Edits)
	}
	var out bytes.Buffer
	if err := res.Conversation.Encode(&out); err != nil {
		panic(err)
	}
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out.Bytes(), &req); err != nil {
		panic(err)
	}
	tool := req.Messages[3].Content
	for _, line := range strings.Split(tool, "\n") {
		if strings.HasPrefix(line, "[ctxtrim:") {
			fmt.Println(line)
		}
	}
	fmt.Printf("kept %d of 400 log lines, head and tail\n", strings.Count(tool, "GET "))
	// Output:
	// chat: 4061 → 484 tokens
	// step mask: 0 edits
	// step supersede: 0 edits
	// step truncate: 1 edits
	// [ctxtrim: 3590 tokens omitted from the middle]
	// kept 41 of 400 log lines, head and tail
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
