package planner

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
)

// row is a table row of a test filing: its label and value.
type row struct {
	label string
	value int64
}

// tableRows is a catalog's figures for one filing: its table rows, in
// order, each for the period from start to end.
func tableRows(start, end string, rows ...row) []FigureEntry {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	facts := make([]corpus.Fact, 0, len(rows))
	for _, r := range rows {
		facts = append(facts, corpus.Fact{Kind: corpus.FactTable, Label: r.label, Value: decimal.NewFromInt(r.value), Unit: "USD",
			PeriodStart: day(start), PeriodEnd: day(end), Start: 10, End: 20})
	}
	return FigureEntries(facts)
}

// A figure asked beside an outlook is an asked item of its own: "total
// deferred revenue at quarter-end, and what % did Apple expect to realize
// within a year?" plans the deferred revenue as well as the expectation.
func TestFigureBesideOutlook(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("a23qt", tableRows("2022-09-25", "2023-07-01", row{"Deferred revenue", 8_158}, row{"Total net sales", 81_797}))
	_, g := planFor(t, cat, "In Apple's 10-Q for the quarter ended July 1, 2023: total deferred revenue at quarter-end, and what % did Apple expect to realize within a year?", 0)
	var outlook, figure bool
	for _, r := range g.Requirements {
		outlook = outlook || r.Kind == KindOutlook && r.Required
		figure = figure || r.Kind == KindFigure && r.Required && strings.Contains(r.Completion.Topic, "deferred revenue")
	}
	if !outlook || !figure {
		t.Errorf("outlook %v, deferred revenue %v; want both asked: %v", outlook, figure, g.Requirements)
	}
	// An outlook alone asks for no figure.
	_, g = planFor(t, cat, "What does Apple expect for its services business, per the July 2023 10-Q?", 0)
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Kind == KindFigure && r.Required }) {
		t.Errorf("requirements %v; an outlook alone asks for no figure", g.Requirements)
	}
}

// The ratio a tagged filing prints ("Operating margin 27%") is looked up
// beside the one computed from its tags, as for a converted filing.
func TestReportedRatioOfTaggedFiling(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("m24", tableRows("2024-01-01", "2024-12-31", row{"Operating margin", 42}, row{"Revenue", 164_501}))
	_, g := planFor(t, cat, "What was Meta's operating margin in 2024?", 0)
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return r.Completion.Kind == CondFact && slices.Contains(r.Completion.Concepts, "table:Operating margin")
	}) {
		t.Errorf("requirements %v; want the margin as the filing prints it", g.Requirements)
	}
}

// The notice on forward-looking statements lists the words of an
// expectation and states none: it meets no outlook condition, nor any
// other that does not ask for it, while a sentence that expects something
// does.
func TestSafeHarbourIsNoOutlook(t *testing.T) {
	groups := [][]string{{"deferred revenue", "revenue"}, OutlookWords}
	notice := "Forward-looking statements can also be identified by words such as “future,” “anticipates,” “believes,” “expects,” “will” and similar expressions about revenue."
	if _, ok := SentenceMatch(notice, groups); ok {
		t.Errorf("the safe-harbour notice meets an outlook condition")
	}
	view := "As of July 1, 2023, the Company expects 67% of total deferred revenue to be realized in less than a year."
	if _, ok := SentenceMatch(view, groups); !ok {
		t.Errorf("an expectation does not meet the outlook condition")
	}
	// Nor does the caveat that forecasts may differ from actual results.
	caveat := "Given the dynamic nature of our business, forecasts of our revenues, operating margins and net income may differ materially from actual results."
	if _, ok := SentenceMatch(caveat, [][]string{{"operating margin", "margin"}, OutlookWords}); ok {
		t.Errorf("the caveat on forecasts meets an outlook condition")
	}
	// Nor does it explain anything: it lists what management might say of
	// margins without saying it ("operating income and margin").
	list := "These forward-looking statements include, but are not limited to, statements regarding our future financial performance, including expectations regarding revenues, operating income and margin."
	if _, ok := SentenceMatch(list, [][]string{{"operating margin", "margin"}, {"operating income", "revenue"}}); ok {
		t.Errorf("the safe-harbour notice meets an explanation's condition")
	}
	// Unless the notice itself is asked about.
	if _, ok := SentenceMatch(notice, [][]string{{"forward-looking"}, {"revenue"}}); !ok {
		t.Errorf("a condition asking for forward-looking statements refuses the notice")
	}
	for _, s := range []string{"forward-looking statements", "Forward looking information", "forward‑looking\nstatements"} {
		if !SafeHarbour(s) {
			t.Errorf("SafeHarbour(%q) = false", s)
		}
	}
}

// A year after the latest annual report asks what management expects for
// it, nothing of the report's own year; a report guides the year after its
// own at most, so for a later year the sentence must name the year.
func TestAskedAhead(t *testing.T) {
	tests := []struct {
		question string
		year     string // the year a sentence must name; "" for none
	}{
		{"What revenue is NVIDIA guiding to for fiscal 2025?", "2025"},
		{"How much does Meta expect to spend on capital expenditures in 2025?", ""},
	}
	for _, tc := range tests {
		_, g := planFor(t, smallCatalog(), tc.question, 0)
		outlooks := 0
		for _, r := range g.Requirements {
			if r.Kind != KindOutlook {
				if r.Required {
					t.Errorf("%q: requirement %s (%s) is not asked", tc.question, r.ID, r.Kind)
				}
				continue
			}
			outlooks++
			named := slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool { return slices.Equal(g, []string{tc.year}) })
			if named != (tc.year != "") {
				t.Errorf("%q: outlook %s conditions %v; want the year %q named", tc.question, r.ID, r.Completion.AllOf, tc.year)
			}
		}
		if outlooks == 0 {
			t.Errorf("%q: no outlook planned: %v", tc.question, g.Requirements)
		}
	}
}

// A topic's word that qualifies a figure asked ("segment operating
// margin") asks that figure, not what the filing says of the topic.
func TestTopicWordQualifyingFigure(t *testing.T) {
	tests := []struct {
		question string
		segments bool
	}{
		{"AWS vs Google Cloud: what was each one's segment operating margin in 2024?", false},
		{"Costco segment operating income for fiscal 2022?", false},
		{"What segments does Apple report, and what was its operating income in 2024?", true},
	}
	for _, tc := range tests {
		rt := RouteQuestion(tc.question, smallCatalog(), nil)
		if got := slices.Contains(rt.Aspects, "segments"); got != tc.segments {
			t.Errorf("%q: aspects %v; segments asked %v, want %v", tc.question, rt.Aspects, got, tc.segments)
		}
	}
}

// A figure's name no filing writes ("top-line", analysts' word for
// revenue) is searched by the names the catalogue gives the metric; a name
// the filings write is kept.
func TestFilingNames(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "m", Issuer: "MSFT", Text: "LinkedIn revenue increased $3.5 billion or 34% driven by a strong job market."},
		{ID: "a", Issuer: "AAPL", Text: "Services net sales increased due to higher advertising revenue. The top of the line. Sales rose."},
	}))
	b := &builder{cat: cat}
	if got := b.filingNames("top-line", "revenue_growth"); !slices.Contains(got, "revenue") || slices.Contains(got, "top-line") {
		t.Errorf("filingNames(top-line) = %q; want the catalogue's names for revenue", got)
	}
	// One of the figure's own names is searched with the others, the
	// question's first ("sales" for the revenue a filing states as
	// "revenue grew"); a word the figure's aspect is only triggered by
	// keeps its own sense.
	if got := b.filingNames("sales", "revenue"); len(got) < 2 || got[0] != "sales" || !slices.Contains(got, "revenue") {
		t.Errorf("filingNames(sales) = %q; want the question's name first, then revenue's other names", got)
	}
	if got := b.filingNames("advertising", "revenue"); !slices.Equal(got, []string{"advertising"}) {
		t.Errorf("filingNames(advertising) = %q; want the question's own word", got)
	}
	// A name of several words the filings write each of, yet one of the
	// figure's names an analyst writes ("top line"): the catalogue's
	// names too, the question's first.
	if got := b.filingNames("top line", "revenue"); len(got) < 2 || got[0] != "top line" || !slices.Contains(got, "revenues") {
		t.Errorf("filingNames(top line) = %q; want the question's name and the catalogue's", got)
	}
	// Without statistics nothing is known to be unwritten.
	if got := (&builder{cat: smallCatalog()}).filingNames("top-line", "revenue_growth"); !slices.Equal(got, []string{"top-line"}) {
		t.Errorf("filingNames without statistics = %q", got)
	}
}

// "Will X keep ..." asks what the filing expects; a year named after the
// year of a report (and without a report of its own) is the year that
// report expects something for, planned once.
func TestExpectationForNextYear(t *testing.T) {
	cat := smallCatalog()
	for _, q := range []string{"Will Costco's membership fee income keep growing?", "googl 2024 capex and what's the plan for 2025", "Apple's plans for next year's buybacks?",
		"What's Walmart's plan for capex in fiscal 2023?", "What's Meta's capex plan for 2025 and what is it meant to fund?",
		"What capex is Walmart projecting for fiscal 2023?", "Meta 2024 capex and how much is planned for 2025?", "what capex is budgeted for next year at Apple",
		"Is Costco keeping the new-warehouse cadence going into FY23? How many openings does management plan?",
		"Heading into fiscal 2023, is Walmart still investing in automation?", "How much capex does management expect?",
		"AMZN shipping costs — does mgmt see them flattening out or still rising?",
		"eBay's interest expense actually fell in 2022 — does management think that lasts into 2023?",
		"Meta 2024: what are management's expectations for total expenses in 2025?"} {
		if rt := RouteQuestion(q, cat, nil); !rt.Outlook {
			t.Errorf("%q is not read as asking an expectation", q)
		}
	}
	// The plan may be of a figure named between ("Meta's capex plan for
	// 2025").
	for _, q := range []string{"What's Meta's capex plan for 2025?", "their buyback plans for next year"} {
		if !plansAhead.MatchString(q) {
			t.Errorf("%q is not read as a plan for a period ahead", q)
		}
	}
	for _, q := range []string{"What did Apple contribute to its 401(k) plan for employees in 2024?", "Did Meta's 401(k) plan for 2025 change?"} {
		if rt := RouteQuestion(q, cat, nil); rt.Outlook {
			t.Errorf("%q: a plan for employees is read as an expectation", q)
		}
	}
	_, g := planFor(t, cat, "Heading into 2023, did Costco expect the cost headwinds it saw in 2022 to persist?", 0)
	outlooks := 0
	for _, r := range g.Requirements {
		if r.Period != "FY2022" {
			t.Errorf("requirement %s is for %s; 2023 is what the FY2022 report expects for", r.ID, r.Period)
		}
		if r.Kind == KindOutlook {
			outlooks++
		}
	}
	if outlooks != 1 {
		t.Errorf("%d outlook requirements; want one: %v", outlooks, g.Requirements)
	}
}

func TestAsksShare(t *testing.T) {
	tests := []struct {
		q    string
		want bool
	}{
		{"What share of Apple's total net sales came from Services in Q3 FY2025?", true},
		{"Google Cloud as a percentage of Alphabet revenue in 2024?", true},
		{"AWS % of Amazon net sales 2024", true},
		{"Services as a % of revenue", true},
		{"What was Apple's diluted earnings per share of common stock in 2024?", false},
		{"How many shares of common stock did Apple repurchase?", false},
	}
	for _, tc := range tests {
		if got := asksShare(tc.q); got != tc.want {
			t.Errorf("asksShare(%q) = %v; want %v", tc.q, got, tc.want)
		}
	}
}

// A figure the catalogue names but the filing prints no row for is still
// asked, by its concepts, so that the run names its gap.
func TestFigureWithoutRowIsAsked(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("a24", tableRows("2023-10-01", "2024-09-28", row{"Research and development", 31_370}, row{"Total net sales", 391_035}))
	_, g := planFor(t, cat, "What were Apple's FY24 operating expenses?", 0)
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return r.Required && r.Kind == KindFigure && strings.Contains(r.Need, "operating expenses")
	}) {
		t.Errorf("requirements %v; want operating expenses asked", g.Requirements)
	}
}

// An English word in capitals ("FIT") is no acronym the filings use:
// "membership fee income trend" asks the fee income, not "FIT".
func TestEnglishWordIsNoAcronym(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "c", Issuer: "COST", Text: "Membership fee income increased 9%. The plan is a fit for members."},
		{ID: "a", Issuer: "AAPL", Text: "Net sales increased."},
		{ID: "n", Issuer: "NVDA", Text: "Revenue increased."},
		{ID: "m", Issuer: "META", Text: "Revenue increased."},
		{ID: "g", Issuer: "GOOGL", Text: "Revenue increased."},
	}))
	cat.SetFigures("c22", tableRows("2021-08-30", "2022-08-28", row{"Total revenue", 226_954}, row{"Net sales", 222_730}))
	_, g := planFor(t, cat, "How did Costco's membership fee income trend in FY22 and why?", 0)
	for _, r := range g.Requirements {
		if strings.Contains(r.Need, "FIT") {
			t.Errorf("requirement %s asks %q", r.ID, r.Need)
		}
	}
}

// Spending named by a figure of money going out is that figure ("spend on
// common stock buybacks"); an object that merely holds a figure's word is what
// was paid for ("content assets").
func TestSpentOnFigure(t *testing.T) {
	cat := smallCatalog()
	rt := RouteQuestion("How much did Apple spend on common stock buybacks in FY24?", cat, nil)
	if rt.Paid != "" || !slices.ContainsFunc(rt.Figures, func(f FigureAsk) bool { return f.Metric == "buybacks" }) {
		t.Errorf("buybacks: paid %q, figures %+v; want the buybacks figure", rt.Paid, rt.Figures)
	}
	rt = RouteQuestion("How much did Amazon pay for content assets in 2024?", cat, nil)
	if rt.Paid == "" {
		t.Errorf("content assets: figures %+v; want what was paid for", rt.Figures)
	}
}

// Each item of a list of figures is asked: "membership fee revenue and
// renewal rate" plans the renewal rate too; a clause after "and" ("how
// much higher was that") is no item.
func TestEveryListedItemIsAsked(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("c22", tableRows("2021-08-30", "2022-08-28", row{"Membership fees", 4_224}, row{"Total revenue", 226_954}))
	// An item may name whose it is ("its renewal rate").
	for _, q := range []string{"Costco FY22 membership fee revenue and renewal rate", "Give me Costco's FY22 membership fee revenue and its renewal rate."} {
		_, g := planFor(t, cat, q, 0)
		if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Required && r.Completion.Topic == "renewal rate" }) {
			t.Errorf("%q: requirements %v; want the renewal rate asked", q, g.Requirements)
		}
	}
	// A bid for each item's change ("give the yoy growth in ad
	// impressions and in avg price per ad") asks each thing whose change
	// is bid for, short words and joining words among its own.
	_, g := planFor(t, cat, "What drove Costco's FY22 revenue growth? Give the yoy growth in ad impressions and in price per ad", 0)
	for _, want := range []string{"-figure-ad-impressions", "-figure-price-ad"} {
		if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Required && strings.HasSuffix(r.ID, want) }) {
			t.Errorf("bid for changes: requirements %q; want %q asked", reqIDs(g), want)
		}
	}
	// A count asked of a lone word beside another item is an item of its
	// own, and no amount of money answers it ("Membership fees" is no
	// number of members).
	_, g = planFor(t, cat, "Costco FY22: how many members and what was the renewal rate?", 0)
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Required && strings.HasSuffix(r.ID, "-figure-renewal-rate") }) {
		t.Errorf("a count beside an item: requirements %q; want the renewal rate asked on its own", reqIDs(g))
	}
	for _, r := range g.Requirements {
		if slices.Contains(r.Completion.Concepts, "table:Membership fees") {
			t.Errorf("requirement %s counts members by the membership fees", r.ID)
		}
	}
	// A name the filings print with "and" lists nothing.
	cat.SetTextStats(NewTextStats([]StatsDoc{{ID: "c22", Issuer: "COST", Text: "Kirkland content and services revenue grew. Paid members rose."}}))
	_, g = planFor(t, cat, "Costco FY22 Kirkland content and services growth?", 0)
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-figure-kirkland-content") }) {
		t.Errorf("a name holding \"and\": requirements %q; want it asked whole", reqIDs(g))
	}
	cat.SetTextStats(nil)
	// The period a part ends with says when, not what.
	_, g = planFor(t, cat, "Costco's cash and marketable securities at end of fiscal 2022?", 0)
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Required && strings.Contains(r.ID, "-figure-marketable-securities") }) {
		t.Errorf("a part ending with its period: requirements %q; want marketable securities asked", reqIDs(g))
	}
	_, g = planFor(t, cat, "How much did Costco earn in membership fees in FY22, and how much higher was that than in FY21?", 0)
	for _, r := range g.Requirements {
		if strings.Contains(r.Completion.Topic, "higher") {
			t.Errorf("requirement %s asks %q", r.ID, r.Completion.Topic)
		}
	}
}

// What part of a figure went somewhere ("how much of Costco's capex went
// to warehouses") is the row so labelled just above the figure's total in
// its table, and the total is asked as well; a row of that label elsewhere
// in the filing is not the part, and a filing without such a row leaves
// the part a gap, never the total alone.
func TestPartThatWentToARow(t *testing.T) {
	q := "How much of Costco's fiscal 2022 capex went to warehouses, and what was total capex?"
	for _, tt := range []struct {
		name string
		rows []row
		part string // the part's fact key; "" for a passage (a gap unless stated)
	}{
		{"row above the total", []row{{"Warehouses", 2_100}, {"Depots", 900}, {"Total capital expenditures", 3_891}}, "table:Warehouses"},
		{"row in another table", []row{{"Warehouses", 838}, {"Net sales", 222_730}, {"Membership fees", 4_224}, {"Total revenue", 226_954},
			{"Merchandise costs", 199_382}, {"Operating income", 7_793}, {"Net income", 5_844}, {"Inventories", 17_907}, {"Receivables", 2_241},
			{"Depots", 900}, {"Total capital expenditures", 3_891}}, ""},
		{"no such row", []row{{"Depots", 900}, {"Total capital expenditures", 3_891}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat := smallCatalog()
			cat.SetFigures("c22", tableRows("2021-08-30", "2022-08-28", tt.rows...))
			_, g := planFor(t, cat, q, 0)
			var part, total bool
			for _, r := range g.Requirements {
				if r.Kind != KindFigure || !r.Required {
					continue
				}
				if strings.Contains(r.Completion.Topic, "warehouses") {
					part = tt.part == "" && r.Completion.Kind == CondPassage || slices.Contains(r.Completion.Concepts, tt.part)
				}
				total = total || slices.Contains(r.Completion.Concepts, "table:Total capital expenditures")
			}
			if !part || !total {
				t.Errorf("part %v (want %q), total %v: %v", part, tt.part, total, g.Requirements)
			}
		})
	}
}

// A clause asking the size of a thing by name is an asked item of its own,
// covered only by a requirement naming each of its words: "inventory
// provisions" is not the inventories planned beside the gross margin.
func TestSizeClauseAskedItem(t *testing.T) {
	cat := smallCatalog()
	cat.SetFigures("n23", tableRows("2022-01-31", "2023-01-29", row{"Inventories", 5_159}, row{"Revenue", 26_974}, row{"Cost of revenue", 11_618}))
	_, g := planFor(t, cat, "How big were NVIDIA's inventory provisions in FY2023 and what was the gross margin?", 0)
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return r.Required && strings.Contains(strings.ToLower(r.Completion.Topic), "inventory provisions")
	}) {
		t.Errorf("requirements %v; want the inventory provisions asked", g.Requirements)
	}
}

// A figure's growth named by the figure's short form ("ARPP and growth")
// is stated in any word of change, under either form of the name.
func TestShortFormGrowthInWordsOfChange(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{Issuer: "META", Text: "We report average revenue per person (ARPP). ARPP grew."},
		{Issuer: "AAPL", Text: "Our costs grew."},
	}))
	_, g := planFor(t, cat, "META 2024 annual ARPP and growth?", 0)
	sentence := "Our annual worldwide ARPP in 2024, which represents the sum of quarterly ARPP during such period, was $49.63, an increase of 15% from 2023."
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		_, ok := SentenceMatch(sentence, r.Completion.AllOf)
		return r.Required && r.Completion.Kind == CondPassage && ok
	}) {
		t.Errorf("requirements %v; want the ARPP sentence to state the growth asked", g.Requirements)
	}
}

// A count asked ("how many customers") is of a figure labelled so, not of
// a tag whose concept holds the word: revenue from contracts with
// customers is no number of customers.
func TestCountNotOfConceptWord(t *testing.T) {
	t.Parallel()
	g := planOf(t, "How many customers did XMPL have at the end of 2024?", "XMPL")
	for _, r := range g.Requirements {
		if r.Completion.Kind == CondFact && slices.ContainsFunc(r.Completion.Concepts, func(c string) bool { return strings.Contains(c, "Revenue") }) {
			t.Errorf("requirement %s looks up %q for a number of customers", r.ID, r.Completion.Concepts)
		}
	}
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Contains(grp, NumberTerm+"customers") })
	}) {
		t.Errorf("requirements %v; want a number of customers stated", g.Requirements)
	}
}

// The annual report a question reads from is named by its year; a year
// after it is not read from another report in its place.
func TestNamedReportYear(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]int{
		"What was Amazon's 2023 net income according to its 2022 10-K?":              2022,
		"Per Microsoft's FY2021 10-K, what was Azure revenue growth in fiscal 2022?": 2021,
		"Netflix's 2022 10-K: how many paid memberships did it have?":                2022,
		"In the fiscal 2023 annual report, what was revenue?":                        2023,
		"What was Amazon's 2023 net income?":                                         0,
		"Google Cloud operating income for 2022? I only have Alphabet's 2024 10-K.":  2024,
	} {
		if got, _ := namedReportYear(q); got != want {
			t.Errorf("namedReportYear(%q) = %d, want %d", q, got, want)
		}
	}
	cat := smallCatalog()
	_, g := planFor(t, cat, "What was Apple's fiscal 2024 net income according to its fiscal 2022 10-K?", 0)
	for _, r := range g.Requirements {
		if r.Period == "FY2024" && r.Completion.Kind == CondFact {
			t.Errorf("requirement %s looks up fiscal 2024 in another report", r.ID)
		}
	}
	if !slices.ContainsFunc(g.Notes, func(n string) bool { return strings.Contains(n, "reports no later year") }) {
		t.Errorf("notes %q; want the later year named as beyond the report", g.Notes)
	}
}

// Why a topic the filing describes moved ("why did headcount grow") is
// answered by a sentence giving a reason, not by one describing the topic.
func TestWhyOfTopicNeedsReason(t *testing.T) {
	t.Parallel()
	g := planOf(t, "Why did XMPL's headcount grow in 2024?", "XMPL")
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Aspect == "headcount" && r.Required })
	if i < 0 {
		t.Fatalf("requirements %v; want the headcount explained", g.Requirements)
	}
	groups := g.Requirements[i].Completion.AllOf
	if _, ok := SentenceMatch("Our employee headcount and the scale and complexity of our business have increased significantly over time.", groups); ok {
		t.Errorf("condition %q is met by a sentence giving no reason", groups)
	}
	if _, ok := SentenceMatch("Headcount increased primarily due to hiring in our technical functions.", groups); !ok {
		t.Errorf("condition %q is not met by the reason", groups)
	}
}

// An outlook on an aspect whose terms name distinct figures is of the
// figure the question names: "2025 operating margin" is not met by a
// sentence expecting something of earnings.
func TestOutlookOfFigureNamed(t *testing.T) {
	t.Parallel()
	a, _ := AspectByName("profitability")
	got := termsAsked(a, "Netflix 2024 operating income and what management expects for 2025 operating margin?")
	if slices.Contains(got, "earnings") || !slices.Contains(got, "operating margin") {
		t.Errorf("termsAsked = %q; want operating income's terms only", got)
	}
	if got := termsAsked(a, "What does management expect for profitability?"); !slices.Equal(got, a.Terms) {
		t.Errorf("termsAsked = %q; want every term when the question names none", got)
	}
}

// What management is asked to see a trend doing ("flattening out or still
// rising") is how the subject moves, not a word a sentence must hold.
func TestTrendViewTopic(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "z24", Issuer: "AMZN", Text: "We expect our cost of shipping to continue to increase. Shipping costs were $95.8 billion."},
		{ID: "m24", Issuer: "META", Text: "Our costs rose."},
	}))
	_, g := planFor(t, cat, "AMZN shipping costs — does mgmt see them flattening out or still rising?", 0)
	outlooks := 0
	for _, r := range g.Requirements {
		if r.Kind != KindOutlook {
			continue
		}
		outlooks++
		for _, grp := range r.Completion.AllOf {
			for _, w := range grp {
				if w == "still" || w == "mgmt" || strings.HasPrefix(w, "flatten") {
					t.Errorf("%s asks a sentence naming %q", r.ID, w)
				}
			}
		}
	}
	if outlooks == 0 {
		t.Errorf("no outlook planned: %+v", g.Requirements)
	}
}

// The words a question's searches are made of leave out adverbs
// ("actually") and verbs of a move going on ("lasts").
func TestSearchWordsLeaveOutManner(t *testing.T) {
	cat := smallCatalog()
	q := "eBay's interest expense actually fell in 2022 — does management think that lasts into 2023?"
	rt := RouteQuestion(q, cat, nil)
	b := newBuilder(q, rt, cat)
	for _, w := range b.searchWords() {
		if w == "actually" || w == "lasts" {
			t.Errorf("searchWords %v hold %q", b.searchWords(), w)
		}
	}
}

// A count asked with its change over one year ("headcount at Dec 31, 2024
// and YoY change") asks a sentence stating the change beside the count,
// searched for in the question's own word; two years asked show the change
// by their two counts.
func TestCountAndItsChange(t *testing.T) {
	cat := smallCatalog()
	_, g := planFor(t, cat, "Meta headcount at Dec 31, 2024 and YoY change?", 0)
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-change") })
	if i < 0 {
		t.Fatalf("requirements %v: no change of the count", reqIDs(g))
	}
	r := g.Requirements[i]
	if !r.Required || len(r.Completion.AllOf) != 4 || !slices.Equal(r.Completion.AllOf[1], ChangeWords) || !slices.Equal(r.Completion.AllOf[3], []string{CountTerm}) {
		t.Errorf("change requirement %+v; want the topic, a change, a figure and the count in one sentence", r)
	}
	if !slices.ContainsFunc(g.Nodes, func(n Node) bool {
		return slices.Contains(n.Serves, r.ID) && strings.Contains(string(n.Args), `"query":"headcount increase year-over-year"`)
	}) {
		t.Errorf("no search in the question's own word serves %s: %v", r.ID, g.Nodes)
	}
	_, g = planFor(t, cat, "Meta headcount in 2024?", 0)
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-change") }) {
		t.Errorf("requirements %v: a change no one asked", reqIDs(g))
	}
}

// TestPeopleCountedAreTheHeadcount: "how many people did it employ", "how
// many people work at" ask the headcount, met by a sentence counting
// employees, not a figure named "people" (or "people work").
func TestPeopleCountedAreTheHeadcount(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"How many people did XMPL employ at the end of 2024?",
		"How many people work at XMPL?",
	} {
		g := planOf(t, q, "XMPL")
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Aspect == "headcount" && r.Required })
		if i < 0 {
			t.Errorf("%q: requirements %v; want the headcount", q, reqIDs(g))
			continue
		}
		if !slices.ContainsFunc(g.Requirements[i].Completion.AllOf, func(g []string) bool { return slices.Contains(g, CountTerm) }) {
			t.Errorf("%q: the headcount is met by %v, not a count", q, g.Requirements[i].Completion.AllOf)
		}
		if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "people") }) {
			t.Errorf("%q: requirements %v: \"people\" asked as a figure of its own", q, reqIDs(g))
		}
	}
}

// TestHeadcountOfAPlace: a count asked of a place ("employees based in
// Germany") is met only by a sentence naming the place; the company's
// count, or another country's, does not answer it.
func TestHeadcountOfAPlace(t *testing.T) {
	t.Parallel()
	g := planOf(t, "How many XMPL employees were based in Ireland at the end of 2024?", "XMPL")
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Aspect == "headcount" && r.Required })
	if i < 0 {
		t.Fatalf("requirements %v; want the headcount", reqIDs(g))
	}
	groups := g.Requirements[i].Completion.AllOf
	if _, ok := SentenceMatch("Approximately 6,800 of our employees were located in the U.S.", groups); ok {
		t.Errorf("groups %v: another country's count meets the place's", groups)
	}
	if _, ok := SentenceMatch("We had approximately 1,200 employees in Ireland.", groups); !ok {
		t.Errorf("groups %v: the place's own count does not meet it", groups)
	}
	g = planOf(t, "How many XMPL employees worked in December 2024?", "XMPL")
	if i = slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Aspect == "headcount" && r.Required }); i >= 0 && len(g.Requirements[i].Completion.AllOf) > 2 {
		t.Errorf("groups %v: a month read as a place", g.Requirements[i].Completion.AllOf)
	}
}
