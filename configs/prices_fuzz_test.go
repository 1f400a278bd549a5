package configs_test

import (
	"bytes"
	"testing"

	"github.com/ledgerline/research/configs"
)

// FuzzLoadPrices: any input either fails with an error or gives a table
// whose every price is a non-negative decimal.
func FuzzLoadPrices(f *testing.F) {
	f.Add([]byte(`{"currency": "USD", "models": {"m": {"input": "0.15", "output": "0.60"}}}`))
	f.Add([]byte(`{"models": {"m": {"input": "1e-3", "output": "0"}, "n": {"input": "2", "output": "3"}}}`))
	f.Add([]byte(`{"models": {"m": {"input": "-1", "output": "x"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		table, err := configs.LoadPrices(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, m := range table.Models() {
			p, err := table.Price(m)
			if err != nil {
				t.Fatalf("listed model %q has no price: %v", m, err)
			}
			if p.InputPerMillion.IsNegative() || p.OutputPerMillion.IsNegative() || p.Cost(1000, 1000).IsNegative() {
				t.Fatalf("model %q has a negative price: %+v", m, p)
			}
		}
	})
}
