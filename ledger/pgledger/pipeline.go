package pgledger

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// sender runs a write's statements: a pipeTx, or the caller's pgx.Tx for
// the XTx forms of the writes.
type sender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// pipeTx is a transaction on one pooled connection whose BEGIN travels in
// the batch of its first statements and whose COMMIT in the batch of its
// last, so that a write that reads once before it writes (lock the run,
// read what it holds; then write) costs two round trips where
// pgx.BeginTx, a round trip per statement and Commit cost one each. The
// commit's result is read before commit returns: nothing is acknowledged
// before it is committed.
type pipeTx struct {
	conn  *pgxpool.Conn
	begin string // the statement that opens the transaction
	began bool   // BEGIN was sent: the transaction ends with COMMIT or ROLLBACK
	done  bool   // COMMIT succeeded
}

var _ sender = (*pipeTx)(nil)

// errNotCommitted is returned when a COMMIT answers ROLLBACK: the
// transaction had failed.
var errNotCommitted = errors.New("pgledger: the transaction was rolled back")

// SendBatch sends b, with BEGIN before it when nothing was sent yet.
func (p *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if !p.began {
		nb := &pgx.Batch{}
		nb.Queue(p.begin)
		nb.QueuedQueries = append(nb.QueuedQueries, b.QueuedQueries...)
		b, p.began = nb, true
	}
	return p.conn.SendBatch(ctx, b)
}

func (p *pipeTx) open(ctx context.Context) error {
	if p.began {
		return nil
	}
	return p.SendBatch(ctx, &pgx.Batch{}).Close()
}

// CopyFrom runs a COPY in the transaction (a round trip of its own).
func (p *pipeTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if err := p.open(ctx); err != nil {
		return 0, err
	}
	return p.conn.CopyFrom(ctx, table, columns, src)
}

// Exec runs one statement in the transaction (a round trip of its own).
func (p *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := p.open(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return p.conn.Exec(ctx, sql, args...)
}

// commit sends b (nil for nothing) followed by COMMIT, runs b's callbacks
// and returns once the commit is done. A callback's error does not stop
// the COMMIT that follows in the same batch, so b's callbacks only read
// results; checks that must undo the write belong in earlier batches.
func (p *pipeTx) commit(ctx context.Context, b *pgx.Batch) error {
	if b == nil {
		b = &pgx.Batch{}
	}
	b.Queue("commit").Exec(func(tag pgconn.CommandTag) error {
		if tag.String() != "COMMIT" {
			return errNotCommitted
		}
		return nil
	})
	if err := p.SendBatch(ctx, b).Close(); err != nil {
		return err
	}
	p.done = true
	return nil
}

// end rolls back a transaction that began and did not commit (even when
// ctx is cancelled) and returns the connection to the pool, which closes
// it rather than reuse it should the rollback have failed.
func (p *pipeTx) end(ctx context.Context) {
	if p.began && !p.done && p.conn.Conn().PgConn().TxStatus() != 'I' {
		_, _ = p.conn.Exec(context.WithoutCancel(ctx), "rollback")
	}
	p.conn.Release()
}

// writeTx runs fn in a pipelined read-write transaction and commits it
// with the batch fn returns (nil: nothing more to write). fn may send
// batches of its own first, through q; an error from fn rolls back.
func (s *Store) writeTx(ctx context.Context, fn func(q sender) (*pgx.Batch, error)) error {
	return s.pipe(ctx, "begin", fn)
}

// readTx runs fn's reads in a read-only, repeatable-read transaction, so
// that a multi-query read sees one state. fn queues its queries in b;
// BEGIN, the queries and COMMIT go out in one round trip.
func (s *Store) readTx(ctx context.Context, fn func(b *pgx.Batch)) error {
	return s.pipe(ctx, "begin isolation level repeatable read read only", func(sender) (*pgx.Batch, error) {
		b := &pgx.Batch{}
		fn(b)
		return b, nil
	})
}

func (s *Store) pipe(ctx context.Context, begin string, fn func(q sender) (*pgx.Batch, error)) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	p := &pipeTx{conn: conn, begin: begin}
	defer p.end(ctx)
	final, err := fn(p)
	if err != nil {
		return err
	}
	return p.commit(ctx, final)
}

// inTx runs fn's statements in the caller's transaction tx and sends the
// batch fn returns.
func inTx(ctx context.Context, tx pgx.Tx, fn func(q sender) (*pgx.Batch, error)) error {
	if tx == nil {
		return errors.New("pgledger: nil transaction")
	}
	final, err := fn(tx)
	if err != nil || final == nil {
		return err
	}
	return tx.SendBatch(ctx, final).Close()
}
