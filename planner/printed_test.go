package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/contract"
	"github.com/ledgerline/research/ledger"
)

// TestPrintedLine: the line of a filing that prints a computed ratio is
// one that names it (or its numerator) and shows the result at the digits
// it prints, with a percent sign or under a caption stating percentages;
// an amount, part of a larger number, a neighbouring value or a line naming
// something else is not.
func TestPrintedLine(t *testing.T) {
	t.Parallel()
	margin := []string{"operating margin", "income from operations"}
	rd := []string{"r&d", "research and development"}
	for _, tt := range []struct {
		name    string
		excerpt string
		names   []string
		result  string
		line    string // "" when none prints it
		printed string
	}{
		{"a ratio row of a segment table", "Revenue | 162,355 | 133,006 | 22%\nOperating margin | 54% | 47% | (826)% | (850)% | 42% | 35%", margin, "0.42176",
			"Operating margin | 54% | 47% | (826)% | (850)% | 42% | 35%", "42%"},
		{"a negative ratio in parentheses", "Operating margin | 54% | 47% | (826)% | (850)% | 42% | 35%", margin, "-8.2615",
			"Operating margin | 54% | 47% | (826)% | (850)% | 42% | 35%", "(826)%"},
		{"a row of a table stated as a percentage of revenue", "The following table sets forth our consolidated statements of income data (as a percentage of revenue):\nRevenue | 100% | 100%\nIncome from operations | 42 | 35 | 25", margin, "0.42176",
			"Income from operations | 42 | 35 | 25", "42%"},
		{"the same row under no such caption", "Income from operations | 42 | 35 | 25", margin, "0.42176", "", ""},
		{"a share row under the numerator's row", "Research and development expenses | 7,339 | 5,268 | 2,071 | 39%\n% of revenue | 27.2% | 19.6%", rd, "0.27208",
			"% of revenue | 27.2% | 19.6%", "27.2%"},
		{"a converted table's spaced percent sign", "Research and development 13,556 17.4 % 13,362 18.6 % 13,543 19.1 %", rd, "0.17409",
			"Research and development 13,556 17.4 % 13,362 18.6 % 13,543 19.1 %", "17.4%"},
		{"a sentence", "Our operating margin was 42.2% in 2024, up from 34.7% in 2023.", margin, "0.42176",
			"Our operating margin was 42.2% in 2024, up from 34.7% in 2023.", "42.2%"},
		{"digits of a larger amount", "Income from operations | 69,380 | 46,751", margin, "0.69", "", ""},
		{"dollars", "Operating margin expanded; income from operations was $42 million.", margin, "0.42176", "", ""},
		{"another value", "Operating margin | 43% | 35%", margin, "0.42176", "", ""},
		{"a line naming another figure", "Effective tax rate | 42% | 35%", margin, "0.42176", "", ""},
		{"a part's growth under a caption of growth rates", "Net sales:\nCloud 62,202 80,096\nYear-over-year Percentage Growth (Decline):\nRetail 18 % 13 %\nCloud 37 29", []string{"cloud"}, "0.28767",
			"Cloud 37 29", "29%"},
	} {
		line, printed, ok := PrintedLine(tt.excerpt, tt.names, decimal.RequireFromString(tt.result))
		if line != tt.line || printed != tt.printed || ok != (tt.line != "") {
			t.Errorf("%s: PrintedLine = %q, %q, %v; want %q, %q", tt.name, line, printed, ok, tt.line, tt.printed)
		}
	}
}

// TestCheckPrinted: a printed requirement is met by a passage of its
// issuer and period printing the calculation's result, naming the ratio
// or the row label the filing prints beside the numerator's figure.
func TestCheckPrinted(t *testing.T) {
	t.Parallel()
	req := Requirement{ID: "ACME-FY2024-operating_margin-calculation-printed", Issuer: "ACME", Period: "FY2024", Kind: KindFigure,
		Completion: Condition{Kind: CondPrinted, Issuer: "ACME", Period: "FY2024", AllOf: [][]string{{"operating margin"}}, Of: []string{"ACME-FY2024-operating_margin-calculation"}}}
	calc := &contract.Calculation{Expression: "operating_income / revenue", Inputs: map[string]string{"operating_income": "F1", "revenue": "F2"}, Result: decimal.RequireFromString("0.4218")}
	led := func(passage string) *ledger.RunLedger {
		return &ledger.RunLedger{
			Requirements: []ledger.Requirement{{ID: req.ID, Evidence: []string{"E3", "E4"}}},
			Evidence: []ledger.Evidence{
				{ID: "E1", Kind: ledger.KindFact, Ticker: "ACME", Period: "FY2024", Excerpt: "Income from operations | 69,380 | 46,751"},
				{ID: "E2", Kind: ledger.KindFact, Ticker: "ACME", Period: "FY2024", Excerpt: "Revenue | 164,501 | 134,902"},
				{ID: "E3", Kind: ledger.KindPassage, Ticker: "OTHR", Period: "FY2024", Excerpt: "Operating margin | 42% | 35%"},
				{ID: "E4", Kind: ledger.KindPassage, Ticker: "ACME", Period: "FY2024", Excerpt: passage},
			},
			Facts: []ledger.Fact{{ID: "F1", EvidenceID: "E1"}, {ID: "F2", EvidenceID: "E2"}},
		}
	}
	for _, tt := range []struct {
		passage string
		want    []string
	}{
		{"Operating margin | 42% | 35%", []string{"E4"}},
		{"(as a percentage of revenue)\nIncome from operations | 42 | 35", []string{"E4"}}, // the numerator's printed label
		{"(as a percentage of revenue)\nRevenue | 42 | 35", nil},                           // the denominator's is not
		{"Operating margin | 41% | 35%", nil},
	} {
		ids, ok := CheckPrinted(req, led(tt.passage), calc)
		if !slices.Equal(ids, tt.want) || ok != (tt.want != nil) {
			t.Errorf("%q: CheckPrinted = %v, %v; want %v", tt.passage, ids, ok, tt.want)
		}
	}
	if _, ok := CheckPrinted(req, led("Operating margin | 42% | 35%"), nil); ok {
		t.Error("met without a calculation")
	}
}

// TestPlanPrinted: a ratio asked is computed and also searched for as the
// filing prints it, an optional requirement built on the calculation;
// a ratio the filing labels itself is read as reported instead.
func TestPlanPrinted(t *testing.T) {
	t.Parallel()
	g := planOf(t, "What was TXTF's operating margin in fiscal 2022?", "TXTF")
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Completion.Kind == CondPrinted })
	if i < 0 {
		t.Fatalf("requirements %v: no printed operating margin", reqIDs(g))
	}
	r := g.Requirements[i]
	if r.Required || len(r.Completion.Of) != 1 || r.ID != PrintedID(r.Completion.Of[0]) || !slices.Contains(r.Completion.AllOf[0], "operating margin") {
		t.Errorf("printed requirement %+v: want optional, built on its calculation, naming the operating margin", r)
	}
	if !slices.ContainsFunc(g.Nodes, func(n Node) bool { return n.Tool == "search_filings" && slices.Contains(n.Serves, r.ID) }) {
		t.Errorf("no search serves %s", r.ID)
	}
	// The gross margin the margins aspect computes is looked for as
	// printed too, in the discussion of results.
	cat := smallCatalog()
	cat.SetFigures("n23", []FigureEntry{
		{Key: "us-gaap:Revenues", Concept: "us-gaap:Revenues", Label: "Revenue", Money: true},
		{Key: "us-gaap:CostOfRevenue", Concept: "us-gaap:CostOfRevenue", Label: "Cost of revenue", Money: true},
	})
	for _, q := range []string{"What was NVIDIA's gross margin in fiscal 2023?", "NVIDIA's gross margin fell in fiscal 2023. What was it and why?"} {
		_, g := planFor(t, cat, q, 0)
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Completion.Kind == CondPrinted })
		if i < 0 {
			t.Fatalf("%q: requirements %v: no printed gross margin", q, reqIDs(g))
		}
		r := g.Requirements[i]
		if r.Required || !slices.Contains(r.Completion.AllOf[0], "gross margin") {
			t.Errorf("%q: printed requirement %+v: want optional, naming the gross margin", q, r)
		}
		if !slices.ContainsFunc(g.Nodes, func(n Node) bool {
			return n.Tool == "search_filings" && slices.Contains(n.Serves, r.ID) && strings.Contains(string(n.Args), `"section":"Item 7"`)
		}) {
			t.Errorf("%q: no search of the discussion serves %s", q, r.ID)
		}
	}
	g = planOf(t, "What was TXTF's effective tax rate in fiscal 2022?", "TXTF")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Completion.Kind == CondFact && !r.Required }) {
		t.Fatalf("requirements %v: the effective tax rate is not read as reported", reqIDs(g))
	}
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Completion.Kind == CondPrinted }) {
		t.Errorf("requirements %v: a printed effective tax rate beside the reported one", reqIDs(g))
	}
}
