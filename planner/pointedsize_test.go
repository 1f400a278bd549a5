package planner

import (
	"slices"
	"strings"
	"testing"
)

// "How big was that fee hike?" asks the size of the thing pointed back to,
// by its own words: a requirement naming "fee" alone (the membership fees)
// does not answer it.
func TestSizeOfThingPointedBack(t *testing.T) {
	cat := textFilingCatalog("Membership fees", "Total revenue", "Operating income")
	for _, tt := range []struct {
		question string
		asked    bool
	}{
		{"SHTX's membership fee income rose 9% in fiscal 2022 because it raised the annual fee. How big was that fee hike?", true},
		{"SHTX's membership fees rose in fiscal 2022. How big were the membership fees?", false},
	} {
		g := planOver(t, cat, tt.question)
		asked := slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.Completion.Topic, "fee hike") })
		if asked != tt.asked {
			t.Errorf("%q: the fee hike asked %v, want %v\n%v", tt.question, asked, tt.asked, g.Requirements)
		}
	}
}
