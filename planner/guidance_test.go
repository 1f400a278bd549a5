package planner

import (
	"slices"
	"testing"
)

// Guidance asked of the year after a report is searched in the filing's
// own words for the figure ("net sales", where the statements print
// "Total net sales"), and as guidance is printed ("Net sales are expected
// to be between ...").
func TestGuidanceSearchedInTheFilingsWords(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("z24", tableRows("2024-01-01", "2024-12-31", row{"Total net sales", 637_959}, row{"Operating income", 68_593}))
	for _, tt := range []struct {
		question string
		guidance bool
	}{
		{"What did Amazon guide for Q1 2025 net sales?", true},
		{"What does Amazon expect for net sales in 2025?", false},
	} {
		_, g := planFor(t, cat, tt.question, 0)
		queries := searchQueries(g)
		if !slices.Contains(queries, "net sales expect") {
			t.Errorf("%q: searches %q; want the filing's name for the figure", tt.question, queries)
		}
		if got := slices.Contains(queries, "net sales guidance expected to be"); got != tt.guidance {
			t.Errorf("%q: searches %q; guidance searched %v, want %v", tt.question, queries, got, tt.guidance)
		}
	}
}

// A part named at length is met by a sentence naming one of its rarer and
// one of its commoner words, not every word: the sentence stating what the
// useful lives' change added to net income names the equipment, not the
// useful lives.
func TestLongPartNamedByItsWords(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{Issuer: "AAPL", Text: "Our server and network equipment has useful lives of years. Equipment lives vary."},
		{Issuer: "META", Text: "Network equipment lives. Equipment."},
		{Issuer: "NVDA", Text: "Equipment and its lives."},
	}))
	q := "In FY2024, how much did Apple's change in server and network equipment useful lives add to net income?"
	_, g := planFor(t, cat, q, 0)
	var got [][]string
	for _, r := range g.Requirements {
		if r.Kind == KindFigure && len(r.Completion.AllOf) > 0 {
			got = r.Completion.AllOf
		}
	}
	// The fifth group asks the part to be what the amount is stated of
	// (SubjectTerm), not a reason given for it.
	if len(got) != 5 || !slices.Contains(got[0], "server") || !slices.Contains(got[1], "equipment") ||
		!slices.Contains(got[4], SubjectTerm+"server") {
		t.Errorf("condition %q; want one of the rarer words, one of the commoner, the figure, an amount and the part as subject", got)
	}
}
