package budget

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// ErrNotOverflow is returned by FromError when the text is not a
// context-overflow error it recognises.
var ErrNotOverflow = errors.New("not a recognised context-overflow error")

// Overflow is what a provider's context-overflow error says. Fields the
// text does not state are 0.
type Overflow struct {
	Provider string // "openai", "anthropic", "gemini", "vllm", "llama.cpp", "codex", …
	Window   int    // the context window (or maximum prompt size) in tokens
	Used     int    // tokens the provider counted for the request (prompt, or prompt + output)
	Prompt   int    // tokens in the messages, when stated apart from the output
	Output   int    // tokens requested for the output (max_tokens), when stated
}

// Overshoot returns by how many tokens the request exceeded the window, or
// 0 when the text does not say.
func (o Overflow) Overshoot() int {
	if o.Window == 0 || o.Used <= o.Window {
		return 0
	}
	return o.Used - o.Window
}

// overflowPattern is one recognised error shape. Named groups window,
// used, prompt and output fill the fields of Overflow; extra patterns are
// searched anywhere in the text for more groups (JSON fields whose order is
// not fixed).
type overflowPattern struct {
	provider string
	re       *regexp.Regexp
	extra    []*regexp.Regexp
}

// num matches a token count, allowing thousands separators ("1,048,576").
const num = `[0-9][0-9,_]*`

// group returns a named group matching a count.
func group(name string) string { return `(?P<` + name + `>` + num + `)` }

// overflowPatterns returns the recognised shapes, most specific first; the
// first match wins. Each comes from real error text, quoted in
// fromerror_test.go with its source. Compiled once; never modified.
var overflowPatterns = sync.OnceValue(buildOverflowPatterns)

func buildOverflowPatterns() []overflowPattern {
	mcl := `(?is)maximum context length is ` + group("window") + ` tokens`
	return []overflowPattern{
		// vLLM ≥ 0.9: "This model's maximum context length is 128000 tokens.
		// However, you requested 65535 output tokens and your prompt contains
		// at least 62466 input tokens, for a total of at least 128001 tokens."
		{"vllm", regexp.MustCompile(mcl + `.*?requested ` + group("output") + ` output tokens and your prompt contains at least ` + group("prompt") + ` input tokens, for a total of at least ` + group("used") + ` tokens`), nil},
		// vLLM: "'max_tokens' is too large: 4096. This model's maximum context
		// length is 4096 tokens and your request has 100 input tokens".
		{"vllm", regexp.MustCompile(`(?is)is too large: ` + group("output") + `\.\s*This model's maximum context length is ` + group("window") + ` tokens and your request has ` + group("prompt") + ` input tokens`), nil},
		// OpenAI chat completions (also DeepSeek, Azure, vLLM < 0.9):
		// "This model's maximum context length is 4097 tokens. However, you
		// requested 4431 tokens (3431 in the messages, 1000 in the
		// completion)." OpenRouter: "… you requested about 130000 tokens
		// (120000 of text input, 10000 in the output)."
		{"openai", regexp.MustCompile(mcl + `.*?requested (?:about )?` + group("used") + ` tokens \(` + group("prompt") + ` (?:in the messages|of text input)(?:, ` + num + ` (?:in the functions|of tool input|of image input))*, ` + group("output") + ` in the (?:completion|output)\)`), nil},
		// OpenAI: "… However, your messages resulted in 59179 tokens."
		{"openai", regexp.MustCompile(mcl + `.*?(?:messages|prompt|input) resulted in ` + group("used") + ` tokens`), nil},
		// OpenAI-compatible, other wordings: "… However, you requested 254457 tokens".
		{"openai", regexp.MustCompile(mcl + `(?:.*?requested (?:about )?` + group("used") + ` tokens)?`), nil},
		// Anthropic: "prompt is too long: 210000 tokens > 200000 maximum".
		{"anthropic", regexp.MustCompile(`(?i)prompt is too long: ` + group("used") + ` tokens > ` + group("window") + ` maximum`), nil},
		// Anthropic: "input length and `max_tokens` exceed context limit:
		// 188240 + 21333 > 200000, decrease input length or `max_tokens`".
		{"anthropic", regexp.MustCompile("(?i)input length and `?max_tokens`? exceed context limit: " + group("prompt") + ` \+ ` + group("output") + ` > ` + group("window")), nil},
		// Gemini / Vertex AI: "The input token count (1054016) exceeds the
		// maximum number of tokens allowed (1048576)."
		{"gemini", regexp.MustCompile(`(?i)input token count \(` + group("used") + `\) exceeds the maximum number of tokens allowed \(` + group("window") + `\)`), nil},
		// llama.cpp server: "request (4390 tokens) exceeds the available
		// context size (4096 tokens), try increasing it".
		{"llama.cpp", regexp.MustCompile(`(?i)request \(` + group("used") + ` tokens\) exceeds the available context size \(` + group("window") + ` tokens\)`), nil},
		// llama.cpp server ≥ b6380: {"message":"the request exceeds the
		// available context size. try increasing the context size or enable
		// context shift","type":"exceed_context_size_error",
		// "n_prompt_tokens":14429,"n_ctx":8192}; older: "Context size has
		// been exceeded."
		{"llama.cpp", regexp.MustCompile(`(?i)exceeds the available context size|exceed_context_size_error|context size has been exceeded`), []*regexp.Regexp{
			regexp.MustCompile(`"n_prompt_tokens"\s*:\s*` + group("used")),
			regexp.MustCompile(`"n_ctx"\s*:\s*` + group("window")),
		}},
		// llama-cpp-python: "Requested tokens (2285) exceed context window of 2048".
		{"llama.cpp", regexp.MustCompile(`(?i)requested tokens \(` + group("used") + `\) exceed context window of ` + group("window")), nil},
		// vLLM < 0.6 scheduler: "Input prompt (2664 tokens) is too long and
		// exceeds limit of 2048".
		{"vllm", regexp.MustCompile(`(?i)input prompt \(` + group("used") + ` tokens\) is too long and exceeds limit of ` + group("window")), nil},
		// Mistral: "Prompt contains 40000 tokens and 0 draft tokens, too
		// large for model with 32768 maximum context length".
		{"mistral", regexp.MustCompile(`(?is)prompt contains ` + group("used") + ` tokens.*?too large for model with ` + group("window") + ` maximum context length`), nil},
		// Codex CLI: "Codex ran out of room in the model's context window.
		// Start a new thread or clear earlier history before retrying."
		{"codex", regexp.MustCompile(`(?i)ran out of room in the model'?s context window`), nil},
		// OpenAI Responses API: "Your input exceeds the context window of
		// this model. Please adjust your input and try again."
		// (code context_length_exceeded).
		{"openai", regexp.MustCompile(`(?i)input exceeds the context window|context_length_exceeded`), nil},
		// AWS Bedrock: "Input is too long for requested model."
		{"bedrock", regexp.MustCompile(`(?i)input is too long for requested model`), nil},
	}
}

// FromError parses a provider's context-overflow error text (the message,
// or the whole JSON body or log line holding it) into an Overflow. Fields
// the text does not state are 0; Codex's and Bedrock's messages state no
// numbers at all. It returns ErrNotOverflow for text it does not recognise.
// It never panics, whatever the input.
func FromError(text string) (Overflow, error) {
	// The message is often JSON-escaped inside a log line.
	// Terminals and logs wrap lines: compare words, not layout.
	text = strings.NewReplacer(`\"`, `"`, `\n`, " ").Replace(text)
	text = strings.Join(strings.Fields(text), " ")
	for _, p := range overflowPatterns() {
		m := p.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		o := Overflow{Provider: p.provider}
		o.set(p.re, m)
		for _, x := range p.extra {
			if xm := x.FindStringSubmatch(text); xm != nil {
				o.set(x, xm)
			}
		}
		if o.Used == 0 && o.Prompt > 0 {
			o.Used = o.Prompt + o.Output
		}
		return o, nil
	}
	return Overflow{}, ErrNotOverflow
}

// set fills o from the named groups of a match.
func (o *Overflow) set(re *regexp.Regexp, m []string) {
	for i, name := range re.SubexpNames() {
		if name == "" || m[i] == "" {
			continue
		}
		n, ok := parseCount(m[i])
		if !ok {
			continue
		}
		switch name {
		case "window":
			o.Window = n
		case "used":
			o.Used = n
		case "prompt":
			o.Prompt = n
		case "output":
			o.Output = n
		}
	}
}

// parseCount parses "1,048,576" or "1_000" and rejects absurd values.
func parseCount(s string) (int, bool) {
	s = strings.NewReplacer(",", "", "_", "").Replace(s)
	if len(s) > 10 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > maxWindow*10 {
		return 0, false
	}
	return n, true
}
