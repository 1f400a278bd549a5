package budget_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/internal/pgtest"
)

// connCutter cuts the database connections of a pool at chosen moments,
// as a database restart or a network failure does: a write whose bytes
// hold mark is cut either before it reaches the server (failWrites), or
// after the server has answered its COMMIT and before the client reads
// the answer (cutCommits): the transaction committed, and the client
// never learns it.
type connCutter struct {
	mark       []byte
	failWrites atomic.Int32 // how many marked writes to fail
	cutCommits atomic.Int32 // how many marked COMMITs to hide
	cuts       atomic.Int32 // how many connections were cut
}

var errCut = errors.New("connection cut")

// pool returns a pool over a fresh schema whose connections c cuts.
func (c *connCutter) pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	cfg := pgtest.Pool(t).Config()
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &cutConn{Conn: conn, c: c}, nil
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

type cutConn struct {
	net.Conn
	c      *connCutter
	marked atomic.Bool // a marked write was sent: its COMMIT's answer is hidden
}

func (k *cutConn) Write(b []byte) (int, error) {
	if bytes.Contains(b, k.c.mark) {
		if k.c.failWrites.Add(-1) >= 0 {
			k.c.cuts.Add(1)
			k.Conn.Close()
			return 0, errCut
		}
		k.c.failWrites.Store(0)
		if k.c.cutCommits.Load() > 0 {
			k.marked.Store(true)
		}
	}
	return k.Conn.Write(b)
}

func (k *cutConn) Read(b []byte) (int, error) {
	n, err := k.Conn.Read(b)
	if k.marked.Load() && bytes.Contains(b[:n], []byte("COMMIT\x00")) && k.c.cutCommits.Add(-1) >= 0 {
		k.c.cuts.Add(1)
		k.Conn.Close()
		return 0, errCut
	}
	return n, err
}

// openCut returns a Leased accountant whose connections cutter cuts, with
// no limits on the run and day of the test, and writes that wait an hour
// unless asked for.
func openCut(t *testing.T, run budget.Scope, cfg budget.LeaseConfig) (*budget.Leased, *budget.Postgres, *pgxpool.Pool, *connCutter) {
	t.Helper()
	cutter := &connCutter{mark: []byte(run.ID)}
	pool := cutter.pool(t)
	pg := newPostgres(t, pool)
	for _, s := range []budget.Scope{run, leasedDay} {
		if err := pg.SetLimits(context.Background(), s, budget.NoLimits()); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.FlushInterval == 0 {
		cfg.FlushInterval = time.Hour
	}
	l, err := budget.NewLeased(pg, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(context.Background()) })
	return l, pg, pool, cutter
}

// checkReturned checks that nothing is held in run and the day, that
// settled is what they settled, and that no reservation is open.
func checkReturned(t *testing.T, pg *budget.Postgres, pool *pgxpool.Pool, run budget.Scope, settled budget.Amounts) {
	t.Helper()
	ctx := context.Background()
	for _, s := range []budget.Scope{run, leasedDay} {
		u, err := pg.Usage(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if !u.Reserved.IsZero() || !u.Settled.Equal(settled) {
			t.Errorf("%s: reserved %v, settled %v; want nothing held and %v settled", s, u.Reserved, u.Settled, settled)
		}
	}
	var open int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM reservations WHERE state = 'reserved'`).Scan(&open); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Errorf("%d reservations open, want none", open)
	}
}

// A write of the lease's calls commits, but the connection is cut before
// its answer is read. The next write learns that it landed: it neither
// moves the calls' usage a second time nor returns more than the lease
// holds, which the budgets' checks refuse, leaving the lease open (the
// fault suite's lease left open).
func TestLeasedCommitAnswerLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := budget.RunScope("run-answer-lost")
	l, pg, pool, cutter := openCut(t, run, budget.LeaseConfig{})
	scopes := []budget.Scope{run, leasedDay}
	for _, k := range []string{"a", "b"} {
		if _, err := l.Reserve(ctx, k, scopes, modelCall, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Settle(ctx, "a", modelCall); err != nil {
		t.Fatal(err)
	}
	cutter.cutCommits.Store(1)
	if _, err := l.Usage(ctx, run); err == nil {
		t.Fatal("Usage succeeded with its write's answer cut")
	}
	if cutter.cuts.Load() != 1 {
		t.Fatalf("%d connections cut, want the write's", cutter.cuts.Load())
	}
	if _, err := l.Settle(ctx, "b", modelCall); err != nil {
		t.Fatal(err)
	}
	if _, err := l.ExpireScope(ctx, run); err != nil {
		t.Fatalf("ExpireScope after a write whose answer was lost: %v", err)
	}
	checkReturned(t, pg, pool, run, times(modelCall, 2))
}

// A lease's next slice is committed, but its answer is lost. The slice is
// the lease's all the same: it is used, and returned with the lease,
// rather than held in the budgets for ever.
func TestLeasedSliceAnswerLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := budget.RunScope("run-slice-lost")
	l, pg, pool, cutter := openCut(t, run, budget.LeaseConfig{SliceCalls: 1})
	scopes := []budget.Scope{run, leasedDay}
	if _, err := l.Reserve(ctx, "a", scopes, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	cutter.cutCommits.Store(1)
	if _, err := l.Reserve(ctx, "b", scopes, modelCall, nil); err == nil {
		t.Fatal("Reserve succeeded with its slice's answer cut")
	}
	if _, err := l.Reserve(ctx, "b", scopes, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b"} {
		if _, err := l.Settle(ctx, k, modelCall); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.ExpireScope(ctx, run); err != nil {
		t.Fatal(err)
	}
	checkReturned(t, pg, pool, run, times(modelCall, 2))
	if leases := countLeases(t, pool); leases != 1 {
		t.Fatalf("%d leases; want the one, its lost slice found", leases)
	}
}

// The first slice of a lease is committed, but its answer is lost: the
// lease is found at the next write, not taken a second time.
func TestLeasedFirstSliceAnswerLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := budget.RunScope("run-first-lost")
	l, pg, pool, cutter := openCut(t, run, budget.LeaseConfig{})
	scopes := []budget.Scope{run, leasedDay}
	cutter.cutCommits.Store(1)
	if _, err := l.Reserve(ctx, "a", scopes, modelCall, nil); err == nil {
		t.Fatal("Reserve succeeded with its slice's answer cut")
	}
	if _, err := l.Reserve(ctx, "a", scopes, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Settle(ctx, "a", modelCall); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Return(ctx, run); err != nil {
		t.Fatal(err)
	}
	checkReturned(t, pg, pool, run, modelCall)
	if leases := countLeases(t, pool); leases != 1 {
		t.Fatalf("%d leases; want the one", leases)
	}
}

// A lease's return meets a cut connection: it is retried in the
// background until it lands, and its calls are written.
func TestLeasedReturnRetried(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := budget.RunScope("run-return-retried")
	l, pg, pool, cutter := openCut(t, run, budget.LeaseConfig{RetryBackoff: 10 * time.Millisecond})
	scopes := []budget.Scope{run, leasedDay}
	if _, err := l.Reserve(ctx, "a", scopes, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Settle(ctx, "a", modelCall); err != nil {
		t.Fatal(err)
	}
	cutter.failWrites.Store(3) // the return, and its first two retries
	if _, err := l.Return(ctx, run); err == nil {
		t.Fatal("Return succeeded over a cut connection")
	}
	waitFor(t, "the lease returned", func() bool {
		var open int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM reservations WHERE state = 'reserved'`).Scan(&open)
		return err == nil && open == 0
	})
	if n := cutter.cuts.Load(); n != 3 {
		t.Errorf("%d connections cut, want 3", n)
	}
	checkReturned(t, pg, pool, run, modelCall)
}

// A run's verdict meets a cut connection: ExpireScope returns its lease,
// and closes what the run's scope holds, in the background.
func TestLeasedExpireScopeRetried(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := budget.RunScope("run-expire-retried")
	l, pg, pool, cutter := openCut(t, run, budget.LeaseConfig{RetryBackoff: 10 * time.Millisecond})
	scopes := []budget.Scope{run, leasedDay}
	// A reservation of the run straight in Postgres: a call whose
	// settlement never came.
	if _, err := pg.Reserve(ctx, "orphan", scopes, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Reserve(ctx, "a", scopes, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Settle(ctx, "a", modelCall); err != nil {
		t.Fatal(err)
	}
	cutter.failWrites.Store(1)
	if _, err := l.ExpireScope(ctx, run); err == nil {
		t.Fatal("ExpireScope succeeded over a cut connection")
	}
	waitFor(t, "the run's reservations closed", func() bool {
		var open int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM reservations WHERE state = 'reserved'`).Scan(&open)
		return err == nil && open == 0
	})
	checkReturned(t, pg, pool, run, modelCall)
}

// A return that still fails when the process closes gets a last attempt
// at Close.
func TestLeasedReturnRetriedAtClose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := budget.RunScope("run-return-close")
	l, pg, pool, cutter := openCut(t, run, budget.LeaseConfig{RetryBackoff: time.Hour})
	scopes := []budget.Scope{run, leasedDay}
	if _, err := l.Reserve(ctx, "a", scopes, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Settle(ctx, "a", modelCall); err != nil {
		t.Fatal(err)
	}
	cutter.failWrites.Store(1)
	if _, err := l.Return(ctx, run); err == nil {
		t.Fatal("Return succeeded over a cut connection")
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	checkReturned(t, pg, pool, run, modelCall)
}

// A run has its verdict in one process while a stale attempt of it runs
// in another, whose lease wants more: the verdict's ExpireScope closed the
// run's scope, so no slice is taken, and the lease is returned at once,
// not held until it expires. SetLimits (a resumed attempt) opens the
// scope again.
func TestLeasedSliceAfterVerdict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	pg := newPostgres(t, pool)
	run := budget.RunScope("run-verdict")
	scopes := []budget.Scope{run, leasedDay}
	for _, s := range scopes {
		if err := pg.SetLimits(ctx, s, budget.NoLimits()); err != nil {
			t.Fatal(err)
		}
	}
	open := func() int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM reservations WHERE state = 'reserved'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	stale, err := budget.NewLeased(pg, &budget.LeaseConfig{SliceCalls: 1, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer stale.Close(ctx)
	finisher, err := budget.NewLeased(pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer finisher.Close(ctx)

	if _, err := stale.Reserve(ctx, "a", scopes, modelCall, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := finisher.ExpireScope(ctx, run); err != nil {
		t.Fatal(err)
	}
	if n := open(); n != 0 {
		t.Fatalf("%d reservations open after the verdict", n)
	}
	// The stale attempt's lease is full: its next call needs a slice.
	if _, err := stale.Reserve(ctx, "b", scopes, modelCall, nil); !errors.Is(err, budget.ErrScopeClosed) {
		t.Fatalf("Reserve after the run's verdict elsewhere: %v, want ErrScopeClosed", err)
	}
	if n := open(); n != 0 {
		t.Fatalf("%d reservations open after a stale attempt's call: a slice was taken after the verdict", n)
	}
	// Its open call was closed with the run, as Postgres closes a call's
	// reservation at the verdict.
	if _, err := stale.Settle(ctx, "a", modelCall); !errors.Is(err, budget.ErrReleased) {
		t.Fatalf("Settle of the stale attempt's call: %v, want ErrReleased", err)
	}
	u, err := stale.Usage(ctx, leasedDay)
	if err != nil || !u.Reserved.IsZero() || !u.Settled.IsZero() {
		t.Fatalf("the day after the stale attempt: %+v, %v; want nothing held", u, err)
	}

	// A resumed attempt sets the run's limits: the scope is open again.
	if err := pg.SetLimits(ctx, run, budget.NoLimits()); err != nil {
		t.Fatal(err)
	}
	if _, err := stale.Reserve(ctx, "c", scopes, modelCall, nil); err != nil {
		t.Fatalf("Reserve once the run's limits are set again: %v", err)
	}
}

// countLeases returns how many leases were ever taken in pool's database.
func countLeases(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM reservations WHERE lease`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
