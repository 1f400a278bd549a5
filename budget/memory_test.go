package budget_test

import (
	"testing"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/budget/budgettest"
)

func TestMemoryContract(t *testing.T) {
	t.Parallel()
	budgettest.Run(t, func(t *testing.T) budgettest.Accountant {
		m, err := budget.NewMemory(nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}
