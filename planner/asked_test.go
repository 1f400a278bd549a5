package planner

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// Years a question binds to an issuer are that issuer's; years that all
// issuers share, or that only one issuer is given, are everyone's.
func TestBindYears(t *testing.T) {
	cat := smallCatalog()
	tests := []struct {
		question string
		want     map[string][]int
	}{
		{"Compare NVIDIA's fiscal 2023 revenue with Apple's fiscal 2024 net sales.", map[string][]int{"NVDA": {2023}, "AAPL": {2024}}},
		{"Apple's 2022 and 2024 revenue against Alphabet's 2024 revenue", map[string][]int{"AAPL": {2022, 2024}, "GOOGL": {2024}}},
		{"Compare revenue at Apple and Alphabet in 2022 and 2024", nil},    // every year after both issuers
		{"Compare Apple's 2024 revenue with Alphabet's 2024 revenue", nil}, // the same years
		{"What was Apple's revenue in fiscal 2024?", nil},                  // one issuer
		{"In 2024, how did Apple's and Alphabet's revenue compare?", nil},  // the year before any issuer
	}
	for _, tc := range tests {
		rt := RouteQuestion(tc.question, cat, nil)
		if !maps.EqualFunc(rt.IssuerYears, tc.want, slices.Equal) {
			t.Errorf("%q: issuer years %v; want %v", tc.question, rt.IssuerYears, tc.want)
		}
	}
	_, g := planFor(t, cat, "Compare NVIDIA's fiscal 2023 revenue with Apple's fiscal 2024 net sales.", 0)
	for _, r := range g.Requirements {
		if r.Issuer == "NVDA" && r.Period != "FY2023" || r.Issuer == "AAPL" && r.Period != "FY2024" {
			t.Errorf("requirement %s is for %s %s; each issuer has its own year", r.ID, r.Issuer, r.Period)
		}
	}
}

// Expectations for a year after the latest annual report are that
// report's forward-looking statements, and the plan says so.
func TestFutureYearOutlook(t *testing.T) {
	_, g := planFor(t, smallCatalog(), "How much does Meta expect to spend on capital expenditures in 2026?", 0)
	if !strings.Contains(strings.Join(g.Notes, " "), "Fiscal 2026 is after META's latest annual report (fiscal 2024)") {
		t.Errorf("notes %q", g.Notes)
	}
	outlook := false
	for _, r := range g.Requirements {
		if r.Period != "FY2024" {
			t.Errorf("requirement %s is for %s; want the latest report's FY2024", r.ID, r.Period)
		}
		outlook = outlook || r.Kind == KindOutlook && r.Required
	}
	if !outlook {
		t.Errorf("no required outlook requirement: %+v", g.Requirements)
	}
}

// A causal question asks for the link; what the filing says drove the
// effect is planned beside it as context, not required.
func TestCausalContext(t *testing.T) {
	_, g := planFor(t, smallCatalog(), "Did Meta's advertising tier cause its operating margin to rise in 2024?", 0)
	link, ok := reqByID(g, "META-FY2024-causal")
	if !ok || !link.Required || !IsCausal(link) {
		t.Fatalf("no required causal link: %+v", g.Requirements)
	}
	ctx, ok := reqByID(g, "META-FY2024-causal-context")
	if !ok || ctx.Required || IsCausal(ctx) || len(servers(g, ctx.ID)) == 0 {
		t.Errorf("context requirement %+v (found %v): want it optional, not a link, and served", ctx, ok)
	}
	for _, r := range g.Requirements {
		if r.Required && r.ID != link.ID {
			t.Errorf("requirement %s is required; only the link is", r.ID)
		}
	}
}
