package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// TestPlanDifference: a question asking how far apart two issuers'
// figures are gets the difference as a required calculation of the two
// facts, the one named before "than" first; a question that asks no
// difference gets none.
func TestPlanDifference(t *testing.T) {
	cat := smallCatalog()
	revenue := []corpus.Fact{{Concept: "us-gaap:Revenues", Label: "Revenues", Value: decimal.NewFromInt(9), Unit: "USD", Start: 1, End: 2}}
	cat.SetFigures("g24", FigureEntries(revenue))
	cat.SetFigures("m24", FigureEntries(revenue))
	_, g := planFor(t, cat, "How much more revenue did Alphabet make than Meta in 2024?", 0)
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.HasPrefix(r.ID, "difference-") })
	if i < 0 {
		t.Fatalf("no difference requirement in %v", g.Requirements)
	}
	r := g.Requirements[i]
	if !r.Required || r.Kind != KindCalculation || len(r.Completion.Of) != 2 ||
		!strings.HasPrefix(r.Completion.Of[0], "GOOGL-") || !strings.HasPrefix(r.Completion.Of[1], "META-") {
		t.Fatalf("difference requirement %+v; want a required calculation of Alphabet's figure less Meta's", r)
	}
	n := servers(g, r.ID)
	if len(n) != 1 {
		t.Fatalf("difference served by %v; want one calculation", n)
	}
	inputs, err := FactInputs(g, n[0])
	if err != nil || len(inputs) != 2 {
		t.Fatalf("calculation inputs %v, %v", inputs, err)
	}
	if !strings.Contains(string(n[0].Args), `"alphabet - meta"`) {
		t.Errorf("calculation %s; want alphabet - meta", n[0].Args)
	}
	// The line stating it says which year it sets apart.
	if !strings.HasSuffix(r.Completion.Topic, "difference, FY2024") {
		t.Errorf("difference topic %q; want it to name FY2024", r.Completion.Topic)
	}

	_, g = planFor(t, cat, "Compare Alphabet's and Meta's revenue in 2024.", 0)
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.HasPrefix(r.ID, "difference-") }) {
		t.Error("a comparison that asks no difference got one")
	}

	// Figures no calculation can name (looked up by label where the
	// catalog knows no filing's figures): the difference is still a
	// required requirement, left for the run to report as a gap.
	_, g = planFor(t, smallCatalog(), "How much more revenue did Alphabet make than Meta in 2024?", 0)
	i = slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.HasPrefix(r.ID, "difference-") })
	if i < 0 || !g.Requirements[i].Required {
		t.Fatalf("no required difference requirement in %v", g.Requirements)
	}
	if slices.ContainsFunc(servers(g, g.Requirements[i].ID), func(n Node) bool { return n.Tool == tools.Calculate }) {
		t.Error("a calculation was planned over figures it cannot name")
	}
}

func TestDifferenceOrder(t *testing.T) {
	cat := smallCatalog()
	tests := []struct{ q, first, second string }{
		{"Costco vs Amazon headcount: how many more people did Amazon employ than Costco?", "AMZN", "COST"},
		{"What is the difference between Alphabet's and Meta's capex in 2024?", "GOOGL", "META"},
		{"By how much did Meta's revenue trail Alphabet's in 2024?", "META", "GOOGL"},
	}
	for _, tt := range tests {
		rt := RouteQuestion(tt.q, cat, nil)
		b := &builder{question: tt.q, rt: rt, cat: cat}
		loc := asksDifference.FindStringIndex(tt.q)
		if loc == nil {
			t.Fatalf("%q: no difference asked", tt.q)
		}
		a, o := b.differenceOrder(tt.q[loc[0]:])
		if a != tt.first || o != tt.second {
			t.Errorf("%q: %s minus %s; want %s minus %s", tt.q, a, o, tt.first, tt.second)
		}
	}
}

// One issuer's two figures set against each other ("SBC vs D&A — which was
// bigger and by how much?"): how far apart they are is asked, the first
// less the second.
func TestFigureDifferenceOfOneIssuer(t *testing.T) {
	cat := textFilingCatalog("Net cash provided by operating activities", "Stock-based compensation", "Depreciation and amortization", "Total revenues")
	g := planOver(t, cat, "SHTX FY22 OCF add-backs: SBC vs D&A — which was bigger and by how much?")
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-difference-") })
	if i < 0 {
		t.Fatalf("requirements %v: want the difference asked", reqIDs(g))
	}
	if r := g.Requirements[i]; !r.Required || !strings.HasPrefix(strings.ToLower(r.Completion.Topic), "stock-based compensation less ") {
		t.Errorf("difference %+v: want stock-based compensation less the other, required", r)
	}
	if rt := RouteQuestion("SHTX FY22: SBC and D&A?", cat, nil); len(rt.Issuers) == 1 {
		if g := planOver(t, cat, "SHTX FY22: SBC and D&A?"); slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-difference-") }) {
			t.Errorf("requirements %v: no difference asked", reqIDs(g))
		}
	}
}
