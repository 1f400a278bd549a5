package planner

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
)

// sampleCatalog is a catalog of the sample corpus's manifest; the test is
// skipped when the corpus is absent.
func sampleCatalog(t testing.TB) *Catalog {
	t.Helper()
	entries := corpustest.Entries(t)
	docs := make([]corpus.Document, 0, len(entries))
	for _, e := range entries {
		format := corpus.FormatText
		switch strings.ToLower(filepath.Ext(e.Path)) {
		case ".html", ".htm":
			format = corpus.FormatHTML
		case ".pdf":
			format = corpus.FormatPDF
		}
		docs = append(docs, corpus.Document{
			ID: e.Path, Ticker: e.Ticker, Company: e.Company, Form: e.Form, FiscalYear: e.FiscalYear,
			PeriodEnd: e.PeriodEnd, Filed: e.Filed, Source: e.Path, Format: format,
		})
	}
	return NewCatalog(docs)
}

// smallCatalog is a hand-made catalog for tests that need no corpus.
func smallCatalog() *Catalog {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	return NewCatalog([]corpus.Document{
		{ID: "a24", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-09-28"), Format: corpus.FormatHTML},
		{ID: "a22", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-K", FiscalYear: 2022, PeriodEnd: day("2022-09-24"), Format: corpus.FormatText},
		{ID: "a23q", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-Q", FiscalYear: 2023, PeriodEnd: day("2023-07-01"), Format: corpus.FormatPDF},
		{ID: "a23qt", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-Q", FiscalYear: 2023, PeriodEnd: day("2023-07-01"), Format: corpus.FormatText},
		{ID: "n23", Ticker: "NVDA", Company: "NVIDIA Corporation", Form: "10-K", FiscalYear: 2023, PeriodEnd: day("2023-01-29"), Format: corpus.FormatHTML},
		{ID: "g24", Ticker: "GOOGL", Company: "Alphabet Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-12-31"), Format: corpus.FormatHTML},
		{ID: "m24", Ticker: "META", Company: "Meta Platforms, Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-12-31"), Format: corpus.FormatHTML},
		{ID: "c22", Ticker: "COST", Company: "Costco Wholesale Corporation", Form: "10-K", FiscalYear: 2022, PeriodEnd: day("2022-08-28"), Format: corpus.FormatText},
		{ID: "z24", Ticker: "AMZN", Company: "Amazon.com, Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-12-31"), Format: corpus.FormatHTML},
	})
}
