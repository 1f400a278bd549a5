package planner

import (
	"slices"
	"strings"
	"testing"
)

func TestDenominatorOf(t *testing.T) {
	for _, tt := range []struct {
		sentence, phrase string
		want             bool
	}{
		{"costco's gross margin as a share of net sales slipped in fiscal 2022", "net sales", true},
		{"r&d as a % of revenue rose", "revenue", true},
		{"operating income divided by revenue fell", "revenue", true},
		{"net sales slipped in fiscal 2022", "net sales", false},
		// Named as the denominator and on its own: a figure of its own too.
		{"net sales rose but gross margin as a share of net sales slipped", "net sales", false},
		{"gross margin fell", "net sales", false},
	} {
		if got := denominatorOf(tt.sentence, tt.phrase); got != tt.want {
			t.Errorf("denominatorOf(%q, %q) = %v, want %v", tt.sentence, tt.phrase, got, tt.want)
		}
	}
}

// "Gross margin as a share of net sales slipped" asserts the ratio fell,
// not net sales: no premise is checked on net sales.
func TestNoPremiseOnDenominator(t *testing.T) {
	cat := textFilingCatalog("Net sales", "Merchandise costs", "Operating income")
	for _, tt := range []struct {
		question       string
		revenuePremise bool
	}{
		{"SHTX's gross margin as a share of net sales slipped in fiscal 2022. What was the percentage, and why?", false},
		{"SHTX's net sales slipped in fiscal 2022. What were they, and why?", true},
	} {
		g := planOver(t, cat, tt.question)
		got := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return strings.Contains(r.ID, "-premise-revenue") && r.Completion.Sign != 0
		})
		if got != tt.revenuePremise {
			t.Errorf("%q: premise on revenue %v, want %v\n%v", tt.question, got, tt.revenuePremise, g.Requirements)
		}
	}
}
