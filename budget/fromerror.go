package budget

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
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

// overflowPattern is one recognised error shape. Named groups window, used,
// prompt and output fill the fields of Overflow.
type overflowPattern struct {
	provider string
	re       *regexp.Regexp
}

// num matches a token count, allowing thousands separators ("1,048,576").
const num = `[0-9][0-9,_]*`

// overflowPatterns are tried in order; the first match wins. Each comes from
// a real error text (see testdata/overflow_errors.txt).
var overflowPatterns = []overflowPattern{
	// OpenAI (and OpenAI-compatible servers copying its wording):
	// "This model's maximum context length is 128000 tokens. However, you
	// requested 130000 tokens (126000 in the messages, 4000 in the
	// completion). Please reduce …"
	{"openai", regexp.MustCompile(`(?is)maximum context length is (?P<window>` + num + `) tokens.*?(?:you )?requested (?P<used>` + num + `) tokens \((?P<prompt>` + num + `) in the messages,(?: (?:\d[\d,]*) in the functions,)? (?P<output>` + num + `) in the completion\)`)},
	// "This model's maximum context length is 24000 tokens. However, your
	// messages resulted in 59179 tokens. Please reduce …"
	{"openai", regexp.MustCompile(`(?is)maximum context length is (?P<window>[0-9][0-9,_]*) tokens.*?(?:messages|prompt|input) resulted in (?P<used>[0-9][0-9,_]*) tokens`)},
	// Responses API: "Your input exceeds the context window of this model."
	// has no numbers; matched by the generic rule below.
}

// FromError parses a provider's context-overflow error text into an
// Overflow. It returns ErrNotOverflow for text that is not one.
func FromError(text string) (Overflow, error) {
	for _, p := range overflowPatterns {
		m := p.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		o := Overflow{Provider: p.provider}
		for i, name := range p.re.SubexpNames() {
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
		return o, nil
	}
	return Overflow{}, ErrNotOverflow
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
