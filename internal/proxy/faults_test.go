package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxtrim/ctxtrim/history"
	"github.com/ctxtrim/ctxtrim/internal/testreq"
)

// 200 concurrent streams through the proxy: every answer complete, in
// order, and for its own request.
func TestConcurrentStreams(t *testing.T) {
	const n = 200
	s := newStub(map[string]int{"m": 4000})
	s.events, s.eventGap, s.eventSize = 20, time.Millisecond, 100
	r := newRig(t, s, Options{Resolve: fixedResolve(map[string]int{"m": 4000})})
	tr := &http.Transport{MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			f := formats[i%len(formats)]
			// A third of them need pruning.
			steps := 2 + i%3*8
			body := testreq.Agent{Format: string(f), Model: "m", Steps: steps, OutTokens: 250, Stream: true, Secret: fmt.Sprint(i)}.Body()
			resp, err := client.Post(r.front.URL+pathOf(f), "application/json", bytes.NewReader(body))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 {
				errs <- fmt.Errorf("request %d: status %d, %v", i, resp.StatusCode, err)
				return
			}
			ev := sseEvents(b)
			if len(ev) != s.events+1 {
				errs <- fmt.Errorf("request %d: %d events, want %d", i, len(ev), s.events+1)
				return
			}
			var first struct{ Hash string }
			json.Unmarshal([]byte(ev[0]), &first)
			for k, e := range ev {
				var d struct {
					Seq  int
					Hash string
				}
				if err := json.Unmarshal([]byte(e), &d); err != nil || d.Seq != k || d.Hash != first.Hash {
					errs <- fmt.Errorf("request %d: event %d corrupted: %.80s", i, k, e)
					return
				}
			}
			if steps == 2 && first.Hash != bodyHash(body) {
				errs <- fmt.Errorf("request %d: answered for another body", i)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	recs := s.recs()
	if len(recs) != n {
		t.Errorf("the upstream saw %d requests, want %d", len(recs), n)
	}
	for _, rec := range recs {
		if rec.Status != 200 {
			t.Errorf("upstream answered %d: %+v", rec.Status, rec)
			break
		}
	}
}

// streamFrom starts a streamed request with a fault and returns the
// response, or the error of the round trip.
func streamFrom(t *testing.T, r *rig, ctx context.Context, fault string) (*http.Response, error) {
	t.Helper()
	body := testreq.Agent{Format: string(history.FormatResponses), Model: "m", Steps: 2, OutTokens: 50, Stream: true}.Body()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.front.URL+"/v1/responses", bytes.NewReader(body))
	req.Header.Set("X-Stub-Fault", fault)
	return r.front.Client().Do(req)
}

// waitFor polls cond for up to five seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestUpstreamFaults(t *testing.T) {
	for _, tc := range []struct {
		fault string
		// status the client gets (0: the round trip itself fails), and
		// whether reading the body fails (a truncated stream must not
		// look complete).
		status  int
		bodyErr bool
	}{
		{"close-mid", 200, true},
		{"reset-mid", 200, true},
		{"reset", http.StatusBadGateway, false},
		{"500", 500, false},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			s := newStub(nil)
			s.events = 10
			r := newRig(t, s, Options{Resolve: fixedResolve(map[string]int{"m": 100000})})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			resp, err := streamFrom(t, r, ctx, tc.fault)
			if err != nil {
				t.Fatalf("round trip: %v", err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || (err != nil) != tc.bodyErr {
				t.Fatalf("got status %d, body error %v; want %d, error %v (body %.200s)", resp.StatusCode, err, tc.status, tc.bodyErr, b)
			}
			if tc.bodyErr && strings.Contains(string(b), `"seq":10`) {
				t.Errorf("a truncated stream reached its end event")
			}
			// The proxy still serves.
			st, _, _ := r.post(t, "/v1/responses", testreq.Agent{Format: string(history.FormatResponses), Model: "m", Steps: 1}.Body(), nil)
			if st != 200 {
				t.Errorf("after the fault the proxy answers %d", st)
			}
			waitFor(t, "the log line", func() bool { return strings.Count(r.log.String(), "\n") >= 1 })
			if tc.status == http.StatusBadGateway && !strings.Contains(r.log.String(), "status=502") {
				t.Errorf("log: %s", r.log)
			}
		})
	}
}

// A client that gives up (a stalled upstream, or no patience) cancels the
// upstream request.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	for _, fault := range []string{"stall", "stall-mid"} {
		t.Run(fault, func(t *testing.T) {
			s := newStub(nil)
			r := newRig(t, s, Options{Resolve: fixedResolve(map[string]int{"m": 100000})})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				resp, err := streamFrom(t, r, ctx, fault)
				if err == nil {
					br := bufio.NewReader(resp.Body)
					_, err = br.ReadString('\n') // the first event line arrives unbuffered
					if err == nil {
						_, err = io.ReadAll(br)
					}
					resp.Body.Close()
				}
				done <- err
			}()
			if fault == "stall-mid" {
				// Wait for the stream to have started.
				time.Sleep(100 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("client: %v, want context.Canceled", err)
			}
			waitFor(t, "the upstream handler to see the cancellation", func() bool {
				recs := s.recs()
				return len(recs) == 1 && recs[0].Canceled
			})
		})
	}
}

// The first event of a stream reaches the client before the upstream has
// sent the rest: the proxy does not buffer. The upstream holds the rest
// until the client has read the first event, so a buffering proxy would
// deliver nothing until the test's deadline, whatever the machine's load.
func TestStreamNotBuffered(t *testing.T) {
	s := newStub(nil)
	s.events, s.hold = 3, make(chan struct{})
	r := newRig(t, s, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer close(s.hold)
	resp, err := streamFrom(t, r, ctx, "")
	if err != nil {
		t.Fatalf("%v: the stream was buffered", err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "event:") {
		t.Fatalf("first line %q: %v (a deadline here: the stream was buffered)", line, err)
	}
}

// A slow client gets every byte of a large stream, and the proxy holds it
// back instead of buffering it: the upstream is still writing while the
// client reads.
func TestSlowClient(t *testing.T) {
	s := newStub(nil)
	s.events, s.eventSize = 400, 64<<10 // 25 MiB in all
	r := newRig(t, s, Options{})
	resp, err := streamFrom(t, r, context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got int64
	upstreamDoneEarly := false
	buf := make([]byte, 256<<10)
	for i := 0; ; i++ {
		n, err := resp.Body.Read(buf)
		got += int64(n)
		if i < 20 {
			time.Sleep(20 * time.Millisecond)
			// Halfway through the slow part, the upstream must still be
			// writing: a proxy that buffered would have taken it all.
			if i == 10 && len(s.recs()) > 0 {
				upstreamDoneEarly = true
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := int64(400 * (64<<10 + 100)); got < want {
		t.Errorf("got %d bytes, want more than %d", got, want)
	}
	if upstreamDoneEarly {
		t.Errorf("the upstream finished while the client had read %d bytes: the proxy buffered the stream", got)
	}
}

// An upstream the proxy cannot reach gets 502 with the provider's
// server-error type, which SDKs retry (invalid_request_error they do not).
func TestUnreachableUpstreamType(t *testing.T) {
	for _, tc := range []struct {
		f        history.Format
		wantType string
	}{
		{history.FormatResponses, "server_error"},
		{history.FormatChat, "server_error"},
		{history.FormatAnthropic, "api_error"},
	} {
		t.Run(string(tc.f), func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close() // nothing listens there now
			p, err := New(&Options{Upstream: "http://" + addr, Resolve: fixedResolve(map[string]int{"m": 100000})})
			if err != nil {
				t.Fatal(err)
			}
			front := httptest.NewServer(p)
			defer front.Close()
			body := testreq.Agent{Format: string(tc.f), Model: "m", Steps: 1}.Body()
			resp, err := http.Post(front.URL+pathOf(tc.f), "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e struct {
				Error struct{ Type string } `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusBadGateway || e.Error.Type != tc.wantType {
				t.Errorf("status %d, type %q; want 502 and %q", resp.StatusCode, e.Error.Type, tc.wantType)
			}
		})
	}
}
