package planner

import (
	"slices"
	"strings"
	"testing"
)

// "What share of revenue came from cloud services, and does management
// expect that share to keep rising?": the expectation asked is of the
// share named before, so a sentence naming the part meets it, not any
// sentence expecting revenue; and the share the filing prints is planned
// beside the one computed.
func TestOutlookOfShareNamedBefore(t *testing.T) {
	cat := textFilingCatalog("Cloud services", "License support", "Total revenues")
	g := planOver(t, cat, "What share of SHTX's fiscal 2022 revenue came from cloud services, and does management expect that share to keep rising?")
	var share, printed, outlook bool
	for _, r := range g.Requirements {
		switch {
		case r.Kind == KindCalculation && strings.Contains(r.ID, "-share-"):
			share = true
		case r.Completion.Kind == CondPrinted && strings.Contains(r.Completion.Topic, "share"):
			printed = true
		case r.Kind == KindOutlook:
			outlook = slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool { return slices.Contains(g, "cloud services") })
		}
	}
	if !share || !printed || !outlook {
		t.Errorf("share computed %v, printed share planned %v, outlook of the part %v\n%v", share, printed, outlook, g.Requirements)
	}
}

// A share of a row the expecting clause names ("cloud services ... a bigger
// slice of its total revenue"), or that a sentence before names ("cloud
// services were ~32% of revenue ... that mix shift"), is the expectation's
// subject; a row the clause lists beside the figure ("for the revenue gap
// and for interest expense") is not.
func TestOutlookOfRowShare(t *testing.T) {
	cat := textFilingCatalog("Cloud services", "License support", "Total revenues", "Interest expense")
	for _, tt := range []struct {
		question string
		part     bool
	}{
		{"Is SHTX expecting cloud services to keep taking a bigger slice of its total revenue after FY22?", true},
		{"SHTX cloud services were ~32% of FY22 revenue. Does management expect that mix shift toward cloud to keep going?", true},
		{"SHTX FY22: what does management expect for revenue and for interest expense in 2023?", false},
	} {
		g := planOver(t, cat, tt.question)
		part := false
		for _, r := range g.Requirements {
			if r.Kind == KindOutlook && strings.Contains(r.ID, "revenue") {
				part = part || slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool {
					return slices.Contains(g, "cloud services") || slices.Contains(g, "interest expense")
				})
			}
		}
		if part != tt.part {
			t.Errorf("%q: revenue outlook of a row %v, want %v\n%v", tt.question, part, tt.part, g.Requirements)
		}
	}
}
