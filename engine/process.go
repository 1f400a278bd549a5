package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
	"github.com/ledgerline/research/ledger/pgledger"
	"github.com/ledgerline/research/tools"
)

// Config is what a process's engines are built from. The zero value is
// valid: the embedded store in ".research", rules mode, default prices and
// limits.
type Config struct {
	// Pool is the Postgres database of record (migrated: package
	// migrations); nil means the embedded store and ledger in DataDir, with
	// an in-process budget, for one process.
	Pool *pgxpool.Pool
	// DataDir is the embedded store's directory when Pool is nil; ""
	// means ".research".
	DataDir string
	// Embedder embeds search queries; nil means corpus.HashEmbedder. It
	// must be the one the corpus was ingested with.
	Embedder corpus.Embedder
	// Model configures model mode; nil means no model (model mode is
	// refused, auto mode takes the offline paths).
	Model *executor.ModelConfig
	// Prices are the models' prices; nil means configs.Prices().
	Prices budget.Prices
	// NoTenantDay, when set, leaves runs out of their tenant's daily
	// budget. By default, over Postgres, every reservation also counts
	// against the tenant's budget for the UTC day, which is created on
	// first use with the tenant's daily spend limit (the tenants table;
	// a tenant not registered there has none, and its spend is still
	// recorded per day). The embedded store has no days.
	NoTenantDay bool
	// BudgetRowLocks, on Postgres, has every call reserve and settle in
	// its own transactions on the run's and the tenant's day's budget rows
	// (budget.Postgres). False, the default, has the process reserve its
	// calls against leases (budget.Leased): slices of those budgets taken
	// at once, so that many runs of one tenant do not queue on the day's
	// row; the process writes its calls within 100ms and before each
	// verdict, and returns a run's unused slice when the run ends or its
	// attempt fails, retrying in the background when the database is cut
	// off (docs/benchmarks.md, Leases).
	BudgetRowLocks bool
	// BudgetSweepInterval is how often, over Postgres, the process returns
	// to their budgets the open reservations of every tenant whose expiry
	// has passed (budget.Postgres.Sweep): the holds and leases of processes
	// that died, which otherwise count against the tenants' budgets, their
	// days among them, for good. 0 means DefaultBudgetSweepInterval; a
	// negative value runs no sweeper. Any number of processes may sweep at
	// once: each reservation is returned once.
	BudgetSweepInterval time.Duration
	// Concurrency are the per-provider semaphore sizes; nil means
	// executor.DefaultConcurrency.
	Concurrency map[string]int
	// TenantConcurrency bounds the calls one tenant runs at once; 0 means
	// executor.DefaultTenantConcurrency.
	TenantConcurrency int
	// MaxNodes bounds a task graph; 0 means the planner's default.
	MaxNodes int
	// Retry bounds the retries of transient failures; the zero value
	// means the executor's defaults.
	Retry executor.RetryPolicy
	// Tool runs tool calls; nil means tools.Run. Whatever runs them, a
	// call that has started runs to completion although its run is
	// cancelled (see CompleteCalls).
	Tool executor.ToolFunc
	// Prepare, when set, runs before each new run of a tenant reads the
	// corpus (see executor.Config.Prepare), with the tenant's store and
	// ledger: the server's and the worker's fetch of missing issuers.
	Prepare func(ctx context.Context, tenant string, t *Tenant, req executor.Request, within time.Duration) (ledger.Event, error)
	// Hooks watch the runs (metrics, logs); the zero value watches
	// nothing.
	Hooks Hooks
	// Logger receives the causes of model and budget-store failures,
	// which runs record in words fit for their tenant (see PublicError);
	// nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Hooks let a process watch its tenants' runs and its budget sweeps. Each
// nil field does nothing.
type Hooks struct {
	// Ledger wraps a tenant's ledger (to time runs and count verdicts).
	Ledger func(tenant string, l ledger.Store) ledger.Store
	// Budget wraps a tenant's accountant (to count spend and refusals).
	Budget func(tenant string, a executor.Accountant) executor.Accountant
	// Progress is told about each step of a tenant's runs; it must not
	// block.
	Progress func(tenant string, p executor.Progress)
	// Swept is told how many expired reservations of tenant the process's
	// sweeper returned (see Config.BudgetSweepInterval), when it returned
	// some; the next sweep, and Close, wait for it to return.
	Swept func(tenant string, n int)
}

// Process builds and keeps the engines of one process, one per tenant, so
// that a tenant's concurrency limit holds across its runs in the process.
// Over Postgres, a tenant's engine unused for IdleTenant is dropped (and
// built again when the tenant comes back), so a process serving many
// tenants over time does not keep every one. It is safe for concurrent
// use.
type Process struct {
	cfg   Config
	store *embedded.Store // the embedded store, when cfg.Pool is nil
	// limiter is the process's semaphores: each provider's calls are
	// bounded for the whole process, each tenant's share on top, however
	// many tenants' engines there are.
	limiter *executor.Limiter
	// sweeper returns expired reservations, over Postgres; nil when
	// Config.BudgetSweepInterval is negative.
	sweeper *sweeper

	mu sync.Mutex
	// Guarded by mu.
	tenants map[string]*Tenant
	closed  bool
}

// IdleTenant is how long a tenant's engine is kept without being asked
// for. It is far above the longest attempt at a run (a job's timeout), so
// no run still uses an engine that is dropped.
const IdleTenant = time.Hour

// Tenant is one tenant's engine with what it was built over: its corpus,
// searcher and ledger (research eval reads each run back).
type Tenant struct {
	Engine   *executor.Engine
	Store    corpus.Store
	Searcher *corpus.Searcher
	Ledger   ledger.Store
	// Budget is the accountant the engine reserves against (with the
	// process's Hooks.Budget), for calls made outside the engine's runs
	// that count against the tenant's budgets too (MCP tool calls).
	Budget executor.Accountant
	// TenantDay says whether the engine's reservations also count against
	// the tenant's day (budget.DayScope); see Config.NoTenantDay.
	TenantDay bool

	close    func() error // the embedded ledger's, or the leased budget's
	lastUsed time.Time    // guarded by Process.mu
}

// New returns the process's engine builder. With no Pool it opens the
// embedded store in DataDir; with one it starts the budget sweeper (see
// Config.BudgetSweepInterval). Close closes or stops them.
func New(cfg *Config) (*Process, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if c.DataDir == "" {
		c.DataDir = ".research"
	}
	if c.Embedder == nil {
		c.Embedder = corpus.HashEmbedder{}
	}
	if c.Prices == nil {
		c.Prices = configs.Prices()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Model != nil {
		if c.Model.Caller == nil || c.Model.Model == "" {
			return nil, errors.New("engine: Config.Model needs a Caller and a Model")
		}
		m := *c.Model
		m.Caller = &publicCaller{caller: m.Caller, log: c.Logger}
		c.Model = &m
	}
	p := &Process{cfg: c, tenants: map[string]*Tenant{}, limiter: executor.NewLimiter(c.Concurrency, c.TenantConcurrency)}
	if c.Pool == nil {
		s, err := embedded.Open(c.DataDir, nil)
		if err != nil {
			return nil, err
		}
		p.store = s
	} else if c.BudgetSweepInterval >= 0 {
		interval := c.BudgetSweepInterval
		if interval == 0 {
			interval = DefaultBudgetSweepInterval
		}
		p.sweeper = startSweeper(c.Pool, interval, c.Now, c.Logger, c.Hooks.Swept)
	}
	return p, nil
}

// Engine returns the engine that runs tenant's questions; it is a
// jobs.EngineFactory.
func (p *Process) Engine(ctx context.Context, tenant string) (*executor.Engine, error) {
	t, err := p.Tenant(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return t.Engine, nil
}

// Tenant returns tenant's engine and what it runs over, building them on
// first use.
func (p *Process) Tenant(ctx context.Context, tenant string) (*Tenant, error) {
	if tenant == "" {
		tenant = budget.DefaultTenant
	}
	if !ledger.ValidName(tenant) {
		return nil, fmt.Errorf("engine: tenant %q is not 1-128 letters, digits, '.', '_' or '-'", tenant)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("engine: the process's engines are closed")
	}
	now := p.cfg.Now()
	if p.cfg.Pool != nil {
		for name, t := range p.tenants {
			if now.Sub(t.lastUsed) > IdleTenant {
				delete(p.tenants, name)
			}
		}
	}
	if t, ok := p.tenants[tenant]; ok {
		t.lastUsed = now
		return t, nil
	}
	t, err := p.build(tenant)
	if err != nil {
		return nil, err
	}
	t.lastUsed = now
	p.tenants[tenant] = t
	return t, nil
}

// build puts tenant's engine together.
func (p *Process) build(tenant string) (*Tenant, error) {
	c := &p.cfg
	t := &Tenant{}
	cfg := executor.Config{
		Tenant: tenant, Model: c.Model, Prices: c.Prices,
		Concurrency: c.Concurrency, TenantConcurrency: c.TenantConcurrency, MaxNodes: c.MaxNodes,
		Retry: c.Retry, Now: c.Now, Limiter: p.limiter,
	}
	var acct executor.Accountant
	if c.Pool != nil {
		store, err := pgstore.New(c.Pool, &pgstore.Config{Tenant: tenant})
		if err != nil {
			return nil, err
		}
		led, err := pgledger.New(c.Pool, &pgledger.Config{Tenant: tenant})
		if err != nil {
			return nil, err
		}
		pg, err := budget.NewPostgres(c.Pool, &budget.Config{Tenant: tenant, Now: c.Now, DayLimits: p.dayLimits})
		if err != nil {
			return nil, err
		}
		// Unless Config.BudgetRowLocks, the process's calls reserve against
		// leases. The executor reads the run's Usage before it records the
		// verdict, which writes the run's settled calls; the finished run's
		// ExpireScope returns what its lease did not use.
		t.Store, t.Ledger, acct = store, led, pg
		if !c.BudgetRowLocks {
			leased, err := budget.NewLeased(pg, nil)
			if err != nil {
				return nil, err
			}
			acct = leased
			t.close = func() error {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				return leased.Close(ctx)
			}
		}
		cfg.TenantDay = !c.NoTenantDay
	} else {
		led, err := embeddedledger.Open(c.DataDir, &embeddedledger.Config{Tenant: tenant, Now: c.Now})
		if err != nil {
			return nil, err
		}
		mem, err := budget.NewMemory(&budget.Config{Tenant: tenant, Now: c.Now})
		if err != nil {
			led.Close()
			return nil, err
		}
		t.Store, t.Ledger, acct, t.close = p.store, led, mem, led.Close
	}
	t.Searcher = corpus.NewSearcher(t.Store, c.Embedder)
	fl := newFinishingLedger(t.Ledger, c.Logger.With(slog.String("tenant", tenant)))
	if e, ok := acct.(interface {
		ExpireScope(context.Context, budget.Scope) (int, error)
	}); ok {
		fl.expire = e.ExpireScope
	}
	if r, ok := acct.(interface {
		Return(context.Context, budget.Scope) (int, error)
	}); ok {
		fl.giveBack = r.Return
	}
	acct = &publicAccountant{Accountant: acct, log: c.Logger.With(slog.String("tenant", tenant))}
	cfg.Store, cfg.Searcher, cfg.Ledger, cfg.Budget = t.Store, t.Searcher, fl, acct
	if h := c.Hooks.Ledger; h != nil {
		cfg.Ledger = h(tenant, cfg.Ledger)
	}
	if h := c.Hooks.Budget; h != nil {
		cfg.Budget = h(tenant, acct)
	}
	t.Budget, t.TenantDay = cfg.Budget, cfg.TenantDay
	if h := c.Hooks.Progress; h != nil {
		cfg.Progress = func(pr executor.Progress) { h(tenant, pr) }
	}
	run := c.Tool
	if run == nil {
		run = tools.Run
	}
	cfg.Tool = publicTool(CompleteCalls(run), c.Logger.With(slog.String("tenant", tenant)))
	if prep := c.Prepare; prep != nil {
		cfg.Prepare = func(ctx context.Context, req executor.Request, within time.Duration) (ledger.Event, error) {
			return prep(ctx, tenant, t, req, within)
		}
	}
	eng, err := executor.New(cfg)
	if err != nil {
		if t.close != nil {
			_ = t.close()
		}
		return nil, err
	}
	t.Engine = eng
	return t, nil
}

// tenantDaySpendSQL reads a registered tenant's daily spend limit.
const tenantDaySpendSQL = `SELECT daily_spend_usd FROM tenants WHERE id = $1`

// dayLimits are the limits a tenant's day is created with: its daily spend
// limit, when the tenant is registered, and nothing else limited.
func (p *Process) dayLimits(ctx context.Context, tenant string) (budget.Limits, error) {
	l := budget.NoLimits()
	var spend decimal.Decimal
	err := p.cfg.Pool.QueryRow(ctx, tenantDaySpendSQL, tenant).Scan(&spend)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return l, nil
	case err != nil:
		return budget.Limits{}, fmt.Errorf("engine: read tenant %q's daily spend limit: %w", tenant, err)
	}
	l.SpendUSD = spend
	return l, nil
}

// DataDir is the embedded store's directory, where the engines' ledgers
// are too; "" over Postgres.
func (p *Process) DataDir() string {
	if p.cfg.Pool != nil {
		return ""
	}
	return p.cfg.DataDir
}

// Close stops the budget sweeper, waiting for it, and closes what New and
// Tenant opened (the embedded store and ledgers); the pool is the caller's.
func (p *Process) Close() error {
	if p.sweeper != nil {
		// Outside mu: a sweep's hook may ask for a tenant.
		p.sweeper.stop()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	for _, t := range p.tenants {
		if t.close != nil {
			errs = append(errs, t.close())
		}
	}
	if p.store != nil {
		errs = append(errs, p.store.Close())
	}
	return errors.Join(errs...)
}

// toolCallLimit bounds a tool call whose run has no deadline.
const toolCallLimit = time.Minute

// CompleteCalls lets a tool call that has started finish although its run
// is cancelled (a worker handing its runs back to the queue as it stops),
// so the work is kept rather than redone when the run resumes: a call cut
// short would be recorded as failed, and its replay on the next attempt
// would bring nothing. A call not yet started when the run is cancelled
// does not start, and nothing is recorded for it. Deadlines, such as the
// run's wall-clock budget, still cut calls short.
func CompleteCalls(run executor.ToolFunc) executor.ToolFunc {
	return func(ctx context.Context, env *tools.Env, call tools.Call) (*tools.Output, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cctx := context.WithoutCancel(ctx)
		var cancel context.CancelFunc
		if deadline, ok := ctx.Deadline(); ok {
			cctx, cancel = context.WithDeadline(cctx, deadline)
		} else {
			cctx, cancel = context.WithTimeout(cctx, toolCallLimit)
		}
		defer cancel()
		return run(cctx, env, call)
	}
}
