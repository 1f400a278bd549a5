package planner

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
)

// TestPlanLabelledFigure: a figure named by a row label of the filing,
// among words that are no part of its name, is looked up by that label,
// and explained where the question asks why; a question whose words name
// no label plans no such figure.
func TestPlanLabelledFigure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		q       string
		fact    bool // a lookup of the row "Interest expense"
		explain bool // an explanation of interest expense
	}{
		{"TXTF's interest expense climbed in fiscal 2022. How much was it, and what does the 10-K attribute the increase to?", true, true},
		{"TXTF's interest expense climbed in fiscal 2022. How much was it?", true, false},
		{"What did TXTF say about hiring in fiscal 2022?", false, false},
	} {
		g := planOf(t, tt.q, "TXTF")
		fact := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return r.Completion.Kind == CondFact && r.Completion.Topic == "interest expense" && r.Required
		})
		explain := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return r.Kind == KindExplanation && len(r.Completion.AllOf) == 2 && slices.Equal(r.Completion.AllOf[0], []string{"interest expense"})
		})
		if fact != tt.fact || explain != tt.explain {
			t.Errorf("%q: requirements %v: figure %v explanation %v, want %v %v", tt.q, reqIDs(g), fact, explain, tt.fact, tt.explain)
		}
	}
}

// TestPlanReportedRatio: a margin asked is computed from the catalogue's
// figures and also looked up as the filing reports it, where a row is so
// labelled.
func TestPlanReportedRatio(t *testing.T) {
	t.Parallel()
	g := planOf(t, "What was TXTF's gross margin percentage in fiscal 2022?", "TXTF")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return r.Completion.Kind == CondFact && r.Completion.Topic == "gross margin percentage" && !r.Required
	}) {
		t.Errorf("requirements %v: no lookup of the reported gross margin percentage", reqIDs(g))
	}
}

// TestSignVariants: a row printed for either sign stands for both names.
func TestSignVariants(t *testing.T) {
	t.Parallel()
	for label, want := range map[string][]string{
		"Net income (loss)":       {"Net income (loss)", "Net income", "Net loss"},
		"Operating income (Loss)": {"Operating income (Loss)", "Operating income", "Operating Loss"},
		"Net loss":                {"Net loss"},
		"Revenue (1)":             {"Revenue (1)"},
	} {
		if got := signVariants(label); !slices.Equal(got, want) {
			t.Errorf("signVariants(%q) = %q, want %q", label, got, want)
		}
	}
}

// TestWhatReported: "what X did Y report" asks for an amount of X.
func TestWhatReported(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"What gross merchandise volume did eBay report for 2022?": true,
		"what operating cash flow did Apple generate in 2023":     true,
		"What did Apple say about China?":                         false,
		"What drove revenue growth?":                              false,
	} {
		if got := whatReported.MatchString(q); got != want {
			t.Errorf("whatReported(%q) = %v, want %v", q, got, want)
		}
	}
	if got := initialsOf([]string{"gross", "merchandise", "volume"}); got != "GMV" {
		t.Errorf("initialsOf = %q, want GMV", got)
	}
	// "Three months ended" counts a period; its initials are no figure.
	for w, want := range map[string]bool{"three": true, "Months": true, "ended": true, "merchandise": false, "volume": false} {
		if got := periodWord(w); got != want {
			t.Errorf("periodWord(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestAsksGrowth: "up" and "down" ask how a figure moved only where they
// say it moved, not as the particle of another verb.
func TestAsksGrowth(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"how does oracle's revenue stack up against sap's": false,
		"break down apple's revenue by segment":            false,
		"was revenue up 8% in 2020":                        true,
		"revenue of $15 billion, up something like 41%":    true,
		"sales were down about 5%":                         true,
		"revenue went down last year":                      true,
		"what drove revenue growth":                        true,
		"nvda gaming rev fy23 up how much?":                true,
		"by how much was gaming revenue up in fy23?":       true,
		"what did it set up in 2022 for the fund":          false,
		// a figure set against its own earlier period
		"how did iphone revenue compare with a year earlier?": true,
		"services revenue vs the prior year":                  true,
		"q3 sales against the same quarter last year":         true,
		"how does apple's margin compare with microsoft's":    false,
		// shorthand for a year-over-year change
		"family of apps income from operations ($mm) and y/y %": true,
		"greater china net sales, yr/yr":                        true,
	} {
		if got := asksGrowth(normalizeText(q)); got != want {
			t.Errorf("asksGrowth(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestQualifiedPartWithoutNumber: a question about a part of a figure that
// asks for no number is still about that part, not the whole.
func TestQualifiedPartWithoutNumber(t *testing.T) {
	t.Parallel()
	g := planOf(t, "How does TXTF's membership fee revenue stack up?", "TXTF")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Completion.Topic == "membership fee revenue" && r.Required }) {
		t.Errorf("requirements %v: none for the membership fee revenue named", reqIDs(g))
	}
}

// TestPartNamedLikeAnIssuer: a name listed as an issuer of its own that a
// covered issuer prints as a row of its statements is that issuer's part,
// not an issuer outside the corpus.
func TestPartNamedLikeAnIssuer(t *testing.T) {
	t.Parallel()
	q := "What was Mobileye's revenue in TXTF's 2022 results?"
	rt := RouteQuestion(q, figureCatalog(t), nil)
	if len(rt.NotCovered) > 0 || !slices.Equal(rt.Issuers, []string{"TXTF"}) {
		t.Fatalf("route: issuers %v, not covered %v; want TXTF only", rt.Issuers, rt.NotCovered)
	}
	g := planOf(t, q, "TXTF")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return strings.EqualFold(r.Completion.Topic, "mobileye revenue") && r.Required
	}) {
		t.Errorf("requirements %v: none for Mobileye's revenue", reqIDs(g))
	}
}

// TestCauseInItsClause: the cause is read within the clause of the causal
// verb, so a request after a dash does not swamp it.
func TestCauseInItsClause(t *testing.T) {
	t.Parallel()
	rt := RouteQuestion("quantify how much of AAPL's 2022 net income was caused by the drop in iPad demand — I need the dollar attribution.", smallCatalog(), nil)
	if rt.Causal == nil {
		t.Fatal("no causal reading")
	}
	if !slices.Contains(rt.Causal.CauseWords, "ipad") || slices.Contains(rt.Causal.CauseWords, "attribution") {
		t.Errorf("cause words %v: want the drop in iPad demand only", rt.Causal.CauseWords)
	}
}

// TestBaseYears: a year named only as what another is measured against is
// a base year; its figures are planned, not an account of its own.
func TestBaseYears(t *testing.T) {
	t.Parallel()
	for q, want := range map[string][]int{
		"why was the gross margin percentage lower in 2020 than in 2019?":     {2019},
		"revenue in 2024 compared with fiscal 2023":                           {2023},
		"revenue in 2023 and 2024":                                            nil,
		"revenue lower than in 2019":                                          nil,
		"operating margin slipped to 18% in 2022 from 21% in 2021":            {2021},
		"net sales rose from $5.2 billion in 2021 to $6 billion in 2022":      {2021},
		"NSG flipped from a $1.2B operating loss in 2019 to a profit in 2020": {2019},
		"cash from operations in 2022 against 2024":                           {2024},
		// the period compared with, by the date it ended
		"Mac revenue for the 9M ended July 1 2023 + the y/y change vs the 9M ended June 25 2022":       {2022},
		"iPhone sales in the quarter ended July 1, 2023 compared with the quarter ended June 25, 2022": {2022},
		// a quarter named by the month it ended
		"the July 1, 2023 quarter's tax rate came in well below the June 2022 quarter": {2022},
		"margin in 2023 was above 2022's":                                              {2022},
	} {
		if got := findBaseYears(q, findFiscalYears(q)); !slices.Equal(got, want) {
			t.Errorf("findBaseYears(%q) = %v, want %v", q, got, want)
		}
	}
	g := planOf(t, "Why was XMPL's gross margin lower in 2024 than in 2023?", "XMPL")
	for _, r := range g.Requirements {
		if r.Period == "FY2023" && r.Kind == KindExplanation {
			t.Errorf("requirement %s explains the base year", r.ID)
		}
	}
}

// TestPartGrowth: a part's growth is stated by the part's name with a
// word of change and any figure, not by an amount.
func TestPartGrowth(t *testing.T) {
	t.Parallel()
	g := planOf(t, "What was TXTF's comparable sales growth in fiscal 2022?", "TXTF")
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "comparable") })
	if i < 0 {
		t.Fatalf("requirements %v: none for comparable sales growth", reqIDs(g))
	}
	all := g.Requirements[i].Completion.AllOf
	if !slices.ContainsFunc(all, func(grp []string) bool { return slices.Equal(grp, ChangeWords) }) ||
		!slices.ContainsFunc(all, func(grp []string) bool { return slices.Equal(grp, []string{FigureTerm}) }) {
		t.Errorf("condition %v: want the part, a word of change and any figure", all)
	}
}

// TestPaidFor: what an issuer paid for or spent on is read from the
// question, and asked as its payments, not as the cash balance.
func TestPaidFor(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"How much cash did Netflix pay for content assets in 2024?": "content assets",
		"how much did TXTF spend on marketing last year":            "marketing",
		"What did Apple say about China?":                           "",
	} {
		if got, _ := paidFor(q); got != want {
			t.Errorf("paidFor(%q) = %q, want %q", q, got, want)
		}
	}
	g := planOf(t, "How much cash did TXTF pay for content assets in fiscal 2022?", "TXTF")
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Completion.Topic == "payments for content assets" && r.Required }) {
		t.Errorf("requirements %v: none for the payments for content assets", reqIDs(g))
	}
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "cash") && !strings.Contains(r.ID, "content") }) {
		t.Errorf("requirements %v: the cash balance planned for a payment", reqIDs(g))
	}
}

// TestJoinsAnother: a label joining the asked figure to another by "and"
// names the two together and does not resolve the asked one; a name that
// itself holds "and", or a label whose "and" joins two words the question
// names or two it does not, does.
func TestJoinsAnother(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		label, asked string
		want         bool
	}{
		{"r&d and mg&a as a percentage of revenue", "r&d as a percentage of revenue", true},
		{"cost of sales and operating expenses", "cost of sales", true},
		{"research and development", "research and development", false},
		{"general and administrative", "general and administrative expense", false},
		{"property and equipment net", "net", false},
		{"gross margin percentage", "gross margin", false},
	} {
		want := stems(strings.Fields(tt.asked))
		if got := joinsAnother(strings.Fields(tt.label), want); got != tt.want {
			t.Errorf("joinsAnother(%q, %q) = %v, want %v", tt.label, tt.asked, got, tt.want)
		}
	}
}

// TestPlanLabelledFigures: every figure a question names by a row label,
// beside the figures the plan reads for its other words, is looked up by
// its label (the label's words at the end of the period unsaid), the row
// the words name and not a neighbour with fewer other words; a label
// that is only part of a run ("excluding paid net membership additions"),
// an aside qualifying another figure ("(total company, ...)") or the tail
// of another figure's name is not.
func TestPlanLabelledFigures(t *testing.T) {
	t.Parallel()
	cat := streamerCatalog()
	row := func(label string, start int) corpus.Fact {
		return corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.NewFromInt(1), Start: start, End: start + 1}
	}
	cat.SetFigures("s22", FigureEntries([]corpus.Fact{
		row("Total revenues", 1),
		row("Paid net membership additions", 3),
		row("Paid memberships at end of period", 5),
		row("Average monthly revenue per paying membership", 7),
		row("Total company", 9),
		row("GMV (2)", 11),
		row("License support", 13),
		row("Total cloud services and license support revenues", 15),
	}))
	const (
		memberships = "table:Paid memberships at end of period FY2022"
		additions   = "table:Paid net membership additions FY2022"
		arm         = "table:Average monthly revenue per paying membership FY2022"
		company     = "table:Total company FY2022"
		gmv         = "table:GMV (2) FY2022"
		revenues    = "table:Total revenues FY2022"
		support     = "table:License support FY2022"
		cloudTotal  = "table:Total cloud services and license support revenues FY2022"
	)
	for _, tt := range []struct {
		q         string
		want, not []string
	}{
		// The revenue a label's words hold is not asked.
		{"STRM paid memberships at YE2022 and ARM (average monthly revenue per paying membership) for the year?",
			[]string{memberships, arm}, []string{additions, revenues}},
		// A sum written with "+" is the total row, not one of its parts.
		{"STRM FY2022 cloud services + license support revenue?", []string{cloudTotal}, []string{support}},
		{"STRM 2022 revenue, excluding paid net membership additions?", nil, []string{additions}},
		{"STRM revenue growth in fiscal 2022 (total company, fiscal 2022)?", nil, []string{company}},
		// One word, written as the acronym a row is labelled by; the
		// same word in lower case may be any word.
		{"Etsy vs STRM - compare their 2022 GMV.", []string{gmv}, nil},
		// A clause that is the figure's name alone, beside an outlook.
		{"STRM paid memberships 2022 - and does management think revenue will keep growing in 2023?", []string{memberships}, nil},
	} {
		rt := RouteQuestion(tt.q, cat, nil)
		g, err := (&RulesPlanner{}).Plan(context.Background(), tt.q, rt, cat)
		if err != nil {
			t.Fatal(err)
		}
		keys := lookups(t, g)
		for _, k := range tt.want {
			if !slices.Contains(keys, k) {
				t.Errorf("%q: lookups %q lack %q", tt.q, keys, k)
			}
		}
		for _, k := range tt.not {
			if slices.Contains(keys, k) {
				t.Errorf("%q: lookups %q hold %q", tt.q, keys, k)
			}
		}
	}
}

// TestAliasedRow: a figure asked by another name the filing gives its row
// ("A paid membership (also referred to as a paid subscription)") is that
// row, whether asked alone, as a count or beside an issuer the corpus
// lacks; the name no filing gives stays a gap.
func TestAliasedRow(t *testing.T) {
	t.Parallel()
	cat := streamerCatalog()
	cat.SetFigures("s22", FigureEntries([]corpus.Fact{
		{Kind: corpus.FactTable, Label: "Paid memberships at end of period (1)", Value: decimal.NewFromInt(230747000), Start: 1, End: 2},
		{Kind: corpus.FactTable, Label: "Total revenues", Value: decimal.NewFromInt(1), Start: 3, End: 4},
	}))
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "s22", Issuer: "STRM", Text: "Paid memberships grew.\n(1) A paid membership (also referred to as a paid subscription) is defined as a membership that pays."},
	}))
	const memberships = "table:Paid memberships at end of period (1) FY2022"
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"STRM paid subscribers at the end of 2022?", true},
		{"How many paid subscriptions did STRM have at the end of 2022?", true},
		{"STRM paid viewers at the end of 2022?", false},
	} {
		rt := RouteQuestion(tt.q, cat, nil)
		g, err := (&RulesPlanner{}).Plan(context.Background(), tt.q, rt, cat)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(lookups(t, g), memberships); got != tt.want {
			t.Errorf("%q: looks up the memberships row: %v, want %v (lookups %q)", tt.q, got, tt.want, lookups(t, g))
		}
	}
}

// TestSegmentNameIsNoFigure: a segment's name alone labels many rows (its
// revenue, its operating income, its goodwill); "Widget Cloud growth" asks
// none of them by the name.
func TestSegmentNameIsNoFigure(t *testing.T) {
	t.Parallel()
	cat := streamerCatalog()
	cat.SetFigures("s22", FigureEntries([]corpus.Fact{
		{Kind: corpus.FactTable, Label: "Widget Cloud", Value: decimal.NewFromInt(19371), Start: 1, End: 2},
	}))
	q := "What drove STRM's Widget Cloud growth in 2022?"
	for _, text := range []string{"Our Widget Cloud segment grew.", "Widget Cloud grew."} {
		cat.SetTextStats(NewTextStats([]StatsDoc{{ID: "s22", Issuer: "STRM", Text: text}}))
		rt := RouteQuestion(q, cat, nil)
		g, err := (&RulesPlanner{}).Plan(context.Background(), q, rt, cat)
		if err != nil {
			t.Fatal(err)
		}
		segment := strings.Contains(text, "segment")
		if got := slices.Contains(lookups(t, g), "table:Widget Cloud FY2022"); got == segment {
			t.Errorf("%q: looks up the row \"Widget Cloud\": %v; the filing calls it a segment: %v", text, got, segment)
		}
	}
}

// TestSpelledOutAcronymIsTheFilingsRow: words spelling the initials of a
// row label count as that row only where a filing asked labels a row so;
// another issuer's acronym ("PAC") is not what "price per ad change"
// asks of this one.
func TestSpelledOutAcronymIsTheFilingsRow(t *testing.T) {
	t.Parallel()
	cat := NewCatalog([]corpus.Document{
		{ID: "s22", Ticker: "STRM", Company: "Streamer Corp", Form: "10-K", FiscalYear: 2022, Format: corpus.FormatText},
		{ID: "o22", Ticker: "OTHR", Company: "Other Corp", Form: "10-K", FiscalYear: 2022, Format: corpus.FormatText},
	})
	cat.SetFigures("s22", FigureEntries([]corpus.Fact{{Kind: corpus.FactTable, Label: "Total revenues", Value: decimal.NewFromInt(1), Start: 1, End: 2}}))
	cat.SetFigures("o22", FigureEntries([]corpus.Fact{{Kind: corpus.FactTable, Label: "PAC", Value: decimal.NewFromInt(1), Start: 1, End: 2}}))
	docs := []StatsDoc{{ID: "o22", Issuer: "OTHR", Text: "Our PAC rose. Price and ads."}}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		docs = append(docs, StatsDoc{ID: id, Issuer: strings.ToUpper(id), Text: "Price per ad. Revenues rose."})
	}
	cat.SetTextStats(NewTextStats(docs))
	q := "What was STRM's price per ad change in 2022?"
	rt := RouteQuestion(q, cat, nil)
	g, err := (&RulesPlanner{}).Plan(context.Background(), q, rt, cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range g.Requirements {
		if strings.EqualFold(r.Completion.Topic, "PAC") {
			t.Errorf("requirement %s reads another issuer's acronym", r.ID)
		}
	}
}

// A short word's plural compares as the word ("ads" as "ad", "costs" as
// "cost"); a word ending in "ss" keeps it ("loss"), and a longer word's
// forms share their first five letters already.
func TestStem5Plurals(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]string{
		"ads": "ad", "ad": "ad", "costs": "cost", "cost": "cost", "fees": "fee", "loss": "loss",
		"gross": "gross", "revenues": "reven", "revenue": "reven", "Sales": "sale",
	} {
		if got := stem5(w); got != want {
			t.Errorf("stem5(%q) = %q, want %q", w, got, want)
		}
	}
}

// streamerCatalog is a catalog of one text 10-K of Streamer Corp (STRM)
// for fiscal 2022.
func streamerCatalog() *Catalog {
	return NewCatalog([]corpus.Document{
		{ID: "s22", Ticker: "STRM", Company: "Streamer Corp", Form: "10-K", FiscalYear: 2022,
			PeriodEnd: time.Date(2022, 12, 31, 0, 0, 0, 0, time.UTC), Format: corpus.FormatText},
	})
}
