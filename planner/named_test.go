package planner

import (
	"slices"
	"testing"
)

// An issuer named by its ticker and by words of its title ("DIS: how many
// Disney+ subscribers") is named, though neither alone would read as one;
// it is reported once.
func TestTickerBesideName(t *testing.T) {
	cat := smallCatalog()
	for _, q := range []string{
		"DIS: how many Disney+ subscribers at the end of fiscal 2024?",
		"How many Disney+ subscribers did DIS have?",
	} {
		rt := RouteQuestion(q, cat, nil)
		if len(rt.Issuers) != 0 || !slices.Equal(rt.NotCovered, []string{"DIS (Walt Disney Co)"}) {
			t.Errorf("%q: issuers %v, not covered %v; want DIS outside the corpus, once", q, rt.Issuers, rt.NotCovered)
		}
	}
}

// A name asked of several issuers is plural: "both posted net losses" asks
// for their net income.
func TestPluralFigureNames(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"net loss", "net losses"}, {"operating income", "operating incomes"}, {"free cash flow", "free cash flows"},
		{"capital expenditures", ""}, {"revenue", ""},
		{"gross margin (%)", ""}, {"cost of goods", ""}, {"net inventory", "net inventories"},
	} {
		if got := pluralPhrase(tt.name); got != tt.want {
			t.Errorf("pluralPhrase(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	got := FindFigures("AMZN and EBAY both posted net losses in 2022 — how big was each?")
	if !slices.ContainsFunc(got, func(f FigureAsk) bool { return f.Metric == "net_income" }) {
		t.Errorf("FindFigures = %+v; want net income", got)
	}
}

// One part by two names: its initials are one of them.
func TestAbbreviates(t *testing.T) {
	for _, tt := range []struct {
		long, short string
		want        bool
	}{
		{"Amazon Web Services", "AWS", true}, {"Productivity and Business Processes", "PBP", true},
		{"Amazon Web Services", "AW", false}, {"Services", "S", false}, {"Data Center Group", "dcg", true},
	} {
		if got := abbreviates(tt.long, tt.short); got != tt.want {
			t.Errorf("abbreviates(%q, %q) = %v, want %v", tt.long, tt.short, got, tt.want)
		}
	}
}
