package corpus

import (
	"context"
	"fmt"
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

// phraseStore answers a full-text search for quoted phrases from one list
// and any other from another, and reads every fact of its one document.
type phraseStore struct {
	Store
	words, phrases []SearchResult
	facts          []Fact
	queries        []string
}

func (s *phraseStore) FullTextSearch(_ context.Context, q string, _ Filter, k int) ([]SearchResult, error) {
	s.queries = append(s.queries, q)
	l := s.words
	if strings.Contains(q, `"`) {
		l = s.phrases
	}
	return l[:min(k, len(l))], nil
}

func (s *phraseStore) Documents(context.Context) ([]Document, error) {
	return []Document{{ID: "d21", Ticker: "ACME", Company: "Acme Widgets Inc.", FiscalYear: 2021}}, nil
}

func (s *phraseStore) Facts(_ context.Context, f FactFilter) ([]Fact, error) {
	return s.facts, nil
}

func (s *phraseStore) VectorSearch(_ context.Context, _ []float32, _ Filter, k int) ([]SearchResult, error) {
	return s.words[:min(k, len(s.words))], nil
}

func (s *phraseStore) Stats(context.Context) (StoreStats, error) {
	return StoreStats{Embedders: []string{HashEmbedder{}.Name()}}, nil
}

func TestSearcherLabelRows(t *testing.T) {
	// The question's words find 40 chunks of prose; the balance sheet (b1),
	// whose "Total assets" row the question asks for, is not among them.
	// A search for the label as a phrase finds a sentence that mentions it
	// (m1) and the balance sheet.
	store := &phraseStore{
		phrases: []SearchResult{chunkAt("m1", "d21", 9000, 9100), chunkAt("b1", "d21", 5000, 5100)},
		facts: []Fact{
			{Label: "Total current assets", Start: 5010, End: 5016},
			{Label: "Total assets", Start: 5050, End: 5056},
			{Label: "Net income", Start: 20, End: 26},
		},
	}
	for i := range 40 {
		store.words = append(store.words, chunkAt(fmt.Sprintf("p%d", i), "d21", i*100, i*100+100))
	}
	q := "Relying on the balance sheet, what were Acme's total assets at fiscal year-end 2021, and how much did they grow?"
	for _, mode := range []SearchMode{ModeFullText, ModeHybrid, ModeVector} {
		t.Run(string(mode), func(t *testing.T) {
			store.queries = nil
			s := NewSearcher(store, HashEmbedder{})
			got, err := s.Search(context.Background(), SearchRequest{Query: q, Mode: mode, Filter: Filter{Tickers: []string{"ACME"}}})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(ids(got), "m1") {
				t.Errorf("Search = %v: a sentence that mentions the label was taken for its row", ids(got))
			}
			phrase := slices.ContainsFunc(store.queries, func(q string) bool { return strings.Contains(q, `"total assets"`) })
			if mode == ModeVector {
				if phrase || slices.Contains(ids(got), "b1") {
					t.Errorf("vector search: %v, full-text queries %q; want no phrase searched", ids(got), store.queries)
				}
				return
			}
			if !phrase {
				t.Errorf("full-text queries %q: want the label searched as a phrase", store.queries)
			}
			if len(got) == 0 || got[0].ChunkID != "b1" {
				t.Fatalf("Search = %v, want b1 first", ids(got))
			}
		})
	}
}
