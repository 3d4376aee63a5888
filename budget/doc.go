// Package budget counts tokens exactly and does the arithmetic of fitting a
// request into a model's context window: the vocabulary (Counter, Model,
// Limits, Overflow) every other ctxtrim package is written in.
//
// It is pure: no flags, no printing, no logging, no package-level mutable
// state (the rank tables are read-only data embedded in the executable and
// the built-in model table is built once and never modified). Every
// exported function is safe for concurrent use, and so are the Counters it
// returns; Table and Plan are immutable values.
//
// Every count that decides whether something fits is made on the final
// text with the real Counter; sums of parts are only used to choose what to
// cut, never to promise that the result fits. There is no soft budget.
//
// # Exact counting
//
// A Counter counts the tokens of a text: Count(text) int.
// NewEncodingCounter returns one for a tiktoken encoding (o200k_base,
// cl100k_base) that counts exactly what tiktoken's encode_ordinary counts
// (special-token text such as "<|endoftext|>" is plain text), as the
// reference github.com/pkoukk/tiktoken-go does (NewReferenceCounter), an
// order of magnitude faster and with a start-up of milliseconds (bpe.go):
//
//  1. Invalid UTF-8 is replaced byte by byte with U+FFFD, as the
//     reference's []rune conversion does.
//  2. pretok.go splits the text into the pieces of the encoding's split
//     pattern without a regexp engine, reproducing the reference's
//     leftmost-alternative backtracking alternative by alternative.
//  3. Each piece is looked up once in the rank table (bpe_table.go: a
//     hash table laid out at build time by go generate and read in place
//     from the executable, so nothing is built at start-up); most pieces
//     are tokens. Only the others are byte-pair merged, with tiktoken's
//     quadratic scan for short pieces and a heap for long ones.
//  4. Long texts are cut at boundaries that provably leave every piece
//     unchanged and counted concurrently.
//
// Exactness is tested differentially (a fuzz test against the reference),
// by golden counts recorded from it, and on corpora by scripts.
//
// # The model table
//
// models.go reads models.toml: per model its window, max output, tokenizer
// family and aliases, with the source of the figures; per family the
// encoding it is counted with and a safety factor. A name is looked up
// exactly, then lower-cased with provider prefixes ("openai/") and version
// suffixes (dates) stripped, then by the longest table name that prefixes
// it at a separator; ErrUnknownModel lists the known names. Models whose
// tokenizer is not a tiktoken encoding (Claude, Gemini, Llama, …) are
// counted with o200k_base × the family's Factor, rounded up (Scaled), and
// flagged Estimate; each factor sits at or above the ratio measured against
// the family's published tokenizer where one exists (testdata/factors), so
// that a text that fits by the estimate fits by the provider's count. An
// estimate counter scales a whole request's count once, not each part, so
// rounding does not add up. Table.With applies configuration overrides
// ([families] and [models] of .ctxtrim.toml) and returns a new table.
//
// # Arithmetic
//
// The window holds input and output together (arith.go):
//
//	input limit = window − reserve − margin
//
// reserve is kept for the reply (DefaultReserve: the model's max
// output, a quarter of the window when that would take half of it or more,
// and none when the output has its own limit; at most an eighth of a
// smaller window an overflow error stated, LearnedReserveDivisor); margin, DefaultMarginPercent
// of the window unless given (NoMargin for none), absorbs what a text count
// does not see. Allocate splits the input limit: system prompt and task are
// pinned (they fit whole or the request fails with ErrNoFit); the rest is
// shared by history (HistoryShare percent guaranteed) and repository
// context (the remainder), what one does not need flowing to the other.
// The budget policy (policy.go) chooses the limits for a model the same
// way for a request builder as for the CLI: Policy.Limits, Plan (a model's
// counter and limits in one call, PlanFor) and Plan.AfterError (the limits
// for the retry after a context-overflow error). ContentBudget gives the
// room for text placed inside one message. Failures to fit are
// TaskTooLargeError and NoFitError, with the numbers, both ErrNoFit.
// Fit (fit.go) trims one text to an exact budget, keeping head and tail at
// line boundaries around a marker that says what was dropped, recounting
// the assembled text until it fits.
//
// # Request accounting
//
// A request costs more than the text of its messages. CountChat and
// Overhead (chat.go) follow OpenAI's cookbook "How to count tokens with
// tiktoken", which the cookbook checks against the API's usage: 3 tokens
// per message, 1 per name (on any role), 3 of reply priming, and its
// method for tool definitions, with the constants of the counter's
// encoding (OverheadOf: the encoding counters report theirs to
// EncodingOf). ParseChatMessage reads a Chat message the way every
// package counts it (count -chat, history, split), and Total scales an
// estimate's count of a whole request once. request.go holds the rest,
// shared by every package that frames a request (history, split):
// Responses items and Anthropic messages framed like Chat messages,
// Anthropic's tool-use system prompt (346 tokens, from its documentation),
// tool calls, results and schemas by named constants chosen on the high
// side where no provider publishes a rendering, and images by the
// providers' published formulas (OpenAIImageTokens, AnthropicImageTokens)
// or, when the size is unknown, ImageTokens, which bounds both for the
// models they describe. Each constant says whether it is published or a
// guess.
//
// # Overflow errors
//
// FromError (fromerror.go) reads a provider's context-overflow error text
// (OpenAI, Anthropic, Gemini, Mistral, vLLM, llama.cpp, Codex, Bedrock;
// the message, its JSON body or a log line holding it) into an Overflow:
// the window, and where stated the tokens used, the prompt and the
// requested output. Patterns come from real error texts, most specific
// first; text that is not such an error gives ErrNotOverflow. The CLI
// takes the window (and the output reserve) from it, so that a request that
// just failed can be cut to fit without knowing the model.
package budget
