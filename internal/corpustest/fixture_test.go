package corpustest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
)

func TestFilingDefaults(t *testing.T) {
	for _, tc := range []struct {
		name     string
		f        Filing
		file     string
		form     string
		risk     bool
		contains []string
	}{
		{"defaults", Filing{Ticker: "ACME", Company: "Acme Corp", Revenue: "1,000", Cost: "600", Item7: "Margins fell."},
			"acme-10k.html", "10-K", false,
			[]string{"<title>ACME 10-K</title>", "Acme Corp Annual Report on Form 10-K", "<p>Margins fell.</p>", `scale="6">1,000</ix:nonFraction>`, `us-gaap:CostOfRevenue" contextRef="FY" unitRef="usd" decimals="-6" scale="6">600<`}},
		{"named amendment", Filing{Name: "acme-10ka.html", Ticker: "ACME", Company: "Acme Corp", Form: "10-K/A", Revenue: "1,250", Cost: "600"},
			"acme-10ka.html", "10-K/A", false,
			[]string{"<title>ACME 10-K/A</title>", "Annual Report on Form 10-K/A", `scale="6">1,250</ix:nonFraction>`}},
		{"risk factors", Filing{Ticker: "BOLT", Company: "Bolt", RiskFactors: "Suppliers are few.", Item7: "Freight fell."},
			"bolt-10k.html", "10-K", true,
			[]string{"<p>Item 1A. Risk Factors</p>\n<p>Suppliers are few.</p>\n<p>Item 7."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.FileName(); got != tc.file {
				t.Errorf("FileName() = %q, want %q", got, tc.file)
			}
			if got := tc.f.FormType(); got != tc.form {
				t.Errorf("FormType() = %q, want %q", got, tc.form)
			}
			html := tc.f.HTML()
			for _, want := range tc.contains {
				if !strings.Contains(html, want) {
					t.Errorf("HTML lacks %q:\n%s", want, html)
				}
			}
			if got := strings.Contains(html, "Item 1A"); got != tc.risk {
				t.Errorf("HTML holds Item 1A: %v, want %v", got, tc.risk)
			}
		})
	}
}

func TestWriteFilings(t *testing.T) {
	dir := t.TempDir()
	entries := WriteFilings(t, dir,
		Filing{Ticker: "acme", Company: "Acme Corp", Revenue: "1,000", Cost: "600"},
		Filing{Name: "amended.html", Ticker: "ACME", Company: "Acme Corp", Form: "10-K/A", Revenue: "1,250", Cost: "600"},
	)
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2", len(entries))
	}
	for i, want := range []struct{ path, ticker, form string }{
		{filepath.Join(dir, "acme-10k.html"), "ACME", "10-K"},
		{filepath.Join(dir, "amended.html"), "ACME", "10-K/A"},
	} {
		e := entries[i]
		if e.Path != want.path || e.Ticker != want.ticker || e.Form != want.form || e.FiscalYear != 2024 || e.PeriodEnd.Format("2006-01-02") != "2024-12-31" {
			t.Errorf("entry %d = %+v, want %+v for fiscal 2024 ending 2024-12-31", i, e, want)
		}
		if _, err := os.Stat(e.Path); err != nil {
			t.Errorf("entry %d: %v", i, err)
		}
	}
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	again, errs := corpus.ReadManifest(f, "manifest.jsonl", dir)
	if len(errs) > 0 || len(again) != len(entries) {
		t.Errorf("manifest.jsonl reads as %d entries (errors %v), want %d", len(again), errs, len(entries))
	}
}

func TestFixtureStore(t *testing.T) {
	store := FixtureStore(t,
		Filing{Ticker: "ACME", Company: "Acme Corp", Revenue: "1,000", Cost: "600", Item7: "Gross margin decreased in 2024."},
		Filing{Ticker: "BOLT", Company: "Bolt Industries", Revenue: "2,400", Cost: "1,100", Item7: "Gross margin increased in 2024."},
	)
	ctx := context.Background()
	docs, err := store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Ticker != "ACME" || docs[1].Ticker != "BOLT" {
		t.Fatalf("documents = %+v, want ACME and BOLT", docs)
	}
	facts, err := store.Facts(ctx, corpus.FactFilter{Ticker: "BOLT", Concept: "us-gaap:Revenues"})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].Value.String() != "2400000000" {
		t.Errorf("BOLT revenue facts = %+v, want one of 2400000000", facts)
	}
}
