package tools

import (
	"slices"
	"strings"
	"testing"
)

// TestDerivedCatalogue holds every derived figure to a formula calculate
// accepts over metrics the catalogue can look up.
func TestDerivedCatalogue(t *testing.T) {
	for _, d := range slices.Concat(DerivedMetrics, Identities) {
		ins := d.Inputs()
		if len(ins) == 0 {
			t.Errorf("%s: expression %q does not parse", d.Name, d.Expression)
		}
		for _, in := range ins {
			if _, ok := MetricByName(strings.TrimSuffix(in, "_prior")); !ok {
				t.Errorf("%s: input %q is no metric of the catalogue", d.Name, in)
			}
		}
		if _, ok := MetricByName(d.Name); ok {
			// An identity stands for a reported metric of its name.
			if got, ok := IdentityFor(d.Name); !ok || got.Expression != d.Expression || slices.Contains(ins, d.Name) {
				t.Errorf("IdentityFor(%s) = %+v, %v", d.Name, got, ok)
			}
			continue
		}
		if got, ok := DerivedByName(d.Name); !ok || got.Expression != d.Expression {
			t.Errorf("DerivedByName(%s) = %+v, %v", d.Name, got, ok)
		}
	}
	d, ok := DerivedByName("sbc" + ToRevenue)
	if !ok || d.Expression != "sbc / revenue" || !d.Ratio || !slices.Equal(d.Inputs(), []string{"sbc", "revenue"}) {
		t.Errorf("a metric over revenue: %+v, %v", d, ok)
	}
	for _, bad := range []string{"revenue" + ToRevenue, "nothing" + ToRevenue, "unknown"} {
		if _, ok := DerivedByName(bad); ok {
			t.Errorf("DerivedByName(%q) found a figure", bad)
		}
	}
}
