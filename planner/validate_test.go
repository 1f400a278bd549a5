package planner

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/tools"
)

// validGraph is a small graph that passes Validate: two lookups, a
// calculation on them and a search.
func validGraph() *Graph {
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return b
	}
	return &Graph{
		Question:    "What was Apple's gross margin in fiscal 2024?",
		Tickers:     []string{"AAPL"},
		FiscalYears: []int{2024},
		Planner:     "rules",
		Requirements: []Requirement{
			{ID: "rev", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: KindFigure, Required: true,
				Completion: Condition{Kind: CondFact, Issuer: "AAPL", Period: "FY2024", Concepts: []string{"us-gaap:Revenues"}}},
			{ID: "cost", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: KindFigure, Required: true,
				Completion: Condition{Kind: CondFact, Issuer: "AAPL", Period: "FY2024", Concepts: []string{"us-gaap:CostOfRevenue"}}},
			{ID: "calc", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: KindCalculation, Required: true,
				Completion: Condition{Kind: CondCalculation, Issuer: "AAPL", Of: []string{"rev", "cost"}}},
			{ID: "why", Issuer: "AAPL", Period: "FY2024", Aspect: "margins", Kind: KindExplanation, Required: true,
				Completion: Condition{Kind: CondPassage, Issuer: "AAPL", Period: "FY2024", AllOf: [][]string{{"gross margin"}, DriverWords}}},
		},
		Nodes: []Node{
			{ID: "n1", Tool: tools.LookupFact, Args: raw(tools.LookupFactArgs{Ticker: "AAPL", Label: "revenue", Period: "FY2024"}), Serves: []string{"rev"}},
			{ID: "n2", Tool: tools.LookupFact, Args: raw(tools.LookupFactArgs{Ticker: "AAPL", Label: "cost_of_revenue", Period: "FY2024"}), Serves: []string{"cost"}},
			{ID: "n3", Tool: tools.Calculate, Args: raw(tools.CalculateArgs{Expression: "(revenue - cost) / revenue", Facts: map[string]tools.FactRef{
				"revenue": {Ticker: "AAPL", Concept: "us-gaap:Revenues", Period: "FY2024"},
				"cost":    {Ticker: "AAPL", Concept: "us-gaap:CostOfRevenue", Period: "FY2024"},
			}}), Serves: []string{"calc"}, DependsOn: []string{"n1", "n2"}},
			{ID: "n4", Tool: tools.SearchFilings, Args: raw(tools.SearchArgs{Query: "gross margin", Tickers: []string{"AAPL"}, FiscalYears: []int{2024}, Section: "Item 7"}), Serves: []string{"why"}},
		},
	}
}

func TestValidateAcceptsAValidGraph(t *testing.T) {
	if err := Validate(validGraph(), Limits{}); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if err := Validate(&Graph{Question: "q", Planner: "rules"}, Limits{}); err != nil {
		t.Fatalf("an empty graph (nothing to research) is valid: %v", err)
	}
}

func TestValidateCatches(t *testing.T) {
	tests := []struct {
		name     string
		mutate   func(g *Graph)
		lim      Limits
		wantPath string // a PlanError with this path
		wantMsg  string // and this in its message
		scope    bool   // errors.Is(err, tools.ErrOutOfScope)
	}{
		{"cycle", func(g *Graph) { g.Nodes[0].DependsOn = []string{"n3"} }, Limits{}, "nodes", "cycle n1 -> n3 -> n1", false},
		{"self-dependency", func(g *Graph) { g.Nodes[3].DependsOn = []string{"n4"} }, Limits{}, "nodes[3].depends_on[0]", "depends on itself", false},
		{"unknown dependency", func(g *Graph) { g.Nodes[3].DependsOn = []string{"n9"} }, Limits{}, "nodes[3].depends_on[0]", `"n9"`, false},
		{"unknown tool", func(g *Graph) { g.Nodes[3].Tool = "browse_web" }, Limits{}, "nodes[3].tool", `"browse_web" is not a tool`, false},
		{"bad args", func(g *Graph) { g.Nodes[3].Args = json.RawMessage(`{"query":"","k":3}`) }, Limits{}, "nodes[3].args", "query", false},
		{"unknown argument", func(g *Graph) { g.Nodes[3].Args = json.RawMessage(`{"query":"x","tenant":"other"}`) }, Limits{}, "nodes[3].args", "tenant", false},
		{"out-of-scope ticker", func(g *Graph) {
			g.Nodes[0].Args = json.RawMessage(`{"ticker":"TSLA","label":"revenue","period":"FY2024"}`)
		}, Limits{}, "nodes[0].args", "TSLA", true},
		{"out-of-scope year", func(g *Graph) {
			g.Nodes[3].Args = json.RawMessage(`{"query":"gross margin","tickers":["AAPL"],"fiscal_years":[2019]}`)
		}, Limits{}, "nodes[3].args", "2019", true},
		{"unserved required requirement", func(g *Graph) { g.Nodes = g.Nodes[:3] }, Limits{}, "requirements[3]", `"why" is served by no node`, false},
		{"too many nodes", func(g *Graph) {}, Limits{MaxNodes: 3}, "nodes", "4 nodes, more than the limit of 3", false},
		{"duplicate requirement id", func(g *Graph) { g.Requirements[1].ID = "rev" }, Limits{}, "requirements[1].id", `"rev" is also the id of requirements[0]`, false},
		{"duplicate node id", func(g *Graph) { g.Nodes[1].ID = "n1" }, Limits{}, "nodes[1].id", `"n1" is also the id of nodes[0]`, false},
		{"serves an unknown requirement", func(g *Graph) { g.Nodes[3].Serves = append(g.Nodes[3].Serves, "nope") }, Limits{}, "nodes[3].serves[1]", `"nope"`, false},
		{"serves nothing", func(g *Graph) { g.Nodes[3].Serves = nil }, Limits{}, "nodes[3].serves", "at least one", false},
		{"requirement issuer out of scope", func(g *Graph) { g.Requirements[3].Issuer = "NVDA"; g.Requirements[3].Completion.Issuer = "NVDA" }, Limits{}, "requirements[3].issuer", `"NVDA"`, false},
		{"requirement period out of scope", func(g *Graph) { g.Requirements[3].Period = "FY2020" }, Limits{}, "requirements[3].period", "FY2020", false},
		{"malformed period", func(g *Graph) { g.Requirements[3].Period = "2024" }, Limits{}, "requirements[3].period", `"2024"`, false},
		{"passage without groups", func(g *Graph) { g.Requirements[3].Completion.AllOf = nil }, Limits{}, "requirements[3].completion.all_of", "at least one group", false},
		{"passage with an empty group", func(g *Graph) { g.Requirements[3].Completion.AllOf = [][]string{{"margin"}, {}} }, Limits{}, "requirements[3].completion.all_of[1]", "needs words", false},
		{"passage without issuer", func(g *Graph) { g.Requirements[3].Issuer = ""; g.Requirements[3].Completion.Issuer = "" }, Limits{}, "requirements[3].completion.issuer", "names the issuer", false},
		{"fact without concepts", func(g *Graph) { g.Requirements[0].Completion.Concepts = nil }, Limits{}, "requirements[0].completion.concepts", "concepts", false},
		{"calculation of an unknown requirement", func(g *Graph) { g.Requirements[2].Completion.Of = []string{"rev", "ghost"} }, Limits{}, "requirements[2].completion.of[1]", `"ghost"`, false},
		{"calculation of nothing", func(g *Graph) { g.Requirements[2].Completion.Of = nil }, Limits{}, "requirements[2].completion.of", "builds on", false},
		{"unknown condition kind", func(g *Graph) { g.Requirements[2].Completion.Kind = "vibes" }, Limits{}, "requirements[2].completion.kind", `"vibes"`, false},
		{"unknown requirement kind", func(g *Graph) { g.Requirements[2].Kind = "guess" }, Limits{}, "requirements[2].kind", `"guess"`, false},
		{"condition issuer differs", func(g *Graph) { g.Tickers = append(g.Tickers, "NVDA"); g.Requirements[3].Completion.Issuer = "NVDA" }, Limits{}, "requirements[3].completion.issuer", "differs", false},
		{"nodes without tickers", func(g *Graph) { g.Tickers = nil }, Limits{}, "tickers", "empty", true},
	}
	for _, tt := range tests {
		g := validGraph()
		tt.mutate(g)
		err := Validate(g, tt.lim)
		if err == nil {
			t.Errorf("%s: Validate accepted the graph", tt.name)
			continue
		}
		found := false
		for _, e := range flatten(err) {
			var pe *PlanError
			if errors.As(e, &pe) && pe.Path == tt.wantPath && strings.Contains(pe.Msg, tt.wantMsg) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no error at %s saying %q in:\n%v", tt.name, tt.wantPath, tt.wantMsg, err)
		}
		if got := errors.Is(err, tools.ErrOutOfScope); got != tt.scope {
			t.Errorf("%s: errors.Is(err, ErrOutOfScope) = %v, want %v", tt.name, got, tt.scope)
		}
	}
}

// flatten returns the errors joined in err.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	g := validGraph()
	g.Nodes[3].Tool = "browse_web"
	g.Requirements[0].Completion.Concepts = nil
	g.Nodes[0].DependsOn = []string{"n7"}
	err := Validate(g, Limits{})
	if n := len(flatten(err)); n != 3 {
		t.Fatalf("Validate found %d problems, want 3:\n%v", n, err)
	}
	if !strings.Contains(err.Error(), "nodes[3].tool: ") {
		t.Errorf("error text %q does not name the path", err)
	}
}

func TestOrder(t *testing.T) {
	levels, err := Order(validGraph())
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"n1", "n2", "n4"}, {"n3"}}; fmt.Sprint(levels) != fmt.Sprint(want) {
		t.Fatalf("Order = %v, want %v", levels, want)
	}
	chain := &Graph{Nodes: []Node{
		{ID: "c", DependsOn: []string{"b"}}, {ID: "b", DependsOn: []string{"a", "a"}}, {ID: "a"}, {ID: "d", DependsOn: []string{"a", "c"}},
	}}
	levels, err = Order(chain)
	if err != nil || fmt.Sprint(levels) != "[[a] [b] [c] [d]]" {
		t.Fatalf("Order(chain) = %v, %v", levels, err)
	}
	for _, tt := range []struct {
		nodes []Node
		want  string
	}{
		{[]Node{{ID: "a", DependsOn: []string{"b"}}, {ID: "b", DependsOn: []string{"c"}}, {ID: "c", DependsOn: []string{"a"}}, {ID: "d"}}, "a -> b -> c -> a"},
		{[]Node{{ID: "x"}, {ID: "y", DependsOn: []string{"z"}}, {ID: "z", DependsOn: []string{"y"}}, {ID: "w", DependsOn: []string{"y"}}}, "y -> z -> y"},
		{[]Node{{ID: "a", DependsOn: []string{"zz"}}}, `"zz"`},
		{[]Node{{ID: "a"}, {ID: "a"}}, "twice"},
	} {
		_, err := Order(&Graph{Nodes: tt.nodes})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Order(%v) = %v, want an error naming %q", tt.nodes, err, tt.want)
		}
	}
	if levels, err := Order(&Graph{}); err != nil || len(levels) != 0 {
		t.Errorf("Order(empty) = %v, %v", levels, err)
	}
}

func TestValidatePlansOfEveryAspect(t *testing.T) {
	cat := smallCatalog()
	for _, a := range Lexicon {
		q := "What does Apple say about " + strings.ReplaceAll(a.Name, "_", " ") + "?"
		if len(a.Triggers) > 0 {
			q = "What do Apple and NVIDIA say about " + a.Triggers[0] + ", and will it continue?"
		}
		rt := RouteQuestion(q, cat, nil)
		if !slices.Contains(rt.Aspects, a.Name) && a.Name != "general" && a.Name != "outlook" {
			t.Errorf("%q routes to %v, not %s", q, rt.Aspects, a.Name)
		}
		g, err := (&RulesPlanner{}).Plan(t.Context(), q, rt, cat)
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(g, Limits{}); err != nil {
			t.Errorf("plan for %q does not validate: %v", q, err)
		}
	}
}

// TestValidationRules holds each rule to its own responsibility: on a
// valid graph it finds nothing, and on a graph broken in its way it finds
// the problem, on its own.
func TestValidationRules(t *testing.T) {
	breaks := map[string]struct {
		mutate   func(g *Graph)
		lim      Limits
		wantPath string
	}{
		"tickers":      {func(g *Graph) { g.Tickers = append(g.Tickers, "aapl") }, Limits{}, "tickers[1]"},
		"fiscal_years": {func(g *Graph) { g.FiscalYears = append(g.FiscalYears, 1900) }, Limits{}, "fiscal_years[1]"},
		"requirements": {func(g *Graph) { g.Requirements[1].ID = "r 1" }, Limits{}, "requirements[1].id"},
		"conditions":   {func(g *Graph) { g.Requirements[0].Completion.Concepts = nil }, Limits{}, "requirements[0].completion.concepts"},
		"node_count":   {func(g *Graph) {}, Limits{MaxNodes: 2}, "nodes"},
		"nodes":        {func(g *Graph) { g.Nodes[2].Tool = "browse_web" }, Limits{}, "nodes[2].tool"},
		"dependencies": {func(g *Graph) { g.Nodes[2].DependsOn = []string{"n9"} }, Limits{}, "nodes[2].depends_on[0]"},
		"acyclic":      {func(g *Graph) { g.Nodes[0].DependsOn = []string{"n3"} }, Limits{}, "nodes"},
		"coverage":     {func(g *Graph) { g.Nodes[3].Serves = []string{"rev"} }, Limits{}, "requirements[3]"},
	}
	seen := map[string]bool{}
	for _, r := range validationRules {
		t.Run(r.name, func(t *testing.T) {
			if seen[r.name] {
				t.Fatalf("two rules are named %q", r.name)
			}
			seen[r.name] = true
			b, ok := breaks[r.name]
			if !ok {
				t.Fatalf("rule %q has no case here", r.name)
			}
			v := newValidation(validGraph(), Limits{})
			r.check(v)
			if len(v.errs) > 0 {
				t.Errorf("on a valid graph: %v", errors.Join(v.errs...))
			}
			g := validGraph()
			b.mutate(g)
			v = newValidation(g, b.lim)
			r.check(v)
			var pe *PlanError
			if len(v.errs) != 1 || !errors.As(v.errs[0], &pe) || pe.Path != b.wantPath {
				t.Errorf("found %v, want one problem at %s", errors.Join(v.errs...), b.wantPath)
			}
		})
	}
	if len(breaks) != len(validationRules) {
		t.Errorf("%d cases for %d rules", len(breaks), len(validationRules))
	}
}

// TestValidateReportsInRuleOrder holds the order of Validate's problems:
// rule by rule, and within a rule in the graph's order.
func TestValidateReportsInRuleOrder(t *testing.T) {
	g := validGraph()
	g.Nodes[3].Serves = []string{"rev"}                // coverage: requirements[3]
	g.Nodes[2].DependsOn = []string{"n1", "n9"}        // dependencies
	g.Nodes[1].Tool = "browse_web"                     // nodes
	g.Requirements[2].Completion.Of = nil              // conditions
	g.Requirements[1].Kind = "guess"                   // requirements
	g.Requirements[0].Period = "FY1999"                // requirements
	g.FiscalYears = append(g.FiscalYears, 3000)        // fiscal_years
	g.Tickers = append([]string{"aapl"}, g.Tickers...) // tickers
	var paths []string
	for _, e := range flatten(Validate(g, Limits{MaxNodes: 3})) { // node_count
		var pe *PlanError
		if !errors.As(e, &pe) {
			t.Fatalf("%v is not a *PlanError", e)
		}
		paths = append(paths, pe.Path)
	}
	want := []string{"tickers[0]", "fiscal_years[1]", "requirements[0].period", "requirements[1].kind",
		"requirements[2].completion.of", "nodes", "nodes[1].tool", "nodes[2].depends_on[1]", "requirements[3]"}
	if !slices.Equal(paths, want) {
		t.Errorf("paths = %v\nwant    %v", paths, want)
	}
}
