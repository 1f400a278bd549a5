package planner

import (
	"slices"
	"strings"
	"testing"
)

// "Did it burn cash?" asks how cash moved, not the cash held; "free cash
// flow" is a figure of its own, not cash narrowed by "free"; and a figure
// computed within a ratio asked (free cash flow within its margin) is read
// as the filing prints it too.
func TestCashBurnAndFreeCashFlow(t *testing.T) {
	cat := textFilingCatalog("Total revenues", "Net cash provided by operating activities", "Purchases of property and equipment",
		"Cash and cash equivalents", "Free cash flow")
	g := planOver(t, cat, "did shtx actually burn cash in 2022? what was free cash flow, and what were operating cash flow and capex behind it?")
	for _, r := range g.Requirements {
		if strings.HasSuffix(r.ID, "-figure-cash") || strings.Contains(r.ID, "free-cash-") && !strings.Contains(r.ID, "free-cash-flow") || strings.Contains(r.ID, "burn") {
			t.Errorf("requirement %s (%s): no cash balance, burn or free cash part is asked", r.ID, r.Need)
		}
	}
	g = planOver(t, cat, "SHTX 2022 FCF margin (FCF / revenue)?")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-reported-free-cash-flow") }) {
		t.Errorf("requirements %v: want the free cash flow the filing prints read beside the margin", reqIDs(g))
	}
	// "FCF" written before "revenue" in the formula names free cash flow,
	// not a part of revenue.
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(strings.ToLower(r.Need), "fcf revenue") }) {
		t.Errorf("requirements %v: FCF read as a part of revenue", reqIDs(g))
	}
}
