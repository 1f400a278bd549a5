package budget

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// Dimension names one thing a budget counts.
type Dimension string

// The dimensions a budget counts. Tool calls are counted per kind of tool.
const (
	ModelCalls     Dimension = "model_calls"
	SearchCalls    Dimension = "search_calls"
	ReadCalls      Dimension = "read_calls"
	FactCalls      Dimension = "fact_calls"
	CalculateCalls Dimension = "calculate_calls"
	InputTokens    Dimension = "input_tokens"
	OutputTokens   Dimension = "output_tokens"
	Candidates     Dimension = "retrieval_candidates"
	SpendUSD       Dimension = "spend_usd"
)

// countDim is one integer dimension: its name, which every budget table's
// columns of it end with (limit_model_calls, reserved_model_calls,
// model_calls), and the name of its field in Amounts and in Limits.
type countDim struct {
	Dimension
	field string
}

// countDims lists the integer dimensions, once, in the order of the SQL
// columns, of reports and of Amounts.fields and Limits.fields (which a test
// holds to this table); SpendUSD, the one decimal dimension, follows them
// everywhere. What goes dimension by dimension (arithmetic, limit checks,
// error messages, Postgres's statements with their arguments and scans) is
// built from this table, so a new integer dimension is a constant, a field
// in Amounts and in Limits with its pointer in their fields, one row here,
// and a migration adding its columns.
var countDims = [...]countDim{
	{ModelCalls, "ModelCalls"},
	{SearchCalls, "SearchCalls"},
	{ReadCalls, "ReadCalls"},
	{FactCalls, "FactCalls"},
	{CalculateCalls, "CalculateCalls"},
	{InputTokens, "InputTokens"},
	{OutputTokens, "OutputTokens"},
	{Candidates, "Candidates"},
}

// nCounts is the number of integer dimensions: every one but SpendUSD.
const nCounts = len(countDims)

// nAmounts is the number of dimensions, SpendUSD included.
const nAmounts = nCounts + 1

// Dimensions returns every dimension, in the order reports list them.
func Dimensions() []Dimension {
	ds := make([]Dimension, 0, nAmounts)
	for _, c := range countDims {
		ds = append(ds, c.Dimension)
	}
	return append(ds, SpendUSD)
}

// Amounts is a usage vector: what a call reserves, or what it used. The
// zero value is nothing at all.
type Amounts struct {
	ModelCalls     int64
	SearchCalls    int64
	ReadCalls      int64
	FactCalls      int64
	CalculateCalls int64
	InputTokens    int64
	OutputTokens   int64
	Candidates     int64
	// SpendUSD is money, exact: never a float.
	SpendUSD decimal.Decimal
}

// fields are a's integer fields in the order of countDims. (Pointers
// from one small function, rather than accessors in countDims, keep
// amounts off the heap: the compiler sees through an inlined call, not
// through a table of funcs.)
func (a *Amounts) fields() [nCounts]*int64 {
	return [...]*int64{&a.ModelCalls, &a.SearchCalls, &a.ReadCalls, &a.FactCalls, &a.CalculateCalls,
		&a.InputTokens, &a.OutputTokens, &a.Candidates}
}

// counts returns the integer dimensions in the order of countDims.
func (a *Amounts) counts() [nCounts]int64 {
	var c [nCounts]int64
	for i, f := range a.fields() {
		c[i] = *f
	}
	return c
}

// fromCounts is the Amounts of the integer dimensions c, in the order of
// countDims, and spend.
func fromCounts(c [nCounts]int64, spend decimal.Decimal) Amounts {
	a := Amounts{SpendUSD: spend}
	for i, f := range a.fields() {
		*f = c[i]
	}
	return a
}

// Get returns the amount of one dimension as a decimal; zero for a
// dimension it does not know.
func (a Amounts) Get(d Dimension) decimal.Decimal {
	if d == SpendUSD {
		return a.SpendUSD
	}
	c := a.counts()
	for i, cd := range countDims {
		if cd.Dimension == d {
			return decimal.NewFromInt(c[i])
		}
	}
	return decimal.Decimal{}
}

// IsZero reports whether every dimension is zero.
func (a Amounts) IsZero() bool {
	return a.counts() == [nCounts]int64{} && a.SpendUSD.IsZero()
}

// Equal reports whether a and b hold the same amounts (1.0 equals 1.00).
func (a Amounts) Equal(b Amounts) bool {
	return a.counts() == b.counts() && a.SpendUSD.Equal(b.SpendUSD)
}

// Add returns a+b.
func (a Amounts) Add(b Amounts) Amounts {
	ac, bc := a.counts(), b.counts()
	for i := range ac {
		ac[i] += bc[i]
	}
	return fromCounts(ac, a.SpendUSD.Add(b.SpendUSD))
}

// Sub returns a-b.
func (a Amounts) Sub(b Amounts) Amounts {
	ac, bc := a.counts(), b.counts()
	for i := range ac {
		ac[i] -= bc[i]
	}
	return fromCounts(ac, a.SpendUSD.Sub(b.SpendUSD))
}

// String lists the non-zero dimensions: "model_calls=1 spend_usd=0.01".
func (a Amounts) String() string {
	s := ""
	c := a.counts()
	for i, d := range countDims {
		if c[i] != 0 {
			s += fmt.Sprintf(" %s=%d", d.Dimension, c[i])
		}
	}
	if !a.SpendUSD.IsZero() {
		s += fmt.Sprintf(" %s=%s", SpendUSD, a.SpendUSD)
	}
	if s == "" {
		return "nothing"
	}
	return s[1:]
}

// validate returns a *NegativeAmountError for the first negative dimension.
func (a Amounts) validate() error {
	c := a.counts()
	for i, d := range countDims {
		if c[i] < 0 {
			return &NegativeAmountError{Dimension: d.Dimension, Value: decimal.NewFromInt(c[i])}
		}
	}
	if a.SpendUSD.IsNegative() {
		return &NegativeAmountError{Dimension: SpendUSD, Value: a.SpendUSD}
	}
	return nil
}

// exceeding returns the first dimension in which a is greater than max.
func (a Amounts) exceeding(max Amounts) (Dimension, bool) {
	ac, mc := a.counts(), max.counts()
	for i, d := range countDims {
		if ac[i] > mc[i] {
			return d.Dimension, true
		}
	}
	if a.SpendUSD.GreaterThan(max.SpendUSD) {
		return SpendUSD, true
	}
	return "", false
}

// USDPlaces is the most decimal places an amount of money may be given
// with.
const USDPlaces = 8

// maxUSDExponent bounds an amount of money at 10^12 USD.
const maxUSDExponent = 12

// CheckUSD returns an error unless d is an amount of money a person would
// write: below 10^12 in magnitude, with at most USDPlaces decimal places.
// Amounts such as 1e-9999 or 1e9999 are refused before any arithmetic
// (which would build numbers of ten thousand digits), and the error does
// not repeat them.
func CheckUSD(d decimal.Decimal) error {
	if d.Exponent() < -USDPlaces {
		return fmt.Errorf("budget: an amount in USD has more than %d decimal places", USDPlaces)
	}
	if d.Exponent() > maxUSDExponent || d.Abs().GreaterThanOrEqual(decimal.New(1, maxUSDExponent)) {
		return fmt.Errorf("budget: an amount in USD is 10^%d or more", maxUSDExponent)
	}
	return nil
}
