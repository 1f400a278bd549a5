package embedded_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
)

func Example() {
	dir, err := os.MkdirTemp("", "research")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// One invocation ingests...
	store, err := embedded.Open(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	text := "Products gross margin decreased due to tariff costs.\nServices revenue grew.\n"
	doc := &corpus.Document{ID: corpus.DocumentID(text), Ticker: "AAPL", Form: "10-Q", FiscalYear: 2025, Text: text}
	chunks := []corpus.Chunk{
		{ID: corpus.ChunkID(doc.ID, 0), Ordinal: 0, Section: "Item 2", Start: 0, End: 52, Text: text[:52], Embedding: []float32{1, 0, 0}},
		{ID: corpus.ChunkID(doc.ID, 1), Ordinal: 1, Section: "Item 2", Start: 53, End: 75, Text: text[53:75], Embedding: []float32{0, 1, 0}},
	}
	if _, err := store.AddDocument(ctx, doc, chunks, nil); err != nil {
		log.Fatal(err)
	}
	store.Close()

	// ...and a later one searches.
	store, err = embedded.Open(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	hits, err := store.FullTextSearch(ctx, `"gross margins" -services`, corpus.Filter{Tickers: []string{"AAPL"}}, 5)
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("%s %s: %s\n", h.Ticker, h.Section, h.Text)
	}
	near, err := store.VectorSearch(ctx, []float32{0.1, 0.9, 0}, corpus.Filter{}, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("nearest: %s (cosine %.2f)\n", near[0].Text, near[0].Score)
	// Output:
	// AAPL Item 2: Products gross margin decreased due to tariff costs.
	// nearest: Services revenue grew. (cosine 0.99)
}
