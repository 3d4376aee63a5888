package slicer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/slicer"
	"github.com/ctxtrim/ctxtrim/slicer/index"
)

// A request builder fills a Chat Completions request for a model: the
// plan gives the input limit, budget.ContentBudget what the user message
// may hold after the system message and the framing, and Select's prompt
// (task and context) is that message. The whole request, counted as the
// provider frames it, stays within the input limit.
func Example_chatRequest() {
	dir, err := os.MkdirTemp("", "slicer-chat-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	for name, src := range map[string]string{
		"retry/retry.go": "package retry\n\n// Do calls fn until it succeeds or attempts run out.\nfunc Do(attempts int, fn func() error) error {\n\tvar err error\n\tfor i := 0; i < attempts; i++ {\n\t\tif err = fn(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn err\n}\n",
		"http/client.go": "package http\n\nimport \"example.com/shop/retry\"\n\n// Post sends body to url, retrying with retry.Do.\nfunc Post(url string, body []byte) error {\n\treturn retry.Do(3, func() error { return send(url, body) })\n}\n\nfunc send(url string, body []byte) error { return nil }\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(src), 0o644)
	}

	plan, err := budget.PlanFor("gpt-4o", &budget.Policy{Window: 2048, Reserve: 512})
	if err != nil {
		fmt.Println(err)
		return
	}
	system := budget.Message{Role: "system", Content: "You fix Go bugs. Answer with a unified diff."}
	room := budget.ContentBudget(plan.Counter, plan.Input, "user", system)

	ctx := context.Background()
	ix, err := index.New(ctx, &index.Options{Dir: dir, NoCache: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	sel, err := slicer.Select(ctx, ix, "Post loses the request body when retry.Do retries", plan.Counter,
		&slicer.SelectOptions{Budget: room})
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := json.Marshal(map[string]any{"model": plan.Model.Name, "messages": []map[string]string{
		{"role": system.Role, "content": system.Content},
		{"role": "user", "content": sel.Text},
	}})
	msgs, _, err := budget.ParseChatRequest(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range sel.Files {
		fmt.Println(f.Path)
	}
	fmt.Println("request within the input limit:", budget.CountChat(plan.Counter, msgs, nil) <= plan.Input)
	// Output:
	// retry/retry.go
	// http/client.go
	// request within the input limit: true
}
