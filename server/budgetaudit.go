package server

import (
	"errors"
	"net/http"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/executor"
)

// GET /v1/runs/{id}/budget is the run's budget audit, as `research ledger
// budget` prints it: for each budget scope the run reserved against (the
// run's own and its tenant's day) the limit, what open reservations hold,
// what settled calls used, what releases returned and what remains, per
// dimension. A server over Postgres reads it from the budget tables. A
// local server's budget is kept in memory by the engine and not reachable
// here, so it answers the run's limits and settled use from its recorded
// result, and says so (Source "run_result").

// Where a budget audit was read from.
const (
	auditFromStore  = "budget_store"
	auditFromResult = "run_result"
)

// budgetAudit is the answer of GET /v1/runs/{id}/budget.
type budgetAudit struct {
	RunID  string `json:"run_id"`
	Source string `json:"source"`
	// Note says what the audit leaves out, in a sentence; empty when
	// nothing.
	Note   string        `json:"note,omitempty"`
	Scopes []budgetScope `json:"scopes"`
}

// budgetScope is one scope's audit. Amounts are exact decimal strings; a
// nil Limit or Remaining is unlimited, and a nil Reserved or Released is
// not known (a local server's audit).
type budgetScope struct {
	Kind         string            `json:"kind"` // "run" or "tenant_day"
	ID           string            `json:"id"`
	Dimensions   []budgetDimension `json:"dimensions"`
	Reservations map[string]int64  `json:"reservations,omitempty"`
	Rejected     int64             `json:"rejected_settlements"`
	WallClockMS  *int64            `json:"wall_clock_ms"` // the scope's time limit; nil means none
	Exhausted    string            `json:"exhausted,omitempty"`
}

// budgetDimension is one dimension of a scope's audit.
type budgetDimension struct {
	Dimension string  `json:"dimension"`
	Limit     *string `json:"limit"`
	Reserved  *string `json:"reserved"`
	Settled   string  `json:"settled"`
	Released  *string `json:"released"`
	Remaining *string `json:"remaining"`
}

func strPtr(s string) *string { return &s }

// scopeAudit is the audit of a scope's usage.
func scopeAudit(u budget.Usage) budgetScope {
	sc := budgetScope{Kind: string(u.Scope.Kind), ID: u.Scope.ID, Rejected: u.Rejected, Reservations: map[string]int64{}}
	for _, st := range []budget.State{budget.StateReserved, budget.StateSettled, budget.StateReleased, budget.StateExpired} {
		sc.Reservations[string(st)] = u.Reservations[st]
	}
	if u.Limits.WallClock > 0 {
		ms := u.Limits.WallClock.Milliseconds()
		sc.WallClockMS = &ms
	}
	for _, d := range budget.Dimensions() {
		row := budgetDimension{
			Dimension: string(d),
			Reserved:  strPtr(u.Reserved.Get(d).String()),
			Settled:   u.Settled.Get(d).String(),
			Released:  strPtr(u.Released.Get(d).String()),
		}
		if l, ok := u.Limits.Get(d); ok {
			row.Limit = strPtr(l.String())
		}
		if r, ok := u.Remaining(d); ok {
			row.Remaining = strPtr(r.String())
		}
		sc.Dimensions = append(sc.Dimensions, row)
	}
	return sc
}

// runBudget answers the budget audit of the tenant's run.
func (s *Server) runBudget(w http.ResponseWriter, r *http.Request) {
	led, run, ok := s.requestedRun(w, r)
	if !ok {
		return
	}
	info(r.Context()).runID = run.ID
	audit := budgetAudit{RunID: run.ID, Scopes: []budgetScope{}}
	if s.local != nil {
		audit.Source = auditFromResult
		res, ok, err := executor.RecordedResult(r.Context(), led, run.ID)
		if err != nil {
			s.internalError(w, r, "read a run's result", err)
			return
		}
		if !ok {
			audit.Note = "this server keeps its budgets in memory: the audit shows the run's limits and what it used once the run has its result"
			writeJSON(w, http.StatusOK, audit)
			return
		}
		audit.Note = "this server keeps its budgets in memory: these are the run's limits and what its settled calls used, from its result; reservations and releases are audited by a server over Postgres"
		audit.Scopes = append(audit.Scopes, resultAudit(run.ID, res.Budget))
		writeJSON(w, http.StatusOK, audit)
		return
	}
	audit.Source = auditFromStore
	acct, err := s.budgetsOf(principalOf(r.Context()).tenant.ID)
	if err != nil {
		s.internalError(w, r, "open the budgets", err)
		return
	}
	// The run reserves against its own scope and the tenant's day it
	// started on; a queued run has neither yet.
	var missing []string
	for _, scope := range []budget.Scope{budget.RunScope(run.ID), budget.DayScope(run.Created)} {
		u, err := acct.Usage(r.Context(), scope)
		if errors.Is(err, budget.ErrNoBudget) {
			missing = append(missing, scope.String())
			continue
		}
		if err != nil {
			s.internalError(w, r, "read a budget", err)
			return
		}
		audit.Scopes = append(audit.Scopes, scopeAudit(u))
	}
	// What the budget store does not count, all calls and the time
	// taken, the run's result reports.
	if len(audit.Scopes) > 0 && audit.Scopes[0].Kind == string(budget.KindRun) {
		res, ok, err := executor.RecordedResult(r.Context(), led, run.ID)
		if err != nil {
			s.internalError(w, r, "read a run's result", err)
			return
		}
		if ok {
			audit.Scopes[0].Dimensions = append(audit.Scopes[0].Dimensions, runRows(res.Budget)...)
			audit.Scopes[0].Exhausted = res.Budget.Exhausted
		}
	}
	switch len(missing) {
	case 0:
	case 2:
		audit.Note = "no budget is recorded for this run yet: a run's budget is set when a worker starts it"
	default:
		audit.Note = "no budget is recorded for " + missing[0]
	}
	writeJSON(w, http.StatusOK, audit)
}

// resultAudit is the run scope's audit as the run's result reports it:
// limits and settled use; reservations and releases are not known.
func resultAudit(runID string, b executor.BudgetReport) budgetScope {
	sc := budgetScope{Kind: string(budget.KindRun), ID: runID, Exhausted: b.Exhausted}
	if n := b.Limits["wall_clock_ms"]; n != nil {
		if ms, err := n.Int64(); err == nil {
			sc.WallClockMS = &ms
		}
	}
	for _, d := range budget.Dimensions() {
		row := budgetDimension{Dimension: string(d), Settled: b.UsedAmount(string(d)).String()}
		if l, ok := b.Limit(string(d)); ok {
			row.Limit = strPtr(l.String())
			row.Remaining = strPtr(decimal.Max(l.Sub(b.UsedAmount(string(d))), decimal.Zero).String())
		}
		sc.Dimensions = append(sc.Dimensions, row)
	}
	sc.Dimensions = append(sc.Dimensions, runRows(b)...)
	return sc
}

// runRows are the dimensions a run's result reports beyond the budget
// store's: all its calls, and the wall-clock time it took (milliseconds).
func runRows(b executor.BudgetReport) []budgetDimension {
	var rows []budgetDimension
	for _, d := range []string{"calls", "wall_clock_ms"} {
		if _, ok := b.Used[d]; !ok {
			continue
		}
		used := b.UsedAmount(d)
		row := budgetDimension{Dimension: d, Settled: used.String()}
		if l, ok := b.Limit(d); ok {
			row.Limit = strPtr(l.String())
			row.Remaining = strPtr(decimal.Max(l.Sub(used), decimal.Zero).String())
		}
		rows = append(rows, row)
	}
	return rows
}
