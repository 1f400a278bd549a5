package planner

import (
	"slices"
	"testing"

	"github.com/ledgerline/research/corpus"
)

func TestCatalog(t *testing.T) {
	cat := smallCatalog()
	if got, want := cat.Tickers(), []string{"AAPL", "AMZN", "COST", "GOOGL", "META", "NVDA"}; !slices.Equal(got, want) {
		t.Fatalf("Tickers() = %v, want %v", got, want)
	}
	// The 10-Q ingested as text and as PDF is one filing, the text one.
	fs := cat.Filings("AAPL")
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	if want := []string{"a22", "a23qt", "a24"}; !slices.Equal(ids, want) {
		t.Fatalf("Filings(AAPL) = %v, want %v (oldest first, one per filing)", ids, want)
	}
	tests := []struct {
		name   string
		get    func() (corpus.Document, bool)
		wantID string // "" means not found
	}{
		{"latest any", func() (corpus.Document, bool) { return cat.Latest("AAPL", "") }, "a24"},
		{"latest 10-Q", func() (corpus.Document, bool) { return cat.Latest("AAPL", "10-Q") }, "a23qt"},
		{"latest of unknown", func() (corpus.Document, bool) { return cat.Latest("TSLA", "") }, ""},
		{"filing 10-K", func() (corpus.Document, bool) { return cat.Filing("AAPL", 2022, "10-K") }, "a22"},
		{"filing any prefers 10-K", func() (corpus.Document, bool) { return cat.Filing("AAPL", 2024, "") }, "a24"},
		{"filing any falls back to 10-Q", func() (corpus.Document, bool) { return cat.Filing("AAPL", 2023, "") }, "a23qt"},
		{"filing of missing year", func() (corpus.Document, bool) { return cat.Filing("AAPL", 2019, "") }, ""},
		{"filing of wrong form", func() (corpus.Document, bool) { return cat.Filing("AAPL", 2023, "10-K") }, ""},
	}
	for _, tt := range tests {
		d, ok := tt.get()
		if ok != (tt.wantID != "") || d.ID != tt.wantID {
			t.Errorf("%s: got %q %v, want %q", tt.name, d.ID, ok, tt.wantID)
		}
	}
	for _, tt := range []struct {
		ticker string
		fy     int
		want   bool
	}{{"AAPL", 2024, true}, {"AAPL", 2022, false}, {"AAPL", 2023, false}, {"NVDA", 2023, true}, {"NVDA", 2024, false}, {"COST", 2022, false}} {
		if got := cat.HasFacts(tt.ticker, tt.fy); got != tt.want {
			t.Errorf("HasFacts(%s, %d) = %v, want %v", tt.ticker, tt.fy, got, tt.want)
		}
	}
	for ticker, want := range map[string]string{"AAPL": "Apple", "NVDA": "NVIDIA", "META": "Meta", "AMZN": "Amazon", "COST": "Costco", "TSLA": "TSLA"} {
		if got := cat.ShortName(ticker); got != want {
			t.Errorf("ShortName(%s) = %q, want %q", ticker, got, want)
		}
	}
	if got := cat.Company("META"); got != "Meta Platforms, Inc." {
		t.Errorf("Company(META) = %q", got)
	}
}

func TestCatalogOfSampleCorpus(t *testing.T) {
	cat := sampleCatalog(t)
	want := []string{"AAPL", "AMZN", "COST", "EBAY", "GOOGL", "INTC", "META", "MSFT", "NFLX", "NVDA", "ORCL", "WMT"}
	if got := cat.Tickers(); !slices.Equal(got, want) {
		t.Fatalf("Tickers() = %v, want %v", got, want)
	}
	if d, ok := cat.Latest("AAPL", "10-K"); !ok || d.FiscalYear != 2024 || d.Format != corpus.FormatHTML {
		t.Errorf("Latest(AAPL, 10-K) = %+v", d)
	}
	if d, ok := cat.Latest("AAPL", "10-Q"); !ok || d.FiscalYear != 2025 {
		t.Errorf("Latest(AAPL, 10-Q) = FY%d", d.FiscalYear)
	}
	if !cat.HasFacts("NFLX", 2024) || cat.HasFacts("NFLX", 2022) || cat.HasFacts("INTC", 2020) {
		t.Error("HasFacts must be true for the inline-XBRL filings only")
	}
}
