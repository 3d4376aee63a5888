package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

var (
	counterOnce sync.Once
	counterVal  budget.Counter
)

func counter(tb testing.TB) budget.Counter {
	counterOnce.Do(func() {
		c, err := budget.NewEncodingCounter(budget.O200kBase)
		if err != nil {
			tb.Fatal(err)
		}
		counterVal = c
	})
	return counterVal
}

// fixtures lists the real transcripts, the real request bodies and the
// hand-written fixtures.
func fixtures(tb testing.TB) []string {
	var out []string
	for _, pat := range []string{"testdata/transcripts/*.json", "testdata/transcripts/*.traj", "testdata/transcripts/*.jsonl", "testdata/requests/*.json", "testdata/*.json"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 11 {
		tb.Fatalf("found %d fixtures, want the 7 transcripts, 2 request bodies and 2 hand-written fixtures", len(out))
	}
	return out
}

func parseFile(tb testing.TB, path string) (*Conversation, []byte) {
	tb.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := Parse(bytes.NewReader(src))
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return c, src
}

func encode(tb testing.TB, c *Conversation) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := c.Encode(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func TestDetect(t *testing.T) {
	want := map[string]Format{
		"codex-0.135-redacted.jsonl":                FormatCodex,
		"codex-0.169-compaction.jsonl":              FormatCodex,
		"marshmallow-1867.function_calling.traj":    FormatChat,
		"pydicom-1458.no_function_calling.traj":     FormatChat,
		"anthropic-tools.json":                      FormatAnthropic,
		"responses-tools.json":                      FormatResponses,
		"tau-bench-airline-gpt4o-idx102-task2.json": FormatChat,
		"codex-0.169-multiturn.jsonl":               FormatCodex,
		"tau-bench-airline-gpt4o-idx052-task2.json": FormatChat,
		"codex-0.171.0-responses.json":              FormatResponses,
		"claude-code-2.1.332-messages.json":         FormatAnthropic,
	}
	got := map[string]Format{}
	for _, p := range fixtures(t) {
		c, _ := parseFile(t, p)
		got[filepath.Base(p)] = c.Format()
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("formats (-want +got):\n%s", d)
	}
}

func TestDetectSnippets(t *testing.T) {
	tests := []struct {
		name, in string
		want     Format
		wantLen  int
	}{
		{"bare chat", `[{"role":"user","content":"hi"}]`, FormatChat, 1},
		{"bare responses", `[{"type":"message","role":"user","content":"hi"}]`, FormatResponses, 1},
		{"bare anthropic", `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}]`, FormatAnthropic, 1},
		{"anthropic by system", `{"system":"s","messages":[{"role":"user","content":"hi"}]}`, FormatAnthropic, 1},
		{"responses string input", `{"model":"m","input":"hello"}`, FormatResponses, 0},
		{"chat body", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}`, FormatChat, 2},
		{"legacy function call", `[{"role":"user","content":"u"},{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}},{"role":"function","name":"f","content":"r"}]`, FormatChat, 3},
		{"rollout", `{"type":"session_meta","payload":{}}` + "\n" + `{"type":"response_item","payload":{"type":"message","role":"user","content":[]}}`, FormatCodex, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]any{tc.want, tc.wantLen}, []any{c.Format(), c.Len()}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, format, want string }{
		{"empty", "", "", "empty input"},
		{"scalar", "42", "", "want a JSON object"},
		{"no items", `{"model":"m"}`, "", `no "messages"`},
		{"message without role", `{"messages":[{"content":"x"}]}`, "", `no "role"`},
		{"wrong forced format", `{"messages":[{"role":"user","content":"x"}]}`, "responses", `input is an OpenAI Chat Completions conversation, not an OpenAI Responses conversation: the request body holds its items in "messages"`},
		{"bad rollout line", "{\"type\":\"x\",\"payload\":{}}\nnot json", "", "rollout line 2"},
		{"JSONL that is no rollout, as codex", "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"user\",\"content\":\"hi\"}\n", "codex", "rollout line 1 is not a Codex rollout record"},
		// A body of two formats' signs (Anthropic's system, a role neither
		// has) named as codex: the error is about codex, not a FormatError
		// between the other two (found by FuzzParseFormat).
		{"mixed body, as codex", `{"messages":[{"role":"0"}],"system":""}`, "codex", `line 1 is not a rollout record (a JSON object with "type" and "payload"), nor a valid conversation: input mixes formats`},
		// Nothing named: no FormatError, which would say that the
		// user named the format the body first reads as.
		{"mixed body, detected", `{"messages":[{"role":"tool","content":"x"}],"system":"s"}`, "", `input mixes formats: it reads as an Anthropic Messages conversation, but messages[0] has role "tool"`},
		{"truncated array", "[1,2", "", "line 1, column 5: unexpected end of JSON input"},
		{"trailing comma", "{\"messages\":[\n  {\"role\":\"user\",\"content\":\"hi\"},\n]}", "", "line 3, column 1: invalid character ']'"},
		{"trailing garbage after a BOM and spaces", "\xef\xbb\xbf \n{\"messages\":[]} x", "", "line 2, column 17: invalid character 'x' after top-level value"},
		{"column counts runes", "{\"messages\":[{\"content\":\"é\" x}]}", "", "line 1, column 29: invalid character 'x'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFormat(strings.NewReader(tc.in), Format(tc.format))
			if err == nil || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want ErrBadInput containing %q", err, tc.want)
			}
			var fe *FormatError
			if errors.As(err, &fe) && fe.Named != Format(tc.format) {
				t.Errorf("FormatError names %s, asked for %q", fe.Named, tc.format)
			}
		})
	}
}

// TestParseNamedFormat: an input that is not of the format named is an
// error that says what it is and what shows it, never read as the named
// format. Before, -format anthropic on tau-bench's Chat request dropped
// its system prompt (Anthropic classification took role "system" for
// neither instructions nor a turn) and pruned the first task away.
func TestParseNamedFormat(t *testing.T) {
	tau, err := os.ReadFile("testdata/transcripts/tau-bench-airline-gpt4o-idx052-task2.json")
	if err != nil {
		t.Fatal(err)
	}
	codex, err := os.ReadFile("testdata/transcripts/codex-0.169-multiturn.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	anthropic, err := os.ReadFile("testdata/anthropic-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	responses, err := os.ReadFile("testdata/responses-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	plain := `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`
	tests := []struct {
		name      string
		in        string
		named     Format
		wantFound Format // "" for no error
		evidence  string
	}{
		{"tau-bench Chat as anthropic", string(tau), FormatAnthropic, FormatChat, `messages[0] has role "system"`},
		{"tau-bench Chat as chat", string(tau), FormatChat, "", ""},
		{"tau-bench Chat as codex", string(tau), FormatCodex, FormatChat, "line 1 is not a rollout record"},
		{"Anthropic as chat", string(anthropic), FormatChat, FormatAnthropic, ""},
		{"Anthropic as anthropic", string(anthropic), FormatAnthropic, "", ""},
		{"Responses as chat", string(responses), FormatChat, FormatResponses, ""},
		{"rollout as responses", string(codex), FormatResponses, FormatCodex, "line 1 is a rollout record"},
		{"rollout as codex", string(codex), FormatCodex, "", ""},
		{"plain text turns as chat", plain, FormatChat, "", ""},
		{"plain text turns as anthropic", plain, FormatAnthropic, "", ""},
		{"tool calls as anthropic", `[{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}]`, FormatAnthropic, FormatChat, "item 0 has Chat tool calls"},
		{"tool_use block as chat", `[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}]`, FormatChat, FormatAnthropic, `item 0 content part 0 is of type "tool_use"`},
		{"image_url part as anthropic", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, FormatAnthropic, FormatChat, `messages[0] content part 0 is of type "image_url"`},
		{"top-level system as chat", `{"system":"be terse","messages":[{"role":"user","content":"hi"}]}`, FormatChat, FormatAnthropic, `top-level "system"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFormat(strings.NewReader(tc.in), tc.named)
			var fe *FormatError
			switch {
			case tc.wantFound == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.wantFound == "":
				return
			case !errors.As(err, &fe) || !errors.Is(err, ErrBadInput):
				t.Fatalf("error %v, want a *FormatError wrapped with ErrBadInput", err)
			}
			if fe.Named != tc.named || fe.Found != tc.wantFound || !strings.Contains(fe.Evidence, tc.evidence) {
				t.Errorf("FormatError{%s, %s, %q}, want {%s, %s, …%q…}", fe.Named, fe.Found, fe.Evidence, tc.named, tc.wantFound, tc.evidence)
			}
		})
	}
}

// An unpruned conversation is written back byte for byte.
func TestRoundTripUnchanged(t *testing.T) {
	for _, p := range fixtures(t) {
		c, src := parseFile(t, p)
		if got := encode(t, c); !bytes.Equal(got, src) {
			t.Errorf("%s: Encode changed an unpruned conversation", p)
		}
		res, err := Prune(c, counter(t), &Options{Budget: 10_000_000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Changed() || !bytes.Equal(encode(t, res.Conversation), src) {
			t.Errorf("%s: Prune under a huge budget changed the conversation", p)
		}
	}
}

// TestPruneBudgetRequired: the budget comes in Options.Budget, as in
// slicer.SelectOptions and split.Options; nil options or a budget that is
// not positive is an error, whatever the conversation's size, and the
// options are not modified.
func TestPruneBudgetRequired(t *testing.T) {
	c, _ := parseFile(t, fixtures(t)[0])
	for _, opts := range []*Options{nil, {}, {Budget: -1, KeepLast: 1}} {
		var before Options
		if opts != nil {
			before = *opts
		}
		if _, err := Prune(c, counter(t), opts); err == nil || !strings.Contains(err.Error(), "budget must be positive") {
			t.Errorf("Prune(%+v) error = %v, want budget must be positive", opts, err)
		}
		if opts != nil && (opts.Budget != before.Budget || opts.KeepLast != before.KeepLast) {
			t.Errorf("Prune modified its options: %+v, was %+v", *opts, before)
		}
	}
}

// budgets returns budgets between the pinned minimum and the full size.
func budgets(tb testing.TB, c *Conversation) (full, pinned int, bs []int) {
	s := newState(c, 1, counter(tb), Options{})
	full, pinned = s.total(), s.pinnedTokens()
	for _, f := range []float64{0.9, 0.6, 0.3, 0} {
		bs = append(bs, pinned+int(f*float64(full-pinned))+1)
	}
	return full, pinned, append(bs, pinned-1)
}

func TestPruneTranscripts(t *testing.T) {
	for _, p := range fixtures(t) {
		c, src := parseFile(t, p)
		full, pinned, bs := budgets(t, c)
		for _, b := range bs {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(p), b), func(t *testing.T) {
				res, err := Prune(c, counter(t), &Options{Budget: b})
				if b < pinned {
					if !errors.Is(err, ErrNoFit) || !strings.Contains(err.Error(), fmt.Sprint(pinned)) {
						t.Fatalf("budget %d < pinned %d: error = %v, want ErrNoFit naming the pinned size", b, pinned, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("full %d pinned %d budget %d: %v", full, pinned, b, err)
				}
				checkPruned(t, c, src, res, b)
			})
		}
	}
}

// checkPruned asserts every invariant of a pruned conversation.
func checkPruned(t *testing.T, in *Conversation, src []byte, res *Result, limit int) {
	t.Helper()
	out := encode(t, res.Conversation)
	if !res.Changed() {
		if !bytes.Equal(out, src) {
			t.Fatal("unchanged result is not the input")
		}
		return
	}
	re, err := ParseFormat(bytes.NewReader(out), in.format)
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, clip(out))
	}
	if re.indent != in.indent {
		t.Fatalf("output indentation %q, input %q", re.indent, in.indent)
	}
	if got := Tokens(re, counter(t)); got > limit || got != res.After {
		t.Fatalf("output has %d tokens (Result.After %d), budget %d", got, res.After, limit)
	}
	if in.Validate() == nil {
		if err := re.Validate(); err != nil {
			t.Fatalf("output is not valid: %v", err)
		}
	}
	// Instructions are kept, once each, byte for byte.
	if d := cmp.Diff(sysRaws(in), sysRaws(re)); d != "" {
		t.Fatalf("system/developer items changed (-in +out):\n%s", d)
	}
	// So are the blocks the client injected into the first message, in
	// the first message.
	for _, b := range (&state{items: in.items}).injectedBlocks() {
		if !bytes.Contains(re.items[0].raw, b) {
			t.Fatalf("injected block not in the first message: %s", clip(b))
		}
	}
	// The output is an ordered subset of the input, plus at most one notice;
	// items Prune did not edit keep their bytes.
	edited := map[int]bool{}
	for _, r := range res.Removed {
		if r.Step != StepDrop {
			edited[r.Item] = true
		}
	}
	notices, j := 0, 0
	for _, it := range re.items {
		if isNotice(it) {
			notices++
			if len(re.items) > 0 && in.format == FormatAnthropic && !it.user {
				t.Fatal("anthropic notice is not a user message")
			}
			if strings.HasPrefix(firstText(it.raw), placeholderTag) {
				continue // a separate notice; a merged one matches its message
			}
		}
		// Match the same item byte for byte if it is there, else the first
		// edited item of the same shape (a merged notice edits one too).
		first := -1
		for k := j; k < len(in.items) && first < 0; k++ {
			if sig(in.items[k]) == sig(it) && bytes.Equal(in.items[k].raw, it.raw) {
				first = k
			}
		}
		for k := j; k < len(in.items) && first < 0; k++ {
			if sig(in.items[k]) == sig(it) && (edited[k] || isNotice(it)) {
				first = k
			}
		}
		if first >= 0 {
			j = first
		} else {
			j = len(in.items)
		}
		if j == len(in.items) {
			t.Fatalf("output item %s is not in the input, in order", clip(it.raw))
		}
		if !edited[j] && !isNotice(it) && !bytes.Equal(it.raw, in.items[j].raw) {
			t.Fatalf("item %d changed although Prune reports no edit of it:\n%s\n%s", j, clip(in.items[j].raw), clip(it.raw))
		}
		// Reasoning and thinking are kept unmodified.
		if it.reas && !bytes.Equal(it.raw, in.items[j].raw) {
			t.Fatalf("reasoning item edited: %s", clip(it.raw))
		}
		for _, th := range thinking(it.raw) {
			if !bytes.Contains(in.items[j].raw, th) {
				t.Fatalf("thinking block edited: %s", th)
			}
		}
		j++
	}
	if notices > 1 {
		t.Fatalf("%d notices, want at most one", notices)
	}
	// The latest user message is kept (Anthropic may have the notice merged in).
	if last := latestUserRaw(in); last != nil && !containsItem(re, last) {
		t.Fatalf("latest user message lost or edited: %s", clip(last))
	}
	if in.format == FormatCodex {
		checkRollout(t, in, re)
	}
	if in.format == FormatAnthropic && alternates(in) && !alternates(re) {
		t.Fatal("roles alternated in the input but not in the output")
	}
}

func alternates(c *Conversation) bool {
	for i := 1; i < len(c.items); i++ {
		if c.items[i].role == c.items[i-1].role {
			return false
		}
	}
	return true
}

func sysRaws(c *Conversation) []string {
	var out []string
	for _, it := range c.items {
		if it.sys && !isNotice(it) {
			out = append(out, string(it.raw))
		}
	}
	return out
}

func isNotice(it item) bool {
	return strings.Contains(string(it.raw), placeholderTag) && strings.Contains(string(it.raw), "omitted to fit the context budget")
}

func sig(it item) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%v|%v|", it.role, it.typ, it.sys, it.reas)
	for _, c := range it.calls {
		b.WriteString(c.id + ",")
	}
	b.WriteString("|")
	for _, r := range it.res {
		b.WriteString(r.id + ",")
	}
	return b.String()
}

func firstText(raw json.RawMessage) string {
	sl := textSlots(raw)
	if len(sl) == 0 {
		return ""
	}
	return sl[0].text
}

// thinking returns the raw thinking blocks of an Anthropic message.
func thinking(raw json.RawMessage) [][]byte {
	ms, err := parseObject(raw)
	if err != nil || kindOf(get(ms, "content")) != '[' {
		return nil
	}
	elems, _ := parseArray(get(ms, "content"))
	var out [][]byte
	for _, e := range elems {
		if bytes.Contains(e, []byte(`"thinking"`)) || bytes.Contains(e, []byte(`"redacted_thinking"`)) {
			out = append(out, e)
		}
	}
	return out
}

func latestUserRaw(c *Conversation) json.RawMessage {
	for i := len(c.items) - 1; i >= 0; i-- {
		if c.items[i].user {
			return c.items[i].raw
		}
	}
	return nil
}

func containsItem(c *Conversation, raw json.RawMessage) bool {
	for _, it := range c.items {
		if bytes.Equal(it.raw, raw) {
			return true
		}
		if c.format == FormatAnthropic {
			// The notice may be merged in: every original block must remain.
			ms, _ := parseObject(raw)
			orig := get(ms, "content")
			if s, ok := str(orig); ok && strings.Contains(string(it.raw), string(encodeString(s))) {
				return true
			}
			if elems, err := parseArray(orig); err == nil && len(elems) > 0 {
				all := true
				for _, e := range elems {
					all = all && bytes.Contains(it.raw, e)
				}
				if all {
					return true
				}
			}
		}
	}
	return false
}

// checkRollout: every line that is not an item of the rebuilt history is
// passed through unchanged, and replacement_history keeps its metadata.
func checkRollout(t *testing.T, in, out *Conversation) {
	t.Helper()
	keep := map[string]bool{}
	for i, l := range in.lines {
		if i != in.compactLine && i != in.usageLine && !in.isResponseItemLine(i) {
			keep[string(l)] = true
		}
	}
	got := map[string]bool{}
	for i, l := range out.lines {
		if i != out.compactLine && i != out.usageLine && !out.isResponseItemLine(i) {
			got[string(l)] = true
		}
	}
	if d := cmp.Diff(keep, got); d != "" {
		t.Fatalf("non-history rollout lines changed (-in +out):\n%s", d)
	}
	if (in.usageLine < 0) != (out.usageLine < 0) {
		t.Fatalf("last token_count record: line %d in the input, %d in the output", in.usageLine, out.usageLine)
	}
	if in.usageLine >= 0 {
		// Only last_token_usage may change, and only downwards.
		a, b := usageOf(t, in.lines[in.usageLine]), usageOf(t, out.lines[out.usageLine])
		if b.total > a.total || b.input > a.input || a.total-b.total != a.input-b.input {
			t.Fatalf("last token_count: total %d → %d, input %d → %d; want both lowered by the same amount", a.total, b.total, a.input, b.input)
		}
		if d := cmp.Diff(a.rest, b.rest); d != "" {
			t.Fatalf("last token_count: more than last_token_usage changed (-in +out):\n%s", d)
		}
	}
	if in.meta != nil && len(out.meta) != countElems(out) {
		t.Fatalf("replacement_history_metadata has %d entries for %d items", len(out.meta), countElems(out))
	}
}

func countElems(c *Conversation) int {
	n := 0
	for _, it := range c.items {
		if it.elem >= 0 {
			n++
		}
	}
	return n
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// TestGolden records, per transcript and budget, what Prune did: the steps,
// every removal, and a hash of the output. Run with -update to rewrite.
func TestGolden(t *testing.T) {
	for _, p := range fixtures(t) {
		c, _ := parseFile(t, p)
		full, pinned, _ := budgets(t, c)
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s, %d items, %d tokens, pinned %d\n", filepath.Base(p), c.Format(), c.Len(), full, pinned)
		for _, frac := range []int{50, 10} {
			limit := pinned + (full-pinned)*frac/100
			res, err := Prune(c, counter(t), &Options{Budget: limit})
			fmt.Fprintf(&b, "\nbudget %d (pinned + %d%% of the rest):\n", limit, frac)
			if err != nil {
				fmt.Fprintf(&b, "  error: %v\n", err)
				continue
			}
			for _, s := range res.Steps {
				fmt.Fprintf(&b, "  step %-9s %d -> %d (%d edits)\n", s.Name, s.Before, s.After, s.Edits)
			}
			for _, r := range res.Removed {
				fmt.Fprintf(&b, "  %-9s item %3d  -%5d  %s\n", r.Step, r.Item, r.Tokens, r.What)
			}
			fmt.Fprintf(&b, "  after %d tokens, %d turns dropped, output sha256 %x\n", res.After, res.DroppedTurns, sha256.Sum256(encode(t, res.Conversation)))
		}
		golden := filepath.Join("testdata", "golden", filepath.Base(p)+".txt")
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if d := cmp.Diff(string(want), b.String()); d != "" {
			t.Errorf("%s (-want +got):\n%s", golden, d)
		}
	}
}

func TestRolloutShapes(t *testing.T) {
	big := strings.Repeat("output line with some words ", 200)
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	user := func(text string) string {
		return `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}}`
	}
	call := func(id string) string {
		return `{"type":"response_item","payload":{"type":"function_call","call_id":"` + id + `","name":"exec_command","arguments":"{}"}}` + "\n" +
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"` + id + `","output":"` + big + `"}}`
	}
	tests := []struct {
		name       string
		in         string
		wantItems  int
		wantFixed  []string // texts counted as fixed
		keepSubstr []string // must survive pruning to the pinned minimum
	}{{
		name: "legacy compaction without replacement_history",
		in: lines(`{"type":"session_meta","payload":{"base_instructions":{"text":"BASE"}}}`,
			user("old question"), call("c0"),
			`{"type":"compacted","payload":{"message":"SUMMARY"}}`,
			user("new question"), call("c1"), call("c2"), call("c3")),
		wantItems: 7,
		wantFixed: []string{"BASE", "SUMMARY", "old question"},
	}, {
		name: "remote compaction item and ghost snapshots",
		in: lines(`{"type":"session_meta","payload":{}}`,
			`{"type":"compacted","payload":{"message":"","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"q0"}]},{"type":"compaction","encrypted_content":"ENCRYPTED"}]}}`,
			`{"type":"response_item","payload":{"type":"ghost_snapshot","ghost_commit":{"id":"GHOST"}}}`,
			call("c1"), user("q1"), call("c2"), call("c3"), call("c4")),
		wantItems:  12,
		keepSubstr: []string{"ENCRYPTED", "GHOST"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if c.Len() != tc.wantItems {
				t.Errorf("Len() = %d, want %d", c.Len(), tc.wantItems)
			}
			for _, f := range tc.wantFixed {
				found := false
				for _, g := range c.fixed {
					found = found || g == f
				}
				if !found {
					t.Errorf("fixed texts %q lack %q", c.fixed, f)
				}
			}
			full, pinned, _ := budgets(t, c)
			limit := pinned // drops every turn it may
			if full <= pinned {
				t.Fatalf("full %d <= pinned %d: nothing to prune", full, pinned)
			}
			res, err := Prune(c, counter(t), &Options{Budget: limit})
			if err != nil {
				t.Fatal(err)
			}
			out := encode(t, res.Conversation)
			if !res.Changed() {
				t.Fatal("nothing pruned")
			}
			checkPruned(t, c, []byte(tc.in), res, limit)
			for _, k := range tc.keepSubstr {
				if !bytes.Contains(out, []byte(k)) {
					t.Errorf("output lost %q:\n%s", k, out)
				}
			}
			// Lines before the last compaction are passed through.
			head := tc.in[:strings.Index(tc.in, `{"type":"compacted"`)]
			if !bytes.HasPrefix(out, []byte(head)) {
				t.Errorf("lines before the compaction changed")
			}
		})
	}
}

// Screenshots inside tool results (computer use) are what old turns cost
// most; masking must see their size, and images inside recent results go
// in step 2.
func TestScreenshotsInToolResults(t *testing.T) {
	shot := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png1 + `"}}`
	var msgs []string
	msgs = append(msgs, `{"role":"user","content":"Open the settings page and enable dark mode."}`)
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs,
			`{"role":"assistant","content":[{"type":"tool_use","id":"`+id+`","name":"computer","input":{"action":"screenshot","step":`+fmt.Sprint(i)+`}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":[`+shot+`]}]}`)
	}
	src := []byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[` + strings.Join(msgs, ",") + `]}`)
	c, err := Parse(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	full := Tokens(c, counter(t))
	if full < 6*budget.ImageTokens {
		t.Fatalf("%d tokens: screenshots not counted", full)
	}
	for _, tc := range []struct {
		name      string
		limit     int
		wantSteps []string
		wantShots int
	}{
		{"masking old screenshots is enough", full - 2*budget.ImageTokens + 100, []string{StepMask}, 4},
		{"recent screenshots lose their images too", full - 5*budget.ImageTokens + 200, []string{StepMask, StepSupersede}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Prune(c, counter(t), &Options{Budget: tc.limit, KeepLast: 1, MaskAfter: 3})
			if err != nil {
				t.Fatal(err)
			}
			var steps []string
			for _, s := range res.Steps {
				if s.Edits > 0 {
					steps = append(steps, s.Name)
				}
			}
			out := encode(t, res.Conversation)
			if d := cmp.Diff([]any{tc.wantSteps, tc.wantShots}, []any{steps, bytes.Count(out, []byte(png1))}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if !bytes.Contains(out, []byte(fmt.Sprintf("omitted (%d tokens)", budget.ImageTokens))) {
				t.Errorf("no placeholder gives the screenshot's size:\n%s", out)
			}
			checkPruned(t, c, src, res, tc.limit)
		})
	}
}
