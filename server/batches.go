package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/ledger"
)

// Batches from the API (and the web app's JSONL upload):
//
//	POST /v1/batches?source=NAME   body: JSONL, one question a line, as research batch submit reads
//	GET  /v1/batches/{id}          the batch's progress, line by line
//
// An upload is queued whole or not at all: a line that is not valid is
// refused with its number and nothing is queued, so the client fixes the
// file and sends it again. Each line is held to the tenant's limits of
// one run (spend, calls, time), and the batch counts against the runs of
// the tenant's day like as many POST /v1/runs; it is not refused for the
// tenant's concurrent runs, as its runs wait in the queue for the workers
// (and hold the tenant's concurrent slots while they wait). A local
// server (NewLocal) takes no batches: they need the job queue in
// Postgres.

// maxBatchBody bounds a batch upload.
const maxBatchBody = 1 << 20

// maxBatchErrors bounds the refused lines a 400 lists.
const maxBatchErrors = 20

// batchLineError is a refused line of an upload.
type batchLineError struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// batchRefusal is the 400 of an upload with lines that are not valid.
type batchRefusal struct {
	Error     string           `json:"error"`
	Lines     []batchLineError `json:"lines"`
	RequestID string           `json:"request_id"`
}

// batchItemView is one line of a batch as GET /v1/batches/{id} and POST
// /v1/batches answer it.
type batchItemView struct {
	Line     int    `json:"line"`
	RunID    string `json:"run_id"`
	Question string `json:"question,omitempty"`
	Status   string `json:"status"` // queued, running or the run's verdict
	Reused   bool   `json:"reused,omitempty"`
	SpendUSD string `json:"spend_usd,omitempty"`
}

// batchView is a batch and its progress.
type batchView struct {
	BatchID  string          `json:"batch_id"`
	Source   string          `json:"source"`
	Created  *time.Time      `json:"created,omitempty"`
	Lines    int             `json:"lines"`
	Runs     int             `json:"runs"`
	Done     int             `json:"done"`
	Statuses map[string]int  `json:"statuses,omitempty"`
	SpendUSD string          `json:"spend_usd,omitempty"`
	Items    []batchItemView `json:"items"`
}

// errLocalBatches is what a local server answers to a batch.
const errLocalBatches = "batches need the job queue in Postgres: this server runs without --db, on the embedded store; " +
	"ask the questions one at a time on the Ask page, or start research serve --db URL with research worker to submit a batch"

// createBatch queues an uploaded JSONL batch.
func (s *Server) createBatch(w http.ResponseWriter, r *http.Request) {
	if s.local != nil {
		s.writeError(w, r, http.StatusNotImplemented, "%s", errLocalBatches)
		return
	}
	p := principalOf(r.Context())
	source := strings.TrimSpace(r.URL.Query().Get("source"))
	if source == "" {
		source = "upload.jsonl"
	}
	if fe := checkText("source", source); fe != nil || len(source) > 200 {
		s.writeFieldError(w, r, badField("source", "want a file name of at most 200 characters"))
		return
	}
	lines, bad, err := jobs.ParseBatch(http.MaxBytesReader(w, r.Body, maxBatchBody))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		s.writeFieldError(w, r, badField("", "the upload is larger than %d KiB; split it into smaller batches", maxBatchBody>>10))
		return
	case err != nil:
		s.writeFieldError(w, r, badField("", "the upload could not be read; send it again"))
		return
	}
	for _, l := range lines {
		if le := s.checkBatchLine(p.tenant.Limits, &l); le != nil {
			bad = append(bad, le)
		}
	}
	if len(bad) > 0 {
		s.refuseBatch(w, r, bad)
		return
	}
	if len(lines) == 0 {
		s.writeFieldError(w, r, badField("", "the upload holds no question: send one JSON object a line, such as {\"question\": \"What drove gross margin in fiscal 2024?\"}"))
		return
	}
	if len(lines) > p.tenant.Limits.DailyRuns {
		s.writeFieldError(w, r, badField("", "%d questions; this tenant may start %d runs a day", len(lines), p.tenant.Limits.DailyRuns))
		return
	}
	for i := range lines {
		lines[i].ModelConfigured = s.cfg.ModelConfigured
	}
	day := s.now().UTC().Format(time.DateOnly)
	ids, err := s.admitBatch(r.Context(), p, day, lines)
	var le *LimitError
	switch {
	case errors.As(err, &le):
		s.writeLimit(w, r, le)
		return
	case err != nil:
		s.internalError(w, r, "admit a batch", err)
		return
	}
	// The queueing and its record finish even if the client goes away.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 30*time.Second)
	defer cancel()
	b, err := jobs.SubmitBatch(ctx, s.pool, p.tenant.ID, source, lines, 0)
	if err != nil {
		s.dropAdmissions(ctx, r, p.tenant.ID, ids)
		var (
			lerr *jobs.LineError
			re   *executor.RequestError
		)
		if errors.As(err, &lerr) {
			msg := lerr.Err.Error()
			if errors.As(err, &re) {
				msg = re.Field + ": " + safeMessage(re.Problem)
			}
			s.refuseBatch(w, r, []*jobs.LineError{{Line: lerr.Line, Err: errors.New(msg)}})
			return
		}
		s.internalError(w, r, "queue a batch", err)
		return
	}
	view := batchView{BatchID: b.ID, Source: source, Lines: b.Lines, Runs: len(b.Items), Items: make([]batchItemView, 0, len(b.Items))}
	for i, it := range b.Items {
		if it.Reused {
			// Its run was admitted when it was first submitted.
			s.dropAdmissions(ctx, r, p.tenant.ID, ids[i:i+1])
		} else if err := s.recordAdmission(ctx, p.tenant.ID, admission{id: ids[i], day: day, mode: cmp.Or(lines[i].Mode, string(executor.ModeAuto))}, it.RunID); err != nil {
			s.log.Error("record an admission's run", slog.String("request_id", info(r.Context()).id), slog.String("tenant", p.tenant.ID),
				slog.String("run_id", it.RunID), slog.String("error", err.Error()))
		}
		view.Items = append(view.Items, batchItemView{Line: it.Line, RunID: it.RunID, Question: lines[i].Question, Status: jobs.StatusQueued, Reused: it.Reused})
	}
	for i, it := range b.Items {
		if !it.Reused {
			s.metrics.runsSubmitted.WithLabelValues(cmp.Or(lines[i].Mode, string(executor.ModeAuto))).Inc()
		}
	}
	s.log.Info("batch queued", slog.String("request_id", info(r.Context()).id), slog.String("tenant", p.tenant.ID),
		slog.String("batch_id", b.ID), slog.Int("runs", len(b.Items)))
	w.Header().Set("Location", "/v1/batches/"+b.ID)
	writeJSON(w, http.StatusAccepted, view)
}

// checkBatchLine holds a line to the tenant's limits of one run, filling
// in the limits the line leaves out as POST /v1/runs does.
func (s *Server) checkBatchLine(l TenantLimits, line *jobs.BatchLine) *jobs.LineError {
	def := executor.DefaultLimits()
	limits := def
	if line.Limits != nil {
		limits = *line.Limits
		if limits.SpendUSD.GreaterThan(l.MaxRunSpendUSD) {
			return &jobs.LineError{Line: line.Line, Err: fmt.Errorf("budget_usd %s is above this tenant's most for one run, %s", limits.SpendUSD, l.MaxRunSpendUSD)}
		}
	} else {
		limits.SpendUSD = decimal.Min(def.SpendUSD, l.MaxRunSpendUSD)
	}
	limits.WallClock = min(def.WallClock, l.MaxRunDuration)
	line.Limits = &limits
	switch {
	case line.MaxCalls > l.MaxRunCalls:
		return &jobs.LineError{Line: line.Line, Err: fmt.Errorf("max_calls %d is above this tenant's most for one run, %d", line.MaxCalls, l.MaxRunCalls)}
	case line.MaxCalls == 0:
		line.MaxCalls = l.MaxRunCalls
	}
	if line.Mode == string(ledger.ModeModel) && !s.cfg.ModelConfigured {
		return &jobs.LineError{Line: line.Line, Err: errors.New("mode model: this server has no model configured; use rules, baseline or auto")}
	}
	return nil
}

// refuseBatch answers 400 naming the lines that are not valid.
func (s *Server) refuseBatch(w http.ResponseWriter, r *http.Request, bad []*jobs.LineError) {
	out := batchRefusal{RequestID: info(r.Context()).id}
	for i, e := range bad {
		if i == maxBatchErrors {
			break
		}
		out.Lines = append(out.Lines, batchLineError{Line: e.Line, Error: safeMessage(e.Err.Error())})
	}
	first := out.Lines[0]
	out.Error = fmt.Sprintf("line %d: %s", first.Line, first.Error)
	if n := len(bad); n > 1 {
		out.Error = fmt.Sprintf("%d lines are not valid, first line %d: %s", n, first.Line, first.Error)
	}
	out.Error += "; nothing was queued: fix the file and upload it again"
	writeJSON(w, http.StatusBadRequest, out)
}

// countDaySQL counts the tenant's runs of the day, under its row lock.
const countDaySQL = `SELECT count(*) FROM run_admissions WHERE tenant_id = $1 AND day = $2`

// insertPendingAdmissionSQL records an admission whose run is being queued.
const insertPendingAdmissionSQL = `INSERT INTO run_admissions (tenant_id, id, day, mode) VALUES ($1, $2, $3, $4)`

// admitBatch admits a batch's lines under the runs of the tenant's day,
// all or none, and returns their admissions' ids, in order. A model
// line is admitted only while the day has money left, as a run is.
func (s *Server) admitBatch(ctx context.Context, p principal, day string, lines []jobs.BatchLine) ([]string, error) {
	now := s.now().UTC()
	for _, l := range lines {
		if l.Mode == string(ledger.ModeModel) {
			if err := s.checkDailySpend(ctx, p.tenant.ID, p.tenant.Limits.DailySpendUSD, now); err != nil {
				return nil, err
			}
			break
		}
	}
	prefix := jobs.NewBatchID(now)
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = fmt.Sprintf("%s-L%d", prefix, l.Line)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var daily, concurrent, today int
		if err := tx.QueryRow(ctx, lockTenantSQL, p.tenant.ID).Scan(&daily, &concurrent); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, reclaimAdmissionsSQL, p.tenant.ID, PendingAdmissionTTL.Seconds()); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, countDaySQL, p.tenant.ID, day).Scan(&today); err != nil {
			return err
		}
		if today+len(lines) > daily {
			return &LimitError{
				Limit:      "daily_runs",
				RetryAfter: nextUTCDay(now).Sub(now),
				Message: fmt.Sprintf("daily limit: this tenant may start %d runs a day (UTC) and has started %d; a batch of %d questions would pass it: upload at most %d, or retry tomorrow",
					daily, today, len(lines), max(0, daily-today)),
			}
		}
		for i, l := range lines {
			if _, err := tx.Exec(ctx, insertPendingAdmissionSQL, p.tenant.ID, ids[i], day, cmp.Or(l.Mode, string(executor.ModeAuto))); err != nil {
				return err
			}
		}
		return nil
	})
	return ids, err
}

// dropAdmissions gives back admissions whose runs were not queued.
func (s *Server) dropAdmissions(ctx context.Context, r *http.Request, tenant string, ids []string) {
	for _, id := range ids {
		if err := s.dropAdmission(ctx, tenant, id); err != nil {
			s.log.Error("give back an admission", slog.String("request_id", info(r.Context()).id), slog.String("tenant", tenant), slog.String("error", err.Error()))
			return
		}
	}
}

// getBatch answers the tenant's batch with each line's progress.
func (s *Server) getBatch(w http.ResponseWriter, r *http.Request) {
	if s.local != nil {
		s.writeError(w, r, http.StatusNotImplemented, "%s", errLocalBatches)
		return
	}
	p := principalOf(r.Context())
	id := r.PathValue("id")
	st, err := jobs.GetBatchStatus(r.Context(), s.pool, p.tenant.ID, id)
	if errors.Is(err, jobs.ErrNotFound) {
		s.writeError(w, r, http.StatusNotFound, "no batch %q", truncate(id, 128))
		return
	}
	if err != nil {
		s.internalError(w, r, "read a batch", err)
		return
	}
	res, err := jobs.BatchResults(r.Context(), s.pool, p.tenant.ID, id)
	if err != nil {
		s.internalError(w, r, "read a batch's runs", err)
		return
	}
	created := st.Created
	view := batchView{BatchID: st.ID, Source: st.Source, Created: &created, Lines: st.Lines, Runs: st.Runs, Done: st.Done,
		Statuses: st.Statuses, SpendUSD: st.SpendUSD.String(), Items: make([]batchItemView, 0, len(res))}
	for _, it := range res {
		v := batchItemView{Line: it.Line, RunID: it.RunID, Question: it.Question, Status: it.Status}
		if it.Result != nil {
			v.SpendUSD = it.Result.Budget.UsedAmount("spend_usd").String()
		}
		view.Items = append(view.Items, v)
	}
	writeJSON(w, http.StatusOK, view)
}
