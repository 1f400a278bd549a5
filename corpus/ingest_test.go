package corpus_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
)

func sampleCorpus(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.jsonl")); err != nil {
		t.Skipf("sample corpus not found at %s (set CORPUS)", dir)
	}
	return dir
}

// ingested is the whole sample corpus ingested once into an embedded store,
// shared by the tests of this package.
var ingested struct {
	once   sync.Once
	dir    string
	store  *embedded.Store
	report *corpus.IngestReport
	err    error
}

func ingestCorpus(t *testing.T) (*embedded.Store, *corpus.IngestReport) {
	t.Helper()
	dir := sampleCorpus(t)
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (apt-get install poppler-utils); the corpus holds a PDF")
	}
	ingested.once.Do(func() {
		ingested.dir, ingested.err = os.MkdirTemp("", "corpus-ingest-")
		if ingested.err != nil {
			return
		}
		ingested.store, ingested.err = embedded.Open(ingested.dir, nil)
		if ingested.err != nil {
			return
		}
		f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
		if err != nil {
			ingested.err = err
			return
		}
		defer f.Close()
		entries, errs := corpus.ReadManifest(f, "manifest.jsonl", dir)
		if len(errs) > 0 {
			ingested.err = errors.Join(errs...)
			return
		}
		in, err := corpus.NewIngester(ingested.store, corpus.HashEmbedder{})
		if err != nil {
			ingested.err = err
			return
		}
		ingested.report, ingested.err = in.Ingest(context.Background(), entries, nil)
	})
	if ingested.err != nil {
		t.Fatalf("ingesting the sample corpus: %v", ingested.err)
	}
	return ingested.store, ingested.report
}

func TestMain(m *testing.M) {
	code := m.Run()
	if ingested.store != nil {
		ingested.store.Close()
	}
	if ingested.dir != "" {
		os.RemoveAll(ingested.dir)
	}
	os.Exit(code)
}

func TestIngestSampleCorpus(t *testing.T) {
	store, report := ingestCorpus(t)
	if report.Failed != 0 {
		t.Fatalf("failures: %v", report.Err())
	}
	// 20 manifest lines; the PDF is the same filing as text/APPLE_2023Q3_10Q.txt.
	if report.Documents != 19 || report.Duplicates != 1 {
		t.Fatalf("documents %d, duplicates %d; want 19 and 1", report.Documents, report.Duplicates)
	}
	for _, r := range report.Results {
		if r.Outcome != corpus.Duplicate {
			continue
		}
		if !strings.HasSuffix(r.Entry.Path, "APPLE_2023Q3_10Q.pdf") || !strings.HasSuffix(r.KeptSource, "APPLE_2023Q3_10Q.txt") {
			t.Errorf("duplicate %s kept %s; want the PDF reported and the text kept", r.Entry.Path, r.KeptSource)
		}
	}
	st, err := store.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 19 || st.Chunks != report.Chunks || st.Facts != report.Facts || st.Chunks < 5000 || st.Facts < 5000 {
		t.Fatalf("store holds %+v; report %d chunks %d facts", st, report.Chunks, report.Facts)
	}
	// Every chunk addresses its document's text, and text filings know their pages.
	docs, err := store.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Format == corpus.FormatText && d.Pages < 20 {
			t.Errorf("%s has %d pages", d.Source, d.Pages)
		}
	}
}

func TestIngestAgainChangesNothing(t *testing.T) {
	store, first := ingestCorpus(t)
	var entries []corpus.ManifestEntry
	for _, r := range first.Results {
		entries = append(entries, r.Entry)
	}
	in, err := corpus.NewIngester(store, corpus.HashEmbedder{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := in.Ingest(context.Background(), entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Documents != 0 || again.Unchanged != 19 || again.Duplicates != 1 || again.Failed != 0 {
		t.Fatalf("second ingest: %d added, %d unchanged, %d duplicates, %d failed; want 0, 19, 1, 0",
			again.Documents, again.Unchanged, again.Duplicates, again.Failed)
	}
}

func TestIngestedFacts(t *testing.T) {
	store, _ := ingestCorpus(t)
	ctx := context.Background()
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	tests := []struct {
		ticker, concept, start, end, want string
	}{
		{"NVDA", "us-gaap:Revenues", "2022-01-31", "2023-01-29", "26974000000"},
		{"NVDA", "us-gaap:GrossProfit", "2022-01-31", "2023-01-29", "15356000000"},
		{"AAPL", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "2023-10-01", "2024-09-28", "391035000000"},
		{"AAPL", "us-gaap:GrossProfit", "2023-10-01", "2024-09-28", "180683000000"},
	}
	for _, tt := range tests {
		t.Run(tt.ticker+" "+tt.concept, func(t *testing.T) {
			facts, err := store.Facts(ctx, corpus.FactFilter{Ticker: tt.ticker, Concept: tt.concept, PeriodEnd: day(tt.end)})
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, f := range facts {
				if len(f.Dimensions) > 0 || f.Instant || !f.PeriodStart.Equal(day(tt.start)) {
					continue
				}
				found = true
				if !f.Value.Equal(decimal.RequireFromString(tt.want)) || f.Unit != "USD" {
					t.Errorf("value %s %s, want %s USD", f.Value, f.Unit, tt.want)
				}
				doc, err := store.Document(ctx, f.DocumentID)
				if err != nil {
					t.Fatal(err)
				}
				shown := strings.ReplaceAll(doc.Text[f.Start:f.End], ",", "")
				if !strings.HasPrefix(tt.want, shown) {
					t.Errorf("span [%d,%d) shows %q, not the value %s", f.Start, f.End, doc.Text[f.Start:f.End], tt.want)
				}
			}
			if !found {
				t.Fatalf("no undimensioned fact for %s %s..%s among %d", tt.concept, tt.start, tt.end, len(facts))
			}
		})
	}
}

func TestSearchSampleCorpus(t *testing.T) {
	store, _ := ingestCorpus(t)
	s := corpus.NewSearcher(store, corpus.HashEmbedder{})
	ctx := context.Background()
	res, err := s.Search(ctx, corpus.SearchRequest{Query: "gross margin", K: 6, Filter: corpus.Filter{Tickers: []string{"AAPL", "NVDA", "GOOGL"}}})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range res {
		count[r.Ticker]++
		if !strings.Contains(strings.ToLower(r.Text), "margin") {
			t.Errorf("result %s does not mention margins: %.100q", r.ChunkID, r.Text)
		}
	}
	if count["AAPL"] != 2 || count["NVDA"] != 2 || count["GOOGL"] != 2 {
		t.Fatalf("three issuers, k=6: got %v, want 2 each", count)
	}
	res, err = s.Search(ctx, corpus.SearchRequest{Query: "risk factors supply chain", K: 5, Filter: corpus.Filter{Section: "1A", Form: "10-K"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 5 {
		t.Fatalf("section search returned %d results", len(res))
	}
	for _, r := range res {
		if r.Section != "Item 1A" || r.Form != "10-K" {
			t.Errorf("result outside the filter: %s %s", r.Form, r.Section)
		}
	}
}

// TestIngestedTableFacts checks that text filings, which carry no tags,
// are stored with the facts of their financial tables, and inline-XBRL
// ones with their issuer's names and their facts' row labels.
func TestIngestedTableFacts(t *testing.T) {
	store, _ := ingestCorpus(t)
	ctx := context.Background()
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	facts, err := store.Facts(ctx, corpus.FactFilter{Ticker: "AAPL", Kind: corpus.FactTable, Label: "Total net sales", PeriodEnd: day("2022-09-24")})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range facts {
		if f.Concept == "" && f.Value.Equal(decimal.RequireFromString("394328000000")) && !f.Instant {
			found = true
		}
	}
	if !found {
		t.Errorf("no table fact of Apple's FY2022 total net sales of 394,328 million among %+v", facts)
	}
	docs, err := store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		switch {
		case d.Format == corpus.FormatHTML && (d.Entity.Registrant == "" || !slices.Contains(d.Entity.Symbols, d.Ticker)):
			t.Errorf("%s %s: entity %+v lacks its registrant or its own symbol", d.Ticker, d.Form, d.Entity)
		case d.Format != corpus.FormatHTML && !d.Entity.IsZero():
			t.Errorf("%s %s (%s): an entity %+v from a source that tags none", d.Ticker, d.Form, d.Format, d.Entity)
		}
	}
	// An HTML filing adds the cells its tags leave out, and no others.
	nflx, err := store.Facts(ctx, corpus.FactFilter{Ticker: "NFLX", PeriodEnd: day("2024-12-31")})
	if err != nil {
		t.Fatal(err)
	}
	found = false
	for _, f := range nflx {
		if f.Kind == corpus.FactTable && f.Label == "Paid memberships at end of period (2)" && f.Instant &&
			f.Value.Equal(decimal.RequireFromString("301626000")) && f.Unit == "pure" {
			found = true
		}
	}
	if !found {
		t.Error("no table fact of Netflix's 301,626 thousand paid memberships at the end of 2024")
	}
	all, err := store.Facts(ctx, corpus.FactFilter{Ticker: "NFLX"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if f.Kind != corpus.FactTable {
			continue
		}
		for _, g := range all {
			if g.Kind != corpus.FactTable && g.DocumentID == f.DocumentID && g.Start < f.End && f.Start < g.End {
				t.Errorf("table fact %q [%d,%d) doubles tagged %s [%d,%d)", f.Label, f.Start, f.End, g.Concept, g.Start, g.End)
			}
		}
	}
	labelled, err := store.Facts(ctx, corpus.FactFilter{Ticker: "NVDA", Kind: corpus.FactXBRL, Label: "Revenue"})
	if err != nil {
		t.Fatal(err)
	}
	if len(labelled) == 0 {
		t.Error("no NVIDIA fact carries the row label Revenue")
	}
}
