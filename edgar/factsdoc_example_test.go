package edgar_test

import (
	"fmt"
	"time"

	"github.com/ledgerline/research/edgar"
)

// A filing's company facts become a document whose facts point at their
// values: lookup_fact quotes the line of a fact, which names the filing
// that reported it.
func ExampleFactsDocument() {
	cf, _ := edgar.ParseCompanyFacts([]byte(`{"cik":1000001,"entityName":"ACME WIDGETS INC","facts":{"us-gaap":{"Revenues":{"label":"Revenues","units":{"USD":[
	 {"start":"2022-01-01","end":"2022-12-31","val":4100000000,"accn":"0001000001-23-000002","fy":2022,"fp":"FY","form":"10-K","filed":"2023-02-13"}]}}}}}`))
	filing := edgar.Filing{CIK: 1000001, Accession: "0001000001-23-000002", Form: "10-K", FiscalYear: 2022,
		Filed: time.Date(2023, 2, 13, 0, 0, 0, 0, time.UTC), PeriodEnd: time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC)}
	doc, facts := edgar.FactsDocument(cf.Facts, filing, "ACME", "Acme Widgets Inc.", cf.EntityName,
		"https://data.sec.gov/api/xbrl/companyfacts/CIK0001000001.json")
	fmt.Print(doc.Text)
	fmt.Println(doc.Form, doc.FiscalYear, doc.Source)
	f := facts[0]
	fmt.Println(f.Kind, f.Concept, f.Value, f.Unit, doc.Text[f.Start:f.End])
	// Output:
	// ACME WIDGETS INC (CIK 1000001, ACME): the XBRL values the SEC's company facts list for the 10-K filed 2023-02-13, accession 0001000001-23-000002, for the period ended 2022-12-31 (fiscal year 2022).
	//
	// us-gaap:Revenues (Revenues) | USD | 2022-01-01 to 2022-12-31 | 4100000000 | 10-K 0001000001-23-000002 filed 2023-02-13
	// 10-K XBRL 2022 https://data.sec.gov/api/xbrl/companyfacts/CIK0001000001.json#0001000001-23-000002
	// companyfacts us-gaap:Revenues 4100000000 USD 4100000000
}
