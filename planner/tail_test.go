package planner

import (
	"strings"
	"testing"
)

// A last ask that names a further topic in a few words ("anything on
// interest exp", "what about buybacks?") gives that topic; a question that
// only opens with such words, or asks in full, gives none.
func TestTailAsk(t *testing.T) {
	for q, want := range map[string]string{
		"ebay mgmt outlook into 2023 - does the rev vs gmv divergence keep going? anything on interest exp": "interest exp",
		"Meta 2024 capex guide. What about buybacks?":                                                       "buybacks",
		"nflx 2024 content spend, any color on amortization":                                                "amortization",
		"What was Apple's revenue in 2024?":                                                                 "",
		"Anything on Apple's revenue in 2024 that explains the drop in services margin and its drivers?":    "",
	} {
		got := ""
		if m := tailAsk.FindStringSubmatch(q); m != nil {
			got = m[1]
		}
		if got != want {
			t.Errorf("tailAsk(%q) = %q, want %q", q, got, want)
		}
	}
}

// The words of a topic, one clipped, spell the row label of the filing
// whose words they begin: "interest exp" is "interest expense".
func TestClippedLabel(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("z24", []FigureEntry{
		{Key: "table:Interest expense", Label: "Interest expense", Table: true},
		{Key: "table:Interest and other, net", Label: "Interest and other, net", Table: true},
		{Key: "table:Interest expense on leases", Label: "Interest expense on leases", Table: true},
	})
	for tokens, want := range map[string]string{
		"interest exp": "interest expense",
		"interest":     "",
		"int exp":      "interest expense",
		"exp interest": "",
	} {
		if got := cat.clippedLabel("z24", strings.Fields(tokens)); got != want {
			t.Errorf("clippedLabel(%q) = %q, want %q", tokens, got, want)
		}
	}
}
