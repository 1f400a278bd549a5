package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// WorkerOptions configure a Worker. The zero value is valid.
type WorkerOptions struct {
	// Concurrency is how many runs the worker executes at once; 0 means
	// DefaultConcurrency.
	Concurrency int
	// Logger receives the worker's structured logs; every line
	// about a run carries run_id and tenant. nil discards them.
	Logger *slog.Logger
	// JobTimeout bounds one attempt at a run, past the run's own wall-clock
	// budget (which ends it with a verdict first); 0 means
	// DefaultJobTimeout.
	JobTimeout time.Duration
	// RescueAfter is how long a job may stay running before it is taken
	// for orphaned (its worker died) and handed to another worker, where
	// it resumes. It must exceed JobTimeout; 0 means JobTimeout plus a
	// minute. The rescue runs on the worker River elects leader, every 30
	// seconds and when one is elected.
	RescueAfter time.Duration
	// PollInterval is how often the worker looks for jobs when no
	// notification of new ones arrives; 0 means a second, and it may not
	// be shorter than 100ms.
	PollInterval time.Duration
	// ID names the worker among the others; "" means a random id. No two
	// running workers may share one.
	ID string
}

// Defaults of WorkerOptions.
const (
	DefaultConcurrency = 4
	DefaultJobTimeout  = 5 * time.Minute
)

// minPollInterval is River's fetch cooldown: fetches never come faster.
const minPollInterval = 100 * time.Millisecond

func (o *WorkerOptions) withDefaults() (WorkerOptions, error) {
	var out WorkerOptions
	if o != nil {
		out = *o
	}
	switch {
	case out.Concurrency < 0:
		return out, fmt.Errorf("jobs: WorkerOptions.Concurrency %d is negative", out.Concurrency)
	case out.Concurrency == 0:
		out.Concurrency = DefaultConcurrency
	case out.Concurrency > 10_000:
		return out, fmt.Errorf("jobs: WorkerOptions.Concurrency %d: at most 10000", out.Concurrency)
	}
	if out.JobTimeout < 0 {
		return out, fmt.Errorf("jobs: WorkerOptions.JobTimeout %s is negative", out.JobTimeout)
	}
	if out.JobTimeout == 0 {
		out.JobTimeout = DefaultJobTimeout
	}
	if out.RescueAfter == 0 {
		out.RescueAfter = out.JobTimeout + time.Minute
	}
	if out.RescueAfter <= out.JobTimeout {
		return out, fmt.Errorf("jobs: WorkerOptions.RescueAfter %s must exceed JobTimeout %s, or a running job could be handed to a second worker", out.RescueAfter, out.JobTimeout)
	}
	if out.PollInterval != 0 && out.PollInterval < minPollInterval {
		return out, fmt.Errorf("jobs: WorkerOptions.PollInterval %s: at least %s", out.PollInterval, minPollInterval)
	}
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	return out, nil
}

// Worker executes research runs from the queue. Start it once; Stop it
// once.
type Worker struct {
	pool    *pgxpool.Pool
	engines EngineFactory
	log     *slog.Logger
	client  *river.Client[pgx.Tx]

	// handingBack is set when Stop cancels the runs in flight: they go back
	// to the queue without spending an attempt.
	handingBack atomic.Bool
}

// NewWorker returns a worker that executes the jobs of pool's schema with
// the engines the factory builds.
func NewWorker(pool *pgxpool.Pool, engines EngineFactory, opts WorkerOptions) (*Worker, error) {
	if pool == nil || engines == nil {
		return nil, errors.New("jobs: NewWorker needs a pool and an engine factory")
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	w := &Worker{pool: pool, engines: engines, log: o.Logger}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &runWorker{w: w}); err != nil {
		return nil, err
	}
	w.client, err = river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID:                   o.ID,
		Logger:               slog.New(warnOnly{o.Logger.Handler()}),
		Queues:               map[string]river.QueueConfig{QueueName: {MaxWorkers: o.Concurrency}},
		Workers:              workers,
		JobTimeout:           o.JobTimeout,
		RescueStuckJobsAfter: o.RescueAfter,
		RetryPolicy:          retryPolicy{first: time.Second, limit: time.Minute},
		FetchPollInterval:    o.PollInterval,
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return w, nil
}

// Start starts fetching and executing jobs and returns. ctx bounds the
// start only: the worker runs until Stop.
func (w *Worker) Start(ctx context.Context) error {
	if err := w.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("jobs: start the worker: %w", err)
	}
	w.log.Info("worker started", "queue", QueueName)
	return nil
}

// Stop stops the worker gracefully: it fetches no more jobs and lets the
// runs in flight finish. If ctx ends first, it cancels them: each stops at
// its next step and goes back to the queue, where the next attempt (on any
// worker) resumes it; nothing it recorded is lost. Stop returns when no
// run is executing any more.
func (w *Worker) Stop(ctx context.Context) error {
	err := w.client.Stop(ctx)
	if err == nil {
		w.log.Info("worker stopped")
		return nil
	}
	if ctx.Err() == nil {
		return fmt.Errorf("jobs: stop the worker: %w", err)
	}
	w.log.Warn("runs still executing at the stop deadline; handing them back to the queue")
	w.handingBack.Store(true)
	// Cancelled runs return within their synthesis bound at most.
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := w.client.StopAndCancel(hctx); err != nil {
		return fmt.Errorf("jobs: stop the worker: %w", err)
	}
	w.log.Info("worker stopped")
	return nil
}

// runWorker is River's worker for RunArgs.
type runWorker struct {
	river.WorkerDefaults[RunArgs]
	w *Worker
}

// Work executes one attempt at a run. A run that reaches a verdict
// completes the job; an error that stopped the run from being recorded is
// returned for River to retry, and the retry resumes the run.
func (rw *runWorker) Work(ctx context.Context, job *river.Job[RunArgs]) error {
	w := rw.w
	a := job.Args
	log := w.log.With("run_id", a.RunID, "tenant", a.Tenant, "job_id", job.ID, "attempt", job.Attempt)
	if a.BatchID != "" {
		log = log.With("batch_id", a.BatchID)
	}
	log.Info("run started", "mode", a.Mode)
	started := time.Now()
	eng, err := w.engines(ctx, a.Tenant)
	if err != nil {
		log.Error("no engine for the tenant", "error", err.Error())
		return err
	}
	mode := ledger.Mode(a.Mode)
	if ledger.Mode(a.RequestedMode) == executor.ModeAuto {
		// The run is recorded in the mode auto chose; the engine resumes
		// it in that mode and names auto as the mode asked for.
		mode = executor.ModeAuto
	}
	rctx := ctx
	if job.Attempt < job.MaxAttempts {
		// A failed attempt is retried and resumes the run: until then the
		// run stays running rather than failed, so it gets one verdict.
		rctx = engine.WithRetryPending(ctx)
	}
	res, err := eng.Run(rctx, executor.Request{
		RunID: a.RunID, Question: a.Question, Tickers: a.Tickers, Mode: mode,
		Limits: a.Limits, MaxCalls: a.MaxCalls,
	})
	if err == nil {
		log.Info("run finished", "status", string(res.Status), "citations", len(res.Citations),
			"spend_usd", res.Budget.Used["spend_usd"], "elapsed_ms", time.Since(started).Milliseconds())
		return nil
	}
	if ctx.Err() != nil && w.handingBack.Load() {
		log.Warn("run handed back to the queue: the worker is stopping", "error", err.Error())
		return river.JobSnooze(0)
	}
	var re *executor.RequestError
	if errors.As(err, &re) {
		// No attempt can change the request: the run ends failed, and the
		// job is cancelled rather than retried.
		rw.fail(ctx, log, a, err)
		log.Error("run refused", "error", err.Error())
		return river.JobCancel(err)
	}
	if job.Attempt >= job.MaxAttempts {
		log.Error("run failed; no attempts left", "error", err.Error(), "cause", rootCause(err).Error())
	} else {
		log.Warn("run failed; it will be retried and resume", "error", err.Error(), "cause", rootCause(err).Error())
	}
	return err
}

// fail records that a run the executor refused is over.
func (rw *runWorker) fail(ctx context.Context, log *slog.Logger, a RunArgs, cause error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	led, err := pgledger.New(rw.w.pool, &pgledger.Config{Tenant: a.Tenant})
	if err == nil {
		_, err = led.AppendEvent(ctx, a.RunID, ledger.Event{Kind: ledger.EventDecision, Message: "run refused: " + cause.Error()})
	}
	if err == nil {
		err = led.FinishRun(ctx, a.RunID, ledger.StatusFailed)
	}
	if err != nil {
		log.Error("could not record the refused run", "error", err.Error())
	}
}

// rootCause is the innermost error of err's chain: the driver's or the
// network's own words, which the run's records leave out and the
// operator's log keeps.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// warnOnly passes on River's own warnings and errors and drops its
// informational lines, which name no run.
type warnOnly struct{ slog.Handler }

func (h warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h warnOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnOnly{h.Handler.WithAttrs(attrs)}
}

func (h warnOnly) WithGroup(name string) slog.Handler { return warnOnly{h.Handler.WithGroup(name)} }
