package engine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/ledger"
)

type retryKey struct{}

// WithRetryPending marks ctx as the context of an attempt at a run that
// will be tried again if it fails (the job queue has attempts left). A run
// that stops on an error in such an attempt is not finished as failed: it
// stays running, and the next attempt resumes it and gives it its one
// verdict. The queue finishes the run itself when no attempt is left.
func WithRetryPending(ctx context.Context) context.Context {
	return context.WithValue(ctx, retryKey{}, true)
}

func retryPending(ctx context.Context) bool {
	v, _ := ctx.Value(retryKey{}).(bool)
	return v
}

// finishingLedger leaves a run running when its attempt fails and another
// attempt will follow (WithRetryPending), and once a run has its verdict,
// closes the reservations of its calls whose settlement never came (a
// connection cut under the call) and the budget leases still open on it,
// which would otherwise hold the run's and the tenant's day's budgets until
// they expire; again when the run is reopened with its verdict (OpenRun).
//
// Over a store that can record a verdict and an event in one transaction
// (pgledger), a verdict other than failed waits for the run's answer event,
// which the executor appends next, and both are written together.
type finishingLedger struct {
	ledger.Store
	expire func(ctx context.Context, scope budget.Scope) (int, error)
	// giveBack, when set, returns the budget leases of a run whose attempt
	// failed and will be retried, perhaps by another process.
	giveBack func(ctx context.Context, scope budget.Scope) (int, error)
	log      *slog.Logger

	mu      *sync.Mutex
	pending map[string]ledger.RunStatus // guarded by mu: verdicts waiting for their answer, by run
}

// finishWithEvent is pgledger's FinishRunWithEvent.
type finishWithEvent interface {
	FinishRunWithEvent(ctx context.Context, runID string, status ledger.RunStatus, e ledger.Event) (ledger.Event, error)
}

func newFinishingLedger(l ledger.Store, log *slog.Logger) *finishingLedger {
	return &finishingLedger{Store: l, log: log, mu: &sync.Mutex{}, pending: map[string]ledger.RunStatus{}}
}

func (l *finishingLedger) FinishRun(ctx context.Context, runID string, status ledger.RunStatus) error {
	if status == ledger.StatusFailed && retryPending(ctx) {
		if l.giveBack != nil {
			gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if _, err := l.giveBack(gctx, budget.RunScope(runID)); err != nil {
				l.log.Warn("could not return a failed attempt's budget leases now", slog.String("run_id", runID), slog.String("error", err.Error()))
			}
		}
		return nil
	}
	if _, ok := l.Store.(finishWithEvent); ok && status != ledger.StatusFailed && status.Terminal() {
		l.mu.Lock()
		l.pending[runID] = status
		l.mu.Unlock()
		return nil
	}
	if err := l.Store.FinishRun(ctx, runID, status); err != nil {
		return err
	}
	l.finished(ctx, runID)
	return nil
}

// OpenRun reopens a run as the store does. A run reopened with its
// verdict recorded (an attempt whose process died between the verdict and
// closing the run's reservations: the queue tries it again, and the
// executor answers with the recorded result) has its reservations closed
// now, else a dead process's budget lease would hold its slice of the
// tenant's day until it expires.
func (l *finishingLedger) OpenRun(ctx context.Context, r ledger.Run) (ledger.Run, bool, error) {
	run, resumed, err := l.Store.OpenRun(ctx, r)
	if err == nil && resumed && run.Status.Terminal() && run.Status != ledger.StatusFailed {
		l.finished(ctx, run.ID)
	}
	return run, resumed, err
}

func (l *finishingLedger) AppendEvent(ctx context.Context, runID string, e ledger.Event) (ledger.Event, error) {
	l.mu.Lock()
	status, ok := l.pending[runID]
	delete(l.pending, runID)
	l.mu.Unlock()
	if !ok {
		return l.Store.AppendEvent(ctx, runID, e)
	}
	e, err := l.Store.(finishWithEvent).FinishRunWithEvent(ctx, runID, status, e)
	if err != nil {
		return e, err
	}
	l.finished(ctx, runID)
	return e, nil
}

// finished closes the open reservations of a run that has its verdict.
func (l *finishingLedger) finished(ctx context.Context, runID string) {
	if l.expire != nil {
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if n, err := l.expire(ectx, budget.RunScope(runID)); err != nil {
			l.log.Warn("could not close a finished run's open reservations now", slog.String("run_id", runID), slog.String("error", err.Error()))
		} else if n > 0 {
			l.log.Info("closed a finished run's open reservations", slog.String("run_id", runID), slog.Int("reservations", n))
		}
	}
}
