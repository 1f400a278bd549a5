package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/server"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "[flags]",
		"Serves the HTTP API: POST /v1/runs, GET /v1/runs/{id} (and /events, /ledger), POST /v1/search,\n"+
			"GET /v1/config, /healthz, /readyz and /metrics, MCP at /mcp, and the web app at /, over Postgres\n"+
			"(--db) or, without it, locally (see below). Over Postgres, requests carry a tenant's API key\n"+
			"(research tenant create); the web app asks for it.\n"+
			"Unless --workers 0 it also runs a worker in the same process, so one process serves and\n"+
			"researches; more workers can run anywhere with research worker. Logs are JSON lines on stderr.\n"+
			"On SIGTERM or SIGINT it stops accepting, drains the requests in flight, then stops the worker,\n"+
			"which hands runs it cannot finish in time back to the queue.\n"+
			"If serve dies mid-run (kill -9, a lost machine), its running runs are resumed by another worker\n"+
			"(another serve or research worker) within --rescue-after plus about 45 seconds (River's rescue\n"+
			"pass every 30 seconds and a new leader's election); with the defaults, under 4 minutes. What it\n"+
			"held of its tenants' budgets (its calls' holds, its runs' leases) is returned when those runs\n"+
			"finish elsewhere or, at the latest, once expired (15 minutes after its last write), by the\n"+
			"sweep every serve and worker over Postgres runs each --budget-sweep-interval (1 minute).\n\n"+
			"Without --db (and DATABASE_URL unset), serve runs locally, for one person on this machine: over\n"+
			"the embedded store in --data-dir (what research ingest and ask use by default; .research after\n"+
			"make demo), as one tenant (\"default\", whose runs research ask records there too), with no API\n"+
			"key: the API, /mcp and the web app answer without one. Since anyone who can connect acts as that\n"+
			"tenant, it listens on a loopback address only (127.0.0.1, ::1 or localhost) and refuses any other\n"+
			"--addr. Runs execute in this process, --workers at a time (the others wait, queued), and are\n"+
			"recorded in the embedded ledger; each run's budget holds as with Postgres, and the tenant's limits\n"+
			"are the defaults of research tenant create but 600 requests a minute, counted in this process\n"+
			"(the day's runs and spend start afresh when it restarts). On shutdown, runs not finished within\n"+
			"--shutdown-timeout are stopped and recorded as failed, saying so.", stderr)
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL); empty means the embedded store, locally (see above)")
	dataDir := fs.String("data-dir", envOr("RESEARCH_DATA_DIR", ".research"), "embedded store directory without --db (default $RESEARCH_DATA_DIR or .research)")
	addr := fs.String("addr", envOr("RESEARCH_ADDR", "127.0.0.1:8080"), "address to listen on (default $RESEARCH_ADDR or 127.0.0.1:8080)")
	workers := fs.Int("workers", jobs.DefaultConcurrency, "runs the in-process worker executes at once; 0 runs no worker (without --db: at least 1)")
	shutdown := fs.Duration("shutdown-timeout", 30*time.Second, "how long to drain requests, and then runs, on shutdown")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	var qf queueWorkerFlags
	qf.register(fs, serveJobTimeout)
	var mf modelFlags
	mf.register(fs) // with --workers 0, the model says what the workers elsewhere run
	var fm fetchMissing
	fm.register(fs, "serve")
	var bf budgetFlags
	bf.register(fs)
	var sf storeFlags
	fs.StringVar(&sf.embedder, "embedder", envOr("RESEARCH_EMBEDDER", "hash"), "embedder of the ingested corpus: hash or openai")
	fs.StringVar(&sf.embedModel, "embed-model", envOr("RESEARCH_EMBED_MODEL", "text-embedding-3-small"), "embedding model for --embedder openai")
	fs.IntVar(&sf.embedDims, "embed-dims", corpus.EmbeddingDim, "embedding dimensions for --embedder openai")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	if *workers < 0 {
		return fmt.Errorf("--workers %d: want 0 (no worker) or more", *workers)
	}
	if err := fm.check(); err != nil {
		return err
	}
	if err := bf.check(); err != nil {
		return err
	}
	if *db == "" {
		if err := checkLocalAddr(*addr); err != nil {
			return err
		}
		if *workers == 0 {
			return fmt.Errorf("--workers 0: without --db runs execute in this process, so want at least 1")
		}
	}
	if err := qf.check(); err != nil {
		return err
	}
	if *shutdown <= 0 {
		return fmt.Errorf("--shutdown-timeout %s: want a positive duration such as 30s", *shutdown)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
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
	o := serveOptions{workers: *workers, shutdown: *shutdown, log: log, embedder: emb, model: mc, queue: qf.options(), leases: bf.leases, sweep: bf.sweep,
		prepare: fm.preparer(*dataDir, *db, emb)}
	if *db == "" {
		return serveLocal(ctx, *dataDir, *addr, stdout, o)
	}

	pool, err := openServePool(ctx, *db, *workers)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := applyMigrations(ctx, pool); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %v", *addr, err)
	}
	fmt.Fprintf(stdout, "serving on http://%s (workers %d, model %s)\n", ln.Addr(), *workers, modelName(mc))
	return serve(ctx, pool, ln, o)
}

// serveOptions are what serve runs with.
type serveOptions struct {
	workers  int
	shutdown time.Duration
	log      *slog.Logger
	embedder corpus.Embedder
	model    *executor.ModelConfig
	poll     time.Duration // event streams' ledger poll; 0 means the server's default
	queue    jobs.WorkerOptions
	leases   bool          // --budget-leases, over Postgres
	sweep    time.Duration // --budget-sweep-interval, over Postgres
	// prepare is --fetch-missing's fetch before each run; nil when off.
	prepare func(context.Context, string, *engine.Tenant, executor.Request, time.Duration) (ledger.Event, error)
}

// serveEngine builds what both modes of serve run on: a metrics registry,
// the /mcp handler and the process's engine, from base (its store: Pool or
// DataDir) and the options.
func serveEngine(base *engine.Config, o serveOptions) (*prometheus.Registry, *server.Metrics, *mcpHTTP, *engine.Process, error) {
	reg := prometheus.NewRegistry()
	metrics, err := server.NewMetrics(reg)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	mh := newMCPHTTP(o.log, o.shutdown)
	cfg := *base
	cfg.Embedder, cfg.Model, cfg.Logger, cfg.Prepare = o.embedder, o.model, o.log, o.prepare
	cfg.Hooks = mh.hooks(server.RunHooks(metrics, o.log))
	engines, err := engine.New(&cfg)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return reg, metrics, mh, engines, nil
}

// serve runs the API on ln and, with workers, a worker, until ctx ends;
// then it drains the API and stops the worker, in that order, so no
// request is left waiting on a worker that is gone.
func serve(ctx context.Context, pool *pgxpool.Pool, ln net.Listener, o serveOptions) error {
	reg, metrics, mh, engines, err := serveEngine(&engine.Config{Pool: pool, BudgetRowLocks: !o.leases, BudgetSweepInterval: o.sweep}, o)
	if err != nil {
		ln.Close()
		return err
	}
	defer engines.Close()
	srv, err := server.New(pool, &server.Config{
		Logger: o.log, Registry: reg, Metrics: metrics, Embedder: o.embedder,
		ModelConfigured: o.model != nil, ShutdownTimeout: o.shutdown, PollInterval: o.poll,
		// MCP clients reach the engine at /mcp with the same API keys.
		MCP: mh.build(engines),
	})
	if err != nil {
		ln.Close()
		return err
	}
	var worker *jobs.Worker
	if o.workers > 0 {
		wo := o.queue
		wo.Concurrency, wo.Logger = o.workers, o.log
		if worker, err = jobs.NewWorker(pool, engines.Engine, wo); err != nil {
			ln.Close()
			return err
		}
		if err := worker.Start(ctx); err != nil {
			ln.Close()
			return err
		}
	}
	stopMCP := mh.closeOnDone(ctx)
	serr := srv.Serve(ctx, ln)
	stopMCP()
	if worker != nil {
		o.log.Info("stopping the worker", slog.Duration("timeout", o.shutdown))
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.shutdown)
		defer cancel()
		if err := worker.Stop(sctx); err != nil && serr == nil {
			serr = err
		}
	}
	return serr
}

// openServePool connects with room for the worker's runs and the API's
// requests, unless the URL sets pool_max_conns itself.
func openServePool(ctx context.Context, dbURL string, workers int) (*pgxpool.Pool, error) {
	if u, err := url.Parse(dbURL); err == nil && u.Scheme != "" && u.Query().Get("pool_max_conns") == "" {
		q := u.Query()
		q.Set("pool_max_conns", strconv.Itoa(max(16, 4*workers+12)))
		u.RawQuery = q.Encode()
		dbURL = u.String()
	}
	return openPool(ctx, dbURL)
}

func modelName(mc *executor.ModelConfig) string {
	if mc == nil {
		return "none: model mode is refused"
	}
	return mc.Model
}
