package budget_test

import (
	"errors"
	"fmt"

	"github.com/ctxtrim/ctxtrim/budget"
)

// A request builder starts from the model: its window, the room kept for the
// answer, and a safety margin give the input limit.
func ExampleLimits_Input() {
	m, err := budget.Lookup("gpt-4.1")
	if err != nil {
		fmt.Println(err)
		return
	}
	limits := budget.Limits{Window: m.Window, Reserve: 8000} // Margin 0: 2% of the window
	input, err := limits.Input()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: window %d, reserve %d, margin %d → input limit %d\n",
		m.Name, m.Window, limits.Reserve, limits.MarginTokens(), input)
	// Output:
	// gpt-4.1: window 1047576, reserve 8000, margin 20952 → input limit 1018624
}

// The input limit is then shared between the parts of the request: the
// system prompt and the task are pinned, history and repository context
// split the rest.
func ExampleAllocate() {
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		fmt.Println(err)
		return
	}
	system := "You are a careful Go reviewer. Answer with a unified diff."
	task := "retry.Do drops the request body after the first attempt; fix it."
	got, err := budget.Allocate(16000, budget.Sections{
		System:  c.Count(system),
		Task:    c.Count(task),
		History: 20000, // what the conversation so far would take
		Context: 4000,  // what the relevant files would take
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("system %d, task %d, history %d, context %d, total %d\n",
		got.System, got.Task, got.History, got.Context, got.Total())
	// Output:
	// system 13, task 14, history 11973, context 4000, total 16000
}

// When a provider rejects a request as too long, FromError reads the real
// window from its message, and the builder retries with a budget computed
// from it rather than guessing how much to cut.
func ExampleFromError() {
	apiError := `{"error":{"message":"This model's maximum context length is 32000 tokens. ` +
		`However, your messages resulted in 35012 tokens. Please reduce the length of the messages.",` +
		`"type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`
	ov, err := budget.FromError(apiError)
	if err != nil {
		fmt.Println(err)
		return
	}
	input, err := budget.Limits{Window: ov.Window, Reserve: 2000}.Input()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: window %d, request %d, over by %d; retry with input limit %d\n",
		ov.Provider, ov.Window, ov.Used, ov.Overshoot(), input)

	// Errors that are not about the context window are not guessed at.
	_, err = budget.FromError("rate limit reached for requests")
	fmt.Println(errors.Is(err, budget.ErrNotOverflow))
	// Output:
	// openai: window 32000, request 35012, over by 3012; retry with input limit 29360
	// true
}

// A request builder gets the counter and limits for its model in one
// call, and after the provider rejects a request as too long, the limits
// for the retry in one more: the window (and the requested output) the
// error states replace the model's.
func ExamplePlan_AfterError() {
	plan, err := budget.PlanFor("gpt-4o", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: window %d, reserve %d, margin %d: input %d\n",
		plan.Model.Name, plan.Limits.Window, plan.Limits.Reserve, plan.Limits.MarginTokens(), plan.Input)

	// The model is served behind a proxy with a smaller window.
	retry, err := plan.AfterError("This model's maximum context length is 32768 tokens. " +
		"However, you requested 40112 tokens (36016 in the messages, 4096 in the completion).")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("retry: window %d, reserve %d, margin %d: input %d\n",
		retry.Limits.Window, retry.Limits.Reserve, retry.Limits.MarginTokens(), retry.Input)
	// Output:
	// gpt-4o: window 128000, reserve 16384, margin 2560: input 109056
	// retry: window 32768, reserve 4096, margin 656: input 28016
}
