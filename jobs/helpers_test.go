package jobs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/pgtest"
)

// filing is a small inline-XBRL 10-K written for a test: revenue and cost
// of revenue tagged in a table, and running text in Item 7.
type filing struct {
	ticker, company string
	revenue, cost   string // in millions, as displayed
	item7           string // management's discussion
}

func (f filing) html() string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:xbrli="http://www.xbrl.org/2003/instance">
<head><title>%[1]s 10-K</title></head>
<body><div style="display:none"><ix:header><ix:resources>
<xbrli:context id="FY"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000000001</xbrli:identifier></xbrli:entity>
 <xbrli:period><xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
</ix:resources></ix:header></div>
<p>%[2]s Annual Report on Form 10-K for the fiscal year ended December 31, 2024.</p>
<p>Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations</p>
<p>%[5]s</p>
<p>Item 8. Financial Statements and Supplementary Data</p>
<table>
<tr><td>Total revenues</td><td>$</td><td><ix:nonFraction name="us-gaap:Revenues" contextRef="FY" unitRef="usd" decimals="-6" scale="6">%[3]s</ix:nonFraction></td></tr>
<tr><td>Cost of revenues</td><td>$</td><td><ix:nonFraction name="us-gaap:CostOfRevenue" contextRef="FY" unitRef="usd" decimals="-6" scale="6">%[4]s</ix:nonFraction></td></tr>
</table>
</body></html>`, f.ticker, f.company, f.revenue, f.cost, f.item7)
}

// fixtureFilings are three issuers with margins under different pressure.
var fixtureFilings = []filing{
	{"ACME", "Acme Corporation", "1,000", "600", "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
		"We expect gross margin to remain under pressure in 2025 as component costs stay elevated."},
	{"BOLT", "Bolt Industries", "2,400", "1,100", "Gross margin increased in 2024 as freight costs fell and pricing held. " +
		"Management expects gross margin to stay near current levels in 2025."},
	{"CRUX", "Crux Systems", "800", "520", "Gross margin declined in 2024 because of warranty charges and lower utilization of our plants. " +
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
	dir := t.TempDir()
	var manifest strings.Builder
	for _, f := range fixtureFilings {
		name := strings.ToLower(f.ticker) + "-10k.html"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(f.html()), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&manifest, `{"path": %q, "ticker": %q, "company": %q, "form": "10-K", "fiscal_year": 2024, "period_end": "2024-12-31"}`+"\n",
			name, f.ticker, f.company)
	}
	entries, errs := corpus.ReadManifest(strings.NewReader(manifest.String()), "manifest.jsonl", dir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
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
