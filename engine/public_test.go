package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
	"github.com/ledgerline/research/ledger/pgledger"
	"github.com/ledgerline/research/tools"
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

// cutStore is a corpus whose facts query meets a connection the database
// terminated, as a restart looks to a tool.
type cutStore struct{ corpus.Store }

func terminated(op string) error {
	return fmt.Errorf("pgstore: %s: %w", op, &pgconn.PgError{Severity: "FATAL", Code: "57P01",
		Message: "terminating connection due to administrator command"})
}

func (cutStore) Facts(context.Context, corpus.FactFilter) ([]corpus.Fact, error) {
	return nil, terminated("facts")
}

func (cutStore) Documents(context.Context) ([]corpus.Document, error) {
	return nil, terminated("documents")
}

func (cutStore) FindFiling(context.Context, string, string, time.Time) (*corpus.Document, error) {
	return nil, terminated("find filing")
}

// TestToolStoreFailureRecordedWithoutDriverText: a tool call whose store
// fails is recorded in the run's ledger (which its tenant reads) and
// shown to the model in words that name no driver or database, while the
// error the executor sees keeps its cause for the retry decision.
func TestToolStoreFailureRecordedWithoutDriverText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	store, err := embedded.Open(filepath.Join(dir, "corpus"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	led, err := embeddedledger.Open(dir, &embeddedledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	if _, _, err := led.OpenRun(ctx, ledger.Run{ID: "r1", Question: "What was Acme's revenue in 2024?", Mode: ledger.ModeRules}); err != nil {
		t.Fatal(err)
	}
	bad := cutStore{store}
	env := &tools.Env{Store: bad, Searcher: corpus.NewSearcher(bad, nil), Ledger: led, RunID: "r1",
		Scope: tools.Scope{Tenant: "acme", Tickers: []string{"ACME"}}}
	args, _ := json.Marshal(tools.LookupFactArgs{Ticker: "ACME", Label: "Revenue", Period: "FY2024"})
	run := publicTool(tools.Run, slog.New(slog.DiscardHandler))
	out, err := run(ctx, env, tools.Call{ID: "c1", Tool: tools.LookupFact, Args: args})
	var pg *pgconn.PgError
	if err == nil || !errors.As(err, &pg) {
		t.Fatalf("error %v: want the store's failure kept as the cause", err)
	}
	rl, lerr := led.Load(ctx, "r1")
	if lerr != nil {
		t.Fatal(lerr)
	}
	if len(rl.ToolCalls) != 1 || rl.ToolCalls[0].Error == "" {
		t.Fatalf("tool calls %+v: want the failed call recorded with its error", rl.ToolCalls)
	}
	shown := []string{err.Error(), rl.ToolCalls[0].Error}
	if out != nil {
		shown = append(shown, out.Text)
	}
	for _, e := range rl.Events {
		shown = append(shown, e.Message)
	}
	for _, s := range shown {
		for _, leak := range []string{"terminating connection", "SQLSTATE", "pgstore", "57P01"} {
			if strings.Contains(s, leak) {
				t.Errorf("%q names %q", s, leak)
			}
		}
	}
	if !strings.Contains(rl.ToolCalls[0].Error, "did not answer") {
		t.Errorf("recorded error %q does not say the store did not answer", rl.ToolCalls[0].Error)
	}
}
