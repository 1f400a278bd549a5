package planner

import (
	"slices"
	"testing"
)

// TestPlanUnservedParts: a part of the business the question asks what is
// expected of, beside another figure, is an asked item of its own: the
// plan requires management's expectation for it, met by a sentence naming
// the part. A part the plan already reads gets no second requirement.
func TestPlanUnservedParts(t *testing.T) {
	t.Parallel()
	outlookOf := func(g *Graph, topic string) int {
		n := 0
		for _, r := range g.Requirements {
			if r.Kind == KindOutlook && r.Completion.Topic == topic && r.Required &&
				slices.ContainsFunc(r.Completion.AllOf, func(gr []string) bool { return slices.Contains(gr, "example web services") }) {
				n++
			}
		}
		return n
	}
	g := planOf(t, "Will Example Web Services keep growing, and what capex is XMPL planning for 2026?")
	if n := outlookOf(g, "Example Web Services"); n != 1 {
		t.Errorf("%d expectations for Example Web Services in %+v; want 1", n, g.Requirements)
	}
	g = planOf(t, "What was Example Web Services operating income in 2024, and does XMPL expect it to keep growing?")
	if n := outlookOf(g, "Example Web Services"); n != 0 {
		t.Errorf("a part the plan reads got %d expectations of its own", n)
	}
}
