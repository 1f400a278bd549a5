package validator_test

import (
	"fmt"

	"github.com/ledgerline/research/contract"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/validator"
)

// Validate drops a citation whose excerpt the evidence does not hold, and
// with it the claim that relied on it; the surviving citation is renumbered.
func ExampleValidate() {
	text := "Gross margin percentage was 46.2% in 2024, compared to 44.1% in 2023."
	e := ledger.Evidence{Kind: ledger.KindPassage, DocumentID: "doc", Start: 100, End: 100 + len(text), Excerpt: text, Ticker: "AAPL", Period: "FY2024"}
	e.ID = ledger.EvidenceID(e.DocumentID, e.Start, e.End)
	req := contract.Requirement{ID: "aapl-margin", Issuer: "AAPL", Kind: contract.KindExplanation, Need: "Apple's gross margin", Required: true,
		Completion: contract.Condition{Kind: contract.CondPassage, Issuer: "AAPL", Topic: "gross margin"}}

	out, report := validator.Validate(&validator.Input{
		Answer: &validator.Answer{
			Answer: "Apple's gross margin rose to 48% [1]. Apple reports “Gross margin percentage was 46.2% in 2024” [2].",
			Citations: []validator.Citation{
				{Index: 1, EvidenceID: e.ID, Excerpt: "Gross margin rose to 48%"},
				{Index: 2, EvidenceID: e.ID, Excerpt: "Gross margin percentage was 46.2% in 2024"},
			},
		},
		Ledger:       &ledger.RunLedger{Evidence: []ledger.Evidence{e}},
		Requirements: []contract.Requirement{req},
		Met:          map[string]bool{req.ID: true},
	})
	fmt.Println(out.Answer)
	fmt.Println(out.Status, len(out.Citations))
	for _, p := range report.Problems {
		fmt.Println(p.Kind)
	}
	// Output:
	// Apple reports “Gross margin percentage was 46.2% in 2024” [1].
	// supported 1
	// not_verbatim
	// marker_without_citation
	// claim_without_citation
}
