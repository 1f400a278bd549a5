package planner

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// figureCatalog is a catalog of two filings whose figures and members it
// knows, as the executor gives them: an inline-XBRL 10-K of an issuer
// with two segments and a product, and a text 10-K with table rows.
func figureCatalog(t *testing.T) *Catalog {
	t.Helper()
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	cat := NewCatalog([]corpus.Document{
		{ID: "x24", Ticker: "XMPL", Company: "Example Cloud, Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-12-31"),
			Format: corpus.FormatHTML, Entity: corpus.Entity{Registrant: "EXAMPLE CLOUD, INC.", Symbols: []string{"XMPL"},
				Members: []string{"us-gaap:ProductMember", "xmpl:ExampleWebServicesSegmentMember", "xmpl:RetailStoresSegmentMember", "xmpl:IWidgetMember", "xmpl:ChinaIncludingHongKongMember"}}},
		{ID: "x25q", Ticker: "XMPL", Company: "Example Cloud, Inc.", Form: "10-Q", FiscalYear: 2025, PeriodEnd: day("2025-06-30"), Format: corpus.FormatHTML},
		{ID: "g22", Ticker: "GPRO", Company: "Gross Printer Corp", Form: "10-K", FiscalYear: 2022, PeriodEnd: day("2022-12-31"), Format: corpus.FormatText},
		{ID: "t22", Ticker: "TXTF", Company: "Text Filer Corp", Form: "10-K", FiscalYear: 2022, PeriodEnd: day("2022-06-30"), Format: corpus.FormatText},
	})
	fact := func(concept, label, member string) corpus.Fact {
		f := corpus.Fact{Kind: corpus.FactXBRL, Concept: concept, Label: label, Value: decimal.NewFromInt(1), Start: 1, End: 2}
		if member != "" {
			f.Dimensions = map[string]string{"us-gaap:StatementBusinessSegmentsAxis": member}
		}
		return f
	}
	pair := func(concept, label, product, region string) corpus.Fact {
		f := fact(concept, label, "")
		f.Dimensions = map[string]string{"srt:ProductOrServiceAxis": product, "srt:StatementGeographicalAxis": region}
		return f
	}
	seg := func(concept, label, axis, member string) corpus.Fact {
		f := fact(concept, label, "")
		f.Dimensions = map[string]string{axis: member}
		return f
	}
	cat.SetFigures("x24", FigureEntries([]corpus.Fact{
		seg("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "Services", "srt:ProductOrServiceAxis", "us-gaap:ServiceMember"),
		seg("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "Automotive", "xmpl:MarketAxis", "xmpl:AutomotiveMember"),
		seg("us-gaap:OperatingIncomeLoss", "Compute & Networking", "us-gaap:StatementBusinessSegmentsAxis", "xmpl:ComputeAndNetworkingMember"),
		seg("us-gaap:StockholdersEquity", "Retained earnings", "us-gaap:StatementEquityComponentsAxis", "us-gaap:RetainedEarningsMember"),
		pair("us-gaap:Revenues", "Streaming revenues", "xmpl:StreamingMember", "srt:LatinAmericaMember"),
		pair("us-gaap:Revenues", "Streaming revenues", "xmpl:StreamingMember", "us-gaap:EMEAMember"),
		pair("us-gaap:Revenues", "Advertising", "us-gaap:AdvertisingMember", "xmpl:FamilyOfWidgetsMember"),
		fact("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "Total net sales", ""),
		fact("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "Net sales", "xmpl:ExampleWebServicesSegmentMember"),
		fact("us-gaap:OperatingIncomeLoss", "Operating income", ""),
		fact("us-gaap:OperatingIncomeLoss", "Operating income", "xmpl:ExampleWebServicesSegmentMember"),
		fact("xmpl:ResearchAndDevelopmentCosts", "Research and development", ""),
		fact("us-gaap:CashAndCashEquivalentsAtCarryingValue", "Cash and cash equivalents", ""),
		fact("us-gaap:EarningsPerShareDiluted", "Diluted earnings per share", ""),
		fact("xmpl:PaidMemberships", "Paid memberships at end of period", ""),
	}))
	cat.SetFigures("x25q", FigureEntries([]corpus.Fact{
		fact("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "Total net sales", ""),
		fact("us-gaap:CashAndCashEquivalentsAtCarryingValue", "Cash and cash equivalents", ""),
	}))
	cat.SetFigures("g22", FigureEntries([]corpus.Fact{
		{Kind: corpus.FactTable, Label: "Total revenues", Value: decimal.NewFromInt(9), Start: 1, End: 2},
		{Kind: corpus.FactTable, Label: "Gross profit", Value: decimal.NewFromInt(7), Start: 3, End: 4},
	}))
	cat.SetFigures("t22", FigureEntries([]corpus.Fact{
		{Kind: corpus.FactTable, Label: "Revenue", Value: decimal.NewFromInt(5), Start: 1, End: 2},
		{Kind: corpus.FactTable, Label: "Total cost of revenue", Value: decimal.NewFromInt(2), Start: 3, End: 4},
		{Kind: corpus.FactTable, Label: "Operating income", Value: decimal.NewFromInt(1), Start: 5, End: 6},
		{Kind: corpus.FactTable, Label: "Interest expense", Value: decimal.NewFromInt(1), Start: 7, End: 8},
		{Kind: corpus.FactTable, Label: "Gross margin percentage", Value: decimal.NewFromInt(60), Start: 9, End: 10},
		{Kind: corpus.FactTable, Label: "Mobileye", Value: decimal.NewFromInt(3), Start: 11, End: 12},
		{Kind: corpus.FactTable, Label: "Effective tax rate", Value: decimal.NewFromInt(21), Start: 13, End: 14},
		{Kind: corpus.FactTable, Label: "Earnings per share—basic", Value: decimal.NewFromInt(5), Start: 15, End: 16},
		{Kind: corpus.FactTable, Label: "Earnings per share—diluted", Value: decimal.NewFromInt(4), Start: 17, End: 18},
		{Kind: corpus.FactTable, Label: "Order backlog", Value: decimal.NewFromInt(8), Start: 19, End: 20},
	}))
	return cat
}

func TestFindFigures(t *testing.T) {
	tests := []struct {
		q    string
		want []string // metric or derived names, in order
	}{
		{"What was Apple's operating margin in fiscal 2024?", []string{"operating_margin"}},
		{"diluted EPS and free cash flow for nflx in 2022", []string{"eps_diluted", "free_cash_flow"}},
		{"How much cash and cash equivalents did Meta hold at year end?", []string{"cash"}},
		{"What was R&D as a percentage of revenue for NVIDIA?", []string{"rd_intensity"}},
		{"Compare SG&A as a share of revenue at Walmart and Costco", []string{"sga_intensity"}},
		{"What was the effective tax rate?", []string{"effective_tax_rate"}},
		{"What share of revenue did NVDA spend on R&D in FY23?", []string{"rd_expense_to_revenue"}},
		{"stock-based compensation relative to revenue", []string{"sbc_to_revenue"}},
		// "capex as a percentage of sales", its words in order with
		// "percent" for "percentage".
		{"capex as % of sales", []string{"capex_intensity"}},
		{"How much cash did GOOGL generate from operating activities in 2024?", []string{"operating_cash_flow"}},
		{"NFLX op margin expanded in 2024", []string{"operating_margin"}},
		// A name of two words is found only as written: "net sales and
		// income" names no net income.
		{"Why did net sales and income fall?", []string{"revenue"}},
		{"AAPL R&D as a % of revenue FY24", []string{"rd_intensity"}},
		// the amount per share, not the cash paid in total
		{"Walmart fiscal 2022 dividends paid per share?", []string{"dividends_per_share"}},
		{"How much did Apple pay in dividends in fiscal 2024?", []string{"dividends"}},
		{"Oracle FY2023 total debt?", []string{"total_debt"}},
		{"R&D intensity: give the R&D expense and R&D as a percent of revenue", []string{"rd_expense", "rd_intensity"}},
		{"other bets operating loss 2024", []string{"operating_income"}},
		{"Why did gross margin fall?", nil},
		// A bare "margin" joined to an income figure is that income's
		// margin, not the gross margin it names alone.
		{"Amazon 2024 AWS operating income and margin?", []string{"operating_income", "operating_margin"}},
		{"AAPL FY22 net income & margins", []string{"net_income", "net_margin"}},
		{"Costco's operating income and gross margin", []string{"operating_income"}},
		// A one-word name before another figure's name qualifies it.
		{"How much did Apple pay in cash dividends in 2022?", []string{"dividends"}},
		{"Amazon (cash capex, net of proceeds)", []string{"capex"}},
		{"What were total sales?", []string{"revenue"}},
		{"How much cash did XMPL have in June?", []string{"cash"}},
		{"Why did sales and cash flow fall?", nil},
		// A margin of free cash flow is its own ratio, not free cash flow.
		{"INTC 2020 FCF margin?", []string{"free_cash_flow_margin"}},
		{"What was Intel's free cash flow margin in 2020?", []string{"free_cash_flow_margin"}},
	}
	for _, tt := range tests {
		var got []string
		for _, a := range FindFigures(tt.q) {
			got = append(got, a.Metric+a.Derived)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("FindFigures(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestSplitCamelWordsAndSegmentName(t *testing.T) {
	tests := map[string]string{
		"xmpl:ExampleWebServicesSegmentMember":   "Example Web Services",
		"aapl:IPhoneMember":                      "iPhone",
		"aapl:WearablesHomeandAccessoriesMember": "Wearables Homeand Accessories",
		"goog:YouTubeAdvertisingRevenueMember":   "You Tube Advertising Revenue",
		"us-gaap:ProductMember":                  "",
		"srt:AmericasMember":                     "",
		"meta:RealityLabsMember":                 "Reality Labs",
	}
	for member, want := range tests {
		if got := segmentName(member); got != want {
			t.Errorf("segmentName(%q) = %q, want %q", member, got, want)
		}
	}
}

func TestSegmentsIn(t *testing.T) {
	cat := figureCatalog(t)
	tests := []struct {
		q    string
		want []string
	}{
		{"What was Example Web Services operating income in 2024?", []string{"Example Web Services"}},
		{"What was EWS revenue?", []string{"Example Web Services"}},
		{"ews revenue", nil},
		{"How many iWidgets were sold?", []string{"iWidget"}},
		{"Describe the retail stores segment", []string{"Retail Stores"}},
		{"What was revenue?", nil},
		{"iwidget unit sales", []string{"iWidget"}},
		{"How much did XMPL make from Services?", []string{"Services"}},
		{"services revenue", []string{"Services"}},
		{"what services does it offer", nil},
		{"automotive revenue in 2024", []string{"Automotive"}},
		{"the automotive industry", nil},
		{"Compute & Networking operating income", []string{"Compute & Networking"}},
		{"compute and networking", []string{"Compute & Networking"}},
		{"retained earnings", nil},
		// A name that says what it takes in is named by its head.
		{"What share of XMPL's 2024 revenue came from China?", []string{"China"}},
		{"Hong Kong revenue", nil},
		// A part named as included in the total asked is no part asked.
		{"XMPL capex for 2024, total company incl. Example Web Services?", nil},
		{"Consolidated revenue including Retail Stores", nil},
		{"Retail Stores revenue, including online sales", []string{"Retail Stores"}},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range cat.SegmentsIn(tt.q, "XMPL") {
			got = append(got, s.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("SegmentsIn(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestResolveMetric(t *testing.T) {
	cat := figureCatalog(t)
	metric := func(n string) tools.Metric { m, _ := tools.MetricByName(n); return m }
	tests := []struct {
		doc, metric, member string
		want                string // "" for none
	}{
		{"x24", "revenue", "", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"},
		{"x24", "revenue", "xmpl:ExampleWebServicesSegmentMember", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax[xmpl:ExampleWebServicesSegmentMember]"},
		{"x24", "revenue", "xmpl:RetailStoresSegmentMember", ""},
		{"x24", "operating_income", "", "us-gaap:OperatingIncomeLoss"},
		{"x24", "eps_diluted", "", "us-gaap:EarningsPerShareDiluted"},
		{"x24", "rd_expense", "", "xmpl:ResearchAndDevelopmentCosts"},
		{"x24", "capex", "", ""},
		{"t22", "revenue", "", "table:Revenue"},
		{"t22", "cost_of_revenue", "", "table:Total cost of revenue"},
		{"t22", "net_income", "", ""},
		// The row holding the metric's whole name in another order, not
		// the shorter one holding an alias ("earnings per share").
		{"t22", "eps_diluted", "", "table:Earnings per share—diluted"},
		{"t22", "eps_basic", "", "table:Earnings per share—basic"},
	}
	for _, tt := range tests {
		got, ok := cat.ResolveMetric(tt.doc, metric(tt.metric), tt.member, "")
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ResolveMetric(%s, %s, %q) = %q, %v, want %q", tt.doc, tt.metric, tt.member, got, ok, tt.want)
		}
	}
}

// planOf routes and plans a question over the figure catalog.
func planOf(t *testing.T, q string, tickers ...string) *Graph {
	t.Helper()
	cat := figureCatalog(t)
	rt := RouteQuestion(q, cat, tickers)
	g, err := (&RulesPlanner{}).Plan(context.Background(), q, rt, cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(g, Limits{}); err != nil {
		t.Fatalf("plan of %q does not validate: %v", q, err)
	}
	return g
}

// lookups returns the figure keys a graph's lookup_fact nodes look up.
func lookups(t *testing.T, g *Graph) []string {
	var keys []string
	for _, n := range g.Nodes {
		if n.Tool != tools.LookupFact {
			continue
		}
		var a tools.LookupFactArgs
		if err := json.Unmarshal(n.Args, &a); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, a.Concept+a.Label+" "+a.Period)
	}
	return keys
}

func TestPlanDerivedFigure(t *testing.T) {
	g := planOf(t, "What was XMPL's operating margin in fiscal 2024?")
	keys := lookups(t, g)
	for _, want := range []string{"us-gaap:OperatingIncomeLoss FY2024", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax FY2024"} {
		if !slices.Contains(keys, want) {
			t.Errorf("lookups %q lack %q", keys, want)
		}
	}
	var calc *Requirement
	for i, r := range g.Requirements {
		if r.Kind == KindCalculation {
			calc = &g.Requirements[i]
		}
		if r.Kind == KindExplanation && r.Required {
			t.Errorf("a figure question requires a passage: %+v", r)
		}
	}
	if calc == nil || calc.Completion.Topic != "operating margin" || !calc.Required {
		t.Fatalf("no required operating margin calculation: %+v", g.Requirements)
	}
	for _, n := range g.Nodes {
		if n.Tool == tools.Calculate && !strings.Contains(string(n.Args), "operating_income / revenue") {
			t.Errorf("calculate node %s", n.Args)
		}
	}
}

func TestPlanSegmentFigureNeverCompanyWide(t *testing.T) {
	g := planOf(t, "What was Example Web Services revenue in 2024?", "XMPL")
	keys := lookups(t, g)
	want := "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax[xmpl:ExampleWebServicesSegmentMember] FY2024"
	if !slices.Contains(keys, want) {
		t.Errorf("lookups %q lack the segment's %q", keys, want)
	}
	for _, k := range keys {
		if !strings.Contains(k, "[") {
			t.Errorf("a segment question looks up the company-wide %q", k)
		}
	}
	// A segment the filing shows no figure for is looked up under its
	// member all the same, so the gap names it.
	g = planOf(t, "What was Retail Stores operating income in 2024?", "XMPL")
	for _, k := range lookups(t, g) {
		if !strings.Contains(k, "xmpl:RetailStoresSegmentMember") {
			t.Errorf("lookup %q is not the Retail Stores segment's", k)
		}
	}
}

func TestPlanTableFigures(t *testing.T) {
	g := planOf(t, "What was TXTF's revenue in fiscal 2022?")
	keys := lookups(t, g)
	if !slices.Contains(keys, "table:Revenue FY2022") {
		t.Errorf("lookups %q lack the table row", keys)
	}
}

func TestPlanPeriodsOfFigures(t *testing.T) {
	// A balance "now" is the latest balance sheet, a 10-Q's included.
	g := planOf(t, "How much cash and cash equivalents does XMPL have?")
	if keys := lookups(t, g); !slices.Equal(keys, []string{"us-gaap:CashAndCashEquivalentsAtCarryingValue FY2025"}) {
		t.Errorf("cash now: lookups %q, want the FY2025 10-Q's balance", keys)
	}
	// A flow "latest" is the latest annual report.
	g = planOf(t, "What was XMPL's diluted EPS?")
	if keys := lookups(t, g); !slices.Equal(keys, []string{"us-gaap:EarningsPerShareDiluted FY2024"}) {
		t.Errorf("EPS: lookups %q, want the FY2024 10-K's", keys)
	}
	// A quarterly report's year to date.
	g = planOf(t, "What were XMPL's net sales for the first nine months of fiscal 2025?")
	ytd := false
	for _, n := range g.Nodes {
		var a tools.LookupFactArgs
		if n.Tool == tools.LookupFact && json.Unmarshal(n.Args, &a) == nil && a.YearToDate {
			ytd = true
		}
	}
	if !ytd {
		t.Errorf("nine months: no year-to-date lookup in %+v", g.Nodes)
	}
}

func TestPlanPartsWithinParts(t *testing.T) {
	tests := []struct {
		q, want string
	}{
		// Named alone, a part tagged only within one other is that figure.
		{"How much advertising revenue did XMPL report in 2024?", "us-gaap:Revenues[us-gaap:AdvertisingMember,xmpl:FamilyOfWidgetsMember] FY2024"},
		// Both parts named: the figure of both.
		{"XMPL streaming revenue from Latin America in 2024", "us-gaap:Revenues[srt:LatinAmericaMember,xmpl:StreamingMember] FY2024"},
		// A part tagged within several others is not guessed: the lookup
		// names the part alone, and finds nothing.
		{"XMPL streaming revenue in 2024", "us-gaap:Revenues[xmpl:StreamingMember] FY2024"},
	}
	for _, tt := range tests {
		g := planOf(t, tt.q, "XMPL")
		if keys := lookups(t, g); !slices.Contains(keys, tt.want) {
			t.Errorf("%q: lookups %q lack %q", tt.q, keys, tt.want)
		}
	}
}

func TestPlanPhraseFigure(t *testing.T) {
	g := planOf(t, "How many paid memberships did XMPL have at the end of 2024?")
	if keys := lookups(t, g); !slices.Contains(keys, "xmpl:PaidMemberships FY2024") {
		t.Errorf("lookups %q lack the paid memberships fact", keys)
	}
	// A figure no filing labels: a sentence stating it, or a gap that
	// names it, never a passage on the question's words alone.
	g = planOf(t, "How many warehouses did XMPL open in 2024?")
	if keys := lookups(t, g); len(keys) != 0 {
		t.Errorf("a figure no filing reports was looked up: %q", keys)
	}
	if len(g.Requirements) != 1 {
		t.Fatalf("requirements %+v; want the one figure asked", g.Requirements)
	}
	r := g.Requirements[0]
	last := r.Completion.AllOf[len(r.Completion.AllOf)-1]
	if !r.Required || r.Kind != KindFigure || r.Completion.Kind != CondPassage || len(last) != 1 || last[0] != NumberTerm+"warehouses" {
		t.Errorf("requirement %+v; want a required passage stating the number of warehouses", r)
	}
}

// FuzzFindFigures reads any question without panicking, and every figure
// it reports is of the catalogues.
func FuzzFindFigures(f *testing.F) {
	for _, q := range []string{"What was Apple's operating margin?", "capex as % of sales", "r&d/revenue", "", "%%%", "How much cash\x00?"} {
		f.Add(q)
	}
	cat := NewCatalog(nil)
	f.Fuzz(func(t *testing.T, q string) {
		for _, a := range FindFigures(q) {
			_, isMetric := tools.MetricByName(a.Metric)
			_, isDerived := tools.DerivedByName(a.Derived)
			if isMetric == isDerived {
				t.Fatalf("FindFigures(%q) gave %+v, not one metric or one derived figure", q, a)
			}
		}
		cat.SegmentsIn(q, "XMPL")
		RouteQuestion(q, cat, nil)
	})
}

func TestPlanGrossMarginFromGrossProfit(t *testing.T) {
	// A filing that prints gross profit but no cost row: the margin is
	// gross profit over revenue, both read from its table rows.
	g := planOf(t, "What was GPRO's gross margin in fiscal 2022?")
	var exprs []string
	for _, n := range g.Nodes {
		if n.Tool == tools.Calculate {
			var a tools.CalculateArgs
			if err := json.Unmarshal(n.Args, &a); err != nil {
				t.Fatal(err)
			}
			exprs = append(exprs, a.Expression+" "+a.Facts["gross_profit"].Concept+" "+a.Facts["revenue"].Concept)
		}
	}
	if want := "gross_profit / revenue table:Gross profit table:Total revenues"; !slices.Equal(exprs, []string{want}) {
		t.Errorf("calculations %q, want [%q]", exprs, want)
	}
}

// Names written as analysts shorten them, or with the question's words
// between theirs, are the catalogue's names; a common word abbreviates
// nothing.
func TestLooseFigureNames(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{"Google (Alphabet) cash from ops for the year ended December 2024?", []string{"operating_cash_flow"}},
		{"How much cash did GOOGL generate from operating activities in 2024?", []string{"operating_cash_flow"}},
		{"NFLX op margin expanded in 2024", []string{"operating_margin"}},
		{"What share of revenue did NVDA spend on R&D in FY23?", []string{"rd_expense_to_revenue"}},
		{"META FY2024 revenue", []string{"revenue"}},
	}
	for _, tc := range tests {
		var got []string
		for _, a := range FindFigures(tc.q) {
			got = append(got, cmp.Or(a.Metric, a.Derived))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("FindFigures(%q) = %q; want %q", tc.q, got, tc.want)
		}
	}
	for _, pair := range [][2]string{{"in", "intensity"}, {"and", "andromeda"}, {"op", "operations"}} {
		if sameWord(pair[0], pair[1]) {
			t.Errorf("sameWord(%q, %q): a common or two-letter word stands for a name's word", pair[0], pair[1])
		}
	}
}

// A bare phrase naming a figure asks for it; one that asks anything else
// does not.
func TestAsksNumber(t *testing.T) {
	for q, want := range map[string]bool{
		"NFLX paid memberships at YE2024":                            true,
		"Netflix ad revenue in 2024 - how big was the ads business?": true,
		"What was the size of the buyback program?":                  true,
		"META FY2024 revenue":                                        true,
		"What was Apple's revenue in fiscal 2024?":                   true,
		"Apple supply chain risks":                                   false,
		"Google capex outlook":                                       false,
		"apple services sales growth FY24 what drove it":             false,
		"Compare Apple and Meta on margins":                          false,
		"Google Search, 2024: y/y change in paid clicks?":            true,
		"Which segment showed the % change in backlog?":              true,
		"Did the company describe a change in strategy?":             false,
	} {
		if got := asksNumber(q); got != want {
			t.Errorf("asksNumber(%q) = %v; want %v", q, got, want)
		}
	}
}

// A part asked with the question's own word for the whole ("membership fee
// income") is the row printed under the part's name ("Membership fees"),
// never a row that adds words of its own.
func TestResolvePartRow(t *testing.T) {
	cat := NewCatalog(nil)
	cat.SetFigures("c22", []FigureEntry{
		{Key: "table:Membership fees", Label: "Membership fees", Table: true},
		{Key: "table:Membership fees increase", Label: "Membership fees increase", Table: true},
		{Key: "table:Cloud services and license support", Label: "Cloud services and license support", Table: true},
		{Key: "table:Total net sales", Label: "Total net sales", Table: true},
		{Key: "table:International", Label: "International", Table: true},
		{Key: "us-gaap:SellingGeneralAndAdministrativeExpense", Concept: "us-gaap:SellingGeneralAndAdministrativeExpense", Label: "Selling, general and administrative"},
	})
	tests := []struct {
		part, name []string
		want       string
	}{
		{[]string{"membership", "fee"}, []string{"income"}, "table:Membership fees"},
		{[]string{"Membership", "fees"}, []string{"revenue"}, "table:Membership fees"},
		{[]string{"cloud", "services", "and", "license", "support"}, []string{"revenue"}, "table:Cloud services and license support"},
		{[]string{"cloud", "services"}, []string{"revenue"}, ""},  // the row adds "license support"
		{[]string{"membership"}, []string{"income"}, ""},          // "fees" is not asked
		{[]string{"International"}, []string{"net", "sales"}, ""}, // one word: a row of any table
		{[]string{"net"}, []string{"sales"}, ""},                  // "total" and "net" alone name no part
		{nil, []string{"income"}, ""},
	}
	for _, tt := range tests {
		got, ok := cat.ResolvePartRow("c22", tt.part, tt.name)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ResolvePartRow(%q, %q) = %q, %v; want %q", tt.part, tt.name, got, ok, tt.want)
		}
	}
}

// Three-letter words name things too ("fee", "tax", "ads"); three-letter
// function words do not.
func TestQuestionWordsThreeLetters(t *testing.T) {
	got := QuestionWords("How did the fee and tax per ad unit end up for the year?", nil, nil)
	want := []string{"fee", "tax", "unit"}
	if !slices.Equal(got, want) {
		t.Errorf("QuestionWords = %q, want %q", got, want)
	}
}

// A noun made of a noun ("membership") is said by its base as well: "Our
// member renewal rate was 93%".
func TestWordForms(t *testing.T) {
	tests := map[string][]string{
		"membership":  {"membership", "member"},
		"Memberships": {"Memberships", "member"},
		"renewal":     {"renewal"},
		"ship":        {"ship"},
	}
	for w, want := range tests {
		if got := wordForms(w); !slices.Equal(got, want) {
			t.Errorf("wordForms(%q) = %q, want %q", w, got, want)
		}
	}
}

// A row the question's word names but that reports no value for the
// filing's own period (an investee's "Revenue", twelve months ended three
// months before the fiscal year end) is not the issuer's revenue when a
// row that reports the period names the metric too.
func TestResolveMetricOwnPeriod(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	row := func(label string, v int64, start, end string) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.NewFromInt(v), Unit: "USD",
			PeriodStart: day(start), PeriodEnd: day(end), Start: 10, End: 20}
	}
	m, _ := tools.MetricByName("revenue")
	facts := []corpus.Fact{
		row("Net revenues", 9_795, "2022-01-01", "2022-12-31"),
		row("Net revenues", 10_420, "2021-01-01", "2021-12-31"),
		row("Gross profit", 6_650, "2022-01-01", "2022-12-31"),
		row("Revenue", 1_742, "2021-10-01", "2022-09-30"),
		row("Revenue", 450, "2021-07-01", "2021-09-30"),
	}
	cat := &Catalog{}
	cat.SetFigures("d", FigureEntries(facts))
	for _, q := range []string{"How did eBay's revenue change in 2022?", "eBay revenue 2022"} {
		if k, ok := cat.ResolveMetric("d", m, "", q); !ok || k != "table:Net revenues" {
			t.Errorf("%q: resolved %q (%v); want the row that reports the filing's own year", q, k, ok)
		}
	}
	// With no other row, the stale one is still the figure named.
	cat.SetFigures("e", FigureEntries(facts[3:]))
	if k, ok := cat.ResolveMetric("e", m, "", "revenue"); !ok || k != "table:Revenue" {
		t.Errorf("resolved %q (%v); want the only row", k, ok)
	}
}

// A question's asides (a date written out, a format granted, an
// instruction on scale) are not what it asks about: no content words.
func TestQuestionWordsWithoutAsides(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{"How many total paid members did Costco have at the end of fiscal 2022 (FYE Aug 28, 2022)? Count in millions is fine.", []string{"total", "paid", "members", "costco"}},
		{"Services revenue in the June 2025 quarter? Billions is fine.", []string{"services", "revenue", "june", "quarter"}},
		{"NVIDIA gross margin for the year ended January 29, 2023, as a percentage", []string{"nvidia", "gross", "margin"}},
		{"Walmart U.S. comp sales - give it in billions - for the period ended Jan. 31, 2022", []string{"walmart", "comp", "sales"}},
		{"Is the fine print on leases good reading?", []string{"fine", "print", "leases", "good", "reading"}},
		// The context before the ask names nothing asked.
		{"I've been a subscriber since the DVD days and friends keep telling me everyone is cancelling, but what I actually want to know is: how many paid memberships did Netflix have in 2022?",
			[]string{"paid", "memberships", "netflix"}},
		{"My question is short", []string{"question", "short"}},
		// Dates written with hyphens, and the asker's own attempt.
		{"Interest expense: Intel FY2020 vs NVIDIA FY2023 (Jan-23 FYE)", []string{"interest", "expense", "intel", "nvidia"}},
		{"COST lease book at FYE Aug-28-2022: discount rate?", []string{"cost", "lease", "book", "discount", "rate"}},
		{"Oracle at FYE May-2023: commercial paper", []string{"oracle", "commercial", "paper"}},
		{"senior notes vs fair value? trying to see how far below par the stack trades", []string{"senior", "notes", "fair", "value", "par", "stack", "trades"}},
		// Who said what the question checks, when not the issuer.
		{"A newsletter I get says Netflix ended 2024 with about 301.6 million paid memberships. Correct?", []string{"netflix", "ended", "million", "paid", "memberships"}},
		{"Quick check: someone told me Costco's renewal rate was 90%", []string{"quick", "check", "costco", "renewal", "rate"}},
		{"Saw a tweet saying NVIDIA's data center revenue doubled", []string{"nvidia", "data", "center", "revenue", "doubled"}},
		{"data center sales up something like 41%", []string{"data", "center", "sales"}},
		{"What revenue was reported for Netflix in 2024?", []string{"revenue", "netflix"}},
		{"Services revenue reported for fiscal 2024 - how much?", []string{"services", "revenue"}},
		{"A blog post claims Apple's services grew 13%", []string{"apple", "services", "grew"}},
		{"Product warranty claims rose at Apple", []string{"product", "warranty", "claims", "rose", "apple"}},
		{"Apple said services grew; by how much?", []string{"apple", "services", "grew"}},
		{"Management said margins would fall", []string{"management", "margins", "fall"}},
	}
	for _, tt := range tests {
		if got := QuestionWords(tt.q, nil, nil); !slices.Equal(got, tt.want) {
			t.Errorf("QuestionWords(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

// "How many new warehouses did Costco open": the thing counted, and a
// figure requirement met by a number of them however small.
func TestCountedNoun(t *testing.T) {
	for q, want := range map[string]string{
		"How many new warehouses did Costco open in fiscal 2022?":            "warehouses",
		"How many associates does Walmart employ?":                           "associates",
		"how many paid memberships in UCAN at YE2024":                        "memberships",
		"What was Costco's revenue?":                                         "",
		"How many more people did Amazon employ than Costco at end of 2022?": "people",
	} {
		if got := countedNoun(q); got != want {
			t.Errorf("countedNoun(%q) = %q, want %q", q, got, want)
		}
	}
	_, g := planFor(t, smallCatalog(), "How many new warehouses did Costco open in fiscal 2022?", 0)
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Equal(grp, []string{NumberTerm + "warehouses"}) })
	}) {
		t.Errorf("requirements %+v: none met by a number of warehouses", g.Requirements)
	}
}

// A table row whose every value is a fraction without a unit is a row of
// rates; one whose label names a change is a rate of change, whose growth
// is not computed; a ratio of levels ("Gross profit rate") is not one.
func TestChangeRateRows(t *testing.T) {
	t.Parallel()
	pure := func(label string, v string, start int) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.RequireFromString(v), Unit: "pure", Start: start, End: start + 1}
	}
	cat := NewCatalog(nil)
	cat.SetFigures("d", FigureEntries([]corpus.Fact{
		pure("Comparable sales increase", "0.064", 1), pure("Comparable sales increase", "0.087", 3),
		pure("Gross profit rate", "0.244", 5),
		pure("Stores opened", "26", 7),
		{Kind: corpus.FactTable, Label: "Net sales", Value: decimal.NewFromInt(9), Unit: "USD", Start: 9, End: 10},
	}))
	for key, want := range map[string]bool{
		"table:Comparable sales increase": true,
		"table:Gross profit rate":         false,
		"table:Stores opened":             false,
		"table:Net sales":                 false,
	} {
		if got := cat.isChangeRate("d", key); got != want {
			t.Errorf("isChangeRate(%s) = %v, want %v", key, got, want)
		}
	}
}

// TestSegmentsListed: a member whose name lists other parts the question
// names ("North America and International", a member of its own) is the
// question listing those parts, each asked alone.
func TestSegmentsListed(t *testing.T) {
	cat := NewCatalog([]corpus.Document{{ID: "r24", Ticker: "RTLR", Company: "Retailer, Inc.", Form: "10-K", FiscalYear: 2024,
		PeriodEnd: time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), Format: corpus.FormatHTML,
		Entity: corpus.Entity{Registrant: "RETAILER, INC.", Symbols: []string{"RTLR"},
			Members: []string{"rtlr:NorthAmericaSegmentMember", "rtlr:InternationalSegmentMember", "rtlr:NorthAmericaAndInternationalSegmentMember"}}}})
	for q, want := range map[string][]string{
		"RTLR 2024 segment op income for North America and International?": {"International", "North America"},
		"RTLR North America operating income":                              {"North America"},
	} {
		var got []string
		for _, s := range cat.SegmentsIn(q, "RTLR") {
			got = append(got, s.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("SegmentsIn(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestResolveNetIncomeRow: a label of "other" things is not the thing
// ("Other comprehensive income (loss), net of income taxes" holds "net
// income (loss)" word by word); the owners' share is preferred after
// "Consolidated" too.
func TestResolveNetIncomeRow(t *testing.T) {
	t.Parallel()
	m, _ := tools.MetricByName("net_income")
	row := func(label string, start int) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.NewFromInt(1), Start: start, End: start + 1}
	}
	oci := row("Other comprehensive income (loss), net of income taxes", 1)
	consolidated := row("Consolidated net income", 3)
	noncontrolling := row("Consolidated net income attributable to noncontrolling interest", 5)
	owners := row("Consolidated net income attributable to Walmart", 7)
	for _, tt := range []struct {
		facts []corpus.Fact
		want  string
	}{
		{[]corpus.Fact{oci, consolidated, noncontrolling, owners}, "table:Consolidated net income attributable to Walmart"},
		{[]corpus.Fact{oci, consolidated}, "table:Consolidated net income"},
	} {
		cat := NewCatalog([]corpus.Document{{ID: "w22", Ticker: "WMRT", Form: "10-K", FiscalYear: 2022, Format: corpus.FormatText}})
		cat.SetFigures("w22", FigureEntries(tt.facts))
		if got, _ := cat.ResolveMetric("w22", m, "", "net income fiscal 2022"); got != tt.want {
			t.Errorf("ResolveMetric = %q, want %q", got, tt.want)
		}
	}
	if got := FindFigures("Compare net income margins FY2022: Apple, Microsoft, Walmart"); len(got) == 0 || got[0].Derived != "net_margin" {
		t.Errorf("FindFigures = %+v; want the net margin, asked in the plural", got)
	}
}

// A figure asked per employee is computed over the headcount a sentence
// states, the sentence asked for its count alone.
func TestPlanPerHead(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("n23", []FigureEntry{{Key: "us-gaap:Revenues", Concept: "us-gaap:Revenues", Label: "Revenue", Money: true}})
	_, g := planFor(t, cat, "NVIDIA FY2023: revenue per full-time employee?", 0)
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-per-employee-calculation") })
	if i < 0 {
		t.Fatalf("requirements %v: no revenue per employee", reqIDs(g))
	}
	n := servers(g, g.Requirements[i].ID)
	if len(n) != 1 || !strings.Contains(string(n[0].Args), `"expression":"revenue / employees"`) || !strings.Contains(string(n[0].Args), `"stated:employees"`) {
		t.Errorf("served by %v; want revenue over the stated headcount", n)
	}
	for _, r := range g.Requirements {
		if r.Aspect == "headcount" && slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Contains(grp, "per employee") }) {
			t.Errorf("the headcount sentence must name %q: %v", "per employee", r.Completion.AllOf)
		}
	}
}

// A filing's own period is the latest end nearly as common as the
// commonest, though its tables date more values a year before; an
// investee's odd period, rare, is not it, and its row is stale.
func TestOwnPeriodEnd(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	var facts []corpus.Fact
	add := func(label, end string, n int) {
		for i := 0; i < n; i++ {
			facts = append(facts, corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.NewFromInt(int64(i + 1)), Unit: "USD",
				PeriodStart: day(end).AddDate(-1, 0, 1), PeriodEnd: day(end), Start: len(facts) * 10, End: len(facts)*10 + 5})
		}
	}
	add("Total net sales", "2022-12-31", 8)
	add("Total net sales", "2021-12-31", 11)
	add("Revenues", "2021-12-31", 1)
	add("Revenues", "2022-09-30", 1)
	if got := ownPeriodEnd(facts); !got.Equal(day("2022-12-31")) {
		t.Errorf("own period end %v; want 2022-12-31", got)
	}
	for _, e := range FigureEntries(facts) {
		if e.Label == "Revenues" && !e.Stale || e.Label == "Total net sales" && e.Stale {
			t.Errorf("entry %+v: stale %v", e, e.Stale)
		}
	}
}

// A part the question says is not the one asked ("not the Compute &
// Networking segment") is no part asked; nor is one included in a total
// asked; one asked stays.
func TestWithoutIncludedParts(t *testing.T) {
	for q, gone := range map[string]string{
		"Data Center end-market revenue — the market-platform number, not the Compute & Networking segment": "Compute & Networking",
		"Walmart total company net sales incl. International":                                               "International",
		"Graphics revenue rather than Compute & Networking":                                                 "Compute & Networking",
	} {
		if got := withoutIncludedParts(q); strings.Contains(got, gone) {
			t.Errorf("withoutIncludedParts(%q) = %q: %q still named", q, got, gone)
		}
	}
	if q := "Data Center revenue, not the total"; withoutIncludedParts(q) != q {
		t.Errorf("withoutIncludedParts(%q) = %q: nothing capitalised is negated", q, withoutIncludedParts(q))
	}
	if q := "Compute & Networking revenue in fiscal 2023"; withoutIncludedParts(q) != q {
		t.Errorf("withoutIncludedParts(%q) = %q: the part asked is kept", q, withoutIncludedParts(q))
	}
}
