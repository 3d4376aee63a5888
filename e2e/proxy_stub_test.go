package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxtrim/ctxtrim/budget"
)

// stubModelsEnv gives the stub a behaviour per model, for the proxy tests:
// "MODEL=WINDOW" serves the model with that window, "MODEL=capacity"
// answers it with the capacity error Codex's backend sends (HTTP 503,
// "Selected model is at capacity"); several are separated by ";". A model
// not listed gets the stub's window. Unset, the stub is the plain one.
const stubModelsEnv = "CTXTRIM_E2E_STUB_MODELS"

// stubHandler is the handler netnsHelper serves: the plain stubServer, or
// per model (stubModelsEnv) a stubServer of the model's window or a
// capacity failure, all logging to log.
func stubHandler(window int, c budget.Counter, log io.Writer) (http.Handler, error) {
	spec := os.Getenv(stubModelsEnv)
	if spec == "" {
		return &stubServer{window: window, counter: c, log: log}, nil
	}
	lw := &lockedWriter{w: log}
	h := &modelStub{byModel: map[string]*stubServer{}, capacity: map[string]bool{}, log: lw,
		other: &stubServer{window: window, counter: c, log: lw}}
	for _, kv := range strings.Split(spec, ";") {
		model, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%s: %q: want MODEL=WINDOW or MODEL=capacity", stubModelsEnv, kv)
		}
		if v == "capacity" {
			h.capacity[model] = true
			continue
		}
		w, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %v", stubModelsEnv, kv, err)
		}
		h.byModel[model] = &stubServer{window: w, counter: c, log: lw}
	}
	return h, nil
}

// lockedWriter serialises the log lines of several stubServers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type modelStub struct {
	byModel  map[string]*stubServer
	capacity map[string]bool
	other    *stubServer
	log      io.Writer
}

func (m *modelStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body, &req)
	if m.capacity[req.Model] {
		b, _ := json.Marshal(stubRecord{Path: r.URL.Path, Status: http.StatusServiceUnavailable, Model: req.Model, BodyBytes: len(body)})
		fmt.Fprintf(m.log, "%s\n", b)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"Selected model is at capacity. Please try a different model.","type":"server_error","code":"server_is_overloaded"}}`)
		return
	}
	s := m.byModel[req.Model]
	if s == nil {
		s = m.other
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.ServeHTTP(w, r)
}
