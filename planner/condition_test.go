package planner

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"periods, questions, exclamations",
			"Net sales rose. Did margins fall? Yes! They did.",
			[]string{"Net sales rose.", "Did margins fall?", "Yes!", "They did."}},
		{"decimals and abbreviations stay whole",
			"Gross margin was 46.2% for Apple Inc. in the U.S. market, e.g. iPhone. Services grew 13.0%.",
			[]string{"Gross margin was 46.2% for Apple Inc. in the U.S. market, e.g. iPhone.", "Services grew 13.0%."}},
		{"an abbreviation in capitals ends a sentence before a word that opens one",
			"About 51 percent was generated outside the U.S. We believe that GMV is useful. U.S. Steel is a name.",
			[]string{"About 51 percent was generated outside the U.S.", "We believe that GMV is useful.", "U.S. Steel is a name."}},
		{"an initial is not an end",
			"Signed by J. Smith on behalf of the Company. Next sentence.",
			[]string{"Signed by J. Smith on behalf of the Company.", "Next sentence."}},
		{"closing quote stays with its sentence",
			`He called it "strong." Then it fell.`,
			[]string{`He called it "strong."`, "Then it fell."}},
		{"a wrapped line continues its sentence",
			"Products gross margin percentage increased during 2022 compared to 2021 due primarily to a different Products mix, partially\noffset by the weakness in foreign currencies.\nNext Heading",
			[]string{"Products gross margin percentage increased during 2022 compared to 2021 due primarily to a different Products mix, partially\noffset by the weakness in foreign currencies.", "Next Heading"}},
		{"a long line ending mid-sentence continues onto a capitalised line",
			"As a result, the Company believes, in general, that its gross margins will be subject to volatility and\nDownward pressure in the coming year.",
			[]string{"As a result, the Company believes, in general, that its gross margins will be subject to volatility and\nDownward pressure in the coming year."}},
		{"headings and table rows stand alone",
			"Gross Margin\nProducts $ 114,728 $ 105,126\nServices 56,054 47,710\nTotal gross margin $ 170,782",
			[]string{"Gross Margin", "Products $ 114,728 $ 105,126", "Services 56,054 47,710", "Total gross margin $ 170,782"}},
		{"a table row with cells stays one unit",
			"Revenue | $ 60,922 | $ 26,974 | 126 %\nCost of revenue | 16,621 | 11,618 | 43 %",
			[]string{"Revenue | $ 60,922 | $ 26,974 | 126 %", "Cost of revenue | 16,621 | 11,618 | 43 %"}},
		{"blank lines and form feeds split",
			"First paragraph ends here without a period and is rather long, long, long enough to wrap\n\nSecond\f\nThird",
			[]string{"First paragraph ends here without a period and is rather long, long, long enough to wrap", "Second", "Third"}},
		{"a lower-case word after a period does not start a sentence",
			"Costs rose approx. the same amount. Revenue fell.",
			[]string{"Costs rose approx. the same amount.", "Revenue fell."}},
		{"a name in lower case starts a sentence",
			"Mac net sales rose due to laptops. iPad net sales fell. eBay grew.",
			[]string{"Mac net sales rose due to laptops.", "iPad net sales fell.", "eBay grew."}},
		{"list items are sentences",
			"Factors include: • costs for wafers, which hurt our gross margin; • demand for AI; and • other risks.",
			[]string{"Factors include:", "• costs for wafers, which hurt our gross margin;", "• demand for AI; and", "• other risks."}},
		{"a bullet line does not continue the one before",
			"Risks that could affect the business over the next several years include the following\n• supply",
			[]string{"Risks that could affect the business over the next several years include the following", "• supply"}},
		{"empty", " \n\f\n ", nil},
	}
	for _, tt := range tests {
		got := Sentences(tt.text)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Sentences(%q) =\n%q\nwant\n%q", tt.name, tt.text, got, tt.want)
		}
	}
}

func TestSentenceMatch(t *testing.T) {
	margin := []string{"gross margin", "margin"}
	tests := []struct {
		name   string
		text   string
		groups [][]string
		want   string // "" means no match
	}{
		{"plural by prefix", "Gross margins fell. Revenue rose.", [][]string{margin}, "Gross margins fell."},
		{"hyphen reads as space", "The gross-margin pressure will persist.", [][]string{{"gross margin"}, {"persist"}}, "The gross-margin pressure will persist."},
		{"groups must share a sentence", "AI demand grew. Margins fell.", [][]string{{"ai"}, margin}, ""},
		{"same sentence", "AI demand grew. Margins improved due to AI.", [][]string{{"ai"}, margin}, "Margins improved due to AI."},
		{"ai is a word, not part of one", "Management said margins improved.", [][]string{{"ai"}, margin}, ""},
		{"ai does not match aim or aid", "We aim to aid margins.", [][]string{{"ai"}, margin}, ""},
		{"ai matches a plural", "New AIs lifted margins.", [][]string{{"ai"}, margin}, "New AIs lifted margins."},
		{"short word is whole", "Costco's costs rose.", [][]string{{"cost"}}, "Costco's costs rose."},
		{"short word is not a prefix", "Costco grew.", [][]string{{"cost"}}, ""},
		{"word boundary at the start", "Premargin items.", [][]string{margin}, ""},
		{"phrase with symbol", "R&D spending rose.", [][]string{{"r&d"}}, "R&D spending rose."},
		{"best sentence has most words", "Margin fell. Gross margin fell due to higher costs.", [][]string{margin},
			"Gross margin fell due to higher costs."},
		{"a long list does not outrank a plain statement", "Revenue rose due to higher, increased, favorable, improved, growth of everything and more. Revenue grew due to cloud.",
			[][]string{{"revenue"}, DriverWords}, "Revenue grew due to cloud."},
		{"items of a list are apart", "Costs include: • our AI initiatives; • our ability to maintain gross margins.",
			[][]string{{"ai"}, margin}, ""},
		// A reason asked: whose income it is says no reason, nor does what
		// may move the figure.
		{"owners' share is no reason", "References to net income relate to net income attributable to Costco.",
			[][]string{{"net income"}, DriverWords}, ""},
		{"a reason of the owners' income", "Net income attributable to Costco increased due to higher sales.",
			[][]string{{"net income"}, DriverWords}, "Net income attributable to Costco increased due to higher sales."},
		// An outlook is a view of what is to come, management's own.
		{"a belief about how things are is no outlook", "We believe that take rate provides a useful measure of monetization.",
			[][]string{{"take rate"}, OutlookWords}, ""},
		{"a belief about what is to come", "We believe take rate will continue to rise.",
			[][]string{{"take rate"}, OutlookWords}, "We believe take rate will continue to rise."},
		{"others' expectations are no outlook", "A failure to meet these expectations for margin could hurt our stock price.",
			[][]string{{"margin"}, {"expect", "anticipate"}}, ""},
		{"our expectation", "Our expectation is that margin improves.",
			[][]string{{"margin"}, {"expect", "anticipate"}}, "Our expectation is that margin improves."},
		{"longer than expected expects nothing", "Margin recovery may take longer than expected.",
			[][]string{{"margin"}, {"expect", "anticipate"}}, ""},
		{"what may move it is no reason", "Modest changes in costs can have substantial impacts on net income.",
			[][]string{{"net income"}, DriverWords}, ""},
		{"what moves it in general is no reason", "Our operating expenses benefit from a stronger dollar.",
			[][]string{{"operating expenses"}, DriverWords}, ""},
		{"a change named as a thing", "The decrease in operating margin is primarily due to slower revenue growth.",
			[][]string{{"operating margin"}, DriverWords}, "The decrease in operating margin is primarily due to slower revenue growth."},
		{"a reason of the year named", "In 2022, operating expenses reflect higher headcount.",
			[][]string{{"operating expenses"}, DriverWords}, "In 2022, operating expenses reflect higher headcount."},
		{"what moved it, hedged elsewhere", "Net income increased due to lower costs, which may not recur.",
			[][]string{{"net income"}, DriverWords}, "Net income increased due to lower costs, which may not recur."},
		{"figure: percent", "Gross margin was 46.2%.", [][]string{margin, {FigureTerm}}, "Gross margin was 46.2%."},
		{"figure: dollars", "Net sales were $391.0 billion.", [][]string{{"net sales"}, {FigureTerm}}, "Net sales were $391.0 billion."},
		{"figure: table row", "Total net sales 391,035 383,285", [][]string{{"net sales"}, {FigureTerm}}, "Total net sales 391,035 383,285"},
		{"a year is no figure", "Net sales in 2024 rose.", [][]string{{"net sales"}, {FigureTerm}}, ""},
		{"count: people", "As of June 30, 2021, we employed approximately 181,000 people.", [][]string{{"employ"}, {CountTerm}}, "As of June 30, 2021, we employed approximately 181,000 people."},
		{"count: not dollars", "Employees may not purchase more than $25,000 of stock.", [][]string{{"employee"}, {CountTerm}}, ""},
		{"count: not a percentage or money", "Employee costs were 1,234 million, or 12,500.5 per head.", [][]string{{"employee"}, {CountTerm}}, ""},
		{"count: a scaled count", "We employed approximately 2.3 million associates worldwide.", [][]string{{"employ"}, {CountTerm}}, "We employed approximately 2.3 million associates worldwide."},
		{"count: a scaled amount is no count", "Employee costs rose $2.3 million and 1.5 million in fees.", [][]string{{"employee"}, {CountTerm}}, ""},
		{"subject: a part named as the reason", "Server products and cloud services revenue increased $14.7 billion or 28% driven by Azure and other cloud services.", [][]string{{"azure"}, {"revenue"}, {AmountTerm}, {SubjectTerm + "azure"}}, ""},
		{"subject: a part named in a whole's list", "Our Microsoft Cloud revenue, which includes Azure and other cloud services, was $91.2 billion in fiscal year 2022.", [][]string{{"azure"}, {"revenue"}, {AmountTerm}, {SubjectTerm + "azure"}}, ""},
		{"subject: the part's own figure", "Azure and other cloud services revenue grew 45% driven by growth in our consumption-based services.", [][]string{{"azure"}, {"revenue"}, {FigureTerm}, {SubjectTerm + "azure"}}, "Azure and other cloud services revenue grew 45% driven by growth in our consumption-based services."},
		{"level: a change's amount is no level", "LinkedIn revenue increased $3.5 billion or 34% driven by a strong job market.", [][]string{{"linkedin"}, {"revenue"}, {LevelTerm}}, ""},
		{"level: the level beside its change", "YouTube ads revenues were $36.1 billion, an increase of $4.6 billion.", [][]string{{"youtube"}, {"revenue"}, {LevelTerm}}, "YouTube ads revenues were $36.1 billion, an increase of $4.6 billion."},
		{"count: shares are no headcount", "Under the 2006 Plan, 866 million shares of common stock have been authorized for issuance as equity awards to employees.", [][]string{{"employee"}, {CountTerm}}, ""},
		{"count: people before the number", "We invest in our highly-skilled global workforce of 110,600 people by seeking to create a safe workplace.", [][]string{{"workforce"}, {CountTerm}}, "We invest in our highly-skilled global workforce of 110,600 people by seeking to create a safe workplace."},
		{"count: the second number counts", "For $1,000 each, 74,067 employees were trained.", [][]string{{"employee"}, {CountTerm}}, "For $1,000 each, 74,067 employees were trained."},
		{"case-insensitive", "MANAGEMENT EXPECTS GROSS MARGIN TO REMAIN UNDER PRESSURE.", [][]string{margin, OutlookWords},
			"MANAGEMENT EXPECTS GROSS MARGIN TO REMAIN UNDER PRESSURE."},
		{"no groups matches the first sentence", "One. Two.", nil, "One."},
	}
	for _, tt := range tests {
		got, ok := SentenceMatch(tt.text, tt.groups)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("%s: SentenceMatch(%q) = %q, %v; want %q", tt.name, tt.text, got, ok, tt.want)
		}
		if ok && !strings.Contains(tt.text, got) {
			t.Errorf("%s: %q is not verbatim", tt.name, got)
		}
	}
}

// checkLedger is a run that found passages and facts for AAPL and NVDA.
func checkLedger() *ledger.RunLedger {
	ev := func(id, kind, ticker, period, form, excerpt string) ledger.Evidence {
		return ledger.Evidence{ID: id, Kind: ledger.EvidenceKind(kind), Ticker: ticker, Period: period, Form: form, Excerpt: excerpt, DocumentID: "d-" + ticker}
	}
	return &ledger.RunLedger{
		Requirements: []ledger.Requirement{
			{ID: "AAPL-explanation", Evidence: []string{"E1", "E2", "E3", "E4"}},
			{ID: "NVDA-explanation", Evidence: []string{"E5"}},
			{ID: "AAPL-calc", Evidence: []string{"E10", "E11"}},
		},
		Evidence: []ledger.Evidence{
			ev("E1", "passage", "AAPL", "FY2024", "10-K", "Net sales rose. Services gross margin was flat."),
			ev("E2", "passage", "AAPL", "FY2024", "10-K", "Products gross margin percentage increased due to cost savings and a different mix."),
			ev("E3", "passage", "AAPL", "FY2023", "10-K", "Gross margin decreased due to weaker currencies."),
			ev("E4", "passage", "NVDA", "FY2024", "10-K", "Gross margin increased due to data center mix."),
			ev("E5", "passage", "NVDA", "FY2023", "10-K", "Gross margin decreased primarily due to inventory provisions."),
			ev("E6", "passage", "AAPL", "FY2024", "10-K", "Gross margin increased due to leverage."), // not linked
			ev("E10", "fact", "AAPL", "FY2024", "10-K", "391,035"),
			ev("E11", "fact", "AAPL", "FY2024", "10-K", "210,352"),
			ev("E12", "fact", "NVDA", "FY2023", "10-K", "26,974"),
			ev("E13", "fact", "AAPL", "FY2024", "10-K", "383,285"),
			ev("E14", "fact", "AAPL", "FY2025", "10-Q", "94,036"),
		},
		Facts: []ledger.Fact{
			{EvidenceID: "E10", Concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", Value: decimal.RequireFromString("391035000000"), Unit: "USD", Period: "2023-10-01/2024-09-28"},
			{EvidenceID: "E11", Concept: "CostOfGoodsAndServicesSold", Value: decimal.RequireFromString("210352000000"), Unit: "USD", Period: "2023-10-01/2024-09-28"},
			{EvidenceID: "E12", Concept: "us-gaap:Revenues", Value: decimal.RequireFromString("26974000000"), Unit: "USD", Period: "2022-01-31/2023-01-29"},
			// The prior year's comparative, shown in the FY2024 filing.
			{EvidenceID: "E13", Concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", Value: decimal.RequireFromString("383285000000"), Unit: "USD", Period: "2022-09-25/2023-09-30"},
			// A quarter of a 10-Q.
			{EvidenceID: "E14", Concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", Value: decimal.RequireFromString("94036000000"), Unit: "USD", Period: "2025-03-30/2025-06-28"},
		},
	}
}

func TestCheck(t *testing.T) {
	l := checkLedger()
	margin := [][]string{{"gross margin", "margin"}, DriverWords}
	revenue := []string{"us-gaap:Revenues", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"}
	tests := []struct {
		name  string
		req   Requirement
		calcs map[string]bool
		met   map[string]bool
		want  []string
		ok    bool
	}{
		// The requirement's own passages first, then the run's other
		// passages of the issuer and period (E6, gathered for none).
		{"passage: issuer and period match, linked first, best first",
			Requirement{ID: "AAPL-explanation", Issuer: "AAPL", Period: "FY2024", Completion: Condition{Kind: CondPassage, Issuer: "AAPL", Period: "FY2024", AllOf: margin}},
			nil, nil, []string{"E2", "E6"}, true},
		{"passage: without a period, every year counts",
			Requirement{ID: "AAPL-explanation", Issuer: "AAPL", Completion: Condition{Kind: CondPassage, Issuer: "AAPL", AllOf: margin}},
			nil, nil, []string{"E2", "E3", "E6"}, true},
		{"passage: another issuer's evidence does not count",
			Requirement{ID: "AAPL-explanation", Issuer: "NVDA", Completion: Condition{Kind: CondPassage, Issuer: "NVDA", AllOf: margin}},
			nil, nil, []string{"E4", "E5"}, true},
		{"passage: another requirement's passage of the period asked counts",
			Requirement{ID: "NVDA-explanation", Issuer: "NVDA", Period: "FY2024", Completion: Condition{Kind: CondPassage, Issuer: "NVDA", Period: "FY2024", AllOf: margin}},
			nil, nil, []string{"E4"}, true},
		{"passage: wrong period",
			Requirement{ID: "NVDA-explanation", Issuer: "NVDA", Period: "FY2022", Completion: Condition{Kind: CondPassage, Issuer: "NVDA", Period: "FY2022", AllOf: margin}},
			nil, nil, nil, false},
		{"passage: nothing linked",
			Requirement{ID: "unlinked", Issuer: "AAPL", Completion: Condition{Kind: CondPassage, Issuer: "AAPL", AllOf: margin}},
			nil, nil, nil, false},
		{"passage: words in two sentences do not count",
			Requirement{ID: "AAPL-explanation", Issuer: "AAPL", Period: "FY2024", Completion: Condition{Kind: CondPassage, Issuer: "AAPL", Period: "FY2024", AllOf: [][]string{{"net sales"}, {"margin"}}}},
			nil, nil, nil, false},
		{"fact: any fact of the run, qualified or not",
			Requirement{ID: "r", Issuer: "AAPL", Period: "FY2024", Completion: Condition{Kind: CondFact, Issuer: "AAPL", Period: "FY2024", Concepts: []string{"us-gaap:CostOfRevenue", "us-gaap:CostOfGoodsAndServicesSold"}}},
			nil, nil, []string{"E11"}, true},
		{"fact: the period is read from the fact's dates",
			Requirement{ID: "r", Issuer: "AAPL", Period: "FY2024", Completion: Condition{Kind: CondFact, Issuer: "AAPL", Period: "FY2024", Concepts: revenue}},
			nil, nil, []string{"E10"}, true},
		{"fact: the prior year's comparative in the same filing",
			Requirement{ID: "r", Issuer: "AAPL", Period: "FY2023", Completion: Condition{Kind: CondFact, Issuer: "AAPL", Period: "FY2023", Concepts: revenue}},
			nil, nil, []string{"E13"}, true},
		{"fact: a fiscal year ending in January",
			Requirement{ID: "r", Issuer: "NVDA", Period: "FY2023", Completion: Condition{Kind: CondFact, Issuer: "NVDA", Period: "FY2023", Concepts: revenue}},
			nil, nil, []string{"E12"}, true},
		{"fact: a 10-Q quarter counts for its year",
			Requirement{ID: "r", Issuer: "AAPL", Period: "FY2025", Completion: Condition{Kind: CondFact, Issuer: "AAPL", Period: "FY2025", Concepts: revenue}},
			nil, nil, []string{"E14"}, true},
		{"fact: another issuer",
			Requirement{ID: "r", Issuer: "GOOGL", Completion: Condition{Kind: CondFact, Issuer: "GOOGL", Concepts: revenue}},
			nil, nil, nil, false},
		{"fact: another concept",
			Requirement{ID: "r", Issuer: "AAPL", Completion: Condition{Kind: CondFact, Issuer: "AAPL", Concepts: []string{"us-gaap:GrossProfit"}}},
			nil, nil, nil, false},
		{"calculation: done",
			Requirement{ID: "AAPL-calc", Completion: Condition{Kind: CondCalculation, Of: []string{"a", "b"}}},
			map[string]bool{"AAPL-calc": true}, nil, []string{"E10", "E11"}, true},
		{"calculation: not done",
			Requirement{ID: "AAPL-calc", Completion: Condition{Kind: CondCalculation, Of: []string{"a", "b"}}},
			map[string]bool{"other": true}, nil, nil, false},
		{"comparable: all met",
			Requirement{ID: "cmp", Completion: Condition{Kind: CondComparable, Of: []string{"a", "b"}}},
			nil, map[string]bool{"a": true, "b": true}, nil, true},
		{"comparable: one missing",
			Requirement{ID: "cmp", Completion: Condition{Kind: CondComparable, Of: []string{"a", "b"}}},
			nil, map[string]bool{"a": true}, nil, false},
		{"unknown kind",
			Requirement{ID: "x", Completion: Condition{Kind: "vibes"}},
			nil, nil, nil, false},
	}
	for _, tt := range tests {
		got, ok := Check(tt.req, l, tt.calcs, tt.met)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("%s: Check = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFactInPeriod(t *testing.T) {
	annual := ledger.Evidence{Form: "10-K", Period: "FY2024"}
	quarterly := ledger.Evidence{Form: "10-Q", Period: "FY2025"}
	tests := []struct {
		name       string
		factPeriod string
		e          ledger.Evidence
		period     string
		want       bool
	}{
		{"a year ending in the fiscal year", "2023-10-01/2024-09-28", annual, "FY2024", true},
		{"the prior year's comparative", "2022-09-25/2023-09-30", annual, "FY2024", false},
		{"the comparative for its own year", "2022-09-25/2023-09-30", annual, "FY2023", true},
		{"a 52/53-week year ending early in January", "2022-01-31/2023-01-29", annual, "FY2022", false},
		{"ending in the first two weeks of the next year", "2022-01-10/2023-01-08", annual, "FY2022", true},
		{"ending after those two weeks", "2022-01-20/2023-01-20", annual, "FY2022", false},
		{"an instant in the year", "2024-09-28", annual, "FY2024", true},
		{"a quarter of a 10-K is not the year", "2024-06-30/2024-09-28", annual, "FY2024", false},
		{"a quarter of a 10-Q counts for its year", "2024-12-29/2025-03-29", quarterly, "FY2025", true},
		{"unreadable dates: the evidence's label", "FY2024", annual, "FY2024", true},
		{"unreadable dates, another label", "sometime", annual, "FY2023", false},
		{"a broken range: the evidence's label", "2023-10-01/never", annual, "FY2024", true},
		{"a period that is not a fiscal year: the label", "2023-10-01/2024-09-28", annual, "2024", false},
	}
	for _, tt := range tests {
		f := ledger.Fact{Concept: "us-gaap:Revenues", Period: tt.factPeriod}
		if got := FactInPeriod(f, tt.e, tt.period); got != tt.want {
			t.Errorf("%s: FactInPeriod(%q, %s %s, %q) = %v, want %v", tt.name, tt.factPeriod, tt.e.Form, tt.e.Period, tt.period, got, tt.want)
		}
	}
}

func TestFiscalYearOf(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"FY2024", 2024, true}, {"FY1999", 1999, true},
		{"FY24", 0, false}, {"fy2024", 0, false}, {"2024", 0, false}, {"FY20245", 0, false}, {"FYabcd", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		if got, ok := FiscalYearOf(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("FiscalYearOf(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzSentences(f *testing.F) {
	for _, s := range []string{
		"Net sales rose. Did margins fall? Yes!",
		"Apple Inc. in the U.S. e.g. 46.2% growth.\n\nNext\f\nPage",
		"Products gross margin increased due to mix, partially\noffset by currencies.",
		"Revenue | $ 60,922 | 126 %\n", "”.” .", "a.\u00a0B", "\f\f\n\n", "x. y. Z. ..",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		spans := sentenceSpans(text)
		sentences := Sentences(text)
		if len(spans) != len(sentences) {
			t.Fatalf("%d spans, %d sentences", len(spans), len(sentences))
		}
		covered := make([]bool, len(text))
		prev := 0
		for i, sp := range spans {
			s := sentences[i]
			if sp[0] < prev || sp[1] <= sp[0] || sp[1] > len(text) {
				t.Fatalf("span %v out of order or empty (previous end %d) in %q", sp, prev, text)
			}
			prev = sp[1]
			if s != text[sp[0]:sp[1]] {
				t.Fatalf("sentence %q is not its span of the text", s)
			}
			if strings.TrimSpace(s) != s {
				t.Fatalf("sentence %q is not trimmed", s)
			}
			if strings.ContainsRune(s, '\f') || strings.Contains(s, "\n\n") {
				t.Fatalf("sentence %q crosses a page break or blank line", s)
			}
			for k := sp[0]; k < sp[1]; k++ {
				covered[k] = true
			}
		}
		for k, r := range text {
			if !covered[k] && !unicode.IsSpace(r) {
				t.Fatalf("byte %d (%q) of %q is in no sentence", k, r, text)
			}
		}
		// Matching never panics and returns a sentence of the text.
		if s, ok := SentenceMatch(text, [][]string{{"margin", "ai"}, {FigureTerm}}); ok && !strings.Contains(text, s) {
			t.Fatalf("match %q is not verbatim", s)
		}
	})
}

// TestAmountTerm: an amount is money or a count, not a rate.
func TestAmountTerm(t *testing.T) {
	for s, want := range map[string]bool{
		"DCG revenue was $26.1 billion":  true,
		"DCG revenue was 26,103":         true,
		"DCG revenue was up 9%":          false,
		"revenue grew 12 percent":        false,
		"revenue of 4.2 billion in 2020": true,
		"in 2020 revenue rose":           false,
	} {
		if got := termIn(normalizeText(s), AmountTerm); got != want {
			t.Errorf("termIn(%q, AmountTerm) = %v, want %v", s, got, want)
		}
	}
}

// A number of things asked with "how many" is met by that number however
// small, next to the thing counted, and by nothing else that looks like a
// number.
func TestStatesNumberOf(t *testing.T) {
	tests := []struct {
		text, noun string
		want       bool
	}{
		{"We opened 26 new warehouses, including three relocations, in 2022.", "warehouses", true},
		{"At August 28, 2022, we operated 838 membership warehouses:", "warehouses", true},
		{"we employed approximately 2.3 million associates worldwide", "associates", true},
		{"Total paid members 65,800 61,700 58,100", "members", true},
		{"Our warehouses on average operate on a seven-day, 70-hour week.", "warehouses", false},
		{"a 401(k) type plan for associates in Puerto Rico", "associates", false},
		{"In 2022 our warehouses grew.", "warehouses", false},
		{"We spent $5 on new warehouses.", "warehouses", false},
		{"Sales rose 5% at warehouses.", "warehouses", false},
		{"We opened 26 new stores.", "warehouses", false},
		// A number of actions is counted after the verb of the action.
		{"and plan to open approximately up to 29 additional new warehouses, including four relocations, in 2023.", "openings", true},
		{"We closed 12 warehouses in 2022.", "closings", true},
		{"We opened 26 new warehouses in 2022.", "closings", false},
		{"The opening balance was 29 million.", "openings", false},
	}
	for _, tt := range tests {
		if got := termIn(normalizeText(tt.text), NumberTerm+tt.noun); got != tt.want {
			t.Errorf("%q, %s: %v, want %v", tt.text, tt.noun, got, tt.want)
		}
	}
}

// FuzzStatesNumberOf reads any text without panicking.
func FuzzStatesNumberOf(f *testing.F) {
	f.Add("We opened 26 new warehouses, including three relocations, in 2022.", "warehouses")
	f.Add("Total paid members 65,800 61,700 58,100", "members")
	f.Add("$ 5.5 million (k) 401", "k")
	f.Fuzz(func(t *testing.T, text, noun string) {
		termIn(normalizeText(text), NumberTerm+noun)
	})
}

// TestExpectedFigure: a forecast asked as a number is met by a figure
// stated as expected, not by a past figure beside an expectation of
// something else.
func TestExpectedFigure(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"Net sales are expected to be between $151.0 billion and $155.5 billion.":                                 true,
		"We anticipate making capital expenditures of approximately $60 billion to $65 billion in 2025.":          true,
		"It is our current intention to spend approximately $3,800 to $4,000 during fiscal 2023.":                 true,
		"As of December 31, 2024, total deferred revenue was $1,521 million, which is expected to be recognized.": false,
		"We expect revenue to continue to grow.":                                                                  false,
		"Revenue was $9.8 billion. We expect growth.":                                                             false,
	} {
		if got := termIn(normalizeText(s), ExpectedTerm); got != want {
			t.Errorf("termIn(%q, ExpectedTerm) = %v, want %v", s, got, want)
		}
	}
	if !asksForecastFigure.MatchString("What revenue does Netflix forecast for 2025?") || asksForecastFigure.MatchString("What does Apple expect for gross margin in fiscal 2025?") {
		t.Error("asksForecastFigure: want a figure asked by name, not an expectation asked in words")
	}
}

// A figure stated in a sentence that points back ("The transaction ...")
// to one naming its subject a sentence or two before, in the same
// paragraph, meets a condition on the question's own words; the run of
// sentences is the match, verbatim. One sentence stating it all wins; a
// sentence that does not point back, another paragraph, or a lexicon's
// alternatives do not count.
func TestSentenceMatchRun(t *testing.T) {
	t.Parallel()
	deal := "On October 19, 2020, we signed an agreement with SK hynix to divest our NAND memory business. " +
		"Our Optane business is excluded from the transaction. " +
		"The transaction will occur over two closings for total consideration of $9.0 billion in cash."
	named := [][]string{{"nand"}, {"hynix"}, {FigureTerm}}
	tests := []struct {
		name, text string
		groups     [][]string
		want       string
	}{
		{"subject two sentences before", deal, named, deal},
		{"one sentence states it all",
			deal + " SK hynix will pay $2.0 billion more for the NAND business at the second closing.", named,
			"SK hynix will pay $2.0 billion more for the NAND business at the second closing."},
		{"does not point back",
			"We signed an agreement with SK hynix to divest our NAND memory business. Revenue was $77.9 billion.", named, ""},
		{"another paragraph",
			"We signed an agreement with SK hynix to divest our NAND memory business.\n\nThe transaction is worth $9.0 billion.", named, ""},
		{"too far before",
			"We signed an agreement with SK hynix to divest our NAND memory business. It closes in 2021. It needs approvals. The price is $9.0 billion.", named, ""},
		{"a lexicon's alternatives",
			"We hedge changes attributable to interest rates. The total notional amount of these swaps was $12.0 billion.",
			[][]string{{"interest rate", "inflation"}, {"attributable", "due to"}, {FigureTerm}}, ""},
		// The figure's own sentence names the figure (a group of
		// alternatives) and points back inside it.
		{"a determiner points back inside the figure's sentence",
			"We extended the useful lives of our server equipment. Based on its carrying amount, the effect of this change was an increase in operating income of $2.7 billion.",
			[][]string{{"server"}, {"useful"}, {"operating income", "income from operations"}, {FigureTerm}},
			"We extended the useful lives of our server equipment. Based on its carrying amount, the effect of this change was an increase in operating income of $2.7 billion."},
		{"the figure's name in the sentence before does not count",
			"Operating income rose on our server equipment. Based on its carrying amount, the effect of this change was $2.7 billion.",
			[][]string{{"server"}, {"operating income", "income from operations"}, {FigureTerm}}, ""},
		{"this year points back to nothing",
			"We extended the useful lives of our server equipment. Operating income this year was $2.7 billion.",
			[][]string{{"server"}, {"useful"}, {"operating income", "income from operations"}, {FigureTerm}}, ""},
	}
	for _, tt := range tests {
		got, ok := SentenceMatch(tt.text, tt.groups)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: SentenceMatch = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
}

func TestRowOmitsOwnPeriod(t *testing.T) {
	tests := []struct {
		row  string
		want bool
	}{
		{"DVD revenues (1) | — | 82,839 | 145,698 | (100)%", true},
		{"DVD revenues (1) | $ | — | $ | 82,839", true},
		{"Streaming revenues | 39,000,966 | 33,640,458 | 31,469,852 | 16%", false},
		{"Other income | 1,204 | — | (55)", false},
		{"DVD revenues (1) — 82,839 145,698 (100)%", true},
		{"Net sales $ — $ 4,110", true},
		{"Net sales 4,110 — 3,001", false},
		// Prose with a dash is no row.
		{"Revenue — which grew 5% — reached $4,110 million in 2024.", false},
		{"Our outlook — 2,000 new stores over time.", false},
	}
	for _, tt := range tests {
		if got := RowOmitsOwnPeriod(tt.row); got != tt.want {
			t.Errorf("RowOmitsOwnPeriod(%q) = %v, want %v", tt.row, got, tt.want)
		}
	}
}

func TestDashRowMeetsNoFigure(t *testing.T) {
	groups := [][]string{{"DVD"}, {"revenue"}, {AmountTerm}}
	if _, ok := SentenceMatch("DVD revenues (1) | — | 82,839 | 145,698 | (100)%", groups); ok {
		t.Error("a row printing no value for the filing's period met a figure condition")
	}
	if _, ok := SentenceMatch("DVD revenues (1) | 82,839 | 145,698 | (43)%", groups); !ok {
		t.Error("a row printing the period's value did not meet the figure condition")
	}
}

// TestOtherYearFigure: a sentence stating a figure that names years, none
// of them the year asked, states another year's figure; one naming the
// year asked, or none, may state it, and a condition asking no figure is
// not read by year.
func TestOtherYearFigure(t *testing.T) {
	t.Parallel()
	m := compileGroups([][]string{{"members"}, {NumberTerm + "members"}})
	m.year = 2022
	for s, want := range map[string]bool{
		"At the end of 2020, the change added 2.0 million total cardholders for 2020, of which 1.3 million were paid members.": true,
		"At the end of 2022, we had 65.8 million paid members.":                                                                false,
		"We had 65.8 million paid members.":                                                                                    false,
		"Paid members grew from 61.7 million in 2021 to 65.8 million in 2022.":                                                 false,
		"Paid members increased 4.2 million, or 7%, compared to 2021.":                                                         false, // the asked year against the one before
		"Paid members were 61.7 million in 2021.":                                                                              true,
	} {
		if got := m.otherYear(s); got != want {
			t.Errorf("otherYear(%q) = %v, want %v", s, got, want)
		}
	}
	words := compileGroups([][]string{{"members"}})
	words.year = 2022
	if words.otherYear("In 2020 our members renewed.") {
		t.Error("a condition asking no figure read by year")
	}
	if _, _, ok := m.best("At the end of 2020, the change added 2.0 million total cardholders for 2020, of which 1.3 million were paid members."); ok {
		t.Error("best: another year's figure met the condition")
	}
}

// TestIntendedUseExpectsNothing: "intended" as an adjective ("ready for our
// intended use") expects nothing; "intend to" does.
func TestIntendedUseExpectsNothing(t *testing.T) {
	t.Parallel()
	outlook, ok := AspectByName("outlook")
	if !ok {
		t.Fatal("no outlook aspect")
	}
	m := compileGroups([][]string{{"depreciation"}, outlook.ExplainGroups()[0]})
	if _, _, ok := m.best("Depreciation of our property and equipment commences when the assets are ready for our intended use."); ok {
		t.Error("\"intended use\" met an outlook condition")
	}
	if _, _, ok := m.best("We intend to extend the depreciation period of our servers."); !ok {
		t.Error("\"intend to\" did not meet an outlook condition")
	}
}

// mayMatch is a necessary condition of a match: wherever a sentence (or a
// run) of a passage meets the groups, mayMatch holds of the passage,
// terms read against their sentence included.
func TestMayMatchNecessary(t *testing.T) {
	texts := []string{
		"Revenue rose due to cloud. Azure and other cloud services revenue grew 45%.",
		"Server products revenue increased $14.7 billion driven by Azure. Azure revenue grew 45%.",
		"We extended the useful lives of our servers. The effect of this change was an increase in operating income of $2.7 billion.",
		"Net income attributable to Costco increased due to higher sales. Revenue was $226,954.",
		"We believe that margin provides a useful measure. We believe margin will continue to rise.",
	}
	groups := [][][]string{
		{{SubjectTerm + "azure"}, {"revenue"}, {FigureTerm}},
		{{"revenue"}, DriverWords},
		{{"server"}, {"useful"}, {"operating income", "income from operations"}, {FigureTerm}},
		{{"net income"}, DriverWords},
		{{"margin"}, OutlookWords},
		{{"revenue"}, {LevelTerm}},
	}
	for _, text := range texts {
		for _, g := range groups {
			m := compileGroups(g)
			if _, _, ok := m.best(text); ok && !m.mayMatch(text) {
				t.Errorf("%q meets %v, but mayMatch says it cannot", text, g)
			}
		}
	}
}

// A number of billions counts things as millions do; with a dollar sign
// it is money.
func TestStatesNumberOfBillions(t *testing.T) {
	for s, want := range map[string]bool{
		"at the end of 2022, ebay had 134 million active buyers and approximately 1.7 billion live listings globally": true,
		"listing fees of $1.7 billion in live listings revenue":                                                       false,
	} {
		if got := statesNumberOf(s, "listings"); got != want {
			t.Errorf("statesNumberOf(%q, listings) = %v; want %v", s, got, want)
		}
	}
}

// TestOutlookNotPast: what remained or continued in the year is told, not
// expected; the same verbs ahead of the time ("expected to remain", "will
// continue") look forward.
func TestOutlookNotPast(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"As of January 31, 2022, authorization for $10.6 billion of share repurchases remained under the program.", false},
		{"We continued to invest in our fulfillment network.", false},
		{"We expect gross margin to remain within the range of our outlook.", true},
		{"Authorization remains available for future repurchases.", true},
		{"We will continue to be sufficient to meet our anticipated cash requirements.", true},
		{"Revenue growth continues, as it continued last year.", true},
	} {
		if _, got := SentenceMatch(tt.text, [][]string{OutlookWords}); got != tt.want {
			t.Errorf("SentenceMatch(%q, OutlookWords) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
