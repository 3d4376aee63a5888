package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/budget"
	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/internal/testreq"
)

// leanStub answers every request with a short event stream, reading the
// body and nothing more: the upstream of the latency and throughput
// benchmarks, so that they measure the proxy, not the stub.
type leanStub struct{ events int }

func (s leanStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, _ := io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	for i := 0; i < s.events; i++ {
		fmt.Fprintf(w, "event: delta\ndata: {\"seq\":%d,\"bytes\":%d}\n\n", i, n)
		fl.Flush()
	}
}

// timed runs do b.N times and reports the p50 and p99 of its durations.
func timed(b *testing.B, do func()) {
	b.Helper()
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		do()
		ds = append(ds, time.Since(t0))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	q := func(p int) float64 { return float64(ds[(len(ds)-1)*p/100].Microseconds()) / 1000 }
	b.ReportMetric(q(50), "p50-ms")
	b.ReportMetric(q(99), "p99-ms")
}

func postAll(b *testing.B, client *http.Client, url string, body []byte) {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("status %d", resp.StatusCode)
	}
}

// BenchmarkLatency: one streamed Responses request at a time, straight to
// the stub and through the proxy (fits: forwarded unchanged; over the
// window: pruned to half), for a 1k- and a 100k-token request. Compare
// the p50-ms/p99-ms of the sub-benchmarks of one run.
func BenchmarkLatency(b *testing.B) {
	up := httptest.NewServer(leanStub{events: 5})
	defer up.Close()
	for _, size := range []struct {
		name         string
		steps, outTk int
	}{{"1k", 2, 400}, {"100k", 100, 1000}} {
		body := testreq.Agent{Format: string(history.FormatResponses), Model: "m", Steps: size.steps, OutTokens: size.outTk, Stream: true}.Body()
		n := tokensOf(b, history.FormatResponses, body)
		for _, mode := range []string{"direct", "proxy", "proxy-pruned"} {
			b.Run(size.name+"/"+mode, func(b *testing.B) {
				url := up.URL + "/v1/responses"
				if mode != "direct" {
					window := 10 * n
					if mode == "proxy-pruned" {
						window = n / 2
					}
					p, err := New(&Options{Upstream: up.URL, Resolve: fixedResolve(map[string]int{"m": window})})
					if err != nil {
						b.Fatal(err)
					}
					front := httptest.NewServer(p)
					defer front.Close()
					url = front.URL + "/v1/responses"
				}
				client := &http.Client{Transport: &http.Transport{}}
				b.SetBytes(int64(len(body)))
				timed(b, func() { postAll(b, client, url, body) })
				b.ReportMetric(float64(n), "tokens")
			})
		}
	}
}

// proxyChild is the environment variable that makes the test binary a
// proxy process (TestMain), for measuring the proxy's memory apart from
// the client and the stub.
const proxyChild = "CTXTRIM_PROXY_BENCH_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(proxyChild); spec != "" {
		os.Exit(runChild(spec))
	}
	os.Exit(m.Run())
}

// runChild serves a proxy on a free loopback port for upstream,window
// (spec), printing its address on stdout, until stdin closes.
func runChild(spec string) int {
	upstream, w, _ := strings.Cut(spec, ",")
	window, _ := strconv.Atoi(w)
	p, err := New(&Options{Upstream: upstream, Resolve: fixedResolve(map[string]int{"m": window})})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(ln.Addr())
	go http.Serve(ln, p)
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// rssKB reads a process's VmRSS or VmHWM (peak) in kB.
func rssKB(pid int, field string) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(n)
		}
	}
	return 0
}

// BenchmarkThroughput: 50 concurrent streams of 20 events, straight to
// the stub and through a proxy running in a process of its own, whose RSS
// (idle, and peak under the load) it reports. Each request is a 10k-token
// Responses request that fits; "pruned" ones are fitted to half.
func BenchmarkThroughput(b *testing.B) {
	const streams = 50
	up := httptest.NewServer(leanStub{events: 20})
	defer up.Close()
	body := testreq.Agent{Format: string(history.FormatResponses), Model: "m", Steps: 20, OutTokens: 450, Stream: true}.Body()
	n := tokensOf(b, history.FormatResponses, body)
	for _, mode := range []string{"direct", "proxy", "proxy-pruned"} {
		b.Run(mode, func(b *testing.B) {
			url := up.URL + "/v1/responses"
			var pid int
			if mode != "direct" {
				window := 10 * n
				if mode == "proxy-pruned" {
					window = n / 2
				}
				self, _ := os.Executable()
				cmd := exec.Command(self)
				cmd.Env = append(os.Environ(), proxyChild+"="+up.URL+","+strconv.Itoa(window))
				stdin, _ := cmd.StdinPipe()
				stdout, _ := cmd.StdoutPipe()
				cmd.Stderr = os.Stderr
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				defer func() { stdin.Close(); cmd.Wait() }()
				addr, err := bufio.NewReader(stdout).ReadString('\n')
				if err != nil {
					b.Fatal(err)
				}
				url = "http://" + strings.TrimSpace(addr) + "/v1/responses"
				pid = cmd.Process.Pid
			}
			idle := 0.0
			if pid != 0 {
				idle = rssKB(pid, "VmRSS") / 1024
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}}
			var left atomic.Int64
			left.Store(int64(b.N))
			b.ResetTimer()
			t0 := time.Now()
			var wg sync.WaitGroup
			for range streams {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for left.Add(-1) >= 0 {
						postAll(b, client, url, body)
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "req/s")
			if pid != 0 {
				b.ReportMetric(idle, "idle-rss-MB")
				b.ReportMetric(rssKB(pid, "VmHWM")/1024, "peak-rss-MB")
			}
		})
	}
}

// transcripts finds the shared transcripts: ../shared/eval/transcripts
// beside the checkout, or beside one of its ancestors (worktrees).
func transcripts(b *testing.B) string {
	wd, _ := os.Getwd()
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "eval", "transcripts")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(dir) == dir {
			b.Skip("no shared/eval/transcripts beside the checkout")
		}
	}
}

// replay is one transcript as the requests its client sent, turn by turn.
type replay struct {
	name   string
	format history.Format
	bodies [][]byte
}

// turns returns the request before each model turn: the items up to each
// assistant message (Chat) or model output (Responses).
func replays(b *testing.B) []replay {
	dir := transcripts(b)
	var out []replay
	chat, _ := filepath.Glob(filepath.Join(dir, "openai-chat", "*.json"))
	trajs, _ := filepath.Glob(filepath.Join(dir, "swe-agent", "*.traj"))
	for _, p := range append(chat, trajs...) {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(src, &top); err != nil {
			b.Fatal(err)
		}
		key := "messages"
		if top[key] == nil {
			key = "history"
		}
		var msgs []json.RawMessage
		json.Unmarshal(top[key], &msgs)
		r := replay{name: filepath.Base(p), format: history.FormatChat}
		for k := 1; k < len(msgs); k++ {
			var m struct{ Role string }
			json.Unmarshal(msgs[k], &m)
			if m.Role != "assistant" {
				continue
			}
			body := map[string]any{"model": "gpt-4o", "messages": msgs[:k]}
			if top["tools"] != nil {
				body["tools"] = top["tools"]
			}
			r.bodies = append(r.bodies, testreq.MustJSON(body))
		}
		out = append(out, r)
	}
	rollouts, _ := filepath.Glob(filepath.Join(dir, "codex-0.169", "*.jsonl"))
	for _, p := range rollouts {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		conv, err := history.ParseFormat(bytes.NewReader(src), history.FormatCodex)
		if err != nil {
			b.Fatal(err)
		}
		var meta struct {
			Payload struct {
				BaseInstructions struct{ Text string } `json:"base_instructions"`
			}
		}
		line, _, _ := bytes.Cut(src, []byte("\n"))
		json.Unmarshal(line, &meta)
		items := conv.Items()
		r := replay{name: strings.SplitN(filepath.Base(p), ".", 2)[0] + ".codex", format: history.FormatResponses}
		for k := 1; k < len(items); k++ {
			var it struct{ Type, Role string }
			json.Unmarshal(items[k], &it)
			prev := struct{ Type, Role string }{}
			json.Unmarshal(items[k-1], &prev)
			modelOut := it.Type == "reasoning" || it.Type == "function_call" || (it.Type == "message" && it.Role == "assistant")
			prevOut := prev.Type == "reasoning" || prev.Type == "function_call" || (prev.Type == "message" && prev.Role == "assistant")
			if !modelOut || prevOut {
				continue
			}
			r.bodies = append(r.bodies, testreq.MustJSON(map[string]any{"model": "gpt-5.5", "instructions": meta.Payload.BaseInstructions.Text, "input": items[:k], "store": false}))
		}
		out = append(out, r)
	}
	return out
}

// BenchmarkReplay replays the shared real transcripts turn by turn, with
// the window set to half of each transcript's last request, and reports
// what the stub measured (the window is raised above half where some
// request's pinned minimum needs more): the tokens sent straight (the unpruned requests,
// which the window would refuse from about half-way on) and through the
// proxy, and the prefix-cache hit ratio (cached tokens / tokens, the
// stub's segment accounting) unpruned, with the proxy's steps
// (Options.Step 0: limit/DefaultStepDivisor) and pruning just enough
// (Step −1). Run with -benchtime=1x: each iteration replays everything.
// REPLAY_DIV=N measures steps of window/N instead of the default;
// REPLAY_LOG=1 prints every request's figures and the proxy's log lines.
func BenchmarkReplay(b *testing.B) {
	for _, r := range replays(b) {
		if len(r.bodies) < 3 {
			continue
		}
		// Half the last request, or more when the pinned part of some
		// request (instructions, tools, latest user turn, last turns)
		// needs it.
		last := tokensOf(b, r.format, r.bodies[len(r.bodies)-1])
		window := last / 2
		c, _ := budget.NewEncodingCounter(budget.O200kBase)
		for _, body := range r.bodies {
			conv, err := history.ParseFormat(bytes.NewReader(body), r.format)
			if err != nil {
				b.Fatal(err)
			}
			res, err := history.Prune(conv, c, &history.Options{Budget: 1 << 30})
			if err != nil {
				b.Fatal(err)
			}
			window = max(window, res.Pinned*21/20)
		}
		b.Run(r.name, func(b *testing.B) {
			type outcome struct{ tokens, units, cached, refused int }
			run := func(step int, via bool, stickyBytes int64) outcome {
				s := newStub(nil)
				if via {
					s.windows = map[string]int{"gpt-4o": window, "gpt-5.5": window}
				}
				up := httptest.NewServer(s)
				defer up.Close()
				url := up.URL + pathOf(r.format)
				if via {
					p, err := New(&Options{Logf: func(f string, a ...any) {
						if os.Getenv("REPLAY_LOG") != "" {
							fmt.Fprintf(os.Stderr, f+"\n", a...)
						}
					}, Upstream: up.URL, Step: step, StickyBytes: stickyBytes, Resolve: fixedResolve(map[string]int{"gpt-4o": window, "gpt-5.5": window})})
					if err != nil {
						b.Fatal(err)
					}
					front := httptest.NewServer(p)
					defer front.Close()
					url = front.URL + pathOf(r.format)
				}
				for _, body := range r.bodies {
					resp, err := http.Post(url, "application/json", bytes.NewReader(body))
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				var o outcome
				for _, rec := range s.recs() {
					if os.Getenv("REPLAY_LOG") != "" {
						fmt.Fprintf(os.Stderr, "step %d via %v: %d tokens, %d/%d cached\n", step, via, rec.Tokens, rec.Cached, rec.Units)
					}
					if rec.Status != 200 {
						o.refused++
						continue
					}
					o.tokens += rec.Tokens
					o.units += rec.Units
					o.cached += rec.Cached
				}
				return o
			}
			var direct, proxied, steps, greedy outcome
			for b.Loop() {
				direct, proxied, steps, greedy = run(0, false, 0), run(0, true, 0), run(0, true, -1), run(-1, true, -1)
				if d, _ := strconv.Atoi(os.Getenv("REPLAY_DIV")); d > 0 {
					proxied, steps = run(window/d, true, 0), run(window/d, true, -1)
				}
			}
			ratio := func(o outcome) float64 { return 100 * float64(o.cached) / float64(max(o.units, 1)) }
			b.ReportMetric(float64(len(r.bodies)), "requests")
			b.ReportMetric(float64(window), "window")
			b.ReportMetric(float64(direct.tokens), "tok-direct")
			b.ReportMetric(float64(proxied.tokens), "tok-proxy")
			b.ReportMetric(float64(steps.tokens), "tok-steps")
			b.ReportMetric(float64(greedy.tokens), "tok-greedy")
			b.ReportMetric(ratio(direct), "hit%-direct")
			b.ReportMetric(ratio(proxied), "hit%-proxy")
			b.ReportMetric(ratio(steps), "hit%-steps")
			b.ReportMetric(ratio(greedy), "hit%-greedy")
			if n := proxied.refused + steps.refused + greedy.refused; n > 0 {
				b.Errorf("the stub refused %d requests through the proxy", n)
			}
		})
	}
}

var _ = context.Background
var _ = budget.O200kBase
