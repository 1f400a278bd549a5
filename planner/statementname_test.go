package planner

import (
	"slices"
	"strings"
	"testing"
)

// A statement's name, however written ("cash-flow-statement"), says where
// a figure is printed: it asks neither the cash-flow topic nor a part of
// the figure it stands before.
func TestStatementNameBeforeFigure(t *testing.T) {
	if got := ReadShorthand("Capex = cash-flow-statement 'purchases', per the income-statement", nil); got != "Capex = cash flow statement 'purchases', per the income statement" {
		t.Errorf("ReadShorthand = %q", got)
	}
	if got := ReadShorthand("What did the stake do to Amazon's 2022 P&L, and to its B/S?", nil); got != "What did the stake do to Amazon's 2022 income statement, and to its balance sheet?" {
		t.Errorf("ReadShorthand = %q", got)
	}
	cat := sampleCatalog(t)
	q := "Capex = cash-flow-statement 'purchases of property and equipment' (gross). Rank Amazon, Alphabet and Meta on that line for calendar 2024."
	rt := RouteQuestion(q, cat, nil)
	if slices.Contains(rt.Aspects, "cash_flow") {
		t.Errorf("aspects %v: the statement's name asks no cash-flow topic", rt.Aspects)
	}
	g := planOver(t, cat, q)
	for _, r := range g.Requirements {
		if strings.Contains(strings.ToLower(r.Need), "statement") {
			t.Errorf("requirement %s: %s; the statement's name is no part of the figure", r.ID, r.Need)
		}
	}
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "figure-capex") }) {
		t.Errorf("requirements %v: want each issuer's capital expenditures", reqIDs(g))
	}
}
