package engine

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// unreachable is a pool on a port nothing listens on, as a database that
// is down looks to a process; its errors name the host, port, user and
// database.
func unreachable(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), "postgres://secret_user@127.0.0.1:1/secret_db?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TestStoreFailuresNameNoDatabase: when the database is down, what the
// budget and the ledger tell the executor (and so the run's notes and
// events) names the operation, not the database's address, user or name;
// the budget's own refusals pass as they are.
func TestStoreFailuresNameNoDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := unreachable(t)
	pg, err := budget.NewPostgres(pool, &budget.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	acct := &publicAccountant{Accountant: pg, log: slog.New(slog.DiscardHandler)}
	led, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	_, reserveErr := acct.Reserve(ctx, "k", []budget.Scope{budget.RunScope("r")}, budget.Amounts{ModelCalls: 1}, nil)
	_, _, openErr := led.OpenRun(ctx, ledger.Run{ID: "r", Question: "What drove Acme's gross margin?", Mode: ledger.ModeRules})
	t.Logf("budget: %v; ledger: %v", reserveErr, openErr)
	for name, err := range map[string]error{"budget": reserveErr, "ledger": openErr} {
		if err == nil {
			t.Fatalf("%s: no error from a database that is down", name)
		}
		for _, leak := range []string{"secret_user", "secret_db", "127.0.0.1", "dial", "connect"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%s error %q names %q", name, err, leak)
			}
		}
	}
	var pe *PublicError
	if !errors.As(reserveErr, &pe) || pe.Cause == nil {
		t.Errorf("the budget's error %v keeps no cause", reserveErr)
	}

	mem, err := budget.NewMemory(nil)
	if err != nil {
		t.Fatal(err)
	}
	own := &publicAccountant{Accountant: mem, log: slog.New(slog.DiscardHandler)}
	_, err = own.Reserve(ctx, "k", []budget.Scope{budget.RunScope("none")}, budget.Amounts{ModelCalls: 1}, nil)
	if !errors.Is(err, budget.ErrNoBudget) || errors.As(err, &pe) {
		t.Errorf("the budget's own refusal became %v", err)
	}
}
