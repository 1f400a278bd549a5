package planner

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerline/research/tools"
)

// planFor routes and plans a question over the sample corpus and checks the
// graph validates.
func planFor(t *testing.T, cat *Catalog, q string, maxNodes int) (Route, *Graph) {
	t.Helper()
	rt := RouteQuestion(q, cat, nil)
	g, err := (&RulesPlanner{MaxNodes: maxNodes}).Plan(context.Background(), q, rt, cat)
	if err != nil {
		t.Fatalf("Plan(%q): %v", q, err)
	}
	if err := Validate(g, Limits{MaxNodes: maxNodes}); err != nil {
		t.Fatalf("Plan(%q) does not validate: %v", q, err)
	}
	if g.Planner != "rules" || g.Question != q {
		t.Fatalf("Plan(%q): planner %q, question %q", q, g.Planner, g.Question)
	}
	return rt, g
}

func reqByID(g *Graph, id string) (Requirement, bool) {
	i := slices.IndexFunc(g.Requirements, func(r Requirement) bool { return r.ID == id })
	if i < 0 {
		return Requirement{}, false
	}
	return g.Requirements[i], true
}

// servers returns the nodes serving a requirement.
func servers(g *Graph, id string) []Node {
	var out []Node
	for _, n := range g.Nodes {
		if slices.Contains(n.Serves, id) {
			out = append(out, n)
		}
	}
	return out
}

func mustReq(t *testing.T, g *Graph, id string, kind RequirementKind, cond ConditionKind, required bool) Requirement {
	t.Helper()
	r, ok := reqByID(g, id)
	if !ok {
		var ids []string
		for _, r := range g.Requirements {
			ids = append(ids, r.ID)
		}
		t.Fatalf("no requirement %s; have %v", id, ids)
	}
	if r.Kind != kind || r.Completion.Kind != cond || r.Required != required {
		t.Fatalf("requirement %s: kind %s, condition %s, required %v; want %s, %s, %v", id, r.Kind, r.Completion.Kind, r.Required, kind, cond, required)
	}
	if len(servers(g, id)) == 0 {
		t.Fatalf("requirement %s is served by no node", id)
	}
	return r
}

func searchOf(t *testing.T, g *Graph, reqID string) tools.SearchArgs {
	t.Helper()
	for _, n := range servers(g, reqID) {
		if n.Tool == tools.SearchFilings {
			var a tools.SearchArgs
			if err := json.Unmarshal(n.Args, &a); err != nil {
				t.Fatal(err)
			}
			return a
		}
	}
	t.Fatalf("no search serves %s", reqID)
	return tools.SearchArgs{}
}

func TestRulesPlanGrossMarginComparison(t *testing.T) {
	cat := sampleCatalog(t)
	_, g := planFor(t, cat, "Compare gross-margin pressure at AAPL, NVDA and GOOGL in their latest fiscal year and say whether management expects it to persist.", 0)
	if !slices.Equal(g.Tickers, []string{"AAPL", "NVDA", "GOOGL"}) {
		t.Fatalf("tickers %v", g.Tickers)
	}
	for _, p := range []struct{ t, fy string }{{"AAPL", "FY2024"}, {"NVDA", "FY2023"}, {"GOOGL", "FY2024"}} {
		prefix := p.t + "-" + p.fy + "-margins-"
		rev := mustReq(t, g, prefix+"figure-revenue", KindFigure, CondFact, true)
		if !slices.Contains(rev.Completion.Concepts, "us-gaap:Revenues") || rev.Completion.Issuer != p.t || rev.Completion.Period != p.fy {
			t.Errorf("%s revenue condition %+v", p.t, rev.Completion)
		}
		mustReq(t, g, prefix+"figure-cost_of_revenue", KindFigure, CondFact, true)
		mustReq(t, g, prefix+"figure-gross_profit", KindFigure, CondFact, false)
		calc := mustReq(t, g, prefix+"calculation", KindCalculation, CondCalculation, true)
		if !slices.Equal(calc.Completion.Of, []string{prefix + "figure-revenue", prefix + "figure-cost_of_revenue"}) {
			t.Errorf("%s calculation builds on %v", p.t, calc.Completion.Of)
		}
		ex := mustReq(t, g, prefix+"explanation", KindExplanation, CondPassage, true)
		if len(ex.Completion.AllOf) != 2 || !slices.Contains(ex.Completion.AllOf[0], "gross margin") {
			t.Errorf("%s explanation groups %v", p.t, ex.Completion.AllOf)
		}
		if a := searchOf(t, g, prefix+"explanation"); a.Section != "Item 7" || !slices.Equal(a.Tickers, []string{p.t}) || a.Form != "10-K" {
			t.Errorf("%s explanation search %+v", p.t, a)
		}
		out := mustReq(t, g, prefix+"outlook", KindOutlook, CondPassage, true)
		if !slices.Contains(out.Completion.AllOf[1], "expect") {
			t.Errorf("%s outlook groups %v", p.t, out.Completion.AllOf)
		}
		// The calculation runs after both lookups.
		calcNode := servers(g, prefix+"calculation")[0]
		inputs, err := FactInputs(g, calcNode)
		if err != nil {
			t.Fatal(err)
		}
		if len(inputs) != 2 || inputs["revenue"] != servers(g, prefix+"figure-revenue")[0].ID || inputs["cost_of_revenue"] != servers(g, prefix+"figure-cost_of_revenue")[0].ID {
			t.Errorf("%s calculation inputs %v", p.t, inputs)
		}
	}
	cmp := mustReq(t, g, "comparability-margins", KindComparability, CondComparable, false)
	if len(cmp.Completion.Of) != 6 {
		t.Errorf("comparability builds on %v, want the six required figures", cmp.Completion.Of)
	}
	if notes := strings.Join(g.Notes, " "); !strings.Contains(notes, "AAPL FY2024 ends 2024-09-28") || !strings.Contains(notes, "NVDA FY2023 ends 2023-01-29") {
		t.Errorf("notes do not say the fiscal years end on different dates: %q", notes)
	}
	if !slices.Equal(g.FiscalYears, []int{2023, 2024}) {
		t.Errorf("fiscal years %v", g.FiscalYears)
	}
	levels, err := Order(g)
	if err != nil || len(levels) != 2 {
		t.Errorf("Order = %v, %v; want two levels (lookups and searches, then calculations)", levels, err)
	}
}

func TestRulesPlans(t *testing.T) {
	cat := sampleCatalog(t)
	t.Run("total net sales", func(t *testing.T) {
		_, g := planFor(t, cat, "What was Apple's total net sales in fiscal 2024?", 0)
		r := mustReq(t, g, "AAPL-FY2024-revenue-figure-revenue", KindFigure, CondFact, true)
		n := servers(g, r.ID)[0]
		var a tools.LookupFactArgs
		if err := json.Unmarshal(n.Args, &a); err != nil || n.Tool != tools.LookupFact || !reflect.DeepEqual(a, tools.LookupFactArgs{Ticker: "AAPL", Label: "revenue", Period: "FY2024"}) {
			t.Errorf("revenue node %s %s", n.Tool, n.Args)
		}
		// A question that asks for the figure is answered by it: no
		// explanation is planned.
		if _, ok := reqByID(g, "AAPL-FY2024-revenue-explanation"); ok {
			t.Errorf("an explanation was planned for a question asking only for the figure")
		}
		if !slices.Equal(g.FiscalYears, []int{2024}) || !slices.Equal(g.Tickers, []string{"AAPL"}) {
			t.Errorf("scope %v %v", g.Tickers, g.FiscalYears)
		}
	})
	t.Run("content amortization", func(t *testing.T) {
		_, g := planFor(t, cat, "What does Netflix say drives its content amortization?", 0)
		r := mustReq(t, g, "NFLX-FY2024-content-explanation", KindExplanation, CondPassage, true)
		if !slices.Contains(r.Completion.AllOf[0], "content amortization") {
			t.Errorf("groups %v", r.Completion.AllOf)
		}
		if a := searchOf(t, g, r.ID); !strings.Contains(a.Query, "content amortization") || !slices.Equal(a.FiscalYears, []int{2024}) {
			t.Errorf("search %+v", a)
		}
	})
	t.Run("causal", func(t *testing.T) {
		_, g := planFor(t, cat, "Did generative AI improve Meta's margins?", 0)
		r := mustReq(t, g, "META-FY2024-causal", KindExplanation, CondPassage, true)
		if len(r.Completion.AllOf) != 2 || !slices.Contains(r.Completion.AllOf[0], "ai") || !slices.Contains(r.Completion.AllOf[1], "margin") {
			t.Errorf("causal groups %v", r.Completion.AllOf)
		}
		// The causal link is what the question needs; the rest is context.
		mustReq(t, g, "META-FY2024-margins-calculation", KindCalculation, CondCalculation, false)
		mustReq(t, g, "META-FY2024-ai-explanation", KindExplanation, CondPassage, false)
	})
	t.Run("risk factors of a text filing", func(t *testing.T) {
		_, g := planFor(t, cat, "What are Intel's main risk factors in 2020?", 0)
		r := mustReq(t, g, "INTC-FY2020-risks-risk", KindRisk, CondPassage, true)
		a := searchOf(t, g, r.ID)
		if a.Section != "" || a.Form != "10-K" || !slices.Equal(a.FiscalYears, []int{2020}) {
			t.Errorf("search %+v: a text filing is searched without an item filter", a)
		}
		for _, n := range g.Nodes {
			if n.Tool != tools.SearchFilings {
				t.Errorf("node %s is %s: a text filing has no facts", n.ID, n.Tool)
			}
		}
	})
	t.Run("revenue growth of a text filing", func(t *testing.T) {
		_, g := planFor(t, cat, "How did Microsoft's revenue grow in fiscal 2022?", 0)
		r := mustReq(t, g, "MSFT-FY2022-revenue_growth-figure-revenue", KindFigure, CondPassage, true)
		if len(r.Completion.AllOf) != 3 || !slices.Equal(r.Completion.AllOf[2], []string{FigureTerm}) {
			t.Errorf("figure groups %v", r.Completion.AllOf)
		}
		mustReq(t, g, "MSFT-FY2022-revenue_growth-explanation", KindExplanation, CondPassage, true)
		for _, req := range g.Requirements {
			if req.Completion.Kind == CondFact || req.Kind == KindCalculation {
				t.Errorf("requirement %s needs facts a text filing does not have", req.ID)
			}
		}
		// The figure passage a user would cite meets the condition.
		if _, ok := SentenceMatch("Revenue increased $29.0 billion or 18% driven by growth across each of our segments.", r.Completion.AllOf); !ok {
			t.Error("the figure condition does not accept Microsoft's own sentence")
		}
	})
	t.Run("revenue growth with facts", func(t *testing.T) {
		_, g := planFor(t, cat, "How did Apple's revenue grow in fiscal 2024?", 0)
		prior := mustReq(t, g, "AAPL-FY2023-revenue_growth-figure-revenue", KindFigure, CondFact, true)
		if prior.Period != "FY2023" {
			t.Errorf("prior-year period %s", prior.Period)
		}
		calc := mustReq(t, g, "AAPL-FY2024-revenue_growth-calculation", KindCalculation, CondCalculation, true)
		var a tools.CalculateArgs
		if err := json.Unmarshal(servers(g, calc.ID)[0].Args, &a); err != nil || a.Expression != "(revenue - revenue_prior) / revenue_prior" || a.Facts["revenue_prior"].Period != "FY2023" {
			t.Errorf("growth calculation %+v", a)
		}
		if !slices.Equal(g.FiscalYears, []int{2023, 2024}) {
			t.Errorf("fiscal years %v", g.FiscalYears)
		}
	})
	t.Run("quarter", func(t *testing.T) {
		_, g := planFor(t, cat, "What was Apple's gross margin in the latest quarter?", 0)
		r := mustReq(t, g, "AAPL-FY2025-margins-figure-revenue", KindFigure, CondPassage, true)
		if a := searchOf(t, g, r.ID); a.Form != "10-Q" {
			t.Errorf("quarter searched in %q", a.Form)
		}
	})
	t.Run("a year the corpus lacks", func(t *testing.T) {
		_, g := planFor(t, cat, "What was Apple's gross margin in 2015?", 0)
		if len(g.Requirements) != 1 || g.Requirements[0].ID != "AAPL-FY2015-margins-explanation" || !g.Requirements[0].Required {
			t.Fatalf("requirements %+v", g.Requirements)
		}
		if !strings.Contains(strings.Join(g.Notes, " "), "no AAPL filing for fiscal 2015") {
			t.Errorf("notes %q", g.Notes)
		}
	})
	t.Run("a year two annual reports back", func(t *testing.T) {
		// A 10-K prints three years of income: fiscal 2019 is a column of
		// the fiscal 2021 report.
		_, g := planFor(t, cat, "What was Apple's revenue in 2019?", 0)
		if !strings.Contains(strings.Join(g.Notes, " "), "10-K for fiscal 2021") {
			t.Errorf("notes %q", g.Notes)
		}
		// The fiscal 2021 filing is a text conversion: without its table
		// figures in the catalog, a passage stating the figure serves.
		r := mustReq(t, g, "AAPL-FY2019-revenue-figure-revenue", KindFigure, CondPassage, true)
		if n := servers(g, r.ID); len(n) != 1 || n[0].Tool != tools.SearchFilings {
			t.Errorf("servers %+v", n)
		}
	})
	t.Run("outlook only", func(t *testing.T) {
		_, g := planFor(t, cat, "What is Amazon's outlook?", 0)
		mustReq(t, g, "AMZN-FY2024-outlook-outlook", KindOutlook, CondPassage, true)
		if len(g.Requirements) != 1 {
			t.Errorf("requirements %d, want 1", len(g.Requirements))
		}
	})
	t.Run("shared nodes are planned once", func(t *testing.T) {
		_, g := planFor(t, cat, "How did Apple's revenue growth and gross margin change in fiscal 2024?", 0)
		n := servers(g, "AAPL-FY2024-margins-figure-revenue")
		if len(n) != 1 || !slices.Contains(n[0].Serves, "AAPL-FY2024-revenue_growth-figure-revenue") {
			t.Errorf("one revenue lookup should serve both aspects: %+v", n)
		}
	})
}

func TestRulesPlanWithoutIssuers(t *testing.T) {
	cat := smallCatalog()
	for _, q := range []string{"What are Tesla's margins?", "What is gross margin?"} {
		rt := RouteQuestion(q, cat, nil)
		g, err := (&RulesPlanner{}).Plan(context.Background(), q, rt, cat)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Requirements) != 0 || len(g.Nodes) != 0 || len(g.Notes) == 0 {
			t.Errorf("Plan(%q): %d requirements, %d nodes, notes %q; want none, none and a note", q, len(g.Requirements), len(g.Nodes), g.Notes)
		}
		if err := Validate(g, Limits{}); err != nil {
			t.Errorf("Plan(%q) does not validate: %v", q, err)
		}
	}
	rt := RouteQuestion("Should I buy AAPL?", cat, nil)
	g, err := (&RulesPlanner{}).Plan(context.Background(), "Should I buy AAPL?", rt, cat)
	if err != nil || len(g.Nodes) != 0 || !strings.Contains(strings.Join(g.Notes, " "), "Refused") {
		t.Errorf("refused route planned %+v, %v", g, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (&RulesPlanner{}).Plan(ctx, "Apple margins", RouteQuestion("Apple margins", cat, nil), cat); err == nil {
		t.Error("Plan ran with a cancelled context")
	}
}

func TestRulesPlanTrimsToMaxNodes(t *testing.T) {
	cat := smallCatalog()
	q := "Compare gross margins, R&D and capex at Apple, NVIDIA, Alphabet and Meta, and whether they expect them to continue."
	_, full := planFor(t, cat, q, 200)
	if len(full.Nodes) <= 20 {
		t.Fatalf("the full plan has %d nodes; the test needs more than 20", len(full.Nodes))
	}
	tests := []struct {
		max       int
		wantNotes []string
		check     func(t *testing.T, g *Graph)
	}{
		{len(full.Nodes) - 1, []string{"optional requirements were left out"}, func(t *testing.T, g *Graph) {
			for _, r := range g.Requirements {
				if !r.Required {
					t.Errorf("optional %s kept", r.ID)
				}
			}
		}},
		{20, []string{"the aspect"}, func(t *testing.T, g *Graph) {
			for _, r := range g.Requirements {
				if r.Aspect == "capex" {
					t.Errorf("the last aspect's %s kept", r.ID)
				}
			}
		}},
		{4, nil, nil},
		{1, nil, nil},
	}
	for _, tt := range tests {
		_, g := planFor(t, cat, q, tt.max)
		if len(g.Nodes) > tt.max || len(g.Nodes) == 0 {
			t.Errorf("max %d: %d nodes", tt.max, len(g.Nodes))
		}
		notes := strings.Join(g.Notes, " ")
		for _, w := range tt.wantNotes {
			if !strings.Contains(notes, w) {
				t.Errorf("max %d: notes %q lack %q", tt.max, notes, w)
			}
		}
		for i, n := range g.Nodes {
			if want := "n" + strconv.Itoa(i+1); n.ID != want {
				t.Errorf("max %d: node %d is %s, want %s", tt.max, i, n.ID, want)
			}
		}
		if tt.check != nil {
			tt.check(t, g)
		}
	}
}

func TestFactInputsErrors(t *testing.T) {
	g := &Graph{Nodes: []Node{
		{ID: "n1", Tool: tools.LookupFact, Args: json.RawMessage(`{"ticker":"AAPL","label":"revenue","period":"FY2024"}`)},
		{ID: "n2", Tool: tools.Calculate, Args: json.RawMessage(`{"expression":"a / b","facts":{"a":{"ticker":"AAPL","concept":"us-gaap:Revenues","period":"FY2024"},"b":{"ticker":"AAPL","concept":"us-gaap:CostOfRevenue","period":"FY2024"}}}`), DependsOn: []string{"n1"}},
	}}
	if _, err := FactInputs(g, g.Nodes[0]); err == nil {
		t.Error("FactInputs accepted a lookup node")
	}
	if _, err := FactInputs(g, g.Nodes[1]); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("FactInputs with no lookup for b: %v", err)
	}
	g.Nodes = append(g.Nodes, Node{ID: "n3", Tool: tools.LookupFact, Args: json.RawMessage(`{"ticker":"AAPL","concept":"CostOfGoodsAndServicesSold","period":"FY2024"}`)})
	g.Nodes[1].DependsOn = append(g.Nodes[1].DependsOn, "n3")
	got, err := FactInputs(g, g.Nodes[1])
	if err != nil || got["a"] != "n1" || got["b"] != "n3" {
		t.Errorf("FactInputs = %v, %v", got, err)
	}
}

// A 10-Q numbers its items differently: an annual report's discussion
// (Item 7) is a quarterly report's Item 2, and a 10-Q has no business
// section to search.
func TestFormSection(t *testing.T) {
	tests := []struct{ form, section, want string }{
		{"10-K", "Item 7", "Item 7"},
		{"10-K", "Item 1", "Item 1"},
		{"10-Q", "Item 7", "Item 2"},
		{"10-Q", "Item 8", "Item 1"},
		{"10-Q", "Item 7A", "Item 3"},
		{"10-Q", "Item 1A", "Item 1A"},
		{"10-Q", "Item 1", ""},
		{"10-Q", "", ""},
	}
	for _, tt := range tests {
		if got := formSection(tt.form, tt.section); got != tt.want {
			t.Errorf("formSection(%q, %q) = %q, want %q", tt.form, tt.section, got, tt.want)
		}
	}
}

// A year asked of which the corpus holds only a 10-Q is read from the
// prior-year columns of the next year's 10-K, not from the quarter; a
// question on the quarter, or naming the 10-Q, keeps the 10-Q.
func TestAnnualFigureFromLaterReport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q       string
		wantDoc string
	}{
		{"Why did Apple's net sales fall in fiscal 2023?", "a24"},
		{"Why did Apple's net sales fall in the June quarter of fiscal 2023?", "a23q"},
		{"In its fiscal 2023 10-Q, why did Apple's net sales fall?", "a23q"},
	}
	for _, tt := range tests {
		_, g := planFor(t, smallCatalog(), tt.q, 0)
		var docs []string
		for _, n := range g.Nodes {
			var a tools.SearchArgs
			if n.Tool == tools.SearchFilings && json.Unmarshal(n.Args, &a) == nil {
				docs = appendNew(docs, a.Form+" FY"+strconv.Itoa(a.FiscalYears[0]))
			}
		}
		want := map[string]string{"a24": "10-K FY2024", "a23q": "10-Q FY2023"}[tt.wantDoc]
		if len(docs) == 0 || !slices.Contains(docs, want) || len(docs) != 1 {
			t.Errorf("%q: searches %v; want %s alone", tt.q, docs, want)
		}
	}
}

// A figure asked in a clause of its own beside an aspect's figures ("...
// What was the 2022 order backlog?") is planned when a filing labels a row
// so and no requirement looks that row up; a metric's own name ("net
// loss", net income's) is the aspect's to plan; a question on how the row
// moved plans its change too.
func TestPlanUnplannedLabel(t *testing.T) {
	t.Parallel()
	backlog := func(g *Graph) (level, change bool) {
		for _, r := range g.Requirements {
			level = level || slices.Contains(r.Completion.Concepts, "table:Order backlog")
			change = change || strings.HasSuffix(r.ID, "-figure-order-backlog-change") && r.Completion.Kind == CondCalculation && r.Required
		}
		return level, change
	}
	for _, tt := range []struct {
		q             string
		level, change bool
	}{
		{"Why did TXTF's revenue fall in fiscal 2022? What was the fiscal 2022 order backlog?", true, false},
		{"Why did TXTF's revenue fall in fiscal 2022, and by how much did the order backlog fall?", true, true},
		{"Why did TXTF's revenue fall in fiscal 2022? What was the net loss?", false, false},
	} {
		g := planOf(t, tt.q, "TXTF")
		if level, change := backlog(g); level != tt.level || change != tt.change {
			t.Errorf("%q: backlog level %v, change %v; want %v, %v (%v)", tt.q, level, change, tt.level, tt.change, reqIDs(g))
		}
	}
}

// A question on a year ahead asks for a number when it asks for guidance,
// a forecast figure by name, "how much", or is a bare phrase; one asking
// whether something is expected of a figure asks for words.
func TestAsksExpectedNumber(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"What revenue does XMPL forecast for 2025?":                         true,
		"XMPL 2025 revenue forecast":                                        true,
		"How much does XMPL expect to spend on capex in 2025?":              true,
		"What did XMPL guide for Q1 2025 net sales?":                        true,
		"Does XMPL expect net revenues to keep diverging from GMV in 2025?": false,
		"Does XMPL expect revenue growth to continue in 2025?":              false,
	} {
		if got := asksExpectedNumber(q); got != want {
			t.Errorf("asksExpectedNumber(%q) = %v, want %v", q, got, want)
		}
	}
}

// A metric's or derived figure's own name is the catalogue's; a row label
// of the filing's own is not.
func TestNamesCatalogueFigure(t *testing.T) {
	t.Parallel()
	for words, want := range map[string]bool{
		"net loss":         true,
		"net revenues":     true,
		"operating margin": true,
		"order backlog":    false,
		"take rate":        false,
	} {
		if got := namesCatalogueFigure(strings.Fields(words)); got != want {
			t.Errorf("namesCatalogueFigure(%q) = %v, want %v", words, got, want)
		}
	}
}

// A question asking why of a figure it names ("SG&A as a % of sales")
// plans the filing's explanation of that figure when nothing else in the
// plan asks a reason; "what drove the leverage" brings in liquidity, whose
// description is no reason for the ratio. A plan asking a reason already
// gets none, and neither does a question that asks no reason.
func TestFigureWhyPlanned(t *testing.T) {
	cat := smallCatalog()
	tests := []struct {
		q    string
		want bool
	}{
		{"AAPL FY2024 SG&A as a % of sales improved — what was the ratio, and what drove the leverage?", true},
		{"AAPL FY2024 SG&A as a percentage of sales: what drove it?", false}, // the general explanation names the figure
		{"AAPL FY2024 SG&A as a % of sales?", false},
		{"Why did Apple's gross margin rise in fiscal 2024?", false}, // the aspect's explanation asks why
	}
	for _, tc := range tests {
		_, g := planFor(t, cat, tc.q, 0)
		r, ok := reqByID(g, "AAPL-FY2024-figure-why")
		if ok != tc.want {
			t.Errorf("%q: figure-why planned %v; want %v (requirements %d)", tc.q, ok, tc.want, len(g.Requirements))
			continue
		}
		if ok && (!slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool { return slices.Contains(g, "sg&a") }) || !asksReason(r.Completion.AllOf)) {
			t.Errorf("%q: condition %q; want the figure's names and a reason", tc.q, r.Completion.AllOf)
		}
	}
}

// A clause asking the size of a thing by name is an asked item of its own,
// planned and, if nothing states it, reported as a gap; one asking the size
// of the figure's move asks nothing new.
func TestSizeAskedIsAnItem(t *testing.T) {
	cat := smallCatalog()
	tests := []struct {
		q    string
		want bool
	}{
		{"Apple's net sales rose in fiscal 2024. What drove it, and how big was the FX hit?", true},
		{"Apple's net sales rose in fiscal 2024. What drove it, and how big was the increase?", false},
	}
	for _, tc := range tests {
		_, g := planFor(t, cat, tc.q, 0)
		// The FX hit is planned as the currency effect it is
		// (planCurrencyEffect).
		got := slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return strings.Contains(strings.ToLower(r.Completion.Topic), "fx") || strings.HasSuffix(r.ID, "-currency-effect")
		})
		if got != tc.want {
			t.Errorf("%q: an item naming the FX hit planned %v; want %v", tc.q, got, tc.want)
		}
	}
	if _, g := planFor(t, cat, tests[1].q, 0); slices.ContainsFunc(g.Requirements, func(r Requirement) bool { return strings.Contains(r.Completion.Topic, "increase") }) {
		t.Errorf("%q: the move's size planned as an item of its own", tests[1].q)
	}
}

// A sentence bidding figures ("Give FY24 warranty reserve and the FY25
// estimate") lists asked items, each planned or named as a gap; one bidding
// reasons or words that refer to the figure asked ("the estimate") adds none.
func TestBidFiguresAreItems(t *testing.T) {
	cat := smallCatalog()
	names := func(g *Graph, w string) bool {
		return slices.ContainsFunc(g.Requirements, func(r Requirement) bool {
			return strings.Contains(strings.ToLower(r.Need+" "+r.Completion.Topic), w)
		})
	}
	_, g := planFor(t, cat, "Does Apple expect its services margin to keep rising? Give the FY2024 warranty reserve and the FY2025 estimate.", 0)
	if !names(g, "warranty") {
		t.Errorf("the warranty reserve bid is not planned: %+v", g.Requirements)
	}
	if names(g, "estimate for") {
		t.Errorf("'the estimate' planned as an item of its own")
	}
	_, g = planFor(t, cat, "Did Apple's services margin rise in fiscal 2024? Give reasons and context.", 0)
	if names(g, "context") || names(g, "reasons") {
		t.Errorf("a bid for reasons planned as a figure")
	}
}

// TestSegmentProfit: a segment's "profit" is its operating income, the
// measure a segment reports; net income asked as such stays asked.
func TestSegmentProfit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		metrics []string
		asks    []FigureAsk
		want    []string
	}{
		{[]string{"net_income", "operating_income"}, []FigureAsk{{Metric: "net_income", Phrase: "profit"}, {Metric: "operating_income", Phrase: "operating income"}}, []string{"operating_income"}},
		{[]string{"net_income"}, []FigureAsk{{Metric: "net_income", Phrase: "profit"}}, []string{"operating_income"}},
		{[]string{"operating_income", "net_income"}, nil, []string{"operating_income"}}, // "was Google Cloud profitable"
		{[]string{"net_income"}, []FigureAsk{{Metric: "net_income", Phrase: "net income"}}, []string{"net_income"}},
		{[]string{"revenue"}, []FigureAsk{{Metric: "revenue", Phrase: "revenue"}}, []string{"revenue"}},
	} {
		if got := segmentProfit(tc.metrics, tc.asks); !slices.Equal(got, tc.want) {
			t.Errorf("segmentProfit(%v, %v) = %v; want %v", tc.metrics, tc.asks, got, tc.want)
		}
	}
}

// TestAdverb: a word in "-ly" is an adverb, unless it is one of the nouns
// or verbs that end so ("supply", "family").
func TestAdverb(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]bool{
		"heavily": true, "significantly": true, "simply": true,
		"supply": false, "family": false, "constraints": false,
	} {
		if got := adverb(w); got != want {
			t.Errorf("adverb(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestMovement: a verb of how a figure moves, in any form, is no topic.
func TestMovement(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]bool{
		"narrow": true, "narrowed": true, "grow": true, "growing": true, "decline": true, "widen": true,
		"losses": false, "depreciation": false, "supply": false, "capex": false,
	} {
		if got := movement(w); got != want {
			t.Errorf("movement(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestOutlookTopic: what management expects of a topic no aspect names is
// an expectation naming the topic, even of one word ("depreciation"), a
// noun in "-ly" among them ("supply"), and never of a phrase of expecting
// ("going forward") or a verb of how it moves ("narrow").
func TestOutlookTopic(t *testing.T) {
	t.Parallel()
	cat := sampleCatalog(t)
	for q, want := range map[string][]string{
		"What does NVIDIA expect for depreciation going forward?": {"depreciation"},
		"Does NVIDIA expect supply constraints to persist?":       {"supply", "constraint"},
		"Does NVIDIA expect the gap to narrow?":                   {"gap"},
	} {
		rt := RouteQuestion(q, cat, nil)
		g, err := (&RulesPlanner{}).Plan(context.Background(), q, rt, cat)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range g.Requirements {
			if r.Kind != KindOutlook {
				continue
			}
			for _, grp := range r.Completion.AllOf {
				if !slices.Contains(grp, "expect") {
					got = append(got, grp...)
				}
			}
		}
		slices.Sort(got)
		if w := slices.Sorted(slices.Values(want)); !slices.Equal(got, w) {
			t.Errorf("%q: topic terms %q, want %q", q, got, w)
		}
	}
}
