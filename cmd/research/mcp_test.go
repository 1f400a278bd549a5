package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/internal/corpustest"
)

// TestMCPStdio runs `research mcp` as a subprocess, as a desktop client
// does: it initializes, lists the tools and searches the filings.
func TestMCPStdio(t *testing.T) {
	bin := buildResearch(t)
	store := ingestFilings(t, corpustest.Filing{Ticker: "ACME", Company: "Acme Corporation", Revenue: "1,000", Cost: "600", Item7: acmeDiscussion})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, append([]string{"mcp"}, store...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "v0"}, nil)
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
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v\n%s", err, stderr.String())
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
