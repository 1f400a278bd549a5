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
