package pgtest

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// RoundTrips is a pgx tracer that counts what a pool's connections send
// the server and wait for: a statement, a batch (however many statements
// it holds), a COPY, or a statement prepared outside a batch. Set it as
// the pool config's ConnConfig.Tracer; tests hold the number of round
// trips an operation costs with it.
type RoundTrips struct{ n atomic.Int64 }

// Count returns the round trips counted so far.
func (c *RoundTrips) Count() int64 { return c.n.Load() }

func (c *RoundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *RoundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *RoundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *RoundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *RoundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (c *RoundTrips) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *RoundTrips) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
func (c *RoundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *RoundTrips) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}
