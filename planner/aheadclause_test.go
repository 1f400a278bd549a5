package planner

import (
	"slices"
	"strings"
	"testing"
)

// A move asked of a year after the latest report ("does mgmt see it going
// up in 2025") is an expectation, not a change between the two years the
// question sets side by side: no change of the reported figures is
// computed, and none is left as a gap.
func TestMoveAheadIsNoReportedChange(t *testing.T) {
	cat := sampleCatalog(t)
	tests := []struct {
		question string
		change   bool
	}{
		{"AMZN FY24 capex vs 2023, and does mgmt see it going up in 2025?", false},
		{"AMZN capex in 2023 and 2024: how much did it go up?", true},
	}
	for _, tt := range tests {
		g := planOver(t, cat, tt.question)
		change := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return r.Kind == KindCalculation && strings.Contains(r.Need, "the change in")
		})
		if change != tt.change {
			t.Errorf("%q: change planned %v, want %v\n%v", tt.question, change, tt.change, g.Requirements)
		}
	}
}

// A part's share of a figure that no row prints ("what share of net
// revenue came from its three largest customers") is stated by a rate
// ("accounted for 39% of our net revenue"); the part's amount is stated by
// a level.
func TestPartShareStatedByRate(t *testing.T) {
	cat := textFilingCatalog("Net revenue", "Operating income")
	tests := []struct {
		question string
		level    bool
	}{
		{"What share of SHTX's FY22 net revenue came from its three largest customers?", false},
		{"How much of SHTX's FY22 net revenue came from its three largest customers?", true},
	}
	for _, tt := range tests {
		g := planOver(t, cat, tt.question)
		var found, level bool
		for _, r := range g.Requirements {
			if r.Completion.Kind != CondPassage || !strings.Contains(r.Completion.Topic, "largest customers") {
				continue
			}
			found = true
			for _, grp := range r.Completion.AllOf {
				level = level || slices.Contains(grp, LevelTerm)
			}
		}
		if !found || level != tt.level {
			t.Errorf("%q: part's figure planned %v, stated by a level %v; want level %v\n%v", tt.question, found, level, tt.level, g.Requirements)
		}
	}
}
