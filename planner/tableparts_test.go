package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/tools"
)

// partRows are the entries of a table's facts for parts (corpus.TablePartAxis)
// and plain rows, as FigureEntries reads them.
func partRows(start, end string, rows ...[3]string) []FigureEntry {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	var facts []corpus.Fact
	for i, r := range rows {
		f := corpus.Fact{Kind: corpus.FactTable, Label: r[0], Value: decimal.RequireFromString(r[2]), Unit: "USD",
			PeriodStart: day(start), PeriodEnd: day(end), Start: 10 * (i + 1), End: 10*(i+1) + 5}
		if r[1] != "" {
			f.Dimensions = map[string]string{corpus.TablePartAxis: corpus.TablePartMember(r[1])}
		}
		facts = append(facts, f)
	}
	return FigureEntries(facts)
}

// textCatalog is a catalog of one converted 10-K.
func textCatalog(id, ticker, company string, fiscalYear int, periodEnd string) *Catalog {
	end, _ := time.Parse(time.DateOnly, periodEnd)
	return NewCatalog([]corpus.Document{{ID: id, Ticker: ticker, Company: company, Form: "10-K", FiscalYear: fiscalYear, PeriodEnd: end, Format: corpus.FormatText}})
}

// A part of the business a converted filing's table prints (a segment
// under its figure's heading, a region's titled table) is the part's
// figure: "What operating income did Intel's Data Center Group post" looks
// up the group's row under "Operating income (loss)", never the company's.
func TestTablePartFigures(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	cat := NewCatalog([]corpus.Document{
		{ID: "i20", Ticker: "INTC", Company: "Intel Corporation", Form: "10-K", FiscalYear: 2020, PeriodEnd: day("2020-12-26"), Format: corpus.FormatText},
		{ID: "w22", Ticker: "WMT", Company: "Walmart Inc.", Form: "10-K", FiscalYear: 2022, PeriodEnd: day("2022-01-31"), Format: corpus.FormatText},
		{ID: "n24", Ticker: "NFLX", Company: "Netflix, Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-12-31"), Format: corpus.FormatHTML},
	})
	cat.SetFigures("i20", partRows("2019-12-29", "2020-12-26",
		[3]string{"Net revenue", "Data Center Group", "26103000000"},
		[3]string{"Operating income (loss)", "Data Center Group", "10571000000"},
		[3]string{"Net revenue", "Client Computing Group", "40057000000"},
		[3]string{"Operating income (loss)", "Client Computing Group", "15129000000"},
		[3]string{"Total net revenue", "", "77867000000"},
		[3]string{"Operating income", "", "23678000000"},
	))
	cat.SetFigures("w22", partRows("2021-02-01", "2022-01-31",
		[3]string{"Operating income", "Walmart U.S.", "21587000000"},
		[3]string{"Operating income", "Sam's Club", "1717000000"},
		[3]string{"Net sales", "Walmart U.S.", "393247000000"},
		[3]string{"Calendar comparable sales increase", "Walmart U.S.", "0.064"},
		[3]string{"Operating income", "", "25942000000"},
		[3]string{"Total revenues", "", "572754000000"},
	))
	paid := partRows("2024-01-01", "2024-12-31",
		[3]string{"Paid memberships at end of period", "Asia-Pacific (APAC)", "57541000"},
		[3]string{"Paid memberships at end of period", "Latin America (LATAM)", "53327000"},
		[3]string{"Paid memberships at end of period", "", "301626000"},
	)
	cat.SetFigures("n24", paid)

	if segs := cat.SegmentsIn("netflix APAC paid memberships at YE2024?", "NFLX"); len(segs) != 1 || segs[0].Name != "APAC" {
		t.Errorf("SegmentsIn(APAC) = %+v; want the abbreviation the table prints", segs)
	}
	if segs := cat.SegmentsIn("Walmart U.S. segment operating income", "WMT"); len(segs) != 1 || segs[0].Name != "Walmart U.S." {
		t.Errorf("SegmentsIn(Walmart U.S.) = %+v", segs)
	}
	tests := []struct{ question, key string }{
		{"What operating income did Intel's Data Center Group post in 2020?", "table:Operating income (loss)[part:Data Center Group]"},
		{"Intel Data Center Group revenue for 2020, in $ millions", "table:Net revenue[part:Data Center Group]"},
		{"Walmart U.S. segment operating income for fiscal 2022, in $bn", "table:Operating income[part:Walmart U.S.]"},
		{"netflix APAC paid memberships at YE2024?", "table:Paid memberships at end of period[part:Asia-Pacific (APAC)]"},
		// A part's figure narrowed further is the part's row naming it,
		// not the part's sales.
		{"What was Walmart U.S. comparable sales growth in fiscal 2022?", "table:Calendar comparable sales increase[part:Walmart U.S.]"},
	}
	for _, tt := range tests {
		_, g := planFor(t, cat, tt.question, 0)
		var keys []string
		for _, k := range lookups(t, g) { // key and period
			keys = append(keys, k[:strings.LastIndexByte(k, ' ')])
		}
		if !slices.Contains(keys, tt.key) {
			t.Errorf("%q: lookups %v; want %s", tt.question, keys, tt.key)
		}
		for _, k := range keys {
			if _, member, _ := tools.SplitFigureKey(k); member == "" && strings.HasPrefix(k, tools.TablePrefix) {
				t.Errorf("%q: the company-wide row %s is looked up for a part", tt.question, k)
			}
			if strings.Contains(tt.question, "comparable") && strings.HasPrefix(k, "table:Net sales") {
				t.Errorf("%q: the part's sales %s are looked up for its comparable sales", tt.question, k)
			}
		}
	}
}

// A table's part is never joined with a tagged member in one key: the
// tagged member comes first, the part alone after it.
func TestMemberChoicesTableParts(t *testing.T) {
	got := memberChoices([]Segment{
		{Name: "streaming", Members: []string{"nflx:StreamingMember"}},
		{Name: "UCAN", Members: []string{"part:United States and Canada (UCAN)", "nflx:UnitedStatesAndCanadaMember"}},
	})
	if want := []string{"nflx:StreamingMember,nflx:UnitedStatesAndCanadaMember"}; !slices.Equal(got, want) {
		t.Errorf("memberChoices = %v, want %v", got, want)
	}
	got = memberChoices([]Segment{{Name: "APAC", Members: []string{"part:Asia-Pacific (APAC)", "srt:AsiaPacificMember"}}})
	if want := []string{"srt:AsiaPacificMember", "part:Asia-Pacific (APAC)"}; !slices.Equal(got, want) {
		t.Errorf("memberChoices = %v, want %v", got, want)
	}
}

// Why a segment's figure moved is asked of the segment's figure: a
// sentence naming the segment and the figure with a reason, not what the
// filing says of segments.
func TestWhyOfSegmentFigure(t *testing.T) {
	cat := textCatalog("a22", "AMZN", "Amazon.com, Inc.", 2022, "2022-12-31")
	cat.SetFigures("a22", partRows("2022-01-01", "2022-12-31",
		[3]string{"Operating income (loss)", "North America", "-2847000000"},
		[3]string{"Operating income (loss)", "International", "-7746000000"},
		[3]string{"Net sales", "North America", "315880000000"},
		[3]string{"Net sales", "International", "118007000000"},
	))
	_, g := planFor(t, cat, "Why did Amazon's North America segment swing to an operating loss in 2022?", 0)
	ok := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		all := r.Completion.AllOf
		return r.Required && len(all) == 3 && slices.Contains(all[0], "north america") && slices.Equal(all[2], DriverWords)
	})
	if !ok {
		t.Errorf("requirements %+v; want North America's operating loss explained", g.Requirements)
	}
}

// A part's growth is computed from the part's figure and the year before
// it, which the filing prints beside it; the level alone is no growth.
func TestPartGrowthOfSegment(t *testing.T) {
	cat := textCatalog("w22", "WMT", "Walmart Inc.", 2022, "2022-01-31")
	cat.SetFigures("w22", partRows("2021-02-01", "2022-01-31",
		[3]string{"Net sales", "Walmart U.S.", "393247000000"},
		[3]string{"Net sales", "Sam's Club", "73556000000"},
		[3]string{"Total revenues", "", "572754000000"},
	))
	_, g := planFor(t, cat, "What was Walmart U.S. net sales growth in fiscal 2022?", 0)
	var found bool
	for _, n := range g.Nodes {
		if n.Tool != tools.Calculate {
			continue
		}
		var a tools.CalculateArgs
		if err := json.Unmarshal(n.Args, &a); err != nil {
			t.Fatal(err)
		}
		now, prior := a.Facts["revenue"], a.Facts["revenue_prior"]
		found = found || now.Concept == "table:Net sales[part:Walmart U.S.]" && prior.Concept == now.Concept && prior.Prior
	}
	if !found {
		t.Errorf("nodes %+v; want Walmart U.S.'s net sales growth computed from its row and the year before", g.Nodes)
	}
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		return r.Completion.Kind == CondPrinted && slices.Contains(r.Completion.AllOf[0], "walmart u.s.") && len(servers(g, r.ID)) >= 1
	}) {
		t.Errorf("requirements %v; want the part's growth as the filing prints it beside its row", reqIDs(g))
	}
}

// One part named two ways, by a tagged member ("United States And
// Canada") and by the title of its table ("United States and Canada
// (UCAN)"), is one part: a filing that only prints the table answers by
// the table's row. A row of the part's table that holds a figure's name
// ("average monthly revenue per paying membership in UCAN") is that row,
// not the part's revenue; a short form the filing defines in quotes
// ("ARM") names its long form's row, of the part the question names.
func TestPartNamedTwoWays(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	cat := NewCatalog([]corpus.Document{
		{ID: "n22", Ticker: "NFLX", Company: "Netflix, Inc.", Form: "10-K", FiscalYear: 2022, PeriodEnd: day("2022-12-31"), Format: corpus.FormatText},
		{ID: "n24", Ticker: "NFLX", Company: "Netflix, Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-12-31"), Format: corpus.FormatHTML},
	})
	ucan := "United States and Canada (UCAN)"
	cat.SetFigures("n22", partRows("2022-01-01", "2022-12-31",
		[3]string{"Paid memberships at end of period", ucan, "74296000"},
		[3]string{"Paid memberships at end of period", "", "230747000"},
	))
	rows := partRows("2024-01-01", "2024-12-31",
		[3]string{"Paid memberships at end of period", ucan, "89625000"},
		[3]string{"Average monthly revenue per paying membership", ucan, "17.20"},
		[3]string{"Average monthly revenue per paying membership", "", "11.70"},
	)
	tagged := FigureEntries([]corpus.Fact{{
		Concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", Value: decimal.RequireFromString("17359369000"), Unit: "USD",
		PeriodStart: day("2024-01-01"), PeriodEnd: day("2024-12-31"), Start: 500, End: 510,
		Dimensions: map[string]string{"srt:StatementGeographicalAxis": "nflx:UnitedStatesAndCanadaMember"},
	}})
	cat.SetFigures("n24", append(tagged, rows...))
	cat.SetTextStats(NewTextStats([]StatsDoc{{ID: "n24", Issuer: "NFLX",
		Text: "We believe constant currency revenue is useful in analyzing trends in average monthly revenue per paying membership (“ARM”) absent currency fluctuations.\n" +
			"Revenues in the United States and Canada (UCAN) grew."}}))
	if segs := cat.SegmentsIn("Netflix UCAN paid memberships at end of 2022", "NFLX"); len(segs) != 2 {
		t.Fatalf("SegmentsIn(UCAN) = %+v; want the tagged member and the table's part", segs)
	}

	tests := []struct {
		question string
		keys     []string
	}{
		{"Netflix UCAN paid memberships at end of 2022", []string{"table:Paid memberships at end of period[part:" + ucan + "]"}},
		{"Netflix average monthly revenue per paying membership in UCAN, 2024", []string{"table:Average monthly revenue per paying membership[part:" + ucan + "]"}},
		{"NFLX UCAN FY24: ending paid memberships and ARM?", []string{
			"table:Paid memberships at end of period[part:" + ucan + "]",
			"table:Average monthly revenue per paying membership[part:" + ucan + "]"}},
	}
	for _, tt := range tests {
		_, g := planFor(t, cat, tt.question, 0)
		var keys []string
		for _, k := range lookups(t, g) {
			keys = append(keys, k[:strings.LastIndexByte(k, ' ')])
		}
		slices.Sort(keys)
		want := slices.Sorted(slices.Values(tt.keys))
		if !slices.Equal(keys, want) {
			t.Errorf("%q: lookups %v; want %v", tt.question, keys, want)
		}
	}
}

// A figure asked by the words a filing tags or prints it with is that
// figure, though its words also name a topic the filings explain
// ("produced content amortization" beside content spending and
// amortization): the amortization of the part the question names, not a
// balance net of amortization nor a share of amortization the question
// does not ask; of the company, the row the filing labels so.
func TestTopicWordsNameFigure(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	cat := NewCatalog([]corpus.Document{
		{ID: "n24", Ticker: "NFLX", Company: "Netflix, Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-12-31"), Format: corpus.FormatHTML},
	})
	fact := func(concept, label, member, value string, instant bool) corpus.Fact {
		f := corpus.Fact{Concept: concept, Label: label, Value: decimal.RequireFromString(value), Unit: "USD",
			PeriodStart: day("2024-01-01"), PeriodEnd: day("2024-12-31"), Instant: instant, Start: 100, End: 110}
		if instant {
			f.PeriodStart = time.Time{}
		}
		if member != "" {
			f.Dimensions = map[string]string{"us-gaap:FiniteLivedIntangibleAssetsByMajorClassAxis": member}
		}
		if strings.HasSuffix(concept, "Percentage") {
			f.Unit = "pure"
		}
		return f
	}
	// The total labelled by its name ("Content amortization"), and, as
	// some filings label it, "Total": then named by its concept alone, as
	// many words beside the question's as the share's.
	for _, total := range []string{"Content amortization", "Total"} {
		// The share first: a tie would go to it.
		cat.SetFigures("n24", FigureEntries([]corpus.Fact{
			fact("nflx:AverageProducedContentAssetAmortizationPercentage", "", "", "0.9", false),
			fact("nflx:CostofServicesAmortizationofStreamingContentAssets", total, "", "15301517000", false),
			fact("nflx:CostofServicesAmortizationofStreamingContentAssets", "Produced content (1)", "nflx:ProducedContentMember", "7612503000", false),
			fact("nflx:CostofServicesAmortizationofStreamingContentAssets", "Licensed content", "nflx:LicensedContentMember", "7689014000", false),
			fact("nflx:ProducedContentReleasedNet", "Released, less amortization", "nflx:ProducedContentMember", "10152000000", true),
		}))
		tests := []struct{ question, key string }{
			{"NFLX 2024 produced-content amortization?", "nflx:CostofServicesAmortizationofStreamingContentAssets[nflx:ProducedContentMember]"},
			{"Netflix content amortization 2024", "nflx:CostofServicesAmortizationofStreamingContentAssets"},
		}
		for _, tt := range tests {
			_, g := planFor(t, cat, tt.question, 0)
			var keys []string
			for _, k := range lookups(t, g) {
				keys = append(keys, k[:strings.LastIndexByte(k, ' ')])
			}
			if !slices.Equal(keys, []string{tt.key}) {
				t.Errorf("total labelled %q, %q: lookups %v; want %s", total, tt.question, keys, tt.key)
			}
		}
	}
}

// Words saying how a figure is measured ("absolute", "reported",
// "nominal") narrow nothing: "absolute R&D spend" is the R&D expense.
func TestMeasureWordsNarrowNothing(t *testing.T) {
	for _, q := range []string{"Compare absolute R&D spend: Apple FY2024 vs Meta FY2024.", "Apple's reported R&D expense in fiscal 2024?"} {
		_, g := planFor(t, smallCatalog(), q, 0)
		for _, r := range g.Requirements {
			if strings.Contains(r.Need, "absolute") || strings.Contains(r.Need, "reported r&d") || strings.Contains(r.Need, "a part of") {
				t.Errorf("%q: requirement %q reads a measure word as a part", q, r.Need)
			}
		}
	}
}

// The rows above a bare "Total" that add up to it are parts of the figure
// another row states the total's amount as: "LinkedIn revenue" is the row
// "LinkedIn" of the table of revenue by offering, whose "Total" is the
// income statement's "Total revenue". Rows that do not add up to their
// total are parts of nothing.
func TestPartsOfTotals(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	var facts []corpus.Fact
	at := 0
	add := func(label, value string) {
		at += 100
		facts = append(facts, corpus.Fact{Kind: corpus.FactTable, Label: label, Value: decimal.RequireFromString(value), Unit: "USD",
			PeriodStart: day("2021-07-01"), PeriodEnd: day("2022-06-30"), Start: at, End: at + 5})
	}
	add("Total revenue", "198270000000")
	add("Server products and cloud services", "67321000000")
	add("LinkedIn", "13816000000")
	add("Other", "117133000000")
	add("Total", "198270000000")
	add("Raw materials", "1000000")
	add("Finished goods", "2000000")
	add("Total", "5000000")
	entries := FigureEntries(facts)
	partOf := map[string][]string{}
	for _, e := range entries {
		partOf[e.Label] = e.PartOf
	}
	if !slices.Equal(partOf["LinkedIn"], []string{"table:Total revenue"}) || len(partOf["Raw materials"]) > 0 || len(partOf["Total revenue"]) > 0 {
		t.Errorf("parts: %v", partOf)
	}
	cat := textCatalog("m22", "MSFT", "Microsoft Corporation", 2022, "2022-06-30")
	cat.SetFigures("m22", entries)
	_, g := planFor(t, cat, "What was Microsoft's LinkedIn revenue in fiscal 2022?", 0)
	if keys := lookups(t, g); !slices.Equal(keys, []string{"table:LinkedIn FY2022"}) {
		t.Errorf("lookups %v; want the LinkedIn row", keys)
	}
	// A part named as the subject of what it did is still the part.
	q := "LinkedIn did ~$13.8B in FY22 revenue, +34% y/y."
	if got := withoutAmountSaid(q); len(got) != len(q) || strings.Join(strings.Fields(got), " ") != "LinkedIn revenue, +34% y/y." {
		t.Errorf("withoutAmountSaid = %q", got)
	}
}

// Initials joined by "&" name the row of the words they join, either way
// round and whatever generic noun follows ("G&A expense"; "S&M" for
// "Marketing and sales"); a sibling of a topic's figure ("investing cash
// flow" beside operating cash flow) is that figure alone.
func TestInitialsAndSiblingFigures(t *testing.T) {
	cat := textCatalog("g24", "GOOGL", "Alphabet Inc.", 2024, "2024-12-31")
	cat.SetFigures("g24", partRows("2024-01-01", "2024-12-31",
		[3]string{"General and administrative expenses", "", "14188000000"},
		[3]string{"Marketing and sales", "", "11347000000"},
		[3]string{"Net cash provided by (used in) investing activities", "", "-45536000000"},
	))
	tests := []struct{ question, key string }{
		{"Alphabet G&A expense 2024", "table:General and administrative expenses FY2024"},
		{"Alphabet 2024 S&M spend?", "table:Marketing and sales FY2024"},
	}
	for _, tt := range tests {
		_, g := planFor(t, cat, tt.question, 0)
		if keys := lookups(t, g); !slices.Equal(keys, []string{tt.key}) {
			t.Errorf("%q: lookups %v; want %s", tt.question, keys, tt.key)
		}
	}
	rt := RouteQuestion("Alphabet investing cash flow 2024", cat, nil)
	if !slices.ContainsFunc(rt.Figures, func(f FigureAsk) bool { return f.Metric == "investing_cash_flow" }) || slices.Contains(rt.Aspects, "cash_flow") {
		t.Errorf("figures %+v, aspects %v; want the investing cash flow alone", rt.Figures, rt.Aspects)
	}
}

// A part's name closed by an organisational noun is named without it
// ("data center revenue" for the "Data Center Group"), and a move said
// with "down" before the year asked ("was ... revenue down in 2020")
// is a premise the figures check.
func TestPartWithoutOrgNoun(t *testing.T) {
	cat := textCatalog("i20", "INTC", "Intel Corporation", 2020, "2020-12-26")
	cat.SetFigures("i20", partRows("2019-12-29", "2020-12-26",
		[3]string{"Net revenue", "Data Center Group", "26103000000"},
		[3]string{"Operating income (loss)", "Data Center Group", "10571000000"},
		[3]string{"Net revenue", "Client Computing Group", "40057000000"},
		[3]string{"Operating income (loss)", "Client Computing Group", "15129000000"},
	))
	if segs := cat.SegmentsIn("Why was Intel's data center revenue down in 2020?", "INTC"); len(segs) != 1 || segs[0].Members[0] != "part:Data Center Group" {
		t.Errorf("SegmentsIn = %+v; want the Data Center Group", segs)
	}
	if got := assertedSign("Why was Intel's data center revenue down in 2020?"); got != -1 {
		t.Errorf("assertedSign = %d, want -1", got)
	}
	if withoutOrgNoun("Walmart U.S.") != "" || withoutOrgNoun("Cloud Group") != "" {
		t.Errorf("withoutOrgNoun shortened a name of two words or fewer")
	}
}

// What a thing did to a part's figure ("Netflix cut prices in Latin
// America ... How much revenue did those price cuts cost them?") is asked
// as a figure of its own beside the part's, which it does not narrow.
func TestContributorBesidePart(t *testing.T) {
	cat := NewCatalog([]corpus.Document{{ID: "n24", Ticker: "NFLX", Company: "Netflix, Inc.", Form: "10-K", FiscalYear: 2024,
		PeriodEnd: time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), Format: corpus.FormatHTML}})
	cat.SetFigures("n24", partRows("2024-01-01", "2024-12-31",
		[3]string{"Streaming revenues", "Latin America (LATAM)", "4839816000"},
		[3]string{"Streaming revenues", "United States and Canada (UCAN)", "17359369000"},
	))
	_, g := planFor(t, cat, "Netflix cut prices in Latin America in 2024. How much revenue did those price cuts cost them?", 0)
	var part, cuts bool
	for _, r := range g.Requirements {
		part = part || slices.ContainsFunc(r.Completion.Concepts, func(k string) bool { return strings.Contains(k, "Latin America") && !strings.Contains(k, "price") })
		cuts = cuts || strings.Contains(r.ID, "price-cuts")
	}
	if !part || !cuts {
		t.Errorf("requirements %+v; want the part's revenue and, beside it, what the price cuts cost", g.Requirements)
	}
}

// A label holding every word asked is weighed alone, not with its
// concept's words: "content amortization" is the row the filing labels
// so, not another concept of fewer words.
func TestLabelWeighedAlone(t *testing.T) {
	cat := NewCatalog([]corpus.Document{{ID: "n24", Ticker: "NFLX", Company: "Netflix, Inc.", Form: "10-K", FiscalYear: 2024,
		PeriodEnd: time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), Format: corpus.FormatHTML}})
	fact := func(concept, label string) corpus.Fact {
		return corpus.Fact{Concept: concept, Label: label, Value: decimal.RequireFromString("1000000"), Unit: "USD",
			PeriodStart: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), PeriodEnd: time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), Start: 10, End: 15}
	}
	cat.SetFigures("n24", FigureEntries([]corpus.Fact{
		fact("nflx:ContentAmortizationOther", ""),
		fact("nflx:CostofServicesAmortizationofStreamingContentAssets", "Content amortization"),
	}))
	if k, ok := cat.ResolvePhrase("n24", []string{"content", "amortization"}, ""); k != "nflx:CostofServicesAmortizationofStreamingContentAssets" {
		t.Errorf("ResolvePhrase = %q, %v; want the row labelled so", k, ok)
	}
}
