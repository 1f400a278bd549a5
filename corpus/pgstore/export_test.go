package pgstore

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/ledgerline/research/corpus"
)

// IndexVectorSearch runs VectorSearch's HNSW query alone, without the exact
// fallback, with sorting disabled so that the planner walks the index even
// where it would rather sort a selective filter's rows. It also returns the
// plan. iterative false turns pgvector's iterative scan off, for contrast.
func (s *Store) IndexVectorSearch(ctx context.Context, vec []float32, f corpus.Filter, k int, iterative bool) (results []corpus.SearchResult, plan string, err error) {
	err = s.withTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := ensureVector(ctx, tx.Conn()); err != nil {
			return err
		}
		if err := s.setScan(ctx, tx, k); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SET LOCAL enable_sort = off`); err != nil {
			return err
		}
		if !iterative {
			if _, err := tx.Exec(ctx, `SET LOCAL hnsw.iterative_scan = off`); err != nil {
				return err
			}
		}
		q := pgvector.NewVector(vec)
		sql, a := s.vectorSQL(q, f, k, vectorOrder)
		rows, _ := tx.Query(ctx, "EXPLAIN "+sql, a...)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		plan = strings.Join(lines, "\n")
		results, err = s.vectorQuery(ctx, tx, q, f, k, vectorOrder)
		return err
	})
	return results, plan, err
}

// VectorIndexSQL is the HNSW index's definition a bulk load falls back on.
const VectorIndexSQL = vectorIndexSQL

// VectorPlan returns the plan of the query VectorSearch runs first for an
// unfiltered search, planned as VectorSearch plans it.
func (s *Store) VectorPlan(ctx context.Context, vec []float32, k int) (plan string, err error) {
	err = s.withTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := ensureVector(ctx, tx.Conn()); err != nil {
			return err
		}
		if err := s.setScan(ctx, tx, k); err != nil {
			return err
		}
		sql, a := s.vectorSQL(pgvector.NewVector(vec), corpus.Filter{}, k, vectorOrder)
		rows, _ := tx.Query(ctx, "EXPLAIN "+sql, append(args{customPlan}, a...)...)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		plan = strings.Join(lines, "\n")
		return err
	})
	return plan, err
}
