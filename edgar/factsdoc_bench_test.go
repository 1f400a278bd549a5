package edgar_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/edgar"
)

// BenchmarkFactsDocuments renders the company facts of a large issuer:
// 100 filings reporting 500 values each (50,000 values, about the size
// of a mega-cap's company facts), one document per filing.
//
//	go test -run XXX -bench FactsDocuments -benchmem ./edgar/
func BenchmarkFactsDocuments(b *testing.B) {
	cf := &edgar.CompanyFacts{CIK: 1000001, EntityName: "ACME WIDGETS INC"}
	var filings []edgar.Filing
	for i := range 100 {
		fl := edgar.Filing{CIK: 1000001, Accession: fmt.Sprintf("0001000001-%02d-%06d", i%25, i), Form: "10-Q", FiscalYear: 2000 + i/4,
			Filed: time.Date(2000+i/4, 5, 1, 0, 0, 0, 0, time.UTC), PeriodEnd: time.Date(2000+i/4, 3, 31, 0, 0, 0, 0, time.UTC)}
		filings = append(filings, fl)
		for j := range 500 {
			cf.Facts = append(cf.Facts, edgar.CompanyFact{Concept: fmt.Sprintf("us-gaap:Concept%03d", j), Label: "A concept's label", Unit: "USD",
				Value: decimal.New(int64(i*j+1), 3), Start: fl.PeriodEnd.AddDate(0, -3, 1), End: fl.PeriodEnd, Accession: fl.Accession})
		}
	}
	b.ResetTimer()
	for b.Loop() {
		by := cf.ByAccession()
		for _, fl := range filings {
			if doc, _ := edgar.FactsDocument(by[fl.Accession], fl, "ACME", "Acme", cf.EntityName, "https://data.sec.gov/x.json"); doc == nil {
				b.Fatal("no document")
			}
		}
	}
}
