package planner_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/planner"
)

// The router reads the question without a model call; the rules planner
// turns the route into requirements with completion conditions and the
// tool calls that can meet them, and Validate checks the graph before
// anything runs.
func Example() {
	end := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	cat := planner.NewCatalog([]corpus.Document{ // as corpus.Store.Documents lists them
		{Ticker: "AAPL", Company: "Apple Inc.", Form: "10-K", FiscalYear: 2024, PeriodEnd: end("2024-09-28"), Format: corpus.FormatHTML},
		{Ticker: "INTC", Company: "Intel Corporation", Form: "10-K", FiscalYear: 2020, PeriodEnd: end("2020-12-26"), Format: corpus.FormatText},
	})

	q := "Did Apple's gross margin improve in fiscal 2024, and how does Tesla compare?"
	rt := planner.RouteQuestion(q, cat, nil)
	fmt.Println("issuers:", rt.Issuers, "not covered:", rt.NotCovered, "years:", rt.FiscalYears, "aspects:", rt.Aspects)

	g, err := (&planner.RulesPlanner{}).Plan(context.Background(), q, rt, cat)
	if err != nil {
		log.Fatal(err)
	}
	if err := planner.Validate(g, planner.Limits{}); err != nil {
		log.Fatal(err)
	}
	for _, r := range g.Requirements {
		fmt.Printf("%s (%s, required %v)\n", r.ID, r.Completion.Kind, r.Required)
	}
	levels, _ := planner.Order(g)
	for i, level := range levels {
		fmt.Println("level", i+1, level)
	}
	fmt.Println(planner.RouteQuestion("Should I buy AAPL?", cat, nil).Refused)
	// Output:
	// issuers: [AAPL] not covered: [TSLA (Tesla, Inc.)] years: [2024] aspects: [margins]
	// AAPL-FY2024-margins-figure-revenue (fact, required true)
	// AAPL-FY2024-margins-figure-cost_of_revenue (fact, required true)
	// AAPL-FY2024-margins-figure-gross_profit (fact, required false)
	// AAPL-FY2024-margins-calculation (calculation, required true)
	// AAPL-FY2024-margins-calculation-printed (printed, required false)
	// AAPL-FY2024-margins-explanation (passage, required true)
	// level 1 [n1 n2 n3 n5 n6 n7]
	// level 2 [n4]
	// true
}
