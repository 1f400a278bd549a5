package planner

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
)

// TestInitialsAreOneItem: initials joined by "&" ("SG&A") are one item of
// a list, the figure the catalogue names by them, never the item "SG";
// and an operand of a formula the question does not define ("plus the YoY
// % change for each") plans no lookup of a row that happens to hold its
// words.
func TestInitialsAreOneItem(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("n23", []FigureEntry{
		{Key: "us-gaap:ResearchAndDevelopmentExpense", Concept: "us-gaap:ResearchAndDevelopmentExpense", Label: "Research and development", Money: true},
		{Key: "us-gaap:SellingGeneralAndAdministrativeExpense", Concept: "us-gaap:SellingGeneralAndAdministrativeExpense", Label: "Sales, general and administrative", Money: true},
		{Key: "us-gaap:OtherComprehensiveIncomeAvailableforsaleSecuritiesAdjustmentNetOfTaxPortionAttributableToParent",
			Concept: "us-gaap:OtherComprehensiveIncomeAvailableforsaleSecuritiesAdjustmentNetOfTaxPortionAttributableToParent", Label: "Net change in unrealized loss", Money: true},
	})
	for _, q := range []string{
		"Updating my NVDA model — need the FY23 (year ended Jan 29, 2023) opex split: R&D and SG&A in dollars, plus the YoY % change for each.",
		"NVIDIA FY2023: R&D, SG&A, and the YoY change in each?",
	} {
		_, g := planFor(t, cat, q, 0)
		ids := reqIDs(g)
		if slices.ContainsFunc(ids, func(id string) bool { return strings.HasSuffix(id, "-figure-sg") || strings.Contains(id, "unrealized") }) {
			t.Errorf("%q: requirements %v: an item of half the initials, or a row no figure asked", q, ids)
		}
		if !slices.ContainsFunc(ids, func(id string) bool { return strings.HasSuffix(id, "-figure-sga_expense") }) {
			t.Errorf("%q: requirements %v: SG&A is not looked up", q, ids)
		}
	}
}

// TestRowsListedBeforeAWhy: rows a clause lists ("GMV and take rate")
// before a comma that asks why are each asked, as figures of their own.
func TestRowsListedBeforeAWhy(t *testing.T) {
	t.Parallel()
	cat := streamerCatalog()
	row := func(label string, start int) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.NewFromInt(int64(start)), Unit: "USD", Start: start, End: start + 1,
			PeriodStart: time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC), PeriodEnd: time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC)}
	}
	cat.SetFigures("s22", FigureEntries([]corpus.Fact{row("Total revenues", 1), row("GMV (2)", 3), row("Take rate", 5)}))
	q := "strm fy22: GMV and take rate, and why did revenues fall so much less than GMV?"
	_, g := planFor(t, cat, q, 0)
	keys := lookups(t, g)
	for _, want := range []string{"table:GMV (2) FY2022", "table:Take rate FY2022"} {
		if !slices.Contains(keys, want) {
			t.Errorf("%q: lookups %q lack %q", q, keys, want)
		}
	}
}

// TestFormulaOperandPeriod: the period an operand ends with ("dividends
// paid in the quarter") says when, not what, and the words that name a
// period name no formula.
func TestFormulaOperandPeriod(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("a23qt", []FigureEntry{
		{Key: "us-gaap:PaymentsForRepurchaseOfCommonStock", Concept: "us-gaap:PaymentsForRepurchaseOfCommonStock", Label: "Repurchases of common stock", Money: true},
		{Key: "us-gaap:PaymentsOfDividends", Concept: "us-gaap:PaymentsOfDividends", Label: "Payments for dividends and dividend equivalents", Money: true},
	})
	q := "AAPL June qtr FY23 (ended 7/1/23): buybacks + dividends paid in the quarter, and total capital returned?"
	_, g := planFor(t, cat, q, 0)
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-formula-") })
	if i < 0 {
		t.Fatalf("%q: requirements %v: no formula", q, reqIDs(g))
	}
	if topic := g.Requirements[i].Completion.Topic; strings.Contains(topic, "qtr") || strings.Contains(topic, "quarter") {
		t.Errorf("%q: the formula is named %q, by the period", q, topic)
	}
}

// TestExpectationAskedAsANumber: an expectation asked as a number ("How
// many dollars of capital expenditures has Alphabet guided for 2025") is
// met by a sentence stating the figure expected; one asked in words is
// met by any sentence expecting something of the figure.
func TestExpectationAskedAsANumber(t *testing.T) {
	cat := smallCatalog()
	for q, want := range map[string]bool{
		"How many dollars of capital expenditures has Alphabet guided for 2025 in its 2024 annual report?": true,
		"Does Alphabet expect its capital expenditures to keep rising after 2024?":                         false,
		"Does Alphabet expect capex to keep rising, and how much did it spend in 2024?":                    false,
	} {
		_, g := planFor(t, cat, q, 0)
		found, expected := false, false
		for _, r := range g.Requirements {
			if r.Kind != KindOutlook {
				continue
			}
			found = true
			expected = expected || slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool { return slices.Contains(g, ExpectedTerm) })
		}
		if !found {
			t.Errorf("%q: requirements %v: no outlook", q, reqIDs(g))
		} else if expected != want {
			t.Errorf("%q: the outlook asks a figure expected = %v, want %v", q, expected, want)
		}
	}
}

// TestMoveSizeAsked: the size of a move is asked by "by how much" or "how
// big was the drop", not by the move alone.
func TestMoveSizeAsked(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"Walmart International sales dropped in FY22 — by how much, and what was behind it?": true,
		"How much did NVIDIA's revenue grow in fiscal 2023, and what drove it?":              true,
		"Sales fell in 2022; how big was the decline?":                                       true,
		"Walmart International sales dropped in FY22 — what was behind it?":                  false,
		"How much did Walmart spend on buybacks in FY22?":                                    false,
	} {
		if got := moveSizeAsked.MatchString(q); got != want {
			t.Errorf("moveSizeAsked(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestSubjectlessClauses: a clause asking how much of the thing named
// before it there is ("how much isn't on the balance sheet yet") asks that
// thing narrowed by its own words, a sentence stating it or a gap, never
// the thing's figure again; a clause joined by "and" keeps its asking word.
func TestSubjectlessClauses(t *testing.T) {
	t.Parallel()
	if got := askClauses("content obligations — total, and how much is due within 12 months?"); !slices.ContainsFunc(got, func(c string) bool {
		return strings.HasSuffix(c, "how much is due within 12 months")
	}) {
		t.Errorf("askClauses = %q, want the clause with its asking word", got)
	}
	cat := streamerCatalog()
	cat.SetFigures("s22", FigureEntries([]corpus.Fact{
		{Kind: corpus.FactTable, Label: "Content obligations", Value: decimal.NewFromInt(23248931000), Unit: "USD", Start: 1, End: 2,
			Instant: true, PeriodEnd: time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC)},
	}))
	q := "STRM content obligations at Dec 31, 2022 — total, how much isn't on the balance sheet yet, and how much is due within the next 12 months?"
	_, g := planFor(t, cat, q, 0)
	for _, want := range []string{"STRM-FY2022-figure-content-obligations-balance-sheet", "STRM-FY2022-figure-content-obligations-due"} {
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.HasPrefix(r.ID, want) })
		if i < 0 {
			t.Errorf("requirements %v lack %s", reqIDs(g), want)
			continue
		}
		if r := g.Requirements[i]; r.Completion.Kind != CondPassage || !r.Required {
			t.Errorf("%s: %+v; want a required sentence stating it", want, r.Completion)
		}
	}
	if got := subjectlessItem(&builder{cat: cat, question: "How much isn't on the balance sheet?", g: &Graph{}}, "How much isn't on the balance sheet?"); got != "" {
		t.Errorf("a clause with nothing named before it: %q, want none", got)
	}
}

func subjectlessItem(b *builder, clause string) string { return b.subjectlessItem(clause) }

// TestExpectationOfWhatWasNamed: "that relief" in the clause asking an
// expectation points back at the figure named before ("interest expense
// fell"), which is the expectation's topic; with nothing named before,
// the noun itself is.
func TestExpectationOfWhatWasNamed(t *testing.T) {
	cat := smallCatalog()
	for q, want := range map[string][]string{
		"Apple's interest expense fell in 2024. Does management expect that relief to last into 2025?": {"interest", "expense"},
		"Does Apple expect that relief to last into 2025?":                                             {"relief"},
	} {
		b := newBuilder(q, RouteQuestion(q, cat, nil), cat)
		if got := b.expectedTopic(); !slices.Equal(got, want) {
			t.Errorf("%q: expected topic %q, want %q", q, got, want)
		}
	}
}

// TestVerbNamesRow: "how many did it add", asked of a thing named before,
// is the row a noun of the verb labels ("Paid net membership additions");
// a verb no row names ("how much did they earn") restates the figure and
// asks nothing more.
func TestVerbNamesRow(t *testing.T) {
	t.Parallel()
	cat := streamerCatalog()
	end := time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC)
	cat.SetFigures("s22", FigureEntries([]corpus.Fact{
		{Kind: corpus.FactTable, Label: "Paid memberships at end of period", Value: decimal.NewFromInt(230747000), Unit: "pure", Start: 1, End: 2, Instant: true, PeriodEnd: end},
		{Kind: corpus.FactTable, Label: "Paid net membership additions", Value: decimal.NewFromInt(8903000), Unit: "pure", Start: 3, End: 4,
			PeriodStart: end.AddDate(-1, 0, 1), PeriodEnd: end},
		{Kind: corpus.FactTable, Label: "Net income", Value: decimal.NewFromInt(4491924000), Unit: "USD", Start: 5, End: 6, PeriodStart: end.AddDate(-1, 0, 1), PeriodEnd: end},
	}))
	q := "how many paid memberships did STRM have at the end of 2022, and how many did it add over the year?"
	_, g := planFor(t, cat, q, 0)
	keys := lookups(t, g)
	for _, want := range []string{"table:Paid memberships at end of period FY2022", "table:Paid net membership additions FY2022"} {
		if !slices.Contains(keys, want) {
			t.Errorf("%q: lookups %q lack %q", q, keys, want)
		}
	}
	// A clause whose subject is written is no subjectless clause.
	if subjectlessDid.MatchString("how much did revenue grow in 2022") || !subjectlessDid.MatchString("how many did Netflix add") {
		t.Error("subjectlessDid reads a written subject as an issuer's name, or an issuer's name as a subject")
	}
	q = "STRM FY22 net income - how much did they earn?"
	_, g = planFor(t, cat, q, 0)
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "earn") }) {
		t.Errorf("%q: requirements %v: a verb no row names is asked as an item", q, reqIDs(g))
	}
}

// TestInitialsAskedAfterAMove: initials a filing labels a row by, named
// with what the figure did ("G&A rose in 2024 — what was the amount, and
// what drove it?"), are that row, looked up, with its explanation met by a
// sentence that names the row as the filing prints it; a cause the
// question claims ("because of ...") is not read this way.
func TestInitialsAskedAfterAMove(t *testing.T) {
	t.Parallel()
	cat := smallCatalog()
	cat.SetFigures("g24", []FigureEntry{
		{Key: "us-gaap:GeneralAndAdministrativeExpense", Concept: "us-gaap:GeneralAndAdministrativeExpense", Label: "General and administrative", Money: true},
		{Key: "us-gaap:ResearchAndDevelopmentExpense", Concept: "us-gaap:ResearchAndDevelopmentExpense", Label: "Research and development", Money: true},
	})
	q := "Alphabet's G&A rose in 2024 — what was the amount, and what drove it?"
	_, g := planFor(t, cat, q, 0)
	if keys := lookups(t, g); !slices.Contains(keys, "us-gaap:GeneralAndAdministrativeExpense FY2024") {
		t.Errorf("%q: lookups %q: G&A is not looked up", q, keys)
	}
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Kind == KindExplanation })
	if i < 0 {
		t.Fatalf("%q: requirements %v: no explanation", q, reqIDs(g))
	}
	if names := g.Requirements[i].Completion.AllOf[0]; !slices.Contains(names, "general and administrative") {
		t.Errorf("%q: the explanation names %q, not the row as the filing prints it", q, names)
	}
	q = "Alphabet's G&A rose in 2024 because of the new campus — what was the amount?"
	_, g = planFor(t, cat, q, 0)
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "explanation-g&a") }) {
		t.Errorf("%q: requirements %v: the claimed cause is not tested", q, reqIDs(g))
	}
}

// TestListedLabelsEachExplained: figures a question lists by the filing's
// labels ("sales & marketing and G&A"), said to have moved and asked why,
// are each looked up and each explained; "the two totals" refers back to
// them and names no row of its own.
func TestListedLabelsEachExplained(t *testing.T) {
	t.Parallel()
	cat := smallCatalog()
	cat.SetFigures("g24", []FigureEntry{
		{Key: "us-gaap:SellingAndMarketingExpense", Concept: "us-gaap:SellingAndMarketingExpense", Label: "Sales and marketing", Money: true},
		{Key: "us-gaap:GeneralAndAdministrativeExpense", Concept: "us-gaap:GeneralAndAdministrativeExpense", Label: "General and administrative", Money: true},
		{Key: "table:Totals", Label: "Totals", Money: true},
	})
	q := "Alphabet's sales & marketing and G&A both went down in 2024. What were the two totals, and why did they fall?"
	_, g := planFor(t, cat, q, 0)
	keys := lookups(t, g)
	for _, want := range []string{"us-gaap:SellingAndMarketingExpense FY2024", "us-gaap:GeneralAndAdministrativeExpense FY2024"} {
		if !slices.Contains(keys, want) {
			t.Errorf("lookups %q lack %q", keys, want)
		}
	}
	if slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(k, "Totals") }) {
		t.Errorf("lookups %q: \"the two totals\" looked up as a row", keys)
	}
	var explained []string
	for _, r := range g.Requirements {
		if r.Kind == KindExplanation {
			explained = append(explained, r.Completion.Topic)
		}
	}
	if !slices.Contains(explained, "sales and marketing") || !slices.Contains(explained, "G&A") {
		t.Errorf("explained %q; want both figures listed", explained)
	}
}

// A figure asked by the question's words and explained is explained
// under the filing's own row label too, where that label is of the
// question's words ("Fulfillment" for "fulfillment expense"): the filing
// speaks of "fulfillment costs".
func TestLabelExplainedByItsRow(t *testing.T) {
	t.Parallel()
	cat := smallCatalog()
	cat.SetFigures("z24", []FigureEntry{{Key: "table:Fulfillment", Label: "Fulfillment", Table: true, Money: true}})
	_, g := planFor(t, cat, "Amazon's fulfillment expense line in 2024: what was it, and what does the 10-K say pushed it up versus 2023?", 0)
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Kind == KindExplanation && r.Required })
	if i < 0 {
		t.Fatalf("no explanation asked: %v", reqIDs(g))
	}
	if names := g.Requirements[i].Completion.AllOf[0]; !slices.Contains(names, "fulfillment") {
		t.Errorf("explanation names %q; want the row's label among them", names)
	}
}

// TestRankedLabelEachIssuer: a figure named by a label that several
// issuers' filings tag with one concept is looked up for each of them;
// "rank them, with each number" asks figures, not a passage on the
// words "rank" and "number".
func TestRankedLabelEachIssuer(t *testing.T) {
	t.Parallel()
	cat := smallCatalog()
	lease := []FigureEntry{{Key: "us-gaap:OperatingLeaseCost", Concept: "us-gaap:OperatingLeaseCost", Label: "Operating lease cost", Money: true}}
	for _, id := range []string{"z24", "g24", "m24"} {
		cat.SetFigures(id, lease)
	}
	q := "Operating lease cost in 2024 — Amazon vs Alphabet vs Meta. Rank them, with each number."
	_, g := planFor(t, cat, q, 0)
	for _, tk := range []string{"AMZN", "GOOGL", "META"} {
		if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return r.Issuer == tk && slices.Contains(r.Completion.Concepts, "us-gaap:OperatingLeaseCost")
		}) {
			t.Errorf("requirements %v: %s's operating lease cost is not looked up", reqIDs(g), tk)
		}
	}
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Aspect == "general" }) {
		t.Errorf("requirements %v: a passage on the question's words", reqIDs(g))
	}
}

// TestActualsAheadAreMissing: a figure asked as actually reported for a
// year after the latest annual report is a requirement of its own, which
// no filing of the corpus meets, beside what management expected for it.
func TestActualsAheadAreMissing(t *testing.T) {
	t.Parallel()
	cat := smallCatalog()
	cat.SetFigures("z24", []FigureEntry{{Key: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
		Concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", Label: "Total net sales", Money: true}})
	for q, want := range map[string]bool{
		"Could you tell me what Amazon actually reported for net sales in Q1 2025, against its guidance?": true,
		"What net sales did Amazon guide for Q1 2025?":                                                    false,
		// What was reported is asked of another year.
		"Amazon guided Q1 2025 net sales; what did it actually report for net sales in fiscal 2024?": false,
	} {
		_, g := planFor(t, cat, q, 0)
		got := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return r.Required && r.Period == "FY2025" && r.Kind == KindFigure && strings.Contains(r.Need, "no filing in the corpus reports that year")
		})
		if got != want {
			t.Errorf("%q: requirements %v: the year's reported figure asked = %v, want %v", q, reqIDs(g), got, want)
		}
	}
}
