package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/tools"
)

func TestAskedQuarters(t *testing.T) {
	t.Parallel()
	for q, want := range map[string][]quarterAsk{
		"Apple iPhone revenue in Q2 FY25?":                                {{fq: 2, fy: 2025}},
		"AAPL 3Q23 services":                                              {{fq: 3, fy: 2023}},
		"Q3 fiscal 2024 revenue":                                          {{fq: 3, fy: 2024}},
		"revenue in the second quarter of fiscal 2025":                    {{fq: 2, fy: 2025}},
		"iphone revenue for the March-2025 quarter and the June-2025 qtr": {{month: time.March, year: 2025}, {month: time.June, year: 2025}},
		"revenue for the quarter ended July 1, 2023":                      {{month: time.July, year: 2023, day: 1}},
		"What was Apple's revenue in fiscal 2024?":                        nil,
		"What did Apple say in its latest quarter?":                       nil,
		"Did Apple's Q1 25% services growth hold?":                        nil, // a rate, not a year
		// the year first
		"AAPL Sept-qtr FY25 (Q4, ended Sep-27-2025) iPhone rev": {{fq: 4, fy: 2025}},
		"fiscal 2024 Q1 services revenue":                       {{fq: 1, fy: 2024}},
	} {
		if got := askedQuarters(q); !slices.Equal(got, want) {
			t.Errorf("askedQuarters(%q) = %+v, want %+v", q, got, want)
		}
	}
}

// TestQuarterReports: a quarter is the 10-Q's by its fiscal number,
// counted from the fiscal year's end, or by the month it ends in; a 52-53
// week quarter ending on the first days of a month is the month before's.
func TestQuarterReports(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	june23 := corpus.Document{Form: "10-Q", FiscalYear: 2023, PeriodEnd: day("2023-07-01")}
	for _, tc := range []struct {
		q    quarterAsk
		want bool
	}{
		{quarterAsk{fq: 3, fy: 2023}, true},
		{quarterAsk{fq: 2, fy: 2023}, false},
		{quarterAsk{fq: 3, fy: 2024}, false},
		{quarterAsk{month: time.June, year: 2023}, true},
		{quarterAsk{month: time.March, year: 2023}, false},
		{quarterAsk{month: time.July, year: 2023, day: 1}, true},
		{quarterAsk{month: time.April, year: 2023, day: 1}, false},
	} {
		if got := tc.q.reports(june23, time.September); got != tc.want {
			t.Errorf("%v reports the 10-Q ended 2023-07-01: %v, want %v", tc.q, got, tc.want)
		}
	}
	if fy := (quarterAsk{month: time.December, year: 2024}).fiscalYear(time.September); fy != 2025 {
		t.Errorf("the December 2024 quarter of a September year: fiscal %d, want 2025", fy)
	}
	if m := (quarterAsk{fq: 2, fy: 2025}).endMonth(time.September); m != time.March {
		t.Errorf("Q2 of a September year ends in %s, want March", m)
	}
}

// TestQuarterNotHeld: a quarter the corpus holds no 10-Q of is a gap of
// its own; the 10-Q of another quarter of the year answers only its own.
func TestQuarterNotHeld(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	cat := NewCatalog([]corpus.Document{
		{ID: "k24", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-09-28"), Format: corpus.FormatText},
		{ID: "q25", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-Q", FiscalYear: 2025, PeriodEnd: day("2025-06-28"), Format: corpus.FormatText},
	})
	for q, want := range map[string]struct {
		gaps    []string // ids holding these quarter slugs
		covered bool     // a requirement of the held quarter
	}{
		"Apple's revenue in Q2 FY25?":                                         {gaps: []string{"-q2-"}},
		"Apple revenue for the March-2025 quarter and the June-2025 quarter?": {gaps: []string{"-2025-03-"}, covered: true},
		"Apple's revenue in Q3 FY25?":                                         {covered: true},
	} {
		rt := RouteQuestion(q, cat, nil)
		g, err := (&RulesPlanner{}).Plan(context.Background(), q, rt, cat)
		if err != nil {
			t.Fatal(err)
		}
		var quarterGaps, held int
		for _, r := range g.Requirements {
			switch {
			case slices.ContainsFunc(want.gaps, func(s string) bool { return strings.Contains(r.ID, s) }):
				quarterGaps++
				if !slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool {
					return slices.ContainsFunc(grp, func(s string) bool { return strings.HasPrefix(s, "three months ended") })
				}) {
					t.Errorf("%q: gap %s can be met by another quarter's passage: %v", q, r.ID, r.Completion.AllOf)
				}
			case r.Required:
				held++
			}
		}
		if quarterGaps != len(want.gaps) {
			t.Errorf("%q: %d quarter gaps, want %d (%q)", q, quarterGaps, len(want.gaps), reqIDs(g))
		}
		if (held > 0) != want.covered {
			t.Errorf("%q: requirements of the held quarter: %d, want some: %v (%q)", q, held, want.covered, reqIDs(g))
		}
	}
}

// TestTwoQuartersHeld: two quarters of one fiscal year, each with its
// 10-Q in the corpus: the plan reads one report per year, and the other
// quarter is asked of its own 10-Q as a passage, never dropped.
func TestTwoQuartersHeld(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	cat := NewCatalog([]corpus.Document{
		{ID: "k24", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-09-28"), Format: corpus.FormatText},
		{ID: "q2", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-Q", FiscalYear: 2025, PeriodEnd: day("2025-03-29"), Format: corpus.FormatText},
		{ID: "q3", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-Q", FiscalYear: 2025, PeriodEnd: day("2025-06-28"), Format: corpus.FormatText},
	})
	q := "Apple revenue in Q2 FY25 and in Q3 FY25?"
	rt := RouteQuestion(q, cat, nil)
	g, err := (&RulesPlanner{}).Plan(context.Background(), q, rt, cat)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-q3-") && r.Required })
	if i < 0 {
		t.Fatalf("requirements %q: want the second quarter held asked on its own", reqIDs(g))
	}
	r := g.Requirements[i]
	if strings.Contains(r.Need, "no 10-Q") || !slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Contains(grp, "three months ended june") }) {
		t.Errorf("requirement %s: need %q, condition %v; want the June quarter's own statement", r.ID, r.Need, r.Completion.AllOf)
	}
}

// A year written only as the calendar date of a quarter of another fiscal
// year ("the December 2023 quarter, i.e. fiscal Q1 2024" of an issuer
// whose year ends in September) asks no period of its own: the quarter
// the corpus holds no 10-Q of is a gap, never fiscal 2023's 10-Q.
func TestYearDatingAQuarterOnly(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	cat := NewCatalog([]corpus.Document{
		{ID: "q23", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-Q", FiscalYear: 2023, PeriodEnd: day("2023-07-01"), Format: corpus.FormatText},
		{ID: "k24", Ticker: "AAPL", Company: "Apple Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-09-28"), Format: corpus.FormatText},
	})
	for q, want := range map[string]bool{
		"How much iPhone revenue did Apple book in the December 2023 quarter, i.e. fiscal Q1 2024?": false,
		"Apple's revenue in the June 2023 quarter and in the December 2023 quarter?":                true,
		"Apple's 2023 revenue, and its revenue in the December 2023 quarter?":                       true,
	} {
		rt := RouteQuestion(q, cat, nil)
		g, err := (&RulesPlanner{}).Plan(context.Background(), q, rt, cat)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Period == "FY2023" })
		if got != want {
			t.Errorf("%q: fiscal 2023 asked %v, want %v (%q)", q, got, want, reqIDs(g))
		}
	}
}

// quarterRows are a catalog's figures for an annual report that prints
// its year's revenue and a table of quarters.
func quarterRows(year corpus.Fact, quarters ...corpus.Fact) []FigureEntry {
	return FigureEntries(append([]corpus.Fact{year}, quarters...))
}

func tableFact(label, start, end string, value int64) corpus.Fact {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	return corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.NewFromInt(value), Unit: "USD",
		PeriodStart: day(start), PeriodEnd: day(end), Start: 10, End: 20}
}

// TestPlanQuarterFromAnnualReport: a quarter of a year the corpus holds
// no 10-Q of is read from the annual report's table of quarters, where
// it prints one: every lookup and calculation names the quarter, the
// figure's condition names the month it ends in, a change asked
// "sequential" is over the quarter before and otherwise over the same
// quarter a year before. Without such a table the quarter is a gap, and a
// question about the year reads the year.
func TestPlanQuarterFromAnnualReport(t *testing.T) {
	cat := sampleCatalog(t)
	for _, e := range corpustest.Entries(t) {
		if e.Ticker == "INTC" && e.FiscalYear == 2020 {
			cat.SetFigures(e.Path, quarterRows(tableFact("Total net revenue", "2019-12-29", "2020-12-26", 77_867),
				tableFact("Net revenue", "2020-09-27", "2020-12-26", 19_978), tableFact("Net revenue", "2020-06-27", "2020-09-26", 18_333),
				tableFact("Net revenue", "2019-09-29", "2019-12-28", 20_209)))
		}
	}
	tests := []struct {
		q       string
		lookups []string // of table:Net revenue, period and quarter, in any order
		ended   []string // the QuarterEnded of the figure conditions
		calc    string   // the calculation's expression; "" for none
	}{
		{"Intel Q4 2020 net revenue, and the sequential % change from Q3?",
			[]string{"FY2020 Q4", "FY2020 Q3"}, []string{"2020-12", "2020-09"}, "(revenue - prior_quarter_revenue) / prior_quarter_revenue"},
		{"Intel's revenue in the fourth quarter of 2020 and its growth y/y?",
			[]string{"FY2020 Q4"}, []string{"2020-12"}, "(revenue - revenue_prior) / revenue_prior"},
		{"What was Intel's first quarter 2020 revenue, quarter over quarter?",
			[]string{"FY2020 Q1", "FY2019 Q4"}, []string{"2020-03", "2019-12"}, "(revenue - prior_quarter_revenue) / prior_quarter_revenue"},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			_, g := planFor(t, cat, tt.q, 0)
			var got []string
			var calc string
			for _, n := range g.Nodes {
				switch n.Tool {
				case tools.LookupFact:
					var a tools.LookupFactArgs
					if err := json.Unmarshal(n.Args, &a); err != nil {
						t.Fatal(err)
					}
					if a.FiscalQuarter == 0 {
						t.Errorf("node %s reads the year: %s", n.ID, n.Args)
					}
					if a.Concept == "table:Net revenue" {
						got = append(got, fmt.Sprintf("%s Q%d", a.Period, a.FiscalQuarter))
					}
				case tools.Calculate:
					var a tools.CalculateArgs
					if err := json.Unmarshal(n.Args, &a); err != nil {
						t.Fatal(err)
					}
					for name, ref := range a.Facts {
						if ref.FiscalQuarter == 0 {
							t.Errorf("input %s of %s names no quarter: %+v", name, a.Expression, ref)
						}
					}
					calc = a.Expression
				}
			}
			if !sameSet(got, tt.lookups) {
				t.Errorf("lookups %v, want %v", got, tt.lookups)
			}
			if calc != tt.calc {
				t.Errorf("calculation %q, want %q", calc, tt.calc)
			}
			var ended []string
			for _, r := range g.Requirements {
				if r.Completion.Kind == CondFact {
					ended = append(ended, r.Completion.QuarterEnded)
				}
			}
			if !sameSet(ended, tt.ended) {
				t.Errorf("figure conditions end in %v, want %v", ended, tt.ended)
			}
		})
	}

	// The year asked reads the year.
	_, g := planFor(t, cat, "What was Intel's total net revenue in fiscal 2020?", 0)
	for _, n := range g.Nodes {
		if strings.Contains(string(n.Args), "fiscal_quarter") {
			t.Errorf("a question about the year reads a quarter: %s", n.Args)
		}
	}
	// An annual report without a table of quarters states no quarter.
	_, g = planFor(t, cat, "What was Apple's revenue in Q1 FY2022?", 0)
	for _, n := range g.Nodes {
		if n.Tool == tools.LookupFact {
			t.Errorf("a quarter no report prints is looked up: %s", n.Args)
		}
	}
}
