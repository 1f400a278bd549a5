package corpustest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
)

// Filing is a small inline-XBRL annual report written for a test: revenue
// and cost of revenue tagged in a table for fiscal 2024, and running text in
// Item 7 (and in Item 1A when RiskFactors is set).
type Filing struct {
	// Name is the file name; empty means the lower-cased ticker followed
	// by "-10k.html".
	Name string
	// Ticker and Company name the issuer.
	Ticker, Company string
	// Form is the form type; empty means "10-K".
	Form string
	// Revenue and Cost are in millions, as displayed (e.g. "1,000").
	Revenue, Cost string
	// Item7 is management's discussion.
	Item7 string
	// RiskFactors, when set, is the text of an Item 1A before Item 7.
	RiskFactors string
}

// FileName is the name the filing is written under.
func (f Filing) FileName() string {
	if f.Name != "" {
		return f.Name
	}
	return strings.ToLower(f.Ticker) + "-10k.html"
}

// FormType is the filing's form type.
func (f Filing) FormType() string {
	if f.Form != "" {
		return f.Form
	}
	return "10-K"
}

// HTML returns the filing as an inline-XBRL document.
func (f Filing) HTML() string {
	var risk string
	if f.RiskFactors != "" {
		risk = "<p>Item 1A. Risk Factors</p>\n<p>" + f.RiskFactors + "</p>\n"
	}
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
%[7]s<p>Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations</p>
<p>%[6]s</p>
<p>Item 8. Financial Statements and Supplementary Data</p>
<table>
<tr><td>Total revenues</td><td>$</td><td><ix:nonFraction name="us-gaap:Revenues" contextRef="FY" unitRef="usd" decimals="-6" scale="6">%[3]s</ix:nonFraction></td></tr>
<tr><td>Cost of revenues</td><td>$</td><td><ix:nonFraction name="us-gaap:CostOfRevenue" contextRef="FY" unitRef="usd" decimals="-6" scale="6">%[4]s</ix:nonFraction></td></tr>
</table>
</body></html>`, f.Ticker, f.Company, f.Revenue, f.Cost, f.FormType(), f.Item7, risk)
}

// WriteFilings writes the filings and a manifest.jsonl listing them (fiscal
// year 2024, period ending 2024-12-31) into dir, and returns the manifest's
// entries.
func WriteFilings(t testing.TB, dir string, filings ...Filing) []corpus.ManifestEntry {
	t.Helper()
	var manifest strings.Builder
	for _, f := range filings {
		if err := os.WriteFile(filepath.Join(dir, f.FileName()), []byte(f.HTML()), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&manifest, `{"path": %q, "ticker": %q, "company": %q, "form": %q, "fiscal_year": 2024, "period_end": "2024-12-31"}`+"\n",
			f.FileName(), f.Ticker, f.Company, f.FormType())
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.jsonl"), []byte(manifest.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, errs := corpus.ReadManifest(strings.NewReader(manifest.String()), "manifest.jsonl", dir)
	if len(errs) > 0 {
		t.Fatalf("fixture manifest: %v", errs)
	}
	return entries
}

// FixtureStore ingests the filings, through the real ingest path with the
// hash embedder, into a fresh embedded store closed when the test ends.
func FixtureStore(t testing.TB, filings ...Filing) corpus.Store {
	t.Helper()
	dir := t.TempDir()
	entries := WriteFilings(t, dir, filings...)
	store, err := embedded.Open(filepath.Join(dir, "store"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := Ingest(context.Background(), store, entries); err != nil {
		t.Fatal(err)
	}
	return store
}
