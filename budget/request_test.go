package budget

import (
	"testing"
)

// The framing constants shared with the cookbook must agree with it.
func TestRequestConstantsMatchCookbook(t *testing.T) {
	for _, enc := range []string{O200kBase, Cl100kBase} {
		o := OverheadFor(enc)
		if o.PerMessage != PerMessageTokens || o.ReplyPriming != ReplyPrimingTokens {
			t.Errorf("%s: cookbook PerMessage %d, ReplyPriming %d; request.go has %d, %d",
				enc, o.PerMessage, o.ReplyPriming, PerMessageTokens, ReplyPrimingTokens)
		}
		if PerToolCallTokens < o.PerToolCall {
			t.Errorf("PerToolCallTokens %d is below the cookbook's %d for a Chat call", PerToolCallTokens, o.PerToolCall)
		}
	}
}

// The figures of the providers' documentation.
func TestImageTokens(t *testing.T) {
	tests := []struct {
		name          string
		width, height int
		low           bool
		openai        int
		anthropic     int
	}{
		// OpenAI's worked examples: 1024×1024 high → 765; 2048×4096 high →
		// 1105; low detail → 85. Anthropic's table: 1092×1092 ≈ 1590,
		// 200×200 ≈ 54.
		{"1024 square", 1024, 1024, false, 765, 1399},
		{"2048×4096", 2048, 4096, false, 1105, 1600},
		{"low detail", 4096, 8192, true, 85, 1600},
		{"1092 square", 1092, 1092, false, 765, 1590},
		{"200 square", 200, 200, false, 255, 54},
		{"one tile stays one tile", 500, 500, false, 255, 334},
		{"513 wide needs two tiles", 513, 500, false, 425, 342},
		{"zero size", 0, 10, false, 85, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := OpenAIImageTokens(tc.width, tc.height, tc.low); got != tc.openai {
				t.Errorf("OpenAIImageTokens(%d, %d, %v) = %d, want %d", tc.width, tc.height, tc.low, got, tc.openai)
			}
			if got := AnthropicImageTokens(tc.width, tc.height); got != tc.anthropic {
				t.Errorf("AnthropicImageTokens(%d, %d) = %d, want %d", tc.width, tc.height, got, tc.anthropic)
			}
		})
	}
}

// ImageTokens bounds both formulas for every size: it is what an image of
// unknown size is charged.
func TestImageTokensBoundsFormulas(t *testing.T) {
	worstOpenAI, worstAnthropic := 0, 0
	for w := 16; w <= 12000; w = w*9/8 + 1 {
		for h := 16; h <= 12000; h = h*9/8 + 1 {
			worstOpenAI = max(worstOpenAI, OpenAIImageTokens(w, h, false))
			worstAnthropic = max(worstAnthropic, AnthropicImageTokens(w, h))
		}
	}
	if worstOpenAI > ImageTokens || worstAnthropic > ImageTokens {
		t.Errorf("ImageTokens %d is below the worst case: OpenAI %d, Anthropic %d", ImageTokens, worstOpenAI, worstAnthropic)
	}
	if worstOpenAI != 1445 {
		t.Errorf("OpenAI worst case %d, want 1445 (8 tiles)", worstOpenAI)
	}
}

func TestCountAnthropicFormula(t *testing.T) {
	c := lenCounter{}
	msgs := []Message{{Role: "user", Content: "abcd"}, {Role: "assistant", Content: "ef"}}
	tools := []string{`{"name":"f"}`}
	tests := []struct {
		name   string
		system string
		msgs   []Message
		tools  []string
		want   int
	}{
		{"empty", "", nil, nil, ReplyPrimingTokens},
		{"system only", "sys", nil, nil, ReplyPrimingTokens + PerMessageTokens + len("sys")},
		{"messages", "", msgs, nil, ReplyPrimingTokens +
			PerMessageTokens + len("user") + len("abcd") + PerMessageTokens + len("assistant") + len("ef")},
		{"tools", "", nil, tools, ReplyPrimingTokens + AnthropicToolPromptTokens + PerToolSchemaTokens + len(tools[0])},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CountAnthropic(c, tc.system, tc.msgs, tc.tools); got != tc.want {
				t.Errorf("CountAnthropic = %d, want %d", got, tc.want)
			}
		})
	}
	exact := CountAnthropic(c, "sys", msgs, nil)
	if got, want := CountAnthropic(Scaled(c, 1.5), "sys", msgs, nil), (exact*3+1)/2; got != want {
		t.Errorf("scaled CountAnthropic = %d, want ceil(%d × 1.5) = %d (scaled once)", got, exact, want)
	}
	if got := AnthropicToolTokens(c, nil); got != 0 {
		t.Errorf("AnthropicToolTokens(nil) = %d, want 0", got)
	}
}
