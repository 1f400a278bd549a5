package server_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/server"
)

// Example wires what `research serve` runs: the API and a worker in one
// process sharing one metrics registry, the API drained before the worker
// stops on SIGTERM. The schema must be migrated and hold a tenant
// (server.Tenants.Create issues its key).
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	reg := prometheus.NewRegistry()
	metrics, err := server.NewMetrics(reg)
	if err != nil {
		panic(err)
	}
	engines, err := engine.New(&engine.Config{Pool: pool, Hooks: server.RunHooks(metrics, log)})
	if err != nil {
		panic(err)
	}
	defer engines.Close()
	worker, err := jobs.NewWorker(pool, engines.Engine, jobs.WorkerOptions{Concurrency: 4, Logger: log})
	if err != nil {
		panic(err)
	}
	if err := worker.Start(ctx); err != nil {
		panic(err)
	}
	srv, err := server.New(pool, &server.Config{Logger: log, Registry: reg, Metrics: metrics})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:8080")
	if err != nil {
		panic(err)
	}
	if err := srv.Serve(ctx, ln); err != nil { // returns once SIGTERM came and requests drained
		log.Error(err.Error())
	}
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = worker.Stop(sctx) // runs not done by then go back to the queue
}
