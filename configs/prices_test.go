package configs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/configs"
)

func TestEmbeddedPrices(t *testing.T) {
	p := configs.Prices()
	for _, m := range []string{"gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "text-embedding-3-small", "local"} {
		if _, err := p.Price(m); err != nil {
			t.Errorf("Price(%q): %v", m, err)
		}
	}
	e, err := p.Price("gpt-4o-mini")
	if err != nil {
		t.Fatal(err)
	}
	// 1,000 prompt tokens at $0.15/M and 500 completion tokens at $0.60/M.
	if got, want := e.Cost(1000, 500), decimal.RequireFromString("0.00045"); !got.Equal(want) {
		t.Fatalf("Cost = %s, want %s", got, want)
	}
	local, _ := p.Price("local")
	if !local.Cost(1e9, 1e9).IsZero() {
		t.Fatal("the local model is not free")
	}
}

func TestUnknownModel(t *testing.T) {
	_, err := configs.Prices().Price("gpt-99")
	var unknown *configs.UnknownModelError
	if !errors.As(err, &unknown) || unknown.Model != "gpt-99" || !errors.Is(err, configs.ErrUnknownModel) {
		t.Fatalf("Price(gpt-99) error = %v, want an *UnknownModelError naming it", err)
	}
	var nilTable *configs.PriceTable
	if _, err := nilTable.Price("gpt-4o"); !errors.Is(err, configs.ErrUnknownModel) {
		t.Fatalf("nil table: %v", err)
	}
}

func TestLoadPricesErrors(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"not json", `{`, "price table"},
		{"no models", `{"models": {}}`, "models: none"},
		{"missing output", `{"models": {"m": {"input": "1"}}}`, "models.m.output: missing"},
		{"not decimal", `{"models": {"m": {"input": "1", "output": "cheap"}}}`, "models.m.output: \"cheap\" is not a decimal"},
		{"negative", `{"models": {"m": {"input": "-1", "output": "1"}}}`, "models.m.input: -1 is negative"},
		{"float typo", `{"models": {"m": {"input": 0.1, "output": "1"}}}`, "price table"},
		{"unknown field", `{"models": {"m": {"input": "1", "output": "1", "cached": "0.5"}}}`, "unknown field"},
		{"currency", `{"currency": "EUR", "models": {"m": {"input": "1", "output": "1"}}}`, "want USD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := configs.LoadPrices(strings.NewReader(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadPrices error = %v, want one saying %q", err, tt.want)
			}
		})
	}
}
