package budget

import "github.com/shopspring/decimal"

// Usage is the audit of one scope's budget.
type Usage struct {
	Scope  Scope
	Limits Limits
	// Reserved is held by open reservations.
	Reserved Amounts
	// Settled is what settled calls used.
	Settled Amounts
	// Released is what released and swept reservations returned.
	Released Amounts
	// Reservations counts the scope's reservations by state.
	Reservations map[State]int64
	// Rejected counts the settlements refused (negative, above the
	// reservation, or after a release).
	Rejected int64
}

// Remaining is what the scope can still reserve in dimension d, never
// below zero, and false when d is unlimited.
func (u Usage) Remaining(d Dimension) (decimal.Decimal, bool) {
	limit, ok := u.Limits.Get(d)
	if !ok {
		return decimal.Decimal{}, false
	}
	r := limit.Sub(u.Reserved.Get(d)).Sub(u.Settled.Get(d))
	if r.IsNegative() {
		r = decimal.Zero
	}
	return r, true
}
