package tools

import (
	"strings"
	"testing"
)

// quarterFiling is an annual report with a table of its quarters beside
// its income statement.
const quarterFiling = `CONSOLIDATED STATEMENTS OF INCOME
(In Millions)
Years Ended Dec 26, 2020 Dec 28, 2019
Net revenue $ 77,867 $ 71,965

Financial Information by Quarter (Unaudited)
2020 for Quarter Ended
(In Millions) December 26 September 26 June 27 March 28
Net revenue $ 19,978 $ 18,333 $ 19,728 $ 19,828
Bookings $ 5 $ 6 $ 7 $ 8

2019 for Quarter Ended
(In Millions) December 28 September 28 June 29 March 30
Net revenue $ 20,209 $ 19,190 $ 16,505 $ 16,061
Bookings $ 1 $ 2 $ 3 $ 4
`

// TestLookupFactFiscalQuarter reads a quarter of the year from an annual
// report's table of quarters, its year-ago quarter beside it, and never a
// quarter in place of the year.
func TestLookupFactFiscalQuarter(t *testing.T) {
	store := newFixtureStore(t, fixture{ticker: "ACME", form: "10-K", fiscalYear: 2020, periodEnd: "2020-12-26", text: quarterFiling, tables: true})
	env := newEnv(t, store, Scope{Tickers: []string{"ACME"}})
	tests := []struct {
		name    string
		args    map[string]any
		periods []string // of the facts, in order
		values  []string
	}{
		{"the fourth quarter and its year-ago quarter", map[string]any{"ticker": "ACME", "concept": "table:Net revenue", "period": "FY2020", "fiscal_quarter": 4},
			[]string{"2020-09-27/2020-12-26", "2019-09-29/2019-12-28"}, []string{"19978000000", "20209000000"}},
		{"the third quarter", map[string]any{"ticker": "ACME", "concept": "table:Net revenue", "period": "FY2020", "fiscal_quarter": 3},
			[]string{"2020-06-27/2020-09-26", "2019-06-29/2019-09-28"}, []string{"18333000000", "19190000000"}},
		{"a quarter of the year before, from the later report's table", map[string]any{"ticker": "ACME", "concept": "table:Net revenue", "period": "FY2019", "fiscal_quarter": 4},
			[]string{"2019-09-29/2019-12-28"}, []string{"20209000000"}},
		{"the year, not its fourth quarter", map[string]any{"ticker": "ACME", "concept": "table:Net revenue", "period": "FY2020"},
			[]string{"2019-12-29/2020-12-26", "2018-12-29/2019-12-28"}, []string{"77867000000", "71965000000"}},
		{"a row printed by quarter only is no year's", map[string]any{"ticker": "ACME", "concept": "table:Bookings", "period": "FY2020"},
			nil, nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := run(t, env, "l"+string(rune('a'+i)), LookupFact, tt.args)
			var periods, values []string
			for _, f := range out.Facts {
				periods = append(periods, f.Period)
				values = append(values, f.Value.String())
			}
			if strings.Join(periods, " ") != strings.Join(tt.periods, " ") || strings.Join(values, " ") != strings.Join(tt.values, " ") {
				t.Errorf("facts %v = %v, want %v = %v\n%s", periods, values, tt.periods, tt.values, out.Text)
			}
		})
	}

	// A quarter's change over the quarter before and over the year-ago
	// quarter, each computed from the facts the lookups registered; a
	// reference to the year still names the year.
	q4 := map[string]any{"ticker": "ACME", "concept": "table:Net revenue", "period": "FY2020", "fiscal_quarter": 4}
	q3 := map[string]any{"ticker": "ACME", "concept": "table:Net revenue", "period": "FY2020", "fiscal_quarter": 3}
	q4prior := map[string]any{"ticker": "ACME", "concept": "table:Net revenue", "period": "FY2020", "fiscal_quarter": 4, "prior": true}
	year := map[string]any{"ticker": "ACME", "concept": "table:Net revenue", "period": "FY2020"}
	calcs := []struct {
		name, expr string
		facts      map[string]any
		want       string // to four places
	}{
		{"sequential", "(now - before) / before", map[string]any{"now": q4, "before": q3}, "0.0897"},           // 19,978 / 18,333 - 1
		{"year over year", "(now - before) / before", map[string]any{"now": q4, "before": q4prior}, "-0.0114"}, // 19,978 / 20,209 - 1
		{"the year", "revenue", map[string]any{"revenue": year}, "77867000000.0000"},
	}
	for i, tc := range calcs {
		calc := run(t, env, "c"+string(rune('a'+i)), Calculate, map[string]any{"expression": tc.expr, "facts": tc.facts})
		if got := calc.Calculation.Result.StringFixed(4); got != tc.want {
			t.Errorf("%s: %s = %s, want %s\n%s", tc.name, tc.expr, got, tc.want, calc.Text)
		}
	}
}

func TestLookupFactFiscalQuarterArgs(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{"a fifth quarter", `{"ticker":"AAPL","concept":"us-gaap:Revenues","period":"FY2024","fiscal_quarter":5}`, "want 1 to 4"},
		{"beside a quarterly report's column", `{"ticker":"AAPL","concept":"us-gaap:Revenues","period":"FY2024","fiscal_quarter":2,"quarter":true}`, "without quarter or year_to_date"},
		{"without its year", `{"ticker":"AAPL","concept":"us-gaap:Revenues","fiscal_quarter":2}`, "needs the year"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := checkLookup([]byte(tt.args), Scope{Tickers: []string{"AAPL"}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
	_, err := checkCalculate([]byte(`{"expression":"a","facts":{"a":{"ticker":"AAPL","concept":"us-gaap:Revenues","fiscal_quarter":3}}}`), Scope{Tickers: []string{"AAPL"}})
	if err == nil || !strings.Contains(err.Error(), "needs the year") {
		t.Errorf("a quarter reference without its year: error %v", err)
	}
}
