package budget

import (
	"errors"
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
		{"o3-mini-2025-01-31", row{"o3", 200000, 100000, O200kBase, 1, false}},
		{"o4-mini", row{"o4-mini", 200000, 100000, O200kBase, 1, false}},
		{"claude-sonnet-4-5-20250929", row{"claude-sonnet-4-5", 200000, 64000, O200kBase, 1.35, true}},
		{"claude-sonnet-4-5@20250929", row{"claude-sonnet-4-5", 200000, 64000, O200kBase, 1.35, true}},
		{"anthropic.claude-sonnet-4-5-20250929-v1:0", row{"claude-sonnet-4-5", 200000, 64000, O200kBase, 1.35, true}},
		{"claude-sonnet-4-5[1m]", row{"claude-sonnet-4-5[1m]", 1000000, 64000, O200kBase, 1.35, true}},
		{"models/gemini-2.5-pro", row{"gemini-2.5-pro", 1048576, 65536, O200kBase, 1.2, true}},
		{"gemini-2.0-flash-001", row{"gemini-2.0-flash", 1048576, 8192, O200kBase, 1.2, true}},
		{"deepseek-chat", row{"deepseek-chat", 131072, 8192, O200kBase, 1.15, true}},
		{"meta-llama/Llama-3.3-70B-Instruct", row{"llama-3.3", 131072, 8192, O200kBase, 1.15, true}},
		{"llama3.1:8b", row{"llama-3.1", 131072, 8192, O200kBase, 1.15, true}},
		{"mistral-large-2411", row{"mistral-large", 131072, 8192, O200kBase, 1.25, true}},
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
	for _, q := range []string{"gpt-9", "gpt-4.5-preview", "", "o", "claude"} {
		_, err := Lookup(q)
		if !errors.Is(err, ErrUnknownModel) {
			t.Errorf("Lookup(%q) error = %v, want ErrUnknownModel", q, err)
			continue
		}
		for _, want := range []string{"gpt-4o", "--window", "--encoding"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Lookup(%q) error %q lacks %q", q, err, want)
			}
		}
	}
	if w, ok := ContextWindow("gpt-9"); ok || w != 0 {
		t.Errorf("ContextWindow(gpt-9) = %d, %v", w, ok)
	}
	if w, ok := ContextWindow("gpt-4.1"); !ok || w != 1047576 {
		t.Errorf("ContextWindow(gpt-4.1) = %d, %v", w, ok)
	}
}
