package mcpserver_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/mcpserver"
)

// bearer adds an API key to every request.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// TestMCPHTTP serves streamable HTTP with two tenants' keys: a request
// without a valid key is refused, a tenant's session sees its own runs
// only, and another tenant's key cannot use the session.
func TestMCPHTTP(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	other, err := f.proc.Tenant(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	otherRun, err := other.Engine.Run(ctx, executor.Request{Question: acmeQuestion, Tickers: []string{"ACME"}})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{"key-default": "default", "key-other": "other"}
	h := mcpserver.NewHTTPHandler(f.proc, func(_ context.Context, key string) (string, error) {
		if tn, ok := keys[key]; ok {
			return tn, nil
		}
		return "", mcpserver.ErrUnknownKey
	}, nil, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()

	// No key, a wrong key.
	for _, key := range []string{"", "nope"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("key %q: status %d, want 401", key, resp.StatusCode)
		}
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{"key-default", http.DefaultTransport}}, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, text := call(t, cs, "search_filings", map[string]any{"query": "gross margin"})
	if res.IsError {
		t.Fatalf("search_filings: %s", text)
	}
	res, text = call(t, cs, "ledger_show", map[string]any{"run_id": otherRun.RunID})
	if !res.IsError || !strings.Contains(text, "not found") {
		t.Errorf("ledger_show of another tenant's run: %s", text)
	}

	// The session, asked for with the other tenant's key.
	req, _ := http.NewRequest(http.MethodPost, ts.URL, bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer key-other")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("another tenant's key on the session: status %d, want 403", resp.StatusCode)
	}
}
