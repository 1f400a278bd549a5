package executor

import (
	"slices"
	"testing"

	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/validator"
)

// TestSortGaps: the answer lists what is missing in the plan's order,
// whatever order the nodes finished in; a requirement's gaps by their
// reason, and gaps of no requirement of the plan last.
func TestSortGaps(t *testing.T) {
	t.Parallel()
	g := &planner.Graph{Requirements: []planner.Requirement{{ID: "b"}, {ID: "a"}, {ID: "c"}}}
	want := []validator.Gap{
		{RequirementID: "b", Why: "no fact"},
		{RequirementID: "a", Why: "calculate failed"},
		{RequirementID: "a", Why: "no passage"},
		{RequirementID: "c"},
		{RequirementID: "zz", Why: "outside the plan"},
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 4, 0, 3, 1}} {
		var gaps []validator.Gap
		for _, i := range order {
			gaps = append(gaps, want[i])
		}
		sortGaps(gaps, g)
		if !slices.Equal(gaps, want) {
			t.Errorf("from order %v: %+v; want %+v", order, gaps, want)
		}
	}
	gaps := []validator.Gap{{RequirementID: "y"}, {RequirementID: "x"}}
	sortGaps(gaps, nil)
	if gaps[0].RequirementID != "x" {
		t.Errorf("without a plan: %+v; want by requirement id", gaps)
	}
}
