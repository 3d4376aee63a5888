package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
)

// proxyListeningRE finds the address "ctxtrim proxy" serves on in its log.
var proxyListeningRE = regexp.MustCompile(`proxy listening on (http://127\.0\.0\.1:[0-9]+)`)

// startProxy runs "ctxtrim proxy -listen 127.0.0.1:0 -upstream upstream"
// until the test ends and returns its base URL and a function returning
// its log so far.
func startProxy(t *testing.T, ctxtrim, upstream string) (base string, log func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, ctxtrim, "proxy", "-listen", "127.0.0.1:0", "-upstream", upstream)
	cmd.WaitDelay = 5 * time.Second
	var mu sync.Mutex
	var buf bytes.Buffer
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			buf.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := proxyListeningRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	t.Cleanup(func() { cancel(); cmd.Wait() })
	log = func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
	select {
	case base = <-found:
	case <-time.After(time.Minute):
		t.Fatalf("the proxy did not start within a minute:\n%s", log())
	}
	if base == "" {
		t.Fatalf("the proxy exited before listening:\n%s", log())
	}
	return base, log
}

// TestProxyChatOverflow sends a growing Chat Completions conversation with
// tool calls through "ctxtrim proxy -upstream …" to the stub, which serves
// the model with an 8k window and states it in its overflow error, in
// OpenAI's wording or in vLLM's (which also counts the requested
// completion against the window). The first request, over the window, is
// refused once and re-fitted to the stated window; the next, larger still,
// is fitted before it is sent, from the window the proxy learnt; every
// request that reaches the stub is valid. The stub runs in this process
// and the proxy on loopback: no client CLI is involved.
func TestProxyChatOverflow(t *testing.T) {
	needE2E(t)
	t.Parallel()
	ctxtrim := ctxtrimBinary(t)
	counter, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	const model, window = "gpt-4.1", 8000
	for _, wording := range []string{"openai", "vllm"} {
		t.Run(wording, func(t *testing.T) {
			t.Parallel()
			spec := fmt.Sprintf("%s=%d", model, window)
			if wording == "vllm" {
				spec += ":vllm"
			}
			dump := t.TempDir()
			var stubLog syncBuffer
			stub, err := newStubWith(1<<20, &stubLog, spec, dump, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(stub)
			defer srv.Close()
			base, proxyLog := startProxy(t, ctxtrim, srv.URL+"/v1")

			// A conversation of rounds: the user asks, the assistant calls
			// a tool, the tool answers with a log of about 1.5k tokens.
			msgs := []map[string]any{{"role": "system", "content": "You answer questions about logs."}}
			round := func(i int) {
				id := fmt.Sprintf("call_r%d", i)
				msgs = append(msgs,
					map[string]any{"role": "user", "content": fmt.Sprintf("Which worker is slowest in log %d?", i)},
					map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
						"id": id, "type": "function", "function": map[string]any{"name": "read_log", "arguments": fmt.Sprintf(`{"n":%d}`, i)}}}},
					map[string]any{"role": "tool", "tool_call_id": id, "content": serverLog(counter, i, 1500)},
					map[string]any{"role": "assistant", "content": fmt.Sprintf("Worker %d.", i)})
			}
			send := func(last string) (int, string) {
				body, _ := json.Marshal(map[string]any{"model": model, "max_tokens": 500,
					"messages": append(append([]map[string]any{}, msgs...), map[string]any{"role": "user", "content": last}),
					"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "read_log",
						"parameters": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}}}})
				req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+proxyKey)
				resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			for i := 1; i <= 6; i++ {
				round(i)
			}
			status1, body1 := send("Summarise the six logs in one line.")
			round(7)
			status2, body2 := send("And now the seven?")
			recs, err := parseStubLog(stubLog.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("proxy log:\n%s", proxyLog())
			t.Logf("stub: %s", summarize(recs))
			if status1 != 200 || status2 != 200 {
				t.Fatalf("want both answered: %d %.300s; %d %.300s", status1, body1, status2, body2)
			}
			for _, r := range recs {
				if r.Invalid != "" {
					t.Errorf("request %d is invalid: %s", r.N, r.Invalid)
				}
			}
			// Request 1 refused and re-fitted; request 2 fitted at once.
			if len(recs) != 3 || recs[0].Status != 400 || recs[1].Status != 200 || recs[2].Status != 200 {
				t.Errorf("want [400 200 200] at the stub (one overflow, its retry, then a request fitted before it is sent): %s", summarize(recs))
			}
			for _, r := range recs[min(1, len(recs)):] {
				if r.Tokens+500 > window {
					t.Errorf("request %d: %d tokens + max_tokens 500 > window %d", r.N, r.Tokens, window)
				}
			}
			if !strings.Contains(proxyLog(), fmt.Sprintf("window %d", window)) {
				t.Errorf("the proxy log does not show the stated window %d", window)
			}
			if _, err := os.Stat(filepath.Join(dump, "request-1.json")); err != nil {
				t.Errorf("the stub kept no body: %v", err)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the stub's handlers to write while
// the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Bytes returns a copy of what was written so far.
func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}
