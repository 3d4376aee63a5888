package history

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// usage is what a token_count record says, read for tests.
type usage struct {
	total, input, cached int
	rest                 string // the record without last_token_usage's three counts
}

func usageOf(tb testing.TB, line []byte) usage {
	tb.Helper()
	var rec map[string]any
	if err := json.Unmarshal(line, &rec); err != nil {
		tb.Fatalf("token_count record: %v", err)
	}
	last := rec["payload"].(map[string]any)["info"].(map[string]any)["last_token_usage"].(map[string]any)
	num := func(k string) int {
		f, _ := last[k].(float64)
		delete(last, k)
		return int(f)
	}
	u := usage{total: num("total_tokens"), input: num("input_tokens"), cached: num("cached_input_tokens")}
	b, err := json.Marshal(rec)
	if err != nil {
		tb.Fatal(err)
	}
	u.rest = string(b)
	return u
}

// TestTokenCountAfterPruning: Codex restores its token usage on resume from
// the last token_count record and auto-compacts when it is over the limit,
// so pruning lowers that record's last_token_usage by what it removed from
// the items before it; every other record stays byte for byte.
func TestTokenCountAfterPruning(t *testing.T) {
	big := strings.Repeat("output line with some words ", 400)
	user := func(text string) string {
		return `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}}`
	}
	answer := `{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}`
	call := func(id, out string) string {
		return `{"type":"response_item","payload":{"type":"function_call","call_id":"` + id + `","name":"exec_command","arguments":"{}"}}` + "\n" +
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"` + id + `","output":"` + out + `"}}`
	}
	count := func(in, cached, total int) string {
		return `{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":90000,"cached_input_tokens":0,"output_tokens":900,"total_tokens":90900},"last_token_usage":{"input_tokens":` +
			strconv.Itoa(in) + `,"cached_input_tokens":` + strconv.Itoa(cached) + `,"output_tokens":100,"total_tokens":` + strconv.Itoa(total) + `},"model_context_window":32000},"rate_limits":null}}`
	}
	noInfo := `{"type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":null}}}`
	meta := `{"type":"session_meta","payload":{"id":"s","base_instructions":{"text":"BASE"}}}`
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

	tests := []struct {
		name string
		in   string
		// wantCut: pruning takes tokens out of the items before the last
		// record, which is lowered by as much; otherwise it is unchanged.
		wantCut bool
		// slack: the budget is the full size less slack (0: the pinned
		// minimum).
		slack int
	}{{
		name:    "old outputs pruned before the last record",
		in:      lines(meta, user("q1"), call("c1", big), call("c2", big), answer, count(30000, 0, 30100), user("q2"), call("c3", "small"), answer, count(31000, 20000, 31100), noInfo),
		wantCut: true,
	}, {
		name:    "cached input capped by the new input",
		in:      lines(meta, user("q1"), call("c1", big), call("c2", big), answer, user("q2"), call("c3", "small"), answer, count(31000, 30000, 31100)),
		wantCut: true,
	}, {
		name:  "only items after the last record pruned: the record still holds",
		slack: 100,
		in:    lines(meta, user("q1"), answer, count(2000, 0, 2100), call("c1", big), call("c2", big), call("c3", big), call("c4", big), user("q2"), call("c5", "small")),
	}, {
		name: "no usage info anywhere",
		in:   lines(meta, user("q1"), call("c1", big), call("c2", big), answer, noInfo, user("q2"), call("c3", "small"), answer),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			full, pinned, _ := budgets(t, c)
			if full <= pinned {
				t.Fatalf("full %d <= pinned %d: nothing to prune", full, pinned)
			}
			limit := pinned
			if tc.slack > 0 {
				limit = full - tc.slack
			}
			res, err := Prune(c, counter(t), &Options{Budget: limit, KeepLast: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed() {
				t.Fatal("nothing pruned")
			}
			checkPruned(t, c, []byte(tc.in), res, limit)
			out := encode(t, res.Conversation)
			re, err := Parse(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			if c.usageLine < 0 {
				if re.usageLine >= 0 {
					t.Fatalf("a usage record appeared at line %d", re.usageLine)
				}
				return
			}
			// What ctxtrim removed from the items before the record,
			// counted independently of usageCut.
			a := accountant{c.format, counter(t)}
			before := func(conv *Conversation) (n int) {
				for _, it := range conv.items {
					if it.line < conv.usageLine {
						n += a.item(it.raw)
					}
				}
				return n
			}
			cut := before(c) - before(re)
			was, got := usageOf(t, c.lines[c.usageLine]), usageOf(t, re.lines[re.usageLine])
			want := was
			if tc.wantCut {
				if cut <= 0 {
					t.Fatalf("the case wants a cut before the record; ctxtrim removed %d tokens there", cut)
				}
				want.total -= cut
				want.input -= cut
				want.cached = min(want.cached, want.input)
			} else if cut != 0 {
				t.Fatalf("the case wants nothing cut before the record; ctxtrim removed %d tokens there", cut)
			}
			if d := cmp.Diff(want, got, cmp.AllowUnexported(usage{})); d != "" {
				t.Errorf("last token_count record (-want +got):\n%s", d)
			}
			// Every other line (the other token_count records included)
			// is one of the input's, byte for byte.
			in := map[string]bool{}
			for _, l := range c.lines {
				in[string(l)] = true
			}
			for i, l := range re.lines {
				if i != re.usageLine && !re.isResponseItemLine(i) && !in[string(l)] {
					t.Errorf("line %d is not the input's: %s", i+1, l)
				}
			}
		})
	}
}

// An unpruned rollout is written back byte for byte, stale counts and all.
func TestTokenCountUnchanged(t *testing.T) {
	for _, p := range []string{"testdata/transcripts/codex-0.169-multiturn.jsonl", "testdata/transcripts/codex-0.135-redacted.jsonl"} {
		c, src := parseFile(t, p)
		if c.usageLine < 0 {
			t.Fatalf("%s: no token_count record found", p)
		}
		res, err := Prune(c, counter(t), &Options{Budget: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		if got := encode(t, res.Conversation); res.Changed() || !bytes.Equal(got, src) {
			t.Errorf("%s: unpruned rollout changed (changed=%v)", p, res.Changed())
		}
	}
}

// Pruning a pruned conversation again lowers the record by both cuts, as
// pruning the input once to the same result would.
func TestTokenCountPrunedTwice(t *testing.T) {
	c, _ := parseFile(t, "testdata/transcripts/codex-0.169-multiturn.jsonl")
	full, pinned, _ := budgets(t, c)
	mid := (full + pinned) / 2
	once, err := Prune(c, counter(t), &Options{Budget: mid, KeepLast: 1})
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Prune(once.Conversation, counter(t), &Options{Budget: pinned, KeepLast: 1})
	if err != nil {
		t.Fatal(err)
	}
	was := usageOf(t, c.lines[c.usageLine])
	re, err := Parse(bytes.NewReader(encode(t, twice.Conversation)))
	if err != nil {
		t.Fatal(err)
	}
	got := usageOf(t, re.lines[re.usageLine])
	a := accountant{c.format, counter(t)}
	before := func(conv *Conversation) (n int) {
		for _, it := range conv.items {
			if it.line < conv.usageLine {
				n += a.item(it.raw)
			}
		}
		return n
	}
	cut := before(c) - before(re)
	if once.Conversation.usageCut <= 0 || cut <= once.Conversation.usageCut {
		t.Fatalf("the case wants two cuts before the record: %d, then %d in all", once.Conversation.usageCut, cut)
	}
	if d := cmp.Diff(was.total-cut, got.total); d != "" {
		t.Errorf("total_tokens after two prunings (-want +got):\n%s", d)
	}
}
