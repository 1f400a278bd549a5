package budget

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"
)

// Postgres is the accountant of record: budgets, reservations and
// settlements in the tables of migration 0002_budget, shared by every
// process that reserves against them. Each operation is one transaction
// that locks the reservation row, then its scopes' budget rows in
// (kind, id) order, so concurrent reservations never deadlock and the
// totals in budgets always equal the sum of the reservations and
// settlements. Reserve, Settle and Release take two round trips each (see
// pipeTx), Usage one. Every query filters on the accountant's tenant.
type Postgres struct {
	pool *pgxpool.Pool
	cfg  Config
}

// NewPostgres returns an accountant over pool, whose schema must be
// migrated (package migrations).
func NewPostgres(pool *pgxpool.Pool, cfg *Config) (*Postgres, error) {
	if pool == nil {
		return nil, errors.New("budget: NewPostgres: nil pool")
	}
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Postgres{pool: pool, cfg: c}, nil
}

// The statements below are built once, when the package is initialised,
// from the one list of dimensions (countDims, then SpendUSD): a statement
// takes its fixed arguments first ($1 the tenant, then its own), then the
// dimensions in that order (amountArgs), then any that follow them, whose
// placeholders param counts on from the dimensions'.

// insertLimitsSQL inserts a budget with its limits.
var insertLimitsSQL = `
INSERT INTO budgets (tenant_id, scope_kind, scope_id, ` + amountList("limit_") + `, wall_clock_ms)
VALUES ($1, $2, $3, ` + params(4) + `, ` + param(4+nAmounts) + `)`

var upsertLimitsSQL = insertLimitsSQL + `
ON CONFLICT (tenant_id, scope_kind, scope_id) DO UPDATE SET
	` + joinDims(func(d Dimension) string { return "limit_" + string(d) + " = EXCLUDED.limit_" + string(d) }) + `,
	wall_clock_ms = EXCLUDED.wall_clock_ms, closed_at = NULL, updated_at = now()`

// createLimitsSQL creates a budget unless the scope has one.
var createLimitsSQL = insertLimitsSQL + `
ON CONFLICT (tenant_id, scope_kind, scope_id) DO NOTHING`

// SetLimits creates scope's budget with limits, or replaces the limits of
// an existing one, keeping its usage. Lowering a limit below the usage
// refuses further reservations in that dimension; it cancels nothing. It
// opens a scope that ExpireScope closed.
func (p *Postgres) SetLimits(ctx context.Context, scope Scope, limits Limits) error {
	return p.setLimits(ctx, upsertLimitsSQL, scope, limits)
}

// setLimits runs query (upsertLimitsSQL or createLimitsSQL) with scope
// and limits.
func (p *Postgres) setLimits(ctx context.Context, query string, scope Scope, limits Limits) error {
	if err := scope.validate(); err != nil {
		return err
	}
	if err := limits.validate(); err != nil {
		return err
	}
	args := []any{p.cfg.Tenant, string(scope.Kind), scope.ID}
	for _, c := range limits.counts() {
		if c < 0 {
			args = append(args, nil)
		} else {
			args = append(args, c)
		}
	}
	if limits.SpendUSD.IsNegative() {
		args = append(args, nil)
	} else {
		args = append(args, numeric(limits.SpendUSD))
	}
	if limits.WallClock > 0 {
		args = append(args, limits.WallClock.Milliseconds())
	} else {
		args = append(args, nil)
	}
	_, err := p.pool.Exec(ctx, query, args...)
	return err
}

// amountColumns are the amount columns of reservations and settlements, in
// the order of amountArgs.
var amountColumns = amountList("")

var insertReservationSQL = `
INSERT INTO reservations (tenant_id, key, scope_keys, ` + amountColumns + `, state, expires_at)
VALUES ($1, $2, $3, ` + params(4) + `, 'reserved', ` + param(4+nAmounts) + `)
ON CONFLICT (tenant_id, key) DO NOTHING`

// lockBudgetsSQL locks the budget rows of the scopes ($2 kinds, $3 ids) in
// a fixed order and returns limits, reserved and settled.
var lockBudgetsSQL = `
SELECT scope_kind, scope_id, ` + amountList("limit_") + `, wall_clock_ms,
	` + amountList("reserved_") + `,
	` + amountList("settled_") + `
FROM budgets
WHERE tenant_id = $1 AND (scope_kind, scope_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))
ORDER BY scope_kind, scope_id
FOR UPDATE`

var addReservedSQL = `
UPDATE budgets SET ` + amountAdd("reserved_", "+", 4) + `, updated_at = now()
WHERE tenant_id = $1 AND (scope_kind, scope_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`

var selectReservationSQL = `
SELECT scope_keys, ` + amountColumns + `, state
FROM reservations WHERE tenant_id = $1 AND key = $2`

// Reserve holds amounts in every one of scopes, or in none: it fails with
// an *ExhaustedError if any scope cannot hold them, and with ErrNoBudget if
// a scope has no limits (a tenant's day gets them from Config.DayLimits,
// when set, in one row however many processes ask at once). Reserving a
// key again with the same scopes and amounts is a replay; with others,
// ErrKeyReused.
func (p *Postgres) Reserve(ctx context.Context, key string, scopes []Scope, amounts Amounts, opts *ReserveOpts) (Result, error) {
	return reserveCreatingDay(ctx, &p.cfg,
		func() (Result, error) { return p.reserve(ctx, key, scopes, amounts, opts) },
		func(s Scope, l Limits) error { return p.setLimits(ctx, createLimitsSQL, s, l) })
}

func (p *Postgres) reserve(ctx context.Context, key string, scopes []Scope, amounts Amounts, opts *ReserveOpts) (res Result, err error) {
	sorted, err := checkReserve(key, scopes, amounts)
	if err != nil {
		return Result{}, err
	}
	expires := p.cfg.expiry(opts)
	kinds, ids, keys := scopeArrays(sorted)

	// Two round trips: BEGIN, the reservation's row and the budgets'
	// locks; then, once the limits are checked, the hold and COMMIT.
	err = p.pipe(ctx, func(t *pipeTx) error {
		b := &pgx.Batch{}
		var inserted bool
		b.Queue(insertReservationSQL, append(append([]any{p.cfg.Tenant, key, keys}, amountArgs(amounts)...), expires)...).
			Exec(func(tag pgconn.CommandTag) error {
				inserted = tag.RowsAffected() > 0
				return nil
			})
		var budgets []budgetRow
		b.Queue(lockBudgetsSQL, p.cfg.Tenant, kinds, ids).Query(func(rows pgx.Rows) (err error) {
			budgets, err = scanBudgets(rows)
			return err
		})
		if err := t.send(ctx, b); err != nil {
			return err
		}
		if !inserted {
			// The key exists: a replay, or a reuse.
			var prevKeys []string
			var prev Amounts
			var state string
			b := &pgx.Batch{}
			b.Queue(selectReservationSQL, p.cfg.Tenant, key).QueryRow(func(row pgx.Row) error {
				return row.Scan(append([]any{&prevKeys}, append(amountScan(&prev), &state)...)...)
			})
			if err := t.send(ctx, b); err != nil {
				return err
			}
			if !slices.Equal(prevKeys, keys) || !prev.Equal(amounts) {
				return fmt.Errorf("%w: %q", ErrKeyReused, key)
			}
			res = Result{Key: key, State: State(state), Replayed: true, Amounts: prev}
			return errRollback
		}
		for i, s := range sorted {
			if i >= len(budgets) || budgets[i].scope != s {
				return &noBudgetError{scope: s}
			}
			used := budgets[i].reserved.Add(budgets[i].settled)
			if err := exhausted(s, &budgets[i].limits, &used, &amounts); err != nil {
				return err
			}
		}
		b = &pgx.Batch{}
		b.Queue(addReservedSQL, append([]any{p.cfg.Tenant, kinds, ids}, amountArgs(amounts)...)...)
		if err := t.commit(ctx, b); err != nil {
			return err
		}
		res = Result{Key: key, State: StateReserved, Amounts: amounts}
		return nil
	})
	return res, err
}

var lockReservationSQL = `
SELECT scope_keys, ` + amountColumns + `, state, lease
FROM reservations WHERE tenant_id = $1 AND key = $2 FOR UPDATE`

var closedAmountsSQL = `
SELECT ` + amountColumns + ` FROM settlements
WHERE tenant_id = $1 AND key = $2 AND kind <> 'rejected'`

var insertSettlementSQL = `
INSERT INTO settlements (tenant_id, key, kind, ` + amountColumns + `, reason)
VALUES ($1, $2, $3, ` + params(4) + `, ` + param(4+nAmounts) + `)`

const closeReservationSQL = `
UPDATE reservations SET state = $3, closed_at = now() WHERE tenant_id = $1 AND key = $2`

// settleBudgetsSQL moves a reservation (the dimensions from $4) out of
// reserved and its actual usage (the dimensions after them) into settled.
var settleBudgetsSQL = `
UPDATE budgets SET ` + amountAdd("reserved_", "-", 4) + `,
	` + amountAdd("settled_", "+", 4+nAmounts) + `, updated_at = now()
WHERE tenant_id = $1 AND (scope_kind, scope_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`

// releaseBudgetsSQL moves a reservation (the dimensions from $4) from
// reserved to released.
var releaseBudgetsSQL = `
UPDATE budgets SET ` + amountAdd("reserved_", "-", 4) + `,
	` + amountAdd("released_", "+", 4) + `, updated_at = now()
WHERE tenant_id = $1 AND (scope_kind, scope_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`

// returnBudgetsSQL takes a lease's unused slice (the dimensions from $4)
// out of reserved: not a call, so not counted as released.
var returnBudgetsSQL = `
UPDATE budgets SET ` + amountAdd("reserved_", "-", 4) + `, updated_at = now()
WHERE tenant_id = $1 AND (scope_kind, scope_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`

const countRejectedSQL = `
UPDATE budgets SET rejected_settlements = rejected_settlements + 1, updated_at = now()
WHERE tenant_id = $1 AND (scope_kind, scope_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`

// lockedReservation is a reservation row read under its lock.
type lockedReservation struct {
	scopeKeys []string
	amounts   Amounts
	state     State
	// lease marks the slice a Leased accountant holds: not a call, so
	// Settle and Release do not know it, and an expired one goes back to
	// the budgets as unused.
	lease bool
}

// lockReservation locks key's row, or returns ErrUnknownReservation: the
// first round trip of Settle and Release, with BEGIN.
// A lease's row is unknown too unless leases is set (Sweep and
// ExpireScope).
func (p *Postgres) lockReservation(ctx context.Context, t *pipeTx, key string, leases bool) (lockedReservation, error) {
	var r lockedReservation
	var state string
	found := false
	b := &pgx.Batch{}
	b.Queue(lockReservationSQL, p.cfg.Tenant, key).Query(func(rows pgx.Rows) error {
		// An unknown key is an answer, not a failed batch (pgx forgets a
		// connection's prepared statements when a batch fails).
		if found = rows.Next(); !found {
			return nil
		}
		return rows.Scan(append([]any{&r.scopeKeys}, append(amountScan(&r.amounts), &state, &r.lease)...)...)
	})
	if err := t.send(ctx, b); err != nil {
		return r, err
	}
	if !found || (r.lease && !leases) {
		return r, fmt.Errorf("%w: %q", ErrUnknownReservation, key)
	}
	r.state = State(state)
	return r, nil
}

// closedAmounts returns what closing key settled or returned.
func (p *Postgres) closedAmounts(ctx context.Context, t *pipeTx, key string) (Amounts, error) {
	var a Amounts
	b := &pgx.Batch{}
	b.Queue(closedAmountsSQL, p.cfg.Tenant, key).QueryRow(func(row pgx.Row) error {
		return row.Scan(amountScan(&a)...)
	})
	return a, t.send(ctx, b)
}

// Settle charges actual, which must lie between zero and the reservation
// in every dimension, and returns the rest of the hold. A refused
// settlement is recorded in settlements (kind rejected) and counted in
// Usage.Rejected; the reservation stays open. Settling a settled key again
// is a replay, whatever actual says; settling a released or swept one is
// ErrReleased.
func (p *Postgres) Settle(ctx context.Context, key string, actual Amounts) (res Result, err error) {
	var refused error
	// Two round trips: BEGIN and the reservation's lock; then the
	// budgets' locks, the writes and COMMIT.
	err = p.pipe(ctx, func(t *pipeTx) error {
		r, err := p.lockReservation(ctx, t, key, false)
		if err != nil {
			return err
		}
		switch r.state {
		case StateSettled:
			a, err := p.closedAmounts(ctx, t, key)
			if err != nil {
				return err
			}
			res = Result{Key: key, State: r.state, Replayed: true, Amounts: a}
			return errRollback
		case StateReleased, StateExpired:
			res = Result{Key: key, State: r.state}
			refused = fmt.Errorf("%w: %q is %s", ErrReleased, key, r.state)
		default:
			refused = checkSettle(key, r.amounts, actual)
		}
		kinds, ids := splitScopeKeys(r.scopeKeys)
		b := &pgx.Batch{}
		b.Queue(lockBudgetsSQL, p.cfg.Tenant, kinds, ids)
		if refused != nil {
			b.Queue(insertSettlementSQL, append(append([]any{p.cfg.Tenant, key, "rejected"}, amountArgs(actual)...), refused.Error())...)
			b.Queue(countRejectedSQL, p.cfg.Tenant, kinds, ids)
		} else {
			b.Queue(settleBudgetsSQL, append(append([]any{p.cfg.Tenant, kinds, ids}, amountArgs(r.amounts)...), amountArgs(actual)...)...)
			b.Queue(insertSettlementSQL, append(append([]any{p.cfg.Tenant, key, "settle"}, amountArgs(actual)...), "")...)
			b.Queue(closeReservationSQL, p.cfg.Tenant, key, string(StateSettled))
			res = Result{Key: key, State: StateSettled, Amounts: actual}
		}
		return t.commit(ctx, b)
	})
	if err == nil && refused != nil {
		return res, refused
	}
	return res, err
}

// Release returns a reservation whose call never happened. Releasing a key
// that is already released, swept or settled is a replay: nothing changes.
func (p *Postgres) Release(ctx context.Context, key string) (Result, error) {
	return p.release(ctx, key, StateReleased)
}

// release closes key as released or expired, if it is still open.
func (p *Postgres) release(ctx context.Context, key string, to State) (res Result, err error) {
	err = p.pipe(ctx, func(t *pipeTx) error {
		r, err := p.lockReservation(ctx, t, key, to == StateExpired)
		if err != nil {
			return err
		}
		if r.state != StateReserved {
			a, err := p.closedAmounts(ctx, t, key)
			if err != nil {
				return err
			}
			res = Result{Key: key, State: r.state, Replayed: true, Amounts: a}
			return errRollback
		}
		kind := "release"
		if to == StateExpired {
			kind = "expire"
		}
		kinds, ids := splitScopeKeys(r.scopeKeys)
		b := &pgx.Batch{}
		b.Queue(lockBudgetsSQL, p.cfg.Tenant, kinds, ids)
		if r.lease {
			// A lease whose process died: what it holds goes back to the
			// budgets, as an unused slice does (see Leased).
			b.Queue(returnBudgetsSQL, append([]any{p.cfg.Tenant, kinds, ids}, amountArgs(r.amounts)...)...)
			b.Queue(insertSettlementSQL, append(append([]any{p.cfg.Tenant, key, "return"}, amountArgs(r.amounts)...), leaseExpiredReason)...)
			b.Queue(closeReservationSQL, p.cfg.Tenant, key, string(to))
			res = Result{Key: key, State: to, Amounts: r.amounts}
			return t.commit(ctx, b)
		}
		b.Queue(releaseBudgetsSQL, append([]any{p.cfg.Tenant, kinds, ids}, amountArgs(r.amounts)...)...)
		b.Queue(insertSettlementSQL, append(append([]any{p.cfg.Tenant, key, kind}, amountArgs(r.amounts)...), "")...)
		b.Queue(closeReservationSQL, p.cfg.Tenant, key, string(to))
		res = Result{Key: key, State: to, Amounts: r.amounts}
		return t.commit(ctx, b)
	})
	return res, err
}

const expiredSQL = `
SELECT key FROM reservations
WHERE tenant_id = $1 AND state = 'reserved' AND expires_at <= $2
ORDER BY expires_at, key
LIMIT 1000`

// Sweep releases every open reservation of the tenant that expired at or
// before now, each in its own transaction, and returns how many it
// released. An expired lease (its process died, see Leased) goes back to
// the budgets as unused. Each is released once: a second sweep, or one
// running at the same time, finds it closed under its row lock and leaves
// it.
func (p *Postgres) Sweep(ctx context.Context, now time.Time) (int, error) {
	n := 0
	for {
		rows, err := p.pool.Query(ctx, expiredSQL, p.cfg.Tenant, now)
		if err != nil {
			return n, err
		}
		keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return n, err
		}
		swept := 0
		for _, k := range keys {
			res, err := p.release(ctx, k, StateExpired)
			if err != nil {
				return n, err
			}
			if !res.Replayed {
				swept++
			}
		}
		n += swept
		if len(keys) < 1000 || swept == 0 {
			return n, nil
		}
	}
}

// expiredTenantsSQL lists, across tenants, those with open reservations
// expired at $1 (reservations_open_idx).
const expiredTenantsSQL = `
SELECT DISTINCT tenant_id FROM reservations
WHERE state = 'reserved' AND expires_at <= $1
ORDER BY tenant_id`

// ExpiredTenants returns the tenants that have open reservations expired at
// or before now, in one query over every tenant's reservations: those a
// process serving them all (engine.Process) runs Sweep for.
func ExpiredTenants(ctx context.Context, pool *pgxpool.Pool, now time.Time) ([]string, error) {
	rows, err := pool.Query(ctx, expiredTenantsSQL, now)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

const closeScopeSQL = `
UPDATE budgets SET closed_at = now(), updated_at = now() WHERE tenant_id = $1 AND scope_kind = $2 AND scope_id = $3`

// openInScopeSQL lists the tenant's open reservations that hold scope $2.
const openInScopeSQL = `
SELECT key FROM reservations
WHERE tenant_id = $1 AND state = 'reserved' AND scope_keys @> ARRAY[$2::text]
ORDER BY key`

// ExpireScope returns, as Sweep does when they expire, every reservation
// still open that holds scope: for a run that has its verdict, the holds
// of calls whose settlement never came (a connection cut between the call
// and its settlement), and the leases of processes that died running it
// (returned as unused). It returns how many it closed.
//
// It first marks the scope closed, under its budget's row lock: a lease
// that would take a slice of it afterwards (a stale attempt of the run in
// another process) is refused and returned (Leased), and one that took
// its slice before is open when the reservations are listed. SetLimits
// opens the scope again.
func (p *Postgres) ExpireScope(ctx context.Context, scope Scope) (int, error) {
	if err := scope.validate(); err != nil {
		return 0, err
	}
	if _, err := p.pool.Exec(ctx, closeScopeSQL, p.cfg.Tenant, string(scope.Kind), scope.ID); err != nil {
		return 0, err
	}
	rows, err := p.pool.Query(ctx, openInScopeSQL, p.cfg.Tenant, scopeKey(scope))
	if err != nil {
		return 0, err
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys {
		res, err := p.release(ctx, k, StateExpired)
		if err != nil {
			return n, err
		}
		if !res.Replayed {
			n++
		}
	}
	return n, nil
}

var usageSQL = `
SELECT scope_kind, scope_id, ` + amountList("limit_") + `, wall_clock_ms,
	` + amountList("reserved_") + `,
	` + amountList("settled_") + `,
	` + amountList("released_") + `,
	rejected_settlements
FROM budgets WHERE tenant_id = $1 AND scope_kind = $2 AND scope_id = $3`

const stateCountsSQL = `
SELECT state, count(*) FROM reservations
WHERE tenant_id = $1 AND scope_keys @> ARRAY[$2::text] AND NOT lease
GROUP BY state`

// Usage returns the audit of scope's budget, or ErrNoBudget.
func (p *Postgres) Usage(ctx context.Context, scope Scope) (Usage, error) {
	if err := scope.validate(); err != nil {
		return Usage{}, err
	}
	u := Usage{Scope: scope, Reservations: map[State]int64{}}
	var b budgetRow
	var released amountScanner
	dest := append(b.scan(), released.dest()...)
	dest = append(dest, &u.Rejected)
	// One round trip: both reads in one batch.
	found := false
	batch := &pgx.Batch{}
	batch.Queue(usageSQL, p.cfg.Tenant, string(scope.Kind), scope.ID).Query(func(rows pgx.Rows) error {
		if found = rows.Next(); !found {
			return nil
		}
		return rows.Scan(dest...)
	})
	batch.Queue(stateCountsSQL, p.cfg.Tenant, scopeKey(scope)).Query(func(rows pgx.Rows) error {
		var state string
		var n int64
		_, err := pgx.ForEachRow(rows, []any{&state, &n}, func() error {
			u.Reservations[State(state)] = n
			return nil
		})
		return err
	})
	if err := p.pool.SendBatch(ctx, batch).Close(); err != nil {
		return Usage{}, err
	}
	if !found {
		return Usage{}, fmt.Errorf("%w: %s", ErrNoBudget, scope)
	}
	if err := b.finish(); err != nil {
		return Usage{}, err
	}
	var err error
	if u.Released, err = released.amounts(); err != nil {
		return Usage{}, err
	}
	u.Limits, u.Reserved, u.Settled = b.limits, b.reserved, b.settled
	return u, nil
}

var settledSQL = `
SELECT scope_kind, scope_id, ` + amountList("settled_") + `
FROM budgets
WHERE tenant_id = $1 AND (scope_kind, scope_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`

// Settled returns what settled calls used in each of scopes, in one round
// trip: a listing of runs shows each run's spend without asking scope by
// scope. A scope without a budget is absent from the map.
func (p *Postgres) Settled(ctx context.Context, scopes []Scope) (map[Scope]Amounts, error) {
	for _, s := range scopes {
		if err := s.validate(); err != nil {
			return nil, err
		}
	}
	out := make(map[Scope]Amounts, len(scopes))
	if len(scopes) == 0 {
		return out, nil
	}
	kinds, ids, _ := scopeArrays(scopes)
	rows, err := p.pool.Query(ctx, settledSQL, p.cfg.Tenant, kinds, ids)
	if err != nil {
		return nil, err
	}
	var kind, id string
	var settled amountScanner
	_, err = pgx.ForEachRow(rows, append([]any{&kind, &id}, settled.dest()...), func() error {
		a, err := settled.amounts()
		if err != nil {
			return err
		}
		out[Scope{Kind: ScopeKind(kind), ID: id}] = a
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// leaseExpiredReason is the reason of the settlement that returns an
// expired lease.
const leaseExpiredReason = "lease expired: its process stopped writing; calls it settled after its last write are not counted"

// errRollback ends a transaction without an error for the caller.
var errRollback = errors.New("budget: rollback")

// errNotCommitted is returned when a COMMIT answers ROLLBACK: the
// transaction had failed.
var errNotCommitted = errors.New("budget: the transaction was rolled back")

// pipeTx is a transaction on one pooled connection whose BEGIN travels in
// the batch of its first statements and whose COMMIT in the batch of its
// last: an operation that reads under a lock, decides, then writes costs
// two round trips (where pgx.BeginTx, a round trip per step and Commit cost
// one each). commit returns once the COMMIT's result is read: nothing is
// acknowledged before it is committed.
type pipeTx struct {
	conn  *pgxpool.Conn
	began bool // BEGIN was sent: the transaction ends with COMMIT or ROLLBACK
	done  bool // COMMIT succeeded
}

// send sends b, BEGIN first when nothing was sent yet, and runs its
// callbacks.
func (t *pipeTx) send(ctx context.Context, b *pgx.Batch) error {
	if !t.began {
		nb := &pgx.Batch{}
		nb.Queue("begin")
		nb.QueuedQueries = append(nb.QueuedQueries, b.QueuedQueries...)
		b, t.began = nb, true
	}
	return t.conn.SendBatch(ctx, b).Close()
}

// commit sends b followed by COMMIT. b's callbacks must only read: an
// error they return does not stop the COMMIT queued after them.
func (t *pipeTx) commit(ctx context.Context, b *pgx.Batch) error {
	b.Queue("commit").Exec(func(tag pgconn.CommandTag) error {
		if tag.String() != "COMMIT" {
			return errNotCommitted
		}
		return nil
	})
	if err := t.send(ctx, b); err != nil {
		return err
	}
	t.done = true
	return nil
}

// pipe runs fn in a pipelined transaction, which fn ends with commit; an
// error rolls it back (errRollback without an error for the caller). The
// rollback runs even after ctx is cancelled; should it fail, the pool
// closes the connection rather than reuse it in a transaction.
func (p *Postgres) pipe(ctx context.Context, fn func(t *pipeTx) error) error {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	t := &pipeTx{conn: conn}
	defer func() {
		if t.began && !t.done && conn.Conn().PgConn().TxStatus() != 'I' {
			_, _ = conn.Exec(context.WithoutCancel(ctx), "rollback")
		}
		conn.Release()
	}()
	err = fn(t)
	if errors.Is(err, errRollback) {
		return nil
	}
	if err == nil && !t.done {
		return errors.New("budget: transaction left uncommitted")
	}
	return err
}

// scopeKey is a scope as stored in reservations.scope_keys.
func scopeKey(s Scope) string { return string(s.Kind) + "/" + s.ID }

func scopeArrays(sorted []Scope) (kinds, ids, keys []string) {
	for _, s := range sorted {
		kinds = append(kinds, string(s.Kind))
		ids = append(ids, s.ID)
		keys = append(keys, scopeKey(s))
	}
	return kinds, ids, keys
}

func splitScopeKeys(keys []string) (kinds, ids []string) {
	for _, k := range keys {
		kind, id, _ := strings.Cut(k, "/")
		kinds = append(kinds, kind)
		ids = append(ids, id)
	}
	return kinds, ids
}

// The SQL helpers below, called only to build the statements at
// initialisation, go through the dimensions in the order of Dimensions.
// Every table names a dimension's column by a prefix and the dimension
// (limit_model_calls, reserved_spend_usd, spend_usd).

// amountList is the columns of the dimensions with prefix, comma
// separated.
func amountList(prefix string) string {
	return joinDims(func(d Dimension) string { return prefix + string(d) })
}

// param is the placeholder $n.
func param(n int) string { return "$" + strconv.Itoa(n) }

// params is the placeholders of the dimensions, from $from on.
func params(from int) string {
	i := from - 1
	return joinDims(func(Dimension) string { i++; return param(i) })
}

// joinDims is item(d) for every dimension, in order, comma separated.
func joinDims(item func(d Dimension) string) string {
	items := make([]string, 0, nAmounts)
	for _, d := range Dimensions() {
		items = append(items, item(d))
	}
	return strings.Join(items, ", ")
}

// amountAdd is "col = col op $n" for the columns of the dimensions with
// prefix, the placeholders from $from on.
func amountAdd(prefix, op string, from int) string {
	i := from - 1
	return joinDims(func(d Dimension) string {
		i++
		col := prefix + string(d)
		return col + " = " + col + " " + op + " " + param(i)
	})
}

// amountArgs are a's values in the order of amountColumns.
func amountArgs(a Amounts) []any {
	args := make([]any, 0, nAmounts)
	for _, v := range a.counts() {
		args = append(args, v)
	}
	return append(args, numeric(a.SpendUSD))
}

// amountScan returns scan destinations for amountColumns into a; the
// spend is converted by a pgtype.Numeric scanner.
func amountScan(a *Amounts) []any {
	d := make([]any, 0, nAmounts)
	for _, f := range a.fields() {
		d = append(d, f)
	}
	return append(d, (*decimalScanner)(&a.SpendUSD))
}

// decimalScanner scans a numeric into a decimal.Decimal exactly.
type decimalScanner decimal.Decimal

func (d *decimalScanner) ScanNumeric(n pgtype.Numeric) error {
	v, err := fromNumeric(n)
	if err != nil {
		return err
	}
	*d = decimalScanner(v)
	return nil
}

// amountScanner scans the amount columns of one state.
type amountScanner struct {
	counts [nCounts]int64
	spend  pgtype.Numeric
}

func (s *amountScanner) dest() []any {
	d := make([]any, 0, nAmounts)
	for i := range s.counts {
		d = append(d, &s.counts[i])
	}
	return append(d, &s.spend)
}

func (s *amountScanner) amounts() (Amounts, error) {
	spend, err := fromNumeric(s.spend)
	return fromCounts(s.counts, spend), err
}

// budgetRow scans the columns of lockBudgetsSQL.
type budgetRow struct {
	kind, id          string
	limitCounts       [nCounts]pgtype.Int8
	limitSpend        pgtype.Numeric
	wallClockMS       pgtype.Int8
	reservedS, settlS amountScanner

	scope             Scope
	limits            Limits
	reserved, settled Amounts
}

func (b *budgetRow) scan() []any {
	d := []any{&b.kind, &b.id}
	for i := range b.limitCounts {
		d = append(d, &b.limitCounts[i])
	}
	d = append(d, &b.limitSpend, &b.wallClockMS)
	d = append(d, b.reservedS.dest()...)
	return append(d, b.settlS.dest()...)
}

// finish converts the scanned columns.
func (b *budgetRow) finish() error {
	b.scope = Scope{Kind: ScopeKind(b.kind), ID: b.id}
	var lc [nCounts]int64
	for i, v := range b.limitCounts {
		lc[i] = Unlimited
		if v.Valid {
			lc[i] = v.Int64
		}
	}
	spend := decimal.NewFromInt(-1)
	if b.limitSpend.Valid {
		var err error
		if spend, err = fromNumeric(b.limitSpend); err != nil {
			return err
		}
	}
	b.limits = limitsFromCounts(lc, spend)
	if b.wallClockMS.Valid {
		b.limits.WallClock = time.Duration(b.wallClockMS.Int64) * time.Millisecond
	}
	var err error
	if b.reserved, err = b.reservedS.amounts(); err != nil {
		return err
	}
	b.settled, err = b.settlS.amounts()
	return err
}

func scanBudgets(rows pgx.Rows) ([]budgetRow, error) {
	defer rows.Close()
	var out []budgetRow
	for rows.Next() {
		var b budgetRow
		if err := rows.Scan(b.scan()...); err != nil {
			return nil, err
		}
		if err := b.finish(); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// numeric converts a decimal exactly, without a detour through text.
func numeric(d decimal.Decimal) pgtype.Numeric {
	return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
}

func fromNumeric(n pgtype.Numeric) (decimal.Decimal, error) {
	if !n.Valid || n.NaN || n.InfinityModifier != pgtype.Finite {
		return decimal.Decimal{}, errors.New("budget: amount is not a finite number")
	}
	if n.Int == nil {
		return decimal.NewFromBigInt(new(big.Int), n.Exp), nil
	}
	return decimal.NewFromBigInt(n.Int, n.Exp), nil
}
