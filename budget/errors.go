package budget

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"
)

// ExhaustedError is a reservation refused because one of its scopes cannot
// hold it. Nothing was reserved in any scope.
type ExhaustedError struct {
	Scope     Scope
	Dimension Dimension
	// Limit is the scope's limit of Dimension.
	Limit decimal.Decimal
	// Used is what the scope had reserved and settled in Dimension.
	Used decimal.Decimal
	// Asked is what the reservation asked for in Dimension.
	Asked decimal.Decimal
}

// Error names the budget, the dimension and the figures, in words fit for
// the run's tenant (runs record it in their notes and events).
func (e *ExhaustedError) Error() string {
	whose := "the run's budget"
	if e.Scope.Kind == KindTenantDay {
		whose = "the tenant's budget for " + e.Scope.ID + " (UTC)"
	}
	return fmt.Sprintf("%s has no %s left for this call: limit %s, used %s, the call needs %s", whose, e.Dimension, e.Limit, e.Used, e.Asked)
}

// Is makes an *ExhaustedError match ErrExhausted.
func (e *ExhaustedError) Is(target error) bool { return target == ErrExhausted }

// ErrExhausted is matched by every *ExhaustedError, for callers that need
// not know which budget ran out.
var ErrExhausted = errors.New("budget: exhausted")

// NegativeAmountError is an amount below zero, given to Reserve or Settle.
// A rejected settlement is recorded.
type NegativeAmountError struct {
	Dimension Dimension
	Value     decimal.Decimal
}

// Error names the field.
func (e *NegativeAmountError) Error() string {
	return fmt.Sprintf("budget: Amounts.%s %s is negative", fieldName(e.Dimension), e.Value)
}

// OverReservationError is a settlement above what was reserved. It is
// recorded, and the reservation stays open: settle again with an amount it
// covers (at most the reservation), or let it be swept.
type OverReservationError struct {
	Key       string
	Dimension Dimension
	Reserved  decimal.Decimal
	Actual    decimal.Decimal
}

// Error names the key, the field and the figures.
func (e *OverReservationError) Error() string {
	return fmt.Sprintf("budget: settle %q: Amounts.%s %s is above the reserved %s", e.Key, fieldName(e.Dimension), e.Actual, e.Reserved)
}

// noBudgetError is ErrNoBudget for one scope.
type noBudgetError struct{ scope Scope }

func (e *noBudgetError) Error() string { return ErrNoBudget.Error() + ": " + e.scope.String() }

func (e *noBudgetError) Is(target error) bool { return target == ErrNoBudget }

// Sentinel errors.
var (
	// ErrUnknownReservation is returned by Settle and Release for a key
	// that was never reserved.
	ErrUnknownReservation = errors.New("budget: unknown reservation key")
	// ErrNoBudget is returned by Reserve and Usage for a scope without
	// limits: a scope must be given limits (SetLimits) before use, so a
	// missing budget is never an unlimited one.
	ErrNoBudget = errors.New("budget: scope has no budget")
	// ErrKeyReused is returned by Reserve for a key already reserved with
	// other scopes or amounts.
	ErrKeyReused = errors.New("budget: idempotency key reused for a different reservation")
	// ErrReleased is returned by Settle for a reservation already released
	// or swept: its hold was returned, so the usage cannot be charged to it.
	// The attempt is recorded.
	ErrReleased = errors.New("budget: reservation already released")
	// ErrNoOutputCap is returned by ModelReservation for a model call
	// without max_tokens: its cost has no upper bound, so it cannot be
	// reserved.
	ErrNoOutputCap = errors.New("budget: model call has no output token cap (max_tokens)")
	// ErrScopeClosed is returned by Leased.Reserve for a call whose lease
	// needs a slice of a scope that ExpireScope closed (a run that has its
	// verdict, perhaps in another process) and SetLimits has not opened
	// again (an attempt that resumes the run): the slice is not taken, and
	// the lease is returned.
	ErrScopeClosed = errors.New("budget: the scope is closed: its run has its verdict")
)
