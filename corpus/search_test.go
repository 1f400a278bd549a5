package corpus

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func results(ids ...string) []SearchResult {
	out := make([]SearchResult, len(ids))
	for i, id := range ids {
		out[i] = SearchResult{ChunkID: id, Ticker: strings.SplitN(id, "-", 2)[0]}
	}
	return out
}

func ids(rs []SearchResult) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ChunkID
	}
	return out
}

func TestFuseRRF(t *testing.T) {
	text := results("a", "b", "c", "d")
	vec := results("c", "e", "a")
	got := FuseRRF(4, nil, text, vec)
	// a: 1/61+1/63, c: 1/63+1/61 (tie, a first seen), b: 1/62, e: 1/62 (b first seen).
	if want := []string{"a", "c", "b", "e"}; !slices.Equal(ids(got), want) {
		t.Fatalf("FuseRRF = %v, want %v", ids(got), want)
	}
	if want := 1.0/61 + 1.0/63; got[0].Score != want {
		t.Fatalf("fused score %v, want %v", got[0].Score, want)
	}
	if len(FuseRRF(10, nil, nil, nil)) != 0 {
		t.Fatal("fusing nothing gave results")
	}
	// A lighter second list: its first result no longer beats the first
	// list's second.
	got = FuseRRF(3, []float64{1, 0.5}, results("a", "b"), results("c", "a"))
	if want := []string{"a", "b", "c"}; !slices.Equal(ids(got), want) {
		t.Fatalf("weighted FuseRRF = %v, want %v", ids(got), want)
	}
}

func TestInterleave(t *testing.T) {
	got := interleave([][]SearchResult{results("A-1", "A-2", "A-3", "A-4"), results("B-1"), results("C-1", "C-2")}, 5)
	if want := []string{"A-1", "B-1", "C-1", "A-2", "C-2"}; !slices.Equal(ids(got), want) {
		t.Fatalf("interleave = %v, want %v", ids(got), want)
	}
}

// fakeStore answers searches from fixed lists and records the filters.
type fakeStore struct {
	Store
	text, vec map[string][]SearchResult // by the single ticker asked, "" for none
	embedders []string
	filters   []Filter
}

func (f *fakeStore) FullTextSearch(_ context.Context, q string, flt Filter, k int) ([]SearchResult, error) {
	f.filters = append(f.filters, flt)
	key := ""
	if len(flt.Tickers) == 1 {
		key = flt.Tickers[0]
	}
	l := f.text[key]
	return l[:min(k, len(l))], nil
}

func (f *fakeStore) VectorSearch(_ context.Context, v []float32, flt Filter, k int) ([]SearchResult, error) {
	key := ""
	if len(flt.Tickers) == 1 {
		key = flt.Tickers[0]
	}
	l := f.vec[key]
	return l[:min(k, len(l))], nil
}

func (f *fakeStore) Stats(context.Context) (StoreStats, error) {
	return StoreStats{Embedders: f.embedders}, nil
}

func TestSearcherInterleavesTickers(t *testing.T) {
	// AAPL would crowd NVDA out of a single ranking.
	store := &fakeStore{
		text: map[string][]SearchResult{
			"AAPL": results("AAPL-1", "AAPL-2", "AAPL-3", "AAPL-4"),
			"NVDA": results("NVDA-1", "NVDA-2"),
		},
		vec: map[string][]SearchResult{
			"AAPL": results("AAPL-2", "AAPL-1"),
			"NVDA": results("NVDA-2", "NVDA-1"),
		},
		embedders: []string{HashEmbedder{}.Name()},
	}
	s := NewSearcher(store, HashEmbedder{})
	got, err := s.Search(context.Background(), SearchRequest{Query: "gross margin", K: 4, Filter: Filter{Tickers: []string{"nvda", "AAPL"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"AAPL-1", "NVDA-1", "AAPL-2", "NVDA-2"}; !slices.Equal(ids(got), want) {
		t.Fatalf("Search = %v, want %v", ids(got), want)
	}
	for _, f := range store.filters {
		if len(f.Tickers) != 1 {
			t.Fatalf("searched with filter %+v, want one ticker per search", f)
		}
	}
}

func TestSearcherValidates(t *testing.T) {
	store := &fakeStore{embedders: []string{"openai:other:384"}}
	s := NewSearcher(store, HashEmbedder{})
	ctx := context.Background()
	tests := []struct {
		name string
		req  SearchRequest
		want string
	}{
		{"empty query", SearchRequest{Query: "  "}, "empty query"},
		{"bad mode", SearchRequest{Query: "x", Mode: "fuzzy"}, "search mode"},
		{"bad section", SearchRequest{Query: "x", Mode: ModeFullText, Filter: Filter{Section: "MD&A"}}, "section"},
		{"bad ticker", SearchRequest{Query: "x", Mode: ModeFullText, Filter: Filter{Tickers: []string{"A;DROP"}}}, "ticker"},
		{"k too large", SearchRequest{Query: "x", K: MaxK + 1}, "k ="},
		{"embedder mismatch", SearchRequest{Query: "x"}, "different embedder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Search(ctx, tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Search error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	if _, err := s.Search(ctx, SearchRequest{Query: "x"}); !errors.Is(err, ErrEmbedderMismatch) {
		t.Fatalf("mismatch error %v is not ErrEmbedderMismatch", err)
	}
	// Full-text search needs no embedder agreement.
	if _, err := s.Search(ctx, SearchRequest{Query: "x", Mode: ModeFullText, Filter: Filter{Section: "7"}}); err != nil {
		t.Fatal(err)
	}
	if got := store.filters[len(store.filters)-1].Section; got != "Item 7" {
		t.Fatalf("section filter passed as %q, want it normalised to Item 7", got)
	}
}

func TestSearchResultJSON(t *testing.T) {
	r := SearchResult{ChunkID: "c", PeriodEnd: time.Date(2024, 9, 28, 0, 0, 0, 0, time.UTC)}
	b, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"period_end":"2024-09-28"`, `"page":null`, `"chunk_id":"c"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
	r.Page = 7
	b, _ = r.MarshalJSON()
	if !strings.Contains(string(b), `"page":7`) {
		t.Errorf("JSON %s lacks page 7", b)
	}
}

func TestHashEmbedder(t *testing.T) {
	e := HashEmbedder{}
	vecs, err := e.Embed(context.Background(), []string{
		"Gross margin decreased due to weaker foreign currencies.",
		"gross margins decreasing because of weaker foreign currency",
		"The Board declared a quarterly dividend.",
		"",
	})
	if err != nil {
		t.Fatal(err)
	}
	dot := func(a, b []float32) (s float64) {
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	if n := dot(vecs[0], vecs[0]); n < 0.999 || n > 1.001 {
		t.Fatalf("vector norm² = %v, want 1", n)
	}
	if near, far := dot(vecs[0], vecs[1]), dot(vecs[0], vecs[2]); near < 0.5 || far > 0.2 || near <= far {
		t.Fatalf("similarity of a paraphrase %v, of an unrelated sentence %v", near, far)
	}
	if dot(vecs[3], vecs[3]) != 0 {
		t.Fatal("empty text has a non-zero vector")
	}
	again, _ := e.Embed(context.Background(), []string{"Gross margin decreased due to weaker foreign currencies."})
	if !slices.Equal(again[0], vecs[0]) {
		t.Fatal("embedding is not deterministic")
	}
	if e.Dimensions() != EmbeddingDim || e.Name() != "hash-v1-384" {
		t.Fatalf("dims %d name %s", e.Dimensions(), e.Name())
	}
}
