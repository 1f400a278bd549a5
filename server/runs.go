package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/ledger"
)

// RunStatusQueued is the status of a run queued and not yet opened by a
// worker; the ledger says running from its submission on.
const RunStatusQueued = "queued"

// runLinks are where a run's resources are.
type runLinks struct {
	Self   string `json:"self"`
	Events string `json:"events"`
	Ledger string `json:"ledger"`
}

func linksOf(id string) runLinks {
	base := "/v1/runs/" + id
	return runLinks{Self: base, Events: base + "/events", Ledger: base + "/ledger"}
}

// runView is a run that has no result yet (queued, running, or failed
// without an answer).
type runView struct {
	RunID    string      `json:"run_id"`
	Status   string      `json:"status"`
	Mode     ledger.Mode `json:"mode"`
	Question string      `json:"question,omitempty"`
	Created  time.Time   `json:"created"`
	Finished *time.Time  `json:"finished,omitempty"`
	Message  string      `json:"message,omitempty"`
	Links    runLinks    `json:"links"`
}

// createRun admits a run under the tenant's limits and queues it; the
// worker runs it. It answers 202 with the run's id at once.
func (s *Server) createRun(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r.Context())
	var req runRequest
	if fe := decodeJSON(w, r, s.cfg.MaxBodyBytes, &req, runFields); fe != nil {
		s.writeFieldError(w, r, fe)
		return
	}
	spec, fe := validateRun(&req, r.Header.Get("Idempotency-Key"), p.tenant.Limits)
	if fe != nil {
		s.writeFieldError(w, r, fe)
		return
	}
	if spec.mode == ledger.ModeModel && !s.cfg.ModelConfigured {
		s.writeError(w, r, http.StatusServiceUnavailable,
			"model mode is not available: this server has no model configured (its operator sets OPENAI_BASE_URL and RESEARCH_MODEL); use mode rules or baseline")
		return
	}
	if s.local != nil {
		s.createLocalRun(w, r, spec)
		return
	}
	withModel, err := s.autoWithModel(r.Context(), p, spec.mode)
	if err != nil {
		s.internalError(w, r, "check the daily spend", err)
		return
	}
	adm, err := s.admit(r.Context(), p, string(spec.mode), spec.idemKey)
	var le *LimitError
	switch {
	case errors.As(err, &le):
		s.writeLimit(w, r, le)
		return
	case err != nil:
		s.internalError(w, r, "admit a run", err)
		return
	}
	if adm.runID != "" {
		// The run the key names, as it was admitted: nothing of this
		// request's body, which may differ, is echoed.
		info(r.Context()).runID = adm.runID
		w.Header().Set("Idempotent-Replayed", "true")
		s.acceptedRun(w, adm.runID, s.queuedMode(r.Context(), p.tenant.ID, adm.runID, ledger.Mode(adm.mode)))
		return
	}

	// The queueing and its record finish even if the client goes away, so
	// a queued run is never left without its admission (or the reverse).
	// A pending admission of the key is completed: the queue returns the
	// run it queued for the key, if it did, and queues nothing twice.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 30*time.Second)
	defer cancel()
	limits := executor.DefaultLimits()
	limits.SpendUSD, limits.WallClock = spec.limits.spend, spec.limits.wall
	runID, err := s.cfg.Submit(ctx, s.pool, p.tenant.ID, jobs.Submission{
		Question: spec.question, Tickers: spec.tickers, Mode: string(spec.mode),
		Limits: &limits, MaxCalls: spec.limits.maxCalls, IdempotencyKey: spec.idemKey,
		ModelConfigured: withModel,
	})
	if err != nil && !adm.pending {
		if derr := s.dropAdmission(ctx, p.tenant.ID, adm.id); derr != nil {
			s.log.Error("give back an admission", slog.String("request_id", info(r.Context()).id), slog.String("tenant", p.tenant.ID), slog.String("error", derr.Error()))
		}
	}
	if err != nil {
		// The queue checks a submission as the engine will; what it
		// refuses is the client's to fix, in words the engine chose.
		var re *executor.RequestError
		if errors.As(err, &re) {
			s.writeFieldError(w, r, badField(re.Field, "%s", safeMessage(re.Problem)))
			return
		}
		s.internalError(w, r, "queue a run", err)
		return
	}
	info(r.Context()).runID = runID
	if err := s.recordAdmission(ctx, p.tenant.ID, adm, runID); err != nil {
		// The run is queued; only its slot's bookkeeping is behind, and it
		// lapses after a day. Say so in the log, not to the client.
		s.log.Error("record an admission's run", slog.String("request_id", info(r.Context()).id), slog.String("tenant", p.tenant.ID),
			slog.String("run_id", runID), slog.String("error", err.Error()))
	}
	s.metrics.runsSubmitted.WithLabelValues(string(spec.mode)).Inc()
	attrs := []any{slog.String("request_id", info(r.Context()).id), slog.String("tenant", p.tenant.ID),
		slog.String("run_id", runID), slog.String("mode", string(spec.mode))}
	if spec.mode == executor.ModeAuto {
		// Whether auto mode could choose the model (not when the tenant's
		// day has no money left for it).
		attrs = append(attrs, slog.Bool("auto_with_model", withModel))
	}
	s.log.Info("run queued", attrs...)
	s.acceptedRun(w, runID, s.queuedMode(ctx, p.tenant.ID, runID, spec.mode))
}

// queuedMode is the mode a queued run will run in: the mode asked for,
// or, for auto, the one the queue chose for it (recorded with the run);
// the mode asked for when the record cannot be read.
func (s *Server) queuedMode(ctx context.Context, tenant, runID string, asked ledger.Mode) ledger.Mode {
	if asked != executor.ModeAuto {
		return asked
	}
	led, err := s.ledgerOf(tenant)
	if err == nil {
		var run ledger.Run
		if run, err = led.Run(ctx, runID); err == nil && run.Mode != "" {
			return run.Mode
		}
	}
	if err != nil {
		// The run is queued either way; only its reply says less.
		s.log.Warn("read a queued run's mode", slog.String("tenant", tenant), slog.String("run_id", runID), slog.String("error", err.Error()))
	}
	return asked
}

// autoWithModel says whether auto mode may resolve to model mode for the
// tenant's run: the workers have a model and the tenant's day has money
// left for it. A tenant whose daily spend is used up gets the offline
// paths, as rules and baseline runs still work for it.
func (s *Server) autoWithModel(ctx context.Context, p principal, mode ledger.Mode) (bool, error) {
	if mode != executor.ModeAuto || !s.cfg.ModelConfigured {
		return s.cfg.ModelConfigured, nil
	}
	err := s.checkDailySpend(ctx, p.tenant.ID, p.tenant.Limits.DailySpendUSD, s.now().UTC())
	var le *LimitError
	if errors.As(err, &le) {
		return false, nil
	}
	return err == nil, err
}

func (s *Server) acceptedRun(w http.ResponseWriter, runID string, mode ledger.Mode) {
	w.Header().Set("Location", "/v1/runs/"+runID)
	writeJSON(w, http.StatusAccepted, struct {
		RunID  string      `json:"run_id"`
		Status string      `json:"status"`
		Mode   ledger.Mode `json:"mode"` // for auto, the mode it chose, as the run's result says
		Links  runLinks    `json:"links"`
	}{runID, RunStatusQueued, mode, linksOf(runID)})
}

// errNoRun is a run the tenant does not hold: it does not exist or it is
// another tenant's, which the API does not tell apart.
var errNoRun = errors.New("server: no such run")

// lookupRun returns the tenant's run from its ledger: jobs.Submit (or a
// local server's submit) records the run when it queues it.
func (s *Server) lookupRun(ctx context.Context, led runReader, id string) (ledger.Run, error) {
	if !ledger.ValidName(id) {
		return ledger.Run{}, errNoRun
	}
	run, err := led.Run(ctx, id)
	if errors.Is(err, ledger.ErrNotFound) {
		return ledger.Run{}, errNoRun
	}
	return run, err
}

// requestedRun resolves the run a request's path names, within the key's
// tenant. When it cannot (another tenant's run or none: 404; a store
// error: 500) it has answered the request and ok is false.
func (s *Server) requestedRun(w http.ResponseWriter, r *http.Request) (led runReader, run ledger.Run, ok bool) {
	id := r.PathValue("id")
	led, err := s.ledgerOf(principalOf(r.Context()).tenant.ID)
	if err != nil {
		s.internalError(w, r, "open the ledger", err)
		return nil, ledger.Run{}, false
	}
	run, err = s.lookupRun(r.Context(), led, id)
	if errors.Is(err, errNoRun) {
		s.writeNoRun(w, r, id)
		return nil, ledger.Run{}, false
	}
	if err != nil {
		s.internalError(w, r, "look up a run", err)
		return nil, ledger.Run{}, false
	}
	return led, run, true
}

// queued reports whether no worker has opened the run yet: its log holds
// only the entry its submission made.
func queued(events []ledger.Event) bool {
	for _, ev := range events {
		if ev.Kind != ledger.EventRunCreated {
			return false
		}
	}
	return true
}

func (s *Server) writeNoRun(w http.ResponseWriter, r *http.Request, id string) {
	s.writeError(w, r, http.StatusNotFound, "no run %q", truncate(id, 128))
}

// getRun answers a run's status and, once it has its verdict, the same
// JSON as `research ask --format json`.
func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	led, run, ok := s.requestedRun(w, r)
	if !ok {
		return
	}
	id := run.ID
	info(r.Context()).runID = id
	view := runView{RunID: id, Status: string(ledger.StatusRunning), Mode: run.Mode, Question: run.Question, Created: run.Created, Links: linksOf(id)}
	if !run.Status.Terminal() {
		events, err := led.Events(r.Context(), id)
		if err != nil {
			s.internalError(w, r, "read a run's events", err)
			return
		}
		if queued(events) {
			view.Status = RunStatusQueued
		}
		writeJSON(w, http.StatusOK, view)
		return
	}
	res, ok, err := executor.RecordedResult(r.Context(), led, id)
	if err != nil {
		s.internalError(w, r, "read a run's result", err)
		return
	}
	if ok {
		writeJSON(w, http.StatusOK, res)
		return
	}
	if run.Status == ledger.StatusFailed {
		f := run.Finished
		view.Status, view.Finished = string(ledger.StatusFailed), &f
		view.Message = "the run stopped on an error before it could answer; its ledger records where"
	}
	// Any other verdict is recorded a moment before its answer: the run is
	// still finishing.
	writeJSON(w, http.StatusOK, view)
}

// runLedger answers the run's ledger export, the JSON of `research ledger
// show --format json`.
func (s *Server) runLedger(w http.ResponseWriter, r *http.Request) {
	led, run, ok := s.requestedRun(w, r)
	if !ok {
		return
	}
	id := run.ID
	info(r.Context()).runID = id
	rep, err := ledger.Export(r.Context(), led, id)
	if errors.Is(err, ledger.ErrNotFound) {
		s.writeNoRun(w, r, id)
		return
	}
	if err != nil {
		s.internalError(w, r, "export a ledger", err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}
