// Package proxy is ctxtrim's in-flight fitter: an HTTP proxy between an
// agent (Codex, Claude Code, any OpenAI- or Anthropic-compatible client)
// and its provider that makes every request fit the model it is sent to,
// and costs no more than it must.
//
// A Proxy is an http.Handler built by New from Options. It holds no
// package-level state; everything it learns (windows stated by overflow
// errors) lives in the Proxy and dies with it. Logging goes through the
// injected Logf, one line per request, and never carries request or
// response content, nor any header value.
//
// # Routes
//
// POST requests whose path ends in /v1/responses (OpenAI Responses),
// /v1/chat/completions (OpenAI Chat Completions) or /v1/messages (Anthropic
// Messages) are fitted; every other request (GET /v1/models, Anthropic's
// /v1/messages/count_tokens, …) is forwarded as it is. GET /healthz is
// answered by the proxy itself. The upstream URL is the provider's base:
// the request's path and query are appended to it, and when the upstream's
// path already ends in /v1 the request's leading /v1 is not repeated, so
// that both "https://api.openai.com" and "https://api.openai.com/v1" work.
// The client's headers go upstream as they are (Authorization and
// x-api-key included) apart from the hop-by-hop ones and Accept-Encoding,
// which the proxy's own transport negotiates (so that error bodies can be
// read); responses come back with their status and headers, server-sent
// events flushed chunk by chunk as they arrive, other bodies copied.
//
// # Fit policy
//
// For each fitted request the proxy reads the body (at most MaxBody bytes,
// else 413), reads its "model" and stated output cap (max_output_tokens,
// max_completion_tokens or max_tokens), and resolves the model to a Target:
// its counter, window, output reserve and margin (Options.Resolve; the CLI
// passes the budget flags' and configuration's policy). The input limit is
//
//	limit = min(window − max(reserve, stated output) − margin, Options.Budget)
//
// with budget.Policy and budget.Limits doing the arithmetic (DefaultResolve
// reserves budget.DefaultReserve; the CLI passes -reserve, -margin and the
// configuration through the same policy); a window stated by an earlier
// overflow error from the same upstream for the same model replaces the
// resolved one. The request is parsed with history (the route gives the
// format) and counted as history counts a request (budget's accounting).
// A request that fits is forwarded byte for byte, unchanged. One that does
// not is pruned by history.Prune under its validity rules (tool calls
// paired, reasoning untouched, system and latest user turn kept) and
// forwarded re-encoded, with only the changed items rewritten. Under an
// estimate counter (Claude: o200k_base × the family's factor) Prune and
// history.Tokens are one accounting (history's package doc), so the pruned
// request is within the limit by the count the proxy checks. When even
// history's pinned minimum does not fit, the request goes upstream
// unchanged: the provider's answer is the truth the client acts on.
//
// A body that is not JSON, or not a conversation history can read, is
// forwarded unchanged when its raw text counts within the limit (a raw
// body counts more tokens than the text it carries); when it counts more,
// pruning was needed and cannot be done, so the proxy answers 400 and says
// what it could not parse. A request whose model resolves to no window and
// with no Budget is forwarded unchanged, and its log line says why.
//
// # Cache-aware pruning
//
// Providers discount a prompt prefix they have seen (OpenAI and Anthropic
// cache by prefix), and a client resends its whole history each turn. A
// pruner that frees just enough tokens masks one more old output every turn,
// so every request differs from the last at an early item and the cached
// prefix is lost. The proxy keeps the prefix in two ways.
//
// Steps: it frees the excess rounded up to a multiple of Step tokens
// (Options.Step, default the limit / DefaultStepDivisor), that is, it asks
// history for
//
//	limit' = total − ⌈(total − limit) / Step⌉ × Step
//
// history masks old tool outputs oldest first until the freed tokens reach
// that amount, so the same amount frees the same items turn after turn:
// while the history grows by less than what the step left over, each
// request is the previous one with the new items appended. When turns
// must be dropped too, the drop's own excess (what is left once every
// cheaper step has run) is rounded up the same way, with a second call.
// When limit' cannot be reached (the pinned minimum), the proxy prunes to
// limit itself.
//
// Reuse: steps alone do not hold once dropping starts, because masking the
// outputs that age into history's mask window frees more each turn, and
// fewer turns are then dropped. So the proxy remembers the pruned form of
// recent requests (an LRU of Options.StickyBytes, keyed by model, limit
// and a hash chain of the original items): a request that extends one it
// pruned (the same items, then new ones) goes out as that pruned form plus
// the new items when that fits the limit and is valid (history.WithItems
// re-parses and validates it), and is pruned afresh, in steps, otherwise.
// The replay benchmark measures the hit ratio with a stub that reports the
// shared prefix of every request.
//
// # Retry and fallback
//
// An upstream answer is classified (classify) as
//
//   - overflow: a 4xx whose body budget.FromError reads as a
//     context-overflow error. The proxy re-fits the original request to
//     the window the error states (scaled down by the ratio of the
//     provider's count to its own when the error states the prompt size;
//     RefitPercent of what was sent when it states no window) and retries
//     once. The client sees the retry's answer, success or error; never a
//     loop. A stated window is remembered for later requests.
//   - capacity: 529, 503, a 429 whose body speaks of capacity or
//     overload, or any error saying "Selected model is at capacity". With
//     Options.Fallback naming backups for the model (opt-in), the proxy
//     retries on the next model of the chain (primary, backups, then round
//     again), re-fitted to that model's target, after an exponential
//     backoff with full jitter that honours Retry-After for a model that
//     sent it, bounded by Retry.Attempts and Retry.MaxElapsed. Without a
//     fallback for the model, capacity answers pass through: the client
//     is the retrying caller.
//   - anything else: passed through untouched, status, headers and body.
//
// Retries happen only before the first byte of the answer reaches the
// client; an error a provider reports inside an event stream already
// started is passed through. DryRun forwards every request unchanged and
// once, and logs what would have been pruned.
//
// # Safety
//
// CheckListen refuses non-loopback listen addresses unless the caller opts
// in (the CLI's -allow-remote): the proxy forwards the client's
// credentials and has no authentication of its own. Request bodies are
// held in memory only for the life of the request and never written
// anywhere; header values are never logged. A client that goes away
// cancels the upstream request (the request context is the upstream
// request's context).
package proxy
