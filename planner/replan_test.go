package planner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/tools"
)

func TestReplanWidensUntilSpent(t *testing.T) {
	cat := smallCatalog()
	q := "Compare gross margins at Apple and NVIDIA and what drove them."
	g, err := (&RulesPlanner{}).Plan(t.Context(), q, RouteQuestion(q, cat, nil), cat)
	if err != nil {
		t.Fatal(err)
	}
	explanation, _ := reqByID(g, "AAPL-FY2024-margins-explanation")
	revenue, _ := reqByID(g, "AAPL-FY2024-margins-figure-revenue")
	grossProfit, _ := reqByID(g, "AAPL-FY2024-margins-figure-gross_profit")
	calc, _ := reqByID(g, "AAPL-FY2024-margins-calculation")
	unmet := []Requirement{explanation, revenue, grossProfit, calc}

	first := Replan(g, unmet, 1)
	if len(first) != 1 {
		t.Fatalf("round 1 planned %d nodes, want 1 search (the revenue lookup by label tried every concept): %+v", len(first), first)
	}
	var search tools.SearchArgs
	if first[0].ID != "r1-n1" || first[0].Tool != tools.SearchFilings || !slices.Equal(first[0].Serves, []string{explanation.ID}) {
		t.Fatalf("round 1 node 1: %+v", first[0])
	}
	if err := json.Unmarshal(first[0].Args, &search); err != nil {
		t.Fatal(err)
	}
	if search.Section != "" || search.K <= 8 || search.Query != "gross margin percentage" || !slices.Equal(search.Tickers, []string{"AAPL"}) || !slices.Equal(search.FiscalYears, []int{2024}) {
		t.Errorf("round 1 widens the search by dropping the section and asking for more: %+v", search)
	}

	// Each round tries something new until nothing is left.
	g.Nodes = append(g.Nodes, first...)
	rounds := 1
	for round := 2; ; round++ {
		if round > 20 {
			t.Fatal("Replan never ran out of alternatives")
		}
		nodes := Replan(g, unmet, round)
		if len(nodes) == 0 {
			break
		}
		for _, n := range nodes {
			if !strings.HasPrefix(n.ID, "r"+itoa(round)+"-n") {
				t.Errorf("round %d node id %s", round, n.ID)
			}
		}
		g.Nodes = append(g.Nodes, nodes...)
		rounds = round
	}
	if rounds < 4 {
		t.Errorf("Replan gave up after %d rounds; the lexicon has more alternatives", rounds)
	}
	seen := map[string]bool{}
	ids := map[string]bool{}
	for _, n := range g.Nodes {
		if ids[n.ID] {
			t.Errorf("node id %s twice", n.ID)
		}
		ids[n.ID] = true
		k, ok := nodeKey(n)
		if !ok {
			continue
		}
		if seen[k] {
			t.Errorf("%s repeats an earlier call: %s", n.ID, n.Args)
		}
		seen[k] = true
	}
	for _, n := range g.Nodes {
		if slices.Contains(n.Serves, grossProfit.ID) && strings.HasPrefix(n.ID, "r") {
			t.Errorf("optional requirement re-planned by %s", n.ID)
		}
		if slices.Contains(n.Serves, calc.ID) && strings.HasPrefix(n.ID, "r") {
			t.Errorf("calculation re-planned by %s", n.ID)
		}
	}
	if err := Validate(g, Limits{MaxNodes: 200}); err != nil {
		t.Errorf("the re-planned graph does not validate: %v", err)
	}
}

func TestReplanLooksFactsUpByEachConcept(t *testing.T) {
	g := validGraph()
	// A lookup by one concept, as a model might plan it.
	g.Requirements[1].Completion.Concepts = []string{"us-gaap:CostOfRevenue", "us-gaap:CostOfGoodsAndServicesSold"}
	g.Nodes[1].Args = json.RawMessage(`{"ticker":"AAPL","concept":"us-gaap:CostOfRevenue","period":"FY2024"}`)
	cost := g.Requirements[1]
	var got []string
	for round := 1; round < 10; round++ {
		nodes := Replan(g, []Requirement{cost}, round)
		if len(nodes) == 0 {
			break
		}
		got = append(got, string(nodes[0].Args))
		g.Nodes = append(g.Nodes, nodes...)
	}
	want := []string{
		`{"ticker":"AAPL","concept":"us-gaap:CostOfGoodsAndServicesSold","period":"FY2024"}`,
		`{"ticker":"AAPL","label":"cost_of_revenue","period":"FY2024"}`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("lookups\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := Validate(g, Limits{}); err != nil {
		t.Errorf("the re-planned graph does not validate: %v", err)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestReplanWithoutASearchToWiden(t *testing.T) {
	g := &Graph{Tickers: []string{"AAPL"}, FiscalYears: []int{2024}}
	req := Requirement{ID: "why", Issuer: "AAPL", Period: "FY2024", Aspect: "ai", Kind: KindExplanation, Required: true,
		Completion: Condition{Kind: CondPassage, Issuer: "AAPL", Period: "FY2024", AllOf: [][]string{{"ai", "machine learning", "llm"}, {FigureTerm, "revenue"}}}}
	g.Requirements = []Requirement{req}
	nodes := Replan(g, []Requirement{req}, 1)
	if len(nodes) != 1 {
		t.Fatalf("Replan = %+v", nodes)
	}
	var a tools.SearchArgs
	if err := json.Unmarshal(nodes[0].Args, &a); err != nil {
		t.Fatal(err)
	}
	if a.Query != "ai machine learning revenue" || !slices.Equal(a.Tickers, []string{"AAPL"}) || !slices.Equal(a.FiscalYears, []int{2024}) {
		t.Errorf("search built from the condition: %+v", a)
	}
	if Replan(nil, []Requirement{req}, 1) != nil {
		t.Error("Replan(nil) planned nodes")
	}
	if got := Replan(g, []Requirement{{ID: "cmp", Required: true, Completion: Condition{Kind: CondComparable, Of: []string{"why"}}}}, 1); len(got) != 0 {
		t.Errorf("comparable requirement re-planned: %+v", got)
	}
}

func TestReplanSkipsTakenIDs(t *testing.T) {
	g := validGraph()
	g.Nodes = append(g.Nodes, Node{ID: "r1-n1", Tool: tools.SearchFilings, Args: json.RawMessage(`{"query":"x","tickers":["AAPL"]}`), Serves: []string{"why"}})
	why, _ := reqByID(g, "why")
	nodes := Replan(g, []Requirement{why}, 1)
	if len(nodes) != 1 || nodes[0].ID != "r1-n2" {
		t.Fatalf("Replan = %+v, want one node r1-n2", nodes)
	}
}
