package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/internal/check"
	"github.com/ctxtrim/ctxtrim/split"
)

// tauBench is a real tau-bench airline conversation (62 messages, tool
// messages with names, 14 tools); see its README for the source.
var tauBench = filepath.Join("..", "..", "history", "testdata", "transcripts", "tau-bench-airline-gpt4o-idx052-task2.json")

// accountingBody holds what a Chat request carries beyond plain text:
// names on tool messages, images, a refusal, custom and legacy calls.
const accountingBody = `{"model":"gpt-4o","messages":[
 {"role":"system","content":"You are terse."},
 {"role":"user","name":"ann","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]},
 {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"a.png\"}"}},{"id":"c2","type":"custom","custom":{"name":"shell","input":"ls -l"}}]},
 {"role":"tool","tool_call_id":"c1","name":"lookup","content":"a cat"},
 {"role":"tool","tool_call_id":"c2","content":"a.png"},
 {"role":"assistant","content":null,"refusal":"I cannot say more."},
 {"role":"assistant","content":null,"function_call":{"name":"legacy","arguments":"{}"}},
 {"role":"function","name":"legacy","content":"ok"},
 {"role":"user","content":"Thanks"}],
 "tools":[{"type":"function","function":{"name":"lookup","description":"Look a file up.","parameters":{"type":"object","properties":{"q":{"type":"string","description":"The query."},"mode":{"type":"string","enum":["fast","slow"]}}}}}]}`

// TestOneRequestAccounting: budget, history and count -chat count the same
// Chat request body to the same token, with each encoding and with an
// estimate counter; split's request parts count what history and count
// -chat count for their bodies. Before, history left out the names of tool
// messages and always framed with o200k_base: the tau-bench request was
// 11,570 tokens to history and 11,700 to count -chat.
func TestOneRequestAccounting(t *testing.T) {
	tau, err := os.ReadFile(tauBench)
	if err != nil {
		t.Fatal(err)
	}
	isolateConfig(t)
	claude, err := budget.Lookup("claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	counters := []struct {
		name string
		args []string // count's flags for the same counter
		c    func(t *testing.T) budget.Counter
	}{
		{"o200k_base", []string{"-encoding", "o200k_base"}, func(t *testing.T) budget.Counter { return encodingCounter(t, budget.O200kBase) }},
		{"cl100k_base", []string{"-encoding", "cl100k_base"}, func(t *testing.T) budget.Counter { return encodingCounter(t, budget.Cl100kBase) }},
		{"claude estimate", []string{"-model", "claude-sonnet-4-5"}, func(t *testing.T) budget.Counter {
			return budget.Scaled(encodingCounter(t, claude.Encoding), claude.Factor)
		}},
	}
	bodies := map[string][]byte{"tau-bench": tau, "every part": []byte(accountingBody)}
	for _, k := range counters {
		c := k.c(t)
		for name, body := range bodies {
			t.Run(k.name+"/"+name, func(t *testing.T) {
				msgs, tools, err := budget.ParseChatRequest(body)
				if err != nil {
					t.Fatal(err)
				}
				want := budget.CountChat(c, msgs, tools)
				conv, err := history.Parse(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if got := history.Tokens(conv, c); got != want {
					t.Errorf("history.Tokens = %d, budget.CountChat = %d", got, want)
				}
				if got := countChat(t, body, k.args...); got != want {
					t.Errorf("count -chat = %d, budget.CountChat = %d", got, want)
				}
			})
		}
		t.Run(k.name+"/split parts", func(t *testing.T) {
			for _, f := range []split.Format{split.OpenAI, split.Anthropic} {
				res, err := split.Split(context.Background(), split.Input{Kind: split.Text, Sources: []split.Source{{Name: "t", Text: strings.Repeat("A line of the task to review.\n", 400)}}},
					c, &split.Options{Budget: 1500, Format: f, Instructions: "Review this.", Model: "m"})
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range res.Parts {
					conv, err := history.Parse(strings.NewReader(p.Text))
					if err != nil {
						t.Fatal(err)
					}
					if got := history.Tokens(conv, c); got != p.Tokens {
						t.Errorf("format %v part %d: history.Tokens = %d, Part.Tokens = %d", f, p.Index, got, p.Tokens)
					}
					if f == split.OpenAI {
						if got := countChat(t, []byte(p.Text), k.args...); got != p.Tokens {
							t.Errorf("part %d: count -chat = %d, Part.Tokens = %d", p.Index, got, p.Tokens)
						}
					}
				}
			}
		})
	}
}

// TestHistoryPrunedFitsCountChat: a tau-bench conversation pruned by
// history to 4,000 tokens counts at most 4,000 with count -chat, exactly
// what history reports (it counted 4,039 before the accounting was one).
func TestHistoryPrunedFitsCountChat(t *testing.T) {
	tau, err := os.ReadFile(tauBench)
	if err != nil {
		t.Fatal(err)
	}
	isolateConfig(t)
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		for _, limit := range []string{"4000", "6000", "9000"} {
			pruned, stderr, code := runBuf(t, string(tau), "history", "-encoding", enc, "-budget", limit, "-explain")
			if code != exitTrimmed {
				t.Fatalf("history -budget %s: exit %d, stderr %q", limit, code, stderr)
			}
			m := regexp.MustCompile(`history: pruned to (\d+) tokens`).FindStringSubmatch(stderr)
			if m == nil {
				t.Fatalf("no pruned size in %q", stderr)
			}
			reported, _ := strconv.Atoi(m[1])
			lim, _ := strconv.Atoi(limit)
			got := countChat(t, []byte(pruned), "-encoding", enc)
			if got > lim || got != reported {
				t.Errorf("%s, budget %d: count -chat says %d, history said %d", enc, lim, got, reported)
			}
		}
	}
}

func encodingCounter(t *testing.T, enc string) budget.Counter {
	t.Helper()
	c, err := budget.NewEncodingCounter(enc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// countChat runs count -chat on body and returns its count.
func countChat(t *testing.T, body []byte, args ...string) int {
	t.Helper()
	stdout, stderr, code := runBuf(t, string(body), append([]string{"count", "-chat"}, args...)...)
	if code != exitOK {
		t.Fatalf("count -chat: exit %d, stderr %q", code, stderr)
	}
	n, err := strconv.Atoi(strings.TrimSpace(stdout))
	if err != nil {
		t.Fatalf("count -chat output %q: %v", stdout, err)
	}
	return n
}

// TestNilCounter: every library entry point that counts rejects a nil
// counter with budget.ErrNilCounter instead of panicking.
func TestNilCounter(t *testing.T) {
	conv, err := history.Parse(strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := split.Input{Kind: split.Text, Sources: []split.Source{{Name: "t", Text: "text\n"}}}
	calls := map[string]func() error{
		"budget.Fit":    func() error { _, err := budget.Fit("text", nil, &budget.FitOptions{Budget: 10}); return err },
		"history.Prune": func() error { _, err := history.Prune(conv, nil, &history.Options{Budget: 10}); return err },
		"split.Split": func() error {
			_, err := split.Split(context.Background(), in, nil, &split.Options{Budget: 10})
			return err
		},
		"split.Verify": func() error { return split.Verify(in, &split.Result{}, nil, &split.Options{Budget: 10}) },
		"check.Review": func() error { _, err := check.Review(context.Background(), "diff", "", 10, nil); return err },
		"check.Repo":   func() error { _, err := check.Repo(context.Background(), t.TempDir(), nil, nil); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, budget.ErrNilCounter) {
			t.Errorf("%s with a nil counter: %v, want budget.ErrNilCounter", name, err)
		}
	}
}
