package budget_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/internal/pgtest"
)

// dayAccountant is an accountant of tenant "acme" whose days are created
// on first use with limits.
type dayAccountant interface {
	budget.Accountant
	SetLimits(ctx context.Context, scope budget.Scope, limits budget.Limits) error
	Usage(ctx context.Context, scope budget.Scope) (budget.Usage, error)
}

// TestDayCreatedOnFirstUse: a reservation naming a tenant's day that has
// no budget yet creates it with Config.DayLimits, once however many
// accountants (processes) reserve at the same moment, and the day's cap
// holds across all of them. Without DayLimits the day is still refused.
func TestDayCreatedOnFirstUse(t *testing.T) {
	t.Parallel()
	cap := decimal.RequireFromString("0.05")
	limits := budget.NoLimits()
	limits.SpendUSD = cap
	impls := []struct {
		name string
		new  func(t *testing.T, n int, dayLimits func(context.Context, string) (budget.Limits, error)) []dayAccountant
	}{
		{"memory", func(t *testing.T, n int, dl func(context.Context, string) (budget.Limits, error)) []dayAccountant {
			m, err := budget.NewMemory(&budget.Config{Tenant: "acme", DayLimits: dl})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]dayAccountant, n)
			for i := range out {
				out[i] = m
			}
			return out
		}},
		{"postgres", func(t *testing.T, n int, dl func(context.Context, string) (budget.Limits, error)) []dayAccountant {
			pool := pgtest.Pool(t)
			out := make([]dayAccountant, n)
			for i := range out {
				p, err := budget.NewPostgres(pool, &budget.Config{Tenant: "acme", DayLimits: dl})
				if err != nil {
					t.Fatal(err)
				}
				out[i] = p
			}
			return out
		}},
		{"leased", func(t *testing.T, n int, dl func(context.Context, string) (budget.Limits, error)) []dayAccountant {
			pool := pgtest.Pool(t)
			out := make([]dayAccountant, n)
			for i := range out {
				p, err := budget.NewPostgres(pool, &budget.Config{Tenant: "acme", DayLimits: dl})
				if err != nil {
					t.Fatal(err)
				}
				l, err := budget.NewLeased(p, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = l.Close(context.Background()) })
				out[i] = l
			}
			return out
		}},
	}
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var asked atomic.Int32
			dl := func(_ context.Context, tenant string) (budget.Limits, error) {
				asked.Add(1)
				if tenant != "acme" {
					return budget.Limits{}, fmt.Errorf("limits asked for tenant %q", tenant)
				}
				return limits, nil
			}
			const n = 8
			accts := impl.new(t, n, dl)
			day := budget.DayScope(time.Now())
			one := budget.Amounts{SpendUSD: decimal.RequireFromString("0.01")}
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i, a := range accts {
				run := budget.RunScope(fmt.Sprintf("r%d", i))
				if err := a.SetLimits(ctx, run, budget.NoLimits()); err != nil {
					t.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					key := fmt.Sprintf("k%d", i)
					if _, err := a.Reserve(ctx, key, []budget.Scope{run, day}, one, nil); err != nil {
						errs[i] = err
						return
					}
					_, errs[i] = a.Settle(ctx, key, one)
				}()
			}
			wg.Wait()
			for _, a := range accts {
				// Leases write their calls and return what they hold.
				if r, isLeased := a.(interface {
					Return(context.Context, budget.Scope) (int, error)
				}); isLeased {
					if _, err := r.Return(ctx, day); err != nil {
						t.Fatal(err)
					}
				}
			}
			ok := 0
			for _, err := range errs {
				switch {
				case err == nil:
					ok++
				case !errors.Is(err, budget.ErrExhausted):
					t.Errorf("reserve against a new day: %v", err)
				}
			}
			if ok != 5 {
				t.Errorf("%d reservations of 0.01 held against a day capped at %s, want 5", ok, cap)
			}
			if asked.Load() == 0 {
				t.Error("the day's limits were never asked for")
			}
			u, err := accts[0].Usage(ctx, day)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := u.Limits.Get(budget.SpendUSD); !got.Equal(cap) {
				t.Errorf("day's spend limit %s, want %s", got, cap)
			}
			if !u.Settled.SpendUSD.Equal(cap) {
				t.Errorf("day's settled spend %s, want %s", u.Settled.SpendUSD, cap)
			}

			// Limits set before first use are kept.
			other := budget.DayScope(time.Now().AddDate(0, 0, 1))
			tight := budget.NoLimits()
			tight.SpendUSD = decimal.Zero
			if err := accts[0].SetLimits(ctx, other, tight); err != nil {
				t.Fatal(err)
			}
			run := budget.RunScope("late")
			if err := accts[0].SetLimits(ctx, run, budget.NoLimits()); err != nil {
				t.Fatal(err)
			}
			if _, err := accts[1].Reserve(ctx, "late", []budget.Scope{run, other}, one, nil); !errors.Is(err, budget.ErrExhausted) {
				t.Errorf("reserve against a day set to 0 beforehand: %v, want exhausted", err)
			}
		})
	}

	t.Run("without DayLimits", func(t *testing.T) {
		t.Parallel()
		m, err := budget.NewMemory(&budget.Config{Tenant: "acme"})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		run := budget.RunScope("r")
		if err := m.SetLimits(ctx, run, budget.NoLimits()); err != nil {
			t.Fatal(err)
		}
		_, err = m.Reserve(ctx, "k", []budget.Scope{run, budget.DayScope(time.Now())}, budget.Amounts{ModelCalls: 1}, nil)
		if !errors.Is(err, budget.ErrNoBudget) {
			t.Errorf("reserve against a day without a budget: %v, want ErrNoBudget", err)
		}
	})
}
