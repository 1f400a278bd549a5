// Package storetest is the contract every corpus.Store implementation
// passes: the Postgres store and the embedded store run the same suite, so a
// search or a fact lookup means the same thing whichever store answers it.
package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
)

// Dim is the embedding dimension the suite uses (the stores' fixed width).
const Dim = 384

// Run runs the contract suite. open returns a new, empty store for one
// subtest; the suite closes it.
func Run(t *testing.T, open func(t *testing.T) corpus.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s corpus.Store)
	}{
		{"AddDocumentIsIdempotent", testAddDocumentIsIdempotent},
		{"DocumentRoundTrip", testDocumentRoundTrip},
		{"FindFiling", testFindFiling},
		{"DocumentsListing", testDocumentsListing},
		{"ChunksByID", testChunksByID},
		{"FullTextAND", testFullTextAND},
		{"FullTextFallsBackToOR", testFullTextFallsBackToOR},
		{"FullTextPhraseAndNegation", testFullTextPhraseAndNegation},
		{"FullTextStemming", testFullTextStemming},
		{"FullTextFilters", testFullTextFilters},
		{"FullTextEmptyQuery", testFullTextEmptyQuery},
		{"VectorNearest", testVectorNearest},
		{"VectorFilteredReturnsK", testVectorFilteredReturnsK},
		{"Facts", testFacts},
		{"Stats", testStats},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			tt.fn(t, s)
		})
	}
}

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// docSpec describes a fixture document: its paragraphs become its chunks.
type docSpec struct {
	ticker, form string
	fy           int
	periodEnd    string
	sections     []string // section per paragraph; "" for none
	paragraphs   []string
}

// vec returns a deterministic unit vector for a seed.
func vec(seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	v := make([]float32, Dim)
	var n float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

// near returns a unit vector close to v (cosine about 0.99).
func near(v []float32, seed uint64) []float32 {
	noise := vec(seed)
	out := make([]float32, len(v))
	var n float64
	for i := range v {
		x := float64(v[i]) + 0.1*float64(noise[i])
		out[i] = float32(x)
		n += x * x
	}
	n = math.Sqrt(n)
	for i := range out {
		out[i] = float32(float64(out[i]) / n)
	}
	return out
}

// build turns a spec into a document and chunks; chunk i gets vec(seed+i).
func build(spec docSpec, seed uint64) (*corpus.Document, []corpus.Chunk) {
	var text strings.Builder
	type span struct{ start, end int }
	spans := make([]span, len(spec.paragraphs))
	for i, p := range spec.paragraphs {
		spans[i].start = text.Len()
		text.WriteString(p)
		spans[i].end = text.Len()
		text.WriteString("\n")
	}
	doc := &corpus.Document{
		Ticker:     spec.ticker,
		Company:    spec.ticker + " Corp",
		Form:       spec.form,
		FiscalYear: spec.fy,
		PeriodEnd:  day(spec.periodEnd),
		Source:     fmt.Sprintf("fixture/%s-%s-%d", spec.ticker, spec.form, spec.fy),
		Format:     corpus.FormatText,
		Embedder:   "fixture",
		Text:       text.String(),
	}
	doc.ID = corpus.DocumentID(doc.Text)
	chunks := make([]corpus.Chunk, len(spec.paragraphs))
	for i, p := range spec.paragraphs {
		sec := ""
		if i < len(spec.sections) {
			sec = spec.sections[i]
		}
		chunks[i] = corpus.Chunk{
			ID:         corpus.ChunkID(doc.ID, i),
			DocumentID: doc.ID,
			Ordinal:    i,
			Section:    sec,
			Start:      spans[i].start,
			End:        spans[i].end,
			Text:       p,
			Embedding:  vec(seed + uint64(i)),
		}
	}
	return doc, chunks
}

func add(t *testing.T, s corpus.Store, doc *corpus.Document, chunks []corpus.Chunk, facts []corpus.Fact) {
	t.Helper()
	added, err := s.AddDocument(context.Background(), doc, chunks, facts)
	if err != nil {
		t.Fatalf("AddDocument(%s): %v", doc.Source, err)
	}
	if !added {
		t.Fatalf("AddDocument(%s) = false on first add", doc.Source)
	}
}

var appleSpec = docSpec{
	ticker: "AAPL", form: "10-K", fy: 2024, periodEnd: "2024-09-28",
	sections: []string{"Item 1", "Item 1A", "Item 7", "Item 7", "Item 8"},
	paragraphs: []string{
		"The Company designs, manufactures and markets smartphones, personal computers, tablets and wearables.",
		"The Company's business can be affected by competitive pressures on pricing and gross margin.",
		"Products gross margin percentage decreased due to weaker foreign currencies and a different mix of products.",
		"Services net sales increased due to higher advertising, cloud and payment services revenue.",
		"Total net sales | 391,035 | 383,285 | 394,328",
	},
}

var nvidiaSpec = docSpec{
	ticker: "NVDA", form: "10-K", fy: 2023, periodEnd: "2023-01-29",
	sections: []string{"Item 1", "Item 7", "Item 7"},
	paragraphs: []string{
		"NVIDIA pioneered accelerated computing for data center and gaming markets.",
		"Gross margin decreased due to inventory provisions and lower gaming revenue.",
		"Data Center revenue grew on strong demand from hyperscale customers.",
	},
}

var appleQuarterSpec = docSpec{
	ticker: "AAPL", form: "10-Q", fy: 2025, periodEnd: "2025-06-28",
	sections: []string{"Item 2", "Item 2"},
	paragraphs: []string{
		"Products gross margin decreased during the quarter due to tariff costs.",
		"Services gross margin increased due to a different services mix.",
	},
}

func testAddDocumentIsIdempotent(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	doc, chunks := build(appleSpec, 1)
	add(t, s, doc, chunks, nil)
	again, err := s.AddDocument(ctx, doc, chunks, nil)
	if err != nil {
		t.Fatalf("second AddDocument: %v", err)
	}
	if again {
		t.Fatal("second AddDocument of the same document reported added")
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 1 || st.Chunks != len(chunks) {
		t.Fatalf("after adding twice: %d documents, %d chunks; want 1, %d", st.Documents, st.Chunks, len(chunks))
	}
}

func testDocumentRoundTrip(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	doc, chunks := build(appleSpec, 1)
	doc.Filed = day("2024-11-01")
	doc.Pages = 3
	add(t, s, doc, chunks, nil)
	got, err := s.Document(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != doc.Text || got.Ticker != "AAPL" || got.Company != doc.Company || got.Form != "10-K" ||
		got.FiscalYear != 2024 || !got.PeriodEnd.Equal(doc.PeriodEnd) || !got.Filed.Equal(doc.Filed) ||
		got.Source != doc.Source || got.Format != doc.Format || got.Pages != 3 || got.Embedder != "fixture" {
		t.Fatalf("Document round trip:\n got %+v\nwant %+v", got, doc)
	}
	if _, err := s.Document(ctx, corpus.DocumentID("nothing")); !errors.Is(err, corpus.ErrNotFound) {
		t.Fatalf("Document(unknown) error = %v, want ErrNotFound", err)
	}
}

func testFindFiling(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	doc, chunks := build(appleSpec, 1)
	add(t, s, doc, chunks, nil)
	got, err := s.FindFiling(ctx, "AAPL", "10-K", day("2024-09-28"))
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != doc.ID {
		t.Fatalf("FindFiling id = %s, want %s", got.ID, doc.ID)
	}
	if got.Text != "" {
		t.Fatal("FindFiling returned the document text; listings carry metadata only")
	}
	for _, miss := range []struct {
		ticker, form, end string
	}{{"AAPL", "10-Q", "2024-09-28"}, {"MSFT", "10-K", "2024-09-28"}, {"AAPL", "10-K", "2023-09-30"}} {
		if _, err := s.FindFiling(ctx, miss.ticker, miss.form, day(miss.end)); !errors.Is(err, corpus.ErrNotFound) {
			t.Errorf("FindFiling(%v) error = %v, want ErrNotFound", miss, err)
		}
	}
}

func testDocumentsListing(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	for i, spec := range []docSpec{appleQuarterSpec, nvidiaSpec, appleSpec} {
		doc, chunks := build(spec, uint64(100*i))
		add(t, s, doc, chunks, nil)
	}
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		if d.Text != "" {
			t.Errorf("Documents() carries text for %s", d.Source)
		}
		got = append(got, fmt.Sprintf("%s %s %s", d.Ticker, d.PeriodEnd.Format(time.DateOnly), d.Form))
	}
	want := []string{"AAPL 2024-09-28 10-K", "AAPL 2025-06-28 10-Q", "NVDA 2023-01-29 10-K"}
	if !slices.Equal(got, want) {
		t.Fatalf("Documents() = %q, want %q", got, want)
	}
}

func testChunksByID(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	doc, chunks := build(appleSpec, 1)
	add(t, s, doc, chunks, nil)
	ids := []string{chunks[3].ID, "nope-00001", chunks[0].ID}
	got, err := s.Chunks(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ChunkID != chunks[3].ID || got[1].ChunkID != chunks[0].ID {
		t.Fatalf("Chunks(%q) = %v, want chunks 3 and 0 in that order", ids, resultIDs(got))
	}
	r := got[0]
	c := chunks[3]
	if r.DocumentID != doc.ID || r.Ticker != "AAPL" || r.Company != doc.Company || r.Form != "10-K" ||
		r.FiscalYear != 2024 || !r.PeriodEnd.Equal(doc.PeriodEnd) || r.Section != c.Section ||
		r.Start != c.Start || r.End != c.End || r.Text != c.Text {
		t.Fatalf("Chunks result %+v does not carry chunk %+v with its document's metadata", r, c)
	}
	if doc.Text[r.Start:r.End] != r.Text {
		t.Fatalf("chunk span [%d,%d) does not address its text", r.Start, r.End)
	}
}

func resultIDs(rs []corpus.SearchResult) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ChunkID
	}
	return out
}

func resultTexts(rs []corpus.SearchResult) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Text
	}
	return out
}

func addAll(t *testing.T, s corpus.Store) (apple, nvidia, appleQ []corpus.Chunk) {
	d1, apple := build(appleSpec, 1)
	d2, nvidia := build(nvidiaSpec, 1000)
	d3, appleQ := build(appleQuarterSpec, 2000)
	add(t, s, d1, apple, nil)
	add(t, s, d2, nvidia, nil)
	add(t, s, d3, appleQ, nil)
	return apple, nvidia, appleQ
}

func testFullTextAND(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	apple, _, _ := addAll(t, s)
	got, err := s.FullTextSearch(ctx, "advertising cloud", corpus.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ChunkID != apple[3].ID {
		t.Fatalf("FullTextSearch(advertising cloud) = %q, want only the services chunk", resultTexts(got))
	}
	if got[0].Score <= 0 {
		t.Fatalf("score %v, want > 0", got[0].Score)
	}
	// Chunks matching every word rank before chunks matching some.
	got, err = s.FullTextSearch(ctx, "gross margin decreased", corpus.Filter{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("FullTextSearch(gross margin decreased, k=3) returned %d results, want 3", len(got))
	}
	for _, r := range got {
		l := strings.ToLower(r.Text)
		if !strings.Contains(l, "gross margin") || !strings.Contains(l, "decreas") {
			t.Errorf("result %q does not match every word, yet three chunks do", r.Text)
		}
	}
}

func testFullTextFallsBackToOR(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	addAll(t, s)
	// No chunk holds all of these words; the best partial matches are returned.
	got, err := s.FullTextSearch(ctx, "tariff inventory provisions hyperscale", corpus.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"Products gross margin decreased during the quarter due to tariff costs.":      true,
		"Gross margin decreased due to inventory provisions and lower gaming revenue.": true,
		"Data Center revenue grew on strong demand from hyperscale customers.":         true,
	}
	if len(got) != len(want) {
		t.Fatalf("OR fallback returned %q, want the %d chunks holding any word", resultTexts(got), len(want))
	}
	for _, r := range got {
		if !want[r.Text] {
			t.Errorf("OR fallback returned unexpected chunk %q", r.Text)
		}
	}
	// The chunk matching two words ranks first.
	if got[0].Text != "Gross margin decreased due to inventory provisions and lower gaming revenue." {
		t.Errorf("first OR result %q, want the chunk matching two words", got[0].Text)
	}
}

func testFullTextPhraseAndNegation(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	apple, nvidia, _ := addAll(t, s)
	got, err := s.FullTextSearch(ctx, `"data center" revenue`, corpus.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].ChunkID != nvidia[2].ID {
		t.Fatalf(`FullTextSearch("data center" revenue) = %q, want the data center chunk first`, resultTexts(got))
	}
	got, err = s.FullTextSearch(ctx, `gross margin -tariff -inventory`, corpus.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		l := strings.ToLower(r.Text)
		if strings.Contains(l, "tariff") || strings.Contains(l, "inventory") {
			t.Errorf("negated word present in %q", r.Text)
		}
		// Negations stay required in the OR fallback: it must not
		// degrade into "anything without the word".
		if !strings.Contains(l, "gross") && !strings.Contains(l, "margin") {
			t.Errorf("result %q matches no positive word", r.Text)
		}
	}
	if !slices.Contains(resultIDs(got), apple[2].ID) {
		t.Errorf("gross margin -tariff -inventory = %q, want the products gross margin chunk", resultTexts(got))
	}
}

func testFullTextStemming(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	apple, _, _ := addAll(t, s)
	// "pressure" matches "pressures"; "manufacturing" matches "manufactures".
	for _, q := range []string{"competitive pressure", "manufacturing smartphone"} {
		got, err := s.FullTextSearch(ctx, q, corpus.Filter{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || (got[0].ChunkID != apple[1].ID && got[0].ChunkID != apple[0].ID) {
			t.Errorf("FullTextSearch(%q) = %q, want a stemmed match", q, resultTexts(got))
		}
	}
}

func testFullTextFilters(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	addAll(t, s)
	tests := []struct {
		name   string
		filter corpus.Filter
		want   func(r corpus.SearchResult) bool
		n      int
	}{
		{"ticker", corpus.Filter{Tickers: []string{"NVDA"}}, func(r corpus.SearchResult) bool { return r.Ticker == "NVDA" }, 1},
		{"tickers", corpus.Filter{Tickers: []string{"NVDA", "AAPL"}}, func(r corpus.SearchResult) bool { return r.Ticker != "" }, 5},
		{"form", corpus.Filter{Form: "10-Q"}, func(r corpus.SearchResult) bool { return r.Form == "10-Q" }, 2},
		{"fiscal year", corpus.Filter{FiscalYears: []int{2024, 2023}}, func(r corpus.SearchResult) bool { return r.FiscalYear != 2025 }, 3},
		{"section", corpus.Filter{Section: "Item 7"}, func(r corpus.SearchResult) bool { return r.Section == "Item 7" }, 2},
		{"combined", corpus.Filter{Tickers: []string{"AAPL"}, Form: "10-K", Section: "Item 1A"}, func(r corpus.SearchResult) bool { return r.Section == "Item 1A" }, 1},
		{"none", corpus.Filter{Tickers: []string{"MSFT"}}, func(r corpus.SearchResult) bool { return false }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.FullTextSearch(ctx, "gross margin", tt.filter, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.n {
				t.Fatalf("got %d results %q, want %d", len(got), resultTexts(got), tt.n)
			}
			for _, r := range got {
				if !tt.want(r) {
					t.Errorf("result outside the filter: %+v", r)
				}
			}
		})
	}
}

func testFullTextEmptyQuery(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	addAll(t, s)
	for _, q := range []string{"", "   ", "the and of", `""`, "-"} {
		got, err := s.FullTextSearch(ctx, q, corpus.Filter{}, 10)
		if err != nil {
			t.Errorf("FullTextSearch(%q) error %v, want none", q, err)
		}
		if len(got) != 0 {
			t.Errorf("FullTextSearch(%q) = %d results, want 0", q, len(got))
		}
	}
}

func testVectorNearest(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	apple, _, _ := addAll(t, s)
	q := near(apple[2].Embedding, 77)
	got, err := s.VectorSearch(ctx, q, corpus.Filter{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("VectorSearch k=3 returned %d", len(got))
	}
	if got[0].ChunkID != apple[2].ID {
		t.Fatalf("nearest = %s, want %s", got[0].ChunkID, apple[2].ID)
	}
	if got[0].Score < 0.9 || got[0].Score > 1.0001 {
		t.Fatalf("cosine similarity of a near vector = %v, want about 0.99", got[0].Score)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Fatalf("results not ordered by similarity: %v", got)
		}
	}
}

// testVectorFilteredReturnsK holds the store to k results when a filter
// matches a small share of the chunks: one filing among twenty.
func testVectorFilteredReturnsK(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	words := strings.Fields("revenue margin cost growth demand supply risk cash debt tax segment product service customer market price")
	var target []corpus.Chunk
	for d := range 20 {
		spec := docSpec{ticker: fmt.Sprintf("T%02d", d), form: "10-K", fy: 2020 + d%4, periodEnd: fmt.Sprintf("%d-12-31", 2000+d)}
		for p := range 60 {
			spec.paragraphs = append(spec.paragraphs, fmt.Sprintf("Filing %d paragraph %d about %s and %s.", d, p, words[(d+p)%len(words)], words[(d*7+p)%len(words)]))
		}
		doc, chunks := build(spec, uint64(10_000*(d+1)))
		add(t, s, doc, chunks, nil)
		if d == 13 {
			target = chunks
		}
	}
	const k = 10
	q := vec(424242)
	got, err := s.VectorSearch(ctx, q, corpus.Filter{Tickers: []string{"T13"}}, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != k {
		t.Fatalf("filtered VectorSearch returned %d results, want %d (the filter matches %d chunks)", len(got), k, len(target))
	}
	// The answer must be the exact top k within the filter.
	type scored struct {
		id  string
		sim float64
	}
	exact := make([]scored, len(target))
	for i, c := range target {
		exact[i] = scored{c.ID, cosine(q, c.Embedding)}
	}
	slices.SortFunc(exact, func(a, b scored) int {
		if a.sim > b.sim {
			return -1
		}
		if a.sim < b.sim {
			return 1
		}
		return 0
	})
	want := map[string]bool{}
	for _, e := range exact[:k] {
		want[e.id] = true
	}
	for _, r := range got {
		if r.Ticker != "T13" {
			t.Errorf("result from %s outside the filter", r.Ticker)
		}
		if !want[r.ChunkID] {
			t.Errorf("result %s is not among the exact top %d", r.ChunkID, k)
		}
	}
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func testFacts(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	doc, chunks := build(appleSpec, 1)
	doc.Entity = corpus.Entity{Registrant: "Apple Inc.", CIK: "320193", Symbols: []string{"AAPL"},
		Members: []string{"aapl:IPhoneMember", "us-gaap:ProductMember"}}
	start := strings.Index(doc.Text, "391,035")
	facts := []corpus.Fact{
		{
			DocumentID: doc.ID, Kind: corpus.FactXBRL, Label: "Total net sales",
			Concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
			Value:   decimal.RequireFromString("391035000000"), Unit: "USD", Decimals: "-6",
			PeriodStart: day("2023-10-01"), PeriodEnd: day("2024-09-28"), ContextID: "c-1",
			Start: start, End: start + len("391,035"),
		},
		{
			DocumentID: doc.ID, Concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
			Value: decimal.RequireFromString("201183000000"), Unit: "USD", Decimals: "-6",
			PeriodStart: day("2023-10-01"), PeriodEnd: day("2024-09-28"), ContextID: "c-2",
			Dimensions: map[string]string{"srt:ProductOrServiceAxis": "us-gaap:ProductMember"},
			Start:      start, End: start + len("391,035"),
		},
		{
			DocumentID: doc.ID, Concept: "us-gaap:EarningsPerShareBasic",
			Value: decimal.RequireFromString("6.11"), Unit: "USD/shares", Decimals: "2",
			PeriodStart: day("2023-10-01"), PeriodEnd: day("2024-09-28"), ContextID: "c-1",
			Start: start, End: start + 1,
		},
		{
			DocumentID: doc.ID, Concept: "us-gaap:Assets",
			Value: decimal.RequireFromString("-0.5"), Unit: "USD", Decimals: "INF",
			PeriodEnd: day("2024-09-28"), Instant: true, ContextID: "c-3",
			Start: start, End: start + 1,
		},
		{
			DocumentID: doc.ID, Kind: corpus.FactTable, Label: "Total net sales",
			Value: decimal.RequireFromString("383285000000"), Unit: "USD", Decimals: "-6",
			PeriodStart: day("2022-09-25"), PeriodEnd: day("2023-09-30"),
			Start: start, End: start + len("391,035"),
		},
	}
	add(t, s, doc, chunks, facts)
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(docs, func(d corpus.Document) bool { return d.ID == doc.ID }); i < 0 {
		t.Fatalf("Documents() lacks %s", doc.ID)
	} else if e := docs[i].Entity; e.Registrant != doc.Entity.Registrant || e.CIK != doc.Entity.CIK ||
		!slices.Equal(e.Symbols, doc.Entity.Symbols) || !slices.Equal(e.Members, doc.Entity.Members) {
		t.Errorf("Documents() entity = %+v, want %+v", e, doc.Entity)
	}
	d2, c2 := build(nvidiaSpec, 1000)
	add(t, s, d2, c2, []corpus.Fact{{
		DocumentID: d2.ID, Concept: "us-gaap:Revenues", Value: decimal.RequireFromString("26974000000"),
		Unit: "USD", Decimals: "-6", PeriodStart: day("2022-01-31"), PeriodEnd: day("2023-01-29"), ContextID: "n",
	}})

	all, err := s.Facts(ctx, corpus.FactFilter{DocumentID: doc.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(facts) {
		t.Fatalf("Facts(document) = %d facts, want %d", len(all), len(facts))
	}
	for i, f := range all {
		w := facts[i]
		wantKind := w.Kind
		if wantKind == "" {
			wantKind = corpus.FactXBRL
		}
		if f.Kind != wantKind || f.Label != w.Label {
			t.Errorf("fact %d kind, label = %q, %q, want %q, %q", i, f.Kind, f.Label, wantKind, w.Label)
		}
		if f.DocumentID != w.DocumentID || f.Concept != w.Concept || !f.Value.Equal(w.Value) || f.Unit != w.Unit ||
			f.Decimals != w.Decimals || !f.PeriodStart.Equal(w.PeriodStart) || !f.PeriodEnd.Equal(w.PeriodEnd) ||
			f.Instant != w.Instant || f.ContextID != w.ContextID || f.Start != w.Start || f.End != w.End ||
			len(f.Dimensions) != len(w.Dimensions) {
			t.Errorf("fact %d round trip:\n got %+v\nwant %+v", i, f, w)
		}
		for k, v := range w.Dimensions {
			if f.Dimensions[k] != v {
				t.Errorf("fact %d dimension %s = %q, want %q", i, k, f.Dimensions[k], v)
			}
		}
	}
	if l, ok := s.(corpus.FactLabeler); ok {
		var want []corpus.FactLabel
		for _, f := range facts {
			if f.Label != "" && f.Start >= 0 {
				want = append(want, corpus.FactLabel{Start: f.Start, Label: f.Label})
			}
		}
		slices.SortStableFunc(want, func(a, b corpus.FactLabel) int { return a.Start - b.Start })
		got, err := l.FactLabels(ctx, doc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("FactLabels(document) = %+v, want %+v", got, want)
		}
		all, err := l.FactLabels(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if n := len(slices.DeleteFunc(slices.Clone(all), func(g corpus.FactLabel) bool { return g.Label != w.Label || g.Start != -1 })); n != 1 {
				t.Errorf("FactLabels(\"\") holds %q %d times with Start -1, want once", w.Label, n)
			}
		}
		if got, err := l.FactLabels(ctx, "no-such-document"); err != nil || len(got) != 0 {
			t.Errorf("FactLabels(unknown) = %+v, %v; want nothing", got, err)
		}
	}
	if l, ok := s.(corpus.ConceptLabeler); ok {
		var want []corpus.ConceptLabel
		for _, f := range facts {
			w := corpus.ConceptLabel{Ticker: doc.Ticker, Concept: f.Concept, Label: f.Label}
			if w.Concept != "" && w.Label != "" && len(f.Dimensions) == 0 && f.Kind != corpus.FactTable && !slices.Contains(want, w) {
				want = append(want, w)
			}
		}
		got, err := l.ConceptLabels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = slices.DeleteFunc(got, func(g corpus.ConceptLabel) bool { return g.Ticker != doc.Ticker })
		less := func(a, b corpus.ConceptLabel) int {
			return cmp.Or(cmp.Compare(a.Concept, b.Concept), cmp.Compare(a.Label, b.Label))
		}
		slices.SortFunc(got, less)
		slices.SortFunc(want, less)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("ConceptLabels() for %s = %+v, want %+v", doc.Ticker, got, want)
		}
	}
	got, err := s.Facts(ctx, corpus.FactFilter{Ticker: "NVDA", Concept: "us-gaap:Revenues", PeriodEnd: day("2023-01-29")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Value.Equal(decimal.RequireFromString("26974000000")) {
		t.Fatalf("Facts(NVDA Revenues 2023-01-29) = %+v", got)
	}
	got, err = s.Facts(ctx, corpus.FactFilter{Ticker: "AAPL", Concept: "us-gaap:Revenues"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("Facts(AAPL Revenues) = %d facts, want none (NVDA's must not leak)", len(got))
	}
	for _, tt := range []struct {
		f    corpus.FactFilter
		want int // facts[want] is the one fact expected; -1 for none
	}{
		{corpus.FactFilter{DocumentID: doc.ID, Kind: corpus.FactTable}, 4},
		{corpus.FactFilter{DocumentID: doc.ID, Kind: corpus.FactTable, Label: "Total net sales"}, 4},
		{corpus.FactFilter{DocumentID: doc.ID, Kind: corpus.FactXBRL, Label: "Total net sales"}, 0},
		{corpus.FactFilter{DocumentID: doc.ID, Label: "Products"}, -1},
		{corpus.FactFilter{DocumentID: doc.ID, Member: "us-gaap:ProductMember"}, 1},
		{corpus.FactFilter{DocumentID: doc.ID, Member: "us-gaap:ServiceMember"}, -1},
	} {
		got, err := s.Facts(ctx, tt.f)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tt.want < 0 && len(got) != 0:
			t.Errorf("Facts(%+v) = %d facts, want none", tt.f, len(got))
		case tt.want >= 0 && (len(got) != 1 || !got[0].Value.Equal(facts[tt.want].Value)):
			t.Errorf("Facts(%+v) = %+v, want fact %d", tt.f, got, tt.want)
		}
	}
	got, err = s.Facts(ctx, corpus.FactFilter{Ticker: "AAPL", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("Facts(Limit 2) = %d facts", len(got))
	}
}

func testStats(t *testing.T, s corpus.Store) {
	ctx := context.Background()
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 0 || st.Chunks != 0 || st.Facts != 0 || len(st.Embedders) != 0 {
		t.Fatalf("empty store stats = %+v", st)
	}
	apple, nvidia, appleQ := addAll(t, s)
	st, err = s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := len(apple) + len(nvidia) + len(appleQ)
	if st.Documents != 3 || st.Chunks != want || !slices.Equal(st.Embedders, []string{"fixture"}) {
		t.Fatalf("stats = %+v, want 3 documents, %d chunks, embedders [fixture]", st, want)
	}
}
