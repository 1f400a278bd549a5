package planner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/tools"
)

// TestPlanPeriodChange: a question asking how an issuer's figure moved
// between two periods it names gets the change as a required calculation
// over the two figures: tagged facts, or counts the filings state in a
// sentence, read by a stated lookup. A question that asks for the two
// figures and no change gets none.
func TestPlanPeriodChange(t *testing.T) {
	cat := sampleCatalog(t)
	for _, e := range corpustest.Entries(t) {
		switch {
		case e.Ticker == "MSFT" && e.FiscalYear == 2021:
			cat.SetFigures(e.Path, tableRows("2020-07-01", "2021-06-30", row{"Revenue", 168_088}, row{"Operating income", 69_916}))
		case e.Ticker == "MSFT" && e.FiscalYear == 2022:
			cat.SetFigures(e.Path, tableRows("2021-07-01", "2022-06-30", row{"Revenue", 198_270}, row{"Operating income", 83_383}))
		}
	}
	tests := []struct {
		name, q string
		stated  bool // the inputs are counts stated in sentences
		change  bool // a change is planned
	}{
		{name: "a reported figure", q: "msft operating income growth FY21 -> FY22, in %?", change: true},
		{name: "a count stated in a sentence", q: "msft full-time headcount growth FY21 -> FY22, in %?", stated: true, change: true},
		{name: "the two figures, no change asked", q: "What was Microsoft's headcount in FY2021 and in FY2022?", stated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, g := planFor(t, cat, tt.q, 0)
			i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-change") })
			if !tt.change {
				if i >= 0 {
					t.Fatalf("a change was planned: %+v", g.Requirements[i])
				}
				return
			}
			if i < 0 {
				t.Fatalf("no change requirement in %v", g.Requirements)
			}
			r := g.Requirements[i]
			if !r.Required || r.Kind != KindCalculation || r.Period != "FY2022" || len(r.Completion.Of) != 2 ||
				!strings.HasPrefix(r.Completion.Of[0], "MSFT-FY2021-") || !strings.HasPrefix(r.Completion.Of[1], "MSFT-FY2022-") {
				t.Fatalf("change requirement %+v; want a required calculation from FY2021's figure to FY2022's", r)
			}
			n := servers(g, r.ID)
			if len(n) != 1 || n[0].Tool != tools.Calculate || len(n[0].DependsOn) != 2 {
				t.Fatalf("change served by %v; want one calculation after the two lookups", n)
			}
			var calc tools.CalculateArgs
			if err := json.Unmarshal(n[0].Args, &calc); err != nil {
				t.Fatal(err)
			}
			for name, ref := range calc.Facts {
				if stated := strings.HasPrefix(ref.Concept, tools.StatedPrefix); stated != tt.stated {
					t.Errorf("input %s is %s; stated %v, want %v", name, ref.Concept, stated, tt.stated)
				}
			}
			if !strings.HasPrefix(calc.Expression, "(") || !strings.Contains(calc.Expression, "fy2022 - ") || !strings.HasSuffix(calc.Expression, "_fy2021") {
				t.Errorf("expression %q; want (later - earlier) / earlier", calc.Expression)
			}
			if err := Validate(g, Limits{}); err != nil {
				t.Errorf("the plan does not validate: %v", err)
			}
		})
	}
}

// Two issuers' figures compared by how fast they grew: each one's growth
// over the year before, from its own filing; asked only of how large,
// no growth.
func TestPlanGrowthAcrossIssuers(t *testing.T) {
	cat := sampleCatalog(t)
	for _, e := range corpustest.Entries(t) {
		switch {
		case e.Ticker == "MSFT" && e.FiscalYear == 2022:
			cat.SetFigures(e.Path, tableRows("2021-07-01", "2022-06-30", row{"Revenue", 198_270}, row{"Operating income", 83_383}))
		case e.Ticker == "ORCL" && e.FiscalYear == 2023:
			cat.SetFigures(e.Path, tableRows("2022-06-01", "2023-05-31", row{"Revenue", 49_954}, row{"Operating income", 13_093}))
		}
	}
	for _, tt := range []struct {
		q    string
		want int // growth requirements planned
	}{
		{"MSFT FY22 vs ORCL FY23 operating income: who grew faster?", 2},
		{"MSFT FY22 vs ORCL FY23 operating income: which is larger?", 0},
	} {
		_, g := planFor(t, cat, tt.q, 0)
		n := 0
		for _, r := range g.Requirements {
			if strings.HasSuffix(r.ID, "-change") && r.Required && r.Kind == KindCalculation {
				n++
			}
		}
		if n != tt.want {
			t.Errorf("%q: %d growth requirements, want %d (%v)", tt.q, n, tt.want, g.Requirements)
		}
		if err := Validate(g, Limits{}); err != nil {
			t.Errorf("%q: the plan does not validate: %v", tt.q, err)
		}
	}
}

// A difference between two issuers' counts that the filings state only in
// sentences is computed from stated lookups, not left as a gap.
func TestPlanDifferenceOfStatedCounts(t *testing.T) {
	_, g := planFor(t, smallCatalog(), "How many more employees did Alphabet have than Meta at the end of 2024?", 0)
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.HasPrefix(r.ID, "difference-") })
	if i < 0 {
		t.Fatalf("no difference requirement in %v", g.Requirements)
	}
	n := servers(g, g.Requirements[i].ID)
	if !slices.ContainsFunc(n, func(n Node) bool { return n.Tool == tools.Calculate }) {
		t.Fatalf("difference served by %v; want a calculation", n)
	}
	lookups := 0
	for _, n := range g.Nodes {
		var a tools.LookupFactArgs
		if n.Tool == tools.LookupFact && json.Unmarshal(n.Args, &a) == nil && len(a.Stated) > 0 {
			lookups++
			if err := tools.CheckArgs(tools.LookupFact, n.Args, tools.Scope{Tickers: []string{"GOOGL", "META"}}); err != nil {
				t.Errorf("stated lookup %s: %v", n.Args, err)
			}
		}
	}
	if lookups != 2 {
		t.Errorf("%d stated lookups; want one per issuer", lookups)
	}
}

// A figure that is a rate or a change already ("comparable sales growth")
// gets no change of its own, nor does a comparison whose periods may be
// each issuer's own.
func TestNoPeriodChangeOfARate(t *testing.T) {
	for _, q := range []string{
		"Compare TGT's comparable sales growth for its FY2021 with Walmart U.S. comp sales growth for WMT's fiscal 2022.",
		"Walmart comparable sales growth in fiscal 2021 and fiscal 2022?",
	} {
		_, g := planFor(t, sampleCatalog(t), q, 0)
		if i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-change") }); i >= 0 {
			t.Errorf("%q: a change was planned: %+v", q, g.Requirements[i])
		}
	}
}

// TestPartGrowthOfARow: a part's growth ("Oracle's cloud services revenue growth") is computed
// from the part's row and the year before it, which the filing prints
// beside it; the row's level is not given as the growth.
func TestPartGrowthOfARow(t *testing.T) {
	cat := sampleCatalog(t)
	for _, e := range corpustest.Entries(t) {
		if e.Ticker == "ORCL" && e.FiscalYear == 2023 {
			cat.SetFigures(e.Path, tableRows("2022-06-01", "2023-05-31", row{"Cloud services", 15_881}, row{"Total revenues", 49_954}))
		}
	}
	_, g := planFor(t, cat, "Oracle's cloud services revenue growth in FY23?", 0)
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Kind == KindCalculation })
	if i < 0 {
		t.Fatalf("no growth calculation in %v", g.Requirements)
	}
	r := g.Requirements[i]
	if r.Completion.Topic != "cloud services revenue growth" || !r.Required || len(r.Completion.Of) != 1 {
		t.Fatalf("growth requirement %+v", r)
	}
	level := g.Requirements[slices.IndexFunc(g.Requirements, func(q Requirement) bool { return q.ID == r.Completion.Of[0] })]
	if level.Completion.Kind != CondFact || strings.Contains(level.Completion.Topic, "growth") {
		t.Errorf("level requirement %+v; want the row's fact, named without growth", level)
	}
	n := servers(g, r.ID)
	if len(n) != 1 || !strings.Contains(string(n[0].Args), `"prior":true`) || !strings.Contains(string(n[0].Args), "_prior) / ") {
		t.Errorf("growth served by %v; want (level - prior) / prior over the row and its prior-year column", n)
	}
	// And as the filing prints it beside the row ("Cloud services $ 15,881 47% ...").
	if p, ok := reqByID(g, PrintedID(r.ID)); !ok || p.Completion.Kind != CondPrinted || p.Required || len(servers(g, p.ID)) != 1 {
		t.Errorf("printed growth %+v, %v; want an optional printed requirement served by a search", p, ok)
	}
}

// A figure's growth asked in a clause of its own that points back to it
// ("..., and how fast did it grow?") is asked of that figure; a clause
// naming no figure and pointing to none asks nothing of it.
func TestGrowthInClausePointingBack(t *testing.T) {
	r := Requirement{ID: "ORCL-FY2023-figure-cloud", Issuer: "ORCL", Completion: Condition{Kind: CondFact, Topic: "cloud services revenue"}}
	for q, want := range map[string]bool{
		"What was Oracle's FY23 cloud services revenue, and how fast did it grow?": true,
		"How fast did it grow? What was Oracle's FY23 cloud services revenue?":     false,
		"What was Oracle's FY23 cloud services revenue? Was the deal closed?":      false,
	} {
		b := &builder{cat: smallCatalog(), question: q, rt: Route{Issuers: []string{"ORCL"}, Figures: FindFigures(q)}}
		if got := b.growthInClauseOf(r); got != want {
			t.Errorf("%q: growth asked %v, want %v", q, got, want)
		}
	}
}

// A label's words that open a figure planned under a longer name are that
// figure, not another row.
func TestPlannedLonger(t *testing.T) {
	b := &builder{cat: smallCatalog(), g: &Graph{Requirements: []Requirement{{ID: "r", Issuer: "ORCL",
		Completion: Condition{Kind: CondFact, Topic: "cloud services and license support revenue"}}}}}
	for what, want := range map[string]bool{
		"cloud services and license support":         true,
		"cloud services and license support revenue": false,
		"license support":                            false,
	} {
		if got := b.plannedLonger("ORCL", what); got != want {
			t.Errorf("plannedLonger(%q) = %v, want %v", what, got, want)
		}
	}
	if b.plannedLonger("MSFT", "cloud services and license support") {
		t.Error("another issuer's figure counts")
	}
}

// The clause asking an expectation, to the comma, with an opening phrase of
// scope before it: the parts it names are those the outlook is of.
func TestExpectingClause(t *testing.T) {
	b := &builder{}
	for q, want := range map[string]string{
		"After the June 2025 quarter, where tariffs weighed on products margin, does Apple expect gross margin pressure to continue?": "After the June 2025 quarter, does Apple expect gross margin pressure to continue",
		"For AWS, does Amazon expect growth to continue?":                      "For AWS, does Amazon expect growth to continue",
		"What was Meta's capex? Does Meta expect it to rise, and by how much?": " Does Meta expect it to rise",
	} {
		if got := b.expectingClause(q, true); strings.TrimSpace(got) != strings.TrimSpace(want) {
			t.Errorf("expectingClause(%q) = %q, want %q", q, got, want)
		}
	}
}

// A question asking whether something is still so of one year asks how
// the figure stood the year before too, as context.
func TestPlanStillAsked(t *testing.T) {
	t.Parallel()
	g := planOf(t, "Is XMPL still making an operating income of over $10 billion in 2024?", "XMPL")
	var years []string
	for _, r := range g.Requirements {
		if r.Kind == KindFigure && r.Completion.Kind == CondFact && strings.Contains(strings.Join(r.Completion.Concepts, " "), "OperatingIncomeLoss") {
			years = append(years, fmt.Sprintf("%s/%v", r.Period, r.Required))
		}
	}
	if !slices.Contains(years, "FY2024/true") || !slices.Contains(years, "FY2023/false") {
		t.Errorf("operating income requirements %v; want FY2024 required and FY2023 beside it", years)
	}
	g = planOf(t, "Is XMPL making an operating income of over $10 billion in 2024?", "XMPL")
	for _, r := range g.Requirements {
		if r.Period == "FY2023" {
			t.Errorf("without \"still\", a requirement of the year before: %s", r.ID)
		}
	}
}
