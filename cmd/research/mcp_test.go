package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
)

// TestMCPStdio runs `research mcp` as a subprocess, as a desktop client
// does: it initializes, lists the tools, searches the filings and asks
// with a progress token; when the client leaves, the session run is
// finished.
func TestMCPStdio(t *testing.T) {
	bin := buildResearch(t)
	store := ingestFilings(t, corpustest.Filing{Ticker: "ACME", Company: "Acme Corporation", Revenue: "1,000", Cost: "600", Item7: acmeDiscussion})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, append([]string{"mcp"}, store...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	var progress atomic.Int64
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			if r.Params.ProgressToken == "ask" {
				progress.Add(1)
			}
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "research" {
		t.Errorf("server name %q, want research", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 5 {
		t.Errorf("%d tools, want 5", len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_filings", Arguments: map[string]any{"query": "gross margin", "tickers": []string{"ACME"}}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, `ticker="ACME"`) {
		t.Errorf("search_filings: %s", text)
	}
	var sr struct {
		RunID string `json:"run_id"`
	}
	if b, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(b, &sr) != nil || sr.RunID == "" {
		t.Fatalf("search_filings names no session run: %v", res.StructuredContent)
	}
	ask := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "What drove Acme's gross margin in fiscal 2024?", "tickers": []string{"ACME"}}}
	ask.SetProgressToken("ask")
	if res, err := cs.CallTool(ctx, ask); err != nil || res.IsError {
		t.Fatalf("ask: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v\n%s", err, stderr.String())
	}
	// Sent before the result, so handled by the time the client closed.
	if progress.Load() == 0 {
		t.Errorf("ask sent no progress notifications")
	}
	led, err := embeddedledger.Open(store[len(store)-1], &embeddedledger.Config{Tenant: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	if run, err := led.Run(ctx, sr.RunID); err != nil || run.Status != ledger.StatusPartial {
		t.Errorf("session run after the client left: %+v, %v; want partial\n%s", run, err, stderr.String())
	}
}

// TestMCPFlags checks the mcp command's flag errors.
func TestMCPFlags(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "--max-budget-usd", "-1"},
		{"mcp", "--max-timeout", "0s"},
		{"mcp", "--max-tool-calls", "0"},
	} {
		if code, _, errOut := runCLI(t, append(args, "--db", "", "--data-dir", t.TempDir())...); code != 1 || !strings.Contains(errOut, args[1]) {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
}
