// Package pgtx runs functions in Postgres transactions, the one way the
// project's Postgres stores (corpus, budget, ledger) do it.
package pgtx

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Beginner starts transactions: a *pgxpool.Pool or a *pgx.Conn.
type Beginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// WithTx runs fn in a transaction that is committed when fn returns nil and
// rolled back otherwise. The rollback runs even after ctx is cancelled, so
// a cancelled caller never leaves a transaction open on a pooled connection.
func WithTx(ctx context.Context, db Beginner, opts pgx.TxOptions, fn func(tx pgx.Tx) error) error {
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
