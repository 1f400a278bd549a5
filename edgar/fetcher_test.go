package edgar_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/edgar"
	"github.com/ledgerline/research/internal/edgartest"
)

const userAgent = "Ledgerline Research research@example.com"

// acme is a calendar-year issuer with annual reports on both the recent
// list and the older page, a quarterly report, an amendment and an 8-K.
func acme() edgartest.Issuer {
	const cik = 1000001
	doc := func(form, start, end string, rev int, say string) []byte {
		return edgartest.Document("Acme Widgets Inc.", cik, form, start, end, rev, say)
	}
	return edgartest.Issuer{CIK: cik, Ticker: "ACME", Name: "Acme Widgets Inc.", FiscalYearEnd: "1231", Filings: []edgartest.Filing{
		{Accession: "0001000001-25-000004", Form: "10-K", Filed: "2025-02-10", ReportDate: "2024-12-31", PrimaryDocument: "acme-20241231.htm",
			Body: doc("10-K", "2024-01-01", "2024-12-31", 5200, "Widget demand in fiscal 2024 outpaced capacity at the Ohio plant.")},
		{Accession: "0001000001-24-000011", Form: "10-Q", Filed: "2024-11-01", ReportDate: "2024-09-30", PrimaryDocument: "acme-20240930.htm",
			Body: doc("10-Q", "2024-07-01", "2024-09-30", 1300, "Third-quarter sprocket shipments slowed as dealers cut inventory.")},
		{Accession: "0001000001-24-000006", Form: "10-K/A", Filed: "2024-04-15", ReportDate: "2023-12-31", PrimaryDocument: "acme-20231231x10ka.htm",
			Body: doc("10-K/A", "2023-01-01", "2023-12-31", 4800, "This amendment restates the executive compensation tables.")},
		{Accession: "0001000001-24-000005", Form: "8-K", Filed: "2024-05-01", ReportDate: "2024-05-01", PrimaryDocument: "acme-8k.htm",
			Body: doc("8-K", "2024-05-01", "2024-05-01", 0, "Results of the annual meeting.")},
		{Accession: "0001000001-24-000002", Form: "10-K", Filed: "2024-02-12", ReportDate: "2023-12-31", PrimaryDocument: "acme-20231231.htm",
			Body: doc("10-K", "2023-01-01", "2023-12-31", 4800, "Gizmo margins narrowed in fiscal 2023 on higher steel prices.")},
		{Accession: "0001000001-23-000002", Form: "10-K", Filed: "2023-02-13", ReportDate: "2022-12-31", PrimaryDocument: "acme-20221231.htm", Older: true,
			Body: doc("10-K", "2022-01-01", "2022-12-31", 4100, "Freight costs in fiscal 2022 weighed on doohickey profitability.")},
		{Accession: "0001000001-22-000003", Form: "10-K", Filed: "2022-02-14", ReportDate: "2021-12-31", PrimaryDocument: "acme-20211231.htm", Older: true,
			Body: doc("10-K", "2021-01-01", "2021-12-31", 3900, "Fiscal 2021 brought the first thingamajig orders.")},
	}}
}

// beta has a fiscal year ending late in January, and filings only before 2021.
func beta() edgartest.Issuer {
	const cik = 1000002
	return edgartest.Issuer{CIK: cik, Ticker: "BETA", Name: "Beta Gadgets Corp", FiscalYearEnd: "0128", Filings: []edgartest.Filing{
		{Accession: "0001000002-20-000001", Form: "10-K", Filed: "2020-03-01", ReportDate: "2020-01-26", PrimaryDocument: "beta-20200126.htm",
			Body: edgartest.Document("Beta Gadgets Corp", cik, "10-K", "2019-01-28", "2020-01-26", 700, "Gadget sales rose.")},
	}}
}

// fixture is a fake EDGAR, a client with its own cache, an embedded store
// and a fetcher over them.
type fixture struct {
	srv     *edgartest.Server
	client  *edgar.Client
	store   *embedded.Store
	fetcher *edgar.Fetcher
	cache   string
}

func setup(t *testing.T, cfg *edgar.Config) *fixture {
	t.Helper()
	srv := edgartest.New(t)
	a, b := acme(), beta()
	srv.AddIssuer(a)
	srv.AddIssuer(b)
	srv.PutTickers(a, b)
	f := &fixture{srv: srv, cache: filepath.Join(t.TempDir(), "edgar")}
	f.client = newClient(t, srv, f.cache, cfg)
	store, err := embedded.Open(filepath.Join(t.TempDir(), "store"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	f.store = store
	f.fetcher = newFetcher(t, f.client, store, srv)
	return f
}

func newClient(t *testing.T, srv *edgartest.Server, cacheDir string, cfg *edgar.Config) *edgar.Client {
	t.Helper()
	c := edgar.Config{}
	if cfg != nil {
		c = *cfg
	}
	c.BaseURL, c.DataURL, c.CacheDir = srv.URL, srv.URL, cacheDir
	if c.UserAgent == "" {
		c.UserAgent = userAgent
	}
	if c.Backoff == 0 {
		c.Backoff = 20 * time.Millisecond
	}
	client, err := edgar.NewClient(&c)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func newFetcher(t *testing.T, client *edgar.Client, store corpus.Store, srv *edgartest.Server) *edgar.Fetcher {
	t.Helper()
	raw, err := os.ReadFile(mustGet(t, client, srv.URL+edgartest.TickersPath).Path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := configs.LoadIssuers(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	in, err := corpus.NewIngester(store, corpus.HashEmbedder{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := edgar.NewFetcher(client, store, in, &edgar.FetcherConfig{Issuers: list})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustGet(t *testing.T, c *edgar.Client, url string) *edgar.Result {
	t.Helper()
	res, err := c.Get(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestFetchIngestsSelectedFilingsAndAgainNothing(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := context.Background()
	var progress bytes.Buffer
	r, err := f.fetcher.Fetch(ctx, &edgar.FetchOpts{Tickers: []string{"acme"}, Forms: []string{"10-K"}, Since: 2022, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	// FY2022 is on the older page; FY2021 is before the range; the
	// amendment, the 10-Q and the 8-K are other forms.
	if r.Selected != 3 || r.Added != 3 || r.Downloaded != 3 || r.Stored != 0 || r.Failed != 0 {
		t.Fatalf("report: selected %d added %d downloaded %d stored %d failed %d\n%s",
			r.Selected, r.Added, r.Downloaded, r.Stored, r.Failed, progress.String())
	}
	if is := r.Issuers[0]; is.CIK != 1000001 || is.Ticker != "ACME" || is.Listed != 7 || is.Company != "Acme Widgets Inc." {
		t.Errorf("issuer = %+v", is)
	}
	docs, err := f.store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, fmt.Sprintf("%s %s FY%d %s filed %s %s", d.Ticker, d.Form, d.FiscalYear,
			d.PeriodEnd.Format(time.DateOnly), d.Filed.Format(time.DateOnly), strings.TrimPrefix(d.Source, f.srv.URL)))
	}
	want := []string{
		"ACME 10-K FY2022 2022-12-31 filed 2023-02-13 /Archives/edgar/data/1000001/000100000123000002/acme-20221231.htm",
		"ACME 10-K FY2023 2023-12-31 filed 2024-02-12 /Archives/edgar/data/1000001/000100000124000002/acme-20231231.htm",
		"ACME 10-K FY2024 2024-12-31 filed 2025-02-10 /Archives/edgar/data/1000001/000100000125000004/acme-20241231.htm",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("documents:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, line := range []string{"ACME (CIK 1000001, Acme Widgets Inc.): 7 filings listed, 3 selected (10-K, fiscal 2022 on)", "[3/3] ACME 10-K"} {
		if !strings.Contains(progress.String(), line) {
			t.Errorf("progress lacks %q:\n%s", line, progress.String())
		}
	}

	// Again: the listings are revalidated (304), nothing is downloaded or
	// ingested.
	before := len(f.srv.Hits())
	r2, err := f.fetcher.Fetch(ctx, &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-K"}, Since: 2022})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Selected != 3 || r2.Stored != 3 || r2.Added != 0 || r2.Downloaded != 0 || r2.Cached != 0 {
		t.Errorf("second fetch: selected %d stored %d added %d downloaded %d cached %d", r2.Selected, r2.Stored, r2.Added, r2.Downloaded, r2.Cached)
	}
	for _, h := range f.srv.Hits()[before:] {
		if h.Status != 304 {
			t.Errorf("second fetch requested %s (status %d); want only conditional listings answered 304", h.Path, h.Status)
		}
	}
	if r2.Client.NotModified != 2 || r2.Client.Downloads != 0 {
		t.Errorf("second fetch: %+v", r2.Client)
	}
}

func TestFetchedFilingIsSearchableAndCitable(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := context.Background()
	if _, err := f.fetcher.Fetch(ctx, &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-Q"}}); err != nil {
		t.Fatal(err)
	}
	hits, err := f.store.FullTextSearch(ctx, "sprocket shipments dealers", corpus.Filter{Tickers: []string{"ACME"}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatal("the fetched 10-Q is not found by full-text search")
	}
	h := hits[0]
	if h.Form != "10-Q" || h.FiscalYear != 2024 || h.Section != "Item 7" {
		t.Errorf("hit = %s FY%d %q", h.Form, h.FiscalYear, h.Section)
	}
	doc, err := f.store.Document(ctx, h.DocumentID)
	if err != nil {
		t.Fatal(err)
	}
	// A citation is a span of the document's canonical text.
	if doc.Text[h.Start:h.End] != h.Text || !strings.Contains(h.Text, "Third-quarter sprocket shipments slowed as dealers cut inventory.") {
		t.Errorf("the hit's span does not quote the filing: %q", h.Text)
	}
	if doc.Entity.CIK != "1000001" || doc.Entity.Registrant != "Acme Widgets Inc." {
		t.Errorf("entity = %+v", doc.Entity)
	}
	facts, err := f.store.Facts(ctx, corpus.FactFilter{DocumentID: doc.ID, Concept: "us-gaap:Revenues"})
	if err != nil || len(facts) != 1 || facts[0].Value.String() != "1300000000" {
		t.Errorf("revenue facts = %+v, %v", facts, err)
	}
}

func TestFetchKeepsAnAmendmentAsItsOwnFiling(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	r, err := f.fetcher.Fetch(context.Background(), &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-K", "10-K/A"}, Since: 2023, Until: 2023})
	if err != nil {
		t.Fatal(err)
	}
	if r.Added != 2 || r.Duplicates != 0 {
		t.Fatalf("added %d, duplicates %d; want the 10-K and its amendment", r.Added, r.Duplicates)
	}
	for _, form := range []string{"10-K", "10-K/A"} {
		if _, err := f.store.FindFiling(context.Background(), "ACME", form, time.Date(2023, 12, 31, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Errorf("FindFiling(%s): %v", form, err)
		}
	}
}

func TestFetchOneBadFilingDoesNotStopTheRest(t *testing.T) {
	t.Parallel()
	f := setup(t, &edgar.Config{MaxAttempts: 2})
	a := acme()
	// The FY2023 document is gone (404), and the FY2024 one is not HTML at all.
	bad := a.Filings[4].DocumentPath(a.CIK)
	f.srv.Fail(bad, edgartest.Fault{Status: 404})
	f.srv.Put(a.Filings[0].DocumentPath(a.CIK), []byte("%PDF-1.4 not html"))
	r, err := f.fetcher.Fetch(context.Background(), &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-K"}, Since: 2022})
	if err != nil {
		t.Fatal(err)
	}
	if r.Added != 1 || r.Failed != 2 {
		t.Fatalf("added %d failed %d, want 1 and 2: %v", r.Added, r.Failed, r.Err())
	}
	if !errors.Is(r.Err(), edgar.ErrNotFound) {
		t.Errorf("Err() = %v, want it to hold ErrNotFound", r.Err())
	}
	if f.srv.Count(bad, 0) != 1 {
		t.Errorf("a 404 was retried: %d requests", f.srv.Count(bad, 0))
	}
}

func TestFetchUnknownTickerAndEmptyRange(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	r, err := f.fetcher.Fetch(context.Background(), &edgar.FetchOpts{Tickers: []string{"ZZZQ", "BETA"}, Forms: []string{"10-K"}, Since: 2022})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Issuers) != 2 || !errors.Is(r.Issuers[0].Err, edgar.ErrUnknownTicker) {
		t.Fatalf("issuers = %+v", r.Issuers)
	}
	if !strings.Contains(r.Issuers[0].Err.Error(), "--refresh-issuers") {
		t.Errorf("unknown ticker error says nothing of what to do: %v", r.Issuers[0].Err)
	}
	if b := r.Issuers[1]; b.Err != nil || b.Listed != 1 || b.Selected != 0 {
		t.Errorf("BETA = %+v; want one filing listed, none in range", b)
	}
	if r.Selected != 0 || len(r.Filings) != 0 {
		t.Errorf("selected %d", r.Selected)
	}
}

func TestFetchByCIK(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	r, err := f.fetcher.Fetch(context.Background(), &edgar.FetchOpts{CIKs: []int{1000002}, Forms: []string{"10-K"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Added != 1 || r.Issuers[0].Ticker != "BETA" {
		t.Fatalf("added %d, issuer %+v", r.Added, r.Issuers[0])
	}
	// Beta's fiscal year ends late in January: the year ended 2020-01-26 is fiscal 2020.
	if fy := r.Filings[0].Filing.FiscalYear; fy != 2020 {
		t.Errorf("fiscal year = %d", fy)
	}
}

func TestFetchResumesAfterKill(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	a := acme()
	ctx, cancel := context.WithCancel(context.Background())
	// Killed while the second document (FY2023) downloads.
	second := a.Filings[4].DocumentPath(a.CIK)
	f.srv.OnRequest(second, cancel)
	opts := &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-K"}, Since: 2022, Concurrency: 1}
	if _, err := f.fetcher.Fetch(ctx, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("killed fetch: err = %v", err)
	}
	f.srv.OnRequest(second, nil)
	r, err := f.fetcher.Fetch(context.Background(), opts)
	if err != nil || r.Err() != nil {
		t.Fatal(err, r.Err())
	}
	if r.Added+r.Stored != 3 || r.Failed != 0 {
		t.Fatalf("resumed: added %d stored %d failed %d", r.Added, r.Stored, r.Failed)
	}
	docs, _ := f.store.Documents(context.Background())
	if len(docs) != 3 {
		t.Errorf("%d documents stored, want 3", len(docs))
	}
	// The first document, downloaded before the kill, is not downloaded again.
	if n := f.srv.Count(a.Filings[5].DocumentPath(a.CIK), 200); n != 1 {
		t.Errorf("first document downloaded %d times", n)
	}
}

func TestFetchCompanyFacts(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	f.srv.Put(edgartest.CompanyFactsPath(1000001), []byte(companyFactsJSON))
	r, err := f.fetcher.Fetch(context.Background(), &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-K"}, Since: 2024, Facts: true})
	if err != nil || r.Err() != nil {
		t.Fatal(err, r.Err())
	}
	if r.Facts != 3 {
		t.Errorf("facts = %d, want 3", r.Facts)
	}
}

const companyFactsJSON = `{"cik":1000001,"entityName":"Acme Widgets Inc.","facts":{
 "dei":{"EntityCommonStockSharesOutstanding":{"label":"Entity Common Stock, Shares Outstanding","units":{"shares":[
   {"end":"2025-01-31","val":15115823,"accn":"0001000001-25-000004","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-10","frame":"CY2025Q1I"}]}}},
 "us-gaap":{"Revenues":{"label":"Revenues","description":"Revenue.","units":{"USD":[
   {"start":"2023-01-01","end":"2023-12-31","val":4800000000,"accn":"0001000001-24-000002","fy":2023,"fp":"FY","form":"10-K","filed":"2024-02-12","frame":"CY2023"},
   {"start":"2024-01-01","end":"2024-12-31","val":5200000000.5,"accn":"0001000001-25-000004","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-10"},
   {"start":"2024-01-01","end":"2024-12-31","val":1,"fy":2024}]}}}}}`

func TestParseCompanyFacts(t *testing.T) {
	cf, err := edgar.ParseCompanyFacts([]byte(companyFactsJSON))
	if err != nil {
		t.Fatal(err)
	}
	if cf.CIK != 1000001 || len(cf.Facts) != 3 {
		t.Fatalf("cik %d, %d facts (the one without an accession is skipped)", cf.CIK, len(cf.Facts))
	}
	rev := cf.Facts[2]
	if rev.Concept != "us-gaap:Revenues" || rev.Unit != "USD" || rev.Value.String() != "5200000000.5" || rev.Accession != "0001000001-25-000004" ||
		rev.Form != "10-K" || rev.FiscalYear != 2024 || rev.FiscalPeriod != "FY" || rev.Filed.Format(time.DateOnly) != "2025-02-10" ||
		rev.Start.Format(time.DateOnly) != "2024-01-01" || rev.Instant() {
		t.Errorf("revenue fact = %+v", rev)
	}
	if !cf.Facts[0].Instant() || cf.Facts[0].Concept != "dei:EntityCommonStockSharesOutstanding" {
		t.Errorf("shares fact = %+v", cf.Facts[0])
	}
}

func TestRefreshIssuers(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	dst := filepath.Join(t.TempDir(), "data", configs.IssuersFileName)
	list, res, err := edgar.RefreshIssuers(context.Background(), f.client, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	// setup read the list once already: this is a revalidation.
	if list.Len() != 2 || !res.NotModified {
		t.Errorf("Len = %d, NotModified = %v", list.Len(), res.NotModified)
	}
	got, err := configs.LoadIssuersFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := got.Lookup("beta"); !ok || e.CIK != 1000002 {
		t.Errorf("Lookup(beta) = %+v, %v", e, ok)
	}
	// A list that does not parse leaves the old one in place.
	f.srv.Put(edgartest.TickersPath, []byte(`{"0": {"cik_str": "x"}}`))
	if _, _, err := edgar.RefreshIssuers(context.Background(), f.client, dst, nil); !errors.Is(err, configs.ErrIssuerList) {
		t.Errorf("bad list: err = %v", err)
	}
	if _, err := configs.LoadIssuersFile(dst); err != nil {
		t.Errorf("the old list was damaged: %v", err)
	}
}

func TestFiscalYear(t *testing.T) {
	tests := []struct {
		end, fye string
		want     int
	}{
		{"2024-12-31", "1231", 2024},
		{"2024-03-31", "1231", 2024},
		{"2023-01-01", "1231", 2022}, // a 52/53-week year just past December 31
		{"2023-01-29", "0128", 2023}, // a late-January year end is named by its end
		{"2023-04-30", "0128", 2024}, // the first quarter of that fiscal year
		{"2024-09-28", "0928", 2024},
		{"2025-06-28", "0928", 2025},
		{"2023-12-30", "0102", 2023}, // an early-January year end is named by the year before
		{"2024-06-30", "", 2024},
		{"2024-06-30", "13xx", 2024},
	}
	for _, tt := range tests {
		end, _ := time.Parse(time.DateOnly, tt.end)
		if got := edgar.FiscalYear(end, tt.fye); got != tt.want {
			t.Errorf("FiscalYear(%s, %q) = %d, want %d", tt.end, tt.fye, got, tt.want)
		}
	}
}

func FuzzParseSubmissions(f *testing.F) {
	srv := edgartest.New(f)
	srv.AddIssuer(acme())
	for _, h := range []string{edgartest.SubmissionsPath(1000001), edgartest.OlderPagePath(1000001)} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+h, nil)
		req.Header.Set("User-Agent", userAgent)
		res, err := srv.Client().Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			f.Fatal(h, err, res.Status)
		}
		var b bytes.Buffer
		b.ReadFrom(res.Body)
		res.Body.Close()
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"cik":"1","filings":{"recent":{"accessionNumber":["a"],"form":["10-K"]}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if s, err := edgar.ParseSubmissions(raw); err == nil {
			s.Filings.Recent.Filings(int(1), s.FiscalYearEnd)
		}
		if c, err := edgar.ParseFilingsPage(raw); err == nil {
			for _, fl := range c.Filings(1, "0230") {
				if fl.Accession == "" || fl.Filed.IsZero() {
					t.Fatalf("filing without accession or date: %+v", fl)
				}
			}
		}
	})
}

func FuzzParseCompanyFacts(f *testing.F) {
	f.Add([]byte(companyFactsJSON))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cf, err := edgar.ParseCompanyFacts(raw)
		if err != nil {
			return
		}
		for _, fc := range cf.Facts {
			if fc.Accession == "" || fc.End.IsZero() {
				t.Fatalf("fact without accession or end: %+v", fc)
			}
		}
	})
}

func TestFetchLatestAndAnIssuerAskedTwice(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	r, err := f.fetcher.Fetch(context.Background(), &edgar.FetchOpts{Tickers: []string{"ACME"}, CIKs: []int{1000001}, Latest: 1})
	if err != nil || r.Err() != nil {
		t.Fatal(err, r.Err())
	}
	if len(r.Issuers) != 1 {
		t.Fatalf("%d issuers, want Acme once", len(r.Issuers))
	}
	var got []string
	for _, fr := range r.Filings {
		got = append(got, fr.Filing.Form+" "+fr.Filing.PeriodEnd.Format(time.DateOnly))
	}
	if strings.Join(got, ", ") != "10-Q 2024-09-30, 10-K 2024-12-31" {
		t.Errorf("selected %v, want the latest 10-K and 10-Q", got)
	}
}
