package budget_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/configs"
)

// A run's model calls reserve their maximum in the run and in the tenant's
// day, settle what they used, and stop when a budget is spent.
func Example() {
	ctx := context.Background()
	acct, _ := budget.NewMemory(nil)
	run, day := budget.RunScope("r1"), budget.DayScope(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	runLimits := budget.NoLimits()
	runLimits.SpendUSD = decimal.RequireFromString("0.01")
	_ = acct.SetLimits(ctx, run, runLimits)
	_ = acct.SetLimits(ctx, day, budget.NoLimits())

	prices := configs.Prices()
	if err := budget.CheckModels(runLimits, prices, "gpt-4o-mini"); err != nil {
		fmt.Println(err)
		return
	}
	for i := 1; ; i++ {
		key := fmt.Sprintf("r1/plan/%d", i)
		hold, _ := budget.ModelReservation(prices, "gpt-4o-mini", 8_000, 4_000)
		_, err := acct.Reserve(ctx, key, []budget.Scope{run, day}, hold, nil)
		var ex *budget.ExhaustedError
		if errors.As(err, &ex) {
			fmt.Printf("call %d refused: %s of %s\n", i, ex.Dimension, ex.Scope)
			break
		}
		// The provider reports 7,412 prompt and 1,051 completion tokens.
		used, _ := budget.ModelUsage(prices, "gpt-4o-mini", 7_412, 1_051)
		res, _ := acct.Settle(ctx, key, used)
		fmt.Printf("call %d: reserved %s, settled %s\n", i, hold.SpendUSD, res.Amounts.SpendUSD)
	}
	u, _ := acct.Usage(ctx, run)
	rem, _ := u.Remaining(budget.SpendUSD)
	fmt.Println("spent", u.Settled.SpendUSD, "remaining", rem)
	// Output:
	// call 1: reserved 0.0036, settled 0.0017424
	// call 2: reserved 0.0036, settled 0.0017424
	// call 3: reserved 0.0036, settled 0.0017424
	// call 4: reserved 0.0036, settled 0.0017424
	// call 5 refused: spend_usd of run r1
	// spent 0.0069696 remaining 0.0030304
}

// WithDeadline bounds a run's wall-clock time through its context.
func ExampleWithDeadline() {
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	ctx, cancel := budget.WithDeadline(context.Background(), start, budget.Limits{WallClock: 2 * time.Minute})
	defer cancel()
	deadline, _ := ctx.Deadline()
	fmt.Println(deadline.Format(time.TimeOnly))
	// Output: 09:02:00
}
