package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/tools"
)

// TestQualifiedFigures: the words a question writes around a catalogue
// figure's name to ask for a part of it are read as the part; a figure
// named as a whole, a period or an issuer's name next to it is not a part.
func TestQualifiedFigures(t *testing.T) {
	t.Parallel()
	cat := NewCatalog(nil)
	tests := []struct {
		question string
		metric   string // "" when nothing is narrowed
		words    []string
	}{
		{"What was Costco's membership fee revenue in fiscal 2022?", "revenue", []string{"membership", "fee", "revenue"}},
		{"What were Walmart's eCommerce sales in fiscal 2022?", "revenue", []string{"eCommerce", "sales"}},
		{"Did Walmart's e-commerce sales grow in fiscal 2022 and why?", "revenue", []string{"e-commerce", "sales"}},
		{"What was Microsoft's server products and cloud services revenue in FY2022?", "revenue", []string{"server", "products", "and", "cloud", "services", "revenue"}},
		{"How much revenue from cloud services did Oracle report in fiscal 2023?", "revenue", []string{"revenue", "from", "cloud", "services"}},
		{"How much did Cerner contribute to the total revenues in fiscal 2023?", "revenue", []string{"Cerner", "total", "revenues"}},
		{"How much revenue did Activision Blizzard contribute to the results?", "revenue", []string{"Activision", "Blizzard", "revenue"}},
		{"How much did Activision Blizzard add to the gaming revenue in fiscal 2022?", "revenue", []string{"Activision", "Blizzard", "gaming", "revenue"}},
		{"By how much did stretching server/network equipment useful lives lift Microsoft's FY21 operating income?", "operating_income", []string{"server", "network", "equipment", "useful", "lives", "operating", "income"}},
		{"How much did the tax law change reduce net income in 2022?", "net_income", []string{"tax", "law", "change", "net", "income"}},
		// what took from the figure is the part
		{"How much revenue did the tariffs cost Apple in 2025?", "revenue", []string{"tariffs", "revenue"}},
		{"How much revenue did those price cuts cost them in 2024?", "revenue", []string{"price", "cuts", "revenue"}},
		// "that" points back to what the clause before says was done
		{"Microsoft stretched server useful lives in FY21 - how much did that add to FY2021 operating income?", "operating_income", []string{"server", "useful", "lives", "operating", "income"}},
		{"When Microsoft stretched server/network equipment useful lives at the start of FY21, how much did that add to FY21 operating income?", "operating_income",
			[]string{"server", "network", "equipment", "useful", "lives", "operating", "income"}},
		// a subject and what it did stand for the subject's figure
		{"LinkedIn did ~$13.8B in FY22 revenue, +34% y/y.", "revenue", []string{"LinkedIn", "revenue"}},
		// a change that contributed is the part, named once
		{"How much did the membership fee hike add to membership fee revenue in 2022?", "revenue", []string{"membership", "fee", "hike", "revenue"}},
		// a contributor named and described: the name is the part
		{"How much did the Cerner deal add to the total revenues in fiscal 2023?", "revenue", []string{"Cerner", "total", "revenues"}},
		{"How much revenue did the Activision Blizzard acquisition contribute?", "revenue", []string{"Activision", "Blizzard", "revenue"}},
		{"Did lower fuel prices hurt net income in 2022?", "", nil},
		{"Why did higher costs reduce operating income?", "", nil},
		{"What operating income did Microsoft's gaming segment report in FY2022?", "operating_income", []string{"gaming", "segment", "operating", "income"}},
		{"How much revenue did Netflix generate in 2024?", "", nil},
		{"How much revenue did the company generate in 2022?", "", nil},
		{"Retail revenue, FY2022: Walmart vs Costco total revenues.", "", nil},
		{"Which of the two ran the richer net income in 2022?", "", nil},
		{"What were Apple's total net sales in fiscal 2024?", "", nil},
		{"What was Alphabet's total revenue in 2024?", "", nil},
		{"META FY2024 revenue", "", nil},
		{"What was Costco's cost of sales in fiscal 2022?", "", nil},
		{"How much revenue did Netflix generate in 2024?", "", nil},
		{"What was NVIDIA's reported revenue for fiscal 2023?", "", nil},
		{"What did Alphabet report as net income for 2023?", "", nil},
		{"Please give me revenue as reported for FY2024", "", nil},
		{"Walmart consolidated net sales FY22", "", nil},
		{"Walmart vs Target: total revenue for fiscal 2022.", "", nil},
		{"Target revenue compared with Walmart's in 2022", "", nil},
		{"Costco: revenue, fiscal 2022", "", nil},
		{"What did Amazon guide for Q1 2025 net sales and operating income?", "", nil},
		// who holds a view, and the verb of holding it, narrow nothing
		{"eBay take rate 2022 - and does management think revenue will keep declining in 2023?", "", nil},
		// a share of a total: the part, the total being the share's whole
		{"ORCL FY23 cloud revenue as % of total revenue", "revenue", []string{"cloud", "revenue"}},
		{"What share of Oracle's FY23 revenue came from cloud services?", "revenue", []string{"revenue", "from", "cloud", "services"}},
		// arithmetic between figures makes each a figure of its own
		{"FCF defined as operating cash flow minus capex; and revenue less cost of revenue", "", nil},
		{"What were gross bookings minus net income for 2022?", "", nil},
		// a period compared with the one before says how, not which part
		{"Alphabet 2024: year-over-year revenue growth?", "", nil},
		{"What was Netflix's quarter-on-quarter revenue growth?", "", nil},
		{"Oracle's cloud services revenue growth", "revenue", []string{"cloud", "services", "revenue", "growth"}},
		{"Oracle's cloud services year-over-year revenue growth", "revenue", []string{"cloud", "services", "revenue", "growth"}},
	}
	for _, tt := range tests {
		got := qualifiedFigures(tt.question, cat, nil, []string{"TGT (TARGET CORP)"}, metricNames([]string{"revenue", "cost_of_revenue", "net_income", "operating_income"}))
		i := slices.IndexFunc(got, func(q qualifiedFigure) bool {
			return q.Metric == "revenue" || q.Metric == "net_income" || q.Metric == "operating_income"
		})
		switch {
		case tt.metric == "" && i >= 0:
			t.Errorf("%q: read a part %q; want the figure as a whole", tt.question, got[i].What())
		case tt.metric != "" && i < 0:
			t.Errorf("%q: no part read; want %q", tt.question, tt.words)
		case tt.metric != "" && !slices.Equal(got[i].Words, tt.words):
			t.Errorf("%q: part %q, want %q", tt.question, got[i].Words, tt.words)
		}
	}
}

// TestQualifiedGenerated: a name the filings use, that is no issuer's,
// generating a figure names a part of it; one no filing uses does not.
func TestQualifiedGenerated(t *testing.T) {
	t.Parallel()
	cat := NewCatalog(nil)
	cat.SetTextStats(NewTextStats([]StatsDoc{{ID: "m22", Issuer: "MSFT", Text: "Azure and other cloud services revenue grew 45%."}}))
	names := metricNames([]string{"revenue"})
	got := qualifiedFigures("How many dollars of revenue did Azure alone generate in fiscal 2022?", cat, nil, nil, names)
	if len(got) != 1 || !slices.Equal(got[0].Words, []string{"Azure", "revenue"}) {
		t.Errorf("Azure: %+v; want the part Azure of revenue", got)
	}
	cat.SetTextStats(NewTextStats([]StatsDoc{{ID: "i20", Issuer: "INTC", Text: "Mobileye revenue was $967 million."}}))
	if got := qualifiedFigures("How much revenue did Mobileye bring in for Intel in 2020?", cat, nil, nil, names); len(got) != 1 || got[0].Words[0] != "Mobileye" {
		t.Errorf("Mobileye: %+v; want the part Mobileye of revenue", got)
	}
	if got := qualifiedFigures("How much revenue did Zorblax generate in 2022?", cat, nil, nil, names); len(got) != 0 {
		t.Errorf("a name no filing uses: %+v; want none", got)
	}
}

// TestQualifiedList: a part named once is of every figure its list joins,
// named before the list or as what reports it after; a figure joined to
// another issuer's, or to a total, is not the part's.
func TestQualifiedList(t *testing.T) {
	t.Parallel()
	cat := NewCatalog(nil)
	cat.SetTextStats(NewTextStats([]StatsDoc{{ID: "i20", Issuer: "INTC", Text: "Mobileye revenue was $967 million. Mobileye operating income was $241 million."}}))
	for _, tt := range []struct {
		q    string
		want bool // operating income is Mobileye's
	}{
		{"Intel 2020: Mobileye revenue and operating income?", true},
		{"Intel's fiscal 2020: what revenue and what operating income did Mobileye report?", true},
		{"Intel 2020: Mobileye revenue and total operating income?", false},
		{"Intel 2020: Mobileye revenue, and why did operating income rise?", false},
	} {
		got := qualifiedFigures(tt.q, cat, []string{"INTC"}, nil, metricNames([]string{"operating_income"}))
		of := slices.ContainsFunc(got, func(q qualifiedFigure) bool { return len(q.Part) > 0 && q.Part[0] == "Mobileye" })
		if of != tt.want {
			t.Errorf("%q: %+v; operating income of Mobileye = %v, want %v", tt.q, got, of, tt.want)
		}
	}
}

// TestQualifiedTitle: a title before the question's colon labels it; a
// figure the title narrows and the question names again is narrowed by
// what follows the title, not by the title's words.
func TestQualifiedTitle(t *testing.T) {
	t.Parallel()
	cat := NewCatalog(nil)
	names := metricNames([]string{"capex", "revenue"})
	for _, tt := range []struct {
		q    string
		want []string // the narrowed figure's words; nil for none
	}{
		{"AI capex arms race check: 2024 capital expenditures for Amazon, Alphabet and Meta", nil},
		{"AI capex check: which spent more?", []string{"AI", "capex"}},
		{"What drove cloud revenue: pricing or volume?", []string{"cloud", "revenue"}},
	} {
		got := qualifiedFigures(tt.q, cat, nil, nil, names)
		var words []string
		if len(got) > 0 {
			words = got[0].Words
		}
		if !slices.Equal(words, tt.want) {
			t.Errorf("%q: narrowed %q, want %q", tt.q, words, tt.want)
		}
	}
}

// TestQualifiedOwnName: a figure's own name is no part of another figure.
// "margin" is a word of the revenue aspect's, as the aspect path reads
// revenue's names, yet "operating margin" is the operating margin, not a
// revenue narrowed by "operating".
func TestQualifiedOwnName(t *testing.T) {
	t.Parallel()
	names := metricNames([]string{"revenue"})
	for _, q := range []string{"eBay 2022 revenue and operating margin?", "eBay 2022 net revenues and operating margin?", "eBay 2022 operating margin?"} {
		if got := qualifiedFigures(q, NewCatalog(nil), nil, nil, names); len(got) > 0 {
			t.Errorf("%q: read a part of revenue %q; want none", q, got[0].What())
		}
	}
	// A part still narrows: "cloud margin" is no figure of its own.
	if got := qualifiedFigures("ORCL FY23 cloud margin?", NewCatalog(nil), nil, nil, names); len(got) != 1 || got[0].What() != "cloud margin" {
		t.Errorf("cloud margin: %+v; want the part \"cloud margin\"", got)
	}
}

// TestPlanQualifiedFigure: a part of a figure the filing does not name as
// a segment is planned as that part (a row or a sentence that names it),
// never as the company-wide figure; a part it names as a segment is looked
// up under its member.
func TestPlanQualifiedFigure(t *testing.T) {
	t.Parallel()
	g := planOf(t, "What was Text Filer's membership fee revenue in fiscal 2022?", "TXTF")
	for _, r := range g.Requirements {
		if r.Completion.Kind == CondFact && slices.ContainsFunc(r.Completion.Concepts, func(c string) bool { return c == "revenue" || strings.Contains(c, "Revenue") }) {
			t.Errorf("requirement %s looks up the company-wide revenue for a part of it", r.ID)
		}
	}
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "membership-fee-revenue") })
	if i < 0 {
		t.Fatalf("requirements %v: none for the membership fee revenue asked", reqIDs(g))
	}
	r := g.Requirements[i]
	if !r.Required || r.Completion.Kind != CondPassage || !slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Contains(grp, "membership") }) ||
		!slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Contains(grp, LevelTerm) }) {
		t.Errorf("requirement %+v: want a required passage naming the part with an amount as a level (a rate or a change does not state revenue)", r)
	}

	g = planOf(t, "What were XMPL's Example Web Services net sales in 2024?", "XMPL")
	if keys := lookups(t, g); !slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(k, "ExampleWebServicesSegmentMember") }) {
		t.Errorf("lookups %q: want the segment's member", keys)
	}
}

func reqIDs(g *Graph) []string {
	var ids []string
	for _, r := range g.Requirements {
		ids = append(ids, r.ID)
	}
	return ids
}

// TestAssertedSign: the change a question asserts, and none where it
// supposes or asks about the future.
func TestAssertedSign(t *testing.T) {
	t.Parallel()
	tests := map[string]int{
		"Why did Netflix's revenue decline in 2024?":                        -1,
		"Intel's revenue fell in 2020 because of COVID, right?":             -1,
		"What drove the increase in Apple's services revenue?":              1,
		"Amazon's operating income jumped in 2024; what drove it?":          1,
		"What was Apple's revenue in 2024?":                                 0,
		"Will Apple's revenue decline next year?":                           0,
		"If revenue fell, what would happen to margins?":                    0,
		"Revenue rose but operating income fell: why?":                      0,
		"Does management expect gross margin to decline?":                   0,
		"How much did Costco's membership fee revenue grow in fiscal 2022?": 1,
		"Why did XMPL's revenue collapse in fiscal 2023?":                   -1,
		"XMPL's operating income plummeted; what happened?":                 -1,
		"What explains XMPL's margin rebound in 2024?":                      1,
		"XMPL's gross margin percentage expanded in fiscal 2022. Why?":      1,
		"Why did XMPL's operating margin widen?":                            1,
		"XMPL's margins contracted in 2023; what drove it?":                 -1,
		"XMPL's net loss narrowed in 2024. Why?":                            -1,
		"Why was XMPL's gross margin compressed?":                           -1,
		"What drove Apple's Greater China sales growth in fiscal 2024?":     1,
		"What was Apple's revenue growth in fiscal 2024?":                   0,
		"NVDA gaming rev FY23 up how much?":                                 1,
		"By how much was XMPL revenue down in 2022?":                        -1,
		"Was XMPL revenue up or down in 2022?":                              0,
		"Why did XMPL cut its content spending in 2024?":                    -1,
		// a figure described by comparison, its cause asked
		"What explains XMPL's lower effective tax rate in 2024?": -1,
		"What drove XMPL's higher operating costs?":              1,
		"What was XMPL's lower-margin segment's revenue?":        0,
		// a sentence asking an expectation asserts nothing; one beside it may
		"XMPL's support expenses jumped in FY2023. Does management expect that growth to continue?": 1,
	}
	for q, want := range tests {
		if got := assertedSign(q); got != want {
			t.Errorf("assertedSign(%q) = %d, want %d", q, got, want)
		}
	}
}

// TestPartsAsked: the subject an explanation must be about is the part the
// question names, as it writes it; a figure asked as a whole names none.
func TestPartsAsked(t *testing.T) {
	t.Parallel()
	cat := NewCatalog(nil)
	tests := []struct {
		question string
		want     []string
	}{
		{"Why did Walmart's International net sales fall in fiscal 2022?", []string{"International"}},
		{"What drove membership fee revenue at Costco in 2022?", []string{"membership fee"}},
		{"Why did revenue from cloud services and license support grow?", []string{"cloud services and license support"}},
		{"Why did Walmart's total revenues rise in fiscal 2022?", nil},
	}
	for _, tt := range tests {
		if got := PartsAsked(tt.question, cat, Route{}); !slices.Equal(got, tt.want) {
			t.Errorf("PartsAsked(%q) = %q, want %q", tt.question, got, tt.want)
		}
	}
}

// TestPlanPremise: a one-issuer question asserting a figure's change plans
// the change from the year's and the prior year's figures, required and
// signed as asserted, even in a causal question whose other requirements
// are context.
func TestPlanPremise(t *testing.T) {
	t.Parallel()
	for q, sign := range map[string]int{
		"Why did XMPL's operating income decline in 2024?":                -1,
		"XMPL's operating income fell in 2024 because of tariffs, right?": -1,
		"Why did XMPL's operating income increase in 2024?":               1,
	} {
		g := planOf(t, q, "XMPL")
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Completion.Sign != 0 })
		if i < 0 {
			t.Errorf("%q: requirements %v: no premise planned", q, reqIDs(g))
			continue
		}
		r := g.Requirements[i]
		if r.Completion.Sign != sign || !r.Required || r.Completion.Kind != CondCalculation || len(r.Completion.Of) != 2 {
			t.Errorf("%q: premise %+v: want a required calculation of sign %d over two figures", q, r, sign)
		}
		// The filing's own sentence on the change, quoted where the
		// figures contradict the question.
		if !slices.ContainsFunc(g.Requirements, func(s Requirement) bool {
			return s.ID == r.ID+"-statement" && !s.Required && s.Completion.Kind == CondPassage
		}) {
			t.Errorf("%q: requirements %v: no optional statement of the change beside the premise", q, reqIDs(g))
		}
	}
	for _, q := range []string{
		"What was XMPL's operating income in 2024?",
		// A ratio's direction is not its inputs': no premise on revenue.
		"Why did XMPL's gross margin percentage fall in 2024?",
	} {
		g := planOf(t, q, "XMPL")
		if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return r.Completion.Sign != 0 }) {
			t.Errorf("%q planned a premise: %v", q, reqIDs(g))
		}
	}
}

// A premise asked of a figure a pronoun says is the part's, named in the
// sentence before ("Compute & Networking. Did its operating income
// grow?"), is the part's figure, not the company's.
func TestPlanPremiseOfAPartPointedBack(t *testing.T) {
	t.Parallel()
	q := "So, XMPL's Compute & Networking. How much did its operating income actually grow in 2024?"
	g := planOf(t, q, "XMPL")
	var premises []Requirement
	for _, r := range g.Requirements {
		if r.Completion.Sign != 0 {
			premises = append(premises, r)
		}
	}
	if len(premises) == 0 {
		t.Fatalf("no premise planned: %v", reqIDs(g))
	}
	for _, r := range premises {
		if !strings.Contains(r.Need, "Compute & Networking") {
			t.Errorf("premise %s: %q; want the part's operating income", r.ID, r.Need)
		}
	}
}

// A part said to grow faster than the whole: the whole's growth is asked
// too, required, and the part's as a rate where rates are asked.
func TestPlanPartGrowthAgainstWhole(t *testing.T) {
	t.Parallel()
	g := planOf(t, "Did XMPL's Example Web Services segment grow faster than the company as a whole in 2024? Give me both growth rates.", "XMPL")
	byID := map[string]Requirement{}
	for _, r := range g.Requirements {
		byID[r.ID] = r
	}
	whole := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
		if r.Completion.Kind != CondCalculation || !r.Required || len(r.Completion.Of) != 1 {
			return false
		}
		fig := byID[r.Completion.Of[0]]
		return len(fig.Completion.Concepts) > 0 && !strings.Contains(fig.Completion.Concepts[0], "[")
	})
	if !whole {
		t.Errorf("no required growth of the company's revenue: %v", reqIDs(g))
	}
	if !slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-premise-revenue-rate") }) {
		t.Errorf("no rate of the part's growth: %v", reqIDs(g))
	}
	// Without the whole named, the part alone.
	g = planOf(t, "Did XMPL's Example Web Services segment grow in 2024?", "XMPL")
	if slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-figures-figure-revenue-change") }) {
		t.Errorf("the whole's growth planned where the question names no whole: %v", reqIDs(g))
	}
}

// A move named by the two years it spans is the later year's over the one
// before: no premise on the earlier year's own move.
func TestPlanPremiseOverSpan(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"By how much did XMPL's operating income grow between the end of fiscal 2023 and the end of fiscal 2024?",
		"XMPL operating income rose from FY23 to FY24 - by how much?",
	} {
		g := planOf(t, q, "XMPL")
		var periods []string
		for _, r := range g.Requirements {
			if r.Completion.Sign != 0 {
				periods = append(periods, r.Period)
			}
		}
		if len(periods) == 0 || slices.ContainsFunc(periods, func(p string) bool { return p != "FY2024" }) {
			t.Errorf("%q: premises of %v; want FY2024's alone (requirements %v)", q, periods, reqIDs(g))
		}
	}
}

// A change the question states in numbers is part of its premise: the
// premise computes the rate and must agree with it.
func TestPlanPremiseRate(t *testing.T) {
	t.Parallel()
	for q, rate := range map[string]string{
		"What explains XMPL's 41% operating income growth in 2024?":  "0.41",
		"Why did XMPL's operating income drop 27% in 2024?":          "-0.27",
		"Why did XMPL's operating income fall by about 3.5 percent?": "-0.035",
		"Why did XMPL's operating income decline in 2024?":           "",
	} {
		g := planOf(t, q, "XMPL")
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Completion.Sign != 0 })
		if i < 0 {
			t.Errorf("%q: requirements %v: no premise planned", q, reqIDs(g))
			continue
		}
		r := g.Requirements[i]
		if r.Completion.Rate != rate {
			t.Errorf("%q: premise rate %q, want %q", q, r.Completion.Rate, rate)
		}
		n := servers(g, r.ID)
		if rate != "" && (len(n) != 1 || !strings.Contains(string(n[0].Args), `/ operating_income_prior`)) {
			t.Errorf("%q: premise served by %v; want the rate of change computed", q, n)
		}
	}
	for q := range map[string]bool{
		"Why did XMPL's operating income rise while its gross margin stayed at 46%?": true,
		"XMPL grew 8% and 12% in the two years; why?":                                true,
	} {
		if _, ok := assertedRate(q, 1); ok {
			t.Errorf("%q: a rate read; want none (not a change, or two)", q)
		}
	}
}

// TestCalculationMeets: a signed condition holds only for a result of its
// sign; an unsigned one for any.
func TestCalculationMeets(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sign   int
		result string
		want   bool
	}{
		{0, "-5", true}, {0, "5", true}, {1, "5", true}, {1, "-5", false}, {1, "0", false}, {-1, "-5", true}, {-1, "5", false},
	} {
		r := Requirement{Completion: Condition{Kind: CondCalculation, Sign: tt.sign}}
		if got := CalculationMeets(r, decimal.RequireFromString(tt.result)); got != tt.want {
			t.Errorf("sign %d, result %s: %v, want %v", tt.sign, tt.result, got, tt.want)
		}
	}
	// A rate asserted: about that rate, rounded as people round.
	for _, tt := range []struct {
		rate, result string
		want         bool
	}{
		{"0.41", "0.002", false}, {"0.41", "0.40", true}, {"0.41", "0.37", true}, {"0.41", "0.36", false},
		{"0.08", "0.078", true}, {"0.08", "0.055", false}, {"-0.27", "-0.265", true}, {"-0.27", "0.27", false},
	} {
		r := Requirement{Completion: Condition{Kind: CondCalculation, Sign: 1, Rate: tt.rate}}
		if strings.HasPrefix(tt.rate, "-") {
			r.Completion.Sign = -1
		}
		if got := CalculationMeets(r, decimal.RequireFromString(tt.result)); got != tt.want {
			t.Errorf("rate %s, result %s: %v, want %v", tt.rate, tt.result, got, tt.want)
		}
	}
}

// A count noun asks for the number however the question is phrased:
// "headcount" in a comparison is a figure a sentence must state.
func TestCountNounAsksNumber(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"XMPL headcount at fiscal year-end 2024 vs last year.":        true,
		"How many employees did XMPL have at the end of 2024?":        true,
		"What does XMPL say about its workforce and culture in 2024?": false,
		"Why did XMPL's headcount rise in 2024?":                      false,
	} {
		g := planOf(t, q, "XMPL")
		count := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Contains(grp, CountTerm) })
		})
		if count != want {
			t.Errorf("%q: a count asked = %v, want %v (requirements %+v)", q, count, want, g.Requirements)
		}
	}
}

// A possessive the filings use that names no issuer ("Azure's revenue")
// names the figure's part; an issuer's possessive, or a name the filings
// never use, names the owner.
func TestPossessivePart(t *testing.T) {
	t.Parallel()
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{Issuer: "AAPL", Text: "Azure and other cloud services revenue grew 45%. Apple revenue grew."},
		{Issuer: "META", Text: "Revenue grew."},
	}))
	names := metricNames([]string{"revenue"})
	tests := []struct {
		q    string
		want []string
	}{
		{"What was Azure's revenue in fiscal 2024?", []string{"Azure", "revenue"}},
		{"What was Apple's revenue in fiscal 2024?", nil},
		{"What was Zorblax's revenue in fiscal 2024?", nil},
		{"What was the company's revenue in fiscal 2024?", nil},
	}
	for _, tt := range tests {
		got := qualifiedFigures(tt.q, cat, []string{"AAPL"}, nil, names)
		var words []string
		if len(got) > 0 {
			words = got[0].Words
		}
		if !slices.Equal(words, tt.want) {
			t.Errorf("%q: part %q, want %q", tt.q, words, tt.want)
		}
	}
}

// A clause asking a number or a size by name asks its thing as an item:
// its words up to the verb, a preposition or a period, owners dropped.
func TestClauseItem(t *testing.T) {
	t.Parallel()
	for clause, want := range map[string]string{
		" and how many new warehouses were they planning to open":        "new warehouses",
		"How big were NVIDIA's inventory provisions in FY2023":           "inventory provisions",
		"how large was the impairment charge":                            "impairment charge",
		"how big was the decline":                                        "",
		"How many employees did it have":                                 "employees",
		" and how many more people did Amazon employ than Costco":        "",
		" what was the take rate":                                        "take rate",
		" and what's its worldwide renewal rate":                         "worldwide renewal rate",
		"what is their effective tax rate":                               "effective tax rate",
		"what was the main reason":                                       "",
		"What was Apple's revenue in fiscal 2024":                        "", // a figure's name alone: the figure asked
		"What was the Google Cloud's revenue backlog at the end of 2024": "revenue backlog",
		// The amount an issuer reported of a thing it names.
		"What did Intel record as restructuring charges in 2020": "restructuring charges",
		" and what expected return did it assume on plan assets": "expected return",
		// The filing as the subject: "what does the 10-K report for".
		"What does the fiscal 2022 10-K report for membership fees and their growth": "membership fees",
		"What were the two totals":              "", // the figures named before
		"what drove the increase":               "",
		"What did management say about pricing": "",
	} {
		if got := clauseItem(clause); got != want {
			t.Errorf("clauseItem(%q) = %q, want %q", clause, got, want)
		}
	}
}

// A part's count is stated of the part: "Retail Stores headcount" is not
// met by the issuer's whole workforce, and the gap names the part.
func TestPartCountNamesPart(t *testing.T) {
	t.Parallel()
	g := planOf(t, "XMPL Retail Stores headcount at the end of 2024?", "XMPL")
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool {
		return slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Contains(grp, CountTerm) })
	})
	if i < 0 {
		t.Fatalf("no count asked: %+v", g.Requirements)
	}
	r := g.Requirements[i]
	if !slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Contains(grp, "retail stores") }) {
		t.Errorf("count condition %q does not name the part", r.Completion.AllOf)
	}
	if !strings.Contains(r.Need, "retail stores") {
		t.Errorf("need %q does not name the part", r.Need)
	}
	whole := "As of December 31, 2024, we had a global workforce of 74,067 employees."
	if _, ok := SentenceMatch(whole, r.Completion.AllOf); ok {
		t.Errorf("the whole workforce meets the part's count")
	}
}

// An aspect that gathers independent figures looks up those the question
// names: operating income asked is not net income asked too.
func TestAspectMetricsNamed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q         string
		want, not string
	}{
		{"What impact does management expect on XMPL's 2024 operating income?", "operating_income", "net_income"},
	}
	for _, tt := range tests {
		g := planOf(t, tt.q, "XMPL")
		has := func(metric string) bool {
			return slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.HasSuffix(r.ID, "-"+metric) })
		}
		if !has(tt.want) || has(tt.not) {
			t.Errorf("%q: requirements %v; want %s and not %s", tt.q, reqIDs(g), tt.want, tt.not)
		}
	}
}

// A ratio the question says rose or fell is a premise too: the ratio
// less the ratio a year before, from the figures the filing prints side by
// side. A part's ratio ("products gross margin") is not the company's.
func TestPlanRatioPremise(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"Why did XMPL's operating margin decline in 2024?":          true,
		"XMPL's operating margin fell in 2024 - why?":               true,
		"Why did XMPL's products operating margin decline in 2024?": false,
		"What was XMPL's operating margin in 2024?":                 false,
	} {
		g := planOf(t, q, "XMPL")
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-premise-") })
		if (i >= 0) != want {
			t.Errorf("%q: premise planned %v, want %v (%v)", q, i >= 0, want, reqIDs(g))
			continue
		}
		if !want {
			continue
		}
		r := g.Requirements[i]
		n := servers(g, r.ID)
		if r.Completion.Sign != -1 || len(n) != 1 || !strings.Contains(string(n[0].Args), ") - (") || !strings.Contains(string(n[0].Args), `"prior":true`) {
			t.Errorf("%q: premise %+v served by %v; want the ratio less the prior year's, falling", q, r, n)
		}
	}
}

func TestPartOfRatio(t *testing.T) {
	t.Parallel()
	names := []string{"gross margin", "gross margin percentage"}
	for q, want := range map[string]bool{
		"AAPL fiscal Q3 2025 (June qtr): products gross margin % went down y/y. Why?": true,
		"Why did Apple's services gross margin percentage rise?":                      true,
		"Why did Apple's gross margin decline in fiscal 2024?":                        false,
		"AAPL FY24 gross margin fell - why?":                                          false,
		"Why did the gross margin fall at Apple?":                                     false,
	} {
		b := &builder{question: q, rt: Route{Issuers: []string{"AAPL"}}, cat: smallCatalog()}
		if got := b.partOfRatio(names); got != want {
			t.Errorf("partOfRatio(%q) = %v, want %v", q, got, want)
		}
	}
}

// A question on how a part's ratio moved ("Example Web Services operating
// margin declined", "and in the year before") plans the ratio's change
// from the prior-year column beside the ratio, optional; a question on the
// ratio alone does not, and the company's own ratio asserted to move is
// the premise's. A part's ratio asserted to move is checked by its change.
func TestPlanRatioBefore(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"Why did XMPL's Example Web Services operating margin decline in 2024?":       true,
		"XMPL Example Web Services operating margin in 2024, and in the year before?": true,
		"What was XMPL's Example Web Services operating margin in 2024?":              false,
		"Why did XMPL's operating margin decline in 2024?":                            false,
	} {
		g := planOf(t, q, "XMPL")
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool {
			return strings.Contains(r.ID, "-calculation") && strings.HasSuffix(r.ID, "-change")
		})
		if (i >= 0) != want {
			t.Errorf("%q: ratio change planned %v, want %v (%v)", q, i >= 0, want, reqIDs(g))
			continue
		}
		if !want {
			continue
		}
		r := g.Requirements[i]
		n := servers(g, r.ID)
		// A move the question asserts ("decline") is its premise: required,
		// of the sign asserted.
		asserted := strings.Contains(q, "decline")
		if r.Required != asserted || asserted && r.Completion.Sign != -1 || r.Completion.Kind != CondCalculation || len(n) != 1 ||
			!strings.Contains(string(n[0].Args), ") - (") || !strings.Contains(string(n[0].Args), `"prior":true`) {
			t.Errorf("%q: ratio change %+v served by %v; want the ratio less the prior year's, required and falling where asserted", q, r, n)
		}
	}
}

// The question's own word is searched for when the aspect's searches do
// not hold it ("headcount", where the aspect searches for "employees"),
// and not twice when they do.
func TestPlanQuestionWordSearched(t *testing.T) {
	t.Parallel()
	for q, word := range map[string]string{
		"XMPL headcount at end of 2024?": "headcount",
		"XMPL employees at end of 2024?": "employees",
	} {
		g := planOf(t, q, "XMPL")
		n := 0
		for _, node := range g.Nodes {
			var a tools.SearchArgs
			if node.Tool == tools.SearchFilings && json.Unmarshal(node.Args, &a) == nil && slices.Contains(strings.Fields(a.Query), word) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q: %d searches hold %q, want 1 (%v)", q, n, word, g.Nodes)
		}
	}
}

// A question taking a loss for granted plans the loss as a premise on the
// figure's sign; one asking the figure, or whether there was a loss, does
// not.
func TestPlanLossPremise(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"What caused XMPL to post an operating loss in 2024?":       true,
		"Why did XMPL report an operating loss in 2024?":            true,
		"What was XMPL's net loss in 2024?":                         false,
		"What was XMPL's operating income (loss) in 2024, and why?": false,
		"Did XMPL post an operating loss in 2024?":                  false,
		"Why did XMPL's operating income or loss change in 2024?":   false,
	} {
		g := planOf(t, q, "XMPL")
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-premise-loss-") })
		if (i >= 0) != want {
			t.Errorf("%q: loss premise planned %v, want %v (%v)", q, i >= 0, want, reqIDs(g))
			continue
		}
		if want && (g.Requirements[i].Completion.Sign != -1 || !g.Requirements[i].Required) {
			t.Errorf("%q: loss premise %+v; want a required negative sign", q, g.Requirements[i])
		}
	}
}

// A profit said to have been made is planned as a premise on the figure's
// sign, whatever else is asked; a question asking whether one was made
// plans none.
func TestPlanProfitPremise(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"XMPL finally turned an operating profit in 2024 — how much did it make?": true,
		"Why did XMPL swing to an operating profit in 2024?":                      true,
		"XMPL returned to an operating profit in 2024. What drove it?":            true,
		"Did XMPL turn a profit in 2024?":                                         false,
		"XMPL 2024: did it post an operating profit?":                             false,
		"What was XMPL's operating profit in 2024?":                               false,
	} {
		g := planOf(t, q, "XMPL")
		i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.ID, "-premise-profit-") })
		if (i >= 0) != want {
			t.Errorf("%q: profit premise planned %v, want %v (%v)", q, i >= 0, want, reqIDs(g))
			continue
		}
		if want && (g.Requirements[i].Completion.Sign != 1 || !g.Requirements[i].Required) {
			t.Errorf("%q: profit premise %+v; want a required positive sign", q, g.Requirements[i])
		}
	}
}

// A figure asked in a clause before the one asserting a move, which names
// its own figure before the move's verb, is not the one the move is
// asserted of.
func TestBeforeTheMovesClause(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q, phrase string
		want      bool
	}{
		{"ebay fy22: GMV and take rate, and why did net revenue fall so much less than GMV?", "take rate", true},
		{"ebay fy22: GMV and take rate, and why did net revenue fall so much less than GMV?", "net revenue", false},
		// The move's clause names no figure of its own: the one before.
		{"eBay's take rate, and why did it fall?", "take rate", false},
		{"Why did eBay's take rate fall in 2022?", "take rate", false},
	}
	for _, tt := range tests {
		if got := beforeTheMovesClause(tt.q, tt.phrase); got != tt.want {
			t.Errorf("beforeTheMovesClause(%q, %q) = %v, want %v", tt.q, tt.phrase, got, tt.want)
		}
	}
}

// The sentence asserting a move names the part it moved: the first that
// asserts one, since a later one refers back ("how much of the drop").
func TestAssertingSentence(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"Why did XMPL's revenue collapse in 2023? Quantify how much of the drop came from Gaming.": "Why did XMPL's revenue collapse in 2023",
		"Gaming revenue fell in 2023. Why?":                        "Gaming revenue fell in 2023",
		"What was XMPL's revenue in 2023? And its Gaming revenue?": "What was XMPL's revenue in 2023? And its Gaming revenue?",
		"Why did Gaming revenue fall in 2023":                      "Why did Gaming revenue fall in 2023",
	} {
		if got := assertingSentence(q); got != want {
			t.Errorf("assertingSentence(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestExpectedDirection: the way a question asks whether something is
// expected to move is read from its sentences asking what is expected,
// not from the premise before them.
func TestExpectedDirection(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]int{
		"Does Meta expect Reality Labs losses to keep growing? What was RL's 2024 operating loss?":                1,
		"Intel's revenue increased in 2020. Does management expect it to decline next year?":                      -1,
		"Does Apple expect gross margin pressure to persist?":                                                     0,
		"Oracle's expenses jumped in FY2023. Does management expect that expense growth to continue into FY2024?": 1,
		"Why did revenue fall in 2022?": 0,
	} {
		if got := ExpectedDirection(q); got != want {
			t.Errorf("ExpectedDirection(%q) = %d, want %d", q, got, want)
		}
	}
	for s, want := range map[string]int{
		"we continue to expect our RL operating losses to increase in 2025":      1,
		"we expect our RL segment to continue to operate at a loss":              0,
		"we expect revenue to decline in the first quarter":                      -1,
		"we expect this growth to continue during fiscal 2024":                   1,
		"revenue increased, partially offset by a decrease in hardware revenues": 0,
	} {
		if got := Direction(s); got != want {
			t.Errorf("Direction(%q) = %d, want %d", s, got, want)
		}
	}
}

// A figure's name the question shortens ("op margin") names that figure,
// not a part of another narrowed by the short word.
func TestShortenedNameIsNoPart(t *testing.T) {
	t.Parallel()
	var all []string
	for _, m := range tools.Metrics {
		all = append(all, m.Name)
	}
	for _, q := range []string{"Op margin, chipmakers: Intel 2020 vs NVIDIA fiscal 2023.", "NFLX op margin expansion in 2024"} {
		for _, got := range qualifiedFigures(q, NewCatalog(nil), nil, nil, metricNames(all)) {
			if strings.EqualFold(got.What(), "op margin") {
				t.Errorf("%q: read %q as a part of %s", q, got.What(), got.Metric)
			}
		}
	}
	tests := []struct {
		words, name string
		want        bool
	}{
		{"op margin", "operating margin", true},
		{"free cash flow", "free cash flow", false},
		{"o margin", "operating margin", false},
		{"op margin", "operating income", false},
	}
	for _, tt := range tests {
		if got := shortens(strings.Fields(tt.words), strings.Fields(tt.name)); got != tt.want {
			t.Errorf("shortens(%q, %q) = %v, want %v", tt.words, tt.name, got, tt.want)
		}
	}
}

// Another figure's name before a figure's narrows it where the issuer's
// filings print the two together ("cash capital expenditures"): the
// question asks that figure, not the cash balance beside capex.
func TestPrintedNarrowing(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{Issuer: "AAPL", Text: "Cash capital expenditures were $10.2 billion in 2024. We expect cash capital expenditures to rise."},
		{Issuer: "NVDA", Text: "Capital expenditures were $1.8 billion. Cash and cash equivalents were $3.4 billion."},
	}))
	if !cat.TextStats().PrintsBefore("AAPL", "cash", []string{"capital expenditures"}) {
		t.Fatal("PrintsBefore(AAPL, cash, capital expenditures) = false")
	}
	if cat.TextStats().PrintsBefore("NVDA", "cash", []string{"capital expenditures"}) {
		t.Fatal("PrintsBefore(NVDA, cash, capital expenditures) = true")
	}
	tests := []struct {
		q, issuer string
		part      bool
	}{
		{"AAPL cash capex in 2024?", "AAPL", true},
		{"NVDA cash capex in fiscal 2023?", "NVDA", false},
	}
	for _, tc := range tests {
		got := slices.ContainsFunc(qualifiedFigures(tc.q, cat, []string{tc.issuer}, nil, metricNames([]string{"capex"})), func(q qualifiedFigure) bool {
			return q.Metric == "capex" && slices.Equal(q.Part, []string{"cash"})
		})
		if got != tc.part {
			t.Errorf("%q: capex narrowed by cash %v; want %v", tc.q, got, tc.part)
		}
	}
	rt := RouteQuestion("AAPL cash capital expenditures in fiscal 2024?", cat, nil)
	if slices.ContainsFunc(rt.Figures, func(f FigureAsk) bool { return f.Metric == "cash" }) {
		t.Errorf("figures %+v: the cash balance asked beside cash capital expenditures", rt.Figures)
	}
}

// A word written short is its first letter and some of its other letters
// in order; a long word or one with other characters is no clipping.
func TestClips(t *testing.T) {
	tests := []struct {
		w, word string
		want    bool
	}{
		{"intl", "international", true},
		{"mgmt", "management", true},
		{"int", "international", true},
		{"pulled", "publiclyheld", false},
		{"intl", "intl", false},
		{"rev", "publicly-held", false},
		{"mgt", "segment", false},
	}
	for _, tt := range tests {
		if got := clips(tt.w, tt.word); got != tt.want {
			t.Errorf("clips(%q, %q) = %v, want %v", tt.w, tt.word, got, tt.want)
		}
	}
}

// A move asserted of a figure no catalogue metric is, which the filing
// labels ("paid memberships"), is checked on that figure against the year
// before, with the sign asserted; a figure the filing does not label
// plans no check.
func TestNamedFigurePremise(t *testing.T) {
	t.Parallel()
	premise := func(q string) *Requirement {
		g := planOf(t, q, "XMPL")
		for i, r := range g.Requirements {
			if r.Completion.Kind == CondCalculation && r.Completion.Sign != 0 {
				return &g.Requirements[i]
			}
		}
		return nil
	}
	if r := premise("Why did XMPL's global paid memberships decline in 2024?"); r == nil || r.Completion.Sign != -1 || !strings.Contains(r.Need, "paid memberships") {
		t.Errorf("premise %+v; want a fall of paid memberships checked", r)
	}
	if r := premise("Why did XMPL's paid memberships grow in 2024?"); r == nil || r.Completion.Sign != 1 {
		t.Errorf("premise %+v; want a rise checked", r)
	}
	if r := premise("Why did XMPL's customer satisfaction decline in 2024?"); r != nil {
		t.Errorf("premise %+v on a figure the filing does not label", r)
	}
	if got := premiseWords("Why did Netflix's global paid memberships decline in 2022", map[string]bool{"netflix": true}); !slices.Equal(got, []string{"global", "paid", "memberships"}) {
		t.Errorf("premiseWords = %q", got)
	}
	if got := premiseWords("Oracle's cloud services and license support expenses jumped in FY2023", map[string]bool{"oracle": true}); !slices.Equal(got, []string{"cloud", "services", "and", "license", "support", "expenses"}) {
		t.Errorf("premiseWords = %q", got)
	}
	if got := premiseWords("Why did sales and margins fall", nil); !slices.Equal(got, []string{"sales", "and", "margins"}) {
		t.Errorf("premiseWords = %q", got)
	}
}

// TestChangeContributorNamed: the change a part is ("the membership fee
// hike") must be named by the sentence stating its amount, however many
// words the part has; the thing that changed does not state it.
func TestChangeContributorNamed(t *testing.T) {
	t.Parallel()
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "c22", Issuer: "COST", Text: "Membership fee revenue increased 9% to $4,224, driven by new member sign-ups. Our executive membership fee."},
		{ID: "x", Issuer: "AAPL", Text: "Net sales rose."},
	}))
	_, g := planFor(t, cat, "How much did Costco's fiscal 2022 executive membership fee hike add to membership fee revenue?", 0)
	var found bool
	for _, r := range g.Requirements {
		if r.Completion.Kind == CondPassage && strings.Contains(r.ID, "hike") {
			found = slices.ContainsFunc(r.Completion.AllOf, func(grp []string) bool { return slices.Equal(grp, []string{"hike"}) })
		}
	}
	if !found {
		t.Errorf("requirements %q: want the hike's amount, with a group naming the hike alone", reqIDs(g))
	}
}

// A short form the issuer's filings define names a part of its business,
// whose move the company's figure does not bear out.
func TestNamesDefinedPart(t *testing.T) {
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{{ID: "i20", Issuer: "INTC",
		Text: "Our Internet of Things Group (IOTG) develops platforms. IOTG revenue decreased 21%."}}))
	b := &builder{cat: cat}
	for text, want := range map[string]bool{
		"Intel IOTG revenue fell 21% in 2020": true,
		"Intel revenue fell in 2020":          false,
		"Intel's GAAP revenue fell in 2020":   false,
	} {
		if got := b.namesDefinedPart("INTC", text); got != want {
			t.Errorf("namesDefinedPart(%q) = %v, want %v", text, got, want)
		}
	}
}

// Verbs of a move are no words a sentence must repeat: "slipped", "ticked
// down", "eased" say the figure fell, as "fell" does.
func TestMoveVerbs(t *testing.T) {
	for _, v := range []string{"slipped", "eased", "ticked down", "edged down", "eroded"} {
		if !fallWords.MatchString("the rate " + v + " to 20.7%") {
			t.Errorf("%q is not read as a fall", v)
		}
	}
	for _, v := range []string{"ticked up", "inched up", "accelerated"} {
		if !riseWords.MatchString("growth " + v + " in 2024") {
			t.Errorf("%q is not read as a rise", v)
		}
	}
	q := "GOOGL's TAC rate slipped to 20.7% in 2024 from 21.4%. What does the 10-K say drove the decline?"
	cat := smallCatalog()
	cat.SetTextStats(NewTextStats([]StatsDoc{
		{ID: "g24", Issuer: "GOOGL", Text: "The TAC rate decreased from 21.4% to 20.7% from 2023 to 2024 primarily due to a revenue mix shift."},
		{ID: "m24", Issuer: "META", Text: "Our costs slipped and our rate of growth rose."},
	}))
	_, g := planFor(t, cat, q, 0)
	for _, r := range g.Requirements {
		for _, grp := range r.Completion.AllOf {
			if slices.Contains(grp, "slipped") {
				t.Errorf("%s asks a sentence saying %q", r.ID, "slipped")
			}
		}
	}
}

// A place named after a figure by "in" ("revenue in China") is the
// figure's part; a period, a month or a unit so named is not.
func TestPlaceAfterFigure(t *testing.T) {
	t.Parallel()
	cat := smallCatalog()
	names := metricNames([]string{"revenue"})
	for q, want := range map[string]string{
		"What was Meta's 2024 revenue in China?":                "China",
		"What was Meta's revenue in the United Kingdom?":        "United Kingdom",
		"What was Meta's revenue in March 2024?":                "",
		"What was Meta's revenue in FY2024?":                    "",
		"What was Meta's revenue in USD for 2024?":              "",
		"What was Meta's revenue in 2024, and why did it rise?": "",
	} {
		got := ""
		for _, qf := range qualifiedFigures(q, cat, []string{"META"}, nil, names) {
			got = strings.Join(qf.Part, " ")
		}
		if got != want {
			t.Errorf("%q: part %q; want %q", q, got, want)
		}
	}
}

// A move asserted of one figure is not checked of another named after the
// move's verb ("... gross margin fall ..., and how large were the
// inventory provisions behind the decline?").
func TestAfterTheMove(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"Why did Nvidia's gross margin fall in fiscal 2023, and how large were the inventory provisions behind the decline?": true,
		"Why did Nvidia's inventory rise in fiscal 2023?":                                                                    false,
		"Nvidia's revenue rose in fiscal 2023 - what was its inventory?":                                                     true,
	} {
		if got := afterTheMove(q, "inventory"); got != want {
			t.Errorf("%q: inventory after the move %v, want %v", q, got, want)
		}
	}
}

// A part's ratio is looked for as the filing prints it on the part's own
// row, beside the one computed.
func TestPartRatioPrinted(t *testing.T) {
	t.Parallel()
	g := planOf(t, "What was XMPL's Example Web Services operating margin in 2024?", "XMPL")
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.Completion.Kind == CondPrinted })
	if i < 0 {
		t.Fatalf("requirements %v: no printed part's ratio", reqIDs(g))
	}
	r := g.Requirements[i]
	if r.Required || !slices.Equal(r.Completion.AllOf[0], []string{"example web services"}) {
		t.Errorf("printed requirement %+v; want optional, naming the part", r)
	}
}

// "What does the 10-K say?" of a move the question asserts asks the
// filing's account of why it moved; of a figure alone, what it states.
func TestWhatTheFilingSaysOfAMove(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"Walmart International's net sales dropped sharply in fiscal 2022. Is that weakness, or something else? What does the 10-K say?": true,
		"What does the 10-K say about Walmart International's net sales in fiscal 2022?":                                                 false,
		"Costco's gross margin fell in FY22. What did management say?":                                                                   true,
	} {
		if got := asksWhy(q); got != want {
			t.Errorf("asksWhy(%q) = %v, want %v", q, got, want)
		}
	}
}
