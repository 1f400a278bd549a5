package budget_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ledgerline/research/budget"
)

func TestToolReservation(t *testing.T) {
	tests := []struct {
		kind budget.ToolKind
		dim  budget.Dimension
	}{
		{budget.ToolSearch, budget.SearchCalls},
		{budget.ToolRead, budget.ReadCalls},
		{budget.ToolFact, budget.FactCalls},
		{budget.ToolCalculate, budget.CalculateCalls},
	}
	for _, tt := range tests {
		a, err := budget.ToolReservation(tt.kind, 50)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Get(tt.dim).Equal(usd("1")) || a.Candidates != 50 || a.ModelCalls != 0 {
			t.Errorf("ToolReservation(%s) = %v", tt.kind, a)
		}
	}
	if _, err := budget.ToolReservation("shell", 0); err == nil || !strings.Contains(err.Error(), `"shell"`) {
		t.Errorf("unknown tool kind: %v", err)
	}
	var neg *budget.NegativeAmountError
	if _, err := budget.ToolReservation(budget.ToolSearch, -1); !errors.As(err, &neg) || neg.Dimension != budget.Candidates {
		t.Errorf("negative candidates: %v", err)
	}
}

func TestAmountsString(t *testing.T) {
	a := budget.Amounts{ModelCalls: 1, OutputTokens: 20, SpendUSD: usd("0.010")}
	if got := a.String(); got != "model_calls=1 output_tokens=20 spend_usd=0.01" {
		t.Errorf("String = %q", got)
	}
	if got := (budget.Amounts{}).String(); got != "nothing" {
		t.Errorf("zero String = %q", got)
	}
	if !a.Sub(a).IsZero() || !a.Add(a).Sub(a).Equal(a) {
		t.Error("Add and Sub disagree")
	}
}

func TestLimits(t *testing.T) {
	l := budget.NoLimits()
	for _, d := range budget.Dimensions() {
		if l.Limited(d) {
			t.Errorf("NoLimits limits %s", d)
		}
	}
	var zero budget.Limits
	for _, d := range budget.Dimensions() {
		if v, ok := zero.Get(d); !ok || !v.IsZero() {
			t.Errorf("zero Limits: %s = %s, %v; want a limit of 0", d, v, ok)
		}
	}
}
