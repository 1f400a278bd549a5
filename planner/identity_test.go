package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/tools"
)

// A statement that lists each operating expense and prints no total
// reports the total through its own arithmetic: "opex" is computed from
// its revenue, cost of revenue and operating income rows, not left a gap.
// Where a total is printed it is looked up, and where an input is not
// shown the figure stays a lookup by name, reported as a gap if missing.
func TestOperatingExpensesByIdentity(t *testing.T) {
	statement := []string{"Total revenue", "Total cost of revenue", "Gross margin", "Research and development",
		"Sales and marketing", "General and administrative", "Operating income", "Net income"}
	tests := []struct {
		name   string
		labels []string
		want   string // the expression calculated; "" for none
	}{
		{"no total printed", statement, "revenue - cost_of_revenue - operating_income"},
		{"a total printed", append(statement[:6:6], "Total operating expenses", "Operating income"), ""},
		{"no cost of revenue row", []string{"Total revenue", "Research and development", "Operating income"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := planOver(t, textFilingCatalog(tt.labels...), "SHTX FY22 opex?")
			got := ""
			for _, n := range g.Nodes {
				if n.Tool != tools.Calculate {
					continue
				}
				var args tools.CalculateArgs
				if err := json.Unmarshal(n.Args, &args); err != nil {
					t.Fatal(err)
				}
				got = args.Expression
			}
			if got != tt.want {
				t.Errorf("calculated %q, want %q; requirements:\n%v", got, tt.want, g.Requirements)
			}
			if tt.want == "" && !slices.ContainsFunc(g.Nodes, func(n Node) bool {
				return n.Tool == tools.LookupFact && strings.Contains(strings.ToLower(string(n.Args)), "operating expenses") ||
					strings.Contains(string(n.Args), "operating_expenses")
			}) {
				t.Errorf("no lookup of operating expenses planned:\n%v", g.Nodes)
			}
		})
	}
}
