package pgledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// OpenRunTx writes the run with the caller's transaction: rolled back, it
// leaves nothing; committed, the run is there and opening it again
// resumes it.
func TestOpenRunTx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	s, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	run := ledger.Run{ID: "r1", Question: "What drove Acme's margin?", Mode: ledger.ModeModel, CorpusSnapshot: "snap"}

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, resumed, err := s.OpenRunTx(ctx, tx, run)
	if err != nil || resumed || got.Status != ledger.StatusRunning || got.Tenant != "acme" || got.Mode != ledger.ModeModel {
		t.Fatalf("OpenRunTx = %+v, %v, %v; want a new running run", got, resumed, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, "r1"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("Run after the rollback = %v; want ErrNotFound", err)
	}

	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, _, err := s.OpenRunTx(ctx, tx, run)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	stored, resumed, err := s.OpenRun(ctx, ledger.Run{ID: "r1", Question: "another question"})
	if err != nil || !resumed || stored.Question != run.Question || stored.CorpusSnapshot != "snap" {
		t.Fatalf("OpenRun after the commit = %+v, %v, %v; want the committed run resumed", stored, resumed, err)
	}
	evs, err := s.Events(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Kind != ledger.EventRunCreated || evs[1].Kind != ledger.EventRunResumed || evs[1].Seq != 2 {
		t.Errorf("events %+v; want run_created then run_resumed", evs)
	}

	var verr *ledger.ValidationError
	if _, _, err := s.OpenRunTx(ctx, nil, ledger.Run{ID: "bad id!", Question: "q"}); !errors.As(err, &verr) {
		t.Errorf("OpenRunTx with a bad id = %v; want a ValidationError before touching tx", err)
	}
}
