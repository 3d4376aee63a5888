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
// # Policy
//
// What is done with each fitted request is package inflight's policy,
// which request builders call too: the body is read (at most MaxBody
// bytes, else 413) and fitted to its model (inflight.Fitter.Start: the
// model table and flags through inflight.Models, a window or ceiling
// learned from the upstream's answers, history's pruning in cache-keeping
// steps, injected instructions pinned, the smallest valid form with a
// lowered output cap when nothing else fits); the answer decides the
// rest (inflight.Fitter.Send: an overflow error is re-fitted and retried
// at most budget.MaxRefits times, learning the window it states or, when
// it states none as OpenAI's Responses API does, a ceiling from the sizes
// refused and accepted; a capacity answer goes to a -fallback model). What
// is learned lasts for the life of the process. A request that needs
// pruning but cannot be parsed gets 400 with what could not be parsed.
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
