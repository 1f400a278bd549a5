package contract

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestCalculationClone(t *testing.T) {
	tests := []struct {
		name string
		c    Calculation
	}{
		{"maps held", Calculation{Expression: "a / b", Inputs: map[string]string{"a": "F1", "b": "F2"},
			Values: map[string]string{"a": "1", "b": "4"}, Result: decimal.RequireFromString("0.25")}},
		{"nil maps", Calculation{Expression: "a", Result: decimal.NewFromInt(1)}},
	}
	for _, tt := range tests {
		got := tt.c.Clone()
		if got.Expression != tt.c.Expression || !got.Result.Equal(tt.c.Result) || len(got.Inputs) != len(tt.c.Inputs) || len(got.Values) != len(tt.c.Values) {
			t.Fatalf("%s: Clone = %+v, want a copy of %+v", tt.name, got, tt.c)
		}
		if got.Inputs == nil || got.Values == nil {
			t.Fatalf("%s: Clone left a nil map: %+v", tt.name, got)
		}
		for k, v := range tt.c.Inputs {
			if got.Inputs[k] != v || got.Values[k] != tt.c.Values[k] {
				t.Errorf("%s: Clone lost %s", tt.name, k)
			}
		}
		got.Inputs["a"], got.Values["a"] = "changed", "changed"
		if tt.c.Inputs != nil && (tt.c.Inputs["a"] == "changed" || tt.c.Values["a"] == "changed") {
			t.Errorf("%s: changing the clone changed the original", tt.name)
		}
	}
}
