package planner

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
	"github.com/shopspring/decimal"
)

// Years a question binds to an issuer are that issuer's; years that all
// issuers share, or that only one issuer is given, are everyone's.
func TestBindYears(t *testing.T) {
	cat := smallCatalog()
	tests := []struct {
		question string
		want     map[string][]int
	}{
		{"Compare NVIDIA's fiscal 2023 revenue with Apple's fiscal 2024 net sales.", map[string][]int{"NVDA": {2023}, "AAPL": {2024}}},
		{"Apple's 2022 and 2024 revenue against Alphabet's 2024 revenue", map[string][]int{"AAPL": {2022, 2024}, "GOOGL": {2024}}},
		{"Compare revenue at Apple and Alphabet in 2022 and 2024", nil},    // every year after both issuers
		{"Compare Apple's 2024 revenue with Alphabet's 2024 revenue", nil}, // the same years
		{"What was Apple's revenue in fiscal 2024?", nil},                  // one issuer
		{"In 2024, how did Apple's and Alphabet's revenue compare?", nil},  // the year before any issuer
		// Issuers listed together before a date share it.
		{"Headcount: Apple and Alphabet at Dec 31, 2024 vs NVIDIA at January 29, 2023", map[string][]int{"AAPL": {2024}, "GOOGL": {2024}, "NVDA": {2023}}},
	}
	for _, tc := range tests {
		rt := RouteQuestion(tc.question, cat, nil)
		if !maps.EqualFunc(rt.IssuerYears, tc.want, slices.Equal) {
			t.Errorf("%q: issuer years %v; want %v", tc.question, rt.IssuerYears, tc.want)
		}
	}
	_, g := planFor(t, cat, "Compare NVIDIA's fiscal 2023 revenue with Apple's fiscal 2024 net sales.", 0)
	for _, r := range g.Requirements {
		if r.Issuer == "NVDA" && r.Period != "FY2023" || r.Issuer == "AAPL" && r.Period != "FY2024" {
			t.Errorf("requirement %s is for %s %s; each issuer has its own year", r.ID, r.Issuer, r.Period)
		}
	}
}

// Expectations for a year after the latest annual report are that
// report's forward-looking statements, and the plan says so.
func TestFutureYearOutlook(t *testing.T) {
	_, g := planFor(t, smallCatalog(), "How much does Meta expect to spend on capital expenditures in 2026?", 0)
	if !strings.Contains(strings.Join(g.Notes, " "), "Fiscal 2026 is after META's latest annual report (fiscal 2024)") {
		t.Errorf("notes %q", g.Notes)
	}
	outlook := false
	for _, r := range g.Requirements {
		if r.Period != "FY2024" {
			t.Errorf("requirement %s is for %s; want the latest report's FY2024", r.ID, r.Period)
		}
		outlook = outlook || r.Kind == KindOutlook && r.Required
	}
	if !outlook {
		t.Errorf("no required outlook requirement: %+v", g.Requirements)
	}
}

// A causal question asks for the link; what the filing says drove the
// effect is planned beside it as context, not required.
func TestCausalContext(t *testing.T) {
	_, g := planFor(t, smallCatalog(), "Did Meta's advertising tier cause its operating margin to rise in 2024?", 0)
	link, ok := reqByID(g, "META-FY2024-causal")
	if !ok || !link.Required || !IsCausal(link) {
		t.Fatalf("no required causal link: %+v", g.Requirements)
	}
	ctx, ok := reqByID(g, "META-FY2024-causal-context")
	if !ok || ctx.Required || IsCausal(ctx) || len(servers(g, ctx.ID)) == 0 {
		t.Errorf("context requirement %+v (found %v): want it optional, not a link, and served", ctx, ok)
	}
	for _, r := range g.Requirements {
		if r.Required && r.ID != link.ID {
			t.Errorf("requirement %s is required; only the link is", r.ID)
		}
	}
}

// A connective split by an adverb ("due primarily to", "driven in part
// by") still introduces a reason.
func TestSplitConnectives(t *testing.T) {
	services := []string{"services"}
	tests := []struct {
		sentence string
		explains bool
	}{
		{"Services net sales increased during 2024 compared to 2023 due primarily to higher net sales from advertising.", true},
		{"Services revenue was driven in part by growth in cloud.", true},
		{"Services net sales increased due mainly to the App Store.", true},
		{"Americas net sales increased during 2024 due primarily to higher net sales of Services.", false},
		{"Services net sales were due for review primarily in 2024.", false},
	}
	for _, tc := range tests {
		if got := Explains(tc.sentence, services); got != tc.explains {
			t.Errorf("Explains(%q) = %v; want %v", tc.sentence, got, tc.explains)
		}
	}
	if !Linked("Operating income increased due largely to lower capital expenditures.", [][]string{{"capital expenditures"}, {"operating income"}}) {
		t.Error("an effect due largely to its cause is not linked")
	}
	if got := closeConnectives("up due primarily to cost"); len(got) != len("up due primarily to cost") || !strings.HasPrefix(got, "up due to") || !strings.HasSuffix(got, " cost") {
		t.Errorf("closeConnectives moved the words around it: %q", got)
	}
}

// Questions that ask why with a verb of causing, or that put the cause
// "behind" the effect, are read as such.
func TestWhyAndBehind(t *testing.T) {
	cat := smallCatalog()
	_, g := planFor(t, cat, "what pushed Apple's effective tax rate up in FY2024?", 0)
	r, ok := reqByID(g, "AAPL-FY2024-general-explanation")
	if !ok || !r.Required {
		t.Fatalf("no explanation planned: %+v", g.Requirements)
	}
	if len(r.Completion.AllOf) != 2 || !slices.Contains(r.Completion.AllOf[0], "effective tax rate") || !slices.Equal(r.Completion.AllOf[1], DriverWords) {
		t.Errorf("explanation condition %q: want the figure's names and a reason, not the question's verbs", r.Completion.AllOf)
	}
	// A ratio moves with its numerator: the tax expense's names explain
	// the rate ("Provision for income taxes decreased ... due to").
	if len(r.Completion.AllOf) > 0 && !slices.Contains(r.Completion.AllOf[0], "income tax expense") {
		t.Errorf("explanation condition %q: want the numerator's names", r.Completion.AllOf[0])
	}
	for _, q := range []string{"what hurt Meta's operating margin in 2024?", "What's behind Apple's higher gross margin?",
		// "what" doing something to the figure, in any verb's past tense
		"what squeezed netflix operating margin in 2022", "What powered LinkedIn's growth in FY22?", "what happened to Intel's margins",
		// the noun asks it as the verb does
		"Netflix's operating margin slipped to 18% in 2022. What's the explanation in the 10-K?",
		// a cause asked as what is credited with a move
		"what does eBay credit for the increase?", "What did management credit the improvement to?",
		// what made the figure move
		"How much did it lose, and what does Meta say made the loss bigger?", "what made Intel's margins worse in 2020",
		// what moved the figure up or down
		"what was it, and what does the 10-K say pushed it up versus 2023?", "what dragged Intel's margins down?"} {
		if !asksWhy(q) {
			t.Errorf("asksWhy(%q) = false", q)
		}
	}
	for _, q := range []string{"What was Apple's revenue in fiscal 2024?", "What speed of growth did Apple report?", "How much did eBay's credit losses increase?",
		// a word in -ed before the figure asked of an auxiliary names it
		"What consolidated operating income did Walmart report for fiscal 2020?", "What adjusted EPS was reported?",
		"What made up Apple's other income in 2024?"} {
		if asksWhy(q) {
			t.Errorf("asksWhy(%q) = true; a figure question", q)
		}
	}
	rt := RouteQuestion("Were Meta's job cuts behind its revenue growth in 2024?", cat, nil)
	if rt.Causal == nil || !slices.Contains(rt.Causal.CauseWords, "cuts") {
		t.Errorf("causal reading %+v: want job cuts as the cause of revenue growth", rt.Causal)
	}
}

// A figure asked for in a later clause ("...: what was the count?") is a
// figure question, and a row the question names stands for its total
// where the filing prints one.
func TestFigureAskedLater(t *testing.T) {
	if !figureShaped.MatchString("Netflix paid members at year-end 2024: what was the count?") {
		t.Error("a figure asked after a colon is not figure-shaped")
	}
	if figureShaped.MatchString("Netflix explained what was driving churn") {
		t.Error("\"what was\" inside a clause read as a figure question")
	}
	for _, q := range []string{"What's Apple's dividend per share in FY2022?", "what’s NFLX's 2024 operating margin"} {
		if !figureShaped.MatchString(q) {
			t.Errorf("%q: \"what's\" not read as asking a figure", q)
		}
	}
	// A dollar sign standing for the amount asked; not a dollar figure
	// the question states.
	for q, want := range map[string]bool{
		"GOOGL FY24: TAC $ and TAC rate vs FY23, and what drove the rate lower?": true,
		"NVDA FY23 Data Center end-market revenue, $mm":                          true,
		"Meta capex ($bn) in 2024":                                               true,
		"Revenue was $5 billion in 2024; why did it rise?":                       false,
	} {
		if got := figureShaped.MatchString(q); got != want {
			t.Errorf("figureShaped(%q) = %v, want %v", q, got, want)
		}
	}
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	row := func(label string, v int64) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.NewFromInt(v), Unit: "USD",
			PeriodStart: day("2022-01-01"), PeriodEnd: day("2022-12-31"), Start: 10, End: 20}
	}
	m, _ := tools.MetricByName("revenue")
	all := func(FigureEntry) bool { return true }
	// Segments each print a "Net sales" row: the company's is the total.
	parts := FigureEntries([]corpus.Fact{row("Net sales", 315_880), row("Net sales", 118_007), row("Total net sales", 513_983)})
	if k, ok := resolveAmong(parts, m, "What were Amazon's net sales in 2022?", all); !ok || k != "table:Total net sales" {
		t.Errorf("resolved %q (%v); want the total row", k, ok)
	}
	// One "Net revenues" row, the statement's: it is the figure asked.
	one := FigureEntries([]corpus.Fact{row("Net revenues", 9_795), row("Net revenues", 9_795), row("Total net revenues", 9_795)})
	if k, ok := resolveAmong(one, m, "What was eBay's net revenue in 2022?", all); !ok || k != "table:Net revenues" {
		t.Errorf("resolved %q (%v); want the row the question names", k, ok)
	}
}

// Codes and acronyms in capitals ("FY24", "EPS") do not make a question
// one whose capitals mark names: "apple" in it is still Apple.
func TestCaselessWithCodes(t *testing.T) {
	cat := smallCatalog()
	for _, q := range []string{"apple services sales growth FY24 what drove it", "apple EPS in 2024", "apple revenue YE2024"} {
		if rt := RouteQuestion(q, cat, nil); !slices.Equal(rt.Issuers, []string{"AAPL"}) {
			t.Errorf("%q: issuers %v; want AAPL", q, rt.Issuers)
		}
	}
	if rt := RouteQuestion("Which apple varieties did Costco sell in 2022?", cat, nil); slices.Contains(rt.Issuers, "AAPL") {
		t.Errorf("a lower-case ordinary word in a question with case read as Apple: %v", rt.Issuers)
	}
}

// A question asking someone's view of what will happen asks for the
// outlook; a bare future tense asks for a figure no filing reports.
func TestFutureView(t *testing.T) {
	cat := smallCatalog()
	for q, want := range map[string]bool{
		"How does gross margin pressure compare at Apple and Alphabet, and does management think it will last?": true,
		"What will Meta's revenue be in 2030?":                   false,
		"Does Apple expect its gross margin to keep falling?":    true,
		"What was Apple's gross margin in fiscal 2024?":          false,
		"Apple's gross margin: do they say it is going to rise?": true,
	} {
		if got := RouteQuestion(q, cat, nil).Outlook; got != want {
			t.Errorf("%q: outlook %v; want %v", q, got, want)
		}
	}
}

// A figure's one-word name heading a line item the filings print
// ("deferred revenue") is not that figure; qualified by a period, a
// scope, an issuer, a part of the business or a change, it is.
func TestCompoundFigureNames(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("z24", []FigureEntry{
		{Key: "table:Deferred revenue", Label: "Deferred revenue", Table: true},
		{Key: "table:Unearned revenue", Label: "Unearned revenue", Table: true},
		{Key: "table:Restricted cash and cash equivalents", Label: "Restricted cash and cash equivalents", Table: true},
		{Key: "us-gaap:Revenues", Concept: "us-gaap:Revenues", Label: "Total net sales"},
	})
	tests := []struct {
		q    string
		want []string
	}{
		{"What was Apple's deferred revenue in fiscal 2024?", nil},
		{"How much unearned revenue did Amazon report?", nil},
		{"How much restricted cash did Amazon hold?", nil},
		{"What was Apple's quarterly revenue?", []string{"revenue"}},
		{"What was Apple's consolidated revenue in fiscal 2024?", []string{"revenue"}},
		{"What was Apple's total revenue in fiscal 2024?", []string{"revenue"}},
		{"What was AAPL revenue in fiscal 2024?", []string{"revenue"}},
		{"Did higher capex lead to lower operating income at Amazon?", []string{"capex", "operating_income"}},
		{"What was Apple's employee revenue in fiscal 2024?", []string{"revenue"}}, // no filing prints the row
	}
	for _, tc := range tests {
		var got []string
		for _, f := range RouteQuestion(tc.q, cat, nil).Figures {
			got = append(got, f.Metric+f.Derived)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: figures %q; want %q", tc.q, got, tc.want)
		}
	}
	if rt := RouteQuestion("What was Apple's deferred revenue in fiscal 2024?", cat, nil); slices.Contains(rt.Aspects, "revenue") {
		t.Errorf("aspects %v: deferred revenue read as revenue", rt.Aspects)
	}
}

// A figure's or topic's name within a longer row label the question
// writes word for word ("depreciation of property & equipment") asks that
// row, not the figure or the topic the shorter name stands for; a
// statement's name ("cash flow statement") says where to read, and asks
// no cash.
func TestNamesWithinLongerLabels(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("g24", []FigureEntry{
		{Key: "us-gaap:Depreciation", Concept: "us-gaap:Depreciation", Label: "Depreciation of property and equipment"},
		{Key: "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", Concept: "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", Label: "Purchases of property and equipment"},
		{Key: "us-gaap:CashAndCashEquivalentsAtCarryingValue", Concept: "us-gaap:CashAndCashEquivalentsAtCarryingValue", Label: "Cash and cash equivalents"},
	})
	tests := []struct {
		q       string
		figures []string
		capex   bool
	}{
		{"GOOGL 2024 depreciation of property & equipment (cash flow statement)?", nil, false},
		{"GOOGL 2024 depreciation of property and equipment?", nil, false},
		{"GOOGL 2024 depreciation?", []string{"depreciation"}, false},
		{"GOOGL 2024 purchases of property and equipment?", []string{"capex"}, true},
		{"Per the statement of cash flows, how much cash did GOOGL hold at the end of 2024 in cash?", []string{"cash"}, false},
		{"How much cash did GOOGL hold at the end of 2024?", []string{"cash"}, false},
	}
	for _, tc := range tests {
		rt := RouteQuestion(tc.q, cat, nil)
		var got []string
		for _, f := range rt.Figures {
			got = append(got, f.Metric+f.Derived)
		}
		if !slices.Equal(got, tc.figures) {
			t.Errorf("%q: figures %q; want %q", tc.q, got, tc.figures)
		}
		if slices.Contains(rt.Aspects, "capex") != tc.capex {
			t.Errorf("%q: aspects %v; capex %v wanted", tc.q, rt.Aspects, tc.capex)
		}
	}
	// The row is planned as the filing labels it, "&" read as "and".
	_, g := planFor(t, cat, "GOOGL 2024 depreciation of property & equipment (cash flow statement)?", 0)
	if len(g.Requirements) != 1 || !slices.Equal(g.Requirements[0].Completion.Concepts, []string{"us-gaap:Depreciation"}) {
		t.Errorf("requirements %+v; want the one row", g.Requirements)
	}
}

// A word of another figure's name before a name the filings print as a
// row ("cash purchases of property and equipment") narrows it only where
// the filings print the two together; before a shorthand they do not
// print ("cash capex"), where they print it before another of the
// figure's names ("cash capital expenditures").
func TestQualifierBeforeARowsName(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("z24", []FigureEntry{
		{Key: "us-gaap:PaymentsToAcquireProductiveAssets", Concept: "us-gaap:PaymentsToAcquireProductiveAssets", Label: "Purchases of property and equipment"},
		{Key: "us-gaap:CashAndCashEquivalentsAtCarryingValue", Concept: "us-gaap:CashAndCashEquivalentsAtCarryingValue", Label: "Cash and cash equivalents"},
	})
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{Issuer: "AMZN", Text: "Cash capital expenditures were $48.1 billion. Cash capital expenditures rose. Purchases of property and equipment (82,999)."},
		{Issuer: "AAPL", Text: "Payments for acquisition of property, plant and equipment. Cash and cash equivalents."},
	}))
	for q, part := range map[string]bool{
		"AMZN 2024 cash purchases of property and equipment?": false,
		"AMZN 2024 cash capex?":                               true,
	} {
		got := len(qualifiedFigures(q, cat, []string{"AMZN"}, nil, metricNames([]string{"capex"}))) > 0
		if got != part {
			t.Errorf("%q: a part of capex %v; want %v", q, got, part)
		}
	}
}

// A passage on the question's own words needs its two rarest words in
// the filings, not any one of them.
func TestTopicGroups(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{Issuer: "AAPL", Text: "Our roadmap includes AI glasses. We invest in computing infrastructure."},
		{Issuer: "META", Text: "The roadmap for AI. Computing capacity grew."},
		{Issuer: "NVDA", Text: "Our roadmap is annual. Accelerated computing drives demand."},
	}))
	_, g := planFor(t, cat, "What did Meta say about its quantum computing roadmap in 2024?", 0)
	r, ok := reqByID(g, "META-FY2024-general-explanation")
	if !ok {
		t.Fatalf("no general requirement: %+v", g.Requirements)
	}
	if want := [][]string{{"quantum"}, {"computing"}}; !slices.EqualFunc(r.Completion.AllOf, want, slices.Equal) {
		t.Errorf("condition %q; want %q (the two rarest words, each)", r.Completion.AllOf, want)
	}
}

// What management expects of a topic no aspect names is an expectation
// about that topic: the condition names the two rarest words of the clause
// that asks it, by their stems, beside the words of expecting.
func TestOutlookOfTheQuestionsTopic(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{Issuer: "AAPL", Text: "We expect costs to rise. Our shipping network grew. We invest in content."},
		{Issuer: "META", Text: "We expect growth. Costs of content increased."},
		{Issuer: "NVDA", Text: "We expect demand. Investments in content continue."},
	}))
	tests := []struct {
		q    string
		want [][]string
	}{
		{"Does Meta expect its shipping costs to keep rising?", [][]string{{"shipp"}, {"cost"}}},
		// The adverb is no topic, and the other clause asks nothing expected.
		{"Does Meta expect to keep investing heavily in original content, or was 2024 the peak?", [][]string{{"original"}, {"invest"}}},
	}
	for _, tc := range tests {
		_, g := planFor(t, cat, tc.q, 0)
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Kind == KindOutlook })
		if i < 0 {
			t.Fatalf("%q: no outlook requirement: %+v", tc.q, g.Requirements)
		}
		got := g.Requirements[i].Completion.AllOf
		if len(got) != 3 || !slices.EqualFunc(got[:2], tc.want, slices.Equal) || !slices.Contains(got[2], "expect") {
			t.Errorf("%q: condition %q; want %q and the words of expecting", tc.q, got, tc.want)
		}
	}
}

// A label the filing prints is asked by a later clause that asks its
// amount, by a pronoun ("What was it") or in its own clause ("What was
// 2024 GMV?"); "GMV and revenue" lists two figures, no part of revenue.
func TestLabelAskedInAnotherClause(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("z24", []FigureEntry{
		{Key: "table:Take rate", Label: "Take rate", Table: true},
		{Key: "table:GMV", Label: "GMV", Table: true},
		{Key: "us-gaap:Revenues", Concept: "us-gaap:Revenues", Label: "Total net sales"},
	})
	for q, key := range map[string]string{
		"Amazon's take rate rose in 2024. What was it, and what does management credit for the increase?": "table:Take rate",
		"Does Amazon expect the gap between GMV and revenue to persist after 2024? What was 2024 GMV?":    "table:GMV",
	} {
		_, g := planFor(t, cat, q, 0)
		if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return slices.Contains(r.Completion.Concepts, key) }) {
			t.Errorf("%q: no requirement for %s in %v", q, key, reqIDs(g))
		}
		if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.Completion.Topic, "GMV and") }) {
			t.Errorf("%q: GMV read as a part of revenue: %v", q, reqIDs(g))
		}
	}
}

// "Long-term" in a row's name ("long-term lease liabilities", "long-term
// debt") is no view of the long term.
func TestLongTermRowIsNoOutlook(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("z24", []FigureEntry{
		{Key: "amzn:LeaseLiabilityNoncurrent", Concept: "amzn:LeaseLiabilityNoncurrent", Label: "Long-term lease liabilities"},
	})
	for q, want := range map[string]bool{
		"amzn balance sheet at 12/31/24: long-term lease liabilities vs long-term debt?": false,
		"Amazon long-term debt at the end of 2024?":                                      false,
		"Does Amazon expect long-term growth in its stores business?":                    true,
		"What is Amazon's long-term outlook for AWS?":                                    true,
	} {
		if got := RouteQuestion(q, cat, nil).Outlook; got != want {
			t.Errorf("%q: outlook %v; want %v", q, got, want)
		}
	}
}
