package budget

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// Leased is an accountant over a Postgres one that takes the shared budget
// rows out of the path of each call. For the scopes a call names (a run in
// its tenant's day), it takes a slice of their budgets at once, a lease,
// reserves and settles the calls against the slice in process, and writes
// their reservations and settlements in batches: a pair of Reserve and
// Settle costs microseconds, and the budget rows are locked once a slice
// or a batch, not twice a call.
//
// The promises of Postgres hold, with these bounds:
//
//   - No overspend. A lease's slice is a reservation row (lease = true) that
//     counts as reserved in every scope until it is returned, so
//     no other process can reserve it; a call is admitted only within what
//     the lease holds. A slice is at most SliceCalls calls like the one that
//     needs it and at most a quarter of what any scope has left, so near the
//     end of a budget leases are small. A call is refused only when the
//     database cannot hold it beside what its own lease holds unused; the
//     unused parts of other processes' leases count as reserved, as open
//     reservations do.
//   - Durability. A settled call is written within FlushInterval (sooner
//     once FlushCalls are waiting), and Usage, Return, ExpireScope and
//     Close write everything first: a caller that reads Usage of the run
//     before it acknowledges the run's result (the executor does)
//     acknowledges only recorded spend. A lease's row is renewed at every
//     write and every third of Config.TTL. A process killed mid-run leaves
//     its lease's row open; the run's ExpireScope when it finishes in
//     another process, or Sweep once the row has expired (Config.TTL after
//     its last renewal), returns what it holds to the budgets, as the
//     holds of calls in flight at a crash always were. The bound: calls the
//     dead process settled after its last write (at most FlushInterval's
//     worth, or FlushCalls calls) are not counted, beside the calls in
//     flight, which are not counted without leases either. A lease taken
//     back under a live process (stalled past its expiry) is noticed at its
//     next write; its calls are then written as settled all the same, and
//     the calls it admitted meanwhile (at most what it held) may pass a
//     limit.
//   - A cut connection. A lease's row counts the writes that committed
//     on it, so a write whose COMMIT was sent but whose answer was lost
//     is found committed or not before the next write, and counted once.
//     A return that fails is retried in the background until it lands
//     (LeaseConfig.RetryBackoff), and a last time at Close. A scope that
//     ExpireScope closed (a run that has its verdict, perhaps in another
//     process) gives no slice: the call is refused with ErrScopeClosed and
//     its lease returned at once, until SetLimits opens the scope again.
//   - Idempotency. Keys are answered in process for the calls of open
//     leases. When a lease of a run opens, the keys the database holds for
//     that run are read, and Postgres answers them (a resumed run replays
//     what an earlier process recorded). A key reserved through two
//     processes at once is a caller's error: both calls are charged, and
//     the second's rows are not written.
//   - Limits lowered by SetLimits take effect at the leases' next slice.
//
// Usage is exact for the process's own leases (their unused parts are not
// counted as reserved); another process's lease counts as reserved.
// Close writes and returns every lease; a lease idle (nothing reserved,
// nothing open) for a third of Config.TTL is returned on its own.
type Leased struct {
	pg  *Postgres
	cfg LeaseConfig

	mu sync.Mutex
	// guarded by mu:
	leases map[string]*lease      // open leases, by their scopes' keys
	calls  map[string]*leasedCall // calls of this process's leases, by key
	stored map[string]bool        // keys Postgres answers: read when a run's lease opened
	closed bool
	// retries are the writes that failed and are retried in the background
	// (a lease's return, by *lease; a run's expiry, by Scope).
	retries map[any]func(context.Context) error

	ticks sync.WaitGroup // running timer callbacks and retries; Add only under mu while !closed
	quit  chan struct{}  // closed by Close: background writes stop
}

// LeaseConfig configures a Leased accountant. A nil *LeaseConfig means
// the defaults.
type LeaseConfig struct {
	// SliceCalls is how many calls like the one that finds its lease short
	// a lease takes at once (fewer near the end of a budget); 0 means 64.
	SliceCalls int64
	// FlushInterval is the longest a closed call waits in process before it
	// is written; 0 means 100ms.
	FlushInterval time.Duration
	// FlushCalls is how many closed calls are written without waiting for
	// FlushInterval; 0 means 4096.
	FlushCalls int
	// RetryBackoff is how long a write that failed (a lease's return, a
	// run's expiry: the database cut off) waits before it is retried in the
	// background, doubling at every failure up to 5s; 0 means 100ms. A
	// write is retried for Config.TTL at most, and a last time at Close.
	RetryBackoff time.Duration
}

func (c *LeaseConfig) withDefaults() (LeaseConfig, error) {
	var out LeaseConfig
	if c != nil {
		out = *c
	}
	switch {
	case out.SliceCalls < 0:
		return out, fmt.Errorf("budget: LeaseConfig.SliceCalls %d is negative", out.SliceCalls)
	case out.FlushInterval < 0:
		return out, fmt.Errorf("budget: LeaseConfig.FlushInterval %s is negative", out.FlushInterval)
	case out.FlushCalls < 0:
		return out, fmt.Errorf("budget: LeaseConfig.FlushCalls %d is negative", out.FlushCalls)
	case out.RetryBackoff < 0:
		return out, fmt.Errorf("budget: LeaseConfig.RetryBackoff %s is negative", out.RetryBackoff)
	}
	if out.SliceCalls == 0 {
		out.SliceCalls = 64
	}
	if out.FlushInterval == 0 {
		out.FlushInterval = 100 * time.Millisecond
	}
	if out.FlushCalls == 0 {
		out.FlushCalls = 4096
	}
	if out.RetryBackoff == 0 {
		out.RetryBackoff = 100 * time.Millisecond
	}
	return out, nil
}

// NewLeased returns a leasing accountant over pg, for the calls of one
// process. Call Close when the process stops.
func NewLeased(pg *Postgres, cfg *LeaseConfig) (*Leased, error) {
	if pg == nil {
		return nil, errors.New("budget: NewLeased: nil Postgres")
	}
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Leased{pg: pg, cfg: c, leases: map[string]*lease{}, calls: map[string]*leasedCall{}, stored: map[string]bool{},
		retries: map[any]func(context.Context) error{}, quit: make(chan struct{})}, nil
}

// errLeasedClosed is returned by Reserve after Close.
var errLeasedClosed = errors.New("budget: the leased accountant is closed")

// errLeaseLost is a lease whose row was closed under it (swept as
// expired, or taken back by a finished run's ExpireScope).
var errLeaseLost = errors.New("budget: lease lost")

// lease is one slice of a set of scopes' budgets.
type lease struct {
	scopes           []Scope
	kinds, ids, keys []string
	run              string // the scope key of its run, "" without one

	sync sync.Mutex // one write at a time, held across its round trips
	// guarded by sync:
	uncertain *leaseWrite // a write whose COMMIT was sent and whose answer was lost

	// guarded by Leased.mu:
	key      string  // its reservation's key; "" until its first slice is written
	writes   int64   // its row's lease_writes, as last committed
	held     Amounts // what its row holds, as last committed
	open     Amounts // the holds of its open calls
	unsynced Amounts // the actual usage of settled calls not yet written (inside held)
	calls    map[string]*leasedCall
	pending  []*leasedCall // closed calls with something to write
	growing  chan struct{} // closed when the slice being taken is
	lastK    int64         // how many calls its last slice was taken for
	stored   []string      // the keys it read into Leased.stored
	gone     bool          // ended or lost: no new calls
	lost     bool          // its row was closed under it
	ended    bool          // its row was returned
	lastUse  time.Time     // when a call was last reserved
	timer    *time.Timer
	due      time.Time
}

// free is what l holds that no call uses. Callers hold Leased.mu.
func (l *lease) free() Amounts { return l.held.Sub(l.open).Sub(l.unsynced) }

// leasedCall is a call reserved in process.
type leasedCall struct {
	l       *lease
	key     string
	amounts Amounts
	expires time.Time
	state   State
	closed  Amounts // settled, or returned to the lease
	written bool    // its reservation and settlement rows are written
	rejects []rejectedSettle
	nRej    int // how many of rejects are written
}

type rejectedSettle struct {
	actual Amounts
	reason string
}

// SetLimits is Postgres.SetLimits.
func (a *Leased) SetLimits(ctx context.Context, scope Scope, limits Limits) error {
	return a.pg.SetLimits(ctx, scope, limits)
}

// Reserve holds amounts in every one of scopes, or in none, as
// Postgres.Reserve does, against a lease of scopes: in process while the
// lease holds enough, else after taking a new slice.
func (a *Leased) Reserve(ctx context.Context, key string, scopes []Scope, amounts Amounts, opts *ReserveOpts) (Result, error) {
	return reserveCreatingDay(ctx, &a.pg.cfg,
		func() (Result, error) { return a.reserve(ctx, key, scopes, amounts, opts) },
		func(s Scope, l Limits) error { return a.pg.setLimits(ctx, createLimitsSQL, s, l) })
}

func (a *Leased) reserve(ctx context.Context, key string, scopes []Scope, amounts Amounts, opts *ReserveOpts) (Result, error) {
	sorted, err := checkReserve(key, scopes, amounts)
	if err != nil {
		return Result{}, err
	}
	expires := a.pg.cfg.expiry(opts)
	_, _, keys := scopeArrays(sorted)
	setKey := strings.Join(keys, ",")
	for {
		a.mu.Lock()
		if a.closed {
			a.mu.Unlock()
			return Result{}, errLeasedClosed
		}
		if a.stored[key] {
			a.mu.Unlock()
			return a.pg.reserve(ctx, key, scopes, amounts, opts)
		}
		if c := a.calls[key]; c != nil {
			a.mu.Unlock()
			if !slices.Equal(c.l.scopes, sorted) || !c.amounts.Equal(amounts) {
				return Result{}, fmt.Errorf("%w: %q", ErrKeyReused, key)
			}
			return Result{Key: key, State: c.state, Replayed: true, Amounts: c.amounts}, nil
		}
		l := a.leases[setKey]
		if l == nil || l.gone {
			l = &lease{scopes: sorted, calls: map[string]*leasedCall{}}
			l.kinds, l.ids, l.keys = scopeArrays(sorted)
			for _, s := range sorted {
				if s.Kind == KindRun {
					l.run = scopeKey(s)
				}
			}
			a.leases[setKey] = l
		}
		if l.key != "" && fitsIn(amounts, l.free()) {
			res := a.admit(l, key, amounts, expires)
			a.prefetch(l, amounts)
			a.mu.Unlock()
			return res, nil
		}
		if ch := l.growing; ch != nil {
			a.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return Result{}, ctx.Err()
			}
		}
		ch := make(chan struct{})
		l.growing = ch
		a.mu.Unlock()
		err := a.sync(ctx, l, &amounts, syncFlush)
		a.mu.Lock()
		l.growing = nil
		close(ch)
		if err != nil && errors.Is(err, ErrExhausted) && !l.gone && l.key != "" && fitsIn(amounts, l.free()) {
			// Calls closed while the slice was refused: it fits now.
			res := a.admit(l, key, amounts, expires)
			a.mu.Unlock()
			return res, nil
		}
		a.mu.Unlock()
		a.endIfGone(ctx, l)
		if err != nil && !errors.Is(err, errLeaseLost) {
			return Result{}, err
		}
	}
}

// prefetch takes l's next slice in the background when what l has free
// would no longer hold half its last slice's calls (of ask), so that
// callers do not wait for it; not near the end of a budget, where slices
// are single calls. A slice it cannot take is left to the next call that
// finds l short. Callers hold mu.
func (a *Leased) prefetch(l *lease, ask Amounts) {
	if a.closed || l.gone || l.growing != nil || l.lastK < 2 || fitsIn(scaleAmounts(ask, l.lastK/2), l.free()) {
		return
	}
	ch := make(chan struct{})
	l.growing = ch
	a.ticks.Add(1)
	go func() {
		defer a.ticks.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = a.sync(ctx, l, &ask, syncFlush)
		a.mu.Lock()
		l.growing = nil
		close(ch)
		a.mu.Unlock()
		a.endIfGone(ctx, l)
	}()
}

// endIfGone returns what l holds when it was ended (Return, ExpireScope,
// Close, idle) while a slice was being taken: that end may have found
// nothing to return yet. Ending twice is harmless: the second finds the
// row closed.
func (a *Leased) endIfGone(ctx context.Context, l *lease) {
	a.mu.Lock()
	gone := l.gone && !l.lost && !l.ended && l.key != ""
	a.mu.Unlock()
	if gone {
		// A return that fails is retried in the background (endLease);
		// no caller waits on this one to hear of it.
		_ = a.endLease(context.WithoutCancel(ctx), l)
	}
}

// endLease writes and returns the ended lease l; a write that fails is
// retried in the background until it lands.
func (a *Leased) endLease(ctx context.Context, l *lease) error {
	err := a.sync(ctx, l, nil, syncEnd)
	if err == nil || errors.Is(err, errLeaseLost) {
		return nil
	}
	a.retryEnd(l)
	return fmt.Errorf("budget: returning a lease (retried in the background): %w", err)
}

// retryEnd retries the return of the ended lease l in the background.
func (a *Leased) retryEnd(l *lease) {
	a.retry(l, func(ctx context.Context) error {
		if err := a.sync(ctx, l, nil, syncEnd); !errors.Is(err, errLeaseLost) {
			return err
		}
		return nil
	})
}

// retry runs op, a write that failed, in the background until it lands:
// after RetryBackoff, doubling up to 5s, for Config.TTL at most (by then a
// lease's row has expired, and its run's ExpireScope or a sweep returns
// it). Close stops the retries and makes a last attempt at each write
// still failing. A write retried already (key is its lease or scope) is
// not retried twice.
func (a *Leased) retry(key any, op func(context.Context) error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.retries[key]; ok {
		return
	}
	a.retries[key] = op
	if a.closed {
		return // Close's last attempt
	}
	a.ticks.Add(1)
	go func() {
		defer a.ticks.Done()
		wait, giveUp := a.cfg.RetryBackoff, time.Now().Add(a.pg.cfg.TTL)
		t := time.NewTimer(wait)
		defer t.Stop()
		for {
			select {
			case <-a.quit:
				return
			case <-t.C:
			}
			ctx, cancel := a.background(time.Minute)
			err := op(ctx)
			cancel()
			if err == nil || time.Now().After(giveUp) {
				a.mu.Lock()
				delete(a.retries, key)
				a.mu.Unlock()
				return
			}
			wait = min(2*wait, 5*time.Second)
			t.Reset(wait)
		}
	}()
}

// background is the context of a retried write: it ends after d, or at
// Close, which makes the last attempt itself.
func (a *Leased) background(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	go func() {
		select {
		case <-a.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// admit reserves a call in l, which holds enough for it. Callers hold mu.
func (a *Leased) admit(l *lease, key string, amounts Amounts, expires time.Time) Result {
	c := &leasedCall{l: l, key: key, amounts: amounts, expires: expires, state: StateReserved}
	a.calls[key] = c
	l.calls[key] = c
	l.open = l.open.Add(amounts)
	l.lastUse = time.Now()
	return Result{Key: key, State: StateReserved, Amounts: amounts}
}

// Settle charges actual, as Postgres.Settle does. A call of this process's
// leases is settled in process and written within FlushInterval; another
// key goes to Postgres.
func (a *Leased) Settle(ctx context.Context, key string, actual Amounts) (Result, error) {
	a.mu.Lock()
	c := a.calls[key]
	if c == nil {
		a.mu.Unlock()
		return a.pg.Settle(ctx, key, actual)
	}
	defer a.mu.Unlock()
	switch c.state {
	case StateSettled:
		return Result{Key: key, State: c.state, Replayed: true, Amounts: c.closed}, nil
	case StateReleased, StateExpired:
		err := fmt.Errorf("%w: %q is %s", ErrReleased, key, c.state)
		a.reject(c, actual, err)
		return Result{Key: key, State: c.state}, err
	}
	if err := checkSettle(key, c.amounts, actual); err != nil {
		a.reject(c, actual, err)
		return Result{}, err
	}
	l := c.l
	l.unsynced = l.unsynced.Add(actual)
	a.close(c, StateSettled, actual)
	return Result{Key: key, State: StateSettled, Amounts: actual}, nil
}

// reject records a refused settlement of c. Callers hold mu.
func (a *Leased) reject(c *leasedCall, actual Amounts, err error) {
	c.rejects = append(c.rejects, rejectedSettle{actual: actual, reason: err.Error()})
	if c.state != StateReserved {
		a.queue(c)
	}
}

// close closes the open call c. Callers hold mu.
func (a *Leased) close(c *leasedCall, to State, closed Amounts) {
	l := c.l
	l.open = l.open.Sub(c.amounts)
	delete(l.calls, c.key)
	c.state, c.closed = to, closed
	a.queue(c)
}

// queue adds the closed call c to what its lease writes next. Callers hold
// mu.
func (a *Leased) queue(c *leasedCall) {
	l := c.l
	if !slices.Contains(l.pending, c) {
		l.pending = append(l.pending, c)
	}
	if len(l.pending) >= a.cfg.FlushCalls {
		a.schedule(l, 0)
	} else {
		a.schedule(l, a.cfg.FlushInterval)
	}
}

// Release returns a call's hold to its lease, as Postgres.Release does.
func (a *Leased) Release(ctx context.Context, key string) (Result, error) {
	a.mu.Lock()
	c := a.calls[key]
	if c == nil {
		a.mu.Unlock()
		return a.pg.Release(ctx, key)
	}
	defer a.mu.Unlock()
	if c.state != StateReserved {
		return Result{Key: key, State: c.state, Replayed: true, Amounts: c.closed}, nil
	}
	a.close(c, StateReleased, c.amounts)
	return Result{Key: key, State: StateReleased, Amounts: c.amounts}, nil
}

// Sweep expires the open calls of this process's leases that expired at
// or before now, then runs Postgres.Sweep (which returns the expired leases
// of dead processes), and returns how many reservations it closed.
func (a *Leased) Sweep(ctx context.Context, now time.Time) (int, error) {
	a.mu.Lock()
	n := 0
	for _, l := range a.leases {
		for _, c := range l.calls {
			if !c.expires.After(now) {
				a.close(c, StateExpired, c.amounts)
				n++
			}
		}
	}
	a.mu.Unlock()
	m, err := a.pg.Sweep(ctx, now)
	return n + m, err
}

// ExpireScope ends this process's leases that hold scope, as Return
// does, then runs Postgres.ExpireScope, which closes the scope's other open
// reservations and returns the leases still open on it (for a run that
// has its verdict, those of a process that died in an earlier attempt).
// It returns how many calls and reservations it closed.
//
// A write that fails (the database cut off) is retried in the background
// until it lands, and the error says so: the run's leases are returned,
// and the scope's other reservations closed, a moment later.
func (a *Leased) ExpireScope(ctx context.Context, scope Scope) (int, error) {
	n, err := a.Return(ctx, scope)
	if err == nil {
		m, perr := a.pg.ExpireScope(ctx, scope)
		if perr == nil {
			return n + m, nil
		}
		err = fmt.Errorf("budget: closing the reservations of %s (retried in the background): %w", scope, perr)
	}
	// The scope's reservations are closed once this process's leases of
	// it are returned: else they would be taken for a dead process's, and
	// their unwritten calls written as settled beside them.
	a.retry(scope, func(ctx context.Context) error {
		if err := a.returnRetried(ctx, scope); err != nil {
			return err
		}
		_, err := a.pg.ExpireScope(ctx, scope)
		return err
	})
	return n, err
}

// returnRetried returns the leases of scope whose return is retried in
// the background, now.
func (a *Leased) returnRetried(ctx context.Context, scope Scope) error {
	a.mu.Lock()
	var ops []func(context.Context) error
	for k, op := range a.retries {
		if l, ok := k.(*lease); ok && slices.Contains(l.scopes, scope) {
			ops = append(ops, op)
		}
	}
	a.mu.Unlock()
	for _, op := range ops {
		if err := op(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Return ends this process's leases that hold scope: their open calls
// expire, everything is written, and what the leases did not use goes
// back to the budgets. It returns how many open calls expired. A run
// whose attempt failed, to be retried perhaps by another process, returns
// its leases so that their unused parts are not held meanwhile. A lease
// whose write fails (the database cut off) is returned in the background,
// retried until it lands, and the error says so.
func (a *Leased) Return(ctx context.Context, scope Scope) (int, error) {
	if err := scope.validate(); err != nil {
		return 0, err
	}
	a.mu.Lock()
	var ending []*lease
	n := 0
	for k, l := range a.leases {
		if slices.Contains(l.scopes, scope) {
			n += a.end(l)
			delete(a.leases, k)
			ending = append(ending, l)
		}
	}
	a.mu.Unlock()
	var errs []error
	for _, l := range ending {
		if err := a.endLease(ctx, l); err != nil {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// end stops l taking calls and expires its open ones, returning how many.
// Callers hold mu.
func (a *Leased) end(l *lease) int {
	l.gone = true
	n := 0
	for _, c := range l.calls {
		a.close(c, StateExpired, c.amounts)
		n++
	}
	if l.timer != nil {
		l.timer.Stop()
	}
	return n
}

// Close ends every lease, as ExpireScope does: everything is written and
// the unused slices returned. Reserve fails after Close; Settle and
// Release of written calls go to Postgres.
func (a *Leased) Close(ctx context.Context) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	close(a.quit)
	var ending []*lease
	for k, l := range a.leases {
		a.end(l)
		delete(a.leases, k)
		ending = append(ending, l)
	}
	a.mu.Unlock()
	a.ticks.Wait()
	var errs []error
	for _, l := range ending {
		if err := a.sync(ctx, l, nil, syncEnd); err != nil && !errors.Is(err, errLeaseLost) {
			errs = append(errs, err)
		}
	}
	// The last attempt at the writes retried in the background: the
	// leases' returns before the scopes' expiries, which would take them
	// for a dead process's.
	a.mu.Lock()
	retries := a.retries
	a.retries = map[any]func(context.Context) error{}
	a.mu.Unlock()
	for _, leases := range []bool{true, false} {
		for k, op := range retries {
			if _, ok := k.(*lease); ok != leases {
				continue
			}
			if err := op(ctx); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Usage returns the audit of scope's budget, as Postgres.Usage does, after
// writing this process's calls in it; the unused parts of this process's
// leases are not counted as reserved.
func (a *Leased) Usage(ctx context.Context, scope Scope) (Usage, error) {
	if err := scope.validate(); err != nil {
		return Usage{}, err
	}
	a.mu.Lock()
	var ls []*lease
	for _, l := range a.leases {
		if slices.Contains(l.scopes, scope) {
			ls = append(ls, l)
		}
	}
	for k := range a.retries {
		if l, ok := k.(*lease); ok && slices.Contains(l.scopes, scope) && !slices.Contains(ls, l) {
			ls = append(ls, l) // returned in the background: still held
		}
	}
	a.mu.Unlock()
	slices.SortFunc(ls, func(x, y *lease) int { return slices.Compare(x.keys, y.keys) })
	for _, l := range ls {
		l.sync.Lock()
		defer l.sync.Unlock()
	}
	for _, l := range ls {
		if err := a.syncLocked(ctx, l, nil, syncFlush); err != nil && !errors.Is(err, errLeaseLost) {
			return Usage{}, err
		}
	}
	u, err := a.pg.Usage(ctx, scope)
	if err != nil {
		return u, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, l := range ls {
		u.Reserved = u.Reserved.Sub(l.held).Add(l.open)
		u.Settled = u.Settled.Add(l.unsynced)
		u.Reservations[StateReserved] += int64(len(l.calls))
		for _, c := range l.calls {
			u.Rejected += int64(len(c.rejects))
		}
		for _, c := range l.pending {
			u.Rejected += int64(len(c.rejects) - c.nRej)
			if c.written {
				continue
			}
			u.Reservations[c.state]++
			if c.state != StateSettled {
				u.Released = u.Released.Add(c.closed)
			}
		}
	}
	for s, n := range u.Reservations {
		if n == 0 {
			delete(u.Reservations, s)
		}
	}
	return u, nil
}

// schedule makes l's timer fire within d. Callers hold mu.
func (a *Leased) schedule(l *lease, d time.Duration) {
	if a.closed || l.gone {
		return
	}
	at := time.Now().Add(d)
	if l.timer != nil && !l.due.IsZero() && !at.Before(l.due) {
		return
	}
	if l.timer == nil {
		l.timer = time.AfterFunc(d, func() { a.tick(l) })
	} else {
		l.timer.Reset(d)
	}
	l.due = at
}

// tick writes l's closed calls and renews its row's expiry, or returns l
// when it was idle since the last tick.
func (a *Leased) tick(l *lease) {
	a.mu.Lock()
	if a.closed || l.gone {
		a.mu.Unlock()
		return
	}
	a.ticks.Add(1)
	defer a.ticks.Done()
	l.due = time.Time{}
	idle := len(l.calls) == 0 && l.growing == nil && time.Since(l.lastUse) >= a.pg.cfg.TTL/3
	if idle {
		a.end(l)
		if _, k := a.leaseOf(l); k != "" {
			delete(a.leases, k)
		}
	}
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var err error
	if idle {
		err = a.endLease(ctx, l)
	} else {
		err = a.sync(ctx, l, nil, syncRenew)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case idle || l.gone:
	case err != nil || len(l.pending) > 0:
		a.schedule(l, a.cfg.FlushInterval)
	default:
		a.schedule(l, a.pg.cfg.TTL/3)
	}
}

// leaseOf finds l in the open leases. Callers hold mu.
func (a *Leased) leaseOf(l *lease) (*lease, string) {
	k := strings.Join(l.keys, ",")
	if a.leases[k] == l {
		return l, k
	}
	return nil, ""
}

// syncMode is what a write of a lease does beside writing its closed
// calls.
type syncMode int

const (
	syncFlush syncMode = iota // nothing more; nothing at all when no call is closed
	syncRenew                 // renew the lease's expiry
	syncEnd                   // return what the lease holds and close it
)

// sync is syncLocked under l's write lock.
func (a *Leased) sync(ctx context.Context, l *lease, grow *Amounts, mode syncMode) error {
	l.sync.Lock()
	defer l.sync.Unlock()
	return a.syncLocked(ctx, l, grow, mode)
}

// written is what one write records of a closed call.
type written struct {
	c        *leasedCall
	row      bool             // its reservation and settlement rows
	rejects  []rejectedSettle // its refused settlements not written yet
	from, to int              // their indexes in c.rejects
}

// syncLocked writes l in one transaction, two round trips: it locks l's
// row and its scopes' budgets; then, when grow is set, takes a slice that
// holds grow beside what l has free (or fails with an *ExhaustedError);
// writes the calls closed since the last write, moving what they used
// from reserved to settled in l's row and in the budgets; renews l's
// expiry; and, when end is set, returns what l holds. The caller holds
// l.sync.
func (a *Leased) syncLocked(ctx context.Context, l *lease, grow *Amounts, mode syncMode) error {
	err := a.write(ctx, l, grow, mode)
	if errors.Is(err, ErrScopeClosed) {
		// The run has its verdict (perhaps in another process) while this
		// lease wanted more of it: the lease is returned at once.
		a.mu.Lock()
		a.end(l)
		if _, k := a.leaseOf(l); k != "" {
			delete(a.leases, k)
		}
		a.mu.Unlock()
		if err := a.write(ctx, l, nil, syncEnd); err != nil && !errors.Is(err, errLeaseLost) {
			a.retryEnd(l)
		}
		return ErrScopeClosed
	}
	if !errors.Is(err, errLeaseLost) {
		return err
	}
	// The lease's row was closed under it: swept as expired while this
	// process was stalled, or taken back by a finished run's ExpireScope.
	// Its calls are written all the same, settled beside it.
	a.mu.Lock()
	l.lost, l.held = true, Amounts{}
	a.end(l)
	if _, k := a.leaseOf(l); k != "" {
		delete(a.leases, k)
	}
	a.mu.Unlock()
	if err := a.write(ctx, l, nil, syncFlush); err != nil {
		return err
	}
	return errLeaseLost
}

// write is one transaction of syncLocked; for a lost lease, it writes the
// closed calls only, their usage straight into settled.
func (a *Leased) write(ctx context.Context, l *lease, grow *Amounts, mode syncMode) error {
	if err := a.resolve(ctx, l); err != nil {
		return err
	}
	end := mode == syncEnd
	a.mu.Lock()
	if l.ended {
		a.mu.Unlock()
		if grow != nil {
			return errLeaseLost
		}
		return nil
	}
	lost := l.lost
	key, held, free, unsynced, writes := l.key, l.held, l.free(), l.unsynced, l.writes
	var batch []written
	var released Amounts
	nRej := 0
	for _, c := range l.pending {
		w := written{c: c, row: !c.written, rejects: slices.Clone(c.rejects[c.nRej:]), from: c.nRej, to: len(c.rejects)}
		if w.row && c.state != StateSettled {
			released = released.Add(c.closed)
		}
		nRej += w.to - w.from
		batch = append(batch, w)
	}
	nPending := len(l.pending)
	if grow != nil {
		// Taking a slice is kept short: the calls wait for their batch.
		batch, released, nRej, nPending, unsynced = nil, Amounts{}, 0, 0, Amounts{}
	}
	a.mu.Unlock()
	if key == "" && grow == nil {
		return nil // nothing was ever taken
	}
	if (mode == syncFlush || lost) && grow == nil && len(batch) == 0 {
		return nil
	}
	w := &leaseWrite{key: key, writes: writes + 1, grow: grow != nil, unsynced: unsynced, batch: batch, nPending: nPending, end: end, lost: lost}
	if key == "" {
		w.key = newLeaseKey()
	}
	newKey := w.key
	expires := a.pg.cfg.Now().Add(a.pg.cfg.TTL)
	committing := false
	err := a.pg.pipe(ctx, func(t *pipeTx) error {
		// The calls' rows first, then the locks: the lease's and the
		// budgets' rows are held for one round trip and the commit, however
		// many calls are written.
		b := &pgx.Batch{}
		if rows := callRows(batch); rows.n > 0 {
			b.Queue(insertCallsSQL, slices.Concat([]any{a.pg.cfg.Tenant, l.keys, rows.keys}, rows.amounts.args(), []any{rows.states, rows.expires})...)
		}
		if rows := settlementRows(batch); rows.n > 0 {
			b.Queue(insertCallSettlementsSQL, slices.Concat([]any{a.pg.cfg.Tenant, rows.keys, rows.kinds}, rows.amounts.args(), []any{rows.reasons})...)
		}
		found, state := false, ""
		if key != "" && !lost {
			b.Queue(lockLeaseSQL, a.pg.cfg.Tenant, key).Query(func(rows pgx.Rows) error {
				if found = rows.Next(); !found {
					return nil
				}
				return rows.Scan(&state)
			})
		} else if key == "" && l.run != "" {
			b.Queue(storedKeysSQL, a.pg.cfg.Tenant, l.run).Query(func(rows pgx.Rows) (err error) {
				w.stored, err = pgx.CollectRows(rows, pgx.RowTo[string])
				return err
			})
		}
		var budgets []budgetRow
		b.Queue(lockBudgetsSQL, a.pg.cfg.Tenant, l.kinds, l.ids).Query(func(rows pgx.Rows) (err error) {
			budgets, err = scanBudgets(rows)
			return err
		})
		closed := false
		if grow != nil {
			b.Queue(scopesClosedSQL, a.pg.cfg.Tenant, l.kinds, l.ids).QueryRow(func(row pgx.Row) error {
				return row.Scan(&closed)
			})
		}
		if err := t.send(ctx, b); err != nil {
			return err
		}
		if key != "" && !lost && (!found || State(state) != StateReserved) {
			return errLeaseLost
		}
		if closed {
			return ErrScopeClosed
		}
		if grow != nil {
			for i, s := range l.scopes {
				if i >= len(budgets) || budgets[i].scope != s {
					return &noBudgetError{scope: s}
				}
			}
			var err error
			if w.take, w.k, err = a.slice(l.scopes, budgets, *grow, free); err != nil {
				return err
			}
		}
		take := w.take
		ret := Amounts{}
		if end && !lost {
			ret = held.Add(take).Sub(unsynced)
		}
		reserved := take.Sub(unsynced).Sub(ret)
		if lost {
			reserved = Amounts{}
		}
		b = &pgx.Batch{}
		b.Queue(syncBudgetsSQL, slices.Concat([]any{a.pg.cfg.Tenant, l.kinds, l.ids},
			amountArgs(reserved), amountArgs(unsynced), amountArgs(released), []any{nRej})...)
		switch {
		case lost:
			b.Queue(countLeaseWriteSQL, a.pg.cfg.Tenant, key)
		case key == "":
			b.Queue(insertLeaseSQL, slices.Concat([]any{a.pg.cfg.Tenant, newKey, l.keys}, amountArgs(take), []any{expires})...)
		default:
			b.Queue(updateLeaseSQL, slices.Concat([]any{a.pg.cfg.Tenant, key}, amountArgs(take.Sub(unsynced)), []any{expires})...)
		}
		if end && !lost {
			b.Queue(closeReservationSQL, a.pg.cfg.Tenant, newKey, string(StateReleased))
			b.Queue(insertSettlementSQL, slices.Concat([]any{a.pg.cfg.Tenant, newKey, "return"}, amountArgs(ret), []any{"the unused part of a lease, returned"})...)
		}
		committing = true
		return t.commit(ctx, b)
	})
	if err != nil {
		if committing {
			// The COMMIT may have landed although its answer did not (a
			// connection cut at that moment): the next write learns which.
			l.uncertain = w
		}
		return err
	}
	a.apply(l, w)
	return nil
}

// leaseWrite is what one write of a lease changes in process once it has
// committed.
type leaseWrite struct {
	key       string // the lease's row (new with its first slice)
	writes    int64  // the row's lease_writes once the write has committed
	grow      bool   // a slice was asked for
	take      Amounts
	k         int64
	unsynced  Amounts // the usage of the settled calls written
	batch     []written
	nPending  int      // how many of the lease's pending calls batch holds
	stored    []string // the keys the database held for the run
	end, lost bool
}

// resolve learns whether l's last write, whose COMMIT was sent but whose
// answer was lost, committed, and applies it in process if it did: else
// the next write would write its calls and move their usage a second
// time, or return what the lease no longer holds (which the budgets'
// checks refuse, leaving the lease open). It locks the budgets' rows,
// which that write held until it ended, then reads the lease's count of
// writes. The caller holds l.sync.
func (a *Leased) resolve(ctx context.Context, l *lease) error {
	w := l.uncertain
	if w == nil {
		return nil
	}
	writes := int64(-1)
	err := a.pg.pipe(ctx, func(t *pipeTx) error {
		b := &pgx.Batch{}
		b.Queue(lockBudgetsSQL, a.pg.cfg.Tenant, l.kinds, l.ids)
		b.Queue(leaseWritesSQL, a.pg.cfg.Tenant, w.key).Query(func(rows pgx.Rows) error {
			if !rows.Next() {
				return nil
			}
			return rows.Scan(&writes)
		})
		return t.commit(ctx, b)
	})
	if err != nil {
		return err
	}
	l.uncertain = nil
	if writes == w.writes {
		a.apply(l, w)
	}
	return nil
}

// apply records in process the committed write w of l.
func (a *Leased) apply(l *lease, w *leaseWrite) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l.key, l.writes = w.key, w.writes
	if !w.lost {
		l.held = l.held.Add(w.take).Sub(w.unsynced)
	}
	if w.grow {
		l.lastK = w.k
	}
	l.unsynced = l.unsynced.Sub(w.unsynced)
	for _, x := range w.batch {
		x.c.written = x.c.written || x.row
		x.c.nRej = x.to
	}
	// Calls closed or refused again since the batch was read stay pending.
	rest := l.pending[w.nPending:]
	for _, x := range w.batch {
		if x.c.nRej < len(x.c.rejects) && !slices.Contains(rest, x.c) {
			rest = append(rest, x.c)
		}
	}
	l.pending = slices.Clip(rest)
	for _, k := range w.stored {
		if a.calls[k] == nil && !a.stored[k] {
			a.stored[k] = true
			l.stored = append(l.stored, k)
		}
	}
	if w.end || w.lost {
		// Postgres answers for the calls from now on; the run's next lease
		// reads them again.
		for _, k := range l.stored {
			delete(a.stored, k)
		}
		l.stored = nil
		l.held = Amounts{}
		l.ended = w.end
		for _, x := range w.batch {
			if a.calls[x.c.key] == x.c {
				delete(a.calls, x.c.key)
				if l.run == "" {
					a.stored[x.c.key] = true
				}
			}
		}
	} else if len(l.pending) == 0 {
		a.schedule(l, a.pg.cfg.TTL/3)
	}
}

// slice is what a lease takes from scopes (whose budget rows are locked)
// for a call of ask when it holds free: at least what the call lacks, and
// up to SliceCalls such calls (k), but no more than a quarter of what any
// scope has left. It fails with an *ExhaustedError, as a reservation of
// ask would, when a scope cannot hold the call beside free.
func (a *Leased) slice(scopes []Scope, rows []budgetRow, ask, free Amounts) (Amounts, int64, error) {
	need := maxAmounts(ask.Sub(free), Amounts{})
	k := a.cfg.SliceCalls
	for i, s := range scopes {
		r := &rows[i]
		used := r.reserved.Add(r.settled)
		beside := used.Sub(free)
		if err := exhausted(s, &r.limits, &beside, &ask); err != nil {
			return Amounts{}, 0, err
		}
		lc, uc, ac := r.limits.counts(), used.counts(), ask.counts()
		for j := range lc {
			if lc[j] >= 0 && ac[j] > 0 {
				k = min(k, max(lc[j]-uc[j], 0)/ac[j]/4)
			}
		}
		if !r.limits.SpendUSD.IsNegative() && ask.SpendUSD.IsPositive() {
			left := decimal.Max(r.limits.SpendUSD.Sub(used.SpendUSD), decimal.Zero)
			k = min(k, left.Div(ask.SpendUSD).Div(decimal.NewFromInt(4)).Floor().IntPart())
		}
	}
	return maxAmounts(need, scaleAmounts(ask, k)), k, nil
}

// fitsIn reports whether ask is at most free in every dimension.
func fitsIn(ask, free Amounts) bool {
	_, over := ask.exceeding(free)
	return !over
}

// maxAmounts is the greater of a and b in each dimension.
func maxAmounts(a, b Amounts) Amounts {
	ac, bc := a.counts(), b.counts()
	for i := range ac {
		ac[i] = max(ac[i], bc[i])
	}
	return fromCounts(ac, decimal.Max(a.SpendUSD, b.SpendUSD))
}

// scaleAmounts is k×a, k lowered so that no count overflows.
func scaleAmounts(a Amounts, k int64) Amounts {
	c := a.counts()
	for _, v := range c {
		if v > 0 && k > math.MaxInt64/v {
			k = math.MaxInt64 / v
		}
	}
	for i := range c {
		c[i] *= k
	}
	return fromCounts(c, a.SpendUSD.Mul(decimal.NewFromInt(k)))
}

func newLeaseKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "lease/" + hex.EncodeToString(b[:])
}

// The statements of leases (see the Postgres statements for the
// conventions).

var lockLeaseSQL = `
SELECT state FROM reservations WHERE tenant_id = $1 AND key = $2 AND lease FOR UPDATE`

// storedKeysSQL lists the keys the database holds for a run ($2, a scope
// key), read when a lease of the run opens.
const storedKeysSQL = `
SELECT key FROM reservations WHERE tenant_id = $1 AND scope_keys @> ARRAY[$2::text] AND NOT lease`

// A lease's row counts the transactions that wrote it (lease_writes), so
// that a write whose answer was lost can be told committed or not.

var insertLeaseSQL = `
INSERT INTO reservations (tenant_id, key, scope_keys, ` + amountColumns + `, state, expires_at, lease, lease_writes)
VALUES ($1, $2, $3, ` + params(4) + `, 'reserved', ` + param(4+nAmounts) + `, true, 1)`

var updateLeaseSQL = `
UPDATE reservations SET ` + amountAdd("", "+", 3) + `, expires_at = ` + param(3+nAmounts) + `,
	lease_writes = lease_writes + 1
WHERE tenant_id = $1 AND key = $2`

// scopesClosedSQL reports whether a scope of a lease was closed
// (Postgres.ExpireScope), once their rows are locked.
const scopesClosedSQL = `
SELECT coalesce(bool_or(closed_at IS NOT NULL), false) FROM budgets
WHERE tenant_id = $1 AND (scope_kind, scope_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`

// countLeaseWriteSQL counts a write of a lost lease (its calls only).
const countLeaseWriteSQL = `
UPDATE reservations SET lease_writes = lease_writes + 1 WHERE tenant_id = $1 AND key = $2 AND lease`

const leaseWritesSQL = `
SELECT lease_writes FROM reservations WHERE tenant_id = $1 AND key = $2 AND lease`

// syncBudgetsSQL adds to reserved (the dimensions from $4), settled and
// released (the dimensions after them) and the refused settlements.
var syncBudgetsSQL = `
UPDATE budgets SET ` + amountAdd("reserved_", "+", 4) + `,
	` + amountAdd("settled_", "+", 4+nAmounts) + `,
	` + amountAdd("released_", "+", 4+2*nAmounts) + `,
	rejected_settlements = rejected_settlements + ` + param(4+3*nAmounts) + `, updated_at = now()
WHERE tenant_id = $1 AND (scope_kind, scope_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`

// insertCallsSQL writes closed calls ($3 keys, then the dimensions'
// arrays, states and expiries) with the scope keys $2. A key the database
// holds already (reserved through another process at the same time) keeps
// its row.
var insertCallsSQL = `
INSERT INTO reservations (tenant_id, key, scope_keys, ` + amountColumns + `, state, expires_at, closed_at)
SELECT $1, u.key, $2, ` + amountList("u.") + `, u.state, u.expires_at, now()
FROM unnest($3::text[], ` + arrayParams(4) + `, ` + param(4+nAmounts) + `::text[], ` + param(5+nAmounts) + `::timestamptz[])
	AS u(key, ` + amountColumns + `, state, expires_at)
ON CONFLICT (tenant_id, key) DO NOTHING`

// insertCallSettlementsSQL writes settlements ($2 keys, $3 kinds, the
// dimensions' arrays, reasons).
var insertCallSettlementsSQL = `
INSERT INTO settlements (tenant_id, key, kind, ` + amountColumns + `, reason)
SELECT $1, u.key, u.kind, ` + amountList("u.") + `, u.reason
FROM unnest($2::text[], $3::text[], ` + arrayParams(4) + `, ` + param(4+nAmounts) + `::text[])
	AS u(key, kind, ` + amountColumns + `, reason)
ON CONFLICT DO NOTHING`

// arrayParams is the array placeholders of the dimensions, from $from on.
func arrayParams(from int) string {
	i := from - 1
	return joinDims(func(d Dimension) string {
		i++
		if d == SpendUSD {
			return param(i) + "::numeric[]"
		}
		return param(i) + "::bigint[]"
	})
}

// amountArrays are the columns of many amounts, one array a dimension.
type amountArrays struct {
	counts [nCounts][]int64
	spend  []pgtype.Numeric
}

func (r *amountArrays) add(a Amounts) {
	for i, v := range a.counts() {
		r.counts[i] = append(r.counts[i], v)
	}
	r.spend = append(r.spend, numeric(a.SpendUSD))
}

func (r *amountArrays) args() []any {
	args := make([]any, 0, nAmounts)
	for _, c := range r.counts {
		args = append(args, c)
	}
	return append(args, r.spend)
}

type callArrays struct {
	n       int
	keys    []string
	amounts amountArrays
	states  []string
	expires []time.Time
}

func callRows(batch []written) callArrays {
	var r callArrays
	for _, w := range batch {
		if !w.row {
			continue
		}
		r.n++
		r.keys = append(r.keys, w.c.key)
		r.amounts.add(w.c.amounts)
		r.states = append(r.states, string(w.c.state))
		r.expires = append(r.expires, w.c.expires)
	}
	return r
}

type settlementArrays struct {
	n                    int
	keys, kinds, reasons []string
	amounts              amountArrays
}

func (r *settlementArrays) add(key, kind string, a Amounts, reason string) {
	r.n++
	r.keys = append(r.keys, key)
	r.kinds = append(r.kinds, kind)
	r.amounts.add(a)
	r.reasons = append(r.reasons, reason)
}

func settlementRows(batch []written) settlementArrays {
	var r settlementArrays
	for _, w := range batch {
		for _, rej := range w.rejects {
			r.add(w.c.key, "rejected", rej.actual, rej.reason)
		}
		if !w.row {
			continue
		}
		switch w.c.state {
		case StateSettled:
			r.add(w.c.key, "settle", w.c.closed, "")
		case StateReleased:
			r.add(w.c.key, "release", w.c.closed, "")
		case StateExpired:
			r.add(w.c.key, "expire", w.c.closed, "")
		}
	}
	return r
}
