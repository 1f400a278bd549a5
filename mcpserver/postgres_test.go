package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/mcpserver"
)

// TestMCPPostgresTenants serves two tenants of one database: each sees
// its own filings only, whatever its arguments name.
func TestMCPPostgresTenants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	entries := corpustest.WriteFilings(t, t.TempDir(), corpustest.Filing{Ticker: "ACME", Company: "Acme Corporation", Revenue: "1,000", Cost: "600", Item7: acmeDiscussion})
	if err := corpustest.Ingest(ctx, store, entries); err != nil {
		t.Fatal(err)
	}
	proc, err := engine.New(&engine.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()

	session := func(tenant string) *mcp.ClientSession {
		tn, err := proc.Tenant(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := mcpserver.New(tn, &mcpserver.Config{Tenant: tenant})
		if err != nil {
			t.Fatal(err)
		}
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "pg-test"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close(); srv.Close(context.Background()) })
		return cs
	}
	acme, beta := session("acme"), session("beta")
	res, text := call(t, acme, "lookup_fact", map[string]any{"ticker": "ACME", "metric": "revenue"})
	if res.IsError || !strings.Contains(text, "1000000000") {
		t.Errorf("acme lookup_fact: %s", text)
	}
	for _, args := range []map[string]any{{"query": "gross margin"}, {"query": "gross margin", "tickers": []string{"ACME"}}} {
		if res, text := call(t, beta, "search_filings", args); !res.IsError {
			t.Errorf("beta searched acme's filings with %v: %s", args, text)
		}
	}
	if res, text := call(t, beta, "ask", map[string]any{"question": acmeQuestion, "tickers": []string{"ACME"}}); res.IsError || strings.Contains(text, acmeDiscussion[:40]) {
		t.Errorf("beta's ask reached acme's filings: %.400s", text)
	}
}
