package budget

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// overflowCases are real error texts, copied from the issue threads named
// in each case, with what FromError must read from them.
var overflowCases = []struct {
	source string
	text   string
	want   Overflow
}{
	{"kaixindelele/ChatPaper#7 (OpenAI, 2023)",
		"openai.error.InvalidRequestError: This model's maximum context length is 4097 tokens. However, your messages resulted in 4218 tokens. Please reduce the length of the messages.",
		Overflow{Provider: "openai", Window: 4097, Used: 4218}},
	{"issue #2 example (OpenAI)",
		"This model's maximum context length is 24000 tokens. However, your messages resulted in 59179 tokens. Please reduce the length of the messages.",
		Overflow{Provider: "openai", Window: 24000, Used: 59179}},
	{"sean1832/GPT-Brain#20 (OpenAI, requested variant)",
		"InvalidRequestError: This model's maximum context length is 4097 tokens. However, you requested 4431 tokens (3431 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
		Overflow{Provider: "openai", Window: 4097, Used: 4431, Prompt: 3431, Output: 1000}},
	{"vllm-project/vllm#20409 (vLLM, OpenAI wording)",
		"ValueError: This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
		Overflow{Provider: "openai", Window: 16384, Used: 122946, Prompt: 112946, Output: 10000}},
	{"ogx-ai/ogx#4534 (vLLM behind llama-stack, JSON body)",
		`openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': "This model's maximum context length is 6048 tokens. However, you requested 6616 tokens (568 in the messages, 6048 in the completion). Please reduce the length of the messages or completion.", 'type': 'BadRequestError', 'param': None, 'code': 400}`,
		Overflow{Provider: "openai", Window: 6048, Used: 6616, Prompt: 568, Output: 6048}},
	{"langchain-ai/langchain#24058 (OpenAI-compatible, total only)",
		"maximum context length is 8192 tokens. However, you requested 254457 tokens",
		Overflow{Provider: "openai", Window: 8192, Used: 254457}},
	{"vllm-project/vllm#42474 (vLLM ≥ 0.9)",
		"VLLMValidationError: This model's maximum context length is 128000 tokens. \nHowever, you requested 65535 output tokens and your prompt contains at \nleast 62466 input tokens, for a total of at least 128001 tokens.",
		Overflow{Provider: "vllm", Window: 128000, Used: 128001, Prompt: 62466, Output: 65535}},
	{"daisuke-awaji/moca#254 (Anthropic via Bedrock)",
		"Details: The model returned the following errors: prompt is too long: 200049 tokens > 200000 maximum",
		Overflow{Provider: "anthropic", Window: 200000, Used: 200049}},
	{"earendil-works/pi#102 (Anthropic API JSON)",
		`Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 219898 tokens > 200000 maximum"},"request_id":"req_011CVjxiYzEFcAQC4Fk87zw2"}`,
		Overflow{Provider: "anthropic", Window: 200000, Used: 219898}},
	{"issue #2 example (Anthropic)",
		"prompt is too long: 210000 tokens > 200000 maximum",
		Overflow{Provider: "anthropic", Window: 200000, Used: 210000}},
	{"Anthropic max_tokens variant",
		"input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again",
		Overflow{Provider: "anthropic", Window: 200000, Used: 209573, Prompt: 188240, Output: 21333}},
	{"google-gemini/gemini-cli#6678 (Gemini)",
		`✕ [API Error: [{ "error": { "code": 400, "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT" } } ]]`,
		Overflow{Provider: "gemini", Window: 1048576, Used: 1200293}},
	{"google-gemini/gemini-cli#4231 (Gemini, escaped JSON inside JSON)",
		`[API Error: {"error":{"message":"{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n","code":400,"status":"Bad Request"}}]`,
		Overflow{Provider: "gemini", Window: 1048576, Used: 3475108}},
	{"oobabooga/textgen#7257 (llama.cpp server JSON)",
		`{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}}`,
		Overflow{Provider: "llama.cpp", Window: 8192, Used: 14429}},
	{"ggml-org/llama.cpp#19774 (llama.cpp server, counts in message)",
		`{"error":{"code":400,"message":"request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4390}}`,
		Overflow{Provider: "llama.cpp", Window: 4096, Used: 4390}},
	{"ggml-org/llama.cpp#19774 (llama.cpp server, old wording)",
		`{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}`,
		Overflow{Provider: "llama.cpp"}},
	{"fedora-copr/logdetective-website#193 (llama-cpp-python)",
		"[llama-cpp] | Exception: Requested tokens (2285) exceed context window of 2048",
		Overflow{Provider: "llama.cpp", Window: 2048, Used: 2285}},
	{"vllm-project/vllm#10440 (vLLM scheduler)",
		"scheduler.py:648] Input prompt (36893 tokens) is too long and exceeds limit of 1000",
		Overflow{Provider: "vllm", Window: 1000, Used: 36893}},
	{"openai/codex#4926 (Codex CLI)",
		"■ Codex ran out of room in the model's context window. Start a new conversation or clear earlier history before retrying.",
		Overflow{Provider: "codex"}},
	{"openai/codex#31535 (Codex app)",
		"Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.",
		Overflow{Provider: "codex"}},
	{"OpenAI Responses API",
		`{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
		Overflow{Provider: "openai"}},
	{"thousands separators",
		"prompt is too long: 1,200,000 tokens > 1,000,000 maximum",
		Overflow{Provider: "anthropic", Window: 1000000, Used: 1200000}},
}

func TestFromError(t *testing.T) {
	for _, tc := range overflowCases {
		t.Run(tc.source, func(t *testing.T) {
			got, err := FromError(tc.text)
			if err != nil {
				t.Fatalf("FromError: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FromError (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromErrorOvershoot(t *testing.T) {
	o, _ := FromError("This model's maximum context length is 24000 tokens. However, your messages resulted in 59179 tokens.")
	if got, want := o.Overshoot(), 59179-24000; got != want {
		t.Errorf("Overshoot = %d, want %d", got, want)
	}
	if got := (Overflow{Window: 10}).Overshoot(); got != 0 {
		t.Errorf("Overshoot without Used = %d, want 0", got)
	}
}

func TestFromErrorNotOverflow(t *testing.T) {
	for _, text := range []string{"", "rate limit exceeded", "Error code: 429 - You exceeded your current quota", "maximum context length"} {
		if o, err := FromError(text); !errors.Is(err, ErrNotOverflow) {
			t.Errorf("FromError(%q) = %+v, %v; want ErrNotOverflow", text, o, err)
		}
	}
}

func FuzzFromError(f *testing.F) {
	for _, tc := range overflowCases {
		f.Add(tc.text)
	}
	f.Add("maximum context length is 99999999999999999999999 tokens")
	f.Add("prompt is too long: 0 tokens > 0 maximum")
	f.Fuzz(func(t *testing.T, text string) {
		o, err := FromError(text)
		if err != nil {
			if o != (Overflow{}) {
				t.Fatalf("error %v with non-zero result %+v", err, o)
			}
			return
		}
		if o.Provider == "" || !utf8.ValidString(o.Provider) {
			t.Fatalf("no provider: %+v", o)
		}
		if o.Window < 0 || o.Used < 0 || o.Prompt < 0 || o.Output < 0 || o.Window > maxWindow*10 || o.Overshoot() < 0 {
			t.Fatalf("bad numbers: %+v", o)
		}
	})
}
