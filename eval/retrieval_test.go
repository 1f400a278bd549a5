package eval

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
)

func TestScoreItem(t *testing.T) {
	q := RetrievalQuery{ID: "q", Answers: []Answer{
		{Ticker: "AAPL", FiscalYear: 2024, Form: "10-K", Phrase: "gross margin  decreased"},
		{Ticker: "NVDA", FiscalYear: 2023, Form: "10-K", Phrase: "data center"},
	}}
	r := func(ticker string, fy int, text string) corpus.SearchResult {
		return corpus.SearchResult{Ticker: ticker, FiscalYear: fy, Form: "10-K", Text: text}
	}
	res := []corpus.SearchResult{
		r("AAPL", 2023, "gross margin decreased"),           // wrong filing
		r("AAPL", 2024, "Products gross\nmargin decreased"), // answer 1
		r("AAPL", 2024, "gross margin decreased again"),     // answer 1 again: no gain
		r("MSFT", 2023, "data center"),
		r("NVDA", 2023, "Data center revenue"), // case differs: not the phrase
	}
	got := scoreItem(q, res, []int{1, 5})
	if got.Rank != 2 {
		t.Errorf("first relevant rank = %d, want 2", got.Rank)
	}
	if got.Recall[1] != 0 || got.Recall[5] != 0.5 {
		t.Errorf("recall = %v, want 0 at 1 and 0.5 at 5", got.Recall)
	}
	want := (1 / math.Log2(3)) / (1 + 1/math.Log2(3))
	if math.Abs(got.NDCG[5]-want) > 1e-9 {
		t.Errorf("nDCG@5 = %v, want %v", got.NDCG[5], want)
	}
}

func TestLoadRetrievalSetErrors(t *testing.T) {
	for name, in := range map[string]string{
		"no answers":    `{"id":"a","query":"q","answers":[]}`,
		"unknown field": `{"id":"a","query":"q","answer":[]}`,
		"duplicate id":  `{"id":"a","query":"q","answers":[{"ticker":"A","fiscal_year":2024,"form":"10-K","phrase":"p"}]}` + "\n" + `{"id":"a","query":"q","answers":[{"ticker":"A","fiscal_year":2024,"form":"10-K","phrase":"p"}]}`,
		"empty phrase":  `{"id":"a","query":"q","answers":[{"ticker":"A","fiscal_year":2024,"form":"10-K","phrase":" "}]}`,
		"not json":      `{`,
	} {
		if _, err := LoadRetrievalSet(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "line") {
			t.Errorf("%s: error %v, want one naming the line", name, err)
		}
	}
}

func TestEmbeddedRetrievalSetLoads(t *testing.T) {
	set, err := LoadRetrievalSet(bytes.NewReader(RetrievalSetJSONL))
	if err != nil {
		t.Fatal(err)
	}
	if len(set) < 30 {
		t.Fatalf("retrieval set has %d queries, want at least 30", len(set))
	}
}
