package budget

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Unlimited is the value of an integer limit that does not limit.
const Unlimited int64 = -1

// Limits bound a budget, dimension by dimension. An integer field set to
// Unlimited (-1), or a negative SpendUSD, does not limit its dimension; 0
// allows none. The zero value therefore allows nothing, so a forgotten field
// fails closed; start from NoLimits to limit only a few dimensions.
type Limits struct {
	ModelCalls     int64
	SearchCalls    int64
	ReadCalls      int64
	FactCalls      int64
	CalculateCalls int64
	InputTokens    int64
	OutputTokens   int64
	Candidates     int64
	// SpendUSD limits money; negative means unlimited.
	SpendUSD decimal.Decimal
	// WallClock is how long a run may take, enforced as a context deadline
	// (WithDeadline), not by reservations; 0 means no deadline.
	WallClock time.Duration
}

// NoLimits returns limits that limit nothing.
func NoLimits() Limits {
	var c [nCounts]int64
	for i := range c {
		c[i] = Unlimited
	}
	return limitsFromCounts(c, decimal.NewFromInt(-1))
}

// fields are l's integer fields in the order of countDims (see
// Amounts.fields).
func (l *Limits) fields() [nCounts]*int64 {
	return [...]*int64{&l.ModelCalls, &l.SearchCalls, &l.ReadCalls, &l.FactCalls, &l.CalculateCalls,
		&l.InputTokens, &l.OutputTokens, &l.Candidates}
}

// counts returns the integer limits in the order of countDims.
func (l *Limits) counts() [nCounts]int64 {
	var c [nCounts]int64
	for i, f := range l.fields() {
		c[i] = *f
	}
	return c
}

// limitsFromCounts is the Limits of the integer limits c, in the order of
// countDims, and spend, without a wall-clock limit.
func limitsFromCounts(c [nCounts]int64, spend decimal.Decimal) Limits {
	l := Limits{SpendUSD: spend}
	for i, f := range l.fields() {
		*f = c[i]
	}
	return l
}

// Limited reports whether dimension d has a limit.
func (l Limits) Limited(d Dimension) bool {
	if d == SpendUSD {
		return !l.SpendUSD.IsNegative()
	}
	c := l.counts()
	for i, cd := range countDims {
		if cd.Dimension == d {
			return c[i] >= 0
		}
	}
	return false
}

// Get returns the limit of dimension d, and false when it is unlimited.
func (l Limits) Get(d Dimension) (decimal.Decimal, bool) {
	if !l.Limited(d) {
		return decimal.Decimal{}, false
	}
	if d == SpendUSD {
		return l.SpendUSD, true
	}
	c := l.counts()
	for i, cd := range countDims {
		if cd.Dimension == d {
			return decimal.NewFromInt(c[i]), true
		}
	}
	return decimal.Decimal{}, false
}

// Count returns the integer limit of dimension d exactly as set, Unlimited
// or any other negative value included, so that a caller checking limits it
// was given can name the dimension that is wrong; ok is false for SpendUSD
// and for a dimension the budget does not count.
func (l Limits) Count(d Dimension) (n int64, ok bool) {
	c := l.counts()
	for i, cd := range countDims {
		if cd.Dimension == d {
			return c[i], true
		}
	}
	return 0, false
}

func (l Limits) validate() error {
	c := l.counts()
	for i, d := range countDims {
		if c[i] < Unlimited {
			return fmt.Errorf("budget: Limits.%s %d: want a count, or Unlimited (-1)", d.field, c[i])
		}
	}
	if l.WallClock < 0 {
		return fmt.Errorf("budget: Limits.WallClock %s is negative", l.WallClock)
	}
	return nil
}

// fits returns the first dimension in which used+ask exceeds the limits.
func (l *Limits) fits(used, ask *Amounts) (Dimension, bool) {
	lc, uc, ac := l.counts(), used.counts(), ask.counts()
	for i, d := range countDims {
		if ac[i] != 0 && lc[i] >= 0 && uc[i]+ac[i] > lc[i] {
			return d.Dimension, false
		}
	}
	if !ask.SpendUSD.IsZero() && !l.SpendUSD.IsNegative() && used.SpendUSD.Add(ask.SpendUSD).GreaterThan(l.SpendUSD) {
		return SpendUSD, false
	}
	return "", true
}

// fieldName is the Go field of a dimension, for error messages.
func fieldName(d Dimension) string {
	if d == SpendUSD {
		return "SpendUSD"
	}
	for _, cd := range countDims {
		if cd.Dimension == d {
			return cd.field
		}
	}
	return string(d)
}

// WithDeadline returns a context that ends when the run's wall-clock limit,
// counted from start, has passed; with no WallClock limit it only adds a
// cancel. The executor runs every call of a run under this context, so
// wall-clock time is bounded without being reserved.
func WithDeadline(ctx context.Context, start time.Time, l Limits) (context.Context, context.CancelFunc) {
	if l.WallClock <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, start.Add(l.WallClock))
}
