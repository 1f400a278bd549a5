package budget

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Memory is the in-process accountant: budgets and reservations in maps
// under one mutex, for a single process (tests, the embedded mode). Every
// operation holds the mutex for a few microseconds (BenchmarkReserveSettle),
// far below the cost of the calls it guards. It keeps every key it has seen,
// to answer replays, and Sweep walks them all: it is meant for the life of
// one process, not as a long-running store. It is safe for concurrent use.
type Memory struct {
	cfg Config

	mu sync.Mutex
	// guarded by mu:
	budgets      map[Scope]*memBudget
	reservations map[string]*memReservation
}

type memBudget struct {
	limits                      Limits
	reserved, settled, released Amounts
	states                      map[State]int64
	rejected                    int64
}

type memReservation struct {
	scopes  []Scope
	amounts Amounts // reserved
	expires time.Time
	state   State
	closed  Amounts // settled or returned
}

// NewMemory returns an empty in-process accountant.
func NewMemory(cfg *Config) (*Memory, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Memory{cfg: c, budgets: map[Scope]*memBudget{}, reservations: map[string]*memReservation{}}, nil
}

// SetLimits creates scope's budget with limits, or replaces the limits of
// an existing one, keeping its usage. Lowering a limit below the usage
// refuses further reservations in that dimension; it cancels nothing.
func (m *Memory) SetLimits(ctx context.Context, scope Scope, limits Limits) error {
	return m.setLimits(scope, limits, true)
}

// setLimits sets scope's limits; unless replace, only when it has no
// budget yet.
func (m *Memory) setLimits(scope Scope, limits Limits, replace bool) error {
	if err := scope.validate(); err != nil {
		return err
	}
	if err := limits.validate(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.budgets[scope]
	if b != nil && !replace {
		return nil
	}
	if b == nil {
		b = &memBudget{states: map[State]int64{}}
		m.budgets[scope] = b
	}
	b.limits = limits
	return nil
}

// Reserve holds amounts in every one of scopes, or in none: it fails with
// an *ExhaustedError if any scope cannot hold them, and with ErrNoBudget if
// a scope has no limits (a tenant's day gets them from Config.DayLimits,
// when set). Reserving a key again with the same scopes and amounts is a
// replay; with others, ErrKeyReused.
func (m *Memory) Reserve(ctx context.Context, key string, scopes []Scope, amounts Amounts, opts *ReserveOpts) (Result, error) {
	return reserveCreatingDay(ctx, &m.cfg,
		func() (Result, error) { return m.reserve(key, scopes, amounts, opts) },
		func(s Scope, l Limits) error { return m.setLimits(s, l, false) })
}

func (m *Memory) reserve(key string, scopes []Scope, amounts Amounts, opts *ReserveOpts) (Result, error) {
	sorted, err := checkReserve(key, scopes, amounts)
	if err != nil {
		return Result{}, err
	}
	expires := m.cfg.expiry(opts)

	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.reservations[key]; ok {
		if !slices.Equal(r.scopes, sorted) || !r.amounts.Equal(amounts) {
			return Result{}, fmt.Errorf("%w: %q", ErrKeyReused, key)
		}
		return Result{Key: key, State: r.state, Replayed: true, Amounts: r.amounts}, nil
	}
	bs := make([]*memBudget, len(sorted))
	for i, s := range sorted {
		b := m.budgets[s]
		if b == nil {
			return Result{}, &noBudgetError{scope: s}
		}
		used := b.reserved.Add(b.settled)
		if err := exhausted(s, &b.limits, &used, &amounts); err != nil {
			return Result{}, err
		}
		bs[i] = b
	}
	for _, b := range bs {
		b.reserved = b.reserved.Add(amounts)
		b.states[StateReserved]++
	}
	m.reservations[key] = &memReservation{scopes: sorted, amounts: amounts, expires: expires, state: StateReserved}
	return Result{Key: key, State: StateReserved, Amounts: amounts}, nil
}

// Settle charges actual, which must lie between zero and the reservation
// in every dimension, and returns the rest of the hold. A refused
// settlement is counted in Usage.Rejected and leaves the reservation open.
// Settling a settled key again is a replay, whatever actual says; settling
// a released or swept one is ErrReleased.
func (m *Memory) Settle(ctx context.Context, key string, actual Amounts) (Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.reservations[key]
	if !ok {
		return Result{}, fmt.Errorf("%w: %q", ErrUnknownReservation, key)
	}
	switch r.state {
	case StateSettled:
		return Result{Key: key, State: r.state, Replayed: true, Amounts: r.closed}, nil
	case StateReleased, StateExpired:
		m.reject(r)
		return Result{Key: key, State: r.state}, fmt.Errorf("%w: %q is %s", ErrReleased, key, r.state)
	}
	if err := checkSettle(key, r.amounts, actual); err != nil {
		m.reject(r)
		return Result{}, err
	}
	for _, s := range r.scopes {
		b := m.budgets[s]
		b.reserved = b.reserved.Sub(r.amounts)
		b.settled = b.settled.Add(actual)
		b.states[StateReserved]--
		b.states[StateSettled]++
	}
	r.state, r.closed = StateSettled, actual
	return Result{Key: key, State: StateSettled, Amounts: actual}, nil
}

func (m *Memory) reject(r *memReservation) {
	for _, s := range r.scopes {
		m.budgets[s].rejected++
	}
}

// Release returns a reservation whose call never happened. Releasing a key
// that is already released, swept or settled is a replay: nothing changes.
func (m *Memory) Release(ctx context.Context, key string) (Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.reservations[key]
	if !ok {
		return Result{}, fmt.Errorf("%w: %q", ErrUnknownReservation, key)
	}
	if r.state != StateReserved {
		return Result{Key: key, State: r.state, Replayed: true, Amounts: r.closed}, nil
	}
	m.release(r, StateReleased)
	return Result{Key: key, State: StateReleased, Amounts: r.closed}, nil
}

// release returns r's hold to its budgets. Callers hold mu.
func (m *Memory) release(r *memReservation, to State) {
	for _, s := range r.scopes {
		b := m.budgets[s]
		b.reserved = b.reserved.Sub(r.amounts)
		b.released = b.released.Add(r.amounts)
		b.states[StateReserved]--
		b.states[to]++
	}
	r.state, r.closed = to, r.amounts
}

// Sweep releases every open reservation that expired at or before now and
// returns how many it released. Each is released once: a second sweep, or
// one running at the same time, finds it closed.
func (m *Memory) Sweep(ctx context.Context, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, r := range m.reservations {
		if r.state == StateReserved && !r.expires.After(now) {
			m.release(r, StateExpired)
			n++
		}
	}
	return n, nil
}

// ExpireScope returns, as Sweep does when they expire, every reservation
// still open that holds scope, and returns how many it closed.
func (m *Memory) ExpireScope(ctx context.Context, scope Scope) (int, error) {
	if err := scope.validate(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, r := range m.reservations {
		if r.state == StateReserved && slices.Contains(r.scopes, scope) {
			m.release(r, StateExpired)
			n++
		}
	}
	return n, nil
}

// Usage returns the audit of scope's budget, or ErrNoBudget.
func (m *Memory) Usage(ctx context.Context, scope Scope) (Usage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.budgets[scope]
	if b == nil {
		return Usage{}, fmt.Errorf("%w: %s", ErrNoBudget, scope)
	}
	u := Usage{Scope: scope, Limits: b.limits, Reserved: b.reserved, Settled: b.settled, Released: b.released,
		Reservations: map[State]int64{}, Rejected: b.rejected}
	for s, n := range b.states {
		if n != 0 {
			u.Reservations[s] = n
		}
	}
	return u, nil
}
