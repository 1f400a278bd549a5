package planner

import (
	"slices"
	"strings"
	"testing"
)

// A figure the question defines by arithmetic on two figures the filing
// prints is computed from them, each operand read as the filing names it
// (a catalogue figure, or a row whose label holds the operand's words),
// and named by the words before the definition; an operand the filing
// prints no row for plans nothing.
func TestPlanFormula(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("g24", []FigureEntry{
		{Key: "us-gaap:CashCashEquivalentsAndShortTermInvestments", Concept: "us-gaap:CashCashEquivalentsAndShortTermInvestments", Label: "Total cash, cash equivalents, and marketable securities", Money: true},
		{Key: "us-gaap:LongTermDebtNoncurrent", Concept: "us-gaap:LongTermDebtNoncurrent", Label: "Long-term debt", Money: true},
	})
	_, g := planFor(t, cat, "Alphabet net cash at end of 2024 - cash, equivalents & marketable securities minus long-term debt?", 0)
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-formula-") })
	if i < 0 {
		t.Fatalf("requirements %v: no formula", reqIDs(g))
	}
	r := g.Requirements[i]
	if r.Completion.Topic != "net cash" || len(r.Completion.Of) != 2 {
		t.Errorf("formula requirement %+v; want net cash of two figures", r)
	}
	n := servers(g, r.ID)
	if len(n) != 1 || !strings.Contains(string(n[0].Args), `"expression":"cash_equivalents_marketable_securities - long_term_debt"`) ||
		!strings.Contains(string(n[0].Args), "us-gaap:CashCashEquivalentsAndShortTermInvestments") || !strings.Contains(string(n[0].Args), "us-gaap:LongTermDebtNoncurrent") {
		t.Errorf("served by %v; want the row less the long-term debt", n)
	}
	_, g = planFor(t, cat, "Alphabet net cash at end of 2024 - restricted cash minus long-term debt?", 0)
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-formula-") }) {
		t.Errorf("requirements %v: a formula over a row the filing does not print", reqIDs(g))
	}
}

// Two figures added and set as a share of a third ("R&D + MG&A as a % of
// revenue") are computed as their sum over it, each read as the filing
// prints it (initials joined by "&" as the row of their words); the share
// of one summand, or of a figure named before, is not asked beside it.
func TestPlanSumShare(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("c22", []FigureEntry{
		{Key: "table:Research and development", Label: "Research and development", Table: true, Money: true},
		{Key: "table:Marketing, general and administrative", Label: "Marketing, general and administrative", Table: true, Money: true},
		{Key: "table:Total revenue", Label: "Total revenue", Table: true, Money: true},
	})
	for _, q := range []string{
		"need COST's FY22 opex split: R&D and MG&A in $, and R&D + MG&A as a % of revenue.",
		"Costco fiscal 2022: research and development plus MG&A combined as a percentage of total revenue?",
	} {
		_, g := planFor(t, cat, q, 0)
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-formula-") })
		if i < 0 {
			t.Errorf("%q: requirements %v: no formula", q, reqIDs(g))
			continue
		}
		n := servers(g, g.Requirements[i].ID)
		if len(n) != 1 || !strings.Contains(string(n[0].Args), ` + `) || !strings.Contains(string(n[0].Args), `) / `) ||
			!strings.Contains(string(n[0].Args), "table:Marketing, general and administrative") || !strings.Contains(string(n[0].Args), "table:Total revenue") {
			t.Errorf("%q: served by %v; want the two rows added over revenue", q, n)
		}
		for _, r := range g.Requirements {
			if strings.Contains(r.ID, "intensity") || strings.Contains(r.ID, "to_revenue") {
				t.Errorf("%q: requirement %s: a share of one summand is planned beside the sum's", q, r.ID)
			}
		}
	}
	_, g := planFor(t, cat, "Costco fiscal 2022: R&D as a % of revenue, and MG&A?", 0)
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-formula-") }) {
		t.Errorf("requirements %v: a formula where nothing is added", reqIDs(g))
	}
}

// Two figures the catalogue names set one over the other by "over" ask
// their ratio; "over" before a period or a year asks none.
func TestFigureOverFigure(t *testing.T) {
	for q, want := range map[string][2]string{
		"What was Apple's fiscal 2024 operating income over revenue?": {"operating income", "revenue"},
		"Apple's R&D over revenue in fiscal 2024 vs fiscal 2023?":     {"r&d", "revenue"},
		"How did Apple's revenue grow over 2023?":                     {},
		"Did Meta's capex rise over the year?":                        {},
	} {
		num, den, _ := figureOverFigure(q)
		if [2]string{num, den} != want {
			t.Errorf("%q: %q over %q; want %q", q, num, den, want)
		}
	}
}
