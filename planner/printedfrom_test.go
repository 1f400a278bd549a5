package planner

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// columnRows returns table facts of one column (the year to end), one per
// label and value, in the order given: the rows of a table as a filing
// prints them.
func columnRows(end time.Time, rows ...any) []corpus.Fact {
	var out []corpus.Fact
	for i := 0; i+1 < len(rows); i += 2 {
		unit := "USD"
		v := rows[i+1].(string)
		if v[len(v)-1] == '%' {
			unit, v = "pure", v[:len(v)-1]
		}
		d := decimal.RequireFromString(v)
		if unit == "pure" {
			d = d.Shift(-2)
		}
		start := 100*len(out) + 1
		out = append(out, corpus.Fact{Kind: corpus.FactTable, Label: rows[i].(string), Value: d, Unit: unit,
			PeriodStart: end.AddDate(-1, 0, 1), PeriodEnd: end, Start: start, End: start + 5})
	}
	return out
}

func fromOf(entries []FigureEntry, key string) []string {
	for _, e := range entries {
		if e.Key == key {
			return e.From
		}
	}
	return nil
}

// TestDifferencesAbove: a row printed as the difference of the two rows
// above it (a reconciliation, a gross margin and its percentage) is read as
// the filing's definition of it; rows whose amounts do not give it, or
// periods that disagree on which rows do, define nothing.
func TestDifferencesAbove(t *testing.T) {
	t.Parallel()
	y22 := time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC)
	y21 := time.Date(2021, 12, 31, 0, 0, 0, 0, time.UTC)
	facts := append(columnRows(y22,
		"Net sales", "222730", "Less merchandise costs", "199382", "Gross margin", "23348", "Gross margin percentage", "10.48%",
		"Net cash provided by (used in) operating activities", "46752",
		"Purchases of property and equipment, net of proceeds from sales and incentives", "-58321",
		"Free cash flow", "-11569",
		"Interest income", "989", "Interest expense", "-2367", "Other income (expense), net", "-16806"),
		columnRows(y21, "Net sales", "192052", "Less merchandise costs", "170684", "Gross margin", "21368", "Gross margin percentage", "11.13%")...)
	entries := FigureEntries(facts)
	margin := []string{"table:Net sales", "table:Less merchandise costs"}
	for _, tt := range []struct {
		key  string
		want []string
	}{
		{"table:Gross margin", margin},
		{"table:Gross margin percentage", margin},
		{"table:Free cash flow", []string{"table:Net cash provided by (used in) operating activities",
			"table:Purchases of property and equipment, net of proceeds from sales and incentives"}},
		{"table:Other income (expense), net", nil}, // not 989 - 2,367
		{"table:Less merchandise costs", nil},
	} {
		if got := fromOf(entries, tt.key); !slices.Equal(got, tt.want) {
			t.Errorf("From of %s = %q, want %q", tt.key, got, tt.want)
		}
	}
	// A rate printed at two decimals is the share at those digits only.
	off := FigureEntries(columnRows(y22, "Net sales", "222730", "Less merchandise costs", "199382", "Gross margin percentage", "10.50%"))
	if got := fromOf(off, "table:Gross margin percentage"); got != nil {
		t.Errorf("From of a rate the rows do not give = %q, want none", got)
	}
	// Two periods that print other rows above the row define nothing.
	split := FigureEntries(append(columnRows(y22, "A", "10", "B", "4", "Net", "6"),
		columnRows(y21, "C", "9", "B", "3", "Net", "6")...))
	if got := fromOf(split, "table:Net"); got != nil {
		t.Errorf("From of a row periods disagree on = %q, want none", got)
	}
}

// TestSharesNamed: a row of rates whose label names its whole ("SG&A
// expenses as a percentage of net sales") is read as the share of the rows
// it names, where their amounts give it; a rate they do not give names
// none.
func TestSharesNamed(t *testing.T) {
	t.Parallel()
	y22 := time.Date(2022, 8, 28, 0, 0, 0, 0, time.UTC)
	facts := columnRows(y22, "Net sales", "222730", "Total revenue", "226954", "SG&A expenses", "19779",
		"SG&A expenses as a percentage of net sales", "8.88%", "Operating income as a percentage of total revenue", "9.99%")
	entries := FigureEntries(facts)
	if got, want := overOf(entries, "table:SG&A expenses as a percentage of net sales"), []string{"table:SG&A expenses", "table:Net sales"}; !slices.Equal(got, want) {
		t.Errorf("Over = %q, want %q", got, want)
	}
	if got := overOf(entries, "table:Operating income as a percentage of total revenue"); got != nil {
		t.Errorf("Over of a rate its rows do not give = %q, want none", got)
	}
	cat := streamerCatalog()
	cat.SetFigures("s22", FigureEntries(columnRows(time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC), "Net sales", "222730", "Total revenue", "226954",
		"SG&A expenses", "19779", "SG&A expenses as a percentage of net sales", "8.88%")))
	from := cat.printedFrom("s22", mustDerived(t, "sga_intensity"))
	if from["revenue"] != "table:Net sales" || from["sga_expense"] != "table:SG&A expenses" {
		t.Errorf("printedFrom(sga_intensity) = %v, want SG&A expenses over net sales", from)
	}
}

func overOf(entries []FigureEntry, key string) []string {
	for _, e := range entries {
		if e.Key == key {
			return e.Over
		}
	}
	return nil
}

func mustDerived(t *testing.T, name string) tools.Derived {
	t.Helper()
	d, ok := tools.DerivedByName(name)
	if !ok {
		t.Fatalf("no derived figure %s", name)
	}
	return d
}

// TestDerivedFromPrintedRows: a derived figure the filing prints as the
// difference of two rows is computed from those rows (Amazon's free cash
// flow subtracts purchases of property and equipment net of proceeds and
// incentives; Costco's gross margin is on net sales), and from the metric's
// usual rows where the filing prints no such row.
func TestDerivedFromPrintedRows(t *testing.T) {
	t.Parallel()
	y22 := time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC)
	cashFlow := columnRows(y22,
		"Net cash provided by (used in) operating activities", "46752",
		"Purchases of property and equipment", "-63645",
		"Proceeds from property and equipment sales and incentives", "5324",
		"Total revenue", "226954", "Net sales", "222730", "Merchandise costs", "199382")
	reconciliation := columnRows(y22,
		"Net cash provided by (used in) operating activities", "46752",
		"Purchases of property and equipment, net of proceeds from sales and incentives", "-58321",
		"Free cash flow", "-11569",
		"Net sales", "222730", "Less merchandise costs", "199382", "Gross margin", "23348")
	for i := range reconciliation {
		reconciliation[i].Start += 10000
		reconciliation[i].End += 10000
	}
	calcFacts := func(cat *Catalog, q string) map[string]string {
		t.Helper()
		g, err := (&RulesPlanner{}).Plan(context.Background(), q, RouteQuestion(q, cat, nil), cat)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range g.Nodes {
			if n.Tool != tools.Calculate {
				continue
			}
			var a tools.CalculateArgs
			if err := json.Unmarshal(n.Args, &a); err != nil {
				t.Fatal(err)
			}
			out := map[string]string{}
			for name, ref := range a.Facts {
				out[name] = ref.Concept
			}
			return out
		}
		t.Fatalf("%q: no calculation planned", q)
		return nil
	}
	for _, tt := range []struct {
		q, name   string
		facts     []corpus.Fact
		want, not string
	}{
		{"What was STRM's free cash flow in 2022?", "capex", append(slices.Clone(cashFlow), reconciliation...),
			"table:Purchases of property and equipment, net of proceeds from sales and incentives", ""},
		{"What was STRM's free cash flow in 2022?", "capex", cashFlow, "table:Purchases of property and equipment", ""},
		{"What was STRM's gross margin in 2022?", "revenue", append(slices.Clone(cashFlow), reconciliation...), "table:Net sales", ""},
		{"What was STRM's gross margin in 2022?", "cost_of_revenue", append(slices.Clone(cashFlow), reconciliation...), "table:Less merchandise costs", ""},
	} {
		cat := streamerCatalog()
		cat.SetFigures("s22", FigureEntries(tt.facts))
		if got := calcFacts(cat, tt.q)[tt.name]; got != tt.want {
			t.Errorf("%q with %d rows: %s is read from %q, want %q", tt.q, len(tt.facts), tt.name, got, tt.want)
		}
	}
}

// TestDollarsAskedOf: an item asked "in dollars" is stated by an amount of
// money, not by the basis points a margin discussion gives it; the asking
// holds for the clause that names the item only.
func TestDollarsAskedOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		q     string
		words []string
		want  bool
	}{
		{"Costco FY22 gross margin rate fell 65 bps - what drove it, and how big was the LIFO charge in dollars?", []string{"lifo", "charge"}, true},
		{"What was the dollar amount of the LIFO charge in fiscal 2022?", []string{"lifo", "charge"}, true},
		{"How big was the LIFO charge, in $ terms?", []string{"lifo", "charge"}, true},
		{"How big was the LIFO charge?", []string{"lifo", "charge"}, false},
		{"How big was the LIFO charge? Give the margin in dollars.", []string{"lifo", "charge"}, false},
		{"What is the restructuring charge?", []string{"lifo", "charge"}, false},
	} {
		if got := dollarsAskedOf(tt.q, tt.words); got != tt.want {
			t.Errorf("dollarsAskedOf(%q, %q) = %v, want %v", tt.q, tt.words, got, tt.want)
		}
	}
	cat := sampleCatalog(t)
	for _, tt := range []struct {
		q    string
		want string
	}{
		{"Costco FY22 gross margin rate fell 65 bps - what drove it, and how big was the LIFO charge in dollars?", AmountTerm},
		{"Costco FY22 gross margin rate fell 65 bps - what drove it, and how big was the LIFO charge?", FigureTerm},
	} {
		g, err := (&RulesPlanner{}).Plan(context.Background(), tt.q, RouteQuestion(tt.q, cat, nil), cat)
		if err != nil {
			t.Fatal(err)
		}
		var groups [][]string
		for _, r := range g.Requirements {
			if r.ID == "COST-FY2022-figure-lifo-charge" {
				groups = r.Completion.AllOf
			}
		}
		if len(groups) == 0 || !slices.ContainsFunc(groups, func(g []string) bool { return slices.Equal(g, []string{tt.want}) }) {
			t.Errorf("%q: the LIFO charge's condition is %q, want a group %q", tt.q, groups, tt.want)
		}
	}
}
