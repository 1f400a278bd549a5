package engine

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/budget"
)

// DefaultBudgetSweepInterval is how often a process over Postgres sweeps
// expired reservations when Config.BudgetSweepInterval is 0.
const DefaultBudgetSweepInterval = time.Minute

// sweeper returns, every interval, the open reservations of every tenant
// whose expiry has passed (budget.Postgres.Sweep): the holds of calls and
// the leases of processes that died, which would otherwise count against
// their budgets, a tenant's day among them, for good. Any number of
// processes may sweep at once: each reservation is closed once, under its
// row lock, and the others find it closed.
type sweeper struct {
	pool     *pgxpool.Pool
	interval time.Duration
	now      func() time.Time
	log      *slog.Logger
	swept    func(tenant string, n int) // Hooks.Swept; nil does nothing

	cancel context.CancelFunc
	done   chan struct{} // closed when run returns
}

// startSweeper starts a sweeper that runs until stop.
func startSweeper(pool *pgxpool.Pool, interval time.Duration, now func() time.Time, log *slog.Logger, swept func(string, int)) *sweeper {
	ctx, cancel := context.WithCancel(context.Background())
	s := &sweeper{pool: pool, interval: interval, now: now, log: log, swept: swept, cancel: cancel, done: make(chan struct{})}
	go s.run(ctx)
	return s
}

// stop stops the sweeper, cutting a sweep short, and waits for it. It may
// be called more than once.
func (s *sweeper) stop() {
	s.cancel()
	<-s.done
}

func (s *sweeper) run(ctx context.Context) {
	defer close(s.done)
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s.sweep(ctx)
	}
}

// sweep sweeps once every tenant with expired reservations. What fails is
// logged and left to the next tick; a panic too, so that the sweeper never
// takes the process down.
func (s *sweeper) sweep(ctx context.Context) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("budget sweep: panic; retried at the next sweep",
				slog.String("panic", fmt.Sprint(r)), slog.String("stack", string(debug.Stack())))
		}
	}()
	now := s.now()
	tenants, err := budget.ExpiredTenants(ctx, s.pool, now)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("budget sweep: expired reservations could not be listed; retried at the next sweep", slog.String("error", err.Error()))
		}
		return
	}
	for _, tenant := range tenants {
		if ctx.Err() != nil {
			return
		}
		n, err := s.sweepTenant(ctx, tenant, now)
		switch {
		case n > 0:
			s.log.Info("budget sweep: expired reservations returned to their budgets", slog.String("tenant", tenant), slog.Int("released", n))
			if s.swept != nil {
				s.swept(tenant, n)
			}
		case err == nil:
			// Another process's sweep closed them first.
			s.log.Debug("budget sweep: nothing left to return", slog.String("tenant", tenant))
		}
		if err != nil && ctx.Err() == nil {
			s.log.Warn("budget sweep: a tenant's expired reservations could not all be returned; retried at the next sweep",
				slog.String("tenant", tenant), slog.String("error", err.Error()))
		}
	}
}

// sweepTenant runs tenant's Sweep.
func (s *sweeper) sweepTenant(ctx context.Context, tenant string, now time.Time) (int, error) {
	pg, err := budget.NewPostgres(s.pool, &budget.Config{Tenant: tenant, Now: s.now})
	if err != nil {
		return 0, err
	}
	return pg.Sweep(ctx, now)
}
