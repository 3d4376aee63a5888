package budget

// Request accounting beyond the Chat cookbook.
//
// CountChat (chat.go) follows the one rendering a provider documents and
// checks: OpenAI's cookbook for Chat Completions. The other request shapes
// ctxtrim reads or writes are counted here, with these constants, so that
// every package frames a request the same way (history prunes Chat,
// Responses and Anthropic transcripts with them; split renders OpenAI and
// Anthropic request bodies with them). Each constant says where its value
// comes from. Where a provider does not publish its rendering the value is
// a guess chosen on the high side, so that a count is meant never to fall
// below what the API charges; those are marked "guess".
//
// The parts of a request:
//
//   - Reply priming, once: ReplyPrimingTokens.
//   - Every message (Chat message, Responses message or item, Anthropic
//     message): PerMessageTokens plus its role (MessageFraming), plus its
//     content. Text sent outside the message list (Anthropic's "system",
//     Responses' "instructions") costs InstructionsTokens: the framing of a
//     message without a role.
//   - A tool call outside the cookbook's method (Anthropic tool_use,
//     Responses *_call items, Chat custom tool calls): PerToolCallTokens
//     plus its name and arguments. A tool result: PerToolResultTokens plus
//     its output.
//   - Tool definitions other than Chat function schemas the cookbook reads:
//     PerToolSchemaTokens plus the compact JSON text of each schema
//     (ToolSchemaTokens). With Anthropic, AnthropicToolPromptTokens once
//     when any tool is present (AnthropicToolTokens).
//   - An image whose pixel size is unknown: ImageTokens. When the size is
//     known, OpenAIImageTokens and AnthropicImageTokens apply the
//     providers' published formulas; ImageTokens bounds both for the
//     models they document (a test checks it), but not for every model:
//     see ImageTokens.

const (
	// ReplyPrimingTokens: every reply is primed with
	// <|start|>assistant<|message|>, 3 tokens once per request (OpenAI
	// cookbook, "How to count tokens with tiktoken"; the same value as
	// Overhead.ReplyPriming). Anthropic and the Responses API do not publish
	// theirs; the same value is used (guess).
	ReplyPrimingTokens = 3

	// PerMessageTokens is the framing of one message,
	// <|start|>{role}<|message|>…<|end|>, 3 tokens (OpenAI cookbook, the
	// same value as Overhead.PerMessage). It is applied to every Responses
	// item and every Anthropic message as well, whose rendering is not
	// published (guess).
	PerMessageTokens = 3

	// PerToolCallTokens covers the wrapper around one tool call outside the
	// cookbook's method: call id, type and name framing of an Anthropic
	// tool_use block, a Responses function_call item, a Chat custom tool
	// call. Not published by either provider (guess, above the cookbook's 3
	// for a Chat function call, since ids and types are sent too).
	PerToolCallTokens = 8

	// PerToolResultTokens covers a tool result's id and framing (Anthropic
	// tool_result, Responses *_call_output). Not published (guess).
	PerToolResultTokens = 4

	// PerToolSchemaTokens covers the framing of one tool definition counted
	// as its compact JSON text. The JSON is longer than OpenAI's
	// TypeScript-like rendering of a schema, so tools are over- rather than
	// under-counted. Not published (guess).
	PerToolSchemaTokens = 12

	// AnthropicToolPromptTokens is the system prompt Anthropic adds when a
	// request has tools: 346 tokens with tool_choice auto or none (313 with
	// any or tool) for the Claude 4 models, per Anthropic's "Tool use
	// pricing and tokens" documentation. The larger figure is used because
	// tool_choice is not read. Claude 3 Opus, now retired, took 530.
	AnthropicToolPromptTokens = 346

	// ImageTokens is charged for an image whose size ctxtrim cannot know
	// without decoding it. It is the high end of both providers' published
	// costs for the models their formulas describe: OpenAI's high detail
	// tops out at 1445 tokens for GPT-4o tile layouts (OpenAIImageTokens of
	// 768×2048: 8 tiles) and Anthropic's at about 1600, since larger images
	// are scaled down to about 1600 tokens (AnthropicImageTokens). It is
	// not a bound for every model: OpenAI's gpt-4o-mini bills images at a
	// large multiple of the tile formula, and Anthropic's newest models read
	// larger images (up to 2576 pixels on the long edge, several thousand
	// tokens); requests with images for those models are under-counted.
	ImageTokens = 1600
)

// OpenAI's image formula for GPT-4o and GPT-4 Turbo, from OpenAI's vision
// guide ("Calculating costs"): a low-detail image costs
// OpenAIImageBaseTokens; a high-detail one is scaled to fit in a
// 2048×2048 square, then so that its shortest side is 768 pixels (only
// down), and costs OpenAIImageBaseTokens plus OpenAIImageTileTokens for
// each 512-pixel tile that covers it.
const (
	OpenAIImageBaseTokens = 85  // every image, and all of a low-detail one
	OpenAIImageTileTokens = 170 // per 512×512 tile of a high-detail image
	openAIImageFit        = 2048
	openAIImageShortSide  = 768
	openAIImageTile       = 512
)

// Anthropic's image formula, from its vision guide ("Evaluate image
// size"): tokens = width × height / AnthropicPixelsPerToken, after an image
// whose long edge exceeds AnthropicImageMaxEdge pixels, or whose cost
// exceeds about AnthropicImageMaxTokens, is scaled down (keeping its aspect
// ratio) until it fits both.
const (
	AnthropicPixelsPerToken = 750
	AnthropicImageMaxEdge   = 1568
	AnthropicImageMaxTokens = 1600
)

// OpenAIImageTokens returns the tokens of a width×height image sent to
// GPT-4o with detail "low" (lowDetail) or "high"/"auto". Non-positive
// sizes cost OpenAIImageBaseTokens.
func OpenAIImageTokens(width, height int, lowDetail bool) int {
	if lowDetail || width <= 0 || height <= 0 {
		return OpenAIImageBaseTokens
	}
	w, h := float64(width), float64(height)
	if long := max(w, h); long > openAIImageFit {
		w, h = w*openAIImageFit/long, h*openAIImageFit/long
	}
	if short := min(w, h); short > openAIImageShortSide {
		w, h = w*openAIImageShortSide/short, h*openAIImageShortSide/short
	}
	tiles := ceilDiv(int(w+0.5), openAIImageTile) * ceilDiv(int(h+0.5), openAIImageTile)
	return OpenAIImageBaseTokens + OpenAIImageTileTokens*tiles
}

// AnthropicImageTokens returns the tokens of a width×height image sent to
// Claude, after Anthropic's downscaling. Non-positive sizes cost 0.
func AnthropicImageTokens(width, height int) int {
	if width <= 0 || height <= 0 {
		return 0
	}
	w, h := float64(width), float64(height)
	if long := max(w, h); long > AnthropicImageMaxEdge {
		w, h = w*AnthropicImageMaxEdge/long, h*AnthropicImageMaxEdge/long
	}
	if area, limit := w*h, float64(AnthropicImageMaxTokens*AnthropicPixelsPerToken); area > limit {
		return AnthropicImageMaxTokens
	}
	return ceilDiv(int(w*h+0.5), AnthropicPixelsPerToken)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// MessageFraming returns the framing of a Responses or Anthropic message
// with role: PerMessageTokens plus the role's tokens. Its content is
// counted on top.
func MessageFraming(c Counter, role string) int { return PerMessageTokens + c.Count(role) }

// InstructionsTokens returns the tokens of text sent once per request
// outside the message list (Anthropic "system", Responses "instructions"):
// the framing of a message without a role, plus the text.
func InstructionsTokens(c Counter, text string) int { return PerMessageTokens + c.Count(text) }

// ToolSchemaTokens returns the tokens of tool definitions counted as the
// compact JSON text of each schema, PerToolSchemaTokens each; 0 for none.
// It is used for Responses and Anthropic tools, and for Chat tools that
// the cookbook's method cannot read.
func ToolSchemaTokens(c Counter, schemas []string) int {
	n := 0
	for _, s := range schemas {
		n += PerToolSchemaTokens + c.Count(s)
	}
	return n
}

// AnthropicToolTokens returns the tokens of Anthropic tool definitions:
// ToolSchemaTokens plus AnthropicToolPromptTokens when there is any; 0 for
// none.
func AnthropicToolTokens(c Counter, schemas []string) int {
	if len(schemas) == 0 {
		return 0
	}
	return AnthropicToolPromptTokens + ToolSchemaTokens(c, schemas)
}

// CountAnthropic returns the prompt tokens of an Anthropic Messages request
// with a system prompt (none when empty), plain-text messages and tool
// schemas (compact JSON, see AnthropicToolTokens): ReplyPrimingTokens,
// InstructionsTokens for the system prompt, and MessageFraming plus the
// content for every message. Anthropic publishes no rendering, so this is
// an estimate on the high side, not an exact count. A message's Name and
// ToolCalls are not part of Anthropic's message shape and are ignored.
// With an estimate counter (Scaled) the request is counted unscaled and the
// total scaled once.
func CountAnthropic(c Counter, system string, msgs []Message, toolSchemas []string) int {
	return Total(c, func(c Counter) int {
		n := ReplyPrimingTokens
		if system != "" {
			n += InstructionsTokens(c, system)
		}
		for _, m := range msgs {
			n += MessageFraming(c, m.Role) + c.Count(m.Content)
		}
		return n + AnthropicToolTokens(c, toolSchemas)
	})
}
