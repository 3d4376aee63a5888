// Package inflight fits the requests of a running agent to the model they
// are sent to, in flight, and recovers from the provider's answers: the
// policy of "ctxtrim proxy", for any request builder.
//
// A Fitter is made by New from Options (the zero value is valid) for one
// provider endpoint. Start parses a request body of a format (OpenAI
// Responses, Chat Completions, Anthropic Messages) and fits it; Answer
// reads the provider's answer and decides (Stop, or Resend with a new body
// or model); Send runs that loop with a caller's send function; Do wraps
// it all for an http.Client. The Fitter keeps what the answers taught of
// each model's limit (budget.Learned) for its life, and nothing at
// package level.
//
// # Fit
//
// Start reads the request's "model" and stated output cap
// (max_output_tokens, max_completion_tokens or max_tokens) and resolves
// the model to a Target (Options.Resolve; Models is the table-and-policy
// resolver every caller shares): its counter, window, output reserve and
// margin. The input limit is
//
//	limit = min(window − max(reserve, stated output) − margin, Options.Budget, ceiling)
//
// with budget.Limits doing the arithmetic; a window an earlier overflow
// error stated replaces the resolved one (with its own reserve,
// LearnedReserveDivisor), and ceiling is what errors stating no window
// taught (budget.Learned.Ceiling). The request is parsed with history
// and counted as history counts a request. One that fits goes byte for
// byte, unchanged. One that does not is pruned by history.Prune under its
// validity rules (tool calls paired, reasoning untouched, system prompts
// and the context clients inject pinned, the latest user turn kept) and
// re-encoded, with only the changed items rewritten. When even history's
// pinned minimum is over the limit, the request as it is must fail; its
// smallest valid form may still fit the real window (a limit shrunk by a
// reserve or a margin understates it), so that form is sent, with the
// request's stated output cap lowered to what the window leaves. A body
// that is not JSON, or not a conversation history can read, goes unchanged
// when its raw text counts within the limit, and is refused (Exchange.Reject)
// when it would need pruning.
//
// # Cache-aware pruning
//
// Providers discount a prompt prefix they have seen, and a client resends
// its whole history each turn. A pruner that frees just enough tokens
// masks one more old output every turn, so every request differs from the
// last at an early item and the cached prefix is lost. The Fitter keeps
// the prefix in two ways.
//
// Steps: it frees the excess rounded up to a multiple of Step tokens
// (Options.Step, default the limit / DefaultStepDivisor), that is, it asks
// history for
//
//	limit' = total − ⌈(total − limit) / Step⌉ × Step
//
// so the same amount frees the same items turn after turn: while the
// history grows by less than what the step left over, each request is the
// previous one with the new items appended. When turns must be dropped
// too, the drop's own excess is rounded up the same way.
//
// Reuse: the Fitter remembers the pruned form of recent requests (an LRU
// of Options.StickyBytes, keyed by model, limit and a hash chain of the
// original items): a request that extends one it pruned goes out as that
// pruned form plus the new items when that fits and is valid.
//
// # Answers
//
// Answer classifies an upstream answer (Classify):
//
//   - accepted (2xx): the size sent is learned (budget.Learned.Accept).
//   - overflow: a 4xx whose body budget.FromError reads as a
//     context-overflow error. An error that states the window
//     (Chat Completions, Anthropic, vLLM, Gemini, llama.cpp, …) is the
//     truth: the request is re-fitted to it (scaled down by the ratio of
//     the provider's count to ours when the error states the prompt size),
//     and the window is kept for later requests. An error that states no
//     numbers (OpenAI Responses: "Your input exceeds the context window
//     of this model. Please adjust your input and try again."; Bedrock)
//     teaches only that the size sent was too large: the request is
//     re-fitted to the ceiling of sizes refused and accepted — the largest
//     size accepted below the smallest refused, or budget.RefitPercent of
//     the refused size — and no later request is sent above it. At most
//     budget.MaxRefits re-fits per model per request, each smaller than
//     what was refused; then the error goes to the caller.
//   - capacity: 529, 503, a 429 whose body speaks of capacity or
//     overload, or any error saying "Selected model is at capacity". With
//     Options.Fallback naming backups for the model, the request goes to
//     the next model of the chain (primary, backups, then round again),
//     re-fitted to that model's target, after an exponential backoff with
//     full jitter that honours Retry-After, bounded by Retry.Attempts and
//     Retry.MaxElapsed. Without a fallback, capacity answers are final.
//   - anything else: final, as the provider sent it.
//
// DryRun sends every request unchanged and once, and notes what would
// have been pruned.
package inflight
