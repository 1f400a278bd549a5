package planner

import (
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
)

// Catalogs of the same documents share one names index; another list of
// documents gets its own, which knows its issuers.
func TestCorpusNamesMemo(t *testing.T) {
	end := time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)
	one := []corpus.Document{{ID: "m1", Ticker: "MEMO", Company: "Memo Holdings Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: end}}
	two := append(one[:1:1], corpus.Document{ID: "m2", Ticker: "OTHR", Company: "Other Widgets Corp", Form: "10-K", FiscalYear: 2024, PeriodEnd: end})
	a, b := NewCatalog(one), NewCatalog(one)
	if a.names != b.names {
		t.Error("two catalogs of one document list built two names indexes")
	}
	c := NewCatalog(two)
	if c.names == a.names {
		t.Fatal("a catalog of another document list shares the first list's names index")
	}
	if got := RouteQuestion("What was Other Widgets' revenue in 2024?", c, nil).Issuers; len(got) != 1 || got[0] != "OTHR" {
		t.Errorf("issuers %v, want OTHR", got)
	}
}
