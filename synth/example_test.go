package synth_test

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/synth"
)

// The rules synthesizer states a tagged figure with its period and cites
// the line of the filing that shows it; what it did not find, it says.
func ExampleRules_Synthesize() {
	line := "Total net sales 391,035 383,285 394,328"
	e := ledger.Evidence{Kind: ledger.KindFact, DocumentID: "doc", Start: 500, End: 500 + len(line), Excerpt: line, Ticker: "AAPL", Form: "10-K", Period: "FY2024"}
	e.ID = ledger.EvidenceID(e.DocumentID, e.Start, e.End)
	f := ledger.Fact{EvidenceID: e.ID, Concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
		Value: decimal.RequireFromString("391035000000"), Unit: "USD", Period: "2023-10-01/2024-09-28"}
	f.ID = ledger.FactID(f.EvidenceID, f.Concept, f.Period, f.Unit)

	revenue := planner.Requirement{ID: "AAPL-FY2024-revenue", Issuer: "AAPL", Period: "FY2024", Kind: planner.KindFigure, Required: true,
		Need:       "Apple's revenue for FY2024",
		Completion: planner.Condition{Kind: planner.CondFact, Issuer: "AAPL", Period: "FY2024", Concepts: []string{f.Concept}}}
	outlook := planner.Requirement{ID: "AAPL-FY2024-outlook", Issuer: "AAPL", Period: "FY2024", Kind: planner.KindOutlook, Required: true,
		Need:       "what Apple's management expects for revenue",
		Completion: planner.Condition{Kind: planner.CondPassage, Issuer: "AAPL", Period: "FY2024", Topic: "revenue outlook"}}

	ans, err := synth.Rules{}.Synthesize(context.Background(), &synth.Input{
		Route:  planner.Route{Issuers: []string{"AAPL"}, NotCovered: []string{"Tesla"}},
		Graph:  &planner.Graph{Tickers: []string{"AAPL"}, Requirements: []planner.Requirement{revenue, outlook}},
		Ledger: &ledger.RunLedger{Evidence: []ledger.Evidence{e}, Facts: []ledger.Fact{f}},
		Met:    map[string]bool{revenue.ID: true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ans.Answer)
	fmt.Printf("%s, %d citation: %q\n", ans.Status, len(ans.Citations), ans.Citations[0].Excerpt)
	// Output:
	// This answer covers AAPL FY2024 (fiscal year ended 2024-09-28).
	// Tesla is not in the corpus; nothing is said about it.
	//
	// AAPL:
	// - Revenue, FY2024: $391.04 billion (391,035 million) for the fiscal year ended 2024-09-28 [1].
	// - Not found: what Apple's management expects for revenue (no evidence meeting: a passage from the AAPL FY2024 filing discussing revenue outlook).
	// partial, 1 citation: "Total net sales 391,035 383,285 394,328"
}
