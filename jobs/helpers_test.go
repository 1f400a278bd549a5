package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/pgtest"
)

// fixtureFilings are three issuers with margins under different pressure.
var fixtureFilings = []corpustest.Filing{
	{Ticker: "ACME", Company: "Acme Corporation", Revenue: "1,000", Cost: "600", Item7: "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
		"We expect gross margin to remain under pressure in 2025 as component costs stay elevated."},
	{Ticker: "BOLT", Company: "Bolt Industries", Revenue: "2,400", Cost: "1,100", Item7: "Gross margin increased in 2024 as freight costs fell and pricing held. " +
		"Management expects gross margin to stay near current levels in 2025."},
	{Ticker: "CRUX", Company: "Crux Systems", Revenue: "800", Cost: "520", Item7: "Gross margin declined in 2024 because of warranty charges and lower utilization of our plants. " +
		"We expect these pressures to ease in the second half of 2025."},
}

// questions are research questions over the fixture filings.
var questions = []string{
	"Compare gross-margin pressure at ACME, BOLT and CRUX in fiscal 2024 and say whether management expects it to persist.",
	"What was Acme's gross margin in fiscal 2024, and what drove it?",
	"Does Bolt's management expect its gross margin to hold in 2025?",
	"What drove the change in gross margin at CRUX in 2024?",
}

// ingestFixtures writes the fixture filings and ingests them for tenant.
func ingestFixtures(t testing.TB, pool *pgxpool.Pool, tenant string) {
	t.Helper()
	entries := corpustest.WriteFilings(t, t.TempDir(), fixtureFilings...)
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: tenant})
	if err != nil {
		t.Fatal(err)
	}
	if err := corpustest.Ingest(context.Background(), store, entries); err != nil {
		t.Fatal(err)
	}
}

// setup returns a pool on a fresh migrated schema holding the fixture
// corpus for tenant "acme".
func setup(t *testing.T) *pgxpool.Pool {
	t.Helper()
	return setupBench(t)
}

func setupBench(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.Pool(t)
	ingestFixtures(t, pool, "acme")
	return pool
}

// engines returns the engines of a process over pool built from cfg
// (nil means the defaults), closed when the test ends.
func engines(t testing.TB, pool *pgxpool.Pool, cfg *engine.Config) EngineFactory {
	t.Helper()
	var c engine.Config
	if cfg != nil {
		c = *cfg
	}
	c.Pool = pool
	p, err := engine.New(&c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p.Engine
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		select {
		case <-deadline.C:
			t.Fatalf("%s did not happen within %s", what, timeout)
		case <-tick.C:
		}
	}
}

// count runs a count query.
func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}
