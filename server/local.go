package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
)

// LocalTenant is the one tenant of a local server (NewLocal): the tenant
// research ask and research mcp use when none is named, so the runs they
// record in the same data directory and the server's are one list.
const LocalTenant = budget.DefaultTenant

// DefaultLocalLimits are a local server's limits: a tenant's defaults
// (DefaultTenantLimits), but for the request rate, which is one person's
// browser's, and a page view makes several requests.
func DefaultLocalLimits() TenantLimits {
	l := DefaultTenantLimits()
	l.RequestsPerMinute = 600
	return l
}

// errLocalStopping refuses a run submitted while a local server stops.
var errLocalStopping = errors.New("server: the local server is stopping")

// local is what a local server runs over instead of Postgres: the
// embedded store and ledger of one tenant, with its limits kept in this
// process, and a runner that executes the runs here rather than queueing
// them for workers.
type local struct {
	t      *engine.Tenant // the local tenant's engine, corpus and ledger
	tenant Tenant
	now    func() time.Time
	log    *slog.Logger  // set by newServer
	retry  time.Duration // Retry-After of a refusal for too many runs at once; set by newServer
	rate   *slidingWindow

	slots    chan struct{}      // one per run executing
	runCtx   context.Context    // the runs' context: cancelled when stopping runs out of time
	cancel   context.CancelFunc // cancels runCtx
	quit     chan struct{}      // closed when stopping starts: runs waiting for a slot do not start
	quitOnce sync.Once
	runs     sync.WaitGroup // the runs' goroutines

	mu sync.Mutex
	// Guarded by mu; the day's counts start afresh each UTC day (and
	// with each process).
	stopping bool
	day      string                    // UTC date the counts are of
	dayRuns  int                       // runs admitted on day
	daySpend decimal.Decimal           // spend of the runs finished on day
	dayHeld  decimal.Decimal           // spend caps of day's model runs not finished
	active   int                       // runs admitted and not finished
	waiting  int                       // of them, those waiting for a slot
	admitted map[string]localAdmission // day's admissions, by idempotency key
}

// localAdmission is a run a local server admitted.
type localAdmission struct {
	runID    string
	mode     ledger.Mode // the mode it runs in (auto resolved)
	replayed bool        // its idempotency key was admitted before
}

// localRun is an admitted run as execute runs it.
type localRun struct {
	req  executor.Request
	day  string          // the UTC day it was admitted on
	hold decimal.Decimal // of the day's spend, what it holds until it finishes
}

func newLocal(engines *engine.Process, limits TenantLimits, runs int, now func() time.Time) (*local, error) {
	t, err := engines.Tenant(context.Background(), LocalTenant)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &local{
		t: t, now: now,
		tenant: Tenant{ID: LocalTenant, Name: LocalTenant, Limits: limits},
		rate:   &slidingWindow{limit: limits.RequestsPerMinute, window: rateWindow, now: now},
		slots:  make(chan struct{}, runs), runCtx: ctx, cancel: cancel, quit: make(chan struct{}),
		log: slog.New(slog.DiscardHandler), admitted: map[string]localAdmission{},
	}, nil
}

// localRequest hands every request the local tenant, without a key, under
// the tenant's request rate. An Authorization header is not needed and
// not read.
func (s *Server) localRequest(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info(r.Context()).tenant = s.local.tenant.ID
		if err := s.local.admitRequest(); err != nil {
			s.writeLimit(w, r, err)
			return
		}
		p := principal{tenant: s.local.tenant, keyHash: []byte(s.local.tenant.ID)}
		h(w, r.WithContext(context.WithValue(r.Context(), principalKey, p)))
	})
}

// admitRequest counts a request against the local tenant's rate, or
// refuses it.
func (l *local) admitRequest() *LimitError {
	if wait, ok := l.rate.add(); !ok {
		return &LimitError{Limit: "rate", RetryAfter: wait,
			Message: fmt.Sprintf("rate limit: this server takes %d requests a minute; retry after the Retry-After seconds", l.rate.limit)}
	}
	return nil
}

// localBearer lets MCP clients of a local server connect without a key:
// the MCP handler wants a Bearer token, and the server's key check
// (tenantOfKey) takes any.
func localBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+LocalTenant)
		}
		next.ServeHTTP(w, r)
	})
}

// createLocalRun admits a run under the local tenant's limits, records
// it and starts it in this process; it answers 202 with the run's id at
// once, as a server over Postgres does once the run is queued.
func (s *Server) createLocalRun(w http.ResponseWriter, r *http.Request, spec *runSpec) {
	a, err := s.local.submit(r.Context(), spec, s.cfg.ModelConfigured)
	var (
		le *LimitError
		re *executor.RequestError
	)
	switch {
	case errors.As(err, &le):
		s.writeLimit(w, r, le)
		return
	case errors.Is(err, errLocalStopping):
		s.writeError(w, r, http.StatusServiceUnavailable, "the server is shutting down and starts no more runs; start it again and resubmit")
		return
	case errors.As(err, &re):
		s.writeFieldError(w, r, badField(re.Field, "%s", safeMessage(re.Problem)))
		return
	case err != nil:
		s.internalError(w, r, "start a run", err)
		return
	}
	info(r.Context()).runID = a.runID
	if a.replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	} else {
		s.metrics.runsSubmitted.WithLabelValues(string(spec.mode)).Inc()
		s.log.Info("run queued", slog.String("request_id", info(r.Context()).id), slog.String("tenant", s.local.tenant.ID),
			slog.String("run_id", a.runID), slog.String("mode", string(spec.mode)))
	}
	s.acceptedRun(w, a.runID, a.mode)
}

// roll starts the counts of a new UTC day; the caller holds mu.
func (l *local) roll(now time.Time) {
	if day := now.Format(time.DateOnly); day != l.day {
		l.day, l.dayRuns, l.daySpend, l.dayHeld = day, 0, decimal.Zero, decimal.Zero
		clear(l.admitted)
	}
}

// submit admits a run under the tenant's daily runs, concurrent runs and
// daily spend, records it in the ledger (in the mode it will run in, as
// the queue does) and starts it. A model run holds its spend limit of the
// day's money until it finishes and its spend is known, so runs at once
// cannot spend more than the day has. An idempotency key admitted today
// returns that run. Submissions are admitted one at a time.
func (l *local) submit(ctx context.Context, spec *runSpec, modelConfigured bool) (localAdmission, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopping {
		return localAdmission{}, errLocalStopping
	}
	now := l.now().UTC()
	l.roll(now)
	if spec.idemKey != "" {
		if a, ok := l.admitted[spec.idemKey]; ok {
			a.replayed = true
			return a, nil
		}
	}
	lim := l.tenant.Limits
	left := decimal.Max(lim.DailySpendUSD.Sub(l.daySpend).Sub(l.dayHeld), decimal.Zero)
	switch {
	case l.dayRuns >= lim.DailyRuns:
		return localAdmission{}, &LimitError{Limit: "daily_runs", RetryAfter: nextUTCDay(now).Sub(now),
			Message: fmt.Sprintf("daily limit: this server starts %d runs a day (UTC) and has started %d; retry tomorrow", lim.DailyRuns, l.dayRuns)}
	case l.active >= lim.MaxConcurrentRuns:
		return localAdmission{}, &LimitError{Limit: "concurrent_runs", RetryAfter: l.retry,
			Message: fmt.Sprintf("concurrency limit: this server has %d runs queued or running at once; retry when one finishes", lim.MaxConcurrentRuns)}
	case spec.mode == ledger.ModeModel && !left.IsPositive():
		return localAdmission{}, &LimitError{Limit: "daily_spend", RetryAfter: nextUTCDay(now).Sub(now),
			Message: "daily spend limit: the model spend for the day (UTC) is used up; rules and baseline runs still work"}
	}

	docs, err := l.t.Store.Documents(ctx)
	if err != nil {
		return localAdmission{}, fmt.Errorf("list the corpus: %w", err)
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	mode, asked := spec.mode, spec.mode
	if mode == executor.ModeAuto {
		// Recorded in the mode auto chooses, as the queue records it: the
		// model only while the day has money left for it.
		withModel := modelConfigured && left.IsPositive()
		mode, _ = executor.AutoModeFor(planner.RouteQuestion(spec.question, planner.NewCatalog(docs), spec.tickers), withModel)
	}
	runID := executor.NewRunID(now)
	_, resumed, err := l.t.Ledger.OpenRun(ctx, ledger.Run{ID: runID, Question: spec.question, Mode: mode, CorpusSnapshot: ledger.CorpusSnapshot(ids)})
	if err != nil {
		var ve *ledger.ValidationError
		if errors.As(err, &ve) {
			return localAdmission{}, &executor.RequestError{Field: ve.Field, Problem: ve.Problem}
		}
		return localAdmission{}, fmt.Errorf("record run %s: %w", runID, err)
	}
	if resumed {
		return localAdmission{}, fmt.Errorf("run id %s was taken already", runID)
	}
	limits := executor.DefaultLimits()
	// A run spends no more than the day has left.
	limits.SpendUSD, limits.WallClock = decimal.Min(spec.limits.spend, left), spec.limits.wall
	req := executor.Request{
		RunID: runID, Question: spec.question, Tickers: spec.tickers, Mode: mode,
		Limits: &limits, MaxCalls: spec.limits.maxCalls,
	}
	if asked == executor.ModeAuto {
		// The engine resumes the run in the mode recorded, and names auto
		// as the mode asked for.
		req.Mode = executor.ModeAuto
	}
	run := localRun{req: req, day: l.day}
	if mode == ledger.ModeModel {
		run.hold = limits.SpendUSD
	}
	a := localAdmission{runID: runID, mode: mode}
	if spec.idemKey != "" {
		l.admitted[spec.idemKey] = a
	}
	l.dayRuns++
	l.dayHeld = l.dayHeld.Add(run.hold)
	l.active++
	l.waiting++
	l.runs.Add(1)
	go l.execute(run)
	return a, nil
}

// execute runs one admitted run when a slot is free, and then settles
// the day's spend: what the run reports, or, for a model run that
// reports nothing, all it held. A run that stops without its verdict
// (refused by the engine, failed, or cut short by the server stopping) is
// finished as failed, with an entry in its log that says why.
func (l *local) execute(run localRun) {
	defer l.runs.Done()
	req := run.req
	log := l.log.With(slog.String("run_id", req.RunID), slog.String("tenant", l.tenant.ID))
	spent := run.hold // unless the run reports its spend
	defer func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.roll(l.now().UTC())
		if run.day == l.day {
			l.dayHeld = l.dayHeld.Sub(run.hold)
		}
		l.daySpend = l.daySpend.Add(spent)
		l.active--
	}()
	select {
	case l.slots <- struct{}{}:
		defer func() { <-l.slots }()
	case <-l.quit:
	}
	l.mu.Lock()
	l.waiting--
	stopping := l.stopping // set before quit is closed
	l.mu.Unlock()
	if stopping {
		log.Warn("run not started: the server is stopping")
		l.abandon(req.RunID, "the server stopped before the run started; ask again to run it", log)
		spent = decimal.Zero
		return
	}

	started := time.Now()
	log.Info("run started", slog.String("mode", string(req.Mode)))
	res, err := l.t.Engine.Run(l.runCtx, req)
	if err == nil {
		spent = res.Budget.UsedAmount("spend_usd")
		log.Info("run finished", slog.String("status", string(res.Status)), slog.Int("citations", len(res.Citations)),
			slog.String("spend_usd", res.Budget.Used["spend_usd"].String()), slog.Int64("elapsed_ms", time.Since(started).Milliseconds()))
		return
	}
	var re *executor.RequestError
	switch {
	case errors.As(err, &re):
		spent = decimal.Zero // refused before any call
		log.Error("run refused", slog.String("error", err.Error()))
		l.abandon(req.RunID, "run refused: "+err.Error(), log)
	case l.runCtx.Err() != nil:
		log.Warn("run stopped: the server is stopping", slog.String("error", err.Error()))
		l.abandon(req.RunID, "the server stopped before the run finished; its ledger records where", log)
	default:
		log.Error("run failed", slog.String("error", err.Error()))
		l.abandon(req.RunID, "the run stopped on an error: "+err.Error(), log)
	}
}

// abandon finishes a run that has no verdict as failed, saying why in its
// log; a run with its verdict is left as it is.
func (l *local) abandon(runID, why string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	run, err := l.t.Ledger.Run(ctx, runID)
	if err == nil && run.Status.Terminal() {
		return
	}
	if err == nil {
		_, err = l.t.Ledger.AppendEvent(ctx, runID, ledger.Event{Kind: ledger.EventDecision, Message: why})
	}
	if err == nil {
		err = l.t.Ledger.FinishRun(ctx, runID, ledger.StatusFailed)
	}
	if err != nil {
		log.Error("could not record that the run stopped", slog.String("error", err.Error()))
	}
}

// stop starts no more runs and waits for those running until ctx ends;
// then it cancels them and waits for them to record where they stopped.
// Runs still waiting for a slot do not start. Stopping again waits again.
func (l *local) stop(ctx context.Context) {
	l.mu.Lock()
	l.stopping = true
	l.mu.Unlock()
	l.quitOnce.Do(func() { close(l.quit) })
	done := make(chan struct{})
	go func() {
		l.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		l.cancel()
		<-done
	}
	l.cancel()
}

// queued is the number of runs waiting for a slot, the local queue's
// depth.
func (l *local) queued() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting
}

// marks reads the local tenant's runs' marks from the embedded ledger; a
// run that is not there has none.
func (l *local) marks(ctx context.Context, tenants, runs []string) (map[runKey]runMark, error) {
	out := map[runKey]runMark{}
	for i, id := range runs {
		if tenants[i] != l.tenant.ID {
			continue
		}
		run, err := l.t.Ledger.Run(ctx, id)
		if errors.Is(err, ledger.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		events, err := l.t.Ledger.Events(ctx, id)
		if err != nil {
			return nil, err
		}
		m := runMark{status: string(run.Status)}
		if n := len(events); n > 0 {
			m.lastSeq = events[n-1].Seq
		}
		out[runKey{tenants[i], id}] = m
	}
	return out, nil
}
