package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/ledger/pgledger"
	"github.com/ledgerline/research/tools"
)

// Engines builds the engines a worker runs tenants' questions with: each
// over the tenant's corpus, ledger and budget in Postgres, with its spend
// counted against the tenant's daily budget, its progress fed to the
// metrics and logged with the run id and the tenant. One engine per tenant
// is kept, so the tenant's concurrency limit holds across its runs. Its
// Engine method is a jobs.EngineFactory; it does what jobs.PgEngineFactory
// does and adds the daily budget, the metrics and the logs.
type Engines struct {
	pool    *pgxpool.Pool
	base    executor.Config
	cfg     EnginesConfig
	tenants *Tenants

	mu      sync.Mutex
	engines map[engineKey]*executor.Engine // guarded by mu
}

type engineKey struct {
	tenant    string
	tenantDay bool
}

// EnginesConfig configures Engines. A nil *EnginesConfig means the
// defaults.
type EnginesConfig struct {
	Metrics  *Metrics         // nil means no metrics
	Logger   *slog.Logger     // nil means no progress logs
	Embedder corpus.Embedder  // nil means corpus.HashEmbedder
	Now      func() time.Time // nil means time.Now
}

// NewEngines returns the engine factory over pool. base carries what every
// engine shares (the model, prices, concurrency, a progress callback);
// its Store, Searcher, Ledger, Budget, Tenant and TenantDay are set per
// tenant.
func NewEngines(pool *pgxpool.Pool, base executor.Config, cfg *EnginesConfig) (*Engines, error) {
	if pool == nil {
		return nil, errors.New("server: NewEngines: nil pool")
	}
	var c EnginesConfig
	if cfg != nil {
		c = *cfg
	}
	if c.Embedder == nil {
		c.Embedder = corpus.HashEmbedder{}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	ts, err := NewTenants(pool)
	if err != nil {
		return nil, err
	}
	return &Engines{pool: pool, base: base, cfg: c, tenants: ts, engines: map[engineKey]*executor.Engine{}}, nil
}

// Engine returns the engine of tenant. For a tenant of the API it first
// sets the tenant's budget for the day (and, near midnight, the next) to
// its daily spend limit, so that the engine's reservations count against
// it; a tenant without a row in tenants (one whose runs only come from
// batch files) runs without a daily budget.
func (e *Engines) Engine(ctx context.Context, tenant string) (*executor.Engine, error) {
	acct, err := budget.NewPostgres(e.pool, &budget.Config{Tenant: tenant})
	if err != nil {
		return nil, err
	}
	key := engineKey{tenant: tenant}
	t, err := e.tenants.Get(ctx, tenant)
	switch {
	case err == nil:
		key.tenantDay = true
		if err := e.setDayBudget(ctx, acct, t.Limits.DailySpendUSD); err != nil {
			return nil, err
		}
	case !errors.Is(err, ErrTenantNotFound):
		return nil, fmt.Errorf("server: look up tenant %q: %w", tenant, err)
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if eng, ok := e.engines[key]; ok {
		return eng, nil
	}
	store, err := pgstore.New(e.pool, &pgstore.Config{Tenant: tenant})
	if err != nil {
		return nil, err
	}
	led, err := pgledger.New(e.pool, &pgledger.Config{Tenant: tenant})
	if err != nil {
		return nil, err
	}
	cfg := e.base
	cfg.Store, cfg.Searcher, cfg.Tenant, cfg.TenantDay = store, corpus.NewSearcher(store, e.cfg.Embedder), tenant, key.tenantDay
	cfg.Ledger, cfg.Budget = led, acct
	if m := e.cfg.Metrics; m != nil {
		cfg.Ledger = &meteredLedger{Store: led, m: m, tenant: tenant, now: e.cfg.Now}
		cfg.Budget = &meteredAccountant{Accountant: acct, m: m}
	}
	cfg.Progress = e.progress(tenant, e.base.Progress)
	run := cfg.Tool
	if run == nil {
		run = tools.Run
	}
	cfg.Tool = jobs.CompleteCalls(run)
	eng, err := executor.New(cfg)
	if err != nil {
		return nil, err
	}
	e.engines[key] = eng
	return eng, nil
}

// setDayBudget gives the tenant's day its spend limit, other dimensions
// unlimited. Within five minutes of midnight (UTC) the next day gets it
// too, so a run that starts after midnight finds its day's budget.
func (e *Engines) setDayBudget(ctx context.Context, acct *budget.Postgres, spend decimal.Decimal) error {
	l := budget.NoLimits()
	l.SpendUSD = spend
	now := e.cfg.Now()
	days := []time.Time{now}
	if nextUTCDay(now).Sub(now) < 5*time.Minute {
		days = append(days, nextUTCDay(now))
	}
	for _, d := range days {
		if err := acct.SetLimits(ctx, budget.DayScope(d), l); err != nil {
			return fmt.Errorf("server: set the tenant's daily budget: %w", err)
		}
	}
	return nil
}

// progress returns the engine's progress callback: metrics, a log line
// with the run id and the tenant, then the base callback.
func (e *Engines) progress(tenant string, next func(executor.Progress)) func(executor.Progress) {
	m, log := e.cfg.Metrics, e.cfg.Logger
	return func(p executor.Progress) {
		if m != nil {
			m.progress(p)
		}
		if log != nil {
			logProgress(log, tenant, p)
		}
		if next != nil {
			next(p)
		}
	}
}

// logProgress writes one progress step: steps of the run as a whole at
// info, node and model calls at debug, failures and retries at warn.
func logProgress(log *slog.Logger, tenant string, p executor.Progress) {
	level := slog.LevelDebug
	switch p.Kind {
	case "route", "plan", "replan", "synthesis", "finished":
		level = slog.LevelInfo
	case "node_failed", "retry":
		level = slog.LevelWarn
	}
	ctx := context.Background()
	if !log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{slog.String("run_id", p.RunID), slog.String("tenant", tenant), slog.String("kind", p.Kind)}
	if p.Node != "" {
		attrs = append(attrs, slog.String("node", p.Node))
	}
	if p.Tool != "" {
		attrs = append(attrs, slog.String("tool", p.Tool))
	}
	if p.Duration > 0 {
		attrs = append(attrs, slog.Duration("duration", p.Duration))
	}
	if p.Wait > 0 {
		attrs = append(attrs, slog.Duration("wait", p.Wait))
	}
	if p.Message != "" {
		attrs = append(attrs, slog.String("detail", p.Message))
	}
	log.LogAttrs(ctx, level, "run progress", attrs...)
}
