package budget_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/budget/budgettest"
	"github.com/ledgerline/research/internal/pgtest"
)

// openLeased returns a Leased accountant over a fresh schema, closed when

// newPostgres returns the Postgres accountant over pool, failing the test
// when it cannot be made.
func newPostgres(t testing.TB, pool *pgxpool.Pool) *budget.Postgres {
	t.Helper()
	pg, err := budget.NewPostgres(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pg
}

// the test ends.
func openLeased(t testing.TB, cfg *budget.LeaseConfig) (*budget.Leased, *budget.Postgres) {
	t.Helper()
	l, pg, _ := openLeasedPool(t, cfg)
	return l, pg
}

func openLeasedPool(t testing.TB, cfg *budget.LeaseConfig) (*budget.Leased, *budget.Postgres, *pgxpool.Pool) {
	t.Helper()
	pool := pgtest.Pool(t)
	pg := newPostgres(t, pool)
	l, err := budget.NewLeased(pg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return l, pg, pool
}

func TestLeasedContract(t *testing.T) {
	t.Parallel()
	pgtest.URL(t)
	budgettest.Run(t, func(t *testing.T) budgettest.Accountant {
		l, _ := openLeased(t, nil)
		return l
	})
}

var (
	leasedRun  = budget.RunScope("r1")
	leasedDay  = budget.DayScope(helperDay0)
	leasedBoth = []budget.Scope{leasedRun, leasedDay}
	modelCall  = budget.Amounts{ModelCalls: 1, InputTokens: 2000, OutputTokens: 1000, SpendUSD: usd("0.0027")}
)

func setLimits(t testing.TB, a interface {
	SetLimits(context.Context, budget.Scope, budget.Limits) error
}, run, day budget.Limits) {
	t.Helper()
	for s, l := range map[budget.Scope]budget.Limits{leasedRun: run, leasedDay: day} {
		if err := a.SetLimits(context.Background(), s, l); err != nil {
			t.Fatal(err)
		}
	}
}

func callLimits(calls int64) budget.Limits {
	l := budget.NoLimits()
	l.ModelCalls = calls
	return l
}

// waitFor polls cond every 10ms until it holds, or fails the test after
// 10s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("%s: not within 10s", what)
		}
	}
}

// A lease takes SliceCalls calls at once, but no more than a quarter of
// what its tightest scope has left, and at least the call.
func TestLeasedSlice(t *testing.T) {
	t.Parallel()
	pgtest.URL(t)
	tests := []struct {
		name       string
		slice      int64
		run, day   budget.Limits
		wantCalls  int64 // the lease's model calls, reserved in the database
		wantSpend  string
		wantTokens int64
	}{
		{"unlimited", 0, budget.NoLimits(), budget.NoLimits(), 64, "0.1728", 64 * 1000},
		{"configured", 8, budget.NoLimits(), budget.NoLimits(), 8, "0.0216", 8 * 1000},
		{"quarter of the run's calls", 0, callLimits(100), budget.NoLimits(), 25, "0.0675", 25 * 1000},
		{"quarter of the day's spend", 0, budget.NoLimits(), limits(budget.Unlimited, "0.054"), 5, "0.0135", 5 * 1000},
		{"at least the call", 0, callLimits(3), budget.NoLimits(), 1, "0.0027", 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			l, pg := openLeased(t, &budget.LeaseConfig{SliceCalls: tt.slice})
			setLimits(t, pg, tt.run, tt.day)
			if _, err := l.Reserve(ctx, "k", leasedBoth, modelCall, nil); err != nil {
				t.Fatal(err)
			}
			for _, s := range leasedBoth {
				u, err := pg.Usage(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				if u.Reserved.ModelCalls != tt.wantCalls || !u.Reserved.SpendUSD.Equal(usd(tt.wantSpend)) || u.Reserved.OutputTokens != tt.wantTokens {
					t.Errorf("%s: the database holds %v, want %d calls, %s USD, %d output tokens", s, u.Reserved, tt.wantCalls, tt.wantSpend, tt.wantTokens)
				}
				if len(u.Reservations) != 0 {
					t.Errorf("%s: counts %v: a lease is not a call", s, u.Reservations)
				}
				// Through the lease, only the call is reserved.
				lu, err := l.Usage(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				if !lu.Reserved.Equal(modelCall) || lu.Reservations[budget.StateReserved] != 1 {
					t.Errorf("%s: Leased.Usage reserved %v, counts %v; want the one call", s, lu.Reserved, lu.Reservations)
				}
			}
		})
	}
}

func limits(calls int64, spend string) budget.Limits {
	l := budget.NoLimits()
	l.ModelCalls = calls
	l.SpendUSD = usd(spend)
	return l
}

func TestLeasedConfig(t *testing.T) {
	t.Parallel()
	pg, err := budget.NewPostgres(&pgxpool.Pool{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []*budget.LeaseConfig{
		{SliceCalls: -1},
		{FlushInterval: -time.Second},
		{FlushCalls: -1},
		{RetryBackoff: -time.Second},
	} {
		if _, err := budget.NewLeased(pg, cfg); err == nil {
			t.Errorf("NewLeased accepted %+v", *cfg)
		}
	}
	if _, err := budget.NewLeased(nil, nil); err == nil {
		t.Error("NewLeased accepted a nil Postgres")
	}
	if _, err := budget.NewLeased(pg, nil); err != nil {
		t.Errorf("NewLeased with the defaults: %v", err)
	}
}

// A settled call is written within FlushInterval, without any other call.
func TestLeasedFlushes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, pg := openLeased(t, &budget.LeaseConfig{FlushInterval: 20 * time.Millisecond})
	setLimits(t, pg, budget.NoLimits(), budget.NoLimits())
	used := budget.Amounts{ModelCalls: 1, InputTokens: 1800, OutputTokens: 400, SpendUSD: usd("0.00051")}
	if _, err := l.Reserve(ctx, "k", leasedBoth, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Settle(ctx, "k", used); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the settlement written", func() bool {
		u, err := pg.Usage(ctx, leasedDay)
		return err == nil && u.Settled.Equal(used) && u.Reservations[budget.StateSettled] == 1
	})
	// Postgres answers for the written call too once the lease has ended.
	if _, err := l.ExpireScope(ctx, leasedRun); err != nil {
		t.Fatal(err)
	}
	res, err := pg.Settle(ctx, "k", used)
	if err != nil || !res.Replayed || !res.Amounts.Equal(used) {
		t.Fatalf("Postgres.Settle of the written call = %+v, %v; want a replay", res, err)
	}
}

// ExpireScope ends the run's lease: its open calls expire, everything is
// written, and the unused slice goes back to the day.
func TestLeasedExpireScope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, pg, pool := openLeasedPool(t, &budget.LeaseConfig{FlushInterval: time.Hour})
	setLimits(t, pg, budget.NoLimits(), budget.NoLimits())
	for _, k := range []string{"settled", "open"} {
		if _, err := l.Reserve(ctx, k, leasedBoth, modelCall, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Settle(ctx, "settled", modelCall); err != nil {
		t.Fatal(err)
	}
	n, err := l.ExpireScope(ctx, leasedRun)
	if err != nil || n != 1 {
		t.Fatalf("ExpireScope = %d, %v; want the open call", n, err)
	}
	for _, s := range leasedBoth {
		u, err := pg.Usage(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if !u.Reserved.IsZero() || !u.Settled.Equal(modelCall) || !u.Released.Equal(modelCall) ||
			u.Reservations[budget.StateSettled] != 1 || u.Reservations[budget.StateExpired] != 1 {
			t.Fatalf("%s after ExpireScope: %+v", s, u)
		}
	}
	var returned string
	if err := pool.QueryRow(ctx, `SELECT sum(model_calls)::text FROM settlements WHERE kind = 'return'`).Scan(&returned); err != nil || returned != "63" {
		t.Fatalf("returned %s calls, %v; want the 63 the settled call did not use", returned, err)
	}
	// The expired call is Postgres's now, and refuses a settlement.
	if _, err := l.Settle(ctx, "open", modelCall); !errors.Is(err, budget.ErrReleased) {
		t.Fatalf("Settle of the expired call: %v, want ErrReleased", err)
	}
}

// A run resumed in another process replays the keys an earlier lease
// wrote.
func TestLeasedResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, pg := openLeased(t, nil)
	setLimits(t, pg, budget.NoLimits(), budget.NoLimits())
	if _, err := first.Reserve(ctx, "k", leasedBoth, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Settle(ctx, "k", modelCall); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Reserve(ctx, "k2", leasedBoth, modelCall, nil); err == nil {
		t.Fatal("Reserve after Close succeeded")
	}
	second, err := budget.NewLeased(pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close(ctx)
	res, err := second.Reserve(ctx, "k", leasedBoth, modelCall, nil)
	if err != nil || !res.Replayed || res.State != budget.StateSettled {
		t.Fatalf("Reserve of a written key = %+v, %v; want a replay of the settled call", res, err)
	}
	if _, err := second.Reserve(ctx, "k", leasedBoth, budget.Amounts{ModelCalls: 1}, nil); !errors.Is(err, budget.ErrKeyReused) {
		t.Fatalf("Reserve reusing a written key: %v, want ErrKeyReused", err)
	}
}

// A lease swept as expired under a live process (a process stalled longer
// than the TTL) went back to the budgets: the process notices at its next
// write, writes its calls as settled all the same, and takes a new lease.
func TestLeasedLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg, err := budget.NewPostgres(pgtest.Pool(t), &budget.Config{TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	l, err := budget.NewLeased(pg, &budget.LeaseConfig{SliceCalls: 4, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	setLimits(t, pg, budget.NoLimits(), callLimits(100))
	if _, err := l.Reserve(ctx, "a", leasedBoth, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Settle(ctx, "a", modelCall); err != nil {
		t.Fatal(err)
	}
	if n, err := pg.Sweep(ctx, time.Now().Add(2*time.Minute)); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want the lease", n, err)
	}
	u, err := l.Usage(ctx, leasedDay)
	if err != nil || !u.Settled.Equal(modelCall) || !u.Reserved.IsZero() || u.Reservations[budget.StateSettled] != 1 {
		t.Fatalf("Usage after the sweep = %+v, %v; want the settled call written and nothing held", u, err)
	}
	if _, err := l.Reserve(ctx, "b", leasedBoth, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Settle(ctx, "b", modelCall); err != nil {
		t.Fatal(err)
	}
	if res, err := l.Settle(ctx, "a", modelCall); err != nil || !res.Replayed {
		t.Fatalf("replayed Settle of the lost lease's call = %+v, %v", res, err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	u, err = pg.Usage(ctx, leasedDay)
	if err != nil || !u.Settled.Equal(times(modelCall, 2)) || !u.Reserved.IsZero() || u.Reservations[budget.StateSettled] != 2 {
		t.Fatalf("Usage after the second lease = %+v, %v", u, err)
	}
}

// Two accountants in one process, each with its own leases, reserve in one
// run and day until exhausted; then both are closed and the totals hold.
func TestLeasedConcurrentUntilExhausted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	pg := newPostgres(t, pool)
	runLimits, dayLimits := limits(150, "3"), budget.NoLimits()
	dayLimits.SpendUSD, dayLimits.OutputTokens = usd("2.5"), 60_000
	setLimits(t, pg, runLimits, dayLimits)
	var tallies [2]budgettest.Tally
	var errs [2]error
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			l, err := budget.NewLeased(pg, &budget.LeaseConfig{SliceCalls: 16, FlushInterval: 5 * time.Millisecond})
			if err != nil {
				errs[i] = err
				return
			}
			w := budgettest.Workers{Accountant: l, Scopes: leasedBoth, Prefix: fmt.Sprint("p", i)}
			tallies[i], errs[i] = w.Run(ctx, 32)
			errs[i] = errors.Join(errs[i], l.Close(ctx))
		})
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		t.Fatal(err)
	}
	budgettest.CheckTotals(t, pg, leasedBoth, []budget.Limits{runLimits, dayLimits}, tallies[0].Add(tallies[1]))
}

// TestKilledLeaseReturned: a process settles calls against its lease,
// writes some, and is killed before it writes the rest. The lease stays
// reserved until it expires; then a sweep returns what it holds, once. The
// written calls stay settled; the unwritten ones are the documented bound
// of what a crash loses.
func TestKilledLeaseReturned(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	pg := newPostgres(t, pool)
	run := budget.RunScope("run-k")
	for _, s := range []budget.Scope{run, helperDay} {
		if err := pg.SetLimits(ctx, s, budget.NoLimits()); err != nil {
			t.Fatal(err)
		}
	}
	killHeld(t, "leased-hold", pool)

	slice := times(heldByDoomed, 64) // LeaseConfig.SliceCalls's default
	written := times(heldByDoomed, leasedCalls)
	u, err := pg.Usage(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if !u.Reserved.Equal(slice.Sub(written)) || !u.Settled.Equal(written) || u.Reservations[budget.StateSettled] != leasedCalls {
		t.Fatalf("the dead worker's lease: reserved %v, settled %v, counts %v; want %v held and the %d written calls settled",
			u.Reserved, u.Settled, u.Reservations, slice.Sub(written), leasedCalls)
	}
	if n, err := pg.Sweep(ctx, time.Now()); err != nil || n != 0 {
		t.Fatalf("Sweep before expiry = %d, %v; want 0", n, err)
	}
	later := time.Now().Add(2 * time.Minute)
	if n, err := pg.Sweep(ctx, later); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
	if n, err := pg.Sweep(ctx, later); err != nil || n != 0 {
		t.Fatalf("second Sweep = %d, %v; want 0", n, err)
	}
	for _, s := range []budget.Scope{run, helperDay} {
		u, err := pg.Usage(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if !u.Reserved.IsZero() || !u.Settled.Equal(written) || !u.Released.IsZero() {
			t.Fatalf("%s after sweeping: reserved %v, settled %v, released %v; want the lease returned once and the written calls settled", s, u.Reserved, u.Settled, u.Released)
		}
	}
	var returned string
	if err := pool.QueryRow(ctx, `SELECT sum(model_calls)::text FROM settlements WHERE kind = 'return'`).Scan(&returned); err != nil || returned != "61" {
		t.Fatalf("returned %s calls, %v; want the 61 the written calls left", returned, err)
	}
}

func times(a budget.Amounts, n int) budget.Amounts {
	var sum budget.Amounts
	for range n {
		sum = sum.Add(a)
	}
	return sum
}

// A run's attempt fails in one process, which returns its lease; a later
// attempt elsewhere finishes, and its ExpireScope returns the lease of an
// attempt whose process died, without waiting for it to expire.
func TestLeasedReturnAndRecovery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	failed, pg := openLeased(t, &budget.LeaseConfig{SliceCalls: 4, FlushInterval: time.Hour})
	setLimits(t, pg, budget.NoLimits(), budget.NoLimits())
	if _, err := failed.Reserve(ctx, "a1", leasedBoth, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := failed.Settle(ctx, "a1", modelCall); err != nil {
		t.Fatal(err)
	}
	if _, err := failed.Reserve(ctx, "a2", leasedBoth, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := failed.Return(ctx, leasedRun); err != nil || n != 1 {
		t.Fatalf("Return = %d, %v; want the open call expired", n, err)
	}
	u, err := pg.Usage(ctx, leasedDay)
	if err != nil || !u.Reserved.IsZero() || !u.Settled.Equal(modelCall) || !u.Released.Equal(modelCall) {
		t.Fatalf("after Return: %+v, %v; want the settled call and nothing held", u, err)
	}

	dead, err := budget.NewLeased(pg, &budget.LeaseConfig{SliceCalls: 4, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	// Never closed: its process died with one call settled and unwritten.
	if _, err := dead.Reserve(ctx, "b1", leasedBoth, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := dead.Settle(ctx, "b1", modelCall); err != nil {
		t.Fatal(err)
	}
	last, err := budget.NewLeased(pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer last.Close(ctx)
	if n, err := last.ExpireScope(ctx, leasedRun); err != nil || n != 1 {
		t.Fatalf("ExpireScope at the verdict = %d, %v; want the dead lease", n, err)
	}
	u, err = pg.Usage(ctx, leasedDay)
	if err != nil || !u.Reserved.IsZero() || !u.Settled.Equal(modelCall) {
		t.Fatalf("after ExpireScope: %+v, %v; want the dead lease returned, its unwritten call not counted", u, err)
	}
}

// A lease's calls cost no round trip: 48 pairs of Reserve and Settle take
// the first slice, one more taken in the background when half of it is
// used, and the write that returns the lease at Close, two round trips
// each, where Postgres takes four a pair.
func TestLeasedRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := pgtest.Pool(t).Config()
	count := &pgtest.RoundTrips{}
	cfg.ConnConfig.Tracer = count
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	pg := newPostgres(t, pool)
	setLimits(t, pg, budget.NoLimits(), budget.NoLimits())
	l, err := budget.NewLeased(pg, &budget.LeaseConfig{FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	before := count.Count()
	for i := range 48 {
		key := fmt.Sprint("k", i)
		if _, err := l.Reserve(ctx, key, leasedBoth, modelCall, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Settle(ctx, key, modelCall); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := count.Count() - before; got != 6 {
		t.Errorf("48 pairs and Close took %d round trips, want 6", got)
	}
	u, err := pg.Usage(ctx, leasedDay)
	if err != nil || !u.Settled.Equal(times(modelCall, 48)) || !u.Reserved.IsZero() || u.Reservations[budget.StateSettled] != 48 {
		t.Fatalf("after Close: %+v, %v", u, err)
	}
}
