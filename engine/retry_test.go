package engine

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// TestFinishingLedger: a failed attempt that the queue will retry leaves
// its run running; a verdict is recorded with the answer that follows it,
// in one transaction; and once the run has its verdict, its reservations
// left open are closed.
func TestFinishingLedger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	store, acct := acmeStores(t, pool)
	fl := newFinishingLedger(store, slog.New(slog.DiscardHandler))
	fl.expire = acct.ExpireScope
	status := func(id string) ledger.RunStatus {
		t.Helper()
		r, err := store.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return r.Status
	}
	open := func(id string) {
		t.Helper()
		if _, _, err := store.OpenRun(ctx, ledger.Run{ID: id, Question: "What drove Acme's gross margin?", Mode: ledger.ModeRules}); err != nil {
			t.Fatal(err)
		}
	}

	open("retried")
	if err := fl.FinishRun(WithRetryPending(ctx), "retried", ledger.StatusFailed); err != nil {
		t.Fatal(err)
	}
	if s := status("retried"); s != ledger.StatusRunning {
		t.Errorf("a failed attempt with another to come left the run %s, want running", s)
	}
	if err := fl.FinishRun(ctx, "retried", ledger.StatusFailed); err != nil {
		t.Fatal(err)
	}
	if s := status("retried"); s != ledger.StatusFailed {
		t.Errorf("the last attempt's failure left the run %s, want failed", s)
	}

	open("answered")
	scope := budget.RunScope("answered")
	if err := acct.SetLimits(ctx, scope, budget.NoLimits()); err != nil {
		t.Fatal(err)
	}
	if _, err := acct.Reserve(ctx, "answered/lost", []budget.Scope{scope}, budget.Amounts{ModelCalls: 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := fl.FinishRun(ctx, "answered", ledger.StatusSupported); err != nil {
		t.Fatal(err)
	}
	if s := status("answered"); s != ledger.StatusRunning {
		t.Errorf("the verdict was recorded before its answer: %s", s)
	}
	if _, err := fl.AppendEvent(ctx, "answered", ledger.Event{Kind: "answer", Message: "supported"}); err != nil {
		t.Fatal(err)
	}
	if s := status("answered"); s != ledger.StatusSupported {
		t.Errorf("after the answer the run is %s, want supported", s)
	}
	evs, err := store.Events(ctx, "answered")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(evs); n < 2 || evs[n-2].Kind != ledger.EventRunFinished || evs[n-1].Kind != "answer" {
		t.Errorf("the last events are not the verdict and its answer: %+v", evs)
	}
	u, err := acct.Usage(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	if n := u.Reservations[budget.StateReserved]; n != 0 {
		t.Errorf("%d reservations of the finished run still open", n)
	}
}

// TestIdleTenantsDropped: a tenant's engine is kept while it is asked for
// and dropped once unused for IdleTenant, so the engines a process keeps
// do not grow with every tenant it ever served.
func TestIdleTenantsDropped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	p, err := New(&Config{Pool: pgtest.Pool(t), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a1, err := p.Engine(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	advance(IdleTenant / 2)
	if a2, _ := p.Engine(ctx, "acme"); a2 != a1 {
		t.Error("a tenant asked for within IdleTenant got a new engine")
	}
	if _, err := p.Engine(ctx, "globex"); err != nil {
		t.Fatal(err)
	}
	advance(IdleTenant + time.Minute)
	if _, err := p.Engine(ctx, "initech"); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	kept := len(p.tenants)
	p.mu.Unlock()
	if kept != 1 {
		t.Errorf("%d engines kept after the others were idle for %s, want 1", kept, IdleTenant+time.Minute)
	}
	if a3, _ := p.Engine(ctx, "acme"); a3 == a1 {
		t.Error("an idle tenant's engine was kept")
	}
}

// TestFinishingLedgerReturnsLeases: an attempt that fails with another to
// come returns its run's budget lease, writing its calls, so that the next
// attempt (perhaps in another process) is not starved by the unused slice.
func TestFinishingLedgerReturnsLeases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	store, pg := acmeStores(t, pool)
	leased, err := budget.NewLeased(pg, &budget.LeaseConfig{FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer leased.Close(ctx)
	fl := newFinishingLedger(store, slog.New(slog.DiscardHandler))
	fl.expire, fl.giveBack = leased.ExpireScope, leased.Return
	if _, _, err := store.OpenRun(ctx, ledger.Run{ID: "retried", Question: "What drove Acme's gross margin?", Mode: ledger.ModeRules}); err != nil {
		t.Fatal(err)
	}
	scope := budget.RunScope("retried")
	if err := pg.SetLimits(ctx, scope, budget.NoLimits()); err != nil {
		t.Fatal(err)
	}
	call := budget.Amounts{SearchCalls: 1, Candidates: 50}
	if _, err := leased.Reserve(ctx, "retried/s1", []budget.Scope{scope}, call, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := leased.Settle(ctx, "retried/s1", call); err != nil {
		t.Fatal(err)
	}
	if err := fl.FinishRun(WithRetryPending(ctx), "retried", ledger.StatusFailed); err != nil {
		t.Fatal(err)
	}
	u, err := pg.Usage(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	if !u.Reserved.IsZero() || !u.Settled.Equal(call) {
		t.Fatalf("after the failed attempt: reserved %v, settled %v; want the lease returned and its call written", u.Reserved, u.Settled)
	}
}

// TestFinishingLedgerClosesOnReopen: a process records a run's verdict and
// dies before it closes the run's reservations, its budget lease still
// open. The queue tries the run again elsewhere, where it is reopened with
// its verdict: its reservations are closed then, the dead lease returned.
func TestFinishingLedgerClosesOnReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	store, pg := acmeStores(t, pool)
	run := ledger.Run{ID: "reopened", Question: "What drove Acme's gross margin?", Mode: ledger.ModeRules}
	if _, _, err := store.OpenRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	scope := budget.RunScope(run.ID)
	if err := pg.SetLimits(ctx, scope, budget.NoLimits()); err != nil {
		t.Fatal(err)
	}
	dead, err := budget.NewLeased(pg, nil) // never closed: its process died
	if err != nil {
		t.Fatal(err)
	}
	call := budget.Amounts{SearchCalls: 1, Candidates: 50}
	if _, err := dead.Reserve(ctx, "reopened/s1", []budget.Scope{scope}, call, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := dead.Settle(ctx, "reopened/s1", call); err != nil {
		t.Fatal(err)
	}
	if _, err := dead.Usage(ctx, scope); err != nil { // the executor's read before the verdict
		t.Fatal(err)
	}
	if err := store.FinishRun(ctx, run.ID, ledger.StatusSupported); err != nil {
		t.Fatal(err)
	}

	leased, err := budget.NewLeased(pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer leased.Close(ctx)
	fl := newFinishingLedger(store, slog.New(slog.DiscardHandler))
	fl.expire, fl.giveBack = leased.ExpireScope, leased.Return
	if _, resumed, err := fl.OpenRun(ctx, run); err != nil || !resumed {
		t.Fatalf("OpenRun = %v, %v; want the run resumed", resumed, err)
	}
	u, err := pg.Usage(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	if !u.Reserved.IsZero() || !u.Settled.Equal(call) {
		t.Fatalf("after the run was reopened with its verdict: reserved %v, settled %v; want the dead lease returned", u.Reserved, u.Settled)
	}
}

// acmeStores returns tenant acme's ledger and budget accountant over pool.
func acmeStores(t *testing.T, pool *pgxpool.Pool) (*pgledger.Store, *budget.Postgres) {
	t.Helper()
	store, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	acct, err := budget.NewPostgres(pool, &budget.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	return store, acct
}
