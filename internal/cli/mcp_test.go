package cli

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"

	"github.com/ctxtrim/ctxtrim/internal/txtartest"
)

// TestMCPCommand runs "ctxtrim mcp" through Run on pipes, as a client
// would over stdio: initialize, list the tools, one call, then the client
// disconnects and the command exits 0.
func TestMCPCommand(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := txtartest.Repo(t, txtar.Parse([]byte(selectRepo)))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &syncWriter{w: &strings.Builder{}}
	done := make(chan int, 1)
	go func() {
		code := Run([]string{"mcp", "-C", dir}, inR, outW, stderr)
		outW.Close()
		done <- code
	}()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 5 {
		t.Errorf("%d tools, want 5", len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "select_context", Arguments: map[string]any{"task": "retry on 503 loses the request body", "budget": 500}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(b), `"path":"retry/retry.go"`) {
		t.Errorf("select_context: error %v, %s", res.IsError, b)
	}
	cs.Close()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d after the client disconnected, want 0; stderr:\n%s", code, stderr.String())
		}
	case <-ctx.Done():
		t.Fatal("ctxtrim mcp did not exit after the client disconnected")
	}
	if !strings.Contains(stderr.String(), "ctxtrim mcp: ") {
		t.Errorf("no diagnostics on stderr: %q", stderr.String())
	}
}

// syncWriter serializes writes: the server logs from its goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.(*strings.Builder).String()
}
