package planner

import (
	"slices"
	"strings"
	"testing"
)

// The size of a currency effect asked ("$ size of the FX headwind to
// AMZN's International segment net sales", "how big was the FX hit") is a
// sentence naming exchange rates and the part with an amount, which
// replaces a figure named by the effect's own words ("FX hit"); a currency
// effect asked about, not sized, plans none.
func TestCurrencyEffect(t *testing.T) {
	cat := smallCatalog()
	for _, q := range []string{
		"$ size of the FX headwind to AMZN's net sales in 2024?",
		"Amazon's sales fell in 2024. What was behind it, and how big was the FX hit?",
		"Amazon 2024: the FX impact on net sales, in $?",
	} {
		_, g := planFor(t, cat, q, 0)
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-currency-effect") })
		if i < 0 {
			t.Errorf("%q: no currency effect planned: %+v", q, g.Requirements)
			continue
		}
		if all := g.Requirements[i].Completion.AllOf; !slices.Equal(all[0], CurrencyTerms) || !slices.Equal(all[len(all)-1], []string{AmountTerm}) {
			t.Errorf("%q: condition %+v", q, all)
		}
		for _, r := range g.Requirements {
			if strings.Contains(strings.ToLower(r.Completion.Topic), "fx hit") {
				t.Errorf("%q: %s asks a figure named \"FX hit\"", q, r.ID)
			}
		}
	}
	_, g := planFor(t, cat, "What does Amazon say about currency risk in 2024?", 0)
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-currency-effect") }) {
		t.Errorf("a currency topic asked about, not sized, planned an amount")
	}
}
