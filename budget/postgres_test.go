package budget_test

import (
	"context"
	"errors"
	"testing"
	"time"

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
	if n, err := other.Sweep(ctx, time.Now().Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("other tenant's Sweep = %d, %v; want 0", n, err)
	}
	if n, err := acme.Sweep(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("acme's Sweep = %d, %v; want 1", n, err)
	}
}
