package executor

import (
	"context"
	"fmt"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/tools"
)

// Plan is what a dry run shows: the route, the task graph and its worst
// case budget, with nothing spent and nothing recorded.
type Plan struct {
	Route     planner.Route  `json:"route"`
	Graph     *planner.Graph `json:"graph"`
	WorstCase budget.Amounts `json:"-"`
	// WorstCaseByDimension is WorstCase as strings, for JSON.
	WorstCaseByDimension map[string]string `json:"worst_case"`
	// Exceeds names the dimensions whose worst case is above the limits:
	// the run would stop there with budget_exhausted.
	Exceeds []string `json:"exceeds,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// DryRun plans req and sums the reservations its graph would make: every
// node's worst case, and in model mode the planning, synthesis and grading
// calls at their max_tokens. It calls no model and no tool and writes
// nothing. In model mode the graph shown is the rules planner's, which is
// also the model planner's fallback: the model's plan cannot be known
// without calling it.
func (e *Engine) DryRun(ctx context.Context, req Request) (*Plan, error) {
	if err := e.checkRequest(&req); err != nil {
		return nil, err
	}
	docs, err := e.cfg.Store.Documents(ctx)
	if err != nil {
		return nil, fmt.Errorf("executor: list the corpus: %w", err)
	}
	cat, err := e.catalog(ctx, docs, req.Question, req.Tickers)
	if err != nil {
		return nil, err
	}
	p := &Plan{Route: planner.RouteQuestion(req.Question, cat, req.Tickers)}
	if req.Mode == ModeAuto {
		mode, class := e.AutoMode(p.Route)
		req.Mode = mode
		p.Notes = append(p.Notes, fmt.Sprintf("auto mode: a question of class %s would run in %s mode", class, mode))
	}
	if p.Route.Refused {
		p.Notes = append(p.Notes, "the question would be refused: "+p.Route.Reason)
		p.WorstCaseByDimension = amountsMap(budget.Amounts{})
		return p, nil
	}
	rules := &planner.RulesPlanner{MaxNodes: e.cfg.MaxNodes}
	if req.Mode == ledger.ModeBaseline {
		p.Graph, err = baselinePlan(ctx, rules, req.Question, p.Route, cat)
	} else {
		p.Graph, err = rules.Plan(ctx, req.Question, p.Route, cat)
	}
	if err != nil {
		return nil, fmt.Errorf("executor: plan: %w", err)
	}
	if err := planner.Validate(p.Graph, planner.Limits{MaxNodes: e.cfg.MaxNodes}); err != nil {
		return nil, fmt.Errorf("executor: the plan is invalid: %w", err)
	}
	scope := tools.Scope{Tenant: e.cfg.Tenant, Tickers: p.Graph.Tickers, FiscalYears: p.Graph.FiscalYears}
	var total budget.Amounts
	for _, n := range p.Graph.Nodes {
		kind, cand, err := tools.Reservation(n.Tool, n.Args, scope)
		if err != nil {
			return nil, fmt.Errorf("executor: node %s: %w", n.ID, err)
		}
		a, err := budget.ToolReservation(kind, cand)
		if err != nil {
			return nil, err
		}
		total = total.Add(a)
	}
	if req.Mode == ledger.ModeModel && e.cfg.Model != nil {
		m := e.cfg.Model
		planPrompt := llm.EstimateTokens([]llm.Message{{Role: "user", Content: req.Question}}) + 4000
		calls := []struct {
			model  string
			prompt int64
			max    int64
			n      int
		}{
			{m.Model, planPrompt, m.tokens("plan"), 3}, // the plan and its two corrections
			{m.Model, synthesisPromptTokens, m.tokens("answer"), 1},
		}
		if m.GraderModel != "" {
			calls = append(calls, struct {
				model  string
				prompt int64
				max    int64
				n      int
			}{m.GraderModel, synthesisPromptTokens, m.tokens("grade"), 1})
		}
		for _, c := range calls {
			a, err := budget.ModelReservation(e.cfg.Prices, c.model, c.prompt, c.max)
			if err != nil {
				a = budget.Amounts{ModelCalls: 1, InputTokens: c.prompt, OutputTokens: c.max}
				p.Notes = append(p.Notes, fmt.Sprintf("no price for %s: spend not counted", c.model))
			}
			for range c.n {
				total = total.Add(a)
			}
		}
		p.Notes = append(p.Notes, "model mode: the graph shown is the rules plan (the model planner's fallback); the model's own plan is made when the run starts")
	}
	p.WorstCase = total
	p.WorstCaseByDimension = amountsMap(total)
	for _, d := range budget.Dimensions() {
		if limit, ok := req.Limits.Get(d); ok && total.Get(d).GreaterThan(limit) {
			p.Exceeds = append(p.Exceeds, fmt.Sprintf("%s: worst case %s, limit %s", d, total.Get(d), limit))
		}
	}
	if req.MaxCalls > 0 {
		calls := total.SearchCalls + total.ReadCalls + total.FactCalls + total.CalculateCalls + total.ModelCalls
		if calls > int64(req.MaxCalls) {
			p.Exceeds = append(p.Exceeds, fmt.Sprintf("calls: worst case %d, limit %d", calls, req.MaxCalls))
		}
	}
	p.Notes = append(p.Notes, p.Graph.Notes...)
	p.Notes = append(p.Notes, "re-planning rounds and retries reserve more only while the limits allow")
	return p, nil
}

func amountsMap(a budget.Amounts) map[string]string {
	m := map[string]string{}
	for _, d := range budget.Dimensions() {
		m[string(d)] = a.Get(d).String()
	}
	return m
}
