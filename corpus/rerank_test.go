package corpus

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// questionStore answers full-text searches from a list per fiscal-year
// filter and records the queries; its documents and facts are fixed.
type questionStore struct {
	Store
	byYears map[int][]SearchResult // by the single fiscal year asked, 0 for none
	docs    []Document
	facts   map[string][]Fact // by document
	queries []string
	filters []Filter
}

func (s *questionStore) FullTextSearch(_ context.Context, q string, f Filter, k int) ([]SearchResult, error) {
	s.queries = append(s.queries, q)
	s.filters = append(s.filters, f)
	year := 0
	if len(f.FiscalYears) == 1 {
		year = f.FiscalYears[0]
	}
	l := s.byYears[year]
	return l[:min(k, len(l))], nil
}

func (s *questionStore) Documents(context.Context) ([]Document, error) { return s.docs, nil }

func (s *questionStore) Facts(_ context.Context, f FactFilter) ([]Fact, error) {
	return s.facts[f.DocumentID], nil
}

func chunkAt(id, doc string, start, end int) SearchResult {
	return SearchResult{ChunkID: id, DocumentID: doc, Ticker: "ACME", Start: start, End: end}
}

func TestSearcherQuestion(t *testing.T) {
	// d21 is the fiscal 2021 filing: its prose chunk p1 ranks first on the
	// words, its cash flow statement chunk t1 second; d22, a later filing,
	// repeats the figure.
	store := &questionStore{
		byYears: map[int][]SearchResult{
			2021: {chunkAt("p1", "d21", 0, 100), chunkAt("t1", "d21", 100, 200)},
			0:    {chunkAt("p2", "d22", 0, 100), chunkAt("p1", "d21", 0, 100), chunkAt("t1", "d21", 100, 200)},
		},
		docs: []Document{{ID: "d21", Ticker: "ACME", Company: "Acme Widgets Inc.", FiscalYear: 2021}, {ID: "d22", Ticker: "ACME", Company: "Acme Widgets Inc.", FiscalYear: 2022}},
		facts: map[string][]Fact{"d21": {
			{Label: "Purchases of property and equipment", Start: 150, End: 156},
			{Label: "Net income", Start: 20, End: 26}, // p1 quotes a figure too
			{Label: "Hidden", Start: -1, End: -1},
		}},
	}
	s := NewSearcher(store, nil)
	q := "What was Acme Widgets' capital expenditure in fiscal 2021, defined as purchases of property and equipment? Answer in USD millions, relying on the cash flow statement."
	got, err := s.Search(context.Background(), SearchRequest{Query: q, K: 3, Mode: ModeFullText, Filter: Filter{Tickers: []string{"ACME"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"t1", "p1", "p2"}; !slices.Equal(ids(got), want) {
		t.Fatalf("Search = %v, want %v: the 2021 filing first, its table above its prose", ids(got), want)
	}
	if len(store.filters) != 2 || !slices.Equal(store.filters[0].FiscalYears, []int{2021}) || len(store.filters[1].FiscalYears) != 0 {
		t.Fatalf("filters %+v: want fiscal 2021 first, then every year to fill", store.filters)
	}
	for _, w := range []string{"acme", "widgets", "answer", "millions", "relying", "defined"} {
		if strings.Contains(" "+store.queries[0]+" ", " "+w+" ") {
			t.Errorf("full-text query %q holds %q", store.queries[0], w)
		}
	}
	if !strings.Contains(store.queries[0], "purchases or property") {
		t.Errorf("full-text query %q: want its words as alternatives", store.queries[0])
	}

	// A question about several issuers is searched as written.
	store.queries, store.filters = nil, nil
	if _, err := s.Search(context.Background(), SearchRequest{Query: q, Mode: ModeFullText, NoInterleave: true, Filter: Filter{Tickers: []string{"ACME", "BOLT"}}}); err != nil {
		t.Fatal(err)
	}
	if len(store.queries) != 1 || store.queries[0] != q || len(store.filters[0].FiscalYears) != 0 {
		t.Fatalf("question about two issuers searched as %q with %+v", store.queries, store.filters)
	}

	// A short query is searched as written, with the filter as given.
	store.queries, store.filters = nil, nil
	if _, err := s.Search(context.Background(), SearchRequest{Query: "capital expenditures 2021", Mode: ModeFullText, Filter: Filter{Tickers: []string{"ACME"}}}); err != nil {
		t.Fatal(err)
	}
	if len(store.queries) != 1 || store.queries[0] != "capital expenditures 2021" || len(store.filters[0].FiscalYears) != 0 {
		t.Fatalf("short query searched as %q with %+v", store.queries, store.filters)
	}
}
