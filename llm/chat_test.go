package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/llm/llmtest"
)

func chatRequest() llm.ChatRequest {
	return llm.ChatRequest{
		Model: "gpt-test",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You plan research."},
			{Role: llm.RoleUser, Content: "Compare gross margins."},
		},
		MaxTokens: 123,
	}
}

func TestClientSendsRequest(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("task_graph", llmtest.Reply{Content: `{"ok":true}`, Usage: llm.Usage{InputTokens: 40, OutputTokens: 5}})
	c := srv.Client(t)

	req := chatRequest()
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: "not JSON"}, llm.Message{Role: llm.RoleUser, Content: "Try again."})
	req.Schema = &llm.Schema{Name: "task_graph", Description: "a plan", Strict: true,
		Schema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}},
			"required": []string{"ok"}, "additionalProperties": false}}
	resp, err := c.Call(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != `{"ok":true}` || resp.Model != "gpt-test" || resp.FinishReason != "stop" {
		t.Errorf("response = %+v", resp)
	}
	if resp.Usage != (llm.Usage{InputTokens: 40, OutputTokens: 5}) || resp.UsageEstimated {
		t.Errorf("usage = %+v (estimated %v), want the reported 40/5", resp.Usage, resp.UsageEstimated)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d, want 1", len(reqs))
	}
	got := reqs[0]
	if got.SchemaName != "task_graph" || !got.Strict || got.MaxTokens != 123 || got.Temperature != 0 || got.Model != "gpt-test" {
		t.Errorf("received %+v", got)
	}
	if len(got.Messages) != 4 || got.Messages[2].Role != "assistant" || got.Messages[3].Content != "Try again." {
		t.Errorf("messages = %+v", got.Messages)
	}
	var body map[string]any
	if err := json.Unmarshal(got.Raw, &body); err != nil {
		t.Fatal(err)
	}
	if v, ok := body["temperature"]; !ok || v != 0.0 {
		t.Errorf("temperature sent = %v (present %v), want an explicit 0", v, ok)
	}
	if body["max_completion_tokens"] != 123.0 {
		t.Errorf("max_completion_tokens = %v, want 123; body %s", body["max_completion_tokens"], got.Raw)
	}
	rf, _ := body["response_format"].(map[string]any)
	if rf["type"] != "json_schema" {
		t.Errorf("response_format = %v", rf)
	}
	var schema map[string]any
	if err := json.Unmarshal(got.Schema, &schema); err != nil || schema["additionalProperties"] != false {
		t.Errorf("schema sent = %s (%v)", got.Schema, err)
	}
}

func TestClientLegacyMaxTokens(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("", llmtest.Reply{Content: "hello"})
	c, err := llm.NewClient(llm.ChatConfig{BaseURL: srv.URL + "/v1", APIKey: "k", LegacyMaxTokens: true})
	if err != nil {
		t.Fatal(err)
	}
	req := chatRequest()
	req.Temperature = 0.5
	if _, err := c.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/chat/completions" {
		t.Errorf("path = %q", got.Path)
	}
	var body map[string]any
	json.Unmarshal(got.Raw, &body)
	if body["max_tokens"] != 123.0 || body["max_completion_tokens"] != nil {
		t.Errorf("legacy cap: max_tokens %v, max_completion_tokens %v", body["max_tokens"], body["max_completion_tokens"])
	}
	if got.Temperature != 0.5 || got.SchemaName != "" || body["response_format"] != nil {
		t.Errorf("free-text request sent %s", got.Raw)
	}
}

func TestClientErrorsOneAttempt(t *testing.T) {
	tests := []struct {
		name       string
		reply      llmtest.Reply
		status     int
		transient  bool
		retryAfter time.Duration
		message    string
	}{
		{"429 retry-after seconds", llmtest.Reply{Status: 429, Content: "slow down", Header: map[string]string{"Retry-After": "2"}},
			429, true, 2 * time.Second, "slow down"},
		{"429 retry-after-ms", llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After-Ms": "250"}},
			429, true, 250 * time.Millisecond, "Too Many Requests"},
		{"429 retry-after capped", llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "1e10"}},
			429, true, 24 * time.Hour, "Too Many Requests"},
		{"500", llmtest.Reply{Status: 500, Content: "boom"}, 500, true, 0, "boom"},
		{"503 plain text body", llmtest.Reply{Status: 503, Body: "upstream unavailable"}, 503, true, 0, "upstream unavailable"},
		{"400", llmtest.Reply{Status: 400, Content: "max_completion_tokens is too large"}, 400, false, 0, "too large"},
		{"401", llmtest.Reply{Status: 401, Content: "bad key"}, 401, false, 0, "bad key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.On("", tt.reply)
			_, err := srv.Client(t).Call(context.Background(), chatRequest())
			var se *llm.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("error = %v (%T), want *llm.StatusError", err, err)
			}
			if se.StatusCode != tt.status || !strings.Contains(se.Message, tt.message) {
				t.Errorf("StatusError = %+v, want status %d and a message with %q", se, tt.status, tt.message)
			}
			if got := llm.IsTransient(err); got != tt.transient {
				t.Errorf("IsTransient = %v, want %v", got, tt.transient)
			}
			if got := llm.RetryAfterHint(err); got != tt.retryAfter {
				t.Errorf("RetryAfterHint = %v, want %v", got, tt.retryAfter)
			}
			if n := srv.Count(""); n != 1 {
				t.Errorf("requests = %d, want exactly 1 (the SDK must not retry)", n)
			}
		})
	}
}

func TestClientRefusesInvalidRequestsBeforeSending(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("", llmtest.Reply{Content: "x"})
	c := srv.Client(t)
	tests := []struct {
		name string
		edit func(*llm.ChatRequest)
		want string
	}{
		{"no max tokens", func(r *llm.ChatRequest) { r.MaxTokens = 0 }, "MaxTokens"},
		{"negative max tokens", func(r *llm.ChatRequest) { r.MaxTokens = -5 }, "MaxTokens"},
		{"no model", func(r *llm.ChatRequest) { r.Model = " " }, "Model"},
		{"no messages", func(r *llm.ChatRequest) { r.Messages = nil }, "Messages"},
		{"bad role", func(r *llm.ChatRequest) { r.Messages[0].Role = "tool" }, "Role"},
		{"temperature", func(r *llm.ChatRequest) { r.Temperature = 3 }, "Temperature"},
		{"schema name", func(r *llm.ChatRequest) {
			r.Schema = &llm.Schema{Name: "task graph", Schema: map[string]any{"type": "object"}}
		}, "Schema.Name"},
		{"empty schema", func(r *llm.ChatRequest) { r.Schema = &llm.Schema{Name: "x"} }, "no schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := chatRequest()
			tt.edit(&req)
			_, err := c.Call(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one naming %s", err, tt.want)
			}
			if llm.IsTransient(err) {
				t.Errorf("an invalid request must not be transient")
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("requests = %d, want none for invalid requests", n)
	}
}

func TestClientTimeoutsAndContext(t *testing.T) {
	srv := llmtest.New(t)
	srv.On("", llmtest.Reply{Content: "late", Delay: 5 * time.Second})

	t.Run("attempt timeout is transient", func(t *testing.T) {
		c, err := llm.NewClient(llm.ChatConfig{BaseURL: srv.URL, APIKey: "k", Timeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Call(context.Background(), chatRequest())
		var te *llm.TimeoutError
		if !errors.As(err, &te) || !llm.IsTransient(err) {
			t.Fatalf("error = %v (%T), want a transient *llm.TimeoutError", err, err)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("an attempt's timeout must not look like the caller's deadline")
		}
	})
	t.Run("caller deadline is returned as it is", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := srv.Client(t).Call(ctx, chatRequest())
		if !errors.Is(err, context.DeadlineExceeded) || llm.IsTransient(err) {
			t.Fatalf("error = %v, want context.DeadlineExceeded, not transient", err)
		}
	})
	t.Run("caller cancel is returned as it is", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.AfterFunc(30*time.Millisecond, cancel) }()
		_, err := srv.Client(t).Call(ctx, chatRequest())
		if !errors.Is(err, context.Canceled) || llm.IsTransient(err) {
			t.Fatalf("error = %v, want context.Canceled, not transient", err)
		}
	})
}

func TestClientBadReplies(t *testing.T) {
	t.Run("malformed JSON", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.On("", llmtest.Reply{Body: `{"id": "x", "choices": [`})
		_, err := srv.Client(t).Call(context.Background(), chatRequest())
		if err == nil || llm.IsTransient(err) {
			t.Fatalf("error = %v, want a non-transient error", err)
		}
	})
	t.Run("no choices", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.On("", llmtest.Reply{Body: `{"id":"x","object":"chat.completion","model":"m","choices":[]}`})
		_, err := srv.Client(t).Call(context.Background(), chatRequest())
		if err == nil || !strings.Contains(err.Error(), "no choices") {
			t.Fatalf("error = %v, want one saying the reply has no choices", err)
		}
	})
	t.Run("no usage is estimated, not zero", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.On("", llmtest.Reply{Body: `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"forty-two"}}]}`})
		req := chatRequest()
		resp, err := srv.Client(t).Call(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !resp.UsageEstimated || resp.Usage.InputTokens != llm.EstimateRequestTokens(req) || resp.Usage.OutputTokens <= 0 {
			t.Errorf("usage = %+v (estimated %v), want the estimates", resp.Usage, resp.UsageEstimated)
		}
	})
	t.Run("reply cut at max tokens", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.On("", llmtest.Reply{Content: strings.Repeat("word ", 200)})
		req := chatRequest()
		req.MaxTokens = 10
		resp, err := srv.Client(t).Call(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.FinishReason != "length" || resp.Usage.OutputTokens != 10 || len(resp.Content) != 40 {
			t.Errorf("response = %q finish %q usage %+v, want the reply cut at 10 tokens", resp.Content, resp.FinishReason, resp.Usage)
		}
	})
}

func TestClientConnectionRefusedIsTransient(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, err := llm.NewClient(llm.ChatConfig{BaseURL: url, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Call(context.Background(), chatRequest())
	if err == nil || !llm.IsTransient(err) {
		t.Fatalf("error = %v, want a transient connection error", err)
	}
}

func TestIsTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&llm.StatusError{StatusCode: 429}, true},
		{&llm.StatusError{StatusCode: 408}, true},
		{&llm.StatusError{StatusCode: 502}, true},
		{&llm.StatusError{StatusCode: 404}, false},
		{&llm.StatusError{StatusCode: 422}, false},
		{fmt.Errorf("wrapped: %w", &llm.StatusError{StatusCode: 503}), true},
		{&llm.TimeoutError{Model: "m", After: time.Second}, true},
		{context.Canceled, false},
		{context.DeadlineExceeded, false},
		{fmt.Errorf("post: %w", syscall.ECONNRESET), true},
		{fmt.Errorf("post: %w", io.ErrUnexpectedEOF), true},
		{errors.New("json: cannot unmarshal"), false},
	}
	for _, tt := range tests {
		if got := llm.IsTransient(tt.err); got != tt.want {
			t.Errorf("IsTransient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	srv := llmtest.New(t)
	when := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	srv.On("", llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": when}})
	_, err := srv.Client(t).Call(context.Background(), chatRequest())
	if d := llm.RetryAfterHint(err); d < 80*time.Second || d > 91*time.Second {
		t.Errorf("RetryAfterHint = %v, want about 90s", d)
	}
	if llm.RetryAfterHint(errors.New("other")) != 0 {
		t.Errorf("RetryAfterHint of a non-status error must be 0")
	}
}

func TestEstimateTokensCoversReportedUsage(t *testing.T) {
	prompts := [][]llm.Message{
		{{Role: llm.RoleUser, Content: "Hi"}},
		{{Role: llm.RoleSystem, Content: ""}, {Role: llm.RoleUser, Content: ""}},
		{
			{Role: llm.RoleSystem, Content: "You plan tool calls over SEC filings. Plan only for the issuers listed."},
			{Role: llm.RoleUser, Content: "Compare gross-margin pressure at AAPL, NVDA and GOOGL in FY2024 and say whether management expects it to persist."},
		},
		{{Role: llm.RoleUser, Content: `<evidence id="E0123456789ab" ticker="AAPL">Total gross margin percentage was 46.2% in 2024, compared to 44.1% in 2023, due to cost savings and a different mix.</evidence>`}},
		{{Role: llm.RoleUser, Content: strings.Repeat("Net sales increased 2% or $8.0 billion during 2024 compared to 2023. ", 40)}},
	}
	srv := llmtest.New(t)
	srv.On("", llmtest.Reply{Content: "ok"})
	c := srv.Client(t)
	for i, msgs := range prompts {
		est := llm.EstimateTokens(msgs)
		if fake := llmtest.PromptTokens(msgs); est < fake {
			t.Errorf("prompt %d: EstimateTokens = %d, below the fake's count %d", i, est, fake)
		}
		resp, err := c.Call(context.Background(), llm.ChatRequest{Model: "m", Messages: msgs, MaxTokens: 10})
		if err != nil {
			t.Fatal(err)
		}
		if est < resp.Usage.InputTokens {
			t.Errorf("prompt %d: EstimateTokens = %d, below the reported %d", i, est, resp.Usage.InputTokens)
		}
	}
	// The estimate grows with the text: a budget reserved from it scales.
	short := llm.EstimateTokens([]llm.Message{{Role: "user", Content: "a"}})
	long := llm.EstimateTokens([]llm.Message{{Role: "user", Content: strings.Repeat("a", 3000)}})
	if long-short < 999 {
		t.Errorf("EstimateTokens of 3000 bytes is only %d above 1 byte's", long-short)
	}
	req := chatRequest()
	req.Schema = &llm.Schema{Name: "s", Schema: map[string]any{"type": "object", "description": strings.Repeat("x", 300)}}
	if llm.EstimateRequestTokens(req) < llm.EstimateTokens(req.Messages)+100 {
		t.Errorf("EstimateRequestTokens does not count the schema")
	}
}

func FuzzClientErrorReply(f *testing.F) {
	f.Add(429, `{"error":{"message":"slow"}}`, "3")
	f.Add(500, "not json", "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add(400, `{"error":"bad"}`, "-1")
	f.Add(503, `{"detail":"x"}`, "1e400")
	srv := llmtest.New(f)
	c := srv.Client(f)
	f.Fuzz(func(t *testing.T, status int, body, retry string) {
		if status < 400 || status > 599 || body == "" {
			return
		}
		for _, r := range retry {
			if r < 0x20 || r > 0x7e { // not a value a server can send in a header
				return
			}
		}
		srv.On("", llmtest.Reply{Status: status, Body: body, Header: map[string]string{"Retry-After": retry}})
		_, err := c.Call(context.Background(), chatRequest())
		var se *llm.StatusError
		if !errors.As(err, &se) {
			t.Fatalf("status %d: error = %v (%T), want *llm.StatusError", status, err, err)
		}
		if se.StatusCode != status || se.RetryAfter < 0 {
			t.Fatalf("StatusError = %+v for status %d", se, status)
		}
		if llm.IsTransient(err) != (status == 408 || status == 409 || status == 429 || status >= 500) {
			t.Fatalf("IsTransient wrong for %d", status)
		}
	})
}
