package executor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/internal/corpustest"
)

// filing is a small inline-XBRL 10-K written for a test: revenue and cost
// of revenue tagged in a table, and running text in Item 7.
type filing struct {
	name, ticker, company, form string
	revenue, cost               string // in millions, as displayed
	item7                       string // management's discussion
}

func (f filing) html() string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:xbrli="http://www.xbrl.org/2003/instance">
<head><title>%[1]s %[5]s</title></head>
<body><div style="display:none"><ix:header><ix:resources>
<xbrli:context id="FY"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000000001</xbrli:identifier></xbrli:entity>
 <xbrli:period><xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
</ix:resources></ix:header></div>
<p>%[2]s Annual Report on Form %[5]s for the fiscal year ended December 31, 2024.</p>
<p>Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations</p>
<p>%[6]s</p>
<p>Item 8. Financial Statements and Supplementary Data</p>
<table>
<tr><td>Total revenues</td><td>$</td><td><ix:nonFraction name="us-gaap:Revenues" contextRef="FY" unitRef="usd" decimals="-6" scale="6">%[3]s</ix:nonFraction></td></tr>
<tr><td>Cost of revenues</td><td>$</td><td><ix:nonFraction name="us-gaap:CostOfRevenue" contextRef="FY" unitRef="usd" decimals="-6" scale="6">%[4]s</ix:nonFraction></td></tr>
</table>
</body></html>`, f.ticker, f.company, f.revenue, f.cost, f.form, f.item7)
}

// fixtureStore ingests the filings, through the real ingest path, into a
// fresh embedded store.
func fixtureStore(t *testing.T, filings ...filing) corpus.Store {
	t.Helper()
	dir := t.TempDir()
	var manifest strings.Builder
	for _, f := range filings {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.html()), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&manifest, `{"path": %q, "ticker": %q, "company": %q, "form": %q, "fiscal_year": 2024, "period_end": "2024-12-31"}`+"\n",
			f.name, f.ticker, f.company, f.form)
	}
	entries, errs := corpus.ReadManifest(strings.NewReader(manifest.String()), "manifest.jsonl", dir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	store, err := embedded.Open(filepath.Join(dir, "store"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := corpustest.Ingest(context.Background(), store, entries); err != nil {
		t.Fatal(err)
	}
	return store
}

const acmeDiscussion = "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
	"We expect gross margin to remain under pressure in 2025 as component costs stay elevated."
