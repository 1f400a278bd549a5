package jobs_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/jobs"
)

// Submit records a run and queues it in one transaction; submitting the
// same idempotency key again returns the same run.
func ExampleSubmit() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	runID, err := jobs.Submit(ctx, pool, "acme", jobs.Submission{
		Question:       "Compare gross-margin pressure at AAPL, NVDA and GOOGL in their latest fiscal year.",
		IdempotencyKey: "weekly-margins-2025-06-02",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("queued", runID)
}

// A worker executes queued runs until the process is told to stop, then
// lets the runs in flight finish for up to 30 seconds before handing them
// back to the queue.
func ExampleNewWorker() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	engines, err := engine.New(&engine.Config{Pool: pool})
	if err != nil {
		log.Fatal(err)
	}
	defer engines.Close()
	w, err := jobs.NewWorker(pool, engines.Engine, jobs.WorkerOptions{
		Concurrency: 8,
		Logger:      slog.New(slog.NewJSONHandler(os.Stderr, nil)),
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Start(ctx); err != nil {
		log.Fatal(err)
	}
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.Stop(sctx); err != nil {
		log.Fatal(err)
	}
}
