package corpus_test

import (
	"context"
	"fmt"

	"github.com/ledgerline/research/corpus"
)

// A filing's text becomes canonical text, its item sections, and chunks
// that know their section, page and byte span.
func ExampleSplitChunks() {
	text := corpus.Canonicalize("ACME CORP   FORM 10-K\n\nItem 1.  Business\nAcme makes anvils.\f" +
		"Item 7. Management's Discussion and Analysis\nGross margin   decreased due to steel costs.\n")
	for _, s := range corpus.Sections(text) {
		fmt.Printf("section %q %q\n", s.Name, s.Title)
	}
	for _, c := range corpus.SplitChunks(corpus.DocumentID(text), text, nil) {
		fmt.Printf("%s page %d [%d:%d] %q\n", c.Section, c.Page, c.Start, c.End, c.Text)
	}
	// Output:
	// section "" ""
	// section "Item 1" "Business"
	// section "Item 7" "Management's Discussion and Analysis"
	//  page 1 [0:19] "ACME CORP FORM 10-K"
	// Item 1 page 1 [21:56] "Item 1. Business\nAcme makes anvils."
	// Item 7 page 2 [59:146] "Item 7. Management's Discussion and Analysis\nGross margin decreased due to steel costs."
}

// Hybrid search fuses the full-text and vector rankings of a store.
func ExampleSearcher_Search() {
	ctx := context.Background()
	store, done := newExampleStore() // any corpus.Store: a pgstore.Store or an embedded.Store
	defer done()
	s := corpus.NewSearcher(store, corpus.HashEmbedder{})
	results, err := s.Search(ctx, corpus.SearchRequest{
		Query:  "gross margin",
		K:      2,
		Filter: corpus.Filter{Tickers: []string{"ACME", "WILE"}}, // one ranking per ticker, interleaved
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Printf("%s %s %q\n", r.Ticker, r.Section, r.Text)
	}
	// Output:
	// ACME Item 7 "Item 7. Management's Discussion and Analysis\nGross margin decreased due to steel costs."
	// WILE Item 7 "Item 7. Management's Discussion and Analysis\nGross margin rose on rocket demand."
}
