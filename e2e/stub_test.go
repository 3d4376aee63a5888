package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxtrim/ctxtrim/budget"
)

// stubServer is the model server the tests run their clients against, on
// the namespace's loopback. It speaks the APIs the clients and the proxy
// use: the Responses API the way Codex uses it (POST …/responses with
// stream=true, answered with server-sent events; serveResponses), Chat
// Completions (stub_chat_test.go) and Anthropic's Messages API the way
// Claude Code uses it (stub_messages_test.go). It must be no kinder than
// the real APIs, or a test passes where a real session fails: it enforces
// a context window, per model if stubModelsEnv says so, answering an
// overflow with the provider's own error (and its wording: the Responses
// API states no window at all), and it refuses, with the provider's own
// 400, a request the real API would refuse as malformed (a tool output
// without its call, a call without its output: validResponsesInput,
// validMessages, validChat). It can play a model that calls tools
// (stubScriptEnv); every request is logged as one JSON line (stubRecord),
// so tests can measure what the client sent.
//
// Token counting, for the Responses API: o200k_base over the text the
// model would read — instructions, every input item's text (message
// content, function call arguments and outputs, reasoning summaries) and
// the tool definitions as JSON (the request's "tools", or the
// "additional_tools" input item newer Codex models get) — plus a per-item
// overhead of stubItemOverhead tokens, like OpenAI's per-message overhead.
type stubServer struct {
	window   int               // the window of a model models does not name
	models   map[string]int    // windows per model (stubModelsEnv)
	wording  map[string]string // overflow wording per model: "" (the API's own) or "vllm"
	capacity map[string]bool   // models answered "at capacity" (stubModelsEnv)
	counter  budget.Counter    // o200k_base, for the Responses API
	claude   budget.Counter    // the claude family's estimate, for the Messages API
	script   []stubTurn        // replies to the first requests, in order
	each     *stubEachTurn     // the reply to every user message, after the script
	dump     string            // where request bodies are kept (stubDumpEnv); "" keeps none
	mu       sync.Mutex        // serialises log lines
	log      io.Writer
	n        atomic.Int64 // requests, numbering records and dumps
	toolN    atomic.Int64 // Messages requests that offer tools, accepted
	okN      atomic.Int64 // Responses and Chat requests accepted
}

// stubModelsEnv gives the stub a behaviour per model, for the proxy tests:
// "MODEL=WINDOW" serves the model with that window, "MODEL=WINDOW:vllm"
// too but answers an overflow on the OpenAI routes with vLLM's wording and
// body (vllmOverflow) instead of OpenAI's, "MODEL=capacity" answers it on
// the Responses API with the capacity error Codex's backend sends (HTTP
// 503, "Selected model is at capacity"); several are separated by ";". A
// model not listed gets the stub's window and the API's own wording.
const stubModelsEnv = "CTXTRIM_E2E_STUB_MODELS"

// newStub returns the stub netnsHelper serves: window tokens for every
// model stubModelsEnv does not name, the script of stubScriptEnv, records
// logged to log.
func newStub(window int, log io.Writer) (*stubServer, error) {
	script, err := loadStubScript()
	if err != nil {
		return nil, err
	}
	each, err := loadStubEachTurn()
	if err != nil {
		return nil, err
	}
	return newStubWith(window, log, os.Getenv(stubModelsEnv), os.Getenv(stubDumpEnv), script, each)
}

// newStubWith returns a stub configured by its arguments rather than the
// environment (for tests that run it in-process, in parallel): models as
// stubModelsEnv says, request bodies kept in dump (none when ""), script
// and each as stubScriptEnv and stubEachTurnEnv name.
func newStubWith(window int, log io.Writer, models, dump string, script []stubTurn, each *stubEachTurn) (*stubServer, error) {
	c, err := budget.NewEncodingCounter(budget.O200kBase)
	if err != nil {
		return nil, err
	}
	// Claude's tokenizer is not public: the stub counts as ctxtrim
	// estimates it (o200k_base × the claude family's factor), so that its
	// window means what the proxy's table means.
	cc, err := budget.NewCounter("claude-sonnet-4-5")
	if err != nil {
		return nil, err
	}
	s := &stubServer{window: window, models: map[string]int{}, wording: map[string]string{}, capacity: map[string]bool{},
		counter: c, claude: cc, script: script, each: each, dump: dump, log: log}
	if models != "" {
		for _, kv := range strings.Split(models, ";") {
			model, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("%s: %q: want MODEL=WINDOW, MODEL=WINDOW:vllm or MODEL=capacity", stubModelsEnv, kv)
			}
			if v == "capacity" {
				s.capacity[model] = true
				continue
			}
			v, wording, _ := strings.Cut(v, ":")
			if wording != "" && wording != "vllm" {
				return nil, fmt.Errorf("%s: %q: unknown wording %q (known: vllm)", stubModelsEnv, kv, wording)
			}
			w, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %v", stubModelsEnv, kv, err)
			}
			s.models[model], s.wording[model] = w, wording
		}
	}
	return s, nil
}

// windowOf is the window the stub serves model with.
func (s *stubServer) windowOf(model string) int {
	if w, ok := s.models[model]; ok {
		return w
	}
	return s.window
}

// stubScriptEnv names a JSON file holding a []stubTurn: the stub's replies
// to its first accepted requests, in order, instead of its text answer;
// after the script it answers with text as usual. A refused request (an
// overflow, an invalid history) was never answered, so it does not use up
// the script: the retry of it gets the reply it would have got.
const stubScriptEnv = "CTXTRIM_E2E_STUB_SCRIPT"

// stubTurn is one scripted reply: a tool call as a model would make it.
type stubTurn struct {
	// ToolSearch answers with a call of the client's tool search for this
	// query: Codex's tool_search (executed by Codex) and Claude Code's
	// ToolSearch ("select:NAME") both defer MCP tools behind one.
	ToolSearch string `json:"tool_search,omitempty"`
	// Call answers with a call of the tool whose name ends with Call, as
	// the request offers it (in its tools, or in a namespace an earlier
	// tool search returned), with Arguments.
	Call      string          `json:"call,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// loadStubScript reads the script named by stubScriptEnv, if any.
func loadStubScript() ([]stubTurn, error) {
	p := os.Getenv(stubScriptEnv)
	if p == "" {
		return nil, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var script []stubTurn
	if err := json.Unmarshal(data, &script); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return script, nil
}

// stubEachTurnEnv names a JSON file holding a stubEachTurn: the stub then
// plays a model that answers every user message with one tool call and
// the call's output with text, turn after turn, for the long sessions.
const stubEachTurnEnv = "CTXTRIM_E2E_STUB_EACH_TURN"

// stubEachTurn is the tool call the stub answers each user message with
// (once the script, if any, is used up): Call and Arguments as in
// stubTurn, with "$ARG" in Arguments replaced by the last match of
// ArgPattern in the user's message, so that each turn's prompt names what
// its call reads.
type stubEachTurn struct {
	Call       string          `json:"call"`
	Arguments  json.RawMessage `json:"arguments"`
	ArgPattern string          `json:"arg_pattern"`
	re         *regexp.Regexp
}

// loadStubEachTurn reads the stubEachTurn named by stubEachTurnEnv, if any.
func loadStubEachTurn() (*stubEachTurn, error) {
	p := os.Getenv(stubEachTurnEnv)
	if p == "" {
		return nil, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var e stubEachTurn
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if e.re, err = regexp.Compile(e.ArgPattern); err != nil {
		return nil, fmt.Errorf("%s: arg_pattern: %w", p, err)
	}
	return &e, nil
}

// eachTurnCall is the tool call answering a user message of text, or nil
// when the stub plays no such model.
func (s *stubServer) eachTurnCall(text string) *stubTurn {
	if s.each == nil {
		return nil
	}
	var arg string
	if m := s.each.re.FindAllString(text, -1); len(m) > 0 {
		arg = m[len(m)-1]
	}
	q, _ := json.Marshal(arg)
	args := strings.ReplaceAll(string(s.each.Arguments), "$ARG", string(q[1:len(q)-1]))
	return &stubTurn{Call: s.each.Call, Arguments: json.RawMessage(args)}
}

// turn returns the scripted reply to the n-th accepted request (1-based),
// or nil.
func (s *stubServer) turn(n int64) *stubTurn {
	if n < 1 || n > int64(len(s.script)) {
		return nil
	}
	return &s.script[n-1]
}

// stubDumpEnv names a directory where the stub writes every request body
// (request-N.json, its path logged as the record's Dump), for tests that
// look at what the model read and for debugging.
const stubDumpEnv = "CTXTRIM_E2E_STUB_DUMP"

// stubItemOverhead is the per-item framing cost the stub adds (OpenAI
// documents 3 tokens per chat message).
const stubItemOverhead = 3

// stubRecord is one logged request.
type stubRecord struct {
	N                  int64          `json:"n"`
	Path               string         `json:"path"`
	Status             int            `json:"status"`
	Tokens             int            `json:"tokens"`
	InstructionsTokens int            `json:"instructions_tokens"`
	ToolsTokens        int            `json:"tools_tokens"`
	Tools              int            `json:"tools"`
	Items              []stubItemInfo `json:"items"`
	BodyBytes          int            `json:"body_bytes"`
	Model              string         `json:"model"`
	// LastUserText is the text of the last user message, to identify
	// which request is which.
	LastUserText string `json:"last_user_text"`
	// Dump is the file holding the request body, when the stub was told
	// to keep bodies (stubDumpEnv).
	Dump string `json:"dump,omitempty"`
	// Reply is the scripted tool call the stub answered with, if any.
	Reply string `json:"reply,omitempty"`
	// Invalid is the error message of a request refused as malformed (its
	// tool calls and outputs unpaired, …), as the real API words it; ""
	// for a valid request. An overflow is not a validation failure.
	Invalid string `json:"invalid,omitempty"`
}

type stubItemInfo struct {
	Type   string `json:"type"`
	Role   string `json:"role,omitempty"`
	Tokens int    `json:"tokens"`
	Head   string `json:"head"` // first 80 bytes of its text
}

// newItemInfo describes an item of text counted as n tokens.
func newItemInfo(typ, role, text string, n int) stubItemInfo {
	return stubItemInfo{Type: typ, Role: role, Tokens: n, Head: text[:min(len(text), 80)]}
}

// ServeHTTP numbers, dumps and logs every request, and hands it to the API
// its path names.
func (s *stubServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := stubRecord{N: s.n.Add(1), Path: r.URL.Path, BodyBytes: len(body)}
	if dir := s.dump; dir != "" {
		rec.Dump = filepath.Join(dir, fmt.Sprintf("request-%d.json", rec.N))
		if err := os.WriteFile(rec.Dump, body, 0o644); err != nil {
			rec.Dump = ""
		}
	}
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		b, _ := json.Marshal(rec)
		fmt.Fprintf(s.log, "%s\n", b)
	}()
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && (p == "/v1/messages" || p == "/v1/messages/count_tokens"):
		s.serveMessages(w, r, body, &rec)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		s.serveResponses(w, body, &rec)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
		s.serveChat(w, body, &rec)
	default:
		rec.Status = http.StatusNotFound
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
	}
}

// serveResponses answers the Responses API: the capacity error for a model
// stubModelsEnv says is at capacity, the validation error for an input
// whose tool calls and outputs are not paired (validResponsesInput), the
// overflow error for an input over the model's window (responsesOverflow:
// it states no window), else the scripted tool call or a text that says
// what the stub counted.
func (s *stubServer) serveResponses(w http.ResponseWriter, body []byte, rec *stubRecord) {
	var req struct {
		Model        string            `json:"model"`
		Instructions string            `json:"instructions"`
		Input        []json.RawMessage `json:"input"`
		Tools        []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		rec.Status = http.StatusBadRequest
		writeOpenAIError(w, http.StatusBadRequest, "could not parse the JSON body: "+err.Error(), "", nil)
		return
	}
	rec.Model = req.Model
	if s.capacity[req.Model] {
		rec.Status = http.StatusServiceUnavailable
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"Selected model is at capacity. Please try a different model.","type":"server_error","code":"server_is_overloaded"}}`)
		return
	}
	if msg := validResponsesInput(req.Input); msg != "" {
		rec.Status, rec.Invalid = http.StatusBadRequest, msg
		writeOpenAIError(w, http.StatusBadRequest, msg, "input", nil)
		return
	}
	window := s.windowOf(req.Model)
	rec.InstructionsTokens = s.counter.Count(req.Instructions)
	rec.Tools = len(req.Tools)
	for _, t := range req.Tools {
		rec.ToolsTokens += s.counter.Count(string(t))
	}
	rec.Tokens = rec.InstructionsTokens + rec.ToolsTokens
	for _, raw := range req.Input {
		it := itemInfo(raw, s.counter)
		rec.Items = append(rec.Items, it.info)
		rec.Tokens += it.info.Tokens
		if it.info.Type == "message" && it.info.Role == "user" {
			rec.LastUserText = it.text
		}
	}
	if rec.Tokens > window {
		rec.Status = http.StatusBadRequest
		if s.wording[req.Model] == "vllm" {
			vllmOverflow(w, window, rec.Tokens, 0)
			return
		}
		// OpenAI's Responses API, verbatim (the-open-agent/openagent#2344
		// quotes it): unlike Chat Completions it states neither the window
		// nor the size of the input, so a client or proxy must learn the
		// window from the sizes refused and accepted.
		writeOpenAIError(w, http.StatusBadRequest, responsesOverflow, "input", "context_length_exceeded")
		return
	}
	rec.Status = http.StatusOK
	id := fmt.Sprintf("resp_%d", rec.N)
	reply := fmt.Sprintf("STUB-OK: request %d had %d input tokens of %d.", rec.N, rec.Tokens, window)
	if strings.Contains(rec.LastUserText, "CONTEXT CHECKPOINT") || strings.Contains(req.Instructions, "CONTEXT CHECKPOINT") {
		reply = "Summary: the user asked questions about a large context; all were answered."
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id, "status": "completed",
		"content": []map[string]any{{"type": "output_text", "text": reply, "annotations": []any{}}}}
	outTokens := s.counter.Count(reply)
	added := map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id, "status": "in_progress", "content": []any{}}
	turn := s.turn(s.okN.Add(1))
	if last := len(rec.Items) - 1; turn == nil && last >= 0 && rec.Items[last].Type == "message" && rec.Items[last].Role == "user" {
		turn = s.eachTurnCall(rec.LastUserText)
	}
	if turn != nil {
		item = responsesToolCall(turn, rec.N, req.Tools, req.Input)
		added, reply = item, ""
		rec.Reply = fmt.Sprintf("%s %s", item["type"], item["name"])
	}
	events := []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": id}},
		{"type": "response.output_item.added", "output_index": 0, "item": added},
	}
	if reply != "" {
		events = append(events, map[string]any{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": "msg_" + id, "delta": reply})
	}
	events = append(events,
		map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item},
		map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{
			"input_tokens": rec.Tokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": outTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": rec.Tokens + outTokens}}},
	)
	for _, ev := range events {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(bw, "event: %s\ndata: %s\n\n", ev["type"], b)
	}
	bw.Flush()
}

// responsesOverflow is the message of OpenAI's Responses API for an input
// over the model's context window (code context_length_exceeded).
const responsesOverflow = "Your input exceeds the context window of this model. Please adjust your input and try again."

// writeOpenAIError writes an OpenAI error body: {"error":{"message",
// "type":"invalid_request_error","param","code"}}; code is a string or nil
// (OpenAI sends null for validation errors).
func writeOpenAIError(w http.ResponseWriter, status int, msg, param string, code any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": param, "code": code}})
	w.Write(b)
}

// vllmOverflow writes vLLM's answer to a prompt (and requested completion)
// over the window, as its OpenAI-compatible server words it before 0.9
// (vllm-project/vllm#20409; the body as ogx-ai/ogx#4534 quotes it): it
// states the window, the total and its parts.
func vllmOverflow(w http.ResponseWriter, window, prompt, completion int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	b, _ := json.Marshal(map[string]any{"object": "error", "message": fmt.Sprintf(
		"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
		window, prompt+completion, prompt, completion), "type": "BadRequestError", "param": nil, "code": 400})
	w.Write(b)
}

// responsesPairs maps each Responses input item type that calls a tool the
// client runs to the type of the item that carries its output, and names
// the call in the API's error. Both carry the same call_id; OpenAI refuses
// an output whose call is not earlier in the input ("No tool call found
// for function call output with call_id call_x.", openai/codex#46193 and
// vercel/ai#8216 quote it) and a call whose output is missing ("No tool
// output found for function call call_x."). tool_search_call is Codex's
// client-side tool search, paired the same way.
var responsesPairs = map[string]struct{ output, what string }{
	"function_call":    {"function_call_output", "function call"},
	"custom_tool_call": {"custom_tool_call_output", "custom tool call"},
	"computer_call":    {"computer_call_output", "computer call"},
	"shell_call":       {"shell_call_output", "shell call"},
	"apply_patch_call": {"apply_patch_call_output", "apply patch call"},
	"tool_search_call": {"tool_search_output", "tool search call"},
}

// validResponsesInput returns the error OpenAI answers a Responses input
// with whose tool calls and outputs are not paired, or "" when every
// output follows its call and every call has its output.
func validResponsesInput(input []json.RawMessage) string {
	outputOf := map[string]string{} // output type → call type
	for call, p := range responsesPairs {
		outputOf[p.output] = call
	}
	calls := map[string]string{} // call_id → call type, of calls seen
	var order []string
	answered := map[string]bool{}
	for _, raw := range input {
		var it struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
		}
		if json.Unmarshal(raw, &it) != nil || it.CallID == "" {
			continue
		}
		if _, ok := responsesPairs[it.Type]; ok {
			calls[it.CallID] = it.Type
			order = append(order, it.CallID)
			continue
		}
		if call, ok := outputOf[it.Type]; ok {
			if calls[it.CallID] != call {
				return fmt.Sprintf("No tool call found for %s output with call_id %s.", responsesPairs[call].what, it.CallID)
			}
			answered[it.CallID] = true
		}
	}
	for _, id := range order {
		if !answered[id] {
			return fmt.Sprintf("No tool output found for %s %s.", responsesPairs[calls[id]].what, id)
		}
	}
	return ""
}

type itemResult struct {
	info stubItemInfo
	text string
}

// itemInfo counts one input item's text.
func itemInfo(raw json.RawMessage, c budget.Counter) itemResult {
	var it struct {
		Type      string          `json:"type"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Arguments string          `json:"arguments"`
		Input     string          `json:"input"`
		Output    json.RawMessage `json:"output"`
		Summary   []struct {
			Text string `json:"text"`
		} `json:"summary"`
		EncryptedContent string          `json:"encrypted_content"`
		Name             string          `json:"name"`
		Tools            json.RawMessage `json:"tools"` // "additional_tools" items of newer models
	}
	json.Unmarshal(raw, &it)
	if it.Type == "" && it.Role != "" {
		it.Type = "message"
	}
	var parts []string
	parts = append(parts, textOf(it.Content)...)
	parts = append(parts, textOf(it.Output)...)
	for _, s := range it.Summary {
		parts = append(parts, s.Text)
	}
	parts = append(parts, it.Arguments, it.Input, it.Name, it.EncryptedContent, string(it.Tools))
	text := strings.Join(parts, "")
	return itemResult{info: newItemInfo(it.Type, it.Role, text, c.Count(text)+stubItemOverhead), text: text}
}

// textOf returns the texts of a content value: a string, or an array of
// parts with "text" (input_text, output_text) fields.
func textOf(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		out := make([]string, 0, len(parts))
		for _, p := range parts {
			out = append(out, p.Text)
		}
		return out
	}
	return nil
}

// readStubLog reads the stub's JSON-lines log.
func readStubLog(path string) ([]stubRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseStubLog(data)
}

// parseStubLog parses the stub's JSON-lines log.
func parseStubLog(data []byte) ([]stubRecord, error) {
	var out []stubRecord
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var r stubRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("stub log: %w", err)
		}
		out = append(out, r)
	}
	return out, nil
}

// stubInputItem is one input item of a request, as far as the tests read it.
type stubInputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	CallID  string          `json:"call_id"`
	Name    string          `json:"name"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"`
}

// Text is the item's message content or tool output as the model reads it.
func (it stubInputItem) Text() string {
	return strings.Join(append(textOf(it.Content), textOf(it.Output)...), "")
}

// readStubInput returns the input items of a request the stub dumped.
func readStubInput(rec stubRecord) ([]stubInputItem, error) {
	if rec.Dump == "" {
		return nil, fmt.Errorf("request %d: the stub kept no body (set %s)", rec.N, stubDumpEnv)
	}
	data, err := os.ReadFile(rec.Dump)
	if err != nil {
		return nil, err
	}
	var req struct {
		Input []stubInputItem `json:"input"`
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return nil, fmt.Errorf("request %d: %w", rec.N, err)
	}
	return req.Input, nil
}

// responsesToolCall is a Responses API output item calling what turn says:
// Codex's client-side tool_search, or a function found among the request's
// tools or in a namespace an earlier tool_search output holds (Codex 0.171
// defers MCP tools there: namespace "mcp__<server>", function "<tool>").
func responsesToolCall(turn *stubTurn, n int64, tools, input []json.RawMessage) map[string]any {
	if turn.ToolSearch != "" {
		return map[string]any{"type": "tool_search_call", "id": fmt.Sprintf("ts_%d", n), "call_id": fmt.Sprintf("search_%d", n),
			"execution": "client", "status": "completed", "arguments": map[string]any{"query": turn.ToolSearch, "limit": 8}}
	}
	type fn struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	name, namespace := turn.Call, ""
	look := func(raw json.RawMessage) {
		var f fn
		if json.Unmarshal(raw, &f) != nil {
			return
		}
		switch f.Type {
		case "function":
			if strings.HasSuffix(f.Name, turn.Call) {
				name, namespace = f.Name, ""
			}
		case "namespace":
			for _, t := range f.Tools {
				if strings.HasSuffix(t.Name, turn.Call) {
					name, namespace = t.Name, f.Name
				}
			}
		}
	}
	for _, t := range tools {
		look(t)
	}
	for _, raw := range input {
		var it struct {
			Type  string            `json:"type"`
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(raw, &it) == nil && it.Type == "tool_search_output" {
			for _, t := range it.Tools {
				look(t)
			}
		}
	}
	item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
		"name": name, "arguments": string(turn.Arguments), "status": "completed"}
	if namespace != "" {
		item["namespace"] = namespace
	}
	return item
}
