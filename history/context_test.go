package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/google/go-cmp/cmp"
)

// The context a client injects into a request (Codex: AGENTS.md and
// <environment_context> user messages; Claude Code: <system-reminder>
// blocks in the first user message) must survive any pruning.

// requestFixtures are the real request bodies of testdata/requests, with
// what of each must survive pruning: the raw JSON of every item or content
// block holding one of the needles (the AGENTS.md / CLAUDE.md marker line,
// the environment context).
var requestFixtures = []struct {
	path    string
	needles []string
}{
	{"testdata/requests/codex-0.171.0-responses.json", []string{"CTXTRIM-MARKER-AGENTS-7f3a", "<environment_context>"}},
	{"testdata/requests/claude-code-2.1.332-messages.json", []string{"CTXTRIM-MARKER-CLAUDE-5b1e", "# Environment"}},
}

// contextRaws returns the raw JSON of the items (Responses) or the first
// message's content blocks (Anthropic) of c that hold each needle.
func contextRaws(t *testing.T, c *Conversation, needles []string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, n := range needles {
		var found []byte
		for _, raw := range c.Items() {
			if !bytes.Contains(raw, []byte(n)) {
				continue
			}
			found = raw
			if c.Format() == FormatAnthropic {
				ms, err := parseObject(raw)
				if err != nil {
					t.Fatal(err)
				}
				blocks, err := parseArray(get(ms, "content"))
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range blocks {
					if bytes.Contains(b, []byte(n)) {
						found = b
					}
				}
			}
			break
		}
		if found == nil {
			t.Fatalf("no item holds %q", n)
		}
		out = append(out, found)
	}
	return out
}

// pinnedOf is the pinned minimum Prune reports for c.
func pinnedOf(t *testing.T, c *Conversation) int {
	t.Helper()
	_, err := Prune(c, counter(t), &Options{Budget: 1})
	var nf *budget.NoFitError
	if !errors.As(err, &nf) {
		t.Fatalf("Prune at budget 1: %v, want a NoFitError", err)
	}
	return nf.Pinned
}

// TestRequestFixturesKeepContext prunes the real request bodies at a ladder
// of budgets from the pinned minimum to the full size: the injected context
// stays byte for byte (for Anthropic, in the first message, which stays the
// user's), and the output is valid.
func TestRequestFixturesKeepContext(t *testing.T) {
	for _, fx := range requestFixtures {
		c, _ := parseFile(t, fx.path)
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", fx.path, err)
		}
		raws := contextRaws(t, c, fx.needles)
		full, pinned := Tokens(c, counter(t)), pinnedOf(t, c)
		if pinned >= full {
			t.Fatalf("%s: pinned %d, full %d: the fixture needs no pruning", fx.path, pinned, full)
		}
		const steps = 6
		for k := 0; k <= steps; k++ {
			b := pinned + (full-pinned)*k/steps
			t.Run(fmt.Sprintf("%s/%d", fx.path, b), func(t *testing.T) {
				res, err := Prune(c, counter(t), &Options{Budget: b})
				if err != nil {
					t.Fatalf("full %d, pinned %d: %v", full, pinned, err)
				}
				if k == 0 && res.DroppedTurns == 0 {
					t.Errorf("at the pinned minimum no turn was dropped")
				}
				out := encode(t, res.Conversation)
				re, err := ParseBytes(out, c.Format())
				if err != nil {
					t.Fatal(err)
				}
				if err := re.Validate(); err != nil {
					t.Errorf("output is not valid: %v", err)
				}
				where := out
				if c.Format() == FormatAnthropic {
					if role := re.items[0].role; role != "user" {
						t.Errorf("first message has role %q, want user", role)
					}
					where = re.items[0].raw
				}
				for i, raw := range raws {
					if !bytes.Contains(where, raw) {
						t.Errorf("the context holding %q is not kept byte for byte (in the first message, for Anthropic)", fx.needles[i])
					}
				}
			})
		}
	}
}

// pins describes what of each item Prune never touches: "whole" for
// instructions and injected context, the content blocks for an Anthropic
// first message with injected blocks.
func pins(c *Conversation) []string {
	var out []string
	for i, it := range c.items {
		switch {
		case it.sys:
			out = append(out, fmt.Sprintf("%d %s: whole", i, it.role))
		case len(it.injected) > 0:
			out = append(out, fmt.Sprintf("%d %s: blocks %v", i, it.role, it.injected))
		}
	}
	return out
}

func TestPinnedContext(t *testing.T) {
	msg := func(role string, texts ...string) string {
		var parts []string
		for _, s := range texts {
			b, _ := json.Marshal(s)
			parts = append(parts, `{"type":"input_text","text":`+string(b)+`}`)
		}
		return `{"type":"message","role":"` + role + `","content":[` + strings.Join(parts, ",") + `]}`
	}
	responses := func(items ...string) string { return `{"model":"m","input":[` + strings.Join(items, ",") + `]}` }
	block := func(s string) string {
		b, _ := json.Marshal(s)
		return `{"type":"text","text":` + string(b) + `}`
	}
	anthropic := func(msgs ...string) string {
		return `{"model":"m","system":"s","messages":[` + strings.Join(msgs, ",") + `]}`
	}
	user := func(blocks ...string) string { return `{"role":"user","content":[` + strings.Join(blocks, ",") + `]}` }
	const (
		agents   = "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nRun the tests.\n</INSTRUCTIONS>"
		env      = "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"
		reminder = "<system-reminder>\nContents of /w/CLAUDE.md:\nRun the tests.\n</system-reminder>"
	)
	tests := []struct {
		name, in string
		want     []string
	}{
		{"codex request fixture", "testdata/requests/codex-0.171.0-responses.json",
			[]string{"0 developer: whole", "1 developer: whole", "2 user: whole"}},
		{"claude code request fixture", "testdata/requests/claude-code-2.1.332-messages.json",
			[]string{"0 user: blocks [0 1 2 3 4 5 6 7 8 9]"}},
		{"responses: codex context anywhere", responses(msg("user", "fix it"), msg("assistant", "ok"), msg("user", agents, env), msg("user", "more")),
			[]string{"2 user: whole"}},
		{"responses: markers are case-insensitive, as Codex reads them", responses(msg("user", strings.ToLower(agents)), msg("user", "go")),
			[]string{"0 user: whole"}},
		{"responses: user text starting with a tag", responses(msg("user", "<div>hi</div> why is this blank?"), msg("user", "<environment_context> — what is this tag?")),
			nil},
		{"responses: context with typed text in one message", responses(msg("user", agents, "and fix the bug")),
			nil},
		{"responses: only user messages are context", responses(msg("assistant", env), msg("user", "go")),
			nil},
		{"anthropic: reminders of the first message", anthropic(user(block(reminder), block("fix it")), `{"role":"assistant","content":"ok"}`, user(block(reminder), block("more"))),
			[]string{"0 user: blocks [0]"}},
		{"anthropic: first message without reminders", anthropic(user(block("<div>fix it</div>")), `{"role":"assistant","content":"ok"}`),
			nil},
		{"anthropic: a string first message", anthropic(`{"role":"user","content":"<system-reminder>x</system-reminder>"}`),
			nil},
		{"anthropic: an unclosed reminder", anthropic(user(block("<system-reminder> is a tag I saw"), block("fix it"))),
			nil},
		{"rollout: every tagged user message, as before", `{"type":"session_meta","payload":{}}` + "\n" +
			`{"type":"response_item","payload":` + msg("user", "<turn_aborted>") + `}` + "\n" +
			`{"type":"response_item","payload":` + msg("user", "go") + `}`,
			[]string{"0 user: whole"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c *Conversation
			if strings.HasPrefix(tc.in, "testdata/") {
				c, _ = parseFile(t, tc.in)
			} else {
				var err error
				if c, err = Parse(strings.NewReader(tc.in)); err != nil {
					t.Fatal(err)
				}
			}
			if d := cmp.Diff(tc.want, pins(c)); d != "" {
				t.Errorf("pinned (-want +got):\n%s", d)
			}
		})
	}
}

// TestResponsesAngleTextPrunable: in a Responses request, Codex's context
// is pinned but a user message that merely starts with "<" (pasted HTML)
// is pruned like any other.
func TestResponsesAngleTextPrunable(t *testing.T) {
	paste := "<html><body>" + strings.Repeat("<p>ring buffer line of output</p>\n", 400) + "</body></html> why is this page blank?"
	item := func(role, typ, text string) string {
		b, _ := json.Marshal(text)
		return `{"type":"message","role":"` + role + `","content":[{"type":"` + typ + `","text":` + string(b) + `}]}`
	}
	agents := "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nCTXTRIM-MARKER: run the tests.\n</INSTRUCTIONS>"
	src := `{"model":"m","instructions":"Be brief.","input":[` + strings.Join([]string{
		item("user", "input_text", agents),
		item("user", "input_text", paste),
		item("assistant", "output_text", "It has no closing tag."),
		item("user", "input_text", "And now?"),
		item("assistant", "output_text", "Still blank."),
		item("user", "input_text", "Thanks."),
	}, ",") + `]}`
	c, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	pinned := pinnedOf(t, c)
	if n := counter(t).Count(paste); pinned > Tokens(c, counter(t))-n {
		t.Errorf("pinned %d tokens: the %d-token paste is pinned", pinned, n)
	}
	res, err := Prune(c, counter(t), &Options{Budget: pinned})
	if err != nil {
		t.Fatal(err)
	}
	out := string(encode(t, res.Conversation))
	if strings.Contains(out, "<p>ring buffer") {
		t.Errorf("the pasted HTML survived pruning to the pinned minimum")
	}
	if !strings.Contains(out, "CTXTRIM-MARKER: run the tests.") {
		t.Errorf("the AGENTS.md context was pruned")
	}
}

// TestAnthropicFirstPromptPrunable: Claude Code's first message holds the
// injected <system-reminder> blocks and the user's first prompt. The
// reminders are pinned; the prompt, which may be a huge paste, is not:
// when its turn is dropped, the reminders move, byte for byte, to the head
// of the first message left, and the roles still alternate.
func TestAnthropicFirstPromptPrunable(t *testing.T) {
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	block := func(s string) string { return `{"type":"text","text":` + js(s) + `}` }
	env := "<system-reminder>\n# Environment\n - Primary working directory: /w\n</system-reminder>"
	claudeMD := "<system-reminder>\nContents of /w/CLAUDE.md:\nCTXTRIM-MARKER: run the tests.\n</system-reminder>"
	paste := strings.Repeat("2026-11-29T17:00:00Z worker-1 request status=200 latency=12ms\n", 300)
	first := `{"role":"user","content":[` + block(env) + `,` + block(claudeMD) + `,` + block("Why is it slow?\n"+paste) + `]}`
	tests := []struct {
		name      string
		keepLast  int
		msgs      []string
		wantRoles []string
	}{
		{"a user message follows the dropped turns: the reminders join it", -1, []string{
			first,
			`{"role":"assistant","content":"Worker 1 is slow."}`,
			`{"role":"user","content":[{"type":"text","text":"<system-reminder>\n<total_tokens>9 left</total_tokens>\n</system-reminder>"},{"type":"text","text":"And here?"}]}`,
		}, []string{"user"}},
		{"an assistant message follows: the reminders stay in the first message", 0, []string{
			first,
			`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":` + js(paste) + `}]}`,
			`{"role":"assistant","content":"Done."}`,
			`{"role":"user","content":"Thanks."}`,
		}, []string{"user", "assistant", "user"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := `{"model":"claude-sonnet-4-5","system":"Be brief.","messages":[` + strings.Join(tc.msgs, ",") + `]}`
			c, err := Parse(strings.NewReader(src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Prune(c, counter(t), &Options{Budget: 1, KeepLast: tc.keepLast})
			var nf *budget.NoFitError
			if !errors.As(err, &nf) {
				t.Fatalf("Prune at budget 1: %v, want a NoFitError", err)
			}
			res, err := Prune(c, counter(t), &Options{Budget: nf.Pinned, KeepLast: tc.keepLast})
			if err != nil {
				t.Fatal(err)
			}
			out := encode(t, res.Conversation)
			re, err := ParseBytes(out, FormatAnthropic)
			if err != nil {
				t.Fatal(err)
			}
			var roles []string
			for _, it := range re.items {
				roles = append(roles, it.role)
			}
			if d := cmp.Diff(tc.wantRoles, roles); d != "" {
				t.Errorf("roles (-want +got):\n%s", d)
			}
			if err := re.Validate(); err != nil {
				t.Errorf("output is not valid: %v", err)
			}
			head := block(env) + "," + block(claudeMD) + ","
			if !bytes.Contains(re.items[0].raw, []byte(`"content":[`+head)) {
				t.Errorf("the first message does not open with the reminders, byte for byte:\n%s", clip(re.items[0].raw))
			}
			if bytes.Contains(out, []byte("Why is it slow?")) {
				t.Errorf("the first prompt (a paste) was kept: it should be prunable")
			}
		})
	}
}

// TestNoFitCountsInjectedContext: NoFitError's breakdown counts the
// injected context with the system and developer messages (for Codex, its
// context item beside the two developer messages; for Claude Code, the
// first message's <system-reminder> blocks, as parts), and its shares
// still sum to Pinned.
func TestNoFitCountsInjectedContext(t *testing.T) {
	const name = "system, developer and injected context"
	tests := []struct {
		path   string
		items  []int // whole items: instructions and Codex's context
		blocks []int // content blocks of the first message: Claude Code's
	}{
		{requestFixtures[0].path, []int{0, 1, 2}, nil},
		{requestFixtures[1].path, nil, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			c, _ := parseFile(t, tc.path)
			a := accountant{c.Format(), counter(t)}
			want := 0
			for _, i := range tc.items {
				want += a.item(c.items[i].raw)
			}
			if tc.blocks != nil {
				ms, _ := parseObject(c.items[0].raw)
				blocks, err := parseArray(get(ms, "content"))
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range tc.blocks {
					want += a.part(blocks[b])
				}
			}
			_, err := Prune(c, counter(t), &Options{Budget: 1})
			var nf *budget.NoFitError
			if !errors.As(err, &nf) {
				t.Fatalf("Prune at budget 1: %v, want a NoFitError", err)
			}
			got, sum := map[string]int{}, 0
			for _, s := range nf.Breakdown {
				got[s.Name] = s.Tokens
				sum += s.Tokens
			}
			if d := cmp.Diff(map[string]int{name: want, "sum": nf.Pinned}, map[string]int{name: got[name], "sum": sum}); d != "" {
				t.Errorf("breakdown (-want +got):\n%s\n%v", d, nf)
			}
		})
	}
}
