package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/tools"
)

// TestQuestionWordsOutside: the name of an issuer the corpus lacks is not a
// word the covered issuer's filing must use ("DIS vs META": "dis" is
// Disney).
func TestQuestionWordsOutside(t *testing.T) {
	rt, g := planFor(t, smallCatalog(), "DIS vs META — streaming subscribers and watch time at the end of 2024?", 0)
	if len(rt.NotCovered) == 0 {
		t.Fatalf("DIS not read as an issuer outside the corpus: %+v", rt)
	}
	for _, r := range g.Requirements {
		for _, grp := range r.Completion.AllOf {
			if slices.Contains(grp, "dis") || slices.Contains(grp, "disney") {
				t.Errorf("requirement %s asks for %v", r.ID, grp)
			}
		}
	}
}

// TestSearchesInOwnWords: a reason is also searched in the words the filing
// prints for its figure, guidance for the year it is for, and a ratio the
// filing prints is looked up beside the one computed.
func TestSearchesInOwnWords(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("c22", tableRows("2021-08-30", "2022-08-28",
		row{"Total net revenues", 226_954}, row{"Capital expenditures", 3_891},
		row{"Provision for income taxes", 1_925}, row{"Income before income taxes", 7_840},
		row{"Effective tax rate", 25},
	))
	queries := searchQueries
	_, g := planFor(t, cat, "Why did Costco's revenue grow in fiscal 2022?", 0)
	if q := queries(g); !slices.Contains(q, "net revenues primarily due to") {
		t.Errorf("searches %q; want one in the filing's own label", q)
	}
	_, g = planFor(t, cat, "What capex does Costco expect for fiscal 2023, per its fiscal 2022 10-K?", 0)
	if q := queries(g); !slices.ContainsFunc(q, func(s string) bool { return strings.HasSuffix(s, "fiscal 2023") }) {
		t.Errorf("searches %q; want one for the year the guidance is for", q)
	}
	_, g = planFor(t, cat, "What was Costco's effective tax rate in fiscal 2022?", 0)
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return r.Completion.Kind == CondFact && slices.Contains(r.Completion.Concepts, "table:Effective tax rate")
	}) {
		t.Errorf("requirements %v; want the rate as the filing prints it", g.Requirements)
	}
}

// searchQueries returns the queries of a graph's search_filings nodes.
func searchQueries(g *Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		var a tools.SearchArgs
		if n.Tool == tools.SearchFilings && json.Unmarshal(n.Args, &a) == nil {
			out = append(out, a.Query)
		}
	}
	return out
}
