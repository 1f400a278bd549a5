package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/llm"
)

func post(t *testing.T, url, body string) (int, http.Header, map[string]any) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("reply is not JSON: %s", raw)
	}
	return res.StatusCode, res.Header, v
}

func content(t *testing.T, v map[string]any) string {
	t.Helper()
	choices, _ := v["choices"].([]any)
	if len(choices) != 1 {
		t.Fatalf("choices = %v", v["choices"])
	}
	msg := choices[0].(map[string]any)["message"].(map[string]any)
	return msg["content"].(string)
}

func schemaBody(name string) string {
	return `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":50,
		"response_format":{"type":"json_schema","json_schema":{"name":"` + name + `","strict":true,"schema":{"type":"object"}}}}`
}

func TestServerQueuesPerSchemaAndRepeatsLast(t *testing.T) {
	s := New(t)
	s.On("plan", Reply{Content: "p1"}, Reply{Content: "p2"})
	s.On("answer", Reply{Content: "a1"})
	s.On("plan", Reply{Content: "p3"})
	s.On("", Reply{Content: "free"})

	var got []string
	for _, name := range []string{"plan", "answer", "plan", "plan", "plan", "answer"} {
		_, _, v := post(t, s.URL+"/v1/chat/completions", schemaBody(name))
		got = append(got, content(t, v))
	}
	want := []string{"p1", "a1", "p2", "p3", "p3", "a1"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("replies = %v, want %v", got, want)
	}
	_, _, v := post(t, s.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`)
	if content(t, v) != "free" {
		t.Errorf("free-text request got %q", content(t, v))
	}
	if s.Count("plan") != 4 || s.Count("answer") != 2 || s.Count("") != 1 || s.Count("other") != 0 {
		t.Errorf("counts: plan %d answer %d none %d", s.Count("plan"), s.Count("answer"), s.Count(""))
	}
	reqs := s.Requests()
	if len(reqs) != 7 || reqs[0].SchemaName != "plan" || !reqs[0].Strict || reqs[0].MaxTokens != 50 || reqs[6].Messages[0].Content != "ab" {
		t.Errorf("requests = %+v", reqs)
	}
	if !bytes.Equal(reqs[0].Schema, []byte(`{"type":"object"}`)) {
		t.Errorf("schema = %s", reqs[0].Schema)
	}
}

func TestServerUnscriptedSchemaIs500NamingIt(t *testing.T) {
	s := New(t)
	s.On("plan", Reply{Content: "p"})
	status, _, v := post(t, s.URL+"/v1/chat/completions", schemaBody("answer"))
	msg := v["error"].(map[string]any)["message"].(string)
	if status != 500 || !strings.Contains(msg, `"answer"`) {
		t.Errorf("status %d, message %q: want 500 naming the schema", status, msg)
	}
	if s.Count("answer") != 1 {
		t.Errorf("the unscripted request was not recorded")
	}
}

func TestServerRepliesShapes(t *testing.T) {
	s := New(t)
	s.On("err", Reply{Status: 429, Content: "slow down", Header: map[string]string{"Retry-After": "7"}})
	s.On("raw", Reply{Body: `{"not":"a completion"}`})
	s.On("usage", Reply{Content: "12345678", Usage: llm.Usage{InputTokens: 11, OutputTokens: 22}})
	s.On("computed", Reply{Content: "12345678"})

	status, h, v := post(t, s.URL+"/v1/chat/completions", schemaBody("err"))
	if status != 429 || h.Get("Retry-After") != "7" || v["error"].(map[string]any)["message"] != "slow down" {
		t.Errorf("error reply: %d %v %v", status, h, v)
	}
	_, _, v = post(t, s.URL+"/v1/chat/completions", schemaBody("raw"))
	if v["not"] != "a completion" {
		t.Errorf("raw body not served: %v", v)
	}
	_, _, v = post(t, s.URL+"/v1/chat/completions", schemaBody("usage"))
	u := v["usage"].(map[string]any)
	if u["prompt_tokens"] != 11.0 || u["completion_tokens"] != 22.0 || u["total_tokens"] != 33.0 {
		t.Errorf("scripted usage = %v", u)
	}
	_, _, v = post(t, s.URL+"/v1/chat/completions", schemaBody("computed"))
	u = v["usage"].(map[string]any)
	if u["prompt_tokens"] != float64(PromptTokens([]llm.Message{{Role: "user", Content: "hi"}})) || u["completion_tokens"] != 2.0 {
		t.Errorf("computed usage = %v", u)
	}
	if v["model"] != "m" || v["object"] != "chat.completion" || v["id"] == "" {
		t.Errorf("completion shape = %v", v)
	}
	status, _, _ = post(t, s.URL+"/v1/embeddings", `{}`)
	if status != 404 {
		t.Errorf("unknown path: status %d", status)
	}
	status, _, _ = post(t, s.URL+"/v1/chat/completions", `not json`)
	if status != 400 {
		t.Errorf("malformed request: status %d", status)
	}
}

func TestServerDelayStopsWithTheRequest(t *testing.T) {
	s := New(t)
	s.On("", Reply{Content: "late", Delay: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Client(t).Call(ctx, llm.ChatRequest{Model: "m", Messages: []llm.Message{{Role: "user", Content: "x"}}, MaxTokens: 5})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want the caller's deadline", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the delayed reply held the call for %v", time.Since(start))
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(schemaBody("plan")))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"}]}],"max_tokens":3,"temperature":0.2}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":null}],"response_format":{"type":"text"}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		req, err := parseRequest(raw)
		if err != nil {
			return
		}
		if !bytes.Equal(req.Raw, raw) {
			t.Fatalf("Raw not kept")
		}
		if req.SchemaName != "" && !json.Valid(raw) {
			t.Fatalf("schema name %q from invalid JSON", req.SchemaName)
		}
	})
}
