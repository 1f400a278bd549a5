package edgar_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/edgar"
	"github.com/ledgerline/research/internal/edgartest"
)

func Example() {
	// A fake EDGAR stands in for both SEC hosts; against the SEC, leave
	// BaseURL and DataURL empty.
	srv := edgartest.NewServer()
	defer srv.Close()
	srv.AddIssuer(acme())

	dir, _ := os.MkdirTemp("", "edgar-example")
	defer os.RemoveAll(dir)
	client, err := edgar.NewClient(&edgar.Config{
		BaseURL: srv.URL, DataURL: srv.URL,
		UserAgent: "Example Corp research@example.com", // required by the SEC
		CacheDir:  filepath.Join(dir, "cache"),
	})
	if err != nil {
		log.Fatal(err)
	}
	store, err := embedded.Open(filepath.Join(dir, "store"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	in, _ := corpus.NewIngester(store, corpus.HashEmbedder{})
	fetcher, err := edgar.NewFetcher(client, store, in, nil)
	if err != nil {
		log.Fatal(err)
	}
	// By CIK: the issuer list in the binary does not know the fake issuer.
	// The first fetch reads the submissions, their older page (its filing
	// dates reach 2023, so it may hold fiscal 2023) and two documents; the
	// second only revalidates the listings.
	opts := &edgar.FetchOpts{CIKs: []int{1000001}, Forms: []string{"10-K"}, Since: 2023}
	for range 2 {
		r, err := fetcher.Fetch(context.Background(), opts)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d selected: %d added, %d already stored; %d requests, %d not modified\n",
			r.Selected, r.Added, r.Stored, r.Client.Requests, r.Client.NotModified)
	}
	// Output:
	// 2 selected: 2 added, 0 already stored; 4 requests, 0 not modified
	// 2 selected: 0 added, 2 already stored; 2 requests, 2 not modified
}
