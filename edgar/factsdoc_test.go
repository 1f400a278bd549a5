package edgar_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/edgar"
	"github.com/ledgerline/research/internal/edgartest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
	"github.com/ledgerline/research/tools"
)

// acmeFacts are ACME's company facts: each 10-K reports its year's revenue
// and the prior year's, the 10-Q its quarter's, and the FY2024 10-K the
// shares outstanding on its cover.
const acmeFacts = `{"cik":1000001,"entityName":"ACME WIDGETS INC","facts":{
 "dei":{"EntityCommonStockSharesOutstanding":{"label":"Entity Common Stock, Shares Outstanding","units":{"shares":[
   {"end":"2025-01-31","val":15115823,"accn":"0001000001-25-000004","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-10"}]}}},
 "us-gaap":{"Revenues":{"label":"Revenues","units":{"USD":[
   {"start":"2021-01-01","end":"2021-12-31","val":3900000000,"accn":"0001000001-23-000002","fy":2022,"fp":"FY","form":"10-K","filed":"2023-02-13"},
   {"start":"2022-01-01","end":"2022-12-31","val":4100000000,"accn":"0001000001-23-000002","fy":2022,"fp":"FY","form":"10-K","filed":"2023-02-13","frame":"CY2022"},
   {"start":"2022-01-01","end":"2022-12-31","val":4100000000,"accn":"0001000001-24-000002","fy":2023,"fp":"FY","form":"10-K","filed":"2024-02-12"},
   {"start":"2023-01-01","end":"2023-12-31","val":4800000000,"accn":"0001000001-24-000002","fy":2023,"fp":"FY","form":"10-K","filed":"2024-02-12","frame":"CY2023"},
   {"start":"2023-01-01","end":"2023-12-31","val":4800000000,"accn":"0001000001-25-000004","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-10"},
   {"start":"2024-01-01","end":"2024-12-31","val":5200000000,"accn":"0001000001-25-000004","fy":2024,"fp":"FY","form":"10-K","filed":"2025-02-10","frame":"CY2024"},
   {"start":"2024-07-01","end":"2024-09-30","val":1300000000,"accn":"0001000001-24-000011","fy":2024,"fp":"Q3","form":"10-Q","filed":"2024-11-01"}]}}}}}`

// lookup runs lookup_fact for ACME's revenue in a fiscal year in a new run,
// and returns the one fact it registered with its evidence, checked to be
// a span of a stored document.
func lookup(t *testing.T, f *fixture, year int) (ledger.Fact, ledger.Evidence, *corpus.Document) {
	t.Helper()
	ctx := context.Background()
	lg, err := embeddedledger.Open(t.TempDir(), &embeddedledger.Config{Tenant: "t"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	runID := fmt.Sprintf("run-%d", year)
	if _, _, err := lg.OpenRun(ctx, ledger.Run{ID: runID, Question: "ACME revenue"}); err != nil {
		t.Fatal(err)
	}
	env := &tools.Env{Store: f.store, Searcher: corpus.NewSearcher(f.store, corpus.HashEmbedder{}), Ledger: lg, RunID: runID,
		Scope: tools.Scope{Tenant: "t", Tickers: []string{"ACME"}}}
	out, err := tools.Run(ctx, env, tools.Call{ID: "n1", Tool: tools.LookupFact,
		Args: json.RawMessage(fmt.Sprintf(`{"ticker":"ACME","concept":"us-gaap:Revenues","period":"FY%d"}`, year))})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Facts) == 0 {
		t.Fatalf("FY%d: no fact:\n%s", year, out.Text)
	}
	fact := out.Facts[0]
	var ev ledger.Evidence
	for _, e := range out.Evidence {
		if e.ID == fact.EvidenceID {
			ev = e
		}
	}
	doc, err := f.store.Document(ctx, ev.DocumentID)
	if err != nil {
		t.Fatalf("FY%d: the evidence's document: %v", year, err)
	}
	if ev.End > len(doc.Text) || doc.Text[ev.Start:ev.End] != ev.Excerpt {
		t.Fatalf("FY%d: the excerpt %q is not the span [%d,%d) of document %s", year, ev.Excerpt, ev.Start, ev.End, doc.ID)
	}
	return fact, ev, doc
}

func TestFetchStoresCompanyFactsOfFilingsNotIngested(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	f.srv.Put(edgartest.CompanyFactsPath(1000001), []byte(acmeFacts))
	ctx := context.Background()
	var progress strings.Builder
	// Only the latest 10-K is downloaded; the company facts give the
	// figures of the years before it.
	opts := &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-K"}, Since: 2022, Latest: 1, Facts: true, Progress: &progress}
	r, err := f.fetcher.Fetch(ctx, opts)
	if err != nil || r.Err() != nil {
		t.Fatal(err, r.Err())
	}
	if r.Added != 1 || r.Facts != 8 || r.FactsAdded != 2 {
		t.Fatalf("added %d, facts %d, facts added %d\n%s", r.Added, r.Facts, r.FactsAdded, progress.String())
	}
	got := map[string]edgar.FactsOutcome{}
	for _, fr := range r.FactFilings {
		got[fr.Filing.Accession] = fr.Outcome
	}
	want := map[string]edgar.FactsOutcome{
		"0001000001-25-000004": edgar.FactsOwn, "0001000001-24-000002": edgar.FactsAdded, "0001000001-23-000002": edgar.FactsAdded,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("facts outcomes = %v, want %v", got, want)
	}
	if !strings.Contains(progress.String(), "ACME: 8 company facts on 2 concepts; the values of 2 filings stored now, 0 already stored, 1 read from the filings' own text") {
		t.Errorf("progress:\n%s", progress.String())
	}

	// A year only company facts hold: the fact is cited to the line of the
	// company facts document that names the filing it was reported in.
	fact, ev, doc := lookup(t, f, 2022)
	if fact.Value.String() != "4100000000" || fact.Unit != "USD" || fact.Period != "2022-01-01/2022-12-31" {
		t.Errorf("FY2022 fact = %+v", fact)
	}
	if ev.Excerpt != "us-gaap:Revenues (Revenues) | USD | 2022-01-01 to 2022-12-31 | 4100000000 | 10-K 0001000001-23-000002 filed 2023-02-13" {
		t.Errorf("FY2022 excerpt = %q", ev.Excerpt)
	}
	if doc.Form != "10-K XBRL" || doc.Format != corpus.FormatCompanyFacts || doc.FiscalYear != 2022 ||
		!strings.HasSuffix(doc.Source, edgartest.CompanyFactsPath(1000001)+"#0001000001-23-000002") {
		t.Errorf("FY2022 document: form %q format %q FY%d source %q", doc.Form, doc.Format, doc.FiscalYear, doc.Source)
	}
	// A year whose filing is ingested: the filing's own text wins.
	fact, _, doc = lookup(t, f, 2024)
	if fact.Value.String() != "5200000000" || doc.Format != corpus.FormatHTML || doc.Form != "10-K" {
		t.Errorf("FY2024: %s from a %s %s", fact.Value, doc.Format, doc.Form)
	}

	// Again: nothing new is stored.
	r, err = f.fetcher.Fetch(ctx, &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-K"}, Since: 2022, Latest: 1, Facts: true})
	if err != nil || r.Err() != nil {
		t.Fatal(err, r.Err())
	}
	if r.Added != 0 || r.FactsAdded != 0 {
		t.Errorf("second fetch: added %d, facts added %d", r.Added, r.FactsAdded)
	}
	// The FY2023 filing fetched later is stored beside its company facts
	// (they are not taken for a copy of it), and then wins.
	r, err = f.fetcher.Fetch(ctx, &edgar.FetchOpts{Tickers: []string{"ACME"}, Forms: []string{"10-K"}, Since: 2023})
	if err != nil || r.Err() != nil {
		t.Fatal(err, r.Err())
	}
	if r.Added != 1 || r.Stored != 1 {
		t.Errorf("FY2023 fetch: added %d stored %d duplicate %d", r.Added, r.Stored, r.Duplicates)
	}
	fact, _, doc = lookup(t, f, 2023)
	if fact.Value.String() != "4800000000" || doc.Format != corpus.FormatHTML {
		t.Errorf("FY2023 after its filing: %s from a %s %s", fact.Value, doc.Format, doc.Form)
	}
}

func TestFactsDocument(t *testing.T) {
	cf, err := edgar.ParseCompanyFacts([]byte(acmeFacts))
	if err != nil {
		t.Fatal(err)
	}
	fy2024 := edgar.Filing{CIK: 1000001, Accession: "0001000001-25-000004", Form: "10-K", FiscalYear: 2024,
		Filed: date("2025-02-10"), PeriodEnd: date("2024-12-31")}
	odd := []edgar.CompanyFact{
		{Concept: "us-gaap:Odd\nName", Label: "A | label\twith\x00 control", Unit: "USD", Value: dec("-12.50"),
			Start: date("2024-01-01"), End: date("2024-12-31"), Accession: fy2024.Accession},
		{Concept: "us-gaap:Pipe|Name", Unit: "USD", Value: dec("1"), End: date("2024-12-31"), Accession: fy2024.Accession},
		{Concept: "us-gaap:NoUnit", Unit: " ", Value: dec("1"), End: date("2024-12-31"), Accession: fy2024.Accession},
	}
	tests := []struct {
		name   string
		values []edgar.CompanyFact
		want   []string // the lines of the facts, after the heading
	}{
		{"instant, durations, one filing only", cf.Facts, []string{
			"dei:EntityCommonStockSharesOutstanding (Entity Common Stock, Shares Outstanding) | shares | at 2025-01-31 | 15115823 | 10-K 0001000001-25-000004 filed 2025-02-10",
			"us-gaap:Revenues (Revenues) | USD | 2023-01-01 to 2023-12-31 | 4800000000 | 10-K 0001000001-25-000004 filed 2025-02-10",
			"us-gaap:Revenues (Revenues) | USD | 2024-01-01 to 2024-12-31 | 5200000000 | 10-K 0001000001-25-000004 filed 2025-02-10",
		}},
		{"a value listed twice is one line", append(cf.ByAccession()[fy2024.Accession][2:], cf.ByAccession()[fy2024.Accession][2:]...), []string{
			"us-gaap:Revenues (Revenues) | USD | 2024-01-01 to 2024-12-31 | 5200000000 | 10-K 0001000001-25-000004 filed 2025-02-10",
		}},
		{"names are cleaned; a pipe in a name or no unit is skipped", odd, []string{
			"us-gaap:Odd Name (A / label with control) | USD | 2024-01-01 to 2024-12-31 | -12.5 | 10-K 0001000001-25-000004 filed 2025-02-10",
		}},
		{"no values of the filing", cf.ByAccession()["0001000001-24-000002"], nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, facts := edgar.FactsDocument(tt.values, fy2024, "ACME", "Acme Widgets Inc.", cf.EntityName, "https://data.sec.gov/x.json")
			if tt.want == nil {
				if doc != nil {
					t.Fatalf("document for no values:\n%s", doc.Text)
				}
				return
			}
			head, body, ok := strings.Cut(doc.Text, "\n\n")
			if !ok || head != "ACME WIDGETS INC (CIK 1000001, ACME): the XBRL values the SEC's company facts list for the 10-K filed 2025-02-10, accession 0001000001-25-000004, for the period ended 2024-12-31 (fiscal year 2024)." {
				t.Errorf("heading = %q", head)
			}
			if got := strings.Split(strings.TrimSuffix(body, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			checkFactsDocument(t, doc, facts)
			if doc.Form != "10-K XBRL" || doc.FiscalYear != 2024 || !doc.PeriodEnd.Equal(fy2024.PeriodEnd) || doc.Source != "https://data.sec.gov/x.json#0001000001-25-000004" {
				t.Errorf("document = %+v", doc)
			}
		})
	}
}

// checkFactsDocument checks what lookup_fact and the stores rely on: a
// canonical text, its id, and every fact's span holding its value on a
// line of its own.
func checkFactsDocument(t *testing.T, doc *corpus.Document, facts []corpus.Fact) {
	t.Helper()
	if corpus.Canonicalize(doc.Text) != doc.Text {
		t.Errorf("text is not canonical:\n%q", doc.Text)
	}
	if doc.ID != corpus.DocumentID(doc.Text) {
		t.Errorf("id %s is not the text's", doc.ID)
	}
	if strings.IndexByte(doc.Text, 0) >= 0 {
		t.Errorf("text holds a NUL")
	}
	for _, fc := range facts {
		if fc.DocumentID != doc.ID || fc.Kind != corpus.FactCompanyFacts || fc.Start < 0 || fc.End > len(doc.Text) || fc.End <= fc.Start {
			t.Fatalf("fact %+v does not fit document %s (%d bytes)", fc, doc.ID, len(doc.Text))
		}
		if got := doc.Text[fc.Start:fc.End]; got != fc.Value.String() {
			t.Errorf("span of %s holds %q, want %s", fc.Concept, got, fc.Value)
		}
		ls := strings.LastIndexByte(doc.Text[:fc.Start], '\n') + 1
		le := fc.End + strings.IndexByte(doc.Text[fc.End:], '\n')
		if line := doc.Text[ls:le]; !strings.HasPrefix(line, fc.Concept+" ") || strings.Count(line, " | ") != 4 {
			t.Errorf("line of %s is %q", fc.Concept, line)
		}
	}
}

func FuzzFactsDocument(f *testing.F) {
	f.Add([]byte(acmeFacts))
	f.Add([]byte(`{"cik":1,"facts":{"a":{"B\n|":{"label":"\u0000x","units":{"U SD":[{"end":"2024-12-31","val":-1e3,"accn":"A"}]}}}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cf, err := edgar.ParseCompanyFacts(raw)
		if err != nil {
			return
		}
		for accn, values := range cf.ByAccession() {
			fl := edgar.Filing{CIK: cf.CIK, Accession: accn, Form: "10-K", FiscalYear: 2024, PeriodEnd: date("2024-12-31")}
			doc, facts := edgar.FactsDocument(values, fl, "ACME", "Acme", cf.EntityName, "https://data.sec.gov/x.json")
			if doc == nil {
				continue
			}
			checkFactsDocument(t, doc, facts)
		}
	})
}

func date(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }
