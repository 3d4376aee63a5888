package cli

import (
	"bytes"
	"context"
	"fmt"
	"github.com/ctxtrim/ctxtrim/budget"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestProxyUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no upstream", nil, "-upstream URL is required"},
		{"remote listen", []string{"-upstream", "http://127.0.0.1:1", "-listen", "0.0.0.0:7878"}, "-allow-remote"},
		{"all interfaces", []string{"-upstream", "http://127.0.0.1:1", "-listen", ":7878"}, "every interface"},
		{"bad fallback", []string{"-upstream", "http://127.0.0.1:1", "-fallback", "gpt-5"}, "want MODEL=BACKUP"},
		{"fallback twice", []string{"-upstream", "http://127.0.0.1:1", "-fallback", "a=b", "-fallback", "A=c"}, "already has backups"},
		{"arguments", []string{"-upstream", "http://127.0.0.1:1", "extra"}, "takes no arguments"},
		{"from-error", []string{"-upstream", "http://127.0.0.1:1", "-from-error", "x"}, "-from-error does not apply"},
		{"unknown model", []string{"-upstream", "http://127.0.0.1:1", "-model", "gpt-9"}, `unknown model "gpt-9"`},
		{"budget with reserve", []string{"-upstream", "http://127.0.0.1:1", "-budget", "10", "-reserve", "5"}, "-budget is the input limit itself"},
		{"max-body", []string{"-upstream", "http://127.0.0.1:1", "-max-body", "0"}, "-max-body must be positive"},
		{"bad upstream", []string{"-upstream", "api.openai.com"}, "want an http:// or https:// URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(append([]string{"proxy"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), exitUsage, tc.want)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The command serves, fits with the configuration's model rows, logs one
// line per request and stops when its context ends.
func TestProxyServes(t *testing.T) {
	var mu sync.Mutex
	var got []int
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, len(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}))
	defer up.Close()
	cfg := filepath.Join(t.TempDir(), "proxy.toml")
	os.WriteFile(cfg, []byte("[models.\"tiny-model\"]\nfamily = \"openai\"\nwindow = 2000\nmax_output = 100\n"), 0o644)
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &syncBuffer{}}
	po, err := parseProxy(e, []string{"-upstream", up.URL + "/v1", "-listen", "127.0.0.1:0", "-config", cfg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serveProxy(ctx, e, po, ready) }()
	addr := <-ready
	var msgs []string
	for i := 0; i < 60; i++ {
		msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":"question %d: %s"}`, i, strings.Repeat("word ", 40)),
			`{"role":"assistant","content":"answer"}`)
	}
	msgs = append(msgs, `{"role":"user","content":"last question"}`)
	body := `{"model":"tiny-model","messages":[` + strings.Join(msgs, ",") + `]}`
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	ans, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(ans) != `{"ok":true}` {
		t.Fatalf("answer %d %s", resp.StatusCode, ans)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(shutdownGrace + 5*time.Second):
		t.Fatal("the proxy did not stop")
	}
	log := e.stderr.(*syncBuffer).String()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] >= len(body) {
		t.Errorf("the upstream got %v bytes; want one pruned request under %d", got, len(body))
	}
	// window 2000 − reserve 100 (max output) − margin 40 (2%).
	for _, want := range []string{"proxy listening on http://127.0.0.1:", "model=tiny-model tokens=", "limit=1860", `pruned="drop`, "status=200", "proxy stopped"} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
}

func TestProxyResolve(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		model   string
		window  int // a learned window
		want    int // target window
		reserve int
		err     string
	}{
		{"table", nil, "gpt-4o", 0, 128000, 16384, ""},
		// A learned window reserves an eighth of itself
		// (budget.LearnedReserveDivisor), or the model's default when
		// that is smaller.
		{"learned window", nil, "gpt-4o", 64000, 64000, 64000 / budget.LearnedReserveDivisor, ""},
		{"learned window under twice the max output", nil, "gpt-4o", 32000, 32000, 32000 / budget.LearnedReserveDivisor, ""},
		{"a large learned window: an eighth, below the max output", nil, "gpt-4o", 127000, 127000, 127000 / budget.LearnedReserveDivisor, ""},
		{"learned window of a small-output model", nil, "gpt-4", 8000, 8000, 8000 / budget.LearnedReserveDivisor, ""},
		{"-window replaces a table model's window", []string{"-window", "24000"}, "gpt-4o", 0, 24000, 6000, ""},
		{"a smaller learned window beats -window", []string{"-window", "24000"}, "gpt-4o", 16000, 16000, 16000 / budget.LearnedReserveDivisor, ""},
		{"-reserve wins over the learned default", []string{"-reserve", "1000"}, "gpt-4o", 16000, 16000, 1000, ""},
		{"unknown", nil, "my-llama", 0, 0, 0, "unknown model"},
		{"unknown with -window: its max output unknown, a quarter", []string{"-window", "8192"}, "my-llama", 0, 8192, 8192 / 4, ""},
		{"unknown with -model", []string{"-model", "gpt-4o"}, "my-llama", 0, 128000, 16384, ""},
		{"-reserve", []string{"-reserve", "1000"}, "gpt-4o", 0, 128000, 1000, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
			po, err := parseProxy(e, append([]string{"-upstream", "http://127.0.0.1:1", "-config", os.DevNull}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			tg, err := po.opts.Resolve(tc.model, tc.window)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("want an error with %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil || tg.Window != tc.want || tg.Reserve != tc.reserve || tg.Counter == nil {
				t.Errorf("got window %d reserve %d (%v), want %d and %d", tg.Window, tg.Reserve, err, tc.want, tc.reserve)
			}
		})
	}
}
