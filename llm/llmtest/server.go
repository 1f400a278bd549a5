// Package llmtest is a fake OpenAI-compatible chat endpoint for tests: it
// serves scripted replies per structured-outputs schema and records what
// it received, so planners, synthesizers and the executor are tested
// through the real client, over HTTP.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ledgerline/research/llm"
)

// Reply is one scripted answer of the fake endpoint.
type Reply struct {
	Status  int    // 0 means 200
	Content string // the assistant message content (for 200); the error message otherwise
	// Usage is reported as given; the zero value means computed from the
	// sizes: prompt tokens are a quarter of the message bytes (rounded up)
	// plus 4 per message plus 3, completion tokens a quarter of the reply's
	// bytes. A computed reply longer than the request's max tokens is cut
	// there, with finish_reason "length", as a real model's would be.
	Usage  llm.Usage
	Header map[string]string // response headers, e.g. Retry-After
	Delay  time.Duration     // wait before answering (the request's end stops the wait)
	Body   string            // raw body written instead of the JSON reply (malformed JSON, ...)
}

// Request is what the fake endpoint received.
type Request struct {
	Path        string
	SchemaName  string // response_format json_schema name; "" without a schema
	Schema      json.RawMessage
	Strict      bool
	Model       string
	Messages    []llm.Message
	MaxTokens   int64 // max_completion_tokens, else max_tokens
	Temperature float64
	Raw         []byte // the request body as sent
}

// Server is a fake OpenAI-compatible endpoint. Its URL is the base URL to
// give llm.ChatConfig; it serves POST /v1/chat/completions and
// /chat/completions.
type Server struct {
	URL string

	srv *httptest.Server

	mu sync.Mutex
	// Guarded by mu.
	scripts  map[string]*script
	requests []Request
	seq      int
}

type script struct {
	queue []Reply
	last  Reply
	fn    func(Request) Reply // set by OnFunc; used once the queue is empty
}

// New starts a fake endpoint, closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{scripts: map[string]*script{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Client returns an llm.Client for the endpoint.
func (s *Server) Client(t testing.TB) *llm.Client {
	t.Helper()
	c, err := llm.NewClient(llm.ChatConfig{BaseURL: s.URL, APIKey: "llmtest"})
	if err != nil {
		t.Fatalf("llmtest: NewClient: %v", err)
	}
	return c
}

// On scripts the replies to requests whose response_format json_schema
// name is schemaName ("" for requests without a schema). They are served
// in order, after any scripted before; once the queue is empty the last
// reply repeats.
func (s *Server) On(schemaName string, replies ...Reply) {
	if len(replies) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.scriptFor(schemaName)
	sc.queue = append(sc.queue, replies...)
}

// OnFunc scripts the replies to requests for schemaName with a function
// of the request, once the replies given to On are used up: a fake model
// that reads its prompt (to cite the evidence it was shown, say).
func (s *Server) OnFunc(schemaName string, f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scriptFor(schemaName).fn = f
}

// scriptFor returns the script of schemaName, made empty when there is
// none yet. The caller holds s.mu.
func (s *Server) scriptFor(schemaName string) *script {
	sc := s.scripts[schemaName]
	if sc == nil {
		sc = &script{}
		s.scripts[schemaName] = sc
	}
	return sc
}

// Requests returns what the endpoint received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count returns how many requests for schemaName the endpoint received.
func (s *Server) Count(schemaName string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r.SchemaName == schemaName {
			n++
		}
	}
	return n
}

// wireRequest is the part of a chat completion request the fake reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	MaxCompletionTokens *int64   `json:"max_completion_tokens"`
	MaxTokens           *int64   `json:"max_tokens"`
	Temperature         *float64 `json:"temperature"`
	ResponseFormat      *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || (r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/chat/completions") {
		writeError(w, http.StatusNotFound, fmt.Sprintf("llmtest: no route for %s %s", r.Method, r.URL.Path))
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: reading the body: "+err.Error())
		return
	}
	req, err := parseRequest(raw)
	if err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: "+err.Error())
		return
	}
	req.Path = r.URL.Path

	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.seq++
	id := s.seq
	reply, fn, ok := s.next(req.SchemaName)
	s.mu.Unlock()
	if fn != nil {
		reply = fn(req)
	}
	if !ok {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("llmtest: no reply scripted for schema %q", req.SchemaName))
		return
	}

	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, reply.Body)
		return
	}
	if status != http.StatusOK {
		msg := reply.Content
		if msg == "" {
			msg = http.StatusText(status)
		}
		writeError(w, status, msg)
		return
	}

	content, finish, usage := reply.Content, "stop", reply.Usage
	if usage == (llm.Usage{}) {
		usage.InputTokens = PromptTokens(req.Messages)
		usage.OutputTokens = ceilDiv(int64(len(content)), 4)
		if req.MaxTokens > 0 && usage.OutputTokens > req.MaxTokens {
			content = cut(content, int(req.MaxTokens)*4)
			usage.OutputTokens = req.MaxTokens
			finish = "length"
		}
	}
	model := req.Model
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", id),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   model,
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content, "refusal": nil},
			"finish_reason": finish,
			"logprobs":      nil,
		}},
		"usage": map[string]int64{
			"prompt_tokens":     usage.InputTokens,
			"completion_tokens": usage.OutputTokens,
			"total_tokens":      usage.InputTokens + usage.OutputTokens,
		},
	})
}

// next pops the reply for schemaName; the caller holds mu.
func (s *Server) next(schemaName string) (Reply, func(Request) Reply, bool) {
	sc := s.scripts[schemaName]
	if sc == nil {
		return Reply{}, nil, false
	}
	if len(sc.queue) > 0 {
		sc.last = sc.queue[0]
		sc.queue = sc.queue[1:]
		return sc.last, nil, true
	}
	if sc.fn != nil {
		return Reply{}, sc.fn, true
	}
	return sc.last, nil, true
}

// PromptTokens is the prompt token count the fake reports for msgs: a
// quarter of the content bytes (rounded up), plus 4 per message, plus 3,
// the usual rule of thumb for English text.
func PromptTokens(msgs []llm.Message) int64 {
	var bytes int64
	for _, m := range msgs {
		bytes += int64(len(m.Content))
	}
	return ceilDiv(bytes, 4) + 4*int64(len(msgs)) + 3
}

func parseRequest(raw []byte) (Request, error) {
	var wr wireRequest
	if err := json.Unmarshal(raw, &wr); err != nil {
		return Request{}, fmt.Errorf("the body is not a chat completion request: %v", err)
	}
	req := Request{Model: wr.Model, Raw: raw}
	for i, m := range wr.Messages {
		text, err := messageText(m.Content)
		if err != nil {
			return Request{}, fmt.Errorf("messages[%d].content: %v", i, err)
		}
		req.Messages = append(req.Messages, llm.Message{Role: m.Role, Content: text})
	}
	switch {
	case wr.MaxCompletionTokens != nil:
		req.MaxTokens = *wr.MaxCompletionTokens
	case wr.MaxTokens != nil:
		req.MaxTokens = *wr.MaxTokens
	}
	if wr.Temperature != nil {
		req.Temperature = *wr.Temperature
	}
	if rf := wr.ResponseFormat; rf != nil && rf.Type == "json_schema" && rf.JSONSchema != nil {
		req.SchemaName = rf.JSONSchema.Name
		req.Schema = rf.JSONSchema.Schema
		req.Strict = rf.JSONSchema.Strict
	}
	return req, nil
}

// messageText reads a message's content: a string, or an array of text
// parts.
func messageText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("neither a string nor text parts")
	}
	var out string
	for _, p := range parts {
		out += p.Text
	}
	return out, nil
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "llmtest_error", "param": nil, "code": nil,
	}})
}

// cut returns the first n bytes of s, backed off to a UTF-8 boundary.
func cut(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
