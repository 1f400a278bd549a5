package edgar_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/edgar"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/edgartest"
)

// BenchmarkFetch fetches the sample corpus's inline-XBRL filings from the
// fake EDGAR at the SEC's 10 requests a second, into a fresh cache and
// store ("cold"); then into a fresh store from the warm cache ("cache");
// then again into the full store ("again", listings revalidated only).
//
//	go test -run '^$' -bench Fetch -benchtime 1x ./edgar/
func BenchmarkFetch(b *testing.B) {
	srv := edgartest.New(b)
	list, err := configs.Issuers()
	if err != nil {
		b.Fatal(err)
	}
	var tickers []string
	n := 0
	byTicker := map[string]*edgartest.Issuer{}
	for _, e := range corpustest.Entries(b) {
		if !strings.HasSuffix(e.Path, ".html") {
			continue
		}
		is := byTicker[e.Ticker]
		if is == nil {
			iss, ok := list.Lookup(e.Ticker)
			if !ok {
				b.Fatalf("%s is not in the issuer list", e.Ticker)
			}
			is = &edgartest.Issuer{CIK: iss.CIK, Ticker: iss.Ticker, Name: e.Company,
				FiscalYearEnd: e.PeriodEnd.Format("0102")}
			byTicker[e.Ticker] = is
			tickers = append(tickers, e.Ticker)
		}
		body, err := os.ReadFile(e.Path)
		if err != nil {
			b.Fatal(err)
		}
		n++
		is.Filings = append(is.Filings, edgartest.Filing{
			Accession: fmt.Sprintf("%010d-%02d-%06d", is.CIK, e.Filed.Year()%100, n), Form: e.Form,
			Filed: e.Filed.Format(time.DateOnly), ReportDate: e.PeriodEnd.Format(time.DateOnly),
			PrimaryDocument: filepath.Base(e.Path), Body: body,
		})
	}
	for _, is := range byTicker {
		srv.AddIssuer(*is)
	}
	opts := &edgar.FetchOpts{Tickers: tickers, Forms: []string{"10-K", "10-Q"}}
	for b.Loop() {
		cache := filepath.Join(b.TempDir(), "cache")
		run := func(name string, store corpus.Store) *edgar.Report {
			client, err := edgar.NewClient(&edgar.Config{BaseURL: srv.URL, DataURL: srv.URL, UserAgent: userAgent, CacheDir: cache})
			if err != nil {
				b.Fatal(err)
			}
			in, _ := corpus.NewIngester(store, corpus.HashEmbedder{})
			f, err := edgar.NewFetcher(client, store, in, &edgar.FetcherConfig{Issuers: list})
			if err != nil {
				b.Fatal(err)
			}
			r, err := f.Fetch(context.Background(), opts)
			if err != nil || r.Err() != nil {
				b.Fatal(err, r.Err())
			}
			mins := r.Elapsed.Minutes()
			b.ReportMetric(float64(r.Added+r.Stored)/mins, name+"-filings/min")
			b.ReportMetric(r.Download.Seconds(), name+"-download-s")
			b.ReportMetric(r.Client.LimiterWait.Seconds(), name+"-limiter-wait-s")
			b.ReportMetric(r.Ingest.Seconds(), name+"-ingest-s")
			b.ReportMetric(float64(r.Client.Requests), name+"-requests")
			b.Logf("%s: %d filings (%d added, %d stored) in %s: %d requests (%d not modified), %.1f MB; listing+download %s (limiter wait %s summed over workers), ingest %s",
				name, r.Selected, r.Added, r.Stored, r.Elapsed.Round(time.Millisecond), r.Client.Requests, r.Client.NotModified,
				float64(r.Bytes)/1e6, r.Download.Round(time.Millisecond), r.Client.LimiterWait.Round(time.Millisecond), r.Ingest.Round(time.Millisecond))
			return r
		}
		open := func() corpus.Store {
			s, err := embedded.Open(filepath.Join(b.TempDir(), "store"), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}
		if r := run("cold", open()); r.Added != n {
			b.Fatalf("cold: added %d of %d", r.Added, n)
		}
		store := open()
		if r := run("cache", store); r.Cached != n {
			b.Fatalf("cache: %d from the cache, want %d", r.Cached, n)
		}
		if r := run("again", store); r.Stored != n {
			b.Fatalf("again: %d stored, want %d", r.Stored, n)
		}
	}
}
