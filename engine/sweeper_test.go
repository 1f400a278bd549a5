package engine_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/internal/pgtest"
)

// Processes that died hold what they reserved until it expires: a lease
// (through Leased, the engine's default) in one tenant, plain holds of
// calls in another. Two processes then sweep at once, with a clock past
// the expiry: every hold goes back to its budgets exactly once (the lease
// as unused, the calls as released), and the tenants' days hold nothing.
func TestProcessSweepsExpiredReservations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	t0 := time.Now()
	day := budget.DayScope(t0)
	setUp := func(tenant string) *budget.Postgres {
		t.Helper()
		pg, err := budget.NewPostgres(pool, &budget.Config{Tenant: tenant, TTL: time.Minute, Now: func() time.Time { return t0 }})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []budget.Scope{budget.RunScope("r1"), day} {
			if err := pg.SetLimits(ctx, s, budget.NoLimits()); err != nil {
				t.Fatal(err)
			}
		}
		return pg
	}
	call := budget.Amounts{ModelCalls: 1, InputTokens: 2000, OutputTokens: 1000}
	scopes := []budget.Scope{budget.RunScope("r1"), day}

	// acme's process reserved one call against a lease and was abandoned:
	// never closed, its lease's row left open.
	acme := setUp("acme")
	dead, err := budget.NewLeased(acme, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Stop its timers once the test is done (before the pool closes).
	t.Cleanup(func() { _ = dead.Close(context.Background()) })
	if _, err := dead.Reserve(ctx, "acme-call", scopes, call, nil); err != nil {
		t.Fatal(err)
	}
	// beta's process reserved calls on row locks and died before settling.
	beta := setUp("beta")
	const betaCalls = 60
	for i := range betaCalls {
		if _, err := beta.Reserve(ctx, fmt.Sprintf("beta-%d", i), scopes, call, nil); err != nil {
			t.Fatal(err)
		}
	}
	if u, err := beta.Usage(ctx, day); err != nil || u.Reserved.ModelCalls != betaCalls {
		t.Fatalf("beta's day before the sweep = %+v, %v; want its calls held", u, err)
	}

	// Two live processes sweep at once, their clock past the expiry.
	const want = 1 + betaCalls
	type sweep struct {
		proc, tenant string
		n            int
	}
	swept := make(chan sweep, 2*want)
	var logs strings.Builder
	var mu sync.Mutex
	procs := make([]*engine.Process, 2)
	for i := range procs {
		name := fmt.Sprintf("p%d", i)
		p, err := engine.New(&engine.Config{
			Pool: pool, BudgetSweepInterval: 5 * time.Millisecond,
			Now:    func() time.Time { return t0.Add(2 * time.Minute) },
			Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil)),
			Hooks:  engine.Hooks{Swept: func(tenant string, n int) { swept <- sweep{name, tenant, n} }},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		procs[i] = p
	}
	total := map[string]int{}
	byProc := map[string]int{}
	timeout := time.After(20 * time.Second)
	for total["acme"]+total["beta"] < want {
		select {
		case s := <-swept:
			total[s.tenant] += s.n
			byProc[s.proc] += s.n
		case <-timeout:
			t.Fatalf("swept %v within 20s; want acme's lease and beta's %d calls", total, betaCalls)
		}
	}
	// Close waits for the sweepers: nothing is swept after it.
	for _, p := range procs {
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	close(swept)
	for s := range swept {
		total[s.tenant] += s.n
		byProc[s.proc] += s.n
	}
	t.Logf("swept by process: %v", byProc)
	if total["acme"] != 1 || total["beta"] != betaCalls {
		t.Errorf("swept %v; want acme 1 and beta %d, each once", total, betaCalls)
	}

	for tenant, pg := range map[string]*budget.Postgres{"acme": acme, "beta": beta} {
		var open, expired int
		err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'reserved'), count(*) FILTER (WHERE state = 'expired')
			FROM reservations WHERE tenant_id = $1`, tenant).Scan(&open, &expired)
		if err != nil {
			t.Fatal(err)
		}
		if open != 0 || expired != total[tenant] {
			t.Errorf("%s: %d reservations open, %d expired; want none open, %d expired", tenant, open, expired, total[tenant])
		}
		for _, s := range scopes {
			u, err := pg.Usage(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if !u.Reserved.IsZero() || !u.Settled.IsZero() {
				t.Errorf("%s's %s after the sweep: reserved %v, settled %v; want nothing", tenant, s, u.Reserved, u.Settled)
			}
		}
	}
	// The lease went back as unused, the calls as released: one settlement
	// row each.
	rows, err := pool.Query(ctx, `SELECT tenant_id, kind, count(*), sum(model_calls) FROM settlements GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var tenant, kind string
		var n, calls int64
		if err := rows.Scan(&tenant, &kind, &n, &calls); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %d rows %d calls", tenant, kind, n, calls))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	wantRows := []string{"acme return 1 rows 64 calls", fmt.Sprintf("beta expire %d rows %d calls", betaCalls, betaCalls)}
	if strings.Join(got, "; ") != strings.Join(wantRows, "; ") {
		t.Errorf("settlements %q; want %q", got, wantRows)
	}
	if u, err := beta.Usage(ctx, day); err != nil || u.Released.ModelCalls != betaCalls {
		t.Errorf("beta's day released %+v, %v; want its %d calls", u.Released, err, betaCalls)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "tenant=acme released=1") {
		t.Errorf("no sweep of acme logged:\n%s", logs.String())
	}
}
