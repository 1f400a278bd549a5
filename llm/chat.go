package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // RoleSystem, RoleUser or RoleAssistant
	Content string `json:"content"`
}

// Schema asks for a reply that is JSON of a schema (structured outputs,
// response_format json_schema).
type Schema struct {
	Name        string         // a-z, A-Z, 0-9, '_' and '-', at most 64 characters
	Description string         // "" means none
	Schema      map[string]any // the JSON Schema
	Strict      bool           // strict schema adherence (every property required, no extras)
}

// ChatRequest is one chat completion request.
type ChatRequest struct {
	Model    string
	Messages []Message
	Schema   *Schema // nil means a free-text reply
	// MaxTokens caps the reply; it must be above zero, so that every call
	// has a bounded cost the budget can reserve.
	MaxTokens   int64
	Temperature float64 // 0..2
}

// Usage is what a call consumed, as the endpoint reported it.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// ChatResponse is a chat completion's reply.
type ChatResponse struct {
	Content      string // the assistant message's text
	Refusal      string // the model's refusal, when it refused instead of answering
	Model        string // the model that answered, as the endpoint names it
	Usage        Usage
	FinishReason string // "stop", "length" (cut at MaxTokens), "content_filter", ...
	// UsageEstimated is true when the endpoint reported no usage and Usage
	// holds EstimateTokens of the prompt and of the reply instead, so that
	// a budget is never settled at zero for a call that ran.
	UsageEstimated bool
}

// Caller makes one chat call. The executor wraps a Caller with budget
// reservations and transient retries; planners and synthesizers take a
// Caller.
type Caller interface {
	Call(ctx context.Context, req ChatRequest) (*ChatResponse, error)
}

// CallerFunc adapts a function to Caller.
type CallerFunc func(ctx context.Context, req ChatRequest) (*ChatResponse, error)

// Call calls f.
func (f CallerFunc) Call(ctx context.Context, req ChatRequest) (*ChatResponse, error) {
	return f(ctx, req)
}

var schemaNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Validate checks a request before anything is sent.
func (r *ChatRequest) Validate() error {
	switch {
	case strings.TrimSpace(r.Model) == "":
		return errors.New("llm: ChatRequest.Model is empty")
	case len(r.Messages) == 0:
		return errors.New("llm: ChatRequest.Messages is empty")
	case r.MaxTokens <= 0:
		return fmt.Errorf("llm: ChatRequest.MaxTokens is %d; a chat call needs an output cap above zero", r.MaxTokens)
	case r.Temperature < 0 || r.Temperature > 2:
		return fmt.Errorf("llm: ChatRequest.Temperature %g is outside 0..2", r.Temperature)
	}
	for i, m := range r.Messages {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		default:
			return fmt.Errorf("llm: ChatRequest.Messages[%d].Role %q is not system, user or assistant", i, m.Role)
		}
	}
	if s := r.Schema; s != nil {
		if !schemaNameRE.MatchString(s.Name) {
			return fmt.Errorf("llm: ChatRequest.Schema.Name %q must be 1 to 64 letters, digits, '_' or '-'", s.Name)
		}
		if len(s.Schema) == 0 {
			return fmt.Errorf("llm: ChatRequest.Schema %q has no schema", s.Name)
		}
	}
	return nil
}

// ChatConfig configures a Client.
type ChatConfig struct {
	BaseURL    string       // "" means the OPENAI_BASE_URL environment variable, else OpenAI's API
	APIKey     string       // "" means OPENAI_API_KEY; a local server may need none
	HTTPClient *http.Client // nil means the client's default
	// Timeout limits one attempt; an attempt that runs out of it fails with
	// a *TimeoutError, which is transient. 0 means 2 minutes.
	Timeout time.Duration
	// LegacyMaxTokens sends the cap as max_tokens instead of
	// max_completion_tokens, for servers that know only the older name.
	LegacyMaxTokens bool
}

func (c *ChatConfig) validate() error {
	if c.Timeout < 0 {
		return errors.New("llm: ChatConfig.Timeout is negative")
	}
	return nil
}

// Client makes chat calls through openai-go to an OpenAI-compatible
// endpoint, one HTTP attempt per call: the SDK's own retries are off, so
// every attempt passes through the caller's budget and retry policy.
type Client struct {
	client openai.Client
	cfg    ChatConfig
}

// NewClient returns a chat client for cfg.
func NewClient(cfg ChatConfig) (*Client, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Minute
	}
	return &Client{client: newOpenAI(cfg.BaseURL, cfg.APIKey, cfg.HTTPClient, 0), cfg: cfg}, nil
}

// newOpenAI returns an openai-go client for an endpoint: baseURL and
// apiKey "" leave the SDK's defaults (its environment variables), a nil
// httpClient its default client; maxRetries are the SDK's own retries.
func newOpenAI(baseURL, apiKey string, httpClient *http.Client, maxRetries int) openai.Client {
	opts := []option.RequestOption{option.WithMaxRetries(maxRetries)}
	if baseURL != "" {
		opts = append(opts, option.WithBaseURL(baseURL))
	}
	if apiKey != "" {
		opts = append(opts, option.WithAPIKey(apiKey))
	}
	if httpClient != nil {
		opts = append(opts, option.WithHTTPClient(httpClient))
	}
	return openai.NewClient(opts...)
}

// Call makes exactly one chat completion request. The request is validated
// first (MaxTokens must be above zero), before anything is sent.
//
// Errors: a reply with an HTTP error status is a *StatusError; an attempt
// that ran out of ChatConfig.Timeout is a *TimeoutError; when ctx itself
// ends, ctx.Err() is returned as it is. IsTransient says which are worth
// another attempt.
func (c *Client) Call(ctx context.Context, req ChatRequest) (*ChatResponse, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	params := openai.ChatCompletionNewParams{
		Model:       shared.ChatModel(req.Model),
		Messages:    make([]openai.ChatCompletionMessageParamUnion, len(req.Messages)),
		Temperature: openai.Float(req.Temperature),
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			params.Messages[i] = openai.SystemMessage(m.Content)
		case RoleUser:
			params.Messages[i] = openai.UserMessage(m.Content)
		case RoleAssistant:
			params.Messages[i] = openai.AssistantMessage(m.Content)
		}
	}
	if c.cfg.LegacyMaxTokens {
		params.MaxTokens = openai.Int(req.MaxTokens)
	} else {
		params.MaxCompletionTokens = openai.Int(req.MaxTokens)
	}
	if s := req.Schema; s != nil {
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: s.Name, Schema: s.Schema, Strict: openai.Bool(s.Strict)}
		if s.Description != "" {
			js.Description = openai.String(s.Description)
		}
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: js},
		}
	}

	attempt, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var raw *http.Response
	resp, err := c.client.Chat.Completions.New(attempt, params, option.WithResponseInto(&raw))
	if err != nil {
		return nil, c.callError(ctx, attempt, req.Model, raw, err)
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("llm: chat with %s: the reply has no choices", req.Model)
	}
	ch := resp.Choices[0]
	out := &ChatResponse{
		Content:      ch.Message.Content,
		Refusal:      ch.Message.Refusal,
		Model:        resp.Model,
		FinishReason: ch.FinishReason,
		Usage:        Usage{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens},
	}
	if out.Usage == (Usage{}) {
		out.Usage = Usage{
			InputTokens:  EstimateRequestTokens(req),
			OutputTokens: EstimateTokens([]Message{{Role: RoleAssistant, Content: out.Content + out.Refusal}}),
		}
		out.UsageEstimated = true
	}
	return out, nil
}

// callError translates what openai-go returned for a failed attempt.
func (c *Client) callError(ctx, attempt context.Context, model string, raw *http.Response, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(attempt.Err(), context.DeadlineExceeded) {
		return &TimeoutError{Model: model, After: c.cfg.Timeout}
	}
	if raw != nil && raw.StatusCode >= 400 {
		return statusError(raw)
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		se := &StatusError{StatusCode: apiErr.StatusCode, Message: apiErr.Message}
		if apiErr.Response != nil {
			se.RetryAfter = retryAfter(apiErr.Response.Header, time.Now())
		}
		return se
	}
	if raw != nil && !errors.Is(err, syscall.ECONNRESET) {
		// A success status whose body does not decode: the endpoint is not
		// speaking the protocol, and asking again will not change that.
		return &replyError{model: model, err: err}
	}
	return fmt.Errorf("llm: chat with %s: %w", model, err)
}

// statusError builds a *StatusError from an error response; openai-go
// leaves the body readable for exactly this.
func statusError(res *http.Response) *StatusError {
	se := &StatusError{StatusCode: res.StatusCode, RetryAfter: retryAfter(res.Header, time.Now())}
	if res.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		se.Message = errorMessage(body)
	}
	return se
}

// errorMessage extracts the message of an error body: OpenAI's
// {"error":{"message":...}}, {"error":"..."}, {"message":...}, or the text.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		case v.Detail != "":
			return v.Detail
		}
	}
	msg := strings.Join(strings.Fields(string(body)), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

// maxRetryAfter caps a server's Retry-After: a longer wait is no longer a
// retry of this call.
const maxRetryAfter = 24 * time.Hour

// retryAfter reads Retry-After-Ms (OpenAI's) or Retry-After (seconds or
// an HTTP date), capped at maxRetryAfter; 0 when neither says anything
// usable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	seconds := func(v string, unit time.Duration) (time.Duration, bool) {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) {
			return 0, false
		}
		if f <= 0 {
			return 0, true
		}
		if f >= float64(maxRetryAfter/unit) {
			return maxRetryAfter, true
		}
		return time.Duration(f * float64(unit)), true
	}
	if d, ok := seconds(h.Get("Retry-After-Ms"), time.Millisecond); ok && d > 0 {
		return d
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if d, ok := seconds(v, time.Second); ok {
		return d
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}

// StatusError is an HTTP error status from the endpoint.
type StatusError struct {
	StatusCode int
	RetryAfter time.Duration // what Retry-After (or Retry-After-Ms) asked for; 0 when absent
	Message    string        // the endpoint's error message
}

// Error names the status and the endpoint's message.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("llm: chat: HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

// Retryable reports whether the status is worth another attempt: 408,
// 409, 429 and 5xx.
func (e *StatusError) Retryable() bool {
	switch {
	case e.StatusCode == http.StatusRequestTimeout, e.StatusCode == http.StatusConflict,
		e.StatusCode == http.StatusTooManyRequests, e.StatusCode >= 500:
		return true
	}
	return false
}

// TimeoutError is an attempt that ran out of ChatConfig.Timeout while the
// caller's context was still live. It is transient, and deliberately not a
// context.DeadlineExceeded: a bare context error from Call always means the
// caller's own context ended.
type TimeoutError struct {
	Model string
	After time.Duration
}

// Error names the model and the limit.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("llm: chat with %s: no reply within %s", e.Model, e.After)
}

// Retryable reports true: another attempt may be faster.
func (e *TimeoutError) Retryable() bool { return true }

// replyError is a reply with a success status that could not be decoded.
type replyError struct {
	model string
	err   error
}

func (e *replyError) Error() string {
	return fmt.Sprintf("llm: chat with %s: the reply does not decode: %v", e.model, e.err)
}

func (e *replyError) Unwrap() error { return e.err }

// Retryable reports false: the endpoint answered, in a shape it will repeat.
func (e *replyError) Retryable() bool { return false }

// IsTransient reports whether err is worth another attempt: 408, 409, 429
// and 5xx statuses, an attempt's timeout, and connection failures (reset,
// refused, cut short, network timeouts). The end of the caller's own
// context (context.Canceled, context.DeadlineExceeded) is not transient.
func IsTransient(err error) bool {
	if err == nil {
		return false
	}
	var r interface{ Retryable() bool }
	if errors.As(err, &r) {
		return r.Retryable()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// RetryAfterHint returns how long the endpoint asked the caller to wait
// before the next attempt (a *StatusError's RetryAfter), or 0.
func RetryAfterHint(err error) time.Duration {
	var se *StatusError
	if errors.As(err, &se) {
		return se.RetryAfter
	}
	return 0
}
