package budget_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/budget/budgettest"
	"github.com/ledgerline/research/internal/pgtest"
)

func TestPostgresContract(t *testing.T) {
	t.Parallel()
	pgtest.URL(t) // skip once, not per subtest
	budgettest.Run(t, func(t *testing.T) budgettest.Accountant {
		p, err := budget.NewPostgres(pgtest.Pool(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	})
}

// TestPostgresTenants: an accountant sees only its tenant's budgets and
// reservations, and sweeps only its tenant's.
func TestPostgresTenants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	acme, err := budget.NewPostgres(pool, &budget.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := budget.NewPostgres(pool, &budget.Config{Tenant: "other"})
	if err != nil {
		t.Fatal(err)
	}
	run := budget.RunScope("r1")
	if err := acme.SetLimits(ctx, run, budget.NoLimits()); err != nil {
		t.Fatal(err)
	}
	if _, err := acme.Reserve(ctx, "k1", []budget.Scope{run}, budget.Amounts{ModelCalls: 1}, &budget.ReserveOpts{Expires: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Usage(ctx, run); !errors.Is(err, budget.ErrNoBudget) {
		t.Fatalf("other tenant's Usage of acme's run: %v, want ErrNoBudget", err)
	}
	if _, err := other.Reserve(ctx, "k2", []budget.Scope{run}, budget.Amounts{ModelCalls: 1}, nil); !errors.Is(err, budget.ErrNoBudget) {
		t.Fatalf("other tenant reserving in acme's run: %v, want ErrNoBudget", err)
	}
	if _, err := other.Settle(ctx, "k1", budget.Amounts{}); !errors.Is(err, budget.ErrUnknownReservation) {
		t.Fatalf("other tenant settling acme's key: %v, want ErrUnknownReservation", err)
	}
	if tenants, err := budget.ExpiredTenants(ctx, pool, time.Now().Add(time.Hour)); err != nil || !slices.Equal(tenants, []string{"acme"}) {
		t.Fatalf("ExpiredTenants = %q, %v; want acme alone", tenants, err)
	}
	if n, err := other.Sweep(ctx, time.Now().Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("other tenant's Sweep = %d, %v; want 0", n, err)
	}
	if n, err := acme.Sweep(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("acme's Sweep = %d, %v; want 1", n, err)
	}
	if tenants, err := budget.ExpiredTenants(ctx, pool, time.Now().Add(time.Hour)); err != nil || len(tenants) != 0 {
		t.Fatalf("ExpiredTenants after the sweep = %q, %v; want none", tenants, err)
	}
}

// TestPostgresSettled: what each scope's settled calls used, for many
// scopes at once, exactly; scopes without a budget, and another tenant's,
// are absent.
func TestPostgresSettled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	acme, err := budget.NewPostgres(pool, &budget.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := budget.NewPostgres(pool, &budget.Config{Tenant: "other"})
	if err != nil {
		t.Fatal(err)
	}
	spent := budget.Amounts{ModelCalls: 1, InputTokens: 1200, SpendUSD: decimal.RequireFromString("0.00012345")}
	for _, tt := range []struct {
		acct  *budget.Postgres
		scope budget.Scope
		use   budget.Amounts // settled; zero means nothing reserved
	}{
		{acme, budget.RunScope("r1"), spent},
		{acme, budget.RunScope("r2"), budget.Amounts{}},
		{other, budget.RunScope("r3"), spent},
	} {
		if err := tt.acct.SetLimits(ctx, tt.scope, budget.NoLimits()); err != nil {
			t.Fatal(err)
		}
		if tt.use.IsZero() {
			continue
		}
		key := "k-" + tt.scope.ID
		if _, err := tt.acct.Reserve(ctx, key, []budget.Scope{tt.scope}, tt.use, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := tt.acct.Settle(ctx, key, tt.use); err != nil {
			t.Fatal(err)
		}
	}
	got, err := acme.Settled(ctx, []budget.Scope{budget.RunScope("r1"), budget.RunScope("r2"), budget.RunScope("r3"), budget.RunScope("none")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[budget.Scope]budget.Amounts{budget.RunScope("r1"): spent, budget.RunScope("r2"): {}}
	if len(got) != len(want) {
		t.Errorf("Settled = %v, want %v", got, want)
	}
	for s, w := range want {
		if g, ok := got[s]; !ok || !g.Equal(w) {
			t.Errorf("Settled[%s] = %v (%v), want %v", s, g, ok, w)
		}
	}
	if got, err := acme.Settled(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("Settled(nil) = %v, %v; want an empty map", got, err)
	}
	if _, err := acme.Settled(ctx, []budget.Scope{{Kind: "week", ID: "1"}}); err == nil {
		t.Error("Settled accepted a scope of an unknown kind")
	}
}

// Reserve and Settle lock, decide, then write: two round trips each, BEGIN
// travelling with the first batch and COMMIT with the last. Usage reads in
// one.
func TestPostgresRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := pgtest.Pool(t).Config()
	count := &pgtest.RoundTrips{}
	cfg.ConnConfig.Tracer = count
	cfg.MaxConns = 1 // one statement cache, filled by the first pass
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	acct := newPostgres(t, pool)
	scopes := []budget.Scope{budget.RunScope("r"), budget.DayScope(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC))}
	for _, s := range scopes {
		if err := acct.SetLimits(ctx, s, budget.NoLimits()); err != nil {
			t.Fatal(err)
		}
	}
	hold := budget.Amounts{ModelCalls: 1, InputTokens: 100}
	ops := []struct {
		name string
		want int64
		run  func(pass int) error
	}{
		{"Reserve", 2, func(pass int) error {
			_, err := acct.Reserve(ctx, fmt.Sprint("a", pass), scopes, hold, nil)
			return err
		}},
		{"Settle", 2, func(pass int) error {
			_, err := acct.Settle(ctx, fmt.Sprint("a", pass), budget.Amounts{ModelCalls: 1, InputTokens: 60})
			return err
		}},
		{"Usage", 1, func(int) error { _, err := acct.Usage(ctx, scopes[0]); return err }},
		{"Reserve to release", 2, func(pass int) error {
			_, err := acct.Reserve(ctx, fmt.Sprint("b", pass), scopes, hold, nil)
			return err
		}},
		{"Release", 2, func(pass int) error { _, err := acct.Release(ctx, fmt.Sprint("b", pass)); return err }},
	}
	for pass := range 2 {
		for _, o := range ops {
			before := count.Count()
			if err := o.run(pass); err != nil {
				t.Fatalf("%s: %v", o.name, err)
			}
			if got := count.Count() - before; pass == 1 && got != o.want {
				t.Errorf("%s took %d round trips, want %d", o.name, got, o.want)
			}
		}
	}
	u, err := acct.Usage(ctx, scopes[1])
	if err != nil || u.Settled.InputTokens != 120 || !u.Reserved.IsZero() || u.Reservations[budget.StateReleased] != 2 {
		t.Fatalf("usage after two passes: %+v, %v", u, err)
	}
}
