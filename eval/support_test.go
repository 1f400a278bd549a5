package eval

import (
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/tools"
)

// supportItem asks for a percentage and a dollar figure, and names a
// passage with an alternative.
var supportItem = GoldenItem{
	ID: "g011", Class: ClassFact, Question: "What was Apple's gross margin percentage in fiscal 2024?",
	Status: []ledger.RunStatus{ledger.StatusSupported}, Issuers: []string{"AAPL"},
	Figures: []Figure{
		{Label: "gross margin percentage", Value: 46.2, Unit: UnitPercent, Period: "2024"},
		{Label: "net sales", Value: 391035000000, Unit: UnitUSD, Period: "2024"},
	},
	Evidence: []Evidence{{Answer: Answer{Ticker: "AAPL", FiscalYear: 2024, Form: "10-K", Phrase: "Products gross margin percentage increased"},
		Alternatives: []string{"cost savings and a different Products mix"}}},
}

func TestCitationSupport(t *testing.T) {
	led := &ledger.RunLedger{Facts: []ledger.Fact{
		{ID: "F1", EvidenceID: "E1"}, {ID: "F3", EvidenceID: "E3"}, {ID: "F5", EvidenceID: "E5"},
	}}
	res := &executor.Result{
		Calculations: []tools.Calculation{
			// (revenue - cost) / revenue = 0.46206: 46.2 percent, an expected figure.
			{Expression: "(revenue - cost_of_revenue) / revenue", Inputs: map[string]string{"revenue": "F1", "cost_of_revenue": "F3"}, Result: decimal.RequireFromString("0.46206")},
			// A calculation that gives no expected figure lends its inputs nothing.
			{Expression: "opex / revenue", Inputs: map[string]string{"opex": "F5", "revenue": "F1"}, Result: decimal.RequireFromString("0.1477")},
		},
		Figures: []executor.Figure{
			{Kind: executor.FigureDerived, Value: decimal.RequireFromString("0.462"), EvidenceIDs: []string{"E4"}},
			{Kind: executor.FigureReported, Value: decimal.RequireFromString("46.2"), EvidenceIDs: []string{"E6"}},
		},
	}
	tests := []struct {
		name    string
		excerpt string
		evID    string
		want    SupportRule
	}{
		{"(a) a dollar figure, rounded", "Total net sales were $391.0 billion during 2024.", "E0", SupportFigure},
		{"(a) a table row in millions", "Total net sales | 391,035 | 383,285 | 394,328", "E0", SupportFigure},
		{"(a) a percentage", "Total gross margin percentage | 46.2 % | 44.1 %", "E0", SupportFigure},
		{"(b) an alternative, white space aside", "driven by cost savings   and a different\nProducts mix, partially offset", "E0", SupportEvidence},
		{"(c) input of a calculation giving the figure", "Cost of sales | 210,352 | 214,137", "E3", SupportCalculation},
		{"(c) input of a derived figure", "Cost of sales | 210,352 | 214,137", "E4", SupportCalculation},
		{"(d) half the content words, rounded up", "The gross margin was affected by a weaker foreign currency.", "E0", SupportWords},
		{"(d) words compared by their first five letters", "Gross margins and percentages moved.", "E0", SupportWords},
		{"none: one content word of three", "The Company's gross profit rose.", "E0", SupportNone},
		{"none: issuer names and stop words do not count", "Apple Inc. (AAPL) reported for fiscal year 2024 what it was.", "E0", SupportNone},
		{"none: input of a calculation giving no expected figure", "Operating expenses | 57,467", "E5", SupportNone},
		{"none: a reported figure's evidence is not rule (c)", "Operating expenses | 57,467", "E6", SupportNone},
		{"none: the prior year's figure", "Total net sales | 383,285", "E0", SupportNone},
		{"none: a percentage that is not expected", "an operating margin of 44.1%", "E0", SupportNone},
	}
	for _, tt := range tests {
		res.Citations = append(res.Citations, executor.Citation{Index: len(res.Citations) + 1, EvidenceID: tt.evID, Ticker: "AAPL", Excerpt: tt.excerpt})
	}
	got := CitationSupport(supportItem, res, led)
	if len(got) != len(tests) {
		t.Fatalf("%d rules for %d citations", len(got), len(tests))
	}
	for i, tt := range tests {
		if got[i] != tt.want {
			t.Errorf("%s: %q is %q; want %q", tt.name, tt.excerpt, got[i], tt.want)
		}
	}

	// Without a ledger, calculations cannot be traced to evidence; derived
	// figures still can.
	noLed := CitationSupport(supportItem, res, nil)
	if noLed[4] != SupportNone || noLed[5] != SupportCalculation {
		t.Errorf("without a ledger: %q, %q; want none for a calculation's input, calculation for a derived figure's", noLed[4], noLed[5])
	}
	if got := CitationSupport(supportItem, &executor.Result{}, led); got != nil {
		t.Errorf("no citations: %v; want nothing", got)
	}
}

func TestContentWords(t *testing.T) {
	for _, tt := range []struct {
		it   GoldenItem
		want string
	}{
		{supportItem, "gross margi perce"},
		{GoldenItem{Question: "Compare NVIDIA's fiscal 2023 revenue with Apple's fiscal 2024 net sales.", Issuers: []string{"NVDA", "AAPL"}}, "reven sales"},
		{GoldenItem{Question: "Compare Apple's and Samsung's gross margins in fiscal 2024.", Issuers: []string{"AAPL"}, NotCovered: []string{"Samsung"}}, "gross margi"},
		{GoldenItem{Question: "How does AMZN's 2024 net income stack up against NFLX's?", Issuers: []string{"AMZN", "NFLX"}}, "incom stack"},
		{GoldenItem{Question: "meta platforms total revenue for 2024?", Issuers: []string{"META"}}, "total reven"},
		{GoldenItem{Question: "Should I buy it now?"}, ""},
	} {
		if got := strings.Join(contentWords(tt.it.Question, issuerWords(tt.it)), " "); got != tt.want {
			t.Errorf("content words of %q: %q; want %q", tt.it.Question, got, tt.want)
		}
	}
}

// TestSummarizeSupport checks false_supported and citation_support over
// hand-made results.
func TestSummarizeSupport(t *testing.T) {
	res := func(status ledger.RunStatus, passed bool, citations, supporting int) ItemResult {
		return ItemResult{ID: "g001", Class: ClassFact, Mode: ledger.ModeRules, Status: status, Passed: passed, CostUSD: "0",
			Citations: citations, ValidCitations: citations, SupportingCitations: supporting,
			Checks: []Check{{Name: CheckStatus, Passed: passed}}}
	}
	failedRun := ItemResult{ID: "g001", Class: ClassFact, Mode: ledger.ModeRules, CostUSD: "0", Checks: []Check{{Name: CheckRun}}}
	tests := []struct {
		name            string
		rs              []ItemResult
		falseSupported  float64
		counts          [2]int // false supported, supported
		citeSupport     float64
		citeSupportSeen bool
	}{
		{"a supported result with a failing check counts", []ItemResult{res(ledger.StatusSupported, false, 4, 1), res(ledger.StatusSupported, true, 2, 2)},
			0.5, [2]int{1, 2}, 0.5, true},
		{"a partial result with a failing check does not", []ItemResult{res(ledger.StatusPartial, false, 2, 0), res(ledger.StatusSupported, true, 2, 2)},
			0, [2]int{0, 1}, 0.5, true},
		{"none supported is 0", []ItemResult{res(ledger.StatusInsufficientEvidence, false, 0, 0), failedRun},
			0, [2]int{0, 0}, 0, false},
		{"items without citations add nothing", []ItemResult{res(ledger.StatusRefused, true, 0, 0), res(ledger.StatusSupported, false, 3, 3)},
			1, [2]int{1, 1}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := Summarize(tt.rs).Row(ledger.ModeRules, "")
			if !ok {
				t.Fatal("no rules/all row")
			}
			fs, ok := row.Value(MetricFalseSupported)
			if !ok || fs != tt.falseSupported || row.FalseSupported != tt.counts[0] || row.Supported != tt.counts[1] {
				t.Errorf("false_supported %v (%v) %d/%d; want %v %d/%d", fs, ok, row.FalseSupported, row.Supported, tt.falseSupported, tt.counts[0], tt.counts[1])
			}
			cs, ok := row.Value(MetricCitationSupport)
			if ok != tt.citeSupportSeen || cs != tt.citeSupport {
				t.Errorf("citation_support %v (%v); want %v (%v)", cs, ok, tt.citeSupport, tt.citeSupportSeen)
			}
		})
	}
}

// TestSummarizeSplits checks that the whole set leaves paraphrases out and
// that each split has its rows, in report order.
func TestSummarizeSplits(t *testing.T) {
	rs := split(SplitTune, results(ledger.ModeRules, ClassFact, 4, 4))
	rs = append(rs, split(SplitTest, results(ledger.ModeRules, ClassFact, 4, 2))...)
	rs = append(rs, split(SplitParaphrase, results(ledger.ModeRules, ClassFact, 4, 1))...)
	rs = append(rs, results(ledger.ModeRules, ClassTrap, 2, 2)...) // outside the split
	s := Summarize(rs)
	if !slices.Equal(s.Splits, []Split{SplitTest, SplitParaphrase, SplitTune}) {
		t.Errorf("splits %v; want test, paraphrase, tune", s.Splits)
	}
	for _, tt := range []struct {
		split         Split
		class         Class
		items, passed int
	}{
		{SplitAll, "", 10, 8}, {SplitAll, ClassFact, 8, 6}, {SplitAll, ClassTrap, 2, 2},
		{SplitTest, "", 4, 2}, {SplitParaphrase, ClassFact, 4, 1}, {SplitTune, "", 4, 4},
	} {
		row, ok := s.RowOf(tt.split, ledger.ModeRules, tt.class)
		if !ok || row.Items != tt.items || row.Passed != tt.passed {
			t.Errorf("%s rules/%s: %d of %d (%v); want %d of %d", tt.split.Label(), tt.class, row.Passed, row.Items, ok, tt.passed, tt.items)
		}
	}
	if _, ok := s.RowOf(SplitTest, ledger.ModeRules, ClassTrap); ok {
		t.Error("the test split has a trap row; the traps are outside the split")
	}
	var b strings.Builder
	if err := WriteSplitTable(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"test n", "paraphrase n", "tune n", "false sup", "cite sup", "0.00 0/0", "0.00 0/8"} {
		if !strings.Contains(out, want) {
			t.Errorf("split table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("split table has %d lines; want a header, rules/fact and rules/all:\n%s", n, out)
	}
}
