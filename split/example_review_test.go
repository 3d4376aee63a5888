package split_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/split"
)

// A batch review: a diff too large for one request to the model is cut
// into OpenAI Chat Completions request bodies, each with the review
// instructions, an answer cap (max_completion_tokens) and at most the
// model's input limit of tokens, counted as budget.CountChat counts the
// body; a final part merges the answers. Here the model is one served
// with an 8k window.
func Example_batchReview() {
	var diff strings.Builder
	for _, name := range []string{"api/orders.go", "api/orders_test.go", "store/cache.go", "store/cache_test.go"} {
		fmt.Fprintf(&diff, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,2 +1,202 @@\n package p\n", name, name, name, name)
		for i := range 200 {
			fmt.Fprintf(&diff, "+func step%d() error { return check(%q, %d) }\n", i, name, i)
		}
		diff.WriteString(" // end\n")
	}
	plan, err := budget.PlanFor("gpt-4o", &budget.Policy{Window: 8192})
	if err != nil {
		fmt.Println(err)
		return
	}
	in := split.Input{Kind: split.Diff, Sources: []split.Source{{Name: "main...feature", Text: diff.String()}}}
	opts := &split.Options{
		Budget:       plan.Input,
		Format:       split.OpenAI,
		Model:        plan.Model.Name,
		MaxTokens:    1024,
		Instructions: "Review this part of the change for bugs. List each finding with its file and line.",
		Reduce:       true,
	}
	res, err := split.Split(context.Background(), in, plan.Counter, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range append(res.Parts, *res.Reduce) {
		msgs, _, err := budget.ParseChatRequest([]byte(p.Text))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("part %d: %d tokens ≤ %d: %v, counted again %d, capped: %v\n", p.Index, p.Tokens, plan.Input,
			p.Tokens <= plan.Input, budget.CountChat(plan.Counter, msgs, nil), strings.Contains(p.Text, `"max_completion_tokens":1024`))
	}
	fmt.Println("verify:", split.Verify(in, res, plan.Counter, opts))
	// Output:
	// part 1: 3678 tokens ≤ 5980: true, counted again 3678, capped: true
	// part 2: 3882 tokens ≤ 5980: true, counted again 3882, capped: true
	// part 3: 3678 tokens ≤ 5980: true, counted again 3678, capped: true
	// part 4: 3882 tokens ≤ 5980: true, counted again 3882, capped: true
	// part 5: 130 tokens ≤ 5980: true, counted again 130, capped: true
	// verify: <nil>
}
