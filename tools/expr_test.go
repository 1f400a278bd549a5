package tools

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestEvaluate(t *testing.T) {
	vars := map[string]decimal.Decimal{
		"gross_profit": dec("180683000000"),
		"revenue":      dec("391035000000"),
		"prior":        dec("383285000000"),
		"x1":           dec("2"),
		"neg":          dec("-5"),
		"zero":         dec("0"),
	}
	tests := []struct {
		expr string
		want string
	}{
		{"1 + 2 * 3", "7"},
		{"(1 + 2) * 3", "9"},
		{"10 - 4 - 3", "3"},    // left to right
		{"8 / 4 / 2", "1"},     // left to right
		{"2 * 3 - 4 / 2", "4"}, // * and / before + and -
		{"-2 + 5", "3"},
		{"--2", "2"},
		{"-(2 - 5)", "3"},
		{"2 * -3", "-6"},
		{"-x1 * -x1", "4"},
		{"0.1 + 0.2", "0.3"}, // exact decimals
		{"1 / 3", "0.3333333333"},
		{"2 / 3", "0.6666666667"}, // rounded half away from zero
		{"neg / 3", "-1.6666666667"},
		{"gross_profit / revenue", "0.4620634982"},
		{"(revenue - prior) / prior", "0.0202199408"},
		{"revenue-prior", "7750000000"},
		{"  ( ( x1 ) )\t*\n100 ", "200"},
		{"1000000000000000000000 * 1000000000000000000000", "1000000000000000000000000000000000000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := Evaluate(tt.expr, vars)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if !got.Equal(dec(tt.want)) {
				t.Fatalf("= %s, want %s", got, tt.want)
			}
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	vars := map[string]decimal.Decimal{"a": dec("1"), "zero": dec("0")}
	tests := []struct {
		expr string
		want string // part of the message
		div  bool   // a division by zero
	}{
		{"1 / 0", "division by zero", true},
		{"a / (zero - zero)", "division by zero", true},
		{"a / 0.000", "division by zero", true},
		{"", "empty", false},
		{"   ", "empty", false},
		{"1 +", "end of expression", false},
		{"(1 + 2", `want ")"`, false},
		{"1 + 2)", `")" at 5`, false},
		{"1 2", "want an operator", false},
		{"+1", `"+" at 0`, false},
		{"1 + * 2", `"*" at 4`, false},
		{"()", `")" at 1`, false},
		{"b + 1", `"b" has no value`, false},
		{"A + 1", "lower-case", false},
		{"1.", "digits after the point", false},
		{"1..2", "digits after the point", false},
		{".5", `'.'`, false},
		{"2 ^ 3", `'^'`, false},
		{"a % 2", `'%'`, false},
		{"é", `'é'`, false},
		{strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), "nested more than", false},
		{strings.Repeat("-", 100) + "1", "nested more than", false},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, err := Evaluate(tt.expr, vars)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if errors.Is(err, ErrDivisionByZero) != tt.div {
				t.Errorf("errors.Is(ErrDivisionByZero) = %v, want %v", !tt.div, tt.div)
			}
		})
	}
}

func TestSubstitute(t *testing.T) {
	vars := map[string]decimal.Decimal{"gross_profit": dec("180683000000"), "revenue": dec("391035000000"), "loss": dec("-12")}
	tests := []struct{ expr, want string }{
		{"gross_profit / revenue", "180683000000 / 391035000000"},
		{"(revenue-gross_profit)/revenue", "(391035000000-180683000000)/391035000000"},
		{"loss * 2", "(-12) * 2"},
	}
	for _, tt := range tests {
		if got := substitute(tt.expr, vars); got != tt.want {
			t.Errorf("substitute(%q) = %q, want %q", tt.expr, got, tt.want)
		}
	}
}

func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{
		"gross_profit / revenue", "(a - b) / b", "-(-a)", "1 + 2 * 3", "((1))", "1 / 0",
		"a_1 * 0.5 - 3", "", "(", ")", "1..2", "--", "a b", "9999999999999999999999 * 99999999999999",
	} {
		f.Add(s)
	}
	vars := map[string]decimal.Decimal{"a": dec("3"), "b": dec("-7.25"), "a_1": dec("0"), "gross_profit": dec("1"), "revenue": dec("2")}
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := Evaluate(expr, vars)
		if err != nil {
			return
		}
		// A valid expression is deterministic and parses to the same names.
		again, err := Evaluate(expr, vars)
		if err != nil || !again.Equal(v) {
			t.Fatalf("Evaluate(%q) = %v then %v, %v", expr, v, again, err)
		}
		tree, err := parseExpr(expr)
		if err != nil {
			t.Fatalf("parseExpr(%q) failed after Evaluate succeeded: %v", expr, err)
		}
		for _, n := range tree.names() {
			if _, ok := vars[n]; !ok {
				t.Fatalf("Evaluate(%q) succeeded with unbound name %q", expr, n)
			}
		}
		// Substituting the values gives an expression of the same value.
		sub := substitute(expr, vars)
		w, err := Evaluate(sub, nil)
		if err != nil || !w.Equal(v) {
			t.Fatalf("substitute(%q) = %q = %v, %v; want %v", expr, sub, w, err, v)
		}
	})
}
