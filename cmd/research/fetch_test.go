package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/edgartest"
	"github.com/ledgerline/research/internal/pgtest"
)

const testUserAgent = "Ledgerline Research research@example.com"

// fakeSEC serves one issuer, Acme, with two annual reports (one on the
// older page of its submissions) and a quarterly one.
func fakeSEC(t *testing.T) *edgartest.Server {
	srv := edgartest.New(t)
	const cik = 1000001
	doc := func(form, start, end string, rev int, say string) []byte {
		return edgartest.Document("Acme Widgets Inc.", cik, form, start, end, rev, say)
	}
	acme := edgartest.Issuer{CIK: cik, Ticker: "ACME", Name: "Acme Widgets Inc.", FiscalYearEnd: "1231", Filings: []edgartest.Filing{
		{Accession: "0001000001-25-000004", Form: "10-K", Filed: "2025-02-10", ReportDate: "2024-12-31", PrimaryDocument: "acme-20241231.htm",
			Body: doc("10-K", "2024-01-01", "2024-12-31", 5200, "Widget demand in fiscal 2024 outpaced capacity at the Ohio plant.")},
		{Accession: "0001000001-24-000011", Form: "10-Q", Filed: "2024-11-01", ReportDate: "2024-09-30", PrimaryDocument: "acme-20240930.htm",
			Body: doc("10-Q", "2024-07-01", "2024-09-30", 1300, "Third-quarter sprocket shipments slowed as dealers cut inventory.")},
		{Accession: "0001000001-24-000002", Form: "10-K", Filed: "2024-02-12", ReportDate: "2023-12-31", PrimaryDocument: "acme-20231231.htm", Older: true,
			Body: doc("10-K", "2023-01-01", "2023-12-31", 4800, "Gizmo margins narrowed in fiscal 2023 on higher steel prices.")},
	}}
	srv.AddIssuer(acme)
	srv.PutTickers(acme)
	return srv
}

func TestFetchCommand(t *testing.T) {
	t.Parallel()
	srv := fakeSEC(t)
	data := t.TempDir()
	sec := []string{"--sec-url", srv.URL, "--sec-data-url", srv.URL, "--data-dir", data, "--db", ""}

	// No User-Agent: refused, with the reason.
	code, out, errOut := runCLI(t, append([]string{"fetch", "--ticker", "ACME", "--user-agent", ""}, sec...)...)
	if code != 1 || !strings.Contains(errOut, "User-Agent naming your organisation and an email address") || len(srv.Hits()) != 0 {
		t.Fatalf("without a User-Agent: exit %d, %d requests\n%s\n%s", code, len(srv.Hits()), out, errOut)
	}

	// The embedded issuer list lacks Acme: refresh it from the fake.
	code, out, errOut = runCLI(t, append([]string{"fetch", "--refresh-issuers", "--user-agent", testUserAgent}, sec...)...)
	if code != 0 || !strings.Contains(out, "issuer list: 1 tickers (downloaded)") {
		t.Fatalf("refresh: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(data, "company_tickers.json")); err != nil {
		t.Fatal(err)
	}

	args := append([]string{"fetch", "--ticker", "acme", "--forms", "10-K", "--since", "2023", "--user-agent", testUserAgent}, sec...)
	code, out, errOut = runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "2 filings selected; 0 already stored, 2 downloaded, 0 from cache") || !strings.Contains(out, "2 ingested") {
		t.Fatalf("fetch: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "ACME (CIK 1000001, Acme Widgets Inc.): 3 filings listed, 2 selected") {
		t.Errorf("progress:\n%s", errOut)
	}

	// Again: nothing new, and it says so.
	code, out, errOut = runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "2 already stored, 0 downloaded") || !strings.Contains(out, "nothing new") ||
		!strings.Contains(out, "2 not modified") {
		t.Fatalf("second fetch: exit %d\n%s\n%s", code, out, errOut)
	}

	// Offline, from the cache, with no User-Agent needed: the 10-Q was
	// never downloaded, so it fails and the rest holds.
	n := len(srv.Hits())
	code, out, errOut = runCLI(t, append([]string{"fetch", "--ticker", "ACME", "--offline", "--user-agent", ""}, sec...)...)
	if code != 1 || len(srv.Hits()) != n || !strings.Contains(out, "not in the cache") || !strings.Contains(out, "2 already stored") {
		t.Fatalf("offline fetch: exit %d, %d requests\n%s\n%s", code, len(srv.Hits())-n, out, errOut)
	}

	// The fetched filings are searchable, cited to their SEC documents.
	code, out, errOut = runCLI(t, "search", "steel prices gizmo margins", "--ticker", "ACME", "--format", "json", "--data-dir", data, "--db", "")
	if code != 0 {
		t.Fatalf("search: exit %d: %s", code, errOut)
	}
	var res searchJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Results) == 0 {
		t.Fatalf("search: %v\n%s", err, out)
	}
	if first := res.Results[0]; first["fiscal_year"] != float64(2023) || !strings.Contains(first["text"].(string), "higher steel prices") {
		t.Errorf("first result = %v", first)
	}

	// An unknown ticker fails, naming what to do.
	code, out, errOut = runCLI(t, append([]string{"fetch", "--ticker", "ZZZQ", "--user-agent", testUserAgent}, sec...)...)
	if code != 1 || !strings.Contains(out+errOut, `ticker "ZZZQ": not in the SEC issuer list`) {
		t.Errorf("unknown ticker: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestFetchCommandUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"fetch"}, 2, "Usage: research fetch"},
		{[]string{"fetch", "--help"}, 0, "-sec-data-url"},
		{[]string{"fetch", "--cik", "x1"}, 2, `--cik "x1"`},
		{[]string{"fetch", "--ticker", "A", "--rate", "20", "--user-agent", testUserAgent}, 1, "RequestsPerSecond"},
		{[]string{"fetch", "--ticker", "A", "--forms", "10-X", "--user-agent", testUserAgent, "--sec-url", "http://127.0.0.1:1"}, 1, `form "10-X"`},
	}
	for _, tt := range tests {
		args := append(tt.args, "--data-dir", t.TempDir(), "--db", "")
		code, out, errOut := runCLI(t, args...)
		if code != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("%v: exit %d, want %d; output lacks %q?\n%s\n%s", tt.args, code, tt.code, tt.want, out, errOut)
		}
	}
}

// TestFetchCommandSampleFiling fetches a filing of the sample corpus from
// the fake, resolving its ticker with the issuer list in the binary.
func TestFetchCommandSampleFiling(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile(filepath.Join(corpustest.Dir(t), "edgar", "nflx-10-k-2025-01-27.html"))
	if err != nil {
		t.Fatal(err)
	}
	srv := edgartest.New(t)
	srv.AddIssuer(edgartest.Issuer{CIK: 1065280, Ticker: "NFLX", Name: "NETFLIX INC", FiscalYearEnd: "1231", Filings: []edgartest.Filing{
		{Accession: "0001065280-25-000044", Form: "10-K", Filed: "2025-01-27", ReportDate: "2024-12-31", PrimaryDocument: "nflx-20241231.htm", Body: body},
	}})
	data := t.TempDir()
	code, out, errOut := runCLI(t, "fetch", "--ticker", "NFLX", "--forms", "10-K", "--since", "2024", "--user-agent", testUserAgent,
		"--sec-url", srv.URL, "--sec-data-url", srv.URL, "--data-dir", data, "--db", "", "--quiet")
	if code != 0 || !strings.Contains(out, "1 ingested") {
		t.Fatalf("fetch: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "search", "streaming membership paid net additions", "--ticker", "NFLX", "--format", "json", "--data-dir", data, "--db", "")
	var res searchJSON
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Results) == 0 {
		t.Fatalf("search: exit %d\n%s\n%s", code, out, errOut)
	}
	if r := res.Results[0]; r["company"] != "NETFLIX INC" || r["fiscal_year"] != float64(2024) || r["form"] != "10-K" {
		t.Errorf("first result = %v", r)
	}
}

// TestFetchCommandPostgres fetches into Postgres twice: the second run
// finds every filing stored and does nothing.
func TestFetchCommandPostgres(t *testing.T) {
	_, schema := pgtest.EmptyPool(t)
	u := pgtest.SchemaURL(t, schema)
	srv := fakeSEC(t)
	args := []string{"fetch", "--cik", "1000001", "--forms", "10-K,10-Q", "--user-agent", testUserAgent,
		"--sec-url", srv.URL, "--sec-data-url", srv.URL, "--data-dir", t.TempDir(), "--db", u, "--quiet"}
	code, out, errOut := runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "3 ingested") {
		t.Fatalf("fetch: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "3 already stored, 0 downloaded") || !strings.Contains(out, "nothing new") {
		t.Fatalf("second fetch: exit %d\n%s\n%s", code, out, errOut)
	}
}
