package server

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/jobs"
)

// startWorker runs a jobs.Worker over pool, with the engines serve gives
// it over base, until the test ends.
func startWorker(t *testing.T, pool *pgxpool.Pool, model *executor.ModelConfig, m *Metrics, log *slog.Logger) {
	t.Helper()
	engines, err := engine.New(&engine.Config{Pool: pool, Model: model, Hooks: RunHooks(m, log)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engines.Close() })
	w, err := jobs.NewWorker(pool, engines.Engine, jobs.WorkerOptions{Concurrency: 4, Logger: log, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := w.Stop(ctx); err != nil {
			t.Errorf("stop the worker: %v", err)
		}
	})
}
