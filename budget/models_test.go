package budget

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultTable(t *testing.T) {
	tab, err := defaultTable()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Models()) < 30 {
		t.Errorf("only %d models", len(tab.Models()))
	}
	for _, f := range tab.Families() {
		if f.Estimate == (f.Factor == 1) && f.Estimate {
			t.Errorf("family %s: estimate with factor 1", f.Name)
		}
		if f.Estimate && f.Why == "" {
			t.Errorf("family %s: factor %v has no justification", f.Name, f.Factor)
		}
	}
}

func TestLookup(t *testing.T) {
	type row struct {
		Name      string
		Window    int
		MaxOutput int
		Encoding  string
		Factor    float64
		Estimate  bool
	}
	tests := []struct {
		query string
		want  row
	}{
		{"gpt-4.1", row{"gpt-4.1", 1047576, 32768, O200kBase, 1, false}},
		{"gpt-4.1-mini-2025-04-14", row{"gpt-4.1", 1047576, 32768, O200kBase, 1, false}},
		{"gpt-4o", row{"gpt-4o", 128000, 16384, O200kBase, 1, false}},
		{"gpt-4o-2024-08-06", row{"gpt-4o", 128000, 16384, O200kBase, 1, false}},
		{"GPT-4o-mini-2024-07-18", row{"gpt-4o-mini", 128000, 16384, O200kBase, 1, false}},
		{"openai/gpt-4o-audio-preview", row{"gpt-4o", 128000, 16384, O200kBase, 1, false}},
		{"gpt-4-0613", row{"gpt-4", 8192, 8192, Cl100kBase, 1, false}},
		{"gpt-4-turbo-2024-04-09", row{"gpt-4-turbo", 128000, 4096, Cl100kBase, 1, false}},
		{"gpt-5", row{"gpt-5", 400000, 128000, O200kBase, 1, false}},
		{"gpt-5-codex", row{"gpt-5-codex", 400000, 128000, O200kBase, 1, false}},
		{"gpt-6.2-sol", row{"gpt-6.2-sol", 500000, 25000, O200kBase, 1, false}}, // Codex 0.171.0's default
		{"gpt-6-sol", row{"gpt-6-sol", 272000, 13600, O200kBase, 1, false}},
		{"gpt-5.6-luna", row{"gpt-5.6-luna", 272000, 13600, O200kBase, 1, false}},
		{"o3-mini-2025-01-31", row{"o3", 200000, 100000, O200kBase, 1, false}},
		{"o4-mini", row{"o4-mini", 200000, 100000, O200kBase, 1, false}},
		{"claude-sonnet-4-5-20250929", row{"claude-sonnet-4-5", 200000, 64000, O200kBase, 1.35, true}},
		{"claude-sonnet-4-5@20250929", row{"claude-sonnet-4-5", 200000, 64000, O200kBase, 1.35, true}},
		{"anthropic.claude-sonnet-4-5-20250929-v1:0", row{"claude-sonnet-4-5", 200000, 64000, O200kBase, 1.35, true}},
		{"claude-sonnet-4-5[1m]", row{"claude-sonnet-4-5[1m]", 1000000, 64000, O200kBase, 1.35, true}},
		{"models/gemini-2.5-pro", row{"gemini-2.5-pro", 1048576, 65536, O200kBase, 1.2, true}},
		{"gemini-2.0-flash-001", row{"gemini-2.0-flash", 1048576, 8192, O200kBase, 1.2, true}},
		{"deepseek-chat", row{"deepseek-chat", 131072, 8192, O200kBase, 1.15, true}},
		{"meta-llama/Llama-3.3-70B-Instruct", row{"llama-3.3", 131072, 8192, O200kBase, 1.1, true}},
		{"llama3.1:8b", row{"llama-3.1", 131072, 8192, O200kBase, 1.1, true}},
		{"mistral-large-2411", row{"mistral-large", 131072, 8192, O200kBase, 1.4, true}},
		{"gpt-5.4", row{"gpt-5.4", 1050000, 128000, O200kBase, 1, false}},
		{"gpt-5.3-codex", row{"gpt-5.2-codex", 400000, 128000, O200kBase, 1, false}},
		{"gpt-5.1-codex-max", row{"gpt-5.1-codex", 400000, 128000, O200kBase, 1, false}},
		{"claude-opus-4-6", row{"claude-opus-4-6", 1000000, 128000, O200kBase, 1.35, true}},
		{"claude-opus-4-1-20250805", row{"claude-opus-4-1", 200000, 32000, O200kBase, 1.35, true}},
		{"claude-opus-5-5", row{"claude-opus-5-5", 1000000, 128000, O200kBase, 1.75, true}},
		{"global.anthropic.claude-opus-4-5-20251101-v1:0", row{"claude-opus-4-5", 200000, 64000, O200kBase, 1.35, true}},
		{"gemini-3-pro-preview", row{"gemini-3-pro", 1048576, 65536, O200kBase, 1.2, true}},
		{"gemini-2.5-pro-preview-05-06", row{"gemini-2.5-pro", 1048576, 65536, O200kBase, 1.2, true}},
		{"deepseek-reasoner", row{"deepseek-reasoner", 131072, 65536, O200kBase, 1.15, true}},
		{"qwen2.5-coder:32b", row{"qwen2.5-coder", 32768, 8192, O200kBase, 1.1, true}},
		{"codestral-2501", row{"codestral", 262144, 8192, O200kBase, 1.4, true}},
		{"o3-pro", row{"o3", 200000, 100000, O200kBase, 1, false}},
		{"gpt-3.5-turbo-0125", row{"gpt-3.5-turbo", 16385, 4096, Cl100kBase, 1, false}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			m, err := Lookup(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			got := row{m.Name, m.Window, m.MaxOutput, m.Encoding, m.Factor, m.Estimate}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Lookup(%q) (-want +got):\n%s", tc.query, diff)
			}
		})
	}
}

func TestLookupUnknown(t *testing.T) {
	tests := []struct {
		query, want string // want: the error's text after the name
	}{
		{"gpt-9", `; did you mean "gpt-4", "gpt-5", "gpt-4o"?`},
		{"gpt-4o-mni", ``}, // found by prefix: gpt-4o
		{"claud-sonnet-4-5", `; did you mean "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-sonnet-5-5"?`},
		{"claude", `; did you mean "claude-haiku-4-5", "claude-haiku-5-5", "claude-opus-4-1"?`},
		{"", `: none of the 58 known models is close`},
		{"zzzzzzzzzzzz", `: none of the 58 known models is close`},
	}
	for _, tc := range tests {
		_, err := Lookup(tc.query)
		if tc.want == "" {
			if err != nil {
				t.Errorf("Lookup(%q): %v", tc.query, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnknownModel) {
			t.Errorf("Lookup(%q) error = %v, want ErrUnknownModel", tc.query, err)
			continue
		}
		if want := fmt.Sprintf("unknown model %q", tc.query) + tc.want; err.Error() != want {
			t.Errorf("Lookup(%q) error\n %q, want\n %q", tc.query, err, want)
		}
		if strings.Contains(err.Error(), " -") || strings.Contains(err.Error(), ".ctxtrim.toml") {
			t.Errorf("Lookup(%q) error %q names a CLI flag or file", tc.query, err)
		}
	}
	// A fine-tune is its base model.
	for q, want := range map[string]string{"ft:gpt-4o-2024-08-06:acme::abc123": "gpt-4o", "ft:gpt-4o-mini-2024-07-18:org:custom:id": "gpt-4o-mini", "FT:gpt-4.1:x::y": "gpt-4.1"} {
		if m, err := Lookup(q); err != nil || m.Name != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", q, m.Name, err, want)
		}
	}
	if w, ok := ContextWindow("gpt-9"); ok || w != 0 {
		t.Errorf("ContextWindow(gpt-9) = %d, %v", w, ok)
	}
	if w, ok := ContextWindow("gpt-4.1"); !ok || w != 1047576 {
		t.Errorf("ContextWindow(gpt-4.1) = %d, %v", w, ok)
	}
}

func TestTableWith(t *testing.T) {
	base := DefaultTable()
	tab, err := base.With(TableSpec{
		Families: map[string]FamilySpec{"claude": {Factor: ptr(1.5)}},
		Models: map[string]ModelSpec{
			"my-llm":          {Family: ptr("llama"), Window: ptr(32768), MaxOutput: ptr(4096), Aliases: []string{"mine"}},
			"gpt-4o-mini":     {Window: ptr(64000)},
			"claude-sonnet-4": {Factor: ptr(2.0)}, // a row's own field beats its family's
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Window, MaxOutput int
		Factor            float64
		Estimate          bool
	}
	tests := []struct {
		query string
		want  row
	}{
		{"claude-sonnet-4-5", row{200000, 64000, 1.5, true}},
		{"claude-sonnet-4", row{200000, 64000, 2.0, true}},
		{"claude-opus-5-5", row{1000000, 128000, 1.75, true}}, // other family untouched
		{"mine", row{32768, 4096, 1.1, true}},
		{"gpt-4o-mini-2024-07-18", row{64000, 16384, 1, false}},
		{"gpt-4o", row{128000, 16384, 1, false}},
	}
	for _, tc := range tests {
		m, err := tab.Lookup(tc.query)
		if err != nil {
			t.Errorf("Lookup(%q): %v", tc.query, err)
			continue
		}
		if diff := cmp.Diff(tc.want, row{m.Window, m.MaxOutput, m.Factor, m.Estimate}); diff != "" {
			t.Errorf("Lookup(%q) (-want +got):\n%s", tc.query, diff)
		}
	}
	// The base table is not modified.
	if m, _ := base.Lookup("claude-sonnet-4-5"); m.Factor != 1.35 {
		t.Errorf("base table changed: factor %v", m.Factor)
	}
	if _, err := base.Lookup("my-llm"); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("base table gained my-llm")
	}
}

func TestTableWithErrors(t *testing.T) {
	tests := []struct {
		name string
		spec TableSpec
		want string
	}{
		{"unknown family", TableSpec{Models: map[string]ModelSpec{"x": {Family: ptr("nope"), Window: ptr(10)}}}, `unknown family "nope"`},
		{"no window", TableSpec{Models: map[string]ModelSpec{"x": {}}}, "window 0 out of range"},
		{"absurd window", TableSpec{Models: map[string]ModelSpec{"x": {Window: ptr(maxWindow + 1)}}}, "out of range"},
		{"output over window", TableSpec{Models: map[string]ModelSpec{"x": {Window: ptr(10), MaxOutput: ptr(11)}}}, "max_output 11"},
		{"factor below 1", TableSpec{Families: map[string]FamilySpec{"claude": {Factor: ptr(0.5)}}}, "factor 0.5 out of range"},
		{"bad encoding", TableSpec{Models: map[string]ModelSpec{"x": {Window: ptr(10), Encoding: ptr("gpt2")}}}, `unknown encoding "gpt2"`},
		{"alias clash", TableSpec{Models: map[string]ModelSpec{"x": {Window: ptr(10), Aliases: []string{"gpt-4o"}}}}, `"gpt-4o" is used by both`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DefaultTable().With(tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("With: error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseTable(t *testing.T) {
	tab, err := ParseTable(nil, "x.toml", []byte("[families.f]\nencoding = \"cl100k_base\"\nfactor = 1.1\nestimate = true\n[models.m]\nfamily = \"f\"\nwindow = 100\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := tab.Lookup("m"); err != nil || m.Encoding != Cl100kBase || m.Factor != 1.1 {
		t.Errorf("Lookup(m) = %+v, %v", m, err)
	}
	if _, err := ParseTable(nil, "x.toml", []byte("[models\n")); err == nil || !strings.Contains(err.Error(), "x.toml") {
		t.Errorf("ParseTable(bad) error = %v", err)
	}
}

func TestNewCounterEstimate(t *testing.T) {
	exact, err := NewCounter("gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	est, err := NewCounter("claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	text := "func main() { fmt.Println(\"hello, world\") }\n"
	n := exact.Count(text)
	if got, want := est.Count(text), int(math.Ceil(float64(n)*1.35-1e-9)); got != want {
		t.Errorf("claude count = %d, want ceil(%d × 1.35) = %d", got, n, want)
	}
	if _, err := NewCounter("gpt-9"); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("NewCounter(gpt-9) error = %v", err)
	}
}
