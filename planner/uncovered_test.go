package planner

import (
	"strings"
	"testing"
)

// An item of a question's list is covered by a requirement only when the
// requirement names the item's own words: "subscriptions revenue" beside
// "licenses revenue" is a figure of its own, though the licenses
// requirement names "revenue".
func TestUncoveredItemOwnWords(t *testing.T) {
	cat := textFilingCatalog("Licenses revenue", "Total revenues", "Operating income")
	g := planOver(t, cat, "What was SHTX's FY22 licenses revenue and subscriptions revenue?")
	var licenses, subscriptions bool
	for _, r := range g.Requirements {
		need := strings.ToLower(r.Need)
		licenses = licenses || strings.Contains(need, "licenses revenue")
		subscriptions = subscriptions || strings.Contains(need, "subscriptions")
	}
	if !licenses || !subscriptions {
		t.Errorf("requirements %v: want licenses revenue and subscriptions revenue each asked", g.Requirements)
	}
}
