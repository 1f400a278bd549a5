package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
)

func TestQualifyConcept(t *testing.T) {
	tests := map[string]string{
		"GrossProfit":             "us-gaap:GrossProfit",
		" Revenues ":              "us-gaap:Revenues",
		"us-gaap:GrossProfit":     "us-gaap:GrossProfit",
		"aapl:IPhoneMember":       "aapl:IPhoneMember",
		"dei:EntityCommonStockSh": "dei:EntityCommonStockSh",
		"":                        "",
	}
	for in, want := range tests {
		if got := QualifyConcept(in); got != want {
			t.Errorf("QualifyConcept(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLineSpan(t *testing.T) {
	long := strings.Repeat("word ", 200) // 1000 bytes
	tests := []struct {
		name, text, value string
		want              string // the span's text
	}{
		{"table row", "Header\nTotal net sales | 391,035 | 383,285\nNext", "383,285", "Total net sales | 391,035 | 383,285"},
		{"first line", "Revenue | 10 | 9\nrest", "10", "Revenue | 10 | 9"},
		{"last line", "head\nRevenue | 10 | 9", "9", "Revenue | 10 | 9"},
		{"long line", "x\n" + long + "sales were $391,035 million " + long + "\ny", "391,035", ""},
		{"long line end", "x\n" + long + "total 42", "42", ""},
		{"runes", "x\n" + strings.Repeat("é", 400) + " 42 " + strings.Repeat("ü", 400), "42", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := strings.LastIndex(tt.text, tt.value)
			end := start + len(tt.value)
			s, e := lineSpan(tt.text, start, end)
			if s > start || e < end {
				t.Fatalf("span [%d, %d) does not hold the value at [%d, %d)", s, e, start, end)
			}
			got := tt.text[s:e]
			if tt.want != "" && got != tt.want {
				t.Errorf("span %q, want %q", got, tt.want)
			}
			if e-s > maxLine {
				t.Errorf("span of %d bytes; at most %d", e-s, maxLine)
			}
			if strings.Contains(got, "\n") {
				t.Errorf("span %q crosses a line", got)
			}
			if tt.want == "" && e-s < maxLine-4 {
				t.Errorf("span of %d bytes on a long line; want about %d", e-s, maxLine)
			}
			if !strings.HasPrefix(tt.text[s:], got) || !validUTF8(got) {
				t.Errorf("span %q is not cut on rune boundaries", got)
			}
		})
	}
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestLookupFactFixtures(t *testing.T) {
	store := newFixtureStore(t, acmeFilings()...)
	scope := Scope{Tenant: "acme", Tickers: []string{"ACME"}}
	type want struct {
		value, period, line string
	}
	tests := []struct {
		name     string
		args     map[string]any
		want     []want
		disagree bool
	}{
		{
			name: "every filing of the year, with comparatives",
			args: map[string]any{"ticker": "ACME", "concept": "Revenues", "period": "FY2024"},
			want: []want{
				{"1200000000", "2024-01-01/2024-12-31", "Revenue | 1,200 | 1,000"},
				{"1000000000", "2023-01-01/2023-12-31", "Revenue | 1,200 | 1,000"},
				{"1250000000", "2024-01-01/2024-12-31", "Revenue | 1,250 | 1,000"},
				{"1000000000", "2023-01-01/2023-12-31", "Revenue | 1,250 | 1,000"},
			},
			disagree: true,
		},
		{
			name: "latest annual by label",
			args: map[string]any{"ticker": "acme", "label": "Total Revenues"},
			want: []want{
				{"1200000000", "2024-01-01/2024-12-31", "Revenue | 1,200 | 1,000"},
				{"1000000000", "2023-01-01/2023-12-31", "Revenue | 1,200 | 1,000"},
				{"1250000000", "2024-01-01/2024-12-31", "Revenue | 1,250 | 1,000"},
				{"1000000000", "2023-01-01/2023-12-31", "Revenue | 1,250 | 1,000"},
			},
			disagree: true,
		},
		{
			name: "a year without a filing, from the next year's comparatives",
			args: map[string]any{"ticker": "ACME", "label": "revenue", "period": "FY2023"},
			want: []want{
				{"1000000000", "2023-01-01/2023-12-31", "Revenue | 1,200 | 1,000"},
				{"1000000000", "2023-01-01/2023-12-31", "Revenue | 1,250 | 1,000"},
			},
		},
		{
			name: "instants",
			args: map[string]any{"ticker": "ACME", "concept": "us-gaap:Assets", "period": "FY2024"},
			want: []want{
				{"5000000000", "2024-12-31", "Total assets | 5,000 | 4,500"},
				{"4500000000", "2023-12-31", "Total assets | 5,000 | 4,500"},
			},
		},
		{
			name: "a segment's figure, by its member",
			args: map[string]any{"ticker": "ACME", "concept": "us-gaap:Revenues[acme:WidgetsMember]", "period": "FY2024"},
			want: []want{{"700000000", "2024-01-01/2024-12-31", "Widgets revenue | 700 | 500"}},
		},
		{
			name: "a segment the filing shows nothing for",
			args: map[string]any{"ticker": "ACME", "concept": "us-gaap:Revenues[acme:GadgetsMember]", "period": "FY2024"},
		},
		{
			name: "not found",
			args: map[string]any{"ticker": "ACME", "label": "net income", "period": "FY2024"},
		},
		{
			name: "no filing at all",
			args: map[string]any{"ticker": "ACME", "label": "revenue", "period": "FY2020"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, store, scope)
			out := run(t, env, "l1", LookupFact, tt.args)
			checkRegistered(t, env, out)
			if len(out.Facts) != len(tt.want) {
				t.Fatalf("%d facts, want %d:\n%s", len(out.Facts), len(tt.want), out.Text)
			}
			evidence := map[string]ledger.Evidence{}
			for _, e := range out.Evidence {
				evidence[e.ID] = e
				if e.Kind != ledger.KindFact || e.Ticker != "ACME" || e.Period != "FY2024" || e.Section != "Item 8" {
					t.Errorf("evidence %+v: want a fact of ACME's FY2024 filing in Item 8", e)
				}
			}
			for i, w := range tt.want {
				f := out.Facts[i]
				if f.Value.String() != w.value || f.Period != w.period || f.Unit != "USD" {
					t.Errorf("fact %d = %s %s %s, want %s %s USD", i, f.Value, f.Period, f.Unit, w.value, w.period)
				}
				if got := evidence[f.EvidenceID].Excerpt; got != w.line {
					t.Errorf("fact %d shown on %q, want %q", i, got, w.line)
				}
				if !strings.Contains(out.Text, f.ID) || !strings.Contains(out.Text, f.Value.String()+" USD") {
					t.Errorf("the response does not show fact %s = %s USD:\n%s", f.ID, f.Value, out.Text)
				}
			}
			if got := strings.Contains(out.Text, "disagree"); got != tt.disagree {
				t.Errorf("response says filings disagree: %v, want %v:\n%s", got, tt.disagree, out.Text)
			}
			if len(tt.want) == 0 {
				if len(out.Evidence) != 0 || !strings.Contains(out.Text, "no ") {
					t.Errorf("not found: %d evidence, text %q", len(out.Evidence), out.Text)
				}
				l := load(t, env)
				if len(l.ToolCalls) != 1 || l.ToolCalls[0].Error != "" {
					t.Errorf("a lookup that finds nothing is recorded without error: %+v", l.ToolCalls)
				}
			}
			if out.CandidatesSeen > MaxFactsSeen || (len(tt.want) > 0 && out.CandidatesSeen == 0) {
				t.Errorf("CandidatesSeen = %d", out.CandidatesSeen)
			}
		})
	}
}

func TestLookupFactNotFoundSaysWhatWasTried(t *testing.T) {
	store := newFixtureStore(t, acmeFilings()...)
	env := newEnv(t, store, Scope{Tickers: []string{"ACME"}})
	out := run(t, env, "l1", LookupFact, map[string]any{"ticker": "ACME", "label": "operating income", "period": "FY2024"})
	for _, want := range []string{"us-gaap:OperatingIncomeLoss", "10-K for FY2024", "10-K/A for FY2024"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("response %q does not name %q", out.Text, want)
		}
	}
}

func TestLookupFactKeepsFiscalYearScope(t *testing.T) {
	// FY2023 has no filing; the FY2024 filing showing it is outside the scope.
	store := newFixtureStore(t, acmeFilings()...)
	env := newEnv(t, store, Scope{Tickers: []string{"ACME"}, FiscalYears: []int{2023}})
	out := run(t, env, "l1", LookupFact, map[string]any{"ticker": "ACME", "label": "revenue", "period": "FY2023"})
	if len(out.Evidence) != 0 {
		t.Fatalf("a filing outside the run's fiscal years was read: %+v", out.Evidence)
	}
	_, err := Run(context.Background(), env, Call{ID: "l2", Tool: LookupFact, Args: mustJSON(t, map[string]any{"ticker": "ACME", "label": "revenue", "period": "FY2024"})})
	if !errors.Is(err, ErrOutOfScope) {
		t.Fatalf("lookup of FY2024 in a FY2023 scope: %v", err)
	}
}

func TestCalculateFixtures(t *testing.T) {
	store := newFixtureStore(t, acmeFilings()...)
	env := newEnv(t, store, Scope{Tickers: []string{"ACME"}})
	run(t, env, "l1", LookupFact, map[string]any{"ticker": "ACME", "concept": "Revenues", "period": "FY2024"})
	tests := []struct {
		name  string
		args  map[string]any
		want  string
		text  []string
		input string // the value bound to "now"
	}{
		{
			name: "growth; the 10-K wins over its amendment",
			args: map[string]any{"expression": "(now - before) / before", "facts": map[string]any{
				"now":    map[string]any{"ticker": "ACME", "concept": "Revenues", "period": "FY2024"},
				"before": map[string]any{"ticker": "ACME", "concept": "Revenues", "period": "FY2023"},
			}},
			want:  "0.2",
			input: "1200000000",
			text:  []string{"(now - before) / before = (1200000000 - 1000000000) / 1000000000 = 0.2", "1250000000"},
		},
		{
			name: "no period means the latest held",
			args: map[string]any{"expression": "now * 2", "facts": map[string]any{
				"now": map[string]any{"ticker": "ACME", "concept": "us-gaap:Revenues"},
			}},
			want:  "2400000000",
			input: "1200000000",
		},
		{
			name: "an exact period",
			args: map[string]any{"expression": "now", "facts": map[string]any{
				"now": map[string]any{"ticker": "ACME", "concept": "Revenues", "period": "2023-01-01/2023-12-31"},
			}},
			want:  "1000000000",
			input: "1000000000",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := run(t, env, "c"+string(rune('1'+i)), Calculate, tt.args)
			if out.Calculation == nil || !out.Calculation.Result.Equal(dec(tt.want)) {
				t.Fatalf("calculation %+v, want %s", out.Calculation, tt.want)
			}
			if got := out.Calculation.Values["now"]; got != tt.input {
				t.Errorf("now = %s, want %s", got, tt.input)
			}
			if len(out.Evidence) != 0 || len(out.Facts) != 0 {
				t.Errorf("calculate returned evidence %v, facts %v", out.Evidence, out.Facts)
			}
			for _, s := range tt.text {
				if !strings.Contains(out.Text, s) {
					t.Errorf("response lacks %q:\n%s", s, out.Text)
				}
			}
			// The validator recomputes from the recorded inputs.
			l := load(t, env)
			vars := map[string]decimal.Decimal{}
			for name, v := range out.Calculation.Values {
				vars[name] = dec(v)
			}
			if again, err := Evaluate(out.Calculation.Expression, vars); err != nil || !again.Equal(out.Calculation.Result) {
				t.Errorf("recomputed %v, %v; want %v", again, err, out.Calculation.Result)
			}
			for name, id := range out.Calculation.Inputs {
				found := false
				for _, f := range l.Facts {
					if f.ID == id && f.Value.String() == out.Calculation.Values[name] {
						found = true
					}
				}
				if !found {
					t.Errorf("input %s = fact %s is not a ledger fact of value %s", name, id, out.Calculation.Values[name])
				}
			}
		})
	}
}

func TestLookupFactTableRows(t *testing.T) {
	text := `TXT Corp Annual Report 2022
CONSOLIDATED STATEMENTS OF INCOME (In millions)
Year Ended June 30, 2022 2021
Revenue 198,270 168,088
Net income 72,738 61,271
`
	fx := fixture{ticker: "TXT", form: "10-K", fiscalYear: 2022, periodEnd: "2022-06-30", text: text, facts: []fixtureFact{
		{kind: corpus.FactTable, label: "Revenue", value: "198270000000", unit: "USD", start: "2021-07-01", end: "2022-06-30", line: "Revenue", shown: "198,270"},
		{kind: corpus.FactTable, label: "Revenue", value: "168088000000", unit: "USD", start: "2020-07-01", end: "2021-06-30", line: "Revenue", shown: "168,088"},
		{kind: corpus.FactTable, label: "Net income", value: "72738000000", unit: "USD", start: "2021-07-01", end: "2022-06-30", line: "Net income", shown: "72,738"},
	}}
	store := newFixtureStore(t, fx)
	env := newEnv(t, store, Scope{Tenant: "acme", Tickers: []string{"TXT"}})
	out := run(t, env, "l1", LookupFact, map[string]any{"ticker": "TXT", "concept": "table:Revenue", "period": "FY2022"})
	checkRegistered(t, env, out)
	if len(out.Facts) != 2 {
		t.Fatalf("%d facts, want the year and its comparative:\n%s", len(out.Facts), out.Text)
	}
	for i, want := range []string{"198270000000", "168088000000"} {
		f := out.Facts[i]
		if f.Concept != "table:Revenue" || f.Value.String() != want {
			t.Errorf("fact %d = %s %s, want table:Revenue %s", i, f.Concept, f.Value, want)
		}
	}
	// A tagged concept never reads a table row, nor a row another's.
	out = run(t, env, "l2", LookupFact, map[string]any{"ticker": "TXT", "label": "revenue", "period": "FY2022"})
	if len(out.Facts) != 0 {
		t.Errorf("a lookup by concept read table rows: %+v", out.Facts)
	}
	out = run(t, env, "l3", LookupFact, map[string]any{"ticker": "TXT", "concept": "table:Operating income", "period": "FY2022"})
	if len(out.Facts) != 0 {
		t.Errorf("an absent row found facts: %+v", out.Facts)
	}
}

// A row label printed in the discussion's tables before the statements
// (a stock-based compensation table) is not the statement's figure: the
// statements are read first, in Item 15 where a 10-K's Item 8 refers
// there, and in a 10-Q's Item 1.
func TestLookupFactTableRowOfTheStatements(t *testing.T) {
	tests := []struct {
		form, periodEnd, start, priorStart, priorEnd, statements string
	}{
		{"10-K", "2023-05-31", "2022-06-01", "2021-06-01", "2022-05-31", "Item 15. Exhibits and Financial Statement Schedules"},
		{"10-K", "2023-05-31", "2022-06-01", "2021-06-01", "2022-05-31", "Item 8. Financial Statements and Supplementary Data"},
		{"10-Q", "2023-07-01", "2023-04-02", "2022-03-27", "2022-06-25", "Item 1. Financial Statements"},
	}
	for _, tt := range tests {
		t.Run(tt.form+" "+tt.statements[:7], func(t *testing.T) {
			text := `RD Corp Report
Item 7. Management's Discussion and Analysis
Stock-based compensation was included in the following line items (in millions):
Research and development 1,983 1,633
` + tt.statements + `
CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)
Research and development 8,623 7,219
`
			fx := fixture{ticker: "RD", form: tt.form, fiscalYear: 2023, periodEnd: tt.periodEnd, text: text, facts: []fixtureFact{
				{kind: corpus.FactTable, label: "Research and development", value: "1983000000", unit: "USD", start: tt.start, end: tt.periodEnd, line: "Research and development 1,983", shown: "1,983"},
				{kind: corpus.FactTable, label: "Research and development", value: "1633000000", unit: "USD", start: tt.priorStart, end: tt.priorEnd, line: "Research and development 1,983", shown: "1,633"},
				{kind: corpus.FactTable, label: "Research and development", value: "8623000000", unit: "USD", start: tt.start, end: tt.periodEnd, line: "Research and development 8,623", shown: "8,623"},
				{kind: corpus.FactTable, label: "Research and development", value: "7219000000", unit: "USD", start: tt.priorStart, end: tt.priorEnd, line: "Research and development 8,623", shown: "7,219"},
			}}
			env := newEnv(t, newFixtureStore(t, fx), Scope{Tenant: "acme", Tickers: []string{"RD"}})
			out := run(t, env, "l1", LookupFact, map[string]any{"ticker": "RD", "concept": "table:Research and development", "period": "FY2023"})
			checkRegistered(t, env, out)
			if len(out.Facts) != 2 || out.Facts[0].Value.String() != "8623000000" || out.Facts[1].Value.String() != "7219000000" {
				t.Fatalf("facts %+v; want the statement's 8,623 and its comparative 7,219:\n%s", out.Facts, out.Text)
			}
			// The comparative is named as the period's prior, with no
			// fiscal-year label of its own (a 10-Q's year-ago quarter).
			ref := map[string]any{"ticker": "RD", "concept": "table:Research and development", "period": "FY2023"}
			prior := map[string]any{"ticker": "RD", "concept": "table:Research and development", "period": "FY2023", "prior": true}
			calc := run(t, env, "c1", Calculate, map[string]any{"expression": "rd - rd_prior", "facts": map[string]any{"rd": ref, "rd_prior": prior}})
			if calc.Calculation == nil || calc.Calculation.Result.String() != "1404000000" {
				t.Fatalf("calculation %+v; want 8,623 - 7,219 = 1,404 million:\n%s", calc.Calculation, calc.Text)
			}
		})
	}
}

// A row label printed in several tables ("Foreign" of income before
// taxes and of current taxes) is read, where the lookup names the total
// row it stands above, from that total's table.
func TestLookupFactTableRowAboveItsTotal(t *testing.T) {
	text := `TX Corp Report
Item 8. Financial Statements and Supplementary Data
Current Taxes (in millions)
Foreign 6,672
Income before income taxes were as follows (in millions):
U.S. 47,837
Foreign 35,879
Income before income taxes 83,716
`
	fx := fixture{ticker: "TX", form: "10-K", fiscalYear: 2022, periodEnd: "2022-06-30", text: text, facts: []fixtureFact{
		{kind: corpus.FactTable, label: "Foreign", value: "6672000000", unit: "USD", start: "2021-07-01", end: "2022-06-30", line: "Foreign 6,672", shown: "6,672"},
		{kind: corpus.FactTable, label: "U.S.", value: "47837000000", unit: "USD", start: "2021-07-01", end: "2022-06-30", line: "U.S. 47,837", shown: "47,837"},
		{kind: corpus.FactTable, label: "Foreign", value: "35879000000", unit: "USD", start: "2021-07-01", end: "2022-06-30", line: "Foreign 35,879", shown: "35,879"},
		{kind: corpus.FactTable, label: "Income before income taxes", value: "83716000000", unit: "USD", start: "2021-07-01", end: "2022-06-30", line: "Income before income taxes 83,716", shown: "83,716"},
	}}
	env := newEnv(t, newFixtureStore(t, fx), Scope{Tenant: "acme", Tickers: []string{"TX"}})
	for i, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"ticker": "TX", "concept": "table:Foreign", "period": "FY2022"}, "6672000000"},
		{map[string]any{"ticker": "TX", "concept": "table:Foreign", "period": "FY2022", "above": "table:Income before income taxes"}, "35879000000"},
	} {
		out := run(t, env, fmt.Sprintf("l%d", i), LookupFact, tc.args)
		checkRegistered(t, env, out)
		if len(out.Facts) == 0 || out.Facts[0].Value.String() != tc.want {
			t.Errorf("lookup %v: facts %+v; want %s:\n%s", tc.args, out.Facts, tc.want, out.Text)
		}
	}
	// Above names a table's total for a table row only.
	if _, err := checkLookup(json.RawMessage(`{"ticker":"TX","concept":"us-gaap:Revenues","above":"table:Total"}`), Scope{Tickers: []string{"TX"}}); err == nil {
		t.Error("above accepted for a tagged concept")
	}
}

func TestCheckFigureKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Revenues", "us-gaap:Revenues"},
		{"us-gaap:Revenues[aapl:IPhoneMember]", "us-gaap:Revenues[aapl:IPhoneMember]"},
		{"Revenues[aapl:IPhoneMember]", "us-gaap:Revenues[aapl:IPhoneMember]"},
		{"table: Total net sales ", "table:Total net sales"},
		{"table:", ""},
		{"us-gaap:Revenues[bad member]", ""},
		{"table:a\nb", ""},
		// A part's row of a table (corpus.TablePartAxis).
		{"table:Operating income (loss) [part: Data Center Group ]", "table:Operating income (loss)[part:Data Center Group]"},
		{"table:Net sales[part:]", ""},
		{"table:Net sales[part:a]b]", ""},
		{"table:Net sales [Note 2]", "table:Net sales [Note 2]"},
	}
	for _, tt := range tests {
		got, err := checkFigureKey(LookupFact, "concept", tt.in)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("checkFigureKey(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
}

// FuzzFigureKey checks that a key that passes the check reads back as what
// it names, and that no key panics.
func FuzzFigureKey(f *testing.F) {
	for _, k := range []string{"Revenues", "us-gaap:Revenues[aapl:IPhoneMember]", "table:Total net sales", "x[a,b]", "[", "table:", "a:b[c:d,e:f,g:h]", "table:Net revenue[part:Data Center Group]", "table:a[part:b][part:c]"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		got, err := checkFigureKey(LookupFact, "concept", key)
		if err != nil {
			return
		}
		concept, member, row := SplitFigureKey(got)
		switch {
		case row != "":
			if got != TablePartKey(row, member) {
				t.Fatalf("%q: table key %q does not read back", key, got)
			}
		case got != FigureKey(concept, member):
			t.Fatalf("%q: key %q does not read back (%q, %q)", key, got, concept, member)
		}
		if again, err := checkFigureKey(LookupFact, "concept", got); err != nil || again != got {
			t.Fatalf("%q: the checked key %q does not check again: %q, %v", key, got, again, err)
		}
	})
}

func TestSplitFigureKeyPart(t *testing.T) {
	tests := []struct{ key, member, row string }{
		{"table:Operating income (loss)[part:Data Center Group]", "part:Data Center Group", "Operating income (loss)"},
		{"table:Paid memberships at end of period (1)[part:Asia-Pacific (APAC)]", "part:Asia-Pacific (APAC)", "Paid memberships at end of period (1)"},
		{"table:Net sales [Note 2]", "", "Net sales [Note 2]"},
		{"table:Total net sales", "", "Total net sales"},
	}
	for _, tt := range tests {
		concept, member, row := SplitFigureKey(tt.key)
		if concept != "" || member != tt.member || row != tt.row {
			t.Errorf("SplitFigureKey(%q) = %q, %q, %q; want %q, %q", tt.key, concept, member, row, tt.member, tt.row)
		}
		if TablePartKey(row, member) != tt.key {
			t.Errorf("TablePartKey(%q, %q) = %q", row, member, TablePartKey(row, member))
		}
	}
}

func TestLocalKey(t *testing.T) {
	tests := map[string]string{
		"us-gaap:Revenues":                                              "Revenues",
		"us-gaap:Revenues[aapl:IPhoneMember]":                           "Revenues[IPhoneMember]",
		"us-gaap:Revenues[nflx:StreamingMember,srt:LatinAmericaMember]": "Revenues[StreamingMember,LatinAmericaMember]",
		"table:Net sales: products":                                     "table:Net sales: products",
	}
	for in, want := range tests {
		if got := LocalKey(in); got != want {
			t.Errorf("LocalKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// An income statement prints three years: a year two reports back is the
// comparative's comparative of the later 10-K, and a year three back is
// not found.
func TestLookupFactTwoYearsBack(t *testing.T) {
	store := newFixtureStore(t, fixture{ticker: "TRIO", form: "10-K", fiscalYear: 2024, periodEnd: "2024-12-31", text: `TRIO Corp. Annual Report 2024
Item 8. Financial Statements
Consolidated Statements of Operations (in millions)
Revenue | 1,200 | 1,000 | 900
`, facts: []fixtureFact{
		{concept: "us-gaap:Revenues", value: "1200000000", unit: "USD", start: "2024-01-01", end: "2024-12-31", line: "Revenue | 1,200", shown: "1,200"},
		{concept: "us-gaap:Revenues", value: "1000000000", unit: "USD", start: "2023-01-01", end: "2023-12-31", line: "Revenue | 1,200", shown: "1,000"},
		{concept: "us-gaap:Revenues", value: "900000000", unit: "USD", start: "2022-01-01", end: "2022-12-31", line: "Revenue | 1,200", shown: "900"},
	}})
	scope := Scope{Tenant: "acme", Tickers: []string{"TRIO"}}
	// The year asked first, then the year before it where the filing
	// prints it, each named by its own year.
	tests := []struct {
		period, want, wantPeriod string
		before, beforeNote       string
	}{
		{"FY2023", "1000000000", "2023-01-01/2023-12-31", "900000000", "FY2022, the comparative in the 10-K for FY2024"},
		{"FY2022", "900000000", "2022-01-01/2022-12-31", "", ""},
		{"FY2021", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.period, func(t *testing.T) {
			env := newEnv(t, store, scope)
			out := run(t, env, "l1", LookupFact, map[string]any{"ticker": "TRIO", "concept": "Revenues", "period": tt.period})
			checkRegistered(t, env, out)
			if tt.want == "" {
				if len(out.Facts) != 0 || !strings.Contains(out.Text, "nor an annual filing for FY2022 or FY2023") {
					t.Fatalf("found %d facts; want none, and the response to say what was tried:\n%s", len(out.Facts), out.Text)
				}
				return
			}
			n := 1 + boolInt(tt.before != "")
			if len(out.Facts) != n || out.Facts[0].Value.String() != tt.want || out.Facts[0].Period != tt.wantPeriod {
				t.Fatalf("facts %+v; want %s for %s first, %d in all:\n%s", out.Facts, tt.want, tt.wantPeriod, n, out.Text)
			}
			if tt.before != "" && (out.Facts[1].Value.String() != tt.before || !strings.Contains(out.Text, tt.beforeNote)) {
				t.Fatalf("facts %+v; want the year before, %s, named %q:\n%s", out.Facts, tt.before, tt.beforeNote, out.Text)
			}
		})
	}
}

// A part's row of a table (a segment under its figure's heading) is found
// under its part's key only: the company's row of the same label is not
// the part's, nor the part's the company's.
func TestLookupFactTablePart(t *testing.T) {
	text := `PT Corp Report
Item 8. Financial Statements and Supplementary Data
Operating income (loss):
Data Center Group $ 10,571 $ 10,227
Client Computing Group 15,129 15,202
CONSOLIDATED STATEMENTS OF INCOME (in millions)
Operating income (loss) 23,678 22,035
`
	part := map[string]string{corpus.TablePartAxis: corpus.TablePartMember("Data Center Group")}
	other := map[string]string{corpus.TablePartAxis: corpus.TablePartMember("Client Computing Group")}
	fx := fixture{ticker: "PT", form: "10-K", fiscalYear: 2020, periodEnd: "2020-12-26", text: text, facts: []fixtureFact{
		{kind: corpus.FactTable, label: "Operating income (loss)", dims: part, value: "10571000000", unit: "USD", start: "2019-12-29", end: "2020-12-26", line: "Data Center Group $ 10,571", shown: "10,571"},
		{kind: corpus.FactTable, label: "Operating income (loss)", dims: part, value: "10227000000", unit: "USD", start: "2018-12-30", end: "2019-12-28", line: "Data Center Group $ 10,571", shown: "10,227"},
		{kind: corpus.FactTable, label: "Operating income (loss)", dims: other, value: "15129000000", unit: "USD", start: "2019-12-29", end: "2020-12-26", line: "Client Computing Group 15,129", shown: "15,129"},
		{kind: corpus.FactTable, label: "Operating income (loss)", value: "23678000000", unit: "USD", start: "2019-12-29", end: "2020-12-26", line: "Operating income (loss) 23,678", shown: "23,678"},
		{kind: corpus.FactTable, label: "Operating income (loss)", value: "22035000000", unit: "USD", start: "2018-12-30", end: "2019-12-28", line: "Operating income (loss) 23,678", shown: "22,035"},
	}}
	env := newEnv(t, newFixtureStore(t, fx), Scope{Tenant: "acme", Tickers: []string{"PT"}})
	tests := []struct{ key, want, prior string }{
		{"table:Operating income (loss)[part:Data Center Group]", "10571000000", "10227000000"},
		{"table:Operating income (loss)", "23678000000", "22035000000"},
	}
	for i, tt := range tests {
		out := run(t, env, "l"+strconv.Itoa(i), LookupFact, map[string]any{"ticker": "PT", "concept": tt.key, "period": "FY2020"})
		checkRegistered(t, env, out)
		if len(out.Facts) != 2 || out.Facts[0].Value.String() != tt.want || out.Facts[1].Value.String() != tt.prior {
			t.Errorf("%s: facts %+v; want %s and its comparative %s:\n%s", tt.key, out.Facts, tt.want, tt.prior, out.Text)
		}
	}
}

// A row of a table titled by a part is stored plain as well as the
// part's; asked for the company's row, the lookup reads the company's
// table, not the part's plain copy, even where the part's table is in the
// statements and the company's in the discussion.
func TestLookupFactPartTableNotTheCompanys(t *testing.T) {
	text := `PT Corp Report
Item 7. Management's Discussion and Analysis
Paid memberships at end of period 230,747 221,844
Item 8. Financial Statements and Supplementary Data
United States and Canada (UCAN)
Paid memberships at end of period 74,296 75,215
`
	part := map[string]string{corpus.TablePartAxis: corpus.TablePartMember("United States and Canada (UCAN)")}
	fx := fixture{ticker: "PT", form: "10-K", fiscalYear: 2022, periodEnd: "2022-12-31", text: text, facts: []fixtureFact{
		{kind: corpus.FactTable, label: "Paid memberships at end of period", value: "74296000", unit: "pure", end: "2022-12-31", line: "Paid memberships at end of period 74,296", shown: "74,296"},
		{kind: corpus.FactTable, label: "Paid memberships at end of period", dims: part, value: "74296000", unit: "pure", end: "2022-12-31", line: "Paid memberships at end of period 74,296", shown: "74,296"},
		{kind: corpus.FactTable, label: "Paid memberships at end of period", value: "230747000", unit: "pure", end: "2022-12-31", line: "Paid memberships at end of period 230,747", shown: "230,747"},
	}}
	env := newEnv(t, newFixtureStore(t, fx), Scope{Tenant: "acme", Tickers: []string{"PT"}})
	out := run(t, env, "l0", LookupFact, map[string]any{"ticker": "PT", "concept": "table:Paid memberships at end of period", "period": "FY2022"})
	if len(out.Facts) == 0 || out.Facts[0].Value.String() != "230747000" {
		t.Errorf("facts %+v; want the company's 230,747 thousand:\n%s", out.Facts, out.Text)
	}
}

// A row the statement of cash flows opens with ("Net income (loss)"),
// printed first by a filer that puts that statement first, is cited from
// the statement of operations.
func TestLookupFactStatementOfOperationsFirst(t *testing.T) {
	text := `PT Corp Report
Item 8. Financial Statements and Supplementary Data
CONSOLIDATED STATEMENTS OF CASH FLOWS (in millions)
Net income (loss) 33,364 (2,722)
CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)
Net income (loss) $ 33,364 $ (2,722)
`
	fx := fixture{ticker: "PT", form: "10-K", fiscalYear: 2022, periodEnd: "2022-12-31", text: text, facts: []fixtureFact{
		{kind: corpus.FactTable, label: "Net income (loss)", value: "-2722000000", unit: "USD", start: "2022-01-01", end: "2022-12-31", line: "Net income (loss) 33,364 (2,722)", shown: "(2,722)"},
		{kind: corpus.FactTable, label: "Net income (loss)", value: "-2722000000", unit: "USD", start: "2022-01-01", end: "2022-12-31", line: "Net income (loss) $ 33,364 $ (2,722)", shown: "(2,722)"},
	}}
	env := newEnv(t, newFixtureStore(t, fx), Scope{Tenant: "acme", Tickers: []string{"PT"}})
	out := run(t, env, "l0", LookupFact, map[string]any{"ticker": "PT", "concept": "table:Net income (loss)", "period": "FY2022"})
	if len(out.Evidence) == 0 || !strings.Contains(out.Evidence[0].Excerpt, "$") {
		t.Errorf("evidence %+v; want the statement of operations' row:\n%s", out.Evidence, out.Text)
	}
}

// A row label printed in a table of balances too ("Hardware" among
// deferred revenues) is read as the period's figure where a flow is asked,
// never as the balance; asked as it is, the balance at the period's end is
// still found.
func TestLookupFactFlowSkipsBalances(t *testing.T) {
	text := `TXT Corp Annual Report 2023
Revenues by offering (In millions)
Year Ended May 31, 2023 2022
Hardware 3,274 3,183
Deferred revenues (In millions)
May 31, 2023 2022
Hardware 535 555
`
	fx := fixture{ticker: "TXT", form: "10-K", fiscalYear: 2023, periodEnd: "2023-05-31", text: text, facts: []fixtureFact{
		{kind: corpus.FactTable, label: "Hardware", value: "535000000", unit: "USD", end: "2023-05-31", line: "Hardware 535", shown: "535"},
		{kind: corpus.FactTable, label: "Hardware", value: "3274000000", unit: "USD", start: "2022-06-01", end: "2023-05-31", line: "Hardware 3,274", shown: "3,274"},
	}}
	env := newEnv(t, newFixtureStore(t, fx), Scope{Tenant: "acme", Tickers: []string{"TXT"}})
	out := run(t, env, "l1", LookupFact, map[string]any{"ticker": "TXT", "concept": "table:Hardware", "period": "FY2023", "flow": true})
	if len(out.Facts) == 0 || out.Facts[0].Value.String() != "3274000000" {
		t.Fatalf("flow: facts %+v, want the year's 3,274", out.Facts)
	}
	out = run(t, env, "l2", LookupFact, map[string]any{"ticker": "TXT", "concept": "table:Hardware", "period": "FY2023"})
	if len(out.Facts) == 0 || out.Facts[0].Value.String() != "535000000" {
		t.Errorf("no flow asked: facts %+v, want the balance 535 (an instant of the period's end comes first)", out.Facts)
	}
}

// Of two facts of one concept for the same period, the one stated more
// precisely is read: a table's "23,248,931" (in thousands) over a
// sentence's "$23.2 billion".
func TestNearestPrefersPrecision(t *testing.T) {
	end := time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)
	facts := []corpus.Fact{
		{Kind: corpus.FactXBRL, Concept: "us-gaap:PurchaseObligation", Value: decimal.RequireFromString("23200000000"), Decimals: "-8", PeriodEnd: end, Instant: true, Start: 10, End: 20},
		{Kind: corpus.FactXBRL, Concept: "us-gaap:PurchaseObligation", Value: decimal.RequireFromString("23248931000"), Decimals: "-3", PeriodEnd: end, Instant: true, Start: 50, End: 60},
	}
	got := nearest(facts, "us-gaap:PurchaseObligation", end, func(f *corpus.Fact) (int, bool) { return 0, true })
	if got == nil || got.Value.String() != "23248931000" {
		t.Errorf("nearest = %+v, want the fact stated to thousands", got)
	}
}
