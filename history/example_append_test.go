package history_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
)

// A request builder keeps the conversation in the format it sends:
// it appends the user's next message, prunes the whole request to the
// model's input limit (a smaller window here, as a local server might
// have), and sends what Encode writes. Counting the body again with
// budget.ParseChatRequest and budget.CountChat gives what Prune reported:
// every package counts a request the same way.
func ExampleConversation_Append() {
	conv, err := history.Parse(strings.NewReader(chatRequest()))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := conv.Append("user", "And how long would a cache of /orders/{id} take to warm up?"); err != nil {
		fmt.Println(err)
		return
	}
	plan, err := budget.PlanFor("gpt-4.1", &budget.Policy{Window: 4096, Reserve: 512})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := history.Prune(conv, plan.Counter, &history.Options{Budget: plan.Input})
	if err != nil {
		fmt.Println(err)
		return
	}
	var body bytes.Buffer
	if err := res.Conversation.Encode(&body); err != nil {
		fmt.Println(err)
		return
	}
	msgs, tools, err := budget.ParseChatRequest(body.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d messages, %d → %d tokens (input limit %d); counted again: %d\n",
		len(msgs), res.Before, res.After, plan.Input, budget.CountChat(plan.Counter, msgs, tools))
	fmt.Println("last:", msgs[len(msgs)-1].Content)
	// Output:
	// 7 messages, 11300 → 3473 tokens (input limit 3502); counted again: 3473
	// last: And how long would a cache of /orders/{id} take to warm up?
}
