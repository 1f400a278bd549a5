package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/bench"
)

// runBenchLoad is research bench load: bench.RunLoad against research
// serve's server and worker, in a scratch schema.
func runBenchLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench load", "[flags]",
		"A load test of the HTTP API on loopback. In a scratch schema bench_load_<pid> (dropped at the\n"+
			"end unless --keep) it ingests --manifest, creates a tenant, and starts research serve's server\n"+
			"and worker on 127.0.0.1. Then --clients clients each submit rules-mode runs one after another\n"+
			"(POST /v1/runs) and follow each to its verdict on its event stream, until --runs runs were\n"+
			"submitted or --duration passed; runs in flight then get --drain to finish. It reports runs per\n"+
			"second, submit and run latency (POST to verdict) percentiles, errors, and whether every\n"+
			"accepted run reached a verdict with a recorded answer in the ledger (no run lost).", stderr)
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL)")
	manifest := fs.String("manifest", filepath.Join("..", "shared", "corpus", "manifest.jsonl"), "manifest of the filings to ingest")
	clients := fs.Int("clients", 8, "concurrent clients")
	runs := fs.Int("runs", 200, "runs to submit in all")
	duration := fs.Duration("duration", 2*time.Minute, "stop submitting after this long")
	drain := fs.Duration("drain", 2*time.Minute, "how long runs in flight may take to finish after submitting stops")
	workers := fs.Int("workers", 4, "runs the worker executes at once")
	poll := fs.Duration("poll", 50*time.Millisecond, "how often event streams read the ledger")
	schema := fs.String("schema", fmt.Sprintf("bench_load_%d", os.Getpid()), "scratch schema to create (it must not exist)")
	keep := fs.Bool("keep", false, "keep the schema")
	jsonOut := fs.String("json", "", "also write the figures as JSON to this file; - writes JSON instead of the table to stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	switch {
	case *db == "":
		return errors.New("the load test needs Postgres: pass --db URL or set DATABASE_URL")
	case *clients < 1 || *runs < 1 || *workers < 1:
		return fmt.Errorf("--clients %d, --runs %d and --workers %d must be at least 1", *clients, *runs, *workers)
	case *duration <= 0 || *drain <= 0 || *poll <= 0:
		return errors.New("--duration, --drain and --poll must be positive")
	}
	entries, err := readManifestFile(*manifest)
	if err != nil {
		return err
	}

	sch, err := bench.CreateSchema(ctx, *db, *schema)
	if err != nil {
		return redactErr(err, *db)
	}
	if *keep {
		defer sch.Close()
		fmt.Fprintf(stderr, "schema: %s (kept)\n", sch.Name)
	} else {
		defer func() {
			if err := sch.Drop(context.WithoutCancel(ctx)); err != nil {
				fmt.Fprintf(stderr, "research bench load: %v\n", err)
			}
		}()
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	serveLoad := func(ctx context.Context, pool *pgxpool.Pool, ln net.Listener, emb corpus.Embedder) error {
		return serve(ctx, pool, ln, serveOptions{workers: *workers, shutdown: 30 * time.Second, log: log, embedder: emb, poll: *poll})
	}
	fmt.Fprintf(stderr, "ingesting %d sources from %s\n", len(entries), *manifest)
	rep, err := bench.RunLoad(ctx, sch, serveLoad, &bench.LoadOpts{
		Entries: entries, Clients: *clients, Runs: *runs, Workers: *workers, Duration: *duration, Drain: *drain,
	}, stderr)
	if err != nil {
		return err
	}
	if err := writeBenchReport(stdout, *jsonOut, rep, rep.WriteText); err != nil {
		return err
	}
	if rep.Lost > 0 {
		return fmt.Errorf("%d accepted runs did not reach a verdict with a recorded answer", rep.Lost)
	}
	return nil
}

// readManifestFile reads a manifest; its paths are relative to its folder.
func readManifestFile(path string) ([]corpus.ManifestEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--manifest: %w (point it at the sample corpus's manifest.jsonl)", err)
	}
	defer f.Close()
	entries, errs := corpus.ReadManifest(f, path, filepath.Dir(path))
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return entries, nil
}
