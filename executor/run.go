package executor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/synth"
	"github.com/ledgerline/research/tools"
	"github.com/ledgerline/research/validator"
)

// runState is one run in flight.
type runState struct {
	e   *Engine
	req Request
	// progressMu orders a run's progress: each step's time and usage are
	// read, logged and reported one step at a time, so the lines a
	// terminal shows run forward in time and their counters only grow.
	progressMu sync.Mutex
	// requested is the mode the caller asked for: ModeAuto when auto
	// mode chose req.Mode.
	requested ledger.Mode
	// modelOff, in model mode, says why the model is not called: the
	// rules planner and synthesizer stand in for the whole run.
	modelOff string
	runID    string
	scopes   []budget.Scope
	start    time.Time
	cat      *planner.Catalog
	route    planner.Route
	graph    *planner.Graph
	env      *tools.Env
	reqs     map[string]planner.Requirement
	// gatherCtx ends at the gathering deadline: the wall-clock limit less
	// what synthesis holds back.
	gatherDeadline time.Time

	mu          sync.Mutex
	calls       int    // guarded by mu: model and tool calls started
	callCap     int    // guarded by mu: calls gathering may start; 0 means no cap
	exhausted   string // guarded by mu: the dimension that ran out; "" while within budget
	linked      map[string][]string
	searchNew   map[string][]int              // guarded by mu: per requirement, new evidence of each search serving it
	calcs       map[string]*tools.Calculation // guarded by mu
	gaps        []validator.Gap               // guarded by mu
	notes       []string                      // guarded by mu
	failedNodes map[string]string             // guarded by mu: node -> why it failed
	settled     budget.Amounts                // guarded by mu: the run's settled usage, once usageRead
	usageRead   bool                          // guarded by mu: settled was read from the budget
	// failedBefore holds the tool call ids a resumed run recorded as
	// failed; read-only once gathering starts.
	failedBefore map[string]bool
	// replies holds a resumed run's recorded model replies by budget key;
	// guarded by mu.
	replies map[string]*llm.ChatResponse
	seq     int // guarded by mu: model call sequence
}

// Run answers req and records the run in the ledger. The returned error is
// for what prevents a run from being recorded at all (a bad request, a
// ledger that cannot write); every verdict, including refusals and budget
// exhaustion, is a Result.
func (e *Engine) Run(ctx context.Context, req Request) (*Result, error) {
	if err := e.checkRequest(&req); err != nil {
		return nil, err
	}
	start := e.cfg.Now()
	prepared := e.prepare(ctx, req)
	docs, err := e.cfg.Store.Documents(ctx)
	if err != nil {
		return nil, fmt.Errorf("executor: list the corpus: %w", err)
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	snapshot := ledger.CorpusSnapshot(ids)
	cat, err := e.catalog(ctx, docs, req.Question, req.Tickers)
	if err != nil {
		return nil, err
	}
	// Auto mode is resolved before the run is recorded, with what this
	// engine has: the recorded mode is the one that runs.
	requested, autoNote := req.Mode, ""
	if req.Mode == ModeAuto {
		mode, class := e.AutoMode(planner.RouteQuestion(req.Question, cat, req.Tickers))
		req.Mode = mode
		autoNote = e.autoNote(class, mode)
	}
	run, resumed, err := e.cfg.Ledger.OpenRun(ctx, ledger.Run{ID: req.RunID, Question: req.Question, Mode: req.Mode, CorpusSnapshot: snapshot})
	if err != nil {
		return nil, fmt.Errorf("executor: open run %s: %w", req.RunID, err)
	}
	if resumed {
		if res, ok, err := e.recordedResult(ctx, run.ID); err != nil || ok {
			return res, err
		}
		if requested == ModeAuto && run.Mode != req.Mode {
			// Resolved when the run was first recorded: that mode holds.
			autoNote = fmt.Sprintf("auto mode: the run was recorded in %s mode when it was first opened (by the queue, or by an engine configured otherwise), and continues in that mode", run.Mode)
		}
		req.Question, req.Mode = run.Question, run.Mode
		if err := e.loadFigures(ctx, cat, docs, planner.RouteQuestion(req.Question, cat, req.Tickers).Issuers); err != nil {
			return nil, err
		}
	}
	rs := &runState{
		e: e, req: req, requested: requested, runID: run.ID, start: start,
		scopes:      []budget.Scope{budget.RunScope(run.ID)},
		cat:         cat,
		reqs:        map[string]planner.Requirement{},
		linked:      map[string][]string{},
		searchNew:   map[string][]int{},
		calcs:       map[string]*tools.Calculation{},
		failedNodes: map[string]string{},
	}
	if e.cfg.TenantDay {
		rs.scopes = append(rs.scopes, budget.DayScope(start))
	}
	if autoNote != "" {
		rs.note(autoNote)
		rs.event(ctx, ledger.EventDecision, "", 0, autoNote, nil)
	}
	if prepared.Kind != "" {
		if _, err := e.cfg.Ledger.AppendEvent(ctx, run.ID, prepared); err != nil {
			rs.note("could not record what preparing the run did: " + err.Error())
		}
	}
	if prepared.Message != "" {
		rs.note(prepared.Message)
	}
	rs.failedBefore = map[string]bool{}
	if resumed {
		led, err := e.cfg.Ledger.Load(ctx, run.ID)
		if err != nil {
			return nil, fmt.Errorf("executor: load run %s to resume it: %w", run.ID, err)
		}
		for _, c := range led.ToolCalls {
			if c.Error != "" {
				rs.failedBefore[c.ID] = true
			}
		}
		rs.replies = map[string]*llm.ChatResponse{}
		for _, ev := range led.Events {
			if ev.Kind != EventModelReply {
				continue
			}
			var resp llm.ChatResponse
			if err := json.Unmarshal(ev.Data, &resp); err == nil {
				rs.replies[ev.Subject] = &resp
			}
		}
	}
	if resumed && run.CorpusSnapshot != snapshot {
		rs.note("the corpus changed since this run started; the run continues over the corpus as it is now")
	}
	res, err := rs.execute(ctx)
	if err != nil {
		// Record that the run stopped; the error itself goes to the caller.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		rs.event(fctx, ledger.EventDecision, "", 0, "run failed: "+err.Error(), nil)
		_ = e.cfg.Ledger.FinishRun(fctx, rs.runID, ledger.StatusFailed)
		return nil, err
	}
	return res, nil
}

func (rs *runState) execute(ctx context.Context) (*Result, error) {
	e := rs.e
	rs.route = planner.RouteQuestion(rs.req.Question, rs.cat, rs.req.Tickers)
	rs.progress(ctx, Progress{Kind: "route", Message: describeRoute(rs.route)})
	if rs.route.Refused {
		ans := &validator.Answer{
			Answer:    "Refused: " + rs.route.Reason,
			Status:    ledger.StatusRefused,
			Citations: []validator.Citation{},
		}
		return rs.finish(ctx, ans, nil, nil)
	}

	limits := *rs.req.Limits
	if err := e.cfg.Budget.SetLimits(ctx, rs.scopes[0], limits); err != nil {
		return nil, fmt.Errorf("executor: set the run's budget: %w", err)
	}
	if rs.req.Mode == ledger.ModeModel {
		if err := rs.checkModel(ctx, limits); err != nil {
			return nil, err
		}
	}
	holdCalls, holdTime := rs.holdback(limits)
	if rs.req.MaxCalls > 0 {
		rs.callCap = max(rs.req.MaxCalls-holdCalls, 0)
	}
	if limits.WallClock > 0 {
		rs.gatherDeadline = rs.start.Add(limits.WallClock - holdTime)
	}
	// The run's overall deadline; gathering stops earlier.
	ctx, cancel := budget.WithDeadline(ctx, rs.start, limits)
	defer cancel()
	release, err := rs.reserveSynthesis(ctx)
	if err != nil {
		return nil, err
	}

	rs.env = &tools.Env{
		Store: e.cfg.Store, Searcher: e.cfg.Searcher, Ledger: e.cfg.Ledger, RunID: rs.runID, Now: e.cfg.Now,
		Texts: e.texts,
	}
	if err := rs.plan(ctx); err != nil {
		release()
		return nil, err
	}
	rs.env.Scope = tools.Scope{Tenant: e.cfg.Tenant, Tickers: rs.graph.Tickers, FiscalYears: rs.graph.FiscalYears}

	gctx, gcancel := rs.gatherContext(ctx)
	err = rs.gather(gctx)
	gcancel()
	if err != nil {
		release()
		return nil, err
	}
	release()
	return rs.synthesize(ctx)
}

// checkModel decides whether a model-mode run can call its model. A model
// without a price under a spend limit is refused when model mode was asked
// for; when auto mode chose it, the run goes on with the rules planner and
// synthesizer, and says why. A run recorded in model mode that resumes on
// an engine without a model does the same.
func (rs *runState) checkModel(ctx context.Context, limits budget.Limits) error {
	if rs.e.cfg.Model == nil {
		rs.modelOff = "this engine has no model configured"
	} else if err := budget.CheckModels(limits, rs.e.cfg.Prices, rs.models()...); err != nil {
		if rs.requested != ModeAuto {
			return &RequestError{"model", err.Error()}
		}
		rs.modelOff = fmt.Sprintf("the model cannot be priced (%v) and the run's spend is limited", err)
	}
	if rs.modelOff != "" {
		msg := "model mode without a model call: " + rs.modelOff + "; the rules planner plans this run and the rules synthesizer writes its answer"
		rs.note(msg)
		rs.event(ctx, ledger.EventDecision, "", 0, msg, nil)
	}
	return nil
}

// useModel reports whether the run's planning and synthesis call the
// model.
func (rs *runState) useModel() bool {
	return rs.req.Mode == ledger.ModeModel && rs.modelOff == ""
}

// models lists the models model mode calls.
func (rs *runState) models() []string {
	m := rs.e.cfg.Model
	if m == nil {
		return nil
	}
	out := []string{m.Model}
	if m.GraderModel != "" {
		out = append(out, m.GraderModel)
	}
	return out
}

// gatherContext ends at the gathering deadline.
func (rs *runState) gatherContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if rs.gatherDeadline.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, rs.gatherDeadline)
}

// plan builds, validates and records the task graph.
func (rs *runState) plan(ctx context.Context) error {
	e := rs.e
	rules := &planner.RulesPlanner{MaxNodes: e.cfg.MaxNodes}
	var g *planner.Graph
	var err error
	fellBack := ""
	switch {
	case rs.useModel():
		mp := &planner.ModelPlanner{
			Caller: rs.caller("plan"), Model: e.cfg.Model.Model, MaxTokens: e.cfg.Model.tokens("plan"),
			Limits: planner.Limits{MaxNodes: e.cfg.MaxNodes}, Fallback: rules,
		}
		g, err = mp.Plan(ctx, rs.req.Question, rs.route, rs.cat)
		switch {
		case err != nil:
			fellBack = "the model planner failed: " + err.Error()
			g, err = rules.Plan(ctx, rs.req.Question, rs.route, rs.cat)
			if err == nil {
				g.Planner = fallbackPlanner
			}
		case g.Planner == fallbackPlanner:
			// The planner's last note says why it fell back.
			fellBack = "the model's plan could not be used"
			if n := len(g.Notes); n > 0 {
				fellBack = fallbackReason(g.Notes[n-1], "model planner: ", "; fell back to the rules planner")
				g.Notes = g.Notes[:n-1]
			}
		case !strings.HasPrefix(g.Planner, "model:"):
			rs.note("planning: the question names no issuer the corpus holds, so the rules planner planned it without a model call")
		}
	case rs.req.Mode == ledger.ModeBaseline:
		g, err = baselinePlan(ctx, rules, rs.req.Question, rs.route, rs.cat)
	case rs.req.Mode == ledger.ModeModel:
		// checkModel said why the model is not called.
		g, err = rules.Plan(ctx, rs.req.Question, rs.route, rs.cat)
		if err == nil {
			g.Planner = fallbackPlanner
		}
	default:
		g, err = rules.Plan(ctx, rs.req.Question, rs.route, rs.cat)
	}
	if err != nil {
		return fmt.Errorf("executor: plan: %w", err)
	}
	if fellBack != "" {
		msg := "planning fell back to rules: " + fellBack + "; the rules planner planned this run"
		rs.note(msg)
		rs.event(ctx, ledger.EventDecision, "", 0, msg, nil)
	}
	if err := planner.Validate(g, planner.Limits{MaxNodes: e.cfg.MaxNodes}); err != nil {
		return fmt.Errorf("executor: the plan is invalid: %w", err)
	}
	rs.graph = g
	for _, r := range g.Requirements {
		rs.reqs[r.ID] = r
	}
	for _, n := range g.Notes {
		rs.note(n)
	}
	lreqs := make([]ledger.Requirement, len(g.Requirements))
	for i, r := range g.Requirements {
		lreqs[i] = ledger.Requirement{
			ID: r.ID, Issuer: r.Issuer, Period: r.Period,
			Description: describeNeed(r), CompletionCondition: validator.DescribeCondition(r.Completion),
		}
	}
	if _, err := e.cfg.Ledger.AddRequirements(ctx, rs.runID, lreqs); err != nil {
		return fmt.Errorf("executor: record the plan: %w", err)
	}
	data, _ := json.Marshal(g)
	rs.event(ctx, "plan_graph", "", 0, fmt.Sprintf("%s planner: %d requirements, %d nodes", g.Planner, len(g.Requirements), len(g.Nodes)), data)
	rs.progress(ctx, Progress{Kind: "plan", Message: fmt.Sprintf("%s planner: %d requirements, %d nodes", g.Planner, len(g.Requirements), len(g.Nodes))})
	return nil
}

// baselinePlan is the fixed path: the rules planner's requirements (so the
// answer is judged by the same conditions) served by one retrieval pass
// over the question.
func baselinePlan(ctx context.Context, rules *planner.RulesPlanner, question string, rt planner.Route, cat *planner.Catalog) (*planner.Graph, error) {
	g, err := rules.Plan(ctx, question, rt, cat.WithoutFigures())
	if err != nil {
		return nil, err
	}
	g.Planner = "baseline"
	g.Nodes = nil
	if len(g.Tickers) == 0 || len(g.Requirements) == 0 {
		return g, nil
	}
	serves := make([]string, len(g.Requirements))
	for i, r := range g.Requirements {
		serves[i] = r.ID
	}
	args, err := json.Marshal(tools.SearchArgs{
		Query: truncateRunes(question, 500), Tickers: g.Tickers, FiscalYears: g.FiscalYears,
		K: min(20, 6*len(g.Tickers)),
	})
	if err != nil {
		return nil, err
	}
	g.Nodes = []planner.Node{{ID: "b1", Tool: tools.SearchFilings, Args: args, Serves: serves}}
	return g, nil
}

// gather runs the graph, then re-plans for required requirements still
// unmet while rounds and budget remain.
func (rs *runState) gather(ctx context.Context) error {
	if err := runGraph(ctx, rs.graph.Nodes, rs.runNode, rs.skipNode, rs.halted); err != nil {
		return err
	}
	met, err := rs.evaluate(ctx)
	if err != nil {
		return err
	}
	if rs.req.Mode == ledger.ModeBaseline {
		return nil
	}
	for round := 1; round <= rs.e.cfg.ReplanRounds; round++ {
		if rs.halted() || ctx.Err() != nil {
			break
		}
		unmet := rs.unmet(met)
		if len(unmet) == 0 {
			break
		}
		nodes := rs.replan(ctx, unmet, round)
		if len(nodes) == 0 {
			break
		}
		rs.graph.Nodes = append(rs.graph.Nodes, nodes...)
		rs.progress(ctx, Progress{Kind: "replan", Message: fmt.Sprintf("round %d: %d nodes for %d unmet requirements", round, len(nodes), len(unmet))})
		if err := runGraph(ctx, nodes, rs.runNode, rs.skipNode, rs.halted); err != nil {
			return err
		}
		if met, err = rs.evaluate(ctx); err != nil {
			return err
		}
	}
	for _, r := range rs.unmetAll(met) {
		if rs.stopped(r.ID) {
			rs.gap(validator.Gap{RequirementID: r.ID, Issuer: r.Issuer, What: r.Need, Why: "stopped: its last two searches added no new evidence"})
			rs.event(ctx, ledger.EventDecision, r.ID, 0, "stop rule: the last two searches added no new evidence", nil)
		}
	}
	return nil
}

// unmet lists the required requirements not met whose searching has not
// been stopped by the stop rule.
func (rs *runState) unmet(met map[string]bool) []planner.Requirement {
	var out []planner.Requirement
	for _, r := range rs.unmetAll(met) {
		if r.Required && !rs.stopped(r.ID) {
			out = append(out, r)
		}
	}
	return out
}

func (rs *runState) unmetAll(met map[string]bool) []planner.Requirement {
	var out []planner.Requirement
	for _, r := range rs.graph.Requirements {
		if !met[r.ID] {
			out = append(out, r)
		}
	}
	return out
}

// stopped reports whether a requirement's last two searches added no new
// evidence.
func (rs *runState) stopped(reqID string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	s := rs.searchNew[reqID]
	return len(s) >= 2 && s[len(s)-1] == 0 && s[len(s)-2] == 0
}

// replan asks the planner for nodes serving the unmet requirements and
// keeps those inside the run's scope with fresh ids.
func (rs *runState) replan(ctx context.Context, unmet []planner.Requirement, round int) []planner.Node {
	var nodes []planner.Node
	if rs.useModel() {
		mp := &planner.ModelPlanner{
			Caller: rs.caller(fmt.Sprintf("replan-%d", round)), Model: rs.e.cfg.Model.Model, MaxTokens: rs.e.cfg.Model.tokens("plan"),
			Limits: planner.Limits{MaxNodes: rs.e.cfg.MaxNodes},
		}
		led, err := rs.e.cfg.Ledger.Load(ctx, rs.runID)
		if err == nil {
			var notes []string
			nodes, notes, err = mp.Replan(ctx, rs.graph, unmet, led.Evidence, round)
			for _, n := range notes {
				rs.note(n)
				rs.event(ctx, ledger.EventDecision, "", 0, n, nil)
			}
		}
		switch {
		case err == nil:
		case rs.halted() || ctx.Err() != nil || errors.Is(err, budget.ErrExhausted):
			rs.note(fmt.Sprintf("model re-planning round %d stopped: %v", round, err))
			nodes = nil
		default:
			msg := fmt.Sprintf("re-planning round %d fell back to rules: the model's call failed (%v); the rules planner re-planned the round", round, err)
			rs.note(msg)
			rs.event(ctx, ledger.EventDecision, "", 0, msg, nil)
			nodes = planner.Replan(rs.graph, unmet, round)
		}
	} else {
		nodes = planner.Replan(rs.graph, unmet, round)
	}
	known := map[string]bool{}
	for _, n := range rs.graph.Nodes {
		known[n.ID] = true
	}
	limit := rs.e.cfg.MaxNodes
	if limit <= 0 {
		limit = planner.DefaultMaxNodes
	}
	var out []planner.Node
	for _, n := range nodes {
		if known[n.ID] {
			continue
		}
		if len(rs.graph.Nodes)+len(out) >= limit {
			rs.note(fmt.Sprintf("re-planning round %d stopped at the graph's bound of %d nodes", round, limit))
			break
		}
		if err := tools.CheckArgs(n.Tool, n.Args, rs.env.Scope); err != nil {
			msg := fmt.Sprintf("re-planned node %s rejected: %v", n.ID, err)
			rs.note(msg)
			rs.event(ctx, ledger.EventDecision, n.ID, 0, msg, nil)
			continue
		}
		// Dependencies on nodes of earlier rounds have finished already.
		n.DependsOn = slices.DeleteFunc(slices.Clone(n.DependsOn), func(d string) bool { return known[d] })
		known[n.ID] = true
		out = append(out, n)
	}
	return out
}

// evaluate checks every requirement's completion condition against the
// ledger, marks the newly met ones supported and returns which are met.
func (rs *runState) evaluate(ctx context.Context) (map[string]bool, error) {
	led, err := rs.e.cfg.Ledger.Load(ctx, rs.runID)
	if err != nil {
		return nil, &fatalError{fmt.Errorf("executor: load the run's ledger: %w", err)}
	}
	held := map[string]ledger.RequirementStatus{}
	for _, r := range led.Requirements {
		held[r.ID] = r.Status
	}
	calcs := map[string]bool{}
	rs.mu.Lock()
	for id, c := range rs.calcs {
		calcs[id] = c != nil && planner.CalculationMeets(rs.reqs[id], c.Result)
	}
	rs.mu.Unlock()
	met := map[string]bool{}
	// Conditions over other requirements (comparable, calculation) are
	// checked after the ones they build on.
	order := slices.Clone(rs.graph.Requirements)
	slices.SortStableFunc(order, func(a, b planner.Requirement) int { return rank(a) - rank(b) })
	for _, r := range order {
		ids, ok := planner.Check(r, led, calcs, met)
		if r.Completion.Kind == planner.CondPrinted && len(r.Completion.Of) > 0 && calcs[r.Completion.Of[0]] {
			rs.mu.Lock()
			calc := rs.calcs[r.Completion.Of[0]]
			rs.mu.Unlock()
			ids, ok = planner.CheckPrinted(r, led, calc)
		}
		if !ok {
			continue
		}
		met[r.ID] = true
		if held[r.ID] != ledger.RequirementSupported {
			if len(ids) > 8 {
				ids = ids[:8]
			}
			if err := rs.e.cfg.Ledger.UpdateRequirement(ctx, rs.runID, r.ID, ledger.RequirementSupported, ids); err != nil {
				return nil, &fatalError{fmt.Errorf("executor: record requirement %s: %w", r.ID, err)}
			}
		}
	}
	return met, nil
}

func rank(r planner.Requirement) int {
	switch r.Completion.Kind {
	case planner.CondCalculation:
		return 1
	case planner.CondComparable, planner.CondPrinted:
		return 2
	}
	return 0
}

// synthesize writes the answer over what the ledger holds, validates it
// and finishes the run.
func (rs *runState) synthesize(ctx context.Context) (*Result, error) {
	e := rs.e
	// Synthesis runs even when gathering ran out of time: it has its own
	// bounded context.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rs.synthesisTimeout())
	defer cancel()
	led, err := e.cfg.Ledger.Load(sctx, rs.runID)
	if err != nil {
		return nil, fmt.Errorf("executor: load the run's ledger: %w", err)
	}
	// Contradictions among the figures gathered.
	for _, c := range validator.DetectContradictions(rs.graph.Requirements, led) {
		if _, ok := rs.reqs[c.RequirementID]; !ok {
			continue
		}
		if _, _, err := e.cfg.Ledger.AddContradiction(sctx, rs.runID, c); err != nil {
			return nil, fmt.Errorf("executor: record a contradiction: %w", err)
		}
		if err := e.cfg.Ledger.UpdateRequirement(sctx, rs.runID, c.RequirementID, ledger.RequirementConflicting, c.EvidenceIDs); err != nil {
			return nil, fmt.Errorf("executor: record a contradiction: %w", err)
		}
	}
	met, err := rs.evaluate(sctx)
	if err != nil {
		return nil, err
	}
	for _, r := range rs.graph.Requirements {
		if !met[r.ID] {
			if err := e.cfg.Ledger.UpdateRequirement(sctx, rs.runID, r.ID, ledger.RequirementMissing, nil); err != nil && !errors.Is(err, ledger.ErrNotFound) {
				return nil, fmt.Errorf("executor: record requirement %s: %w", r.ID, err)
			}
		}
	}
	if led, err = e.cfg.Ledger.Load(sctx, rs.runID); err != nil {
		return nil, fmt.Errorf("executor: load the run's ledger: %w", err)
	}
	rs.mu.Lock()
	calcs := make(map[string]*tools.Calculation, len(rs.calcs))
	for k, v := range rs.calcs {
		calcs[k] = v
	}
	gaps := slices.Clone(rs.gaps)
	rs.mu.Unlock()
	sortGaps(gaps, rs.graph)
	in := &synth.Input{
		Question: rs.req.Question, Route: rs.route, Graph: rs.graph, Catalog: rs.cat,
		Ledger: led, Met: met, Calculations: calcs, Gaps: gaps,
	}
	rs.progress(sctx, Progress{Kind: "synthesis", Message: fmt.Sprintf("%d evidence, %d facts, %d of %d requirements met", len(led.Evidence), len(led.Facts), len(met), len(rs.graph.Requirements))})

	var grade *synth.Grade
	unverified := false
	ans, err := rs.answer(sctx, in)
	if err != nil {
		return nil, err
	}
	vin := &validator.Input{
		Answer: ans, Ledger: led, Requirements: rs.graph.Requirements, Met: met, Gaps: gaps,
		BudgetExhausted: rs.exhaustedDim() != "", NotCovered: rs.route.NotCovered,
	}
	valid, report := validator.Validate(vin)
	if rs.useModel() && e.cfg.Model.GraderModel != "" {
		valid, report, grade, unverified = rs.gradeLoop(sctx, in, valid, report)
	}
	return rs.finish(sctx, valid, report, &gradeInfo{grade: grade, unverified: unverified})
}

// answer runs the mode's synthesizer. In model mode the rules synthesizer
// stands in when the model's answer cannot be used, and a note says so;
// the validator judges either answer alike.
func (rs *runState) answer(ctx context.Context, in *synth.Input) (*validator.Answer, error) {
	if !rs.useModel() {
		return synth.Rules{}.Synthesize(ctx, in)
	}
	fb := &fallbackSynth{next: synth.Rules{}}
	m := &synth.Model{Caller: rs.caller("answer"), Model: rs.e.cfg.Model.Model, MaxTokens: rs.e.cfg.Model.tokens("answer"), Fallback: fb}
	ans, notes, err := m.SynthesizeNoted(ctx, in)
	why := ""
	if fb.used && len(notes) > 0 {
		// The synthesizer's last note says why it fell back.
		why = fallbackReason(notes[len(notes)-1], "model synthesizer: ", "; answered with the rules synthesizer")
		notes = notes[:len(notes)-1]
	}
	for _, n := range notes {
		rs.note(n)
		rs.event(ctx, ledger.EventDecision, "", 0, n, nil)
	}
	if err != nil {
		why = "the model synthesizer failed: " + err.Error()
		ans, err = synth.Rules{}.Synthesize(ctx, in)
	} else if fb.used && why == "" {
		why = "the model's answer could not be used"
	}
	if why != "" {
		msg := "synthesis fell back to rules: " + why + "; the rules synthesizer wrote this answer"
		rs.note(msg)
		rs.event(ctx, ledger.EventDecision, "", 0, msg, nil)
	}
	return ans, err
}

// fallbackPlanner is the Planner of a graph the rules planner made in
// place of the model's.
const fallbackPlanner = "rules (fallback)"

// fallbackSynth is the model synthesizer's fallback; it records that it
// was used.
type fallbackSynth struct {
	next synth.Synthesizer
	used bool // set by Synthesize; the synthesizer calls it from one goroutine
}

func (f *fallbackSynth) Synthesize(ctx context.Context, in *synth.Input) (*validator.Answer, error) {
	f.used = true
	return f.next.Synthesize(ctx, in)
}

// fallbackReason is a planner's or synthesizer's note on why it fell back,
// without its own words for who it was and what it did instead, which
// the run's note says.
func fallbackReason(note, who, instead string) string {
	return strings.TrimSuffix(strings.TrimPrefix(note, who), instead)
}

type gradeInfo struct {
	grade      *synth.Grade
	unverified bool
}

// gradeLoop asks the grader; a failing grade sends the run back for at most
// two rounds of gathering and rewriting. A grader that fails marks the
// answer unverified, never passed.
func (rs *runState) gradeLoop(ctx context.Context, in *synth.Input, ans *validator.Answer, report *validator.Report) (*validator.Answer, *validator.Report, *synth.Grade, bool) {
	g := &synth.Grader{Caller: rs.caller("grade"), Model: rs.e.cfg.Model.GraderModel, MaxTokens: rs.e.cfg.Model.tokens("grade")}
	for round := 1; ; round++ {
		grade, err := g.Grade(ctx, in, ans)
		if err != nil {
			rs.note("grader failed (" + err.Error() + "); the answer is unverified")
			rs.event(ctx, ledger.EventDecision, "", 0, "grader failed: "+err.Error(), nil)
			return ans, report, nil, true
		}
		data, _ := json.Marshal(grade)
		rs.event(ctx, "grade", "", 0, fmt.Sprintf("grounded=%v relevant=%v score=%.2f", grade.Grounded, grade.Relevant, grade.Score), data)
		if grade.Pass(0.7) || round > 2 || rs.halted() {
			return ans, report, grade, false
		}
		// Gather once more for what is unmet, then rewrite.
		gctx, cancel := rs.gatherContext(ctx)
		unmet := rs.unmet(in.Met)
		if nodes := rs.replan(gctx, unmet, rs.e.cfg.ReplanRounds+round); len(nodes) > 0 {
			rs.graph.Nodes = append(rs.graph.Nodes, nodes...)
			_ = runGraph(gctx, nodes, rs.runNode, rs.skipNode, rs.halted)
		}
		cancel()
		met, err := rs.evaluate(ctx)
		if err != nil {
			return ans, report, grade, false
		}
		led, err := rs.e.cfg.Ledger.Load(ctx, rs.runID)
		if err != nil {
			return ans, report, grade, false
		}
		in.Ledger, in.Met = led, met
		next, err := rs.answer(ctx, in)
		if err != nil {
			return ans, report, grade, false
		}
		ans, report = validator.Validate(&validator.Input{
			Answer: next, Ledger: led, Requirements: rs.graph.Requirements, Met: met, Gaps: in.Gaps,
			BudgetExhausted: rs.exhaustedDim() != "", NotCovered: rs.route.NotCovered,
		})
	}
}

// note keeps a note for the result.
func (rs *runState) note(s string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if !slices.Contains(rs.notes, s) {
		rs.notes = append(rs.notes, s)
	}
}

// sortGaps puts gaps in the order of the plan's requirements, and a
// requirement's gaps by their reason: nodes finish in any order, and the
// answer's list of what is missing is the same on every run.
func sortGaps(gaps []validator.Gap, g *planner.Graph) {
	at := map[string]int{}
	if g != nil {
		for i, r := range g.Requirements {
			at[r.ID] = i
		}
	}
	pos := func(id string) int {
		if i, ok := at[id]; ok {
			return i
		}
		return len(at)
	}
	slices.SortStableFunc(gaps, func(a, b validator.Gap) int {
		return cmp.Or(cmp.Compare(pos(a.RequirementID), pos(b.RequirementID)), strings.Compare(a.RequirementID, b.RequirementID),
			strings.Compare(a.Why, b.Why), strings.Compare(a.What, b.What))
	})
}

// gap records a gap once per requirement and reason.
func (rs *runState) gap(g validator.Gap) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, h := range rs.gaps {
		if h.RequirementID == g.RequirementID && h.Why == g.Why && h.What == g.What {
			return
		}
	}
	rs.gaps = append(rs.gaps, g)
}

// event appends to the ledger's event log; a failure to log is not worth
// failing the run for, so it becomes a note.
func (rs *runState) event(ctx context.Context, kind ledger.EventKind, subject string, d time.Duration, msg string, data json.RawMessage) {
	_, err := rs.e.cfg.Ledger.AppendEvent(ctx, rs.runID, ledger.Event{Kind: kind, Subject: subject, Duration: d, Message: msg, Data: data})
	if err != nil && ctx.Err() == nil {
		rs.note("could not log an event: " + err.Error())
	}
}

// settledUsage is the run's settled usage for a progress step: read from
// the budget at the first step (a resumed run's earlier calls), then
// tallied in process as the run's calls settle (addSettled). A shared
// budget's audit writes the run's settled calls and reads them back, which
// the run does not pay at every step. Callers hold progressMu.
func (rs *runState) settledUsage(ctx context.Context) budget.Amounts {
	rs.mu.Lock()
	read := rs.usageRead
	rs.mu.Unlock()
	if !read {
		// A new run's budget has no limits yet at its first step, and
		// nothing settled: the audit's error leaves the tally at zero.
		u, err := rs.e.cfg.Budget.Usage(ctx, rs.scopes[0])
		rs.mu.Lock()
		rs.usageRead = true
		if err == nil {
			rs.settled = u.Settled
		}
		rs.mu.Unlock()
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.settled
}

// addSettled tallies a call the run settled; a replayed settle was
// counted where it first settled.
func (rs *runState) addSettled(r budget.Result) {
	if r.Replayed {
		return
	}
	rs.mu.Lock()
	rs.settled = rs.settled.Add(r.Amounts)
	rs.mu.Unlock()
}

// progress reports a step to the configured callback and the event log.
func (rs *runState) progress(ctx context.Context, p Progress) {
	rs.progressMu.Lock()
	defer rs.progressMu.Unlock()
	p.At = rs.e.cfg.Now()
	p.RunID = rs.runID
	subject := p.Node
	rs.event(ctx, ledger.EventKind(p.Kind), subject, p.Duration, p.Message, p.data())
	if f := rs.e.cfg.Progress; f != nil {
		p.Used = rs.settledUsage(ctx)
		rs.e.progressMu.Lock()
		f(p)
		rs.e.progressMu.Unlock()
	}
}

func describeRoute(rt planner.Route) string {
	if rt.Refused {
		return "refused: " + rt.Reason
	}
	parts := []string{"issuers " + orNone(rt.Issuers)}
	if len(rt.NotCovered) > 0 {
		parts = append(parts, "not in the corpus "+strings.Join(rt.NotCovered, ", "))
	}
	if len(rt.FiscalYears) > 0 {
		ys := make([]string, len(rt.FiscalYears))
		for i, y := range rt.FiscalYears {
			ys[i] = fmt.Sprint(y)
		}
		parts = append(parts, "fiscal years "+strings.Join(ys, ", "))
	}
	parts = append(parts, "aspects "+orNone(rt.Aspects))
	return strings.Join(parts, "; ")
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// prepare runs Config.Prepare for a run not yet recorded as finished,
// within half of its wall-clock budget, and returns the event to record
// (its message saying why it failed, when it did).
func (e *Engine) prepare(ctx context.Context, req Request) ledger.Event {
	if e.cfg.Prepare == nil {
		return ledger.Event{}
	}
	if req.RunID != "" {
		if run, err := e.cfg.Ledger.Run(ctx, req.RunID); err == nil && run.Status.Terminal() {
			return ledger.Event{}
		}
	}
	limits := DefaultLimits()
	if req.Limits != nil {
		limits = *req.Limits
	}
	within := limits.WallClock / 2
	if within <= 0 {
		within = DefaultLimits().WallClock / 2
	}
	pctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	ev, err := e.cfg.Prepare(pctx, req, within)
	if err != nil {
		if ev.Message != "" {
			ev.Message += "; " + err.Error()
		} else {
			ev.Message = "preparing the run failed, and it goes on over the corpus as it is: " + err.Error()
		}
	}
	return ev
}
