package budget

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Accountant is what the executor needs of a budget: reserve before a call,
// settle or release after it. Memory and Postgres implement it.
type Accountant interface {
	Reserve(ctx context.Context, key string, scopes []Scope, amounts Amounts, opts *ReserveOpts) (Result, error)
	Settle(ctx context.Context, key string, actual Amounts) (Result, error)
	Release(ctx context.Context, key string) (Result, error)
}

// ReserveOpts are the optional knobs of one reservation.
type ReserveOpts struct {
	// Expires is when a reservation left open may be swept; zero means
	// Config.TTL from now. Make it later than the call's own timeout: a
	// swept reservation can no longer be settled.
	Expires time.Time
}

// State is where a reservation is in its lifecycle.
type State string

// The reservation states. Every state but StateReserved is final.
const (
	StateReserved State = "reserved"
	StateSettled  State = "settled"
	StateReleased State = "released"
	// StateExpired is a reservation Sweep released after its expiry.
	StateExpired State = "expired"
)

// Result is what Reserve, Settle and Release did.
type Result struct {
	Key string
	// State is the reservation's state after the call.
	State State
	// Replayed is true when the key had already been through this step (or
	// a final one): the call changed nothing. It is not an error: a retried
	// settle after a lost reply is a normal event.
	Replayed bool
	// Amounts is what the call reserved (Reserve), charged (Settle) or
	// returned to the budgets (Release); on a replay, what the first call
	// did.
	Amounts Amounts
}

// Config configures an accountant. A nil *Config means the defaults.
type Config struct {
	// Tenant owns every budget and reservation the accountant touches; ""
	// means DefaultTenant.
	Tenant string
	// TTL is how long a reservation holds when ReserveOpts.Expires is zero;
	// 0 means 15 minutes.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// DayLimits, when set, gives a tenant's day (a KindTenantDay scope)
	// its budget the first time a reservation names it: the limits it
	// returns for the tenant. However many processes reserve at once, the
	// day gets one budget, and limits set before are kept. nil means a day
	// has no budget until SetLimits gives it one.
	DayLimits func(ctx context.Context, tenant string) (Limits, error)
}

// DefaultTenant is the tenant of an accountant whose Config names none.
const DefaultTenant = "default"

// DefaultTTL is the hold of a reservation when neither ReserveOpts nor
// Config says.
const DefaultTTL = 15 * time.Minute

// withDefaults validates cfg and returns a copy with defaults filled in.
func (c *Config) withDefaults() (Config, error) {
	var out Config
	if c != nil {
		out = *c
	}
	if out.TTL < 0 {
		return out, fmt.Errorf("budget: Config.TTL %s is negative", out.TTL)
	}
	if out.TTL == 0 {
		out.TTL = DefaultTTL
	}
	if out.Tenant == "" {
		out.Tenant = DefaultTenant
	}
	if out.Now == nil {
		out.Now = time.Now
	}
	return out, nil
}

// reserveCreatingDay calls reserve; when it fails for want of a tenant
// day's budget and cfg.DayLimits is set, it creates that budget with
// create (which keeps a budget created meanwhile) and calls reserve again.
func reserveCreatingDay(ctx context.Context, cfg *Config, reserve func() (Result, error), create func(Scope, Limits) error) (Result, error) {
	res, err := reserve()
	var nb *noBudgetError
	if err == nil || cfg.DayLimits == nil || !errors.As(err, &nb) || nb.scope.Kind != KindTenantDay {
		return res, err
	}
	limits, lerr := cfg.DayLimits(ctx, cfg.Tenant)
	if lerr != nil {
		return Result{}, fmt.Errorf("budget: the limits of %s: %w", nb.scope, lerr)
	}
	if cerr := create(nb.scope, limits); cerr != nil {
		return Result{}, cerr
	}
	return reserve()
}

// maxKeyLen bounds idempotency keys.
const maxKeyLen = 200

// checkReserve checks a reservation's key and amounts and returns its
// scopes in lock order, as every accountant's Reserve does first.
func checkReserve(key string, scopes []Scope, amounts Amounts) ([]Scope, error) {
	if err := validateKey(key); err != nil {
		return nil, err
	}
	sorted, err := normalizeScopes(scopes)
	if err != nil {
		return nil, err
	}
	if err := amounts.validate(); err != nil {
		return nil, err
	}
	return sorted, nil
}

func validateKey(key string) error {
	if strings.TrimSpace(key) == "" {
		return fmt.Errorf("budget: key: empty idempotency key")
	}
	if len(key) > maxKeyLen {
		return fmt.Errorf("budget: key: %d bytes, at most %d", len(key), maxKeyLen)
	}
	return nil
}

// expiry returns when a reservation made now expires.
func (c *Config) expiry(opts *ReserveOpts) time.Time {
	if opts != nil && !opts.Expires.IsZero() {
		return opts.Expires
	}
	return c.Now().Add(c.TTL)
}

// exhausted checks ask against one scope's limits and usage (reserved plus
// settled) and returns the error naming what ran out, or nil.
func exhausted(scope Scope, limits *Limits, used, ask *Amounts) error {
	d, ok := limits.fits(used, ask)
	if ok {
		return nil
	}
	limit, _ := limits.Get(d)
	return &ExhaustedError{Scope: scope, Dimension: d, Limit: limit, Used: used.Get(d), Asked: ask.Get(d)}
}

// checkSettle checks an actual usage against its reservation.
func checkSettle(key string, reserved, actual Amounts) error {
	if err := actual.validate(); err != nil {
		return err
	}
	if d, over := actual.exceeding(reserved); over {
		return &OverReservationError{Key: key, Dimension: d, Reserved: reserved.Get(d), Actual: actual.Get(d)}
	}
	return nil
}
