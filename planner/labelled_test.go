package planner

import (
	"slices"
	"testing"
)

// TestPlanLabelledFigure: a figure named by a row label of the filing,
// among words that are no part of its name, is looked up by that label,
// and explained where the question asks why; a question whose words name
// no label plans no such figure.
func TestPlanLabelledFigure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		q       string
		fact    bool // a lookup of the row "Interest expense"
		explain bool // an explanation of interest expense
	}{
		{"TXTF's interest expense climbed in fiscal 2022. How much was it, and what does the 10-K attribute the increase to?", true, true},
		{"TXTF's interest expense climbed in fiscal 2022. How much was it?", true, false},
		{"What did TXTF say about hiring in fiscal 2022?", false, false},
	} {
		g := planOf(t, tt.q, "TXTF")
		fact := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return r.Completion.Kind == CondFact && r.Completion.Topic == "interest expense" && r.Required
		})
		explain := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return r.Kind == KindExplanation && len(r.Completion.AllOf) == 2 && slices.Equal(r.Completion.AllOf[0], []string{"interest expense"})
		})
		if fact != tt.fact || explain != tt.explain {
			t.Errorf("%q: requirements %v: figure %v explanation %v, want %v %v", tt.q, reqIDs(g), fact, explain, tt.fact, tt.explain)
		}
	}
}

// TestPlanReportedRatio: a margin asked is computed from the catalogue's
// figures and also looked up as the filing reports it, where a row is so
// labelled.
func TestPlanReportedRatio(t *testing.T) {
	t.Parallel()
	g := planOf(t, "What was TXTF's gross margin percentage in fiscal 2022?", "TXTF")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return r.Completion.Kind == CondFact && r.Completion.Topic == "gross margin percentage" && !r.Required
	}) {
		t.Errorf("requirements %v: no lookup of the reported gross margin percentage", reqIDs(g))
	}
}
