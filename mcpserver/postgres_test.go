package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/mcpserver"
)

// acmePool is a database whose tenant acme holds one filing of ACME.
func acmePool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.Pool(t)
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	entries := corpustest.WriteFilings(t, t.TempDir(), corpustest.Filing{Ticker: "ACME", Company: "Acme Corporation", Revenue: "1,000", Cost: "600", Item7: acmeDiscussion})
	if err := corpustest.Ingest(context.Background(), store, entries); err != nil {
		t.Fatal(err)
	}
	return pool
}

// TestMCPPostgresTenants serves two tenants of one database: each sees
// its own filings only, whatever its arguments name.
func TestMCPPostgresTenants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := acmePool(t)
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

// TestMCPPostgresDayBudget gives a tenant's day one fact lookup: the
// first lookup_fact is charged to the session run and the tenant's day,
// the second is refused naming the day's limit, and a search, which the
// day still allows, goes on.
func TestMCPPostgresDayBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := acmePool(t)
	// One clock for the engine's budget and the server: the test cannot
	// straddle midnight.
	now := time.Now()
	clock := func() time.Time { return now }
	proc, err := engine.New(&engine.Config{Pool: pool, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	tn, err := proc.Tenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	day := budget.DayScope(now)
	limits := budget.NoLimits()
	limits.FactCalls = 1
	if err := tn.Budget.SetLimits(ctx, day, limits); err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(tn, &mcpserver.Config{Tenant: "acme", Now: clock})
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
	defer srv.Close(ctx)
	defer cs.Close()

	res, text := call(t, cs, "lookup_fact", map[string]any{"ticker": "ACME", "metric": "revenue"})
	if res.IsError {
		t.Fatalf("lookup_fact within the day's budget: %s", text)
	}
	var tr mcpserver.ToolResult
	structured(t, res, &tr)
	for _, scope := range []budget.Scope{day, budget.RunScope(tr.RunID)} {
		u, err := tn.Budget.Usage(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		if u.Settled.FactCalls != 1 || !u.Reserved.IsZero() {
			t.Errorf("%s after one lookup: settled %s, reserved %s; want one fact call settled", scope, u.Settled, u.Reserved)
		}
	}
	res, text = call(t, cs, "lookup_fact", map[string]any{"ticker": "ACME", "metric": "cost of revenue"})
	if !res.IsError || !strings.Contains(text, "budget exhausted") || !strings.Contains(text, "tenant's budget for "+day.ID) ||
		!strings.Contains(text, "fact_calls") || strings.Contains(text, "internal") {
		t.Errorf("a lookup past the day's limit: %q; want a refusal naming the day's fact_calls", text)
	}
	if res, text := call(t, cs, "search_filings", map[string]any{"query": "gross margin"}); res.IsError {
		t.Errorf("a search the day allows: %s", text)
	}
	u, err := tn.Budget.Usage(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	if u.Settled.FactCalls != 1 || u.Settled.SearchCalls != 1 {
		t.Errorf("the day's settled usage %s; want 1 fact call and 1 search call", u.Settled)
	}
	if err := srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if run, err := tn.Ledger.Run(ctx, tr.RunID); err != nil || run.Status != ledger.StatusBudgetExhausted {
		t.Errorf("session run after Close: %+v, %v; want budget_exhausted", run, err)
	}
}
