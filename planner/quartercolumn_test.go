package planner

import (
	"encoding/json"
	"testing"

	"github.com/ledgerline/research/tools"
)

// A figure asked for one quarter of a 10-Q is looked up in the quarter's
// own column, and a lookup planned again for it asks the same column: the
// nine months a cash-flow statement prints alone do not answer it.
func TestQuarterColumnAsked(t *testing.T) {
	cat := sampleCatalog(t)
	q := "AAPL June qtr FY25 (ended 6/28/25): how much did Apple spend on buybacks in the quarter?"
	g, err := (&RulesPlanner{}).Plan(t.Context(), q, RouteQuestion(q, cat, nil), cat)
	if err != nil {
		t.Fatal(err)
	}
	var asked *Requirement
	for _, n := range g.Nodes {
		var a tools.LookupFactArgs
		if n.Tool != tools.LookupFact || json.Unmarshal(n.Args, &a) != nil {
			continue
		}
		if !a.Quarter || a.YearToDate {
			t.Errorf("lookup %s: want the quarter's column asked", n.Args)
		}
		for i := range g.Requirements {
			if len(n.Serves) > 0 && g.Requirements[i].ID == n.Serves[0] {
				asked = &g.Requirements[i]
			}
		}
	}
	if asked == nil {
		t.Fatalf("no lookup planned: %v", g.Nodes)
	}
	// Planned again (the first lookup found nothing), by the metric's
	// label: the same column.
	first := tools.LookupFactArgs{Ticker: "AAPL", Concept: "us-gaap:PaymentsForRepurchaseOfCommonStock", Period: "FY2025", Quarter: true}
	raw, _ := json.Marshal(first)
	r := Requirement{ID: "r1", Issuer: "AAPL", Period: "FY2025", Kind: KindFigure,
		Completion: Condition{Kind: CondFact, Issuer: "AAPL", Period: "FY2025", Concepts: []string{first.Concept}}}
	plan := &Graph{Requirements: []Requirement{r}, Nodes: []Node{{ID: "n1", Tool: tools.LookupFact, Args: raw, Serves: []string{"r1"}}}}
	next, ok := nextLookup(plan, r, map[string]bool{lookupKey(first): true})
	var a tools.LookupFactArgs
	if !ok || json.Unmarshal(next.Args, &a) != nil || !a.Quarter || a.Label == "" {
		t.Errorf("lookup planned again %s (%v): want the metric's label, in the quarter's column", next.Args, ok)
	}
}

// A date a 10-Q of the issuer ends on ("at July 1, 2023", "6/28/25") asks
// that report's period; a date no 10-Q ends on, or a year alone, does not.
func TestDateOfAQuarterlyReport(t *testing.T) {
	cat := sampleCatalog(t)
	for q, want := range map[string]bool{
		"Apple commercial paper outstanding at July 1, 2023?":                 true,
		"Commercial paper at Apple (July 1, 2023) and Oracle (May 31, 2023)?": true,
		"AAPL cash at 6/28/25?": true,
		"Apple commercial paper outstanding at September 30, 2023?": false,
		"Apple commercial paper outstanding in fiscal 2023?":        false,
	} {
		if got := RouteQuestion(q, cat, nil).Quarterly; got != want {
			t.Errorf("%q: quarterly %v, want %v", q, got, want)
		}
	}
}
