package budget

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// TestCountDimsFields: countDims, Amounts.fields and Limits.fields name
// the same fields in the same order, and every integer field of Amounts
// and Limits is a dimension, so a dimension added to the structs but not
// to the table (or the other way round) fails here.
func TestCountDimsFields(t *testing.T) {
	var a Amounts
	var l Limits
	for _, c := range []struct {
		name   string
		v      reflect.Value // the struct, addressable
		fields [nCounts]*int64
	}{
		{"Amounts", reflect.ValueOf(&a).Elem(), a.fields()},
		{"Limits", reflect.ValueOf(&l).Elem(), l.fields()},
	} {
		ints := 0
		for i := range c.v.NumField() {
			if c.v.Field(i).Type() == reflect.TypeFor[int64]() { // not WallClock, a time.Duration
				ints++
			}
		}
		if ints != nCounts {
			t.Errorf("%s has %d int64 fields, countDims %d rows", c.name, ints, nCounts)
		}
		for i, d := range countDims {
			f := c.v.FieldByName(d.field)
			if !f.IsValid() || f.Type() != reflect.TypeFor[int64]() {
				t.Errorf("countDims[%d] names %s.%s, which is not an int64 field", i, c.name, d.field)
				continue
			}
			if got := f.Addr().Interface().(*int64); got != c.fields[i] {
				t.Errorf("%s.fields()[%d] is not the field %s of countDims[%d]", c.name, i, d.field, i)
			}
		}
	}
	ds := Dimensions()
	if len(ds) != nAmounts || ds[len(ds)-1] != SpendUSD {
		t.Errorf("Dimensions() = %v, want the %d of countDims then %s", ds, nCounts, SpendUSD)
	}
	for i, d := range ds {
		if slices.Index(ds, d) != i {
			t.Errorf("dimension %s is listed twice", d)
		}
	}
}

// TestStatementParams: every statement built from the dimensions uses
// exactly the placeholders $1..$n of the arguments it is given.
func TestStatementParams(t *testing.T) {
	for _, c := range []struct {
		name string
		sql  string
		want int // tenant, fixed arguments, dimensions, trailing arguments
	}{
		{"insertLimitsSQL", insertLimitsSQL, 3 + nAmounts + 1},
		{"upsertLimitsSQL", upsertLimitsSQL, 3 + nAmounts + 1},
		{"createLimitsSQL", createLimitsSQL, 3 + nAmounts + 1},
		{"insertReservationSQL", insertReservationSQL, 3 + nAmounts + 1},
		{"lockBudgetsSQL", lockBudgetsSQL, 3},
		{"addReservedSQL", addReservedSQL, 3 + nAmounts},
		{"selectReservationSQL", selectReservationSQL, 2},
		{"closedAmountsSQL", closedAmountsSQL, 2},
		{"insertSettlementSQL", insertSettlementSQL, 3 + nAmounts + 1},
		{"settleBudgetsSQL", settleBudgetsSQL, 3 + 2*nAmounts},
		{"releaseBudgetsSQL", releaseBudgetsSQL, 3 + nAmounts},
		{"usageSQL", usageSQL, 3},
		{"settledSQL", settledSQL, 3},
	} {
		seen := map[int]bool{}
		for _, m := range regexp.MustCompile(`\$(\d+)`).FindAllStringSubmatch(c.sql, -1) {
			n, _ := strconv.Atoi(m[1])
			seen[n] = true
		}
		for n := 1; n <= c.want; n++ {
			if !seen[n] {
				t.Errorf("%s does not use $%d", c.name, n)
			}
		}
		if len(seen) != c.want {
			t.Errorf("%s uses %d placeholders, want $1..$%d", c.name, len(seen), c.want)
		}
	}
}

// TestLimitsCount: every integer dimension reads back its limit as set,
// values below Unlimited included, so a caller can name the one that is
// wrong; money and unknown dimensions are not counts.
func TestLimitsCount(t *testing.T) {
	l := NoLimits()
	l.ReadCalls = -2
	l.Candidates = 40
	tests := []struct {
		d      Dimension
		want   int64
		wantOK bool
	}{
		{ModelCalls, Unlimited, true},
		{ReadCalls, -2, true},
		{Candidates, 40, true},
		{SpendUSD, 0, false},
		{"wall_clock_ms", 0, false},
	}
	for _, tt := range tests {
		if n, ok := l.Count(tt.d); n != tt.want || ok != tt.wantOK {
			t.Errorf("Count(%s) = %d, %v; want %d, %v", tt.d, n, ok, tt.want, tt.wantOK)
		}
	}
	for _, d := range Dimensions() {
		if _, ok := l.Count(d); ok == (d == SpendUSD) {
			t.Errorf("Count(%s) ok = %v", d, ok)
		}
	}
}
