package executor

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/synth"
	"github.com/ledgerline/research/tools"
	"github.com/ledgerline/research/validator"
)

// Result is a finished run as `research ask --format json` prints it.
type Result struct {
	RunID          string                 `json:"run_id"`
	Status         ledger.RunStatus       `json:"status"`
	Mode           ledger.Mode            `json:"mode"`
	RequestedMode  ledger.Mode            `json:"requested_mode,omitempty"` // "auto" when auto mode chose Mode; empty when Mode was asked for
	Class          string                 `json:"class,omitempty"`          // the question's class (QuestionClass), whatever the mode
	Question       string                 `json:"question"`
	Answer         string                 `json:"answer"`
	Citations      []Citation             `json:"citations"`
	Figures        []Figure               `json:"figures"` // the numbers the answer rests on, reported and derived
	Requirements   []RequirementResult    `json:"requirements"`
	Gaps           []validator.Gap        `json:"gaps"`
	Contradictions []ledger.Contradiction `json:"contradictions"`
	Budget         BudgetReport           `json:"budget"`
	ElapsedMS      int64                  `json:"elapsed_ms"`

	Calculations  []tools.Calculation `json:"calculations,omitempty"`
	NotCovered    []string            `json:"not_covered"`              // issuers named that the corpus does not hold; [] when none
	RefusalReason string              `json:"refusal_reason,omitempty"` // set when Status is refused
	Planner       string              `json:"planner,omitempty"`
	Notes         []string            `json:"notes"`              // decisions worth knowing: fallbacks, stop rules, budget; [] when none
	Problems      []validator.Problem `json:"problems,omitempty"` // what the validator removed, and why
	Unverified    bool                `json:"unverified,omitempty"`
	Grade         *synth.Grade        `json:"grade,omitempty"`
}

// Citation is one cited source with where it is in the corpus.
type Citation struct {
	Index      int    `json:"index"`
	EvidenceID string `json:"evidence_id"`
	DocumentID string `json:"document_id"`
	Ticker     string `json:"ticker"`
	Form       string `json:"form"`
	FiscalYear int    `json:"fiscal_year"`
	PeriodEnd  string `json:"period_end"`
	Page       *int   `json:"page"` // null when the source has no pages
	Section    string `json:"section"`
	Excerpt    string `json:"excerpt"`
}

// RequirementResult is one requirement and how it ended.
type RequirementResult struct {
	ID          string   `json:"id"`
	Issuer      string   `json:"issuer"`
	Description string   `json:"description"`
	Status      string   `json:"status"`
	Evidence    []string `json:"evidence"`
	Required    bool     `json:"required"`
}

// BudgetReport is the run's limits and what it used, per dimension (the
// budget dimensions, "calls" and "wall_clock_ms"). Values are JSON
// numbers: counts and milliseconds as integers, spend_usd written from its
// decimal with every digit ("0.0123"). A null limit is unlimited.
type BudgetReport struct {
	Limits map[string]*json.Number `json:"limits"`
	Used   map[string]json.Number  `json:"used"`
	// Exhausted names the dimension whose limit stopped the run ("calls",
	// "fact_calls", ...); empty when none did.
	Exhausted string `json:"exhausted,omitempty"`
}

// Limit returns the limit of dimension d; ok is false when d is unlimited
// or not reported.
func (b BudgetReport) Limit(d string) (limit decimal.Decimal, ok bool) {
	n := b.Limits[d]
	if n == nil {
		return decimal.Decimal{}, false
	}
	v, err := decimal.NewFromString(string(*n))
	return v, err == nil
}

// UsedAmount returns what the run used of dimension d; zero when not
// reported.
func (b BudgetReport) UsedAmount(d string) decimal.Decimal {
	v, err := decimal.NewFromString(string(b.Used[d]))
	if err != nil {
		return decimal.Decimal{}
	}
	return v
}

// UnmarshalJSON reads a budget report, also as results recorded before the
// values were numbers wrote it: decimal strings, "unlimited" for no limit,
// and the exhausted dimension among the used values.
func (b *BudgetReport) UnmarshalJSON(data []byte) error {
	var raw struct {
		Limits    map[string]json.RawMessage `json:"limits"`
		Used      map[string]json.RawMessage `json:"used"`
		Exhausted string                     `json:"exhausted"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	rep := BudgetReport{Exhausted: raw.Exhausted}
	if raw.Limits != nil {
		rep.Limits = make(map[string]*json.Number, len(raw.Limits))
	}
	for k, v := range raw.Limits {
		n, text, err := budgetValue(v)
		switch {
		case err != nil:
			return fmt.Errorf("budget limit %s: %w", k, err)
		case n == nil && text != "" && text != "unlimited":
			return fmt.Errorf("budget limit %s: %q is not a number", k, text)
		}
		rep.Limits[k] = n
	}
	if raw.Used != nil {
		rep.Used = make(map[string]json.Number, len(raw.Used))
	}
	for k, v := range raw.Used {
		n, text, err := budgetValue(v)
		switch {
		case err != nil:
			return fmt.Errorf("budget use %s: %w", k, err)
		case n != nil:
			rep.Used[k] = *n
		case k == "exhausted" && text != "":
			rep.Exhausted = cmp.Or(rep.Exhausted, text)
		default:
			return fmt.Errorf("budget use %s: %s is not a number", k, v)
		}
	}
	*b = rep
	return nil
}

// budgetValue reads one budget value: a JSON number, a string holding a
// decimal (both n), another string (text) or null (neither).
func budgetValue(v json.RawMessage) (n *json.Number, text string, err error) {
	var x any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return nil, "", err
	}
	switch x := x.(type) {
	case nil:
		return nil, "", nil
	case json.Number:
		return &x, "", nil
	case string:
		if dec, err := decimal.NewFromString(x); err == nil {
			num := json.Number(dec.String())
			return &num, "", nil
		}
		return nil, x, nil
	}
	return nil, "", fmt.Errorf("%s is neither a number nor null", v)
}

// finish records the verdict and the answer and builds the result.
func (rs *runState) finish(ctx context.Context, ans *validator.Answer, report *validator.Report, gi *gradeInfo) (*Result, error) {
	e := rs.e
	ctx = context.WithoutCancel(ctx)
	led, err := e.cfg.Ledger.Load(ctx, rs.runID)
	if err != nil {
		return nil, fmt.Errorf("executor: load the run's ledger: %w", err)
	}
	docs := map[string]corpus.Document{}
	if ds, err := e.cfg.Store.Documents(ctx); err == nil {
		for _, d := range ds {
			docs[d.ID] = d
		}
	}
	evidence := map[string]ledger.Evidence{}
	for _, ev := range led.Evidence {
		evidence[ev.ID] = ev
	}
	res := &Result{
		RunID: rs.runID, Status: ans.Status, Mode: rs.req.Mode, Question: rs.req.Question,
		Answer: ans.Answer, Citations: []Citation{}, Requirements: []RequirementResult{},
		Gaps: ans.Gaps, Contradictions: ans.Contradictions, Calculations: ans.Calculations,
		NotCovered: rs.route.NotCovered, Figures: []Figure{}, Class: QuestionClass(rs.route),
	}
	if rs.requested == ModeAuto {
		res.RequestedMode = ModeAuto
	}
	if ans.Status == ledger.StatusRefused {
		res.RefusalReason = rs.route.Reason
	}
	for _, c := range ans.Citations {
		ev := evidence[c.EvidenceID]
		d := docs[ev.DocumentID]
		cit := Citation{
			Index: c.Index, EvidenceID: c.EvidenceID, DocumentID: ev.DocumentID, Ticker: ev.Ticker, Form: ev.Form,
			FiscalYear: d.FiscalYear, Section: ev.Section, Excerpt: c.Excerpt,
		}
		if !d.PeriodEnd.IsZero() {
			cit.PeriodEnd = d.PeriodEnd.Format(time.DateOnly)
		}
		if ev.Page > 0 {
			p := ev.Page
			cit.Page = &p
		}
		res.Citations = append(res.Citations, cit)
	}
	if rs.graph != nil {
		rs.mu.Lock()
		byReq := maps.Clone(rs.calcs)
		rs.mu.Unlock()
		res.Figures = figuresOf(rs.graph.Requirements, led, res.Calculations, byReq)
		res.Planner = rs.graph.Planner
		status := map[string]ledger.Requirement{}
		for _, r := range led.Requirements {
			status[r.ID] = r
		}
		for _, r := range rs.graph.Requirements {
			lr := status[r.ID]
			ev := lr.Evidence
			if ev == nil {
				ev = []string{}
			}
			res.Requirements = append(res.Requirements, RequirementResult{
				ID: r.ID, Issuer: r.Issuer, Description: describeNeed(r), Status: string(lr.Status), Evidence: ev, Required: r.Required,
			})
		}
	}
	if report != nil && len(report.Problems) > 0 {
		res.Problems = report.Problems
		data, _ := json.Marshal(report.Problems)
		kinds := map[string]int{}
		for _, p := range report.Problems {
			kinds[p.Kind]++
		}
		rs.event(ctx, "validation", "", 0, fmt.Sprintf("validator: %d problems %v; kept %d citations, dropped %d", len(report.Problems), kinds, report.Kept, report.Dropped), data)
	}
	if gi != nil {
		res.Grade, res.Unverified = gi.grade, gi.unverified
	}
	rs.mu.Lock()
	res.Notes = append([]string(nil), rs.notes...)
	rs.mu.Unlock()
	res.Budget = rs.budgetReport(ctx)
	res.ElapsedMS = e.cfg.Now().Sub(rs.start).Milliseconds()
	res.fillEmpty()

	if err := e.cfg.Ledger.FinishRun(ctx, rs.runID, ans.Status); err != nil {
		return nil, fmt.Errorf("executor: finish run %s: %w", rs.runID, err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	if _, err := e.cfg.Ledger.AppendEvent(ctx, rs.runID, ledger.Event{Kind: EventAnswer, Message: string(res.Status), Data: data}); err != nil {
		return nil, fmt.Errorf("executor: record the answer: %w", err)
	}
	rs.progress(ctx, Progress{Kind: "finished", Message: fmt.Sprintf("%s with %d citations in %d ms", res.Status, len(res.Citations), res.ElapsedMS)})
	return res, nil
}

// EventAnswer is the ledger event holding a finished run's result; running
// a finished run's id again returns it instead of running again.
const EventAnswer ledger.EventKind = "answer"

// recordedResult returns the result a finished run recorded.
func (e *Engine) recordedResult(ctx context.Context, runID string) (*Result, bool, error) {
	return RecordedResult(ctx, e.cfg.Ledger, runID)
}

// EventReader reads a run's event log: all RecordedResult needs of a
// ledger, so that a reader that may not write (an API serving results)
// can pass its own view of one. A ledger.Store is one.
type EventReader interface {
	// Events returns the run's event log in order; a run the reader
	// does not hold is ledger.ErrNotFound.
	Events(ctx context.Context, runID string) ([]ledger.Event, error)
}

// EventReaderFunc adapts a function to an EventReader.
type EventReaderFunc func(ctx context.Context, runID string) ([]ledger.Event, error)

// Events calls f.
func (f EventReaderFunc) Events(ctx context.Context, runID string) ([]ledger.Event, error) {
	return f(ctx, runID)
}

// RecordedResult returns the result a finished run recorded in the ledger
// (its EventAnswer event); ok is false while the run has none. A run of
// another tenant, or none, is ledger.ErrNotFound.
func RecordedResult(ctx context.Context, l EventReader, runID string) (res *Result, ok bool, err error) {
	events, err := l.Events(ctx, runID)
	if err != nil {
		return nil, false, err
	}
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Kind == EventAnswer {
			var res Result
			if err := json.Unmarshal(events[i].Data, &res); err != nil {
				return nil, false, fmt.Errorf("executor: run %s: the recorded answer cannot be read: %w", runID, err)
			}
			res.fillEmpty()
			return &res, true, nil
		}
	}
	return nil, false, nil
}

// fillEmpty gives the result's lists that JSON always shows their empty
// value, so a reader sees [] rather than null or nothing; a result recorded
// before a list existed reads back with it empty.
func (r *Result) fillEmpty() {
	if r.Citations == nil {
		r.Citations = []Citation{}
	}
	if r.Figures == nil {
		r.Figures = []Figure{}
	}
	if r.Requirements == nil {
		r.Requirements = []RequirementResult{}
	}
	if r.Gaps == nil {
		r.Gaps = []validator.Gap{}
	}
	if r.Contradictions == nil {
		r.Contradictions = []ledger.Contradiction{}
	}
	if r.NotCovered == nil {
		r.NotCovered = []string{}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
	if r.Budget.Limits == nil {
		r.Budget.Limits = map[string]*json.Number{}
	}
	if r.Budget.Used == nil {
		r.Budget.Used = map[string]json.Number{}
	}
}

// budgetReport lists the run's limits and its settled usage. Every budget
// dimension, "calls" and "wall_clock_ms" has a limit, null when unlimited.
func (rs *runState) budgetReport(ctx context.Context) BudgetReport {
	l := rs.req.Limits
	rep := BudgetReport{Limits: map[string]*json.Number{}, Used: map[string]json.Number{}}
	for _, d := range budget.Dimensions() {
		rep.Limits[string(d)] = nil
		if l != nil {
			if v, ok := l.Get(d); ok {
				rep.Limits[string(d)] = budgetNumber(v.String())
			}
		}
	}
	rep.Limits["wall_clock_ms"] = nil
	if l != nil && l.WallClock > 0 {
		rep.Limits["wall_clock_ms"] = budgetNumber(strconv.FormatInt(l.WallClock.Milliseconds(), 10))
	}
	rep.Limits["calls"] = nil
	if rs.req.MaxCalls > 0 {
		rep.Limits["calls"] = budgetNumber(strconv.Itoa(rs.req.MaxCalls))
	}
	if u, err := rs.e.cfg.Budget.Usage(ctx, rs.scopes[0]); err == nil {
		for _, d := range budget.Dimensions() {
			rep.Used[string(d)] = json.Number(u.Settled.Get(d).String())
		}
	}
	rs.mu.Lock()
	rep.Used["calls"] = json.Number(strconv.Itoa(rs.calls))
	rep.Exhausted = rs.exhausted
	rs.mu.Unlock()
	rep.Used["wall_clock_ms"] = json.Number(strconv.FormatInt(rs.e.cfg.Now().Sub(rs.start).Milliseconds(), 10))
	return rep
}

func budgetNumber(s string) *json.Number {
	n := json.Number(s)
	return &n
}

// describeNeed is a requirement's description in the ledger and results.
func describeNeed(r planner.Requirement) string {
	s := r.Need
	if !r.Required {
		s += " (optional)"
	}
	return s
}
