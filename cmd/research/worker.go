package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/jobs"
)

func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("worker", "[flags]",
		"Execute the research runs queued by 'research batch submit' and the HTTP API, for every tenant,\n"+
			"until SIGINT or SIGTERM. Start as many workers, on as many machines, as the database serves.\n"+
			"On a signal the worker fetches no more runs and lets those in flight finish; past --grace it\n"+
			"cancels them and they go back to the queue, where the next attempt resumes them. A worker that\n"+
			"dies mid-run (kill -9, a lost machine) leaves its runs to be resumed by another worker after\n"+
			"--rescue-after. Logs are JSON lines on stderr, each about a run naming its run_id and tenant.\n"+
			"The pool holds pgx's default connection count; raise it with ?pool_max_conns=N in the URL.", stderr)
	var sf storeFlags
	fs.StringVar(&sf.db, "db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL); required")
	fs.StringVar(&sf.embedder, "embedder", envOr("RESEARCH_EMBEDDER", "hash"), "query embedder, the one the corpus was ingested with: hash or openai")
	fs.StringVar(&sf.embedModel, "embed-model", envOr("RESEARCH_EMBED_MODEL", "text-embedding-3-small"), "embedding model for --embedder openai")
	fs.IntVar(&sf.embedDims, "embed-dims", corpus.EmbeddingDim, "embedding dimensions for --embedder openai")
	var mf modelFlags
	mf.register(fs)
	concurrency := fs.Int("concurrency", jobs.DefaultConcurrency, "runs executed at once by this worker")
	jobTimeout := fs.Duration("job-timeout", jobs.DefaultJobTimeout, "longest attempt at one run; a longer one is cancelled and retried")
	rescueAfter := fs.Duration("rescue-after", 0, "how long a run may stay running before it is taken for orphaned and resumed elsewhere; 0 means --job-timeout plus a minute")
	grace := fs.Duration("grace", 30*time.Second, "on a signal, how long runs in flight may take to finish before they are handed back")
	poll := fs.Duration("poll", time.Second, "how often to look for runs when no notification arrives")
	tenantDay := fs.Bool("tenant-day", false, "count each run's spend against its tenant's daily budget too (budget scope tenant_day, whose limits 'research serve' sets)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return errUsage
	}
	if sf.db == "" {
		return errNoQueueDB
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	if *concurrency <= 0 {
		return fmt.Errorf("--concurrency %d: want 1 or more", *concurrency)
	}
	if *grace < 0 {
		return fmt.Errorf("--grace %s: want 0 or more", *grace)
	}
	emb, err := sf.newEmbedder()
	if err != nil {
		return err
	}
	mc, err := mf.config()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	pool, err := openMigratedPool(ctx, sf.db)
	if err != nil {
		return err
	}
	defer pool.Close()

	base := executor.Config{Model: mc, Prices: configs.Prices(), TenantDay: *tenantDay}
	w, err := jobs.NewWorker(pool, jobs.PgEngineFactory(pool, base, emb), jobs.WorkerOptions{
		Concurrency: *concurrency, Logger: log, JobTimeout: *jobTimeout, RescueAfter: *rescueAfter, PollInterval: *poll,
	})
	if err != nil {
		return err
	}
	if err := w.Start(ctx); err != nil {
		return err
	}
	log.Info("worker ready", "concurrency", *concurrency, "model", mf.model != "", "tenant_day", *tenantDay)
	<-ctx.Done()
	log.Info("stopping: no more runs are fetched", "grace", grace.String())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), *grace)
	defer cancel()
	return w.Stop(sctx)
}
