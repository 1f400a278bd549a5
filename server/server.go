package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/web"
)

// Config configures a Server. A nil *Config means the defaults.
type Config struct {
	// Logger receives one JSON-friendly line per request and the causes of
	// errors; nil means no logs.
	Logger *slog.Logger
	// Registry is where the metrics are registered and what /metrics
	// serves; nil means a registry of the server's own.
	Registry *prometheus.Registry
	// Metrics are the collectors the server feeds; nil means NewMetrics on
	// Registry. Pass the worker's when they share a process, and Registry
	// with them.
	Metrics *Metrics
	// Embedder embeds search queries; nil means corpus.HashEmbedder. It
	// must be the one the corpus was ingested with.
	Embedder corpus.Embedder
	// ModelConfigured says whether the worker has a model: without one,
	// model-mode runs are refused with 503 and everything else works.
	ModelConfigured bool

	// Submit queues a run; nil means jobs.Submit.
	Submit func(ctx context.Context, pool *pgxpool.Pool, tenant string, s jobs.Submission) (string, error)
	// QueueDepth reads the queue's depth for /metrics; nil means
	// jobs.QueueDepth.
	QueueDepth func(ctx context.Context, pool *pgxpool.Pool) (int, error)

	MaxBodyBytes    int64         // largest request body; 0 means 64 KiB
	ReadTimeout     time.Duration // time to read a request, body included; 0 means 30s
	PollInterval    time.Duration // how often the server's one poller looks for new events of the runs its streams follow; 0 means 250ms
	Heartbeat       time.Duration // comment lines that keep an idle event stream open; 0 means 15s
	StreamTimeout   time.Duration // longest event stream (clients reconnect with Last-Event-ID); 0 means 30m
	ShutdownTimeout time.Duration // how long Serve drains requests once its context ends; 0 means 30s
	// ConcurrentRetryAfter is the Retry-After of a refusal for too many
	// runs at once; 0 means 5s.
	ConcurrentRetryAfter time.Duration
	// MaxStreamsPerKey bounds the event streams one API key holds open at
	// once in this process (each also counts as a request against the
	// key's rate when it opens); 0 means 8.
	MaxStreamsPerKey int
	// MCP, when set, builds the handler served at /mcp (the MCP
	// streamable-HTTP transport) from the server's own key check, which
	// returns the tenant an API key belongs to and counts the request
	// against the key's rate; nil serves no /mcp.
	MCP func(tenantOfKey func(ctx context.Context, key string) (string, error)) http.Handler
	// BadKeysPerMinute bounds, per client address and process, the
	// requests a minute whose well-formed API key no tenant holds (or was
	// revoked): past it they are refused with 429 before any query; 0
	// means 30.
	BadKeysPerMinute int

	// LocalLimits are the local tenant's limits (NewLocal only); nil
	// means DefaultLocalLimits.
	LocalLimits *TenantLimits
	// LocalRuns bounds the runs a local server (NewLocal) executes at
	// once; the others wait their turn, queued. 0 means 2.
	LocalRuns int

	Now func() time.Time // nil means time.Now
}

// Server is the HTTP API.
type Server struct {
	pool    *pgxpool.Pool // nil for a local server
	local   *local        // set for a local server (NewLocal)
	cfg     Config
	log     *slog.Logger
	metrics *Metrics
	gather  prometheus.Gatherer
	handler http.Handler

	closing   chan struct{} // closed when shutdown starts: event streams end
	closeOnce sync.Once

	watch     *runWatch    // the one poller of the event streams
	streams   *keyStreams  // open event streams per API key
	badKeys   *addrLimiter // requests with unknown keys per client address
	knownKeys keySet       // keys that authenticated here
}

// New returns the API over pool, whose schema must be migrated.
func New(pool *pgxpool.Pool, cfg *Config) (*Server, error) {
	if pool == nil {
		return nil, errors.New("server: New: nil pool")
	}
	return newServer(pool, nil, cfg)
}

// NewLocal returns the API over engines built on the embedded store
// (engine.Config without a Pool), for one person on one machine: one
// tenant (LocalTenant) under Config.LocalLimits, no API keys, and runs
// executed in this process, at most Config.LocalRuns at once, recorded
// in the embedded ledger. Anyone who can reach it acts as that tenant,
// so serve it on a loopback address only. Serve stops its runs when it
// returns; a server that is never served is stopped with Close.
func NewLocal(engines *engine.Process, cfg *Config) (*Server, error) {
	if engines == nil {
		return nil, errors.New("server: NewLocal: nil engines")
	}
	if engines.DataDir() == "" {
		return nil, errors.New("server: NewLocal: the engines are built over Postgres; serve them with New")
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	limits := DefaultLocalLimits()
	if c.LocalLimits != nil {
		limits = *c.LocalLimits
	}
	if err := limits.validate(); err != nil {
		return nil, fmt.Errorf("server: Config.LocalLimits: %w", err)
	}
	if c.LocalRuns < 0 {
		return nil, fmt.Errorf("server: Config.LocalRuns %d is negative", c.LocalRuns)
	}
	if c.LocalRuns == 0 {
		c.LocalRuns = 2
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	l, err := newLocal(engines, limits, c.LocalRuns, c.Now)
	if err != nil {
		return nil, err
	}
	return newServer(nil, l, &c)
}

func newServer(pool *pgxpool.Pool, l *local, cfg *Config) (*Server, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 64 << 10
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 250 * time.Millisecond
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = 15 * time.Second
	}
	if c.StreamTimeout <= 0 {
		c.StreamTimeout = 30 * time.Minute
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 30 * time.Second
	}
	if c.ConcurrentRetryAfter <= 0 {
		c.ConcurrentRetryAfter = 5 * time.Second
	}
	if c.MaxStreamsPerKey <= 0 {
		c.MaxStreamsPerKey = 8
	}
	if c.BadKeysPerMinute <= 0 {
		c.BadKeysPerMinute = 30
	}
	if c.Embedder == nil {
		c.Embedder = corpus.HashEmbedder{}
	}
	if c.Submit == nil {
		c.Submit = jobs.Submit
	}
	if c.QueueDepth == nil {
		c.QueueDepth = jobs.QueueDepth
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	log := c.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	reg := c.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	m := c.Metrics
	if m == nil {
		var err error
		if m, err = NewMetrics(reg); err != nil {
			return nil, err
		}
	}
	s := &Server{
		pool: pool, local: l, cfg: c, log: log, metrics: m, gather: reg, closing: make(chan struct{}),
		streams: &keyStreams{open: map[string]int{}},
		badKeys: newAddrLimiter(c.BadKeysPerMinute, time.Minute, c.Now),
	}
	if l != nil {
		l.log, l.retry = log, c.ConcurrentRetryAfter
		m.ObserveQueue(func(context.Context) (int, error) { return l.queued(), nil }, log)
		s.watch = newRunWatch(l.marks, c.PollInterval)
	} else {
		m.ObserveQueue(func(ctx context.Context) (int, error) { return c.QueueDepth(ctx, pool) }, log)
		s.watch = newRunWatch(poolMarks(pool), c.PollInterval)
	}
	s.handler = s.routes()
	return s, nil
}

func (s *Server) now() time.Time { return s.cfg.Now() }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/runs", s.authed(s.createRun))
	mux.Handle("GET /v1/runs/{id}", s.authed(s.getRun))
	mux.Handle("GET /v1/runs/{id}/events", s.authed(s.runEvents))
	mux.Handle("GET /v1/runs/{id}/ledger", s.authed(s.runLedger))
	mux.Handle("POST /v1/search", s.authed(s.search))
	mux.Handle("GET /v1/runs", s.authed(s.listRuns))
	mux.Handle("GET /v1/runs/{id}/evidence/{eid}", s.authed(s.runEvidence))
	mux.Handle("GET /v1/corpus", s.authed(s.listCorpus))
	mux.Handle("POST /v1/plan", s.authed(s.planRun))
	s.webRoutes(mux)
	// The web app: its page and assets, embedded in the binary.
	app := web.Handler()
	mux.Handle("GET /{$}", app)
	mux.Handle("GET /assets/", app)
	if s.cfg.MCP != nil {
		mcp := s.cfg.MCP(s.tenantOfKey)
		if s.local != nil {
			mcp = localBearer(mcp)
		}
		mux.Handle("/mcp", mcp)
	}
	mux.HandleFunc("GET /v1/config", s.config)
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	// A collector that fails is logged and left out; the rest is served.
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.gather, promhttp.HandlerOpts{ErrorLog: slogErrorLog{s.log}, ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, http.StatusNotFound, "no such endpoint: %s %s (see the API's routes under /v1/)", r.Method, r.URL.Path)
	})
	return s.observe(mux)
}

// tenantOfKey is the tenant an API key belongs to, by the check every
// API request passes (a revoked or unknown key, or one past its rate, is
// refused).
func (s *Server) tenantOfKey(ctx context.Context, key string) (string, error) {
	if s.local != nil {
		// No keys: every request is the local tenant's, within its rate.
		if err := s.local.admitRequest(); err != nil {
			return "", err
		}
		return s.local.tenant.ID, nil
	}
	p, err := s.authenticate(ctx, strings.TrimSpace(key))
	if err != nil {
		return "", err
	}
	return p.tenant.ID, nil
}

// Handler returns the API's handler, for tests and for embedding in
// another server. Serve uses it too.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve answers requests on ln until ctx ends, then shuts down gracefully:
// it stops accepting connections, ends event streams (clients resume them
// with Last-Event-ID), and waits up to ShutdownTimeout for the requests in
// flight to finish. A run queued by a request that finishes is in the
// database; stopping the worker is the caller's business (after Serve
// returns, so no request is left waiting on it).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.cfg.ReadTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		// Requests in flight outlive ctx: shutdown drains them.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	srv.RegisterOnShutdown(s.startClosing)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("serving", slog.String("addr", ln.Addr().String()))
	select {
	case err := <-errc:
		_ = s.Close()
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down: draining requests", slog.Duration("timeout", s.cfg.ShutdownTimeout))
	s.startClosing()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		_ = srv.Close()
		_ = s.Close()
		return fmt.Errorf("server: shutdown: %w", err)
	}
	s.log.Info("stopped serving")
	if s.local != nil {
		// The runs in flight get what is left of the shutdown's time
		// to finish; the ones still going then are stopped.
		s.log.Info("stopping the runs in flight", slog.Duration("timeout", s.cfg.ShutdownTimeout))
		s.local.stop(sctx)
	}
	return nil
}

// Close stops the runs a local server executes, at once, and waits for
// them to end; Serve does it by itself when it returns. It does nothing
// to a server over Postgres, whose runs are the workers'.
func (s *Server) Close() error {
	if s.local != nil {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s.local.stop(ctx)
	}
	return nil
}

// startClosing marks the server as shutting down: readiness fails and event
// streams end.
func (s *Server) startClosing() { s.closeOnce.Do(func() { close(s.closing) }) }

func (s *Server) isClosing() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// slogErrorLog adapts a slog.Logger to promhttp's error log.
type slogErrorLog struct{ log *slog.Logger }

func (l slogErrorLog) Println(v ...any) { l.log.Warn("metrics: " + fmt.Sprint(v...)) }
