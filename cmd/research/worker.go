package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/server"
)

// serveJobTimeout is serve's --job-timeout: above a run's longest
// wall-clock budget under the default tenant limits (120 s) with room for
// its synthesis, and short, so a run of a serve that died is resumed soon.
const serveJobTimeout = 150 * time.Second

// queueWorkerFlags configure how a worker (research worker, or the one
// inside research serve) takes runs from the queue and gives up on
// orphaned ones.
type queueWorkerFlags struct {
	jobTimeout  time.Duration
	rescueAfter time.Duration
	poll        time.Duration
}

func (f *queueWorkerFlags) register(fs *flag.FlagSet, jobTimeout time.Duration) {
	fs.DurationVar(&f.jobTimeout, "job-timeout", jobTimeout, "longest attempt at one run; a longer one is cancelled and retried, where it resumes. Keep it above the tenants' longest run (research tenant limits) plus its synthesis")
	fs.DurationVar(&f.rescueAfter, "rescue-after", 0, "how long a run may stay running before it is taken for orphaned (its worker died) and resumed elsewhere; 0 means --job-timeout plus 30s")
	fs.DurationVar(&f.poll, "poll", time.Second, "how often to look for runs when no notification arrives")
}

func (f *queueWorkerFlags) check() error {
	switch {
	case f.jobTimeout <= 0:
		return fmt.Errorf("--job-timeout %s: want a positive duration such as 150s", f.jobTimeout)
	case f.rescueAfter < 0 || f.rescueAfter != 0 && f.rescueAfter <= f.jobTimeout:
		return fmt.Errorf("--rescue-after %s: want 0 or more than --job-timeout (%s), or a running run could be taken from a live worker", f.rescueAfter, f.jobTimeout)
	case f.poll < 100*time.Millisecond:
		return fmt.Errorf("--poll %s: want 100ms or more", f.poll)
	}
	return nil
}

func (f *queueWorkerFlags) options() jobs.WorkerOptions {
	rescue := f.rescueAfter
	if rescue == 0 {
		rescue = f.jobTimeout + 30*time.Second
	}
	return jobs.WorkerOptions{JobTimeout: f.jobTimeout, RescueAfter: rescue, PollInterval: f.poll}
}

func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("worker", "[flags]",
		"Execute the research runs queued by 'research batch submit' and the HTTP API, for every tenant,\n"+
			"until SIGINT or SIGTERM. Start as many workers, on as many machines, as the database serves.\n"+
			"On a signal the worker fetches no more runs and lets those in flight finish; past --grace it\n"+
			"cancels them and they go back to the queue, where the next attempt resumes them. A worker that\n"+
			"dies mid-run (kill -9, a lost machine) leaves its runs to be resumed by another worker within\n"+
			"--rescue-after plus about 45 seconds (River's rescue pass every 30 seconds and a new leader's\n"+
			"election). Every run's spend counts against its tenant's daily cap, as in research serve. What a\n"+
			"dead worker held of its tenants' budgets is returned when its runs finish elsewhere or, at the\n"+
			"latest, once expired (15 minutes after its last write), by the sweep every worker and serve\n"+
			"over Postgres runs each --budget-sweep-interval (1 minute).\n"+
			"Logs are JSON lines on stderr, each about a run naming its run_id and tenant.\n"+
			"The pool holds pgx's default connection count; raise it with ?pool_max_conns=N in the URL.", stderr)
	var sf storeFlags
	fs.StringVar(&sf.db, "db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL); required")
	fs.StringVar(&sf.embedder, "embedder", envOr("RESEARCH_EMBEDDER", "hash"), "query embedder, the one the corpus was ingested with: hash or openai")
	fs.StringVar(&sf.embedModel, "embed-model", envOr("RESEARCH_EMBED_MODEL", "text-embedding-3-small"), "embedding model for --embedder openai")
	fs.IntVar(&sf.embedDims, "embed-dims", corpus.EmbeddingDim, "embedding dimensions for --embedder openai")
	var mf modelFlags
	mf.register(fs)
	concurrency := fs.Int("concurrency", jobs.DefaultConcurrency, "runs executed at once by this worker")
	var qf queueWorkerFlags
	qf.register(fs, jobs.DefaultJobTimeout)
	grace := fs.Duration("grace", 30*time.Second, "on a signal, how long runs in flight may take to finish before they are handed back")
	tenantDay := fs.Bool("tenant-day", true, "count each run's spend against its tenant's daily budget too (budget scope tenant_day, created on first use with the tenant's daily spend limit); false leaves runs out of it")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	var fm fetchMissing
	fm.register(fs, "worker")
	var bf budgetFlags
	bf.register(fs)
	dataDir := fs.String("data-dir", envOr("RESEARCH_DATA_DIR", ".research"), "with --fetch-missing: where the SEC cache and the fetch log are kept")
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
	if err := fm.check(); err != nil {
		return err
	}
	if err := bf.check(); err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	if *concurrency <= 0 {
		return fmt.Errorf("--concurrency %d: want 1 or more", *concurrency)
	}
	if err := qf.check(); err != nil {
		return err
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

	engines, err := engine.New(&engine.Config{
		Pool: pool, Embedder: emb, Model: mc, NoTenantDay: !*tenantDay, BudgetRowLocks: !bf.leases, BudgetSweepInterval: bf.sweep, Hooks: server.RunHooks(nil, log), Logger: log,
		Prepare: fm.preparer(*dataDir, sf.db, emb),
	})
	if err != nil {
		return err
	}
	defer engines.Close()
	wo := qf.options()
	wo.Concurrency, wo.Logger = *concurrency, log
	w, err := jobs.NewWorker(pool, engines.Engine, wo)
	if err != nil {
		return err
	}
	if err := w.Start(ctx); err != nil {
		return err
	}
	log.Info("worker ready", "concurrency", *concurrency, "model", mf.model != "", "tenant_day", *tenantDay, "budget_leases", bf.leases, "budget_sweep_interval", bf.sweepInterval())
	<-ctx.Done()
	log.Info("stopping: no more runs are fetched", "grace", grace.String())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), *grace)
	defer cancel()
	return w.Stop(sctx)
}
