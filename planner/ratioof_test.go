package planner

import (
	"slices"
	"strings"
	"testing"
)

// TestRatioOf: a figure asked as a share of another that is not revenue is
// an asked item of its own, planned whether or not it can be computed; a
// share of revenue is the catalogue's ratio, and a question setting no
// figure over another asks none.
func TestRatioOf(t *testing.T) {
	cat := smallCatalog()
	for _, tt := range []struct {
		q    string
		want string // the ratio requirement's id suffix; "" for none
	}{
		{"Apple capex as a percentage of operating cash flow in fiscal 2022", "-ratio-capex-to-operating_cash_flow"},
		{"What was Apple's net income divided by its operating cash flow in fiscal 2022?", "-ratio-net_income-to-operating_cash_flow"},
		{"Apple capex as a percentage of revenue in fiscal 2022", ""},
		{"Apple capex and operating cash flow in fiscal 2022", ""},
	} {
		_, g := planFor(t, cat, tt.q, 0)
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-ratio-") })
		switch {
		case tt.want == "" && i >= 0:
			t.Errorf("%q: planned %s; want no ratio", tt.q, g.Requirements[i].ID)
		case tt.want != "" && i < 0:
			t.Errorf("%q: no ratio planned; want %s (%v)", tt.q, tt.want, g.Requirements)
		case tt.want != "" && (!strings.HasSuffix(g.Requirements[i].ID, tt.want) || !g.Requirements[i].Required):
			t.Errorf("%q: planned %+v; want a required %s", tt.q, g.Requirements[i], tt.want)
		}
	}
}
