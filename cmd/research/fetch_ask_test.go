package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/edgar"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/edgartest"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
)

// fakeSECWithAMD serves an issuer the SEC's issuer list in the binary
// knows (so that the router names it in a question), with a 10-K and a
// 10-Q of fiscal 2024.
func fakeSECWithAMD(t *testing.T) *edgartest.Server {
	srv := edgartest.New(t)
	const cik = 2488
	const name = "ADVANCED MICRO DEVICES INC"
	amd := edgartest.Issuer{CIK: cik, Ticker: "AMD", Name: name, FiscalYearEnd: "1231", Filings: []edgartest.Filing{
		{Accession: "0000002488-25-000012", Form: "10-K", Filed: "2025-02-05", ReportDate: "2024-12-31", PrimaryDocument: "amd-20241231.htm",
			Body: edgartest.Document(name, cik, "10-K", "2024-01-01", "2024-12-31", 25785, "Data center segment revenue grew on demand for accelerators.")},
		{Accession: "0000002488-24-000121", Form: "10-Q", Filed: "2024-10-30", ReportDate: "2024-09-28", PrimaryDocument: "amd-20240928.htm",
			Body: edgartest.Document(name, cik, "10-Q", "2024-06-30", "2024-09-28", 6819, "Third-quarter client segment revenue rose.")},
		{Accession: "0000002488-24-000012", Form: "10-K", Filed: "2024-02-01", ReportDate: "2023-12-30", PrimaryDocument: "amd-20231230.htm",
			Body: edgartest.Document(name, cik, "10-K", "2023-01-01", "2023-12-30", 22680, "Gaming revenue declined.")},
		{Accession: "0000002488-23-000005", Form: "10-K", Filed: "2023-02-27", ReportDate: "2022-12-31", PrimaryDocument: "amd-20221231.htm"},
	}}
	srv.Put(edgartest.CompanyFactsPath(cik), []byte(amdFacts))
	srv.AddIssuer(amd)
	srv.PutTickers(amd)
	return srv
}

// amdFacts are company facts of the fake AMD: each 10-K's revenue with
// the prior year's.
const amdFacts = `{"cik":2488,"entityName":"ADVANCED MICRO DEVICES INC","facts":{"us-gaap":{"Revenues":{"label":"Revenues","units":{"USD":[
 {"start":"2021-01-01","end":"2021-12-25","val":16434000000,"accn":"0000002488-23-000005","fy":2022,"fp":"FY","form":"10-K","filed":"2023-02-27"},
 {"start":"2021-12-26","end":"2022-12-31","val":23601000000,"accn":"0000002488-23-000005","fy":2022,"fp":"FY","form":"10-K","filed":"2023-02-27"},
 {"start":"2021-12-26","end":"2022-12-31","val":23601000000,"accn":"0000002488-24-000012","fy":2023,"fp":"FY","form":"10-K","filed":"2024-02-01"},
 {"start":"2023-01-01","end":"2023-12-30","val":22680000000,"accn":"0000002488-24-000012","fy":2023,"fp":"FY","form":"10-K","filed":"2024-02-01"},
 {"start":"2024-01-01","end":"2024-12-31","val":25785000000,"accn":"0000002488-25-000012","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-05"}]}}}}}`

// A year whose filing was not ingested is answered from the company facts
// the fetch stored, cited to the filing's accession number, in either
// store.
func TestAskAnswersFromCompanyFacts(t *testing.T) {
	t.Parallel()
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		askFromCompanyFacts(t, "--data-dir", t.TempDir(), "--db", "")
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		_, schema := pgtest.EmptyPool(t)
		askFromCompanyFacts(t, "--data-dir", t.TempDir(), "--db", pgtest.SchemaURL(t, schema))
	})
}

func askFromCompanyFacts(t *testing.T, store ...string) {
	srv := fakeSECWithAMD(t)
	sec := []string{"--sec-url", srv.URL, "--sec-data-url", srv.URL, "--user-agent", testUserAgent}
	fetch := append(append([]string{"fetch", "--ticker", "AMD", "--forms", "10-K", "--since", "2022", "--latest", "1", "--facts"}, sec...), store...)
	code, out, errOut := runCLI(t, fetch...)
	if code != 0 || !strings.Contains(out, "1 ingested") || !strings.Contains(out, "5 company facts, the values of 2 filings stored now") {
		t.Fatalf("fetch: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, fetch...)
	if code != 0 || !strings.Contains(out, "nothing new") || !strings.Contains(out, "the values of 0 filings stored now") {
		t.Fatalf("second fetch: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, append([]string{"ask", "What was AMD's revenue in fiscal 2022?", "--format", "json", "--quiet"}, store...)...)
	if code != 0 {
		t.Fatalf("ask: exit %d\n%s\n%s", code, out, errOut)
	}
	var res struct {
		Status    string
		Answer    string
		Citations []struct {
			Form, Excerpt string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	want := "us-gaap:Revenues (Revenues) | USD | 2021-12-26 to 2022-12-31 | 23601000000 | 10-K 0000002488-23-000005 filed 2023-02-27"
	if res.Status != "supported" || len(res.Citations) == 0 || res.Citations[0].Excerpt != want || res.Citations[0].Form != "10-K XBRL" {
		t.Errorf("answer:\n%s", out)
	}
	if !strings.Contains(res.Answer, "23.60 billion") {
		t.Errorf("answer lacks the figure:\n%s", res.Answer)
	}
	// The fiscal 2024 figure comes from the filing's own text.
	code, out, _ = runCLI(t, append([]string{"ask", "What was AMD's revenue in fiscal 2024?", "--quiet"}, store...)...)
	if code != 0 || !strings.Contains(out, "Total net revenue | 25785") {
		t.Errorf("FY2024: exit %d\n%s", code, out)
	}
}

// TestFetchCommandHistory: every fetch is in the fetch log, and --history
// lists them.
func TestFetchCommandHistory(t *testing.T) {
	t.Parallel()
	srv := fakeSEC(t)
	data := t.TempDir()
	args := []string{"fetch", "--cik", "1000001", "--forms", "10-K", "--user-agent", testUserAgent,
		"--sec-url", srv.URL, "--sec-data-url", srv.URL, "--data-dir", data, "--db", "", "--quiet"}
	refresh := []string{"fetch", "--refresh-issuers", "--user-agent", testUserAgent, "--sec-url", srv.URL, "--sec-data-url", srv.URL, "--data-dir", data, "--db", ""}
	for _, a := range [][]string{refresh, args, args} {
		if code, out, errOut := runCLI(t, a...); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", a, code, out, errOut)
		}
	}
	code, out, errOut := runCLI(t, "fetch", "--history", "5", "--data-dir", data, "--db", "")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[0], "research fetch --refresh-issuers 1 requests (1 downloaded, 0 not modified)") ||
		!strings.Contains(lines[1], "research fetch") || !strings.Contains(lines[1], "[CIK 1000001] [10-K]: 2 selected, 2 ingested") ||
		!strings.Contains(lines[2], "2 selected, 0 ingested, 2 already stored, 0 failed; 2 requests (0 downloaded, 2 not modified)") {
		t.Errorf("history: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "fetch", "--history", "5", "--data-dir", t.TempDir(), "--db", "")
	if code != 0 || !strings.Contains(out, "no fetch recorded") {
		t.Errorf("empty history: exit %d\n%s", code, out)
	}
}

func TestAskFetch(t *testing.T) {
	t.Parallel()
	srv := fakeSECWithAMD(t)
	_, manifest := writeFixtures(t)
	data := t.TempDir()
	store := []string{"--data-dir", data, "--db", ""}
	sec := []string{"--sec-url", srv.URL, "--sec-data-url", srv.URL}
	runCLI(t, append([]string{"ingest", "--manifest", manifest}, store...)...)
	const q = "What was AMD's revenue in fiscal 2024?"

	steps := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string // in stdout
		wantErr  []string // in stderr
		requests bool     // whether the fake SEC is asked anything
	}{
		{"without --fetch the answer names the fetch command", []string{"ask", q, "--quiet"}, 3,
			[]string{"AMD (ADVANCED MICRO DEVICES INC) is not in the corpus", "`research fetch --ticker AMD --forms 10-K,10-Q --since 2024 --until 2024`"}, nil, false},
		{"--fetch without a User-Agent is refused", append([]string{"ask", q, "--fetch", "--user-agent", ""}, sec...), 1,
			nil, []string{"User-Agent naming your organisation and an email address"}, false},
		{"--fetch fetches the issuer's filings of the year, then answers from them", append([]string{"ask", q, "--fetch", "--user-agent", testUserAgent, "--run-id", "fetch-run"}, sec...), 0,
			[]string{"Fetched from SEC EDGAR before planning (AMD): 2 filings selected, 2 ingested, 0 already stored, 0 failed", "AMD", "25785"},
			[]string{"fetch: AMD (ADVANCED MICRO DEVICES INC) not in the corpus; fetching the 10-K and 10-Q filings of fiscal 2024 from SEC EDGAR", "[2/2] AMD"}, true},
		{"--fetch again: the corpus holds the issuer, nothing is fetched", append([]string{"ask", q, "--fetch", "--user-agent", testUserAgent, "--quiet"}, sec...), 0,
			[]string{"25785"}, nil, false},
	}
	for _, st := range steps {
		before := len(srv.Hits())
		code, out, errOut := runCLI(t, append(st.args, store...)...)
		t.Logf("%s:\n%s\n%s", st.name, out, errOut)
		if code != st.wantCode {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", st.name, code, st.wantCode, out, errOut)
		}
		for _, w := range st.wantOut {
			if !strings.Contains(out, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", st.name, w, out)
			}
		}
		for _, w := range st.wantErr {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", st.name, w, errOut)
			}
		}
		if asked := len(srv.Hits()) > before; asked != st.requests {
			t.Errorf("%s: the SEC was asked: %v, want %v", st.name, asked, st.requests)
		}
	}

	// The fetch is in the run's ledger and in the fetch log.
	lg, err := embeddedledger.Open(data, &embeddedledger.Config{Tenant: "default"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := lg.Load(context.Background(), "fetch-run")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range l.Events {
		if e.Kind == EventFetch {
			found = true
			var d struct {
				Tickers []string
				Filings []struct {
					Outcome    string `json:"outcome"`
					DocumentID string `json:"document_id"`
				} `json:"filings"`
			}
			if err := json.Unmarshal(e.Data, &d); err != nil || len(d.Filings) != 2 || d.Filings[0].Outcome != "added" || d.Filings[0].DocumentID == "" {
				t.Errorf("fetch event data: %v %s", err, e.Data)
			}
		}
	}
	if !found {
		t.Errorf("no %s event in the run's ledger", EventFetch)
	}
	recs, _, err := edgar.ReadLog(filepath.Join(data, edgar.LogFileName))
	if err != nil || len(recs) != 1 || recs[0].By != "research ask --fetch" || recs[0].Summary.Ingested != 2 {
		t.Errorf("fetch log: %v %+v", err, recs)
	}
}

// TestAskFetchWithinItsBudget: a fetch that cannot finish stops at its
// share of the run's wall-clock budget, and the run goes on with what the
// corpus holds; the next fetch does the rest.
func TestAskFetchWithinItsBudget(t *testing.T) {
	t.Parallel()
	srv := fakeSECWithAMD(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // runs before the server closes
	blocked := "/Archives/edgar/data/2488/000000248825000012/amd-20241231.htm"
	srv.OnRequest(blocked, func() { <-release })
	_, manifest := writeFixtures(t)
	data := t.TempDir()
	store := []string{"--data-dir", data, "--db", ""}
	runCLI(t, append([]string{"ingest", "--manifest", manifest}, store...)...)
	start := time.Now()
	code, out, errOut := runCLI(t, append([]string{"ask", "What was AMD's revenue in fiscal 2024?", "--fetch", "--user-agent", testUserAgent,
		"--sec-url", srv.URL, "--sec-data-url", srv.URL, "--timeout", "6s"}, store...)...)
	// The run keeps what the fetch left of the budget: it may run out.
	if (code != 3 && code != 5) || time.Since(start) > 30*time.Second {
		t.Fatalf("exit %d after %s\n%s\n%s", code, time.Since(start), out, errOut)
	}
	const stopped = "the fetch stopped at its share of the wall-clock budget (3s)"
	if !strings.Contains(out, stopped) || !strings.Contains(errOut, stopped) || !strings.Contains(out, "research fetch --ticker AMD") {
		t.Errorf("output:\n%s\n%s", out, errOut)
	}
	recs, _, err := edgar.ReadLog(filepath.Join(data, edgar.LogFileName))
	if err != nil || len(recs) != 1 || !strings.Contains(recs[0].Error, "deadline") {
		t.Fatalf("fetch log: %v %+v", err, recs)
	}
}

// TestFetchMissingBeforeRuns: with --fetch-missing, the engine a server or
// a worker builds fetches a missing issuer before the run reads the
// corpus, records the fetch in the run's ledger and answers from it;
// without the setting nothing is fetched, and the setting is refused
// without a User-Agent.
func TestFetchMissingBeforeRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := fakeSECWithAMD(t)
	_, manifest := writeFixtures(t)
	data := t.TempDir()
	runCLI(t, "ingest", "--manifest", manifest, "--data-dir", data, "--db", "")
	const q = "What was AMD's revenue in fiscal 2024?"

	var off fetchMissing
	if off.preparer(data, "", corpus.HashEmbedder{}) != nil {
		t.Fatal("a preparer with --fetch-missing off")
	}
	on := fetchMissing{askFetch: askFetch{enabled: true, by: "research serve --fetch-missing",
		sec: secFlags{baseURL: srv.URL, dataURL: srv.URL, userAgent: "", rps: edgar.MaxRequestsPerSecond}}}
	if err := on.check(); err == nil || !strings.Contains(err.Error(), "User-Agent") {
		t.Errorf("--fetch-missing without a User-Agent: %v, want a refusal naming it", err)
	}
	on.sec.userAgent = testUserAgent

	run := func(prepare func(context.Context, string, *engine.Tenant, executor.Request, time.Duration) (ledger.Event, error), id string) *executor.Result {
		t.Helper()
		proc, err := engine.New(&engine.Config{DataDir: data, Prepare: prepare})
		if err != nil {
			t.Fatal(err)
		}
		defer proc.Close()
		eng, err := proc.Engine(ctx, "default")
		if err != nil {
			t.Fatal(err)
		}
		res, err := eng.Run(ctx, executor.Request{RunID: id, Question: q, Mode: ledger.ModeRules})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	before := len(srv.Hits())
	if res := run(nil, "no-fetch"); res.Status == ledger.StatusSupported || len(srv.Hits()) != before {
		t.Errorf("without the setting: status %s, %d requests to the SEC; want no answer and none", res.Status, len(srv.Hits())-before)
	}
	res := run(on.preparer(data, "", corpus.HashEmbedder{}), "fetched-run")
	if res.Status != ledger.StatusSupported || !strings.Contains(res.Answer, "25785") && !strings.Contains(res.Answer, "25,785") {
		t.Errorf("with the setting: status %s, answer %q; want AMD's revenue, supported", res.Status, res.Answer)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "Fetched from SEC EDGAR before planning (AMD)") }) {
		t.Errorf("notes %q do not say what was fetched", res.Notes)
	}
	lg, err := embeddedledger.Open(data, &embeddedledger.Config{Tenant: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	l, err := lg.Load(ctx, "fetched-run")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(l.Events, func(e ledger.Event) bool { return e.Kind == EventFetch }) {
		t.Errorf("no %s event in the run's ledger", EventFetch)
	}
	recs, _, err := edgar.ReadLog(filepath.Join(data, edgar.LogFileName))
	if err != nil || len(recs) != 1 || recs[0].By != "research serve --fetch-missing" {
		t.Errorf("fetch log: %v %+v", err, recs)
	}
}
