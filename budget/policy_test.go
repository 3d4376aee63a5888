package budget

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPolicyLimits(t *testing.T) {
	gpt4o, _ := Lookup("gpt-4o")
	gpt4, _ := Lookup("gpt-4")
	gemini, _ := Lookup("gemini-2.5-pro")
	tests := []struct {
		name string
		p    Policy
		m    Model
		ov   Overflow
		want Limits
		err  error
	}{
		{"defaults: the model's max output", Policy{}, gpt4o, Overflow{}, Limits{Window: 128000, Reserve: 16384}, nil},
		{"max output of half the window: a quarter", Policy{}, gpt4, Overflow{}, Limits{Window: 8192, Reserve: 8192 / 4}, nil},
		{"separate output: no reserve", Policy{}, gemini, Overflow{}, Limits{Window: gemini.Window}, nil},
		{"window and output from the error", Policy{}, gpt4o, Overflow{Window: 24000, Output: 4000}, Limits{Window: 24000, Reserve: 4000}, nil},
		{"a learned window reserves an eighth of itself", Policy{}, gpt4o, Overflow{Window: 16000}, Limits{Window: 16000, Reserve: 16000 / LearnedReserveDivisor}, nil},
		{"a large learned window keeps a smaller max output", Policy{}, gpt4o, Overflow{Window: 200000}, Limits{Window: 200000, Reserve: 16384}, nil},
		{"a smaller stated window beats the policy's; its reserve and margin stay", Policy{Window: 50000, Reserve: 1000, Margin: NoMargin}, gpt4o, Overflow{Window: 24000, Output: 4000}, Limits{Window: 24000, Reserve: 1000, Margin: NoMargin}, nil},
		{"a larger stated window does not lift the policy's", Policy{Window: 20000, Reserve: 1000}, gpt4o, Overflow{Window: 24000}, Limits{Window: 20000, Reserve: 1000}, nil},
		{"no reserve", Policy{Reserve: NoReserve}, gpt4o, Overflow{}, Limits{Window: 128000}, nil},
		{"unknown model, no window", Policy{}, Model{Name: "x"}, Overflow{}, Limits{}, ErrNoWindow},
		{"unknown model, window given: its max output unknown, a quarter", Policy{Window: 8000}, Model{Name: "x"}, Overflow{}, Limits{Window: 8000, Reserve: 2000}, nil},
		{"no room", Policy{Reserve: 128000}, gpt4o, Overflow{}, Limits{}, ErrNoFit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.p.Limits(tc.m, tc.ov)
			if !errors.Is(err, tc.err) || (err != nil) != (tc.err != nil) {
				t.Fatalf("error = %v, want %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlanAfterError: one call gives the counter and limits for a model,
// and one more the plan for the retry after an overflow error.
func TestPlanAfterError(t *testing.T) {
	p, err := PlanFor("claude-sonnet-4-5-20250929", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Model.Name != "claude-sonnet-4-5" || p.Input != 200000-64000-4000 || EncodingOf(p.Counter) != O200kBase {
		t.Errorf("plan = %+v", p)
	}
	if got, want := p.Counter.Count("abcdefgh ijklmnop"), int(float64(encodingCount(t, "abcdefgh ijklmnop"))*p.Model.Factor+0.999999); got != want {
		t.Errorf("estimate counter: %d, want the encoding's count × %.2f = %d", got, p.Model.Factor, want)
	}
	retry, err := p.AfterError("prompt is too long: 210000 tokens > 100000 maximum")
	if err != nil {
		t.Fatal(err)
	}
	if retry.Limits.Window != 100000 || retry.Input != 100000-100000/LearnedReserveDivisor-2000 {
		t.Errorf("retry limits %+v, input %d", retry.Limits, retry.Input)
	}
	if _, err := p.AfterError("rate limit exceeded"); !errors.Is(err, ErrNotOverflow) {
		t.Errorf("AfterError(not an overflow) = %v, want ErrNotOverflow", err)
	}
	if _, err := PlanFor("gpt-9", nil); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("PlanFor(gpt-9) = %v, want ErrUnknownModel", err)
	}
}

func encodingCount(t *testing.T, s string) int {
	c, err := NewEncodingCounter(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c.Count(s)
}

// TestNoFitErrors: the structured errors carry their numbers, read as
// before, and are ErrNoFit, through a package's own sentinel too.
func TestNoFitErrors(t *testing.T) {
	own := NoFitSentinel("pinned minimum does not fit the budget")
	var err error = &NoFitError{Pinned: 120, Budget: 100, Breakdown: []Share{{"system", 20}, {"latest user turn", 100}}, Err: own}
	if want := "pinned minimum does not fit the budget: pinned minimum is 120 tokens (system 20, latest user turn 100) and the budget is 100; raise the budget"; err.Error() != want {
		t.Errorf("NoFitError = %q, want %q", err, want)
	}
	var nf *NoFitError
	if !errors.Is(err, ErrNoFit) || !errors.Is(err, own) || !errors.As(err, &nf) || nf.Pinned != 120 {
		t.Errorf("NoFitError: Is ErrNoFit %v, Is own %v, As %v", errors.Is(err, ErrNoFit), errors.Is(err, own), errors.As(err, &nf))
	}
	err = &TaskTooLargeError{What: "the instructions and part header", Need: 69, Budget: 50}
	if want := "does not fit: the instructions and part header take 69 of the 50-token budget, leaving no room for input (20 tokens short)"; err.Error() != want {
		t.Errorf("TaskTooLargeError = %q, want %q", err, want)
	}
	if !errors.Is(err, ErrNoFit) {
		t.Error("TaskTooLargeError is not ErrNoFit")
	}
}

// TestContentBudget: content of exactly ContentBudget tokens makes a
// request of at most the limit, and one more token goes over.
func TestContentBudget(t *testing.T) {
	exact, err := NewEncodingCounter(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	system := Message{Role: "system", Content: "You are a careful Go reviewer."}
	for _, c := range []Counter{exact, Scaled(exact, 1.35)} {
		room := ContentBudget(c, 500, "user", system)
		want := 500 - CountChat(c, []Message{system, {Role: "user"}}, nil)
		if room != want || room <= 0 {
			t.Fatalf("ContentBudget = %d, want %d", room, want)
		}
		// Grow a content word by word to the largest that fits the room.
		content := ""
		for c.Count(content+" word") <= room {
			content += " word"
		}
		if n := CountChat(c, []Message{system, {Role: "user", Content: content}}, nil); n > 500 {
			t.Errorf("a content of %d ≤ %d tokens makes a request of %d > 500", c.Count(content), room, n)
		}
	}
	if s := (Sections{Task: 30, Context: 400}); s.Prompt() != 430 {
		t.Errorf("Prompt = %d", s.Prompt())
	}
}

// TestLearnedCeiling: the ceiling is the largest accepted size below the
// smallest refused one, or a geometric step below it, never above it.
// TestLearnedCap: a limit is lowered to the ceiling, never raised; no
// limit becomes the ceiling; no room stays no room.
func TestLearnedCap(t *testing.T) {
	l := Learned{Refused: 40000, Accepted: 30000}
	for _, tc := range []struct{ limit, want int }{{0, 30000}, {50000, 30000}, {20000, 20000}, {-1, -1}} {
		if got := l.Cap(tc.limit); got != tc.want {
			t.Errorf("Cap(%d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
	if got := (Learned{}).Cap(50000); got != 50000 {
		t.Errorf("nothing learned: Cap(50000) = %d", got)
	}
}

func TestLearnedCeiling(t *testing.T) {
	noNumbers := Overflow{Provider: "openai"}
	for _, tc := range []struct {
		name string
		l    Learned
		want int
	}{
		{"nothing learned", Learned{}, 0},
		{"accepted only", Learned{Accepted: 20000}, 0},
		{"refused, nothing accepted", Learned{Refused: 40000}, 40000 * RefitPercent / 100},
		{"accepted close below refused", Learned{Refused: 26000, Accepted: 23000}, 23000},
		{"accepted far below refused: the geometric step", Learned{Refused: 40000, Accepted: 8000}, 40000 * RefitPercent / 100},
		{"accepted above refused (counts differ): the step", Learned{Refused: 20000, Accepted: 25000}, 20000 * RefitPercent / 100},
		{"a stated window alone sets no ceiling", Learned{Window: 16384}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.l.Ceiling(); got != tc.want {
				t.Errorf("Ceiling() = %d, want %d", got, tc.want)
			}
			if tc.l.Refused > 0 && tc.l.Ceiling() >= tc.l.Refused {
				t.Errorf("ceiling %d is not below the refused %d", tc.l.Ceiling(), tc.l.Refused)
			}
		})
	}
	var l Learned
	l.Refuse(30000, noNumbers)
	l.Refuse(36000, noNumbers) // a larger refusal teaches nothing new
	l.Refuse(0, Overflow{Window: 32768, Output: 4096})
	l.Refuse(0, Overflow{Window: 65536}) // a larger stated window does not replace a smaller
	if want := (Learned{Window: 32768, Output: 4096, Refused: 30000}); l != want {
		t.Errorf("learned %+v, want %+v", l, want)
	}
}

// TestPlanAfterErrorWithoutNumbers: an overflow error that states no
// window never gives back the same plan: the input limit shrinks, a
// stated window learned before is kept, and past MaxRefits retries the
// caller is told to stop.
func TestPlanAfterErrorWithoutNumbers(t *testing.T) {
	const responses = `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`
	p, err := PlanFor("gpt-4o", nil)
	if err != nil {
		t.Fatal(err)
	}
	inputs := []int{p.Input}
	for i := 0; i < MaxRefits; i++ {
		next, err := p.AfterError(responses)
		if err != nil {
			t.Fatalf("retry %d: %v", i+1, err)
		}
		if want := p.Input * RefitPercent / 100; next.Input != want {
			t.Errorf("retry %d: input %d, want %d (%d%% of %d)", i+1, next.Input, want, RefitPercent, p.Input)
		}
		p = next
		inputs = append(inputs, p.Input)
	}
	if _, err := p.AfterError(responses); !errors.Is(err, ErrGiveUp) {
		t.Errorf("after %d retries (inputs %v): err %v, want ErrGiveUp", MaxRefits, inputs, err)
	}
	// An accepted request starts the count again, and its size is kept:
	// the next numberless error retries at it, not lower.
	ok := p.Accepted(p.Input - 100)
	next, err := ok.AfterError(responses)
	if err != nil {
		t.Fatal(err)
	}
	if next.Input != p.Input-100 {
		t.Errorf("after an accepted %d: retry input %d, want %d", p.Input-100, next.Input, p.Input-100)
	}

	// A stated window, then an error without numbers (Bedrock): the
	// stated window is not forgotten.
	p, _ = PlanFor("gpt-4o", nil)
	small, err := p.AfterError("This model's maximum context length is 16384 tokens. However, your messages resulted in 20000 tokens.")
	if err != nil {
		t.Fatal(err)
	}
	after, err := small.AfterError("Input is too long for requested model.")
	if err != nil {
		t.Fatal(err)
	}
	if after.Limits.Window != 16384 || after.Input >= small.Input {
		t.Errorf("after a stated 16384 and a numberless error: window %d, input %d (was %d)", after.Limits.Window, after.Input, small.Input)
	}
}
