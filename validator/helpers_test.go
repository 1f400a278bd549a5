package validator

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/contract"
	"github.com/ledgerline/research/ledger"
)

const (
	aaplPeriod = "2023-10-01/2024-09-28"
	salesText  = "Total net sales increased 2% or $7.8 billion during 2024 compared to 2023. " +
		"Gross margin percentage was 46.2% in 2024, compared to 44.1% in 2023, driven by cost savings and a different mix of products."
	riskText = "The Company’s future gross margins can be impacted by a variety of factors, including competition  and pricing pressures — as discussed below."
)

// newEvidence builds an evidence item with the id a store would give it.
func newEvidence(doc string, start int, kind ledger.EvidenceKind, ticker, period, text string) ledger.Evidence {
	e := ledger.Evidence{Kind: kind, DocumentID: doc, Start: start, End: start + len(text), Excerpt: text,
		Ticker: ticker, Form: "10-K", Period: period, Section: "Item 7"}
	e.ID = ledger.EvidenceID(doc, e.Start, e.End)
	return e
}

// newFact builds a fact with the id a store would give it.
func newFact(e ledger.Evidence, concept, value, period string) ledger.Fact {
	f := ledger.Fact{EvidenceID: e.ID, Concept: concept, Value: decimal.RequireFromString(value), Unit: "USD", Period: period}
	f.ID = ledger.FactID(f.EvidenceID, f.Concept, f.Period, f.Unit)
	return f
}

// fixture is a small run: one Apple filing with a passage, a risk passage
// and two tagged facts, and the requirements a margin question plans.
type fixture struct {
	l                    *ledger.RunLedger
	sales, risk, rev, gp ledger.Evidence
	revFact, gpFact      ledger.Fact
	reqs                 []contract.Requirement
	margin               contract.Calculation
}

func setup(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{}
	f.sales = newEvidence("docA", 1000, ledger.KindPassage, "AAPL", "FY2024", salesText)
	f.risk = newEvidence("docA", 5000, ledger.KindPassage, "AAPL", "FY2024", riskText)
	f.rev = newEvidence("docA", 9000, ledger.KindFact, "AAPL", "FY2024", "391,035")
	f.gp = newEvidence("docA", 9100, ledger.KindFact, "AAPL", "FY2024", "180,683")
	f.revFact = newFact(f.rev, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "391035000000", aaplPeriod)
	f.gpFact = newFact(f.gp, "us-gaap:GrossProfit", "180683000000", aaplPeriod)
	f.l = &ledger.RunLedger{
		Run:      ledger.Run{ID: "run-1", Question: "AAPL gross margin FY2024"},
		Evidence: []ledger.Evidence{f.sales, f.risk, f.rev, f.gp},
		Facts:    []ledger.Fact{f.revFact, f.gpFact},
	}
	f.reqs = []contract.Requirement{
		{ID: "aapl-revenue", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: contract.KindFigure, Need: "AAPL revenue FY2024", Required: true,
			Completion: contract.Condition{Kind: contract.CondFact, Issuer: "AAPL", Period: "FY2024", Concepts: []string{"us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "us-gaap:Revenues"}}},
		{ID: "aapl-gross-profit", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: contract.KindFigure, Need: "AAPL gross profit FY2024", Required: true,
			Completion: contract.Condition{Kind: contract.CondFact, Issuer: "AAPL", Period: "FY2024", Concepts: []string{"us-gaap:GrossProfit"}}},
		{ID: "aapl-drivers", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: contract.KindExplanation, Need: "AAPL management's explanation of gross margin", Required: true,
			Completion: contract.Condition{Kind: contract.CondPassage, Issuer: "AAPL", Period: "FY2024", Topic: "gross margin drivers", AllOf: [][]string{{"gross margin"}, {"driven", "due to"}}}},
		{ID: "aapl-outlook", Issuer: "AAPL", Period: "FY2024", Aspect: "outlook", Kind: contract.KindOutlook, Need: "AAPL outlook on gross margin", Required: false,
			Completion: contract.Condition{Kind: contract.CondPassage, Issuer: "AAPL", Period: "FY2024", Topic: "gross margin outlook"}},
	}
	f.margin = contract.Calculation{
		Expression: "gross_profit / revenue",
		Inputs:     map[string]string{"gross_profit": f.gpFact.ID, "revenue": f.revFact.ID},
		Values:     map[string]string{"gross_profit": "180683000000", "revenue": "391035000000"},
		Result:     decimal.RequireFromString("0.4620634982"),
	}
	return f
}

func allMet(reqs []contract.Requirement) map[string]bool {
	m := map[string]bool{}
	for _, r := range reqs {
		m[r.ID] = true
	}
	return m
}

func kinds(r *Report) []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, p.Kind)
	}
	return out
}
