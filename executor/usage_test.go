package executor

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/ledger"
)

// countingBudget counts the audits a run reads of its budget.
type countingBudget struct {
	Accountant
	usage atomic.Int64
}

func (c *countingBudget) Usage(ctx context.Context, s budget.Scope) (budget.Usage, error) {
	c.usage.Add(1)
	return c.Accountant.Usage(ctx, s)
}

// A run reads its budget's audit once for its progress steps and once for
// its result, not at every step: a shared budget's audit writes the run's
// settled calls first, which a worker's run should not pay at every step.
// The usage its steps show is tallied as its calls settle, and its last
// step shows what the result reports.
func TestProgressUsageTallied(t *testing.T) {
	for _, withCallback := range []bool{false, true} {
		mem, err := budget.NewMemory(&budget.Config{Tenant: "acme"})
		if err != nil {
			t.Fatal(err)
		}
		cb := &countingBudget{Accountant: mem}
		var mu sync.Mutex
		var last budget.Amounts
		steps := 0
		eng, _ := newEngine(t, func(c *Config) {
			c.Budget = cb
			if withCallback {
				c.Progress = func(p Progress) {
					mu.Lock()
					defer mu.Unlock()
					steps++
					last = p.Used
				}
			}
		})
		res, err := eng.Run(context.Background(), Request{Question: "What was Apple's revenue in fiscal 2024?", Mode: ledger.ModeRules})
		if err != nil {
			t.Fatal(err)
		}
		if n := cb.usage.Load(); n > 2 {
			t.Errorf("callback %v: the run read its usage %d times, want at most 2", withCallback, n)
		}
		if !withCallback {
			continue
		}
		want := res.Budget.Used["fact_calls"]
		if steps < 3 || want == "" || want == "0" || strconv.FormatInt(last.FactCalls, 10) != string(want) {
			t.Errorf("%d steps, the last showing %d fact calls; the result reports %s", steps, last.FactCalls, want)
		}
	}
}
