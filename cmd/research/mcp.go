package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/mcpserver"
)

func runMCP(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := newFlagSet("mcp", "[flags]",
		"Serve the engine to an MCP client (Model Context Protocol) over stdin and stdout, as one\n"+
			"tenant: tools search_filings, lookup_fact, read_passage, ask and ledger_show, and resources\n"+
			"research://corpus and research://runs/{run_id}/ledger. The tools are the engine's own, with\n"+
			"its bounds and scope checks; their calls are recorded in a session run of the ledger, finished\n"+
			"when the client leaves, and charged to the tenant's budget (and its day's, over --db). ask sends\n"+
			"progress notifications when the client gives a progress token. A client cannot choose the\n"+
			"tenant. Logs go to stderr.", stderr)
	var sf storeFlags
	sf.register(fs)
	var mf modelFlags
	mf.register(fs)
	maxSpend := fs.String("max-budget-usd", mcpserver.DefaultMaxSpendUSD.StringFixed(2), "the most one ask call may spend (USD)")
	maxTime := fs.Duration("max-timeout", mcpserver.DefaultMaxWallClock, "the longest wall-clock budget one ask call may have")
	maxCalls := fs.Int("max-tool-calls", mcpserver.DefaultMaxToolCalls, "search, lookup and read calls per session")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return errUsage
	}
	spend, err := decimal.NewFromString(*maxSpend)
	if err != nil || !spend.IsPositive() || budget.CheckUSD(spend) != nil {
		return fmt.Errorf("--max-budget-usd %q: want a positive amount such as 1.00", *maxSpend)
	}
	if *maxTime <= 0 {
		return fmt.Errorf("--max-timeout %s: want a positive duration such as 5m", *maxTime)
	}
	if *maxCalls <= 0 {
		return fmt.Errorf("--max-tool-calls %d: want 1 or more", *maxCalls)
	}
	mc, err := mf.config()
	if err != nil {
		return err
	}
	emb, err := sf.newEmbedder()
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	progress := mcpserver.NewProgressRelay()
	ec := &engine.Config{DataDir: sf.dataDir, Embedder: emb, Model: mc, Logger: logger,
		Hooks: engine.Hooks{Progress: progress.Hook(nil)}}
	closePool := func() {}
	if sf.db != "" {
		pool, err := openMigratedPool(ctx, sf.db)
		if err != nil {
			return err
		}
		ec.Pool, closePool = pool, pool.Close
	}
	defer closePool()
	proc, err := engine.New(ec)
	if err != nil {
		return err
	}
	defer proc.Close()
	t, err := proc.Tenant(ctx, sf.tenant)
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(t, &mcpserver.Config{
		Tenant: sf.tenant, MaxSpendUSD: spend, MaxWallClock: *maxTime, MaxToolCalls: *maxCalls, Logger: logger,
		Progress: progress,
	})
	if err != nil {
		return err
	}
	if stats, err := t.Store.Stats(ctx); err == nil && stats.Documents == 0 {
		logger.Warn("the store holds no filings: run `research ingest` first (same --db or --data-dir)")
	}
	err = srv.Run(ctx, &mcp.StdioTransport{})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// mcpHTTP serves /mcp for research serve: it relays the engines' progress
// to ask calls, and ends the MCP sessions (finishing their session runs)
// as the server shuts down.
type mcpHTTP struct {
	log      *slog.Logger
	timeout  time.Duration // for ending the sessions
	progress *mcpserver.ProgressRelay

	mu sync.Mutex
	// Guarded by mu.
	handler *mcpserver.HTTPHandler // built by the server's routes
}

func newMCPHTTP(log *slog.Logger, timeout time.Duration) *mcpHTTP {
	return &mcpHTTP{log: log, timeout: timeout, progress: mcpserver.NewProgressRelay()}
}

// hooks are h with the relay added to its progress hook.
func (m *mcpHTTP) hooks(h engine.Hooks) engine.Hooks {
	h.Progress = m.progress.Hook(h.Progress)
	return h
}

// build is server.Config.MCP over engines.
func (m *mcpHTTP) build(engines mcpserver.TenantEngines) func(keys func(context.Context, string) (string, error)) http.Handler {
	return func(keys func(context.Context, string) (string, error)) http.Handler {
		h := mcpserver.NewHTTPHandler(engines, keys, &mcpserver.Config{Logger: m.log, Progress: m.progress}, &mcpserver.HTTPOpts{Logger: m.log})
		m.mu.Lock()
		m.handler = h
		m.mu.Unlock()
		return h
	}
}

// closeOnDone ends the MCP sessions once ctx ends, while the server
// drains its requests (an open session's stream would hold the drain);
// the returned wait waits for that, and ends them if ctx has not ended.
func (m *mcpHTTP) closeOnDone(ctx context.Context) (wait func()) {
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-cctx.Done()
		m.mu.Lock()
		h := m.handler
		m.mu.Unlock()
		if h == nil {
			return
		}
		sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), m.timeout)
		defer scancel()
		if err := h.Close(sctx); err != nil {
			m.log.Warn("mcp: end the sessions", slog.String("error", err.Error()))
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
