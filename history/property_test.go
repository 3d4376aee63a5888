package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// gen builds random but valid conversations in every format.
type gen struct {
	r     *rand.Rand
	id    int
	small bool // short texts, for fuzz seeds
}

var words = strings.Fields("the ring buffer keeps last lines of output func return error nil test fails because index wraps around len cap slice append go vet ok FAIL panic")

func (g *gen) text(maxWords int) string {
	if g.small {
		maxWords = min(maxWords, 8)
	}
	n := 1 + g.r.IntN(maxWords)
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			if g.r.IntN(12) == 0 {
				b.WriteString("\n")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(words[g.r.IntN(len(words))])
	}
	return b.String()
}

// output is a tool output: sometimes huge, sometimes a repeat.
func (g *gen) output(prev []string) string {
	switch g.r.IntN(6) {
	case 0:
		return g.text(3000)
	case 1:
		if len(prev) > 0 {
			return prev[g.r.IntN(len(prev))]
		}
	}
	return g.text(200)
}

func (g *gen) call() (id, name, args string) {
	g.id++
	id = fmt.Sprintf("call_%d", g.id)
	switch g.r.IntN(3) {
	case 0:
		return id, "read_file", fmt.Sprintf(`{"path":"f%d.go"}`, g.r.IntN(3))
	case 1:
		return id, "exec_command", fmt.Sprintf(`{"cmd":"cat f%d.go"}`, g.r.IntN(3))
	}
	return id, "run", fmt.Sprintf(`{"cmd":%q}`, g.text(5))
}

func js(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

const png1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

func (g *gen) chat() []byte {
	msgs := []any{map[string]any{"role": "system", "content": g.text(50)}}
	var outs []string
	turns := 1 + g.r.IntN(8)
	for t := 0; t < turns; t++ {
		if g.r.IntN(5) == 0 {
			msgs = append(msgs, map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": g.text(30)},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + png1}},
			}})
		} else {
			msgs = append(msgs, map[string]any{"role": "user", "content": g.text(300)})
		}
		if g.r.IntN(6) == 0 { // the legacy functions API: no ids
			msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "function_call": map[string]any{"name": "run", "arguments": `{"cmd":"ls"}`}},
				map[string]any{"role": "function", "name": "run", "content": g.output(outs)})
		}
		for s := g.r.IntN(4); s > 0; s-- {
			k := 1 + g.r.IntN(2)
			var calls, results []any
			for i := 0; i < k; i++ {
				id, name, args := g.call()
				calls = append(calls, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}})
				o := g.output(outs)
				outs = append(outs, o)
				results = append(results, map[string]any{"role": "tool", "tool_call_id": id, "content": o})
			}
			msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": calls})
			msgs = append(msgs, results...)
		}
		if t < turns-1 || g.r.IntN(2) == 0 {
			msgs = append(msgs, map[string]any{"role": "assistant", "content": g.text(100)})
		}
	}
	return js(map[string]any{"model": "gpt-4.1", "temperature": 0.2, "messages": msgs,
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "run", "description": "Run a command.",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"cmd": map[string]any{"type": "string"}}}}}}})
}

func (g *gen) anthropic() []byte {
	var msgs []any
	var outs []string
	turns := 1 + g.r.IntN(8)
	for t := 0; t < turns; t++ {
		user := []any{map[string]any{"type": "text", "text": g.text(300)}}
		if g.r.IntN(5) == 0 {
			user = append(user, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": png1}})
		}
		if t == 0 && g.r.IntN(2) == 0 {
			// Claude Code's injected context, pinned apart from the prompt.
			user = append([]any{
				map[string]any{"type": "text", "text": "<system-reminder>\n" + g.text(60) + "\n</system-reminder>"},
				map[string]any{"type": "text", "text": "<system-reminder>\nContents of CLAUDE.md: " + g.text(30) + "\n</system-reminder>\n"},
			}, user...)
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": user})
		for s := g.r.IntN(4); s > 0; s-- {
			var blocks, results []any
			if g.r.IntN(2) == 0 {
				blocks = append(blocks, map[string]any{"type": "thinking", "thinking": g.text(40), "signature": fmt.Sprintf("sig%d", g.r.IntN(1e6))})
			}
			for k := 1 + g.r.IntN(2); k > 0; k-- {
				id, name, args := g.call()
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": id, "name": name, "input": json.RawMessage(args)})
				o := g.output(outs)
				outs = append(outs, o)
				var content any = o
				if g.r.IntN(4) == 0 { // a screenshot, as computer use returns
					content = []any{map[string]any{"type": "text", "text": g.text(10)},
						map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": png1}}}
				}
				results = append(results, map[string]any{"type": "tool_result", "tool_use_id": id, "content": content})
			}
			msgs = append(msgs, map[string]any{"role": "assistant", "content": blocks})
			if s == 1 && t == turns-1 && g.r.IntN(2) == 0 {
				results = append(results, map[string]any{"type": "text", "text": g.text(20)})
			}
			msgs = append(msgs, map[string]any{"role": "user", "content": results})
		}
		if t < turns-1 {
			msgs = append(msgs, map[string]any{"role": "assistant", "content": g.text(100)})
		}
	}
	return js(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": g.text(40), "messages": msgs})
}

func (g *gen) responsesItems() []any {
	items := []any{map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": g.text(50)}}}}
	var outs []string
	turns := 1 + g.r.IntN(8)
	for t := 0; t < turns; t++ {
		items = append(items, map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": g.text(300)}}})
		for s := g.r.IntN(4); s > 0; s-- {
			g.id++
			items = append(items, map[string]any{"type": "reasoning", "id": fmt.Sprintf("rs_%d", g.id), "summary": []any{map[string]any{"type": "summary_text", "text": g.text(20)}}, "encrypted_content": nil})
			id, name, args := g.call()
			items = append(items, map[string]any{"type": "function_call", "call_id": id, "name": name, "arguments": args})
			o := g.output(outs)
			outs = append(outs, o)
			var output any = o
			if g.r.IntN(4) == 0 {
				output = []any{map[string]any{"type": "input_text", "text": g.text(10)},
					map[string]any{"type": "input_image", "image_url": "data:image/png;base64," + png1}}
			}
			items = append(items, map[string]any{"type": "function_call_output", "call_id": id, "output": output})
		}
		if t < turns-1 || g.r.IntN(2) == 0 {
			g.id++
			items = append(items, map[string]any{"type": "reasoning", "id": fmt.Sprintf("rs_%d", g.id), "summary": []any{}})
			items = append(items, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": g.text(100)}}})
		}
	}
	return items
}

func (g *gen) responses() []byte {
	return js(map[string]any{"model": "gpt-5", "instructions": g.text(30), "store": false, "input": g.responsesItems()})
}

// codex wraps items as rollout records, with event records between them
// and, sometimes, a compaction whose replacement_history is a subset.
func (g *gen) codex() []byte {
	var b bytes.Buffer
	line := func(typ string, payload any) {
		b.Write(js(map[string]any{"timestamp": "2026-11-29T15:13:52.480Z", "type": typ, "payload": payload}))
		b.WriteByte('\n')
	}
	line("session_meta", map[string]any{"id": "s", "cli_version": "0.169.0", "base_instructions": map[string]any{"text": g.text(100)}})
	items := g.responsesItems()
	cut := -1
	if g.r.IntN(2) == 0 {
		cut = g.r.IntN(len(items))
	}
	for i, it := range items {
		if i == cut {
			var hist, meta []any
			for j := 0; j < i; j++ {
				m := items[j].(map[string]any)
				if m["type"] == "message" {
					hist = append(hist, m)
					meta = append(meta, map[string]any{"history_sequence": j})
				}
			}
			// Keep the compaction on a turn boundary: only messages survive it.
			if m := it.(map[string]any); m["type"] == "message" && m["role"] == "user" {
				line("compacted", map[string]any{"message": "summary", "replacement_history": hist, "replacement_history_metadata": meta})
				line("world_state", map[string]any{"full": true})
			}
		}
		line("response_item", it)
		if g.r.IntN(3) == 0 {
			line("event_msg", map[string]any{"type": "token_count", "info": nil})
		}
		if g.r.IntN(10) == 0 {
			line("some_future_record", map[string]any{"x": g.r.IntN(100)})
		}
	}
	return b.Bytes()
}

// TestPropertyRandom prunes random valid conversations in every format at
// random budgets and options, and checks every invariant.
func TestPropertyRandom(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 30
	}
	for _, f := range []Format{FormatChat, FormatAnthropic, FormatResponses, FormatCodex} {
		for seed := 0; seed < n; seed++ {
			g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 7))}
			var src []byte
			switch f {
			case FormatChat:
				src = g.chat()
			case FormatAnthropic:
				src = g.anthropic()
			case FormatResponses:
				src = g.responses()
			case FormatCodex:
				src = g.codex()
			}
			c, err := Parse(bytes.NewReader(src))
			if err != nil {
				t.Fatalf("%s seed %d: %v", f, seed, err)
			}
			if c.Format() != f {
				t.Fatalf("%s seed %d: detected %s", f, seed, c.Format())
			}
			if err := c.Validate(); err != nil {
				t.Fatalf("%s seed %d: generator made an invalid conversation: %v", f, seed, err)
			}
			opts := &Options{KeepLast: g.r.IntN(4) - 1, MaskAfter: g.r.IntN(7) - 1, MaxItem: []int{0, 50, 400}[g.r.IntN(3)]}
			s := newState(c, 1, counter(t), *opts)
			full, pinned := s.total(), s.pinnedTokens()
			limit := pinned + g.r.IntN(max(full-pinned, 1)+1)
			t.Run(fmt.Sprintf("%s/%d/%d", f, seed, limit), func(t *testing.T) {
				o := *opts
				o.Budget = limit
				res, err := Prune(c, counter(t), &o)
				if err != nil {
					t.Fatalf("full %d pinned %d: %v", full, pinned, err)
				}
				if errors.Is(err, ErrNoFit) {
					t.Fatal("ErrNoFit at or above the pinned size")
				}
				checkPruned(t, c, src, res, limit)
				if os.Getenv("HISTORY_DUMP") != "" {
					t.Logf("%s", encode(t, res.Conversation))
				}
			})
		}
	}
}
