package corpus_test

import (
	"context"
	"os"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
)

// newExampleStore returns an embedded store holding two small filings and
// a function that closes and removes it.
func newExampleStore() (corpus.Store, func()) {
	dir, err := os.MkdirTemp("", "corpus-example-")
	if err != nil {
		panic(err)
	}
	store, err := embedded.Open(dir, nil)
	if err != nil {
		panic(err)
	}
	in, err := corpus.NewIngester(store, corpus.HashEmbedder{})
	if err != nil {
		panic(err)
	}
	var entries []corpus.ManifestEntry
	for _, f := range []struct{ ticker, body string }{
		{"ACME", "Item 7. Management's Discussion and Analysis\nGross margin decreased due to steel costs.\n"},
		{"WILE", "Item 7. Management's Discussion and Analysis\nGross margin rose on rocket demand.\n"},
	} {
		path := dir + "/" + f.ticker + ".txt"
		if err := os.WriteFile(path, []byte(f.body), 0o644); err != nil {
			panic(err)
		}
		e, err := corpus.NewManifestEntry(path, f.ticker, f.ticker+" Corp", "10-K", 2024, "2024-12-31", "")
		if err != nil {
			panic(err)
		}
		entries = append(entries, e)
	}
	if _, err := in.Ingest(context.Background(), entries, nil); err != nil {
		panic(err)
	}
	return store, func() { store.Close(); os.RemoveAll(dir) }
}
