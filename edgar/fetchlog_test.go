package edgar_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerline/research/edgar"
	"github.com/ledgerline/research/internal/edgartest"
)

// TestFetchRecordsEveryRequest checks the audit trail of three fetches of
// the same range: every request with how it was answered, and every
// filing with its outcome.
func TestFetchRecordsEveryRequest(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	sub, older := edgartest.SubmissionsPath(1000001), edgartest.OlderPagePath(1000001)
	doc := acme().Filings[0].DocumentPath(1000001) // the FY2024 10-K
	// The FY2023 10-K fails for good (its document is gone).
	gone := acme().Filings[4].DocumentPath(1000001)
	f.srv.Fail(gone, edgartest.Fault{Status: 404})
	opts := &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-K"}, Since: 2023}

	type access struct {
		path    string
		outcome edgar.AccessOutcome
	}
	tests := []struct {
		name     string
		before   func()
		accesses []access
		filings  map[string]edgar.FilingOutcome // by accession
	}{
		{"first fetch downloads", nil,
			[]access{{sub, edgar.AccessDownloaded}, {older, edgar.AccessDownloaded}, {doc, edgar.AccessDownloaded}, {gone, edgar.AccessFailed}},
			map[string]edgar.FilingOutcome{"0001000001-25-000004": edgar.OutcomeAdded, "0001000001-24-000002": edgar.OutcomeFailed}},
		{"second fetch revalidates and retries the failed filing", func() {
			f.srv.Put(gone, acme().Filings[4].Body)
		},
			[]access{{sub, edgar.AccessNotModified}, {older, edgar.AccessNotModified}, {gone, edgar.AccessDownloaded}},
			map[string]edgar.FilingOutcome{"0001000001-25-000004": edgar.OutcomeStored, "0001000001-24-000002": edgar.OutcomeAdded}},
		{"offline, everything from the cache", nil,
			[]access{{sub, edgar.AccessCached}, {older, edgar.AccessCached}},
			map[string]edgar.FilingOutcome{"0001000001-25-000004": edgar.OutcomeStored, "0001000001-24-000002": edgar.OutcomeStored}},
	}
	logPath := filepath.Join(t.TempDir(), "data", edgar.LogFileName)
	for i, tt := range tests {
		if tt.before != nil {
			tt.before()
		}
		client, fetcher := f.client, f.fetcher
		if i == 2 {
			client = newClient(t, f.srv, f.cache, &edgar.Config{Offline: true})
			fetcher = newFetcher(t, client, f.store, f.srv)
		}
		r, err := fetcher.Fetch(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []access
		for _, a := range r.Accesses {
			got = append(got, access{strings.TrimPrefix(a.URL, f.srv.URL), a.Outcome})
			if a.Outcome != edgar.AccessFailed && (a.SHA256 == "" || a.Bytes == 0) {
				t.Errorf("%s: %s has no body hash or size: %+v", tt.name, a.URL, a)
			}
			if a.Outcome == edgar.AccessFailed && (a.Status != 404 || a.Error == "") {
				t.Errorf("%s: failed access %+v", tt.name, a)
			}
		}
		// Listings come first, in order; downloads run concurrently.
		if len(got) != len(tt.accesses) || !sameSet(got, tt.accesses) || got[0] != tt.accesses[0] {
			t.Errorf("%s: accesses\n%v\nwant\n%v", tt.name, got, tt.accesses)
		}
		for _, fr := range r.Filings {
			if want := tt.filings[fr.Filing.Accession]; fr.Outcome != want {
				t.Errorf("%s: %s %s, want %s", tt.name, fr.Filing.Accession, fr.Outcome, want)
			}
		}
		if err := edgar.AppendLog(logPath, edgar.NewLogRecord(client, r, opts, "test", nil)); err != nil {
			t.Fatal(err)
		}
	}

	// The log holds the three fetches, and a line cut short by a killed
	// process is skipped, not taken for a fetch.
	fh, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(`{"started":"2025-01-01T00:00:00Z","by":"te`)
	fh.Close()
	recs, skipped, err := edgar.ReadLog(logPath)
	if err != nil || len(recs) != 3 || skipped != 1 {
		t.Fatalf("log: %d records, %d skipped, %v", len(recs), skipped, err)
	}
	first, second, third := recs[0], recs[1], recs[2]
	if first.Summary.Ingested != 1 || first.Summary.Failed != 1 || first.Summary.FailedGets != 1 || first.Summary.Downloaded != 3 ||
		len(first.Filings) != 2 || first.Filings[0].Error == "" || first.Asked.Since != 2023 || first.BaseURL != f.srv.URL {
		t.Errorf("first record: %+v", first)
	}
	if second.Summary.NotModified != 2 || second.Summary.Ingested != 1 || second.Summary.Stored != 1 {
		t.Errorf("second record summary: %+v", second.Summary)
	}
	if !third.Offline || third.Summary.Requests != 0 || third.Summary.CacheHits != 2 {
		t.Errorf("third record: offline %v, %+v", third.Offline, third.Summary)
	}
	if line := second.Line(); !strings.Contains(line, "[ACME] [10-K]: 2 selected, 1 ingested, 1 already stored, 0 failed; 3 requests (1 downloaded, 2 not modified)") {
		t.Errorf("line: %s", line)
	}
}

func sameSet[T comparable](a, b []T) bool {
	count := map[T]int{}
	for _, x := range a {
		count[x]++
	}
	for _, x := range b {
		count[x]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestFetchPicksUpNewerFilings: a re-run lists the filings the SEC added
// since the last fetch (the submissions changed, so the conditional
// request gets them whole) and fetches only those.
func TestFetchPicksUpNewerFilings(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := context.Background()
	opts := &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-K", "10-Q"}, Since: 2024}
	r, err := f.fetcher.Fetch(ctx, opts)
	if err != nil || r.Added != 2 {
		t.Fatalf("first fetch: %v, added %d", err, r.Added)
	}
	is := acme()
	is.Filings = append(is.Filings, edgartest.Filing{Accession: "0001000001-25-000019", Form: "10-Q", Filed: "2025-05-02", ReportDate: "2025-03-31",
		PrimaryDocument: "acme-20250331.htm", Body: edgartest.Document("Acme Widgets Inc.", 1000001, "10-Q", "2025-01-01", "2025-03-31", 1400, "First-quarter widget orders recovered.")})
	f.srv.AddIssuer(is)
	r, err = f.fetcher.Fetch(ctx, opts)
	if err != nil || r.Err() != nil {
		t.Fatal(err, r.Err())
	}
	if r.Selected != 3 || r.Stored != 2 || r.Added != 1 || r.Filings[2].Filing.Accession != "0001000001-25-000019" || r.Filings[2].Outcome != edgar.OutcomeAdded {
		t.Errorf("second fetch: selected %d stored %d added %d; %+v", r.Selected, r.Stored, r.Added, r.Filings)
	}
	if r.Accesses[0].Outcome != edgar.AccessDownloaded {
		t.Errorf("the changed submissions were %s", r.Accesses[0].Outcome)
	}
}

func FuzzParseLog(f *testing.F) {
	var b bytes.Buffer
	rec := edgar.LogRecord{By: "research fetch", Requests: []edgar.Access{{URL: "https://data.sec.gov/x", Outcome: edgar.AccessDownloaded}}}
	rec.Finished = rec.Started.AddDate(2025, 0, 0)
	path := filepath.Join(f.TempDir(), "log")
	edgar.AppendLog(path, rec)
	raw, _ := os.ReadFile(path)
	b.Write(raw)
	f.Add(b.Bytes())
	f.Add([]byte("{}\n\n{\"finished\":\"2025-01-01T00:00:00Z\"}\n{"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		recs, skipped, err := edgar.ParseLog(bytes.NewReader(raw))
		if err != nil && !errors.Is(err, os.ErrClosed) {
			t.Fatal(err)
		}
		if len(recs)+skipped > bytes.Count(raw, []byte("\n"))+1 {
			t.Fatalf("%d records and %d skipped from %d lines", len(recs), skipped, bytes.Count(raw, []byte("\n"))+1)
		}
		for _, r := range recs {
			if r.Finished.IsZero() {
				t.Fatalf("a record without its end: %+v", r)
			}
		}
	})
}
