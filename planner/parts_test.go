package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/tools"
)

// TestPlanUnservedParts: a part of the business the question asks what is
// expected of, beside another figure, is an asked item of its own: the
// plan requires management's expectation for it, met by a sentence naming
// the part. A part the plan already reads gets no second requirement.
func TestPlanUnservedParts(t *testing.T) {
	t.Parallel()
	outlookOf := func(g *Graph, topic string) int {
		n := 0
		for _, r := range g.Requirements {
			if r.Kind == KindOutlook && r.Completion.Topic == topic && r.Required &&
				slices.ContainsFunc(r.Completion.AllOf, func(gr []string) bool { return slices.Contains(gr, "example web services") }) {
				n++
			}
		}
		return n
	}
	g := planOf(t, "Will Example Web Services keep growing, and what capex is XMPL planning for 2026?")
	if n := outlookOf(g, "Example Web Services"); n != 1 {
		t.Errorf("%d expectations for Example Web Services in %+v; want 1", n, g.Requirements)
	}
	g = planOf(t, "What was Example Web Services operating income in 2024, and does XMPL expect it to keep growing?")
	if n := outlookOf(g, "Example Web Services"); n != 0 {
		t.Errorf("a part the plan reads got %d expectations of its own", n)
	}
}

// TestOutlookSearchesTheYearAhead: asked what is expected for the year
// after the filing's (beside the filing's own), the plan searches for the
// question's subject with that year, as the filing writes what it expects
// for it ("we expect this growth to continue during fiscal 2023"); the
// words of holding a view are no part of the subject.
func TestOutlookSearchesTheYearAhead(t *testing.T) {
	t.Parallel()
	q := "Text Filer's datacenter expenses jumped in fiscal 2022. Is it signalling that the growth continues into fiscal 2023?"
	queries := searchQueries(planOf(t, q, "TXTF"))
	i := slices.IndexFunc(queries, func(s string) bool { return strings.HasSuffix(s, "fiscal 2023") })
	if i < 0 {
		t.Fatalf("no search for the year ahead among %q", queries)
	}
	if strings.Contains(queries[i], "signalling") || !strings.Contains(queries[i], "datacenter") {
		t.Errorf("search %q; want the subject's words and the year", queries[i])
	}
}

// requiresGroup reports whether a requirement of g has group among its
// condition's groups.
func requiresGroup(g *Graph, group []string) bool {
	return slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return slices.ContainsFunc(r.Completion.AllOf, func(gr []string) bool { return slices.Equal(gr, group) })
	})
}

// TestOutlookOfAPartNamesThePart: what is expected of a part's figure is
// met by a sentence naming the part (its name or the initials the
// question writes it by), not by the company's guidance.
func TestOutlookOfAPartNamesThePart(t *testing.T) {
	t.Parallel()
	g := planOf(t, "Does XMPL expect EWS operating income to keep growing after 2024? What was it in 2024?")
	found := false
	for _, r := range g.Requirements {
		if r.Kind != KindOutlook || r.Aspect == "general" {
			continue
		}
		found = true
		if len(r.Completion.AllOf) != 3 || !slices.Contains(r.Completion.AllOf[0], "example web services") || !slices.Contains(r.Completion.AllOf[0], "ews") {
			t.Errorf("%s: condition %q; want the part's names, the figure's and an expectation", r.ID, r.Completion.AllOf)
		}
	}
	if !found {
		t.Errorf("no outlook of the figure in %+v", g.Requirements)
	}
}

// TestHowManySharesCountsShares: "how many shares did X repurchase" is
// met by a sentence stating a number of shares, not the dollars spent.
func TestHowManySharesCountsShares(t *testing.T) {
	t.Parallel()
	g := planOf(t, "How many shares did XMPL repurchase in fiscal 2024?")
	if !requiresGroup(g, []string{NumberTerm + "shares"}) {
		t.Errorf("no requirement for a number of shares in %+v", g.Requirements)
	}
}

// TestCountAtThePeriodsEnd: "the number of warehouses" asks a count, met
// by a number of warehouses, and searched for with the period's end date
// as filings state counts ("At August 28, 2022, we operated 838 membership
// warehouses").
func TestCountAtThePeriodsEnd(t *testing.T) {
	t.Parallel()
	g := planOf(t, "Text Filer number of warehouses at end of fiscal 2022", "TXTF")
	counted := requiresGroup(g, []string{NumberTerm + "warehouses"})
	dated := slices.ContainsFunc(searchQueries(g), func(q string) bool { return strings.HasSuffix(q, "June 30, 2022") })
	if !counted || !dated {
		t.Errorf("a number of warehouses asked: %v, searched with the period's end: %v (%q)", counted, dated, searchQueries(g))
	}
}

// TestGrowthOverThePriorYear: a figure asked with its growth for one
// period ("operating income and its growth") is planned with the growth
// over the figure a year before, read from the same filing.
func TestGrowthOverThePriorYear(t *testing.T) {
	t.Parallel()
	g := planOf(t, "XMPL fiscal 2024: Example Web Services operating income and its growth")
	found := false
	for _, n := range g.Nodes {
		var a tools.CalculateArgs
		if n.Tool != tools.Calculate || json.Unmarshal(n.Args, &a) != nil {
			continue
		}
		for _, f := range a.Facts {
			if f.Prior && strings.Contains(f.Concept, "OperatingIncomeLoss") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no growth over the prior year among %+v", g.Nodes)
	}
}

// TestPartGrowthSearchesTheGrowthTable: a part's growth, as the filing
// prints it, is also searched in a table of growth rates under its
// caption ("Year-over-year Percentage Growth (Decline): ... AWS 37 29").
func TestPartGrowthSearchesTheGrowthTable(t *testing.T) {
	t.Parallel()
	g := planOf(t, "What was Example Web Services revenue growth in 2024?")
	found := false
	for _, r := range g.Requirements {
		if r.Completion.Kind != CondPrinted {
			continue
		}
		for _, n := range servers(g, r.ID) {
			var a tools.SearchArgs
			found = found || json.Unmarshal(n.Args, &a) == nil && strings.HasSuffix(a.Query, "year-over-year percentage growth")
		}
	}
	if !found {
		t.Errorf("no search of the growth table for the printed growth among %+v", g.Nodes)
	}
}
