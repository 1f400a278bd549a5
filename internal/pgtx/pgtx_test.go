package pgtx_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/internal/pgtx"
)

func TestWithTx(t *testing.T) {
	pool, _ := pgtest.EmptyPool(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE TABLE t (n int)`); err != nil {
		t.Fatal(err)
	}
	insert := func(n int, fail error) func(pgx.Tx) error {
		return func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO t VALUES ($1)`, n); err != nil {
				return err
			}
			return fail
		}
	}
	if err := pgtx.WithTx(ctx, pool, pgx.TxOptions{}, insert(1, nil)); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := pgtx.WithTx(ctx, pool, pgx.TxOptions{}, insert(2, boom)); !errors.Is(err, boom) {
		t.Fatalf("WithTx error = %v, want fn's error", err)
	}
	// A caller cancelled inside the transaction: nothing commits, and the
	// pooled connection comes back usable.
	cctx, cancel := context.WithCancel(ctx)
	err := pgtx.WithTx(cctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(cctx, `INSERT INTO t VALUES (3)`); err != nil {
			return err
		}
		cancel()
		return nil
	})
	if err == nil {
		t.Fatal("commit after cancellation reported success")
	}
	var got []int
	rows, _ := pool.Query(ctx, `SELECT n FROM t ORDER BY n`)
	got, err = pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != 1 {
		t.Fatalf("rows = %v, want only the committed 1", got)
	}
	if err := pgtx.WithTx(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, insert(4, nil)); err == nil {
		t.Fatal("a write in a read-only transaction succeeded: options were not applied")
	}
}
