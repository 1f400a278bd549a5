package budget_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/internal/pgtest"
)

// BenchmarkReserveSettle measures reserve+settle pairs per second at 1, 8
// and 64 concurrent callers. With budgets=shared every caller reserves in
// one run nested in one tenant day, the worst case for contention (every
// pair locks the same two budgets); with budgets=own each caller has its
// own run and day, so only capacity limits it. The Postgres pool has 16
// connections. impl=leased is a Leased accountant over Postgres: its time
// includes Close, which writes every call and returns the leases, so a
// figure counts only pairs recorded in the database.
//
//	DATABASE_URL=... go test -run '^$' -bench ReserveSettle -benchtime 2s ./budget/
func BenchmarkReserveSettle(b *testing.B) {
	for _, impl := range []string{"memory", "postgres", "leased"} {
		for _, budgets := range []string{"shared", "own"} {
			for _, callers := range []int{1, 8, 64} {
				b.Run(fmt.Sprintf("impl=%s/budgets=%s/callers=%d", impl, budgets, callers), func(b *testing.B) {
					scopes := make([][]budget.Scope, callers)
					for c := range callers {
						scopes[c] = []budget.Scope{budget.RunScope("bench"), helperDay}
						if budgets == "own" {
							scopes[c] = []budget.Scope{budget.RunScope(fmt.Sprint("bench", c)), budget.DayScope(helperDay0.AddDate(0, 0, c))}
						}
					}
					benchReserveSettle(b, openBench(b, impl), scopes, nil, "pairs/s")
				})
			}
		}
	}
}

type benchAccountant interface {
	budget.Accountant
	SetLimits(ctx context.Context, scope budget.Scope, limits budget.Limits) error
}

func openBench(b *testing.B, impl string) benchAccountant {
	if impl == "memory" {
		m, err := budget.NewMemory(nil)
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	pool := pgtest.Pool(b)
	var schema string
	if err := pool.QueryRow(context.Background(), `SELECT current_schema()`).Scan(&schema); err != nil {
		b.Fatal(err)
	}
	u, err := url.Parse(pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	q.Set("pool_max_conns", "16")
	u.RawQuery = q.Encode()
	big, err := pgxpool.New(context.Background(), u.String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(big.Close)
	p, err := budget.NewPostgres(big, nil)
	if err != nil {
		b.Fatal(err)
	}
	if impl == "postgres" {
		return p
	}
	l, err := budget.NewLeased(p, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// benchReserveSettle runs b.N reservations, each settled, spread over one
// caller per entry of scopes (the scopes that caller's calls name); after,
// when set, runs after each of a caller's calls. Its time includes Close,
// for an accountant that has one, and it reports ops a second as unit.
func benchReserveSettle(b *testing.B, acct benchAccountant, scopes [][]budget.Scope, after func(ctx context.Context, caller int) error, unit string) {
	ctx := context.Background()
	lim := budget.NoLimits()
	lim.SpendUSD = usd("1e9")
	lim.ModelCalls = 1 << 40
	set := map[budget.Scope]bool{}
	for _, ss := range scopes {
		for _, s := range ss {
			if set[s] {
				continue
			}
			set[s] = true
			if err := acct.SetLimits(ctx, s, lim); err != nil {
				b.Fatal(err)
			}
		}
	}
	hold := budget.Amounts{ModelCalls: 1, InputTokens: 2000, OutputTokens: 1000, SpendUSD: usd("0.0027")}
	used := budget.Amounts{ModelCalls: 1, InputTokens: 1800, OutputTokens: 400, SpendUSD: usd("0.00051")}
	var next atomic.Int64
	var failed atomic.Pointer[error]
	b.ResetTimer()
	var wg sync.WaitGroup
	for c := range scopes {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				key := fmt.Sprint("k", i)
				_, err := acct.Reserve(ctx, key, scopes[c], hold, nil)
				if err == nil {
					_, err = acct.Settle(ctx, key, used)
				}
				if err == nil && after != nil {
					err = after(ctx, c)
				}
				if err != nil {
					failed.Store(&err)
					return
				}
			}
		})
	}
	wg.Wait()
	if c, ok := acct.(interface{ Close(context.Context) error }); ok {
		if err := c.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
}

// BenchmarkLeaseFlushSharedDay measures what a tenant's day row costs the
// runs that share it: each caller is a run of its own in one day, and
// writes every call it settles before the next (Usage writes the run's
// calls first), as a run's flushes do under load. One op is one call
// reserved, settled and written.
//
//	DATABASE_URL=... go test -run '^$' -bench LeaseFlushSharedDay -benchtime 2s ./budget/
func BenchmarkLeaseFlushSharedDay(b *testing.B) {
	for _, callers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			acct := openBench(b, "leased").(*budget.Leased)
			scopes := make([][]budget.Scope, callers)
			for c := range callers {
				scopes[c] = []budget.Scope{budget.RunScope(fmt.Sprint("flush", c)), helperDay}
			}
			benchReserveSettle(b, acct, scopes, func(ctx context.Context, c int) error {
				_, err := acct.Usage(ctx, scopes[c][0])
				return err
			}, "writes/s")
		})
	}
}
