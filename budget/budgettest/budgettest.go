// Package budgettest is the contract every budget accountant passes: the
// in-process and the Postgres accountants run the same suite, so a
// reservation, a replay or an exhausted budget means the same thing
// whichever answers.
package budgettest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/configs"
)

// Accountant is the surface the suite exercises: the executor's
// budget.Accountant plus limits, sweeping and audit.
type Accountant interface {
	budget.Accountant
	SetLimits(ctx context.Context, scope budget.Scope, limits budget.Limits) error
	Sweep(ctx context.Context, now time.Time) (int, error)
	Usage(ctx context.Context, scope budget.Scope) (budget.Usage, error)
}

// Run runs the contract suite. open returns a new accountant with no
// budgets, for one subtest.
func Run(t *testing.T, open func(t *testing.T) Accountant) {
	tests := []struct {
		name string
		fn   func(t *testing.T, a Accountant)
	}{
		{"ReserveSettle", testReserveSettle},
		{"ReserveRelease", testReserveRelease},
		{"ReplayedSettle", testReplayedSettle},
		{"ReplayedRelease", testReplayedRelease},
		{"ReplayedReserve", testReplayedReserve},
		{"ExhaustedNamesScopeAndDimension", testExhausted},
		{"ExhaustedSpend", testExhaustedSpend},
		{"UnlimitedAndZeroLimits", testUnlimitedAndZero},
		{"LoweredLimits", testLoweredLimits},
		{"NegativeAmounts", testNegativeAmounts},
		{"SettleAboveReservation", testSettleAbove},
		{"UnknownKey", testUnknownKey},
		{"NoBudget", testNoBudget},
		{"InvalidInput", testInvalidInput},
		{"SweepOnce", testSweepOnce},
		{"ConcurrentSweeps", testConcurrentSweeps},
		{"SettleAfterSweep", testSettleAfterSweep},
		{"ModelCall", testModelCall},
		{"ConcurrentUntilExhausted", testConcurrentUntilExhausted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

var (
	run = budget.RunScope("r1")
	day = budget.DayScope(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
)

func usd(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// setup gives run and day their limits: the run nested in the day.
func setup(t *testing.T, a Accountant, runLimits, dayLimits budget.Limits) {
	t.Helper()
	ctx := context.Background()
	if err := a.SetLimits(ctx, run, runLimits); err != nil {
		t.Fatal(err)
	}
	if err := a.SetLimits(ctx, day, dayLimits); err != nil {
		t.Fatal(err)
	}
}

func limits(modelCalls int64, spend string) budget.Limits {
	l := budget.NoLimits()
	l.ModelCalls = modelCalls
	l.SpendUSD = usd(spend)
	return l
}

func mustUsage(t *testing.T, a Accountant, s budget.Scope) budget.Usage {
	t.Helper()
	u, err := a.Usage(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// wantUsage checks a scope's reserved, settled and released amounts.
func wantUsage(t *testing.T, a Accountant, s budget.Scope, reserved, settled, released budget.Amounts) {
	t.Helper()
	u := mustUsage(t, a, s)
	if !u.Reserved.Equal(reserved) || !u.Settled.Equal(settled) || !u.Released.Equal(released) {
		t.Fatalf("%s: reserved %v, settled %v, released %v; want %v, %v, %v", s, u.Reserved, u.Settled, u.Released, reserved, settled, released)
	}
}

var both = []budget.Scope{day, run}

func call(spend string) budget.Amounts {
	return budget.Amounts{ModelCalls: 1, InputTokens: 1000, OutputTokens: 500, SpendUSD: usd(spend)}
}

func mustReserve(t *testing.T, a Accountant, key string, amounts budget.Amounts, opts *budget.ReserveOpts) {
	t.Helper()
	res, err := a.Reserve(context.Background(), key, both, amounts, opts)
	if err != nil {
		t.Fatalf("Reserve %s: %v", key, err)
	}
	if res.Replayed || res.State != budget.StateReserved || !res.Amounts.Equal(amounts) {
		t.Fatalf("Reserve %s = %+v", key, res)
	}
}

func testReserveSettle(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	held := call("0.05")
	mustReserve(t, a, "k1", held, nil)
	wantUsage(t, a, run, held, budget.Amounts{}, budget.Amounts{})
	wantUsage(t, a, day, held, budget.Amounts{}, budget.Amounts{})

	used := budget.Amounts{ModelCalls: 1, InputTokens: 900, OutputTokens: 120, SpendUSD: usd("0.0123")}
	res, err := a.Settle(ctx, "k1", used)
	if err != nil {
		t.Fatal(err)
	}
	if res.Replayed || res.State != budget.StateSettled || !res.Amounts.Equal(used) {
		t.Fatalf("Settle = %+v", res)
	}
	for _, s := range both {
		wantUsage(t, a, s, budget.Amounts{}, used, budget.Amounts{})
	}
	u := mustUsage(t, a, run)
	if u.Reservations[budget.StateSettled] != 1 || u.Reservations[budget.StateReserved] != 0 {
		t.Fatalf("reservation counts %v, want one settled", u.Reservations)
	}
	rem, ok := u.Remaining(budget.SpendUSD)
	if !ok || !rem.Equal(usd("0.9877")) {
		t.Fatalf("remaining spend %s, %v; want 0.9877", rem, ok)
	}
	if _, ok := u.Remaining(budget.InputTokens); ok {
		t.Fatal("unlimited input tokens report a remainder")
	}
}

func testReserveRelease(t *testing.T, a Accountant) {
	setup(t, a, limits(10, "1"), limits(100, "10"))
	held := call("0.05")
	mustReserve(t, a, "k1", held, nil)
	res, err := a.Release(context.Background(), "k1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Replayed || res.State != budget.StateReleased || !res.Amounts.Equal(held) {
		t.Fatalf("Release = %+v", res)
	}
	for _, s := range both {
		wantUsage(t, a, s, budget.Amounts{}, budget.Amounts{}, held)
	}
}

func testReplayedSettle(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	mustReserve(t, a, "k1", call("0.05"), nil)
	used := call("0.04")
	if _, err := a.Settle(ctx, "k1", used); err != nil {
		t.Fatal(err)
	}
	// A replay with the same or other amounts changes nothing and says so.
	for _, again := range []budget.Amounts{used, call("0.01")} {
		res, err := a.Settle(ctx, "k1", again)
		if err != nil {
			t.Fatalf("replayed Settle: %v", err)
		}
		if !res.Replayed || res.State != budget.StateSettled || !res.Amounts.Equal(used) {
			t.Fatalf("replayed Settle = %+v, want a replay reporting the first settlement", res)
		}
	}
	res, err := a.Release(ctx, "k1")
	if err != nil || !res.Replayed || res.State != budget.StateSettled {
		t.Fatalf("Release after Settle = %+v, %v; want a replay in state settled", res, err)
	}
	for _, s := range both {
		wantUsage(t, a, s, budget.Amounts{}, used, budget.Amounts{})
	}
}

func testReplayedRelease(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	held := call("0.05")
	mustReserve(t, a, "k1", held, nil)
	if _, err := a.Release(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	res, err := a.Release(ctx, "k1")
	if err != nil || !res.Replayed || res.State != budget.StateReleased || !res.Amounts.Equal(held) {
		t.Fatalf("replayed Release = %+v, %v", res, err)
	}
	// Settling what was released would charge a hold that is gone.
	if _, err := a.Settle(ctx, "k1", call("0.01")); !errors.Is(err, budget.ErrReleased) {
		t.Fatalf("Settle after Release: %v, want ErrReleased", err)
	}
	for _, s := range both {
		wantUsage(t, a, s, budget.Amounts{}, budget.Amounts{}, held)
		if u := mustUsage(t, a, s); u.Rejected != 1 {
			t.Fatalf("%s: %d rejected settlements recorded, want 1", s, u.Rejected)
		}
	}
}

func testReplayedReserve(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	held := call("0.05")
	mustReserve(t, a, "k1", held, nil)
	// Same scopes in another order, same amounts: a replay.
	res, err := a.Reserve(ctx, "k1", []budget.Scope{run, day}, call("0.050"), nil)
	if err != nil || !res.Replayed || res.State != budget.StateReserved {
		t.Fatalf("replayed Reserve = %+v, %v", res, err)
	}
	if _, err := a.Reserve(ctx, "k1", both, call("0.06"), nil); !errors.Is(err, budget.ErrKeyReused) {
		t.Fatalf("Reserve reusing a key for other amounts: %v, want ErrKeyReused", err)
	}
	if _, err := a.Reserve(ctx, "k1", []budget.Scope{run}, held, nil); !errors.Is(err, budget.ErrKeyReused) {
		t.Fatalf("Reserve reusing a key for other scopes: %v, want ErrKeyReused", err)
	}
	wantUsage(t, a, run, held, budget.Amounts{}, budget.Amounts{})
}

func testExhausted(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(3, "10"), limits(2, "10")) // the day is tighter than the run
	for i := range 2 {
		mustReserve(t, a, fmt.Sprint("k", i), call("0.01"), nil)
	}
	_, err := a.Reserve(ctx, "k2", both, call("0.01"), nil)
	var ex *budget.ExhaustedError
	if !errors.As(err, &ex) || !errors.Is(err, budget.ErrExhausted) {
		t.Fatalf("third Reserve: %v, want an *ExhaustedError", err)
	}
	if ex.Scope != day || ex.Dimension != budget.ModelCalls || !ex.Limit.Equal(decimal.NewFromInt(2)) ||
		!ex.Used.Equal(decimal.NewFromInt(2)) || !ex.Asked.Equal(decimal.NewFromInt(1)) {
		t.Fatalf("ExhaustedError = %+v, want the day's model calls, limit 2, used 2, asked 1", ex)
	}
	// Atomic: the run, which had room, holds nothing of the refused call.
	wantUsage(t, a, run, call("0.02").Add(call("0")), budget.Amounts{}, budget.Amounts{})
	// Settling below the hold frees nothing in a call count: a settled call
	// is still a call.
	if _, err := a.Settle(ctx, "k0", call("0.001")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Reserve(ctx, "k2", both, call("0.01"), nil); !errors.As(err, &ex) {
		t.Fatalf("Reserve after a settle: %v, want still exhausted", err)
	}
	// Releasing does free it.
	if _, err := a.Release(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	mustReserve(t, a, "k2", call("0.01"), nil)
}

func testExhaustedSpend(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(budget.Unlimited, "0.10"), limits(budget.Unlimited, "100"))
	mustReserve(t, a, "k0", call("0.07"), nil)
	_, err := a.Reserve(ctx, "k1", both, call("0.0300000001"), nil)
	var ex *budget.ExhaustedError
	if !errors.As(err, &ex) || ex.Scope != run || ex.Dimension != budget.SpendUSD ||
		!ex.Limit.Equal(usd("0.1")) || !ex.Used.Equal(usd("0.07")) || !ex.Asked.Equal(usd("0.0300000001")) {
		t.Fatalf("Reserve over the spend limit: %v (%+v)", err, ex)
	}
	// Exactly the rest fits: decimal, not float.
	mustReserve(t, a, "k1", call("0.03"), nil)
}

func testUnlimitedAndZero(t *testing.T, a Accountant) {
	ctx := context.Background()
	zero := budget.Limits{} // allows nothing
	setup(t, a, budget.NoLimits(), zero)
	big := budget.Amounts{ModelCalls: 1 << 40, InputTokens: 1 << 50, SpendUSD: usd("1e12")}
	if _, err := a.Reserve(ctx, "k0", []budget.Scope{run}, big, nil); err != nil {
		t.Fatalf("Reserve on an unlimited budget: %v", err)
	}
	var ex *budget.ExhaustedError
	if _, err := a.Reserve(ctx, "k1", both, budget.Amounts{ReadCalls: 1}, nil); !errors.As(err, &ex) || ex.Dimension != budget.ReadCalls || ex.Scope != day {
		t.Fatalf("Reserve on a zero budget: %v, want read_calls exhausted in the day", err)
	}
	// Asking for nothing fits even a zero budget.
	if _, err := a.Reserve(ctx, "k2", both, budget.Amounts{}, nil); err != nil {
		t.Fatalf("empty Reserve on a zero budget: %v", err)
	}
	if err := a.SetLimits(ctx, run, budget.Limits{ModelCalls: -2}); err == nil {
		t.Fatal("SetLimits accepted a limit of -2")
	}
}

func testLoweredLimits(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	mustReserve(t, a, "k0", call("0.50"), nil)
	if err := a.SetLimits(ctx, run, limits(10, "0.25")); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, a, run, call("0.50"), budget.Amounts{}, budget.Amounts{})
	if _, err := a.Reserve(ctx, "k1", both, call("0.01"), nil); !errors.Is(err, budget.ErrExhausted) {
		t.Fatalf("Reserve over a lowered limit: %v", err)
	}
	u := mustUsage(t, a, run)
	if rem, _ := u.Remaining(budget.SpendUSD); !rem.IsZero() {
		t.Fatalf("remaining %s under a lowered limit, want 0", rem)
	}
	if !u.Limits.SpendUSD.Equal(usd("0.25")) {
		t.Fatalf("limits %v", u.Limits)
	}
}

func testNegativeAmounts(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	var neg *budget.NegativeAmountError
	if _, err := a.Reserve(ctx, "k0", both, budget.Amounts{OutputTokens: -1}, nil); !errors.As(err, &neg) || neg.Dimension != budget.OutputTokens {
		t.Fatalf("Reserve with negative tokens: %v", err)
	}
	if _, err := a.Reserve(ctx, "k0", both, budget.Amounts{SpendUSD: usd("-0.01")}, nil); !errors.As(err, &neg) || neg.Dimension != budget.SpendUSD {
		t.Fatalf("Reserve with negative spend: %v", err)
	}
	mustReserve(t, a, "k1", call("0.05"), nil)
	if _, err := a.Settle(ctx, "k1", budget.Amounts{ModelCalls: 1, SpendUSD: usd("-0.01")}); !errors.As(err, &neg) || neg.Dimension != budget.SpendUSD {
		t.Fatalf("Settle with negative spend: %v", err)
	}
	// Recorded, and the reservation is still open.
	if u := mustUsage(t, a, run); u.Rejected != 1 || u.Reservations[budget.StateReserved] != 1 {
		t.Fatalf("after a refused settle: rejected %d, counts %v", u.Rejected, u.Reservations)
	}
	if _, err := a.Settle(ctx, "k1", call("0.05")); err != nil {
		t.Fatal(err)
	}
}

func testSettleAbove(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	mustReserve(t, a, "k1", call("0.05"), nil)
	over := call("0.05")
	over.OutputTokens++
	_, err := a.Settle(ctx, "k1", over)
	var oe *budget.OverReservationError
	if !errors.As(err, &oe) || oe.Key != "k1" || oe.Dimension != budget.OutputTokens ||
		!oe.Reserved.Equal(decimal.NewFromInt(500)) || !oe.Actual.Equal(decimal.NewFromInt(501)) {
		t.Fatalf("Settle above the reservation: %v", err)
	}
	if _, err := a.Settle(ctx, "k1", call("0.0500001")); !errors.As(err, &oe) || oe.Dimension != budget.SpendUSD {
		t.Fatalf("Settle above the reserved spend: %v", err)
	}
	for _, s := range both {
		if u := mustUsage(t, a, s); u.Rejected != 2 || !u.Settled.IsZero() {
			t.Fatalf("%s: rejected %d, settled %v; want 2 recorded and nothing charged", s, u.Rejected, u.Settled)
		}
	}
	// Exactly the reservation is fine.
	if _, err := a.Settle(ctx, "k1", call("0.05")); err != nil {
		t.Fatal(err)
	}
}

func testUnknownKey(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	if _, err := a.Settle(ctx, "nope", call("0")); !errors.Is(err, budget.ErrUnknownReservation) {
		t.Fatalf("Settle of an unknown key: %v", err)
	}
	if _, err := a.Release(ctx, "nope"); !errors.Is(err, budget.ErrUnknownReservation) {
		t.Fatalf("Release of an unknown key: %v", err)
	}
}

func testNoBudget(t *testing.T, a Accountant) {
	ctx := context.Background()
	if err := a.SetLimits(ctx, run, budget.NoLimits()); err != nil {
		t.Fatal(err)
	}
	// The day has no budget: refused, and the run holds nothing.
	if _, err := a.Reserve(ctx, "k1", both, call("0.01"), nil); !errors.Is(err, budget.ErrNoBudget) {
		t.Fatalf("Reserve in a scope without a budget: %v", err)
	}
	wantUsage(t, a, run, budget.Amounts{}, budget.Amounts{}, budget.Amounts{})
	if _, err := a.Usage(ctx, day); !errors.Is(err, budget.ErrNoBudget) {
		t.Fatalf("Usage of a scope without a budget: %v", err)
	}
}

func testInvalidInput(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	tests := []struct {
		name   string
		key    string
		scopes []budget.Scope
	}{
		{"empty key", " ", both},
		{"no scopes", "k", nil},
		{"scope twice", "k", []budget.Scope{run, run}},
		{"bad kind", "k", []budget.Scope{{Kind: "tenant", ID: "x"}}},
		{"bad day", "k", []budget.Scope{{Kind: budget.KindTenantDay, ID: "30/11/2026"}}},
		{"empty run", "k", []budget.Scope{budget.RunScope("")}},
	}
	for _, tt := range tests {
		if _, err := a.Reserve(ctx, tt.key, tt.scopes, call("0.01"), nil); err == nil {
			t.Errorf("%s: Reserve accepted it", tt.name)
		}
	}
	wantUsage(t, a, run, budget.Amounts{}, budget.Amounts{}, budget.Amounts{})
}

func testSweepOnce(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	now := time.Now()
	soon := &budget.ReserveOpts{Expires: now.Add(time.Minute)}
	for i := range 3 {
		mustReserve(t, a, fmt.Sprint("dead", i), call("0.01"), soon)
	}
	mustReserve(t, a, "alive", call("0.02"), &budget.ReserveOpts{Expires: now.Add(time.Hour)})
	if n, err := a.Sweep(ctx, now); err != nil || n != 0 {
		t.Fatalf("Sweep before expiry = %d, %v; want 0", n, err)
	}
	later := now.Add(2 * time.Minute)
	if n, err := a.Sweep(ctx, later); err != nil || n != 3 {
		t.Fatalf("Sweep = %d, %v; want 3", n, err)
	}
	if n, err := a.Sweep(ctx, later); err != nil || n != 0 {
		t.Fatalf("second Sweep = %d, %v; want 0", n, err)
	}
	released := call("0.03").Add(call("0")).Add(call("0"))
	for _, s := range both {
		wantUsage(t, a, s, call("0.02"), budget.Amounts{}, released)
		if u := mustUsage(t, a, s); u.Reservations[budget.StateExpired] != 3 || u.Reservations[budget.StateReserved] != 1 {
			t.Fatalf("%s: counts %v", s, u.Reservations)
		}
	}
	res, err := a.Release(ctx, "dead0")
	if err != nil || !res.Replayed || res.State != budget.StateExpired {
		t.Fatalf("Release of a swept key = %+v, %v; want a replay in state expired", res, err)
	}
}

func testConcurrentSweeps(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(1000, "100"), limits(1000, "100"))
	now := time.Now()
	const n = 40
	for i := range n {
		mustReserve(t, a, fmt.Sprint("dead", i), call("0.01"), &budget.ReserveOpts{Expires: now})
	}
	const sweepers = 4
	counts := make([]int, sweepers)
	errs := make([]error, sweepers)
	var wg sync.WaitGroup
	for i := range sweepers {
		wg.Go(func() { counts[i], errs[i] = a.Sweep(ctx, now.Add(time.Second)) })
	}
	wg.Wait()
	total := 0
	for i := range sweepers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		total += counts[i]
	}
	if total != n {
		t.Fatalf("concurrent sweeps released %d reservations between them (%v), want each of %d once", total, counts, n)
	}
	u := mustUsage(t, a, run)
	if !u.Reserved.IsZero() || u.Released.ModelCalls != n || !u.Released.SpendUSD.Equal(usd("0.40")) {
		t.Fatalf("after concurrent sweeps: reserved %v, released %v", u.Reserved, u.Released)
	}
}

func testSettleAfterSweep(t *testing.T, a Accountant) {
	ctx := context.Background()
	setup(t, a, limits(10, "1"), limits(100, "10"))
	now := time.Now()
	mustReserve(t, a, "slow", call("0.05"), &budget.ReserveOpts{Expires: now})
	if n, err := a.Sweep(ctx, now); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v", n, err)
	}
	res, err := a.Settle(ctx, "slow", call("0.01"))
	if !errors.Is(err, budget.ErrReleased) || res.State != budget.StateExpired {
		t.Fatalf("Settle after the sweep = %+v, %v; want ErrReleased", res, err)
	}
	wantUsage(t, a, run, budget.Amounts{}, budget.Amounts{}, call("0.05"))
}

func testModelCall(t *testing.T, a Accountant) {
	ctx := context.Background()
	prices := configs.Prices()
	setup(t, a, limits(10, "0.01"), limits(100, "10"))
	if err := budget.CheckModels(limits(10, "0.01"), prices, "gpt-4o-mini", "gpt-99"); !errors.Is(err, configs.ErrUnknownModel) {
		t.Fatalf("CheckModels with an unpriced model under a spend limit: %v", err)
	}
	if err := budget.CheckModels(budget.NoLimits(), prices, "gpt-99"); err != nil {
		t.Fatalf("CheckModels without a spend limit: %v", err)
	}
	if _, err := budget.ModelReservation(prices, "gpt-4o-mini", 1000, 0); !errors.Is(err, budget.ErrNoOutputCap) {
		t.Fatalf("ModelReservation without max_tokens: %v", err)
	}
	hold, err := budget.ModelReservation(prices, "gpt-4o-mini", 10_000, 2_000)
	if err != nil {
		t.Fatal(err)
	}
	// 10,000 × 0.15/M + 2,000 × 0.60/M
	if !hold.SpendUSD.Equal(usd("0.0027")) || hold.ModelCalls != 1 || hold.OutputTokens != 2000 {
		t.Fatalf("ModelReservation = %v", hold)
	}
	if _, err := a.Reserve(ctx, "m1", both, hold, nil); err != nil {
		t.Fatal(err)
	}
	// The reply did not parse, but the provider billed it: settle at cost.
	billed, err := budget.ModelUsage(prices, "gpt-4o-mini", 9_500, 2_000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Settle(ctx, "m1", billed); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, a, run, budget.Amounts{}, billed, budget.Amounts{})
	// 0.002625 is spent: two more holds of 0.0027 fit in 0.01, a third does not.
	for i := range 2 {
		if _, err := a.Reserve(ctx, fmt.Sprint("m", i+2), both, hold, nil); err != nil {
			t.Fatalf("call %d: %v", i+2, err)
		}
	}
	var ex *budget.ExhaustedError
	if _, err := a.Reserve(ctx, "m4", both, hold, nil); !errors.As(err, &ex) || ex.Dimension != budget.SpendUSD || ex.Scope != run {
		t.Fatalf("fourth model call: %v, want spend exhausted in the run", err)
	}
}

// testConcurrentUntilExhausted runs 64 callers that reserve, then settle or
// release, until the budget refuses them, and checks that no limit was
// passed and that the totals are the sum of what the callers saw succeed.
func testConcurrentUntilExhausted(t *testing.T, a Accountant) {
	ctx := context.Background()
	runLimits := budget.NoLimits()
	runLimits.SpendUSD = usd("3")
	runLimits.ModelCalls = 150
	dayLimits := budget.NoLimits()
	dayLimits.SpendUSD = usd("2.5")
	dayLimits.OutputTokens = 60_000
	setup(t, a, runLimits, dayLimits)
	w := Workers{Accountant: a, Scopes: both, Prefix: "c"}
	got, err := w.Run(ctx, 64)
	if err != nil {
		t.Fatal(err)
	}
	CheckTotals(t, a, []budget.Scope{run, day}, []budget.Limits{runLimits, dayLimits}, got)
}

// Tally is what workers saw succeed.
type Tally struct {
	Settled   budget.Amounts `json:"settled"`
	Released  budget.Amounts `json:"released"`
	Reserves  int            `json:"reserves"`
	Exhausted int            `json:"exhausted"`
}

// Add returns the sum of two tallies.
func (t Tally) Add(o Tally) Tally {
	return Tally{Settled: t.Settled.Add(o.Settled), Released: t.Released.Add(o.Released),
		Reserves: t.Reserves + o.Reserves, Exhausted: t.Exhausted + o.Exhausted}
}

// Workers reserve and settle (or, one call in five, release) random model
// calls against Scopes until each worker has been refused three times.
type Workers struct {
	Accountant budget.Accountant
	Scopes     []budget.Scope
	// Prefix makes the keys of several sets of workers distinct.
	Prefix string
}

// Run runs n workers and returns the sum of what succeeded.
func (w Workers) Run(ctx context.Context, n int) (Tally, error) {
	tallies := make([]Tally, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { tallies[i], errs[i] = w.work(ctx, i) })
	}
	wg.Wait()
	var total Tally
	for i := range n {
		if errs[i] != nil {
			return total, errs[i]
		}
		total = total.Add(tallies[i])
	}
	return total, nil
}

func (w Workers) work(ctx context.Context, id int) (Tally, error) {
	rng := rand.New(rand.NewPCG(uint64(id), 7))
	var t Tally
	for i := 0; t.Exhausted < 3; i++ {
		key := fmt.Sprintf("%s-%d-%d", w.Prefix, id, i)
		out := rng.Int64N(900) + 100
		hold := budget.Amounts{ModelCalls: 1, InputTokens: 500, OutputTokens: out,
			SpendUSD: decimal.New(rng.Int64N(4000)+1000, -5)} // 0.01000 to 0.04999
		_, err := w.Accountant.Reserve(ctx, key, w.Scopes, hold, nil)
		if errors.Is(err, budget.ErrExhausted) {
			t.Exhausted++
			continue
		}
		if err != nil {
			return t, err
		}
		t.Reserves++
		if rng.IntN(5) == 0 {
			res, err := w.Accountant.Release(ctx, key)
			if err != nil {
				return t, err
			}
			t.Released = t.Released.Add(res.Amounts)
			continue
		}
		used := hold
		used.OutputTokens = rng.Int64N(out + 1)
		used.SpendUSD = hold.SpendUSD.Mul(decimal.New(rng.Int64N(101), -2)).Round(7)
		res, err := w.Accountant.Settle(ctx, key, used)
		if err != nil {
			return t, err
		}
		t.Settled = t.Settled.Add(res.Amounts)
	}
	return t, nil
}

// CheckTotals checks that every scope is within its limits (settled plus
// reserved), holds nothing any more, and settled and released exactly what
// the workers saw succeed; and that the budget was exhausted.
func CheckTotals(t *testing.T, a Accountant, scopes []budget.Scope, limits []budget.Limits, got Tally) {
	t.Helper()
	if got.Exhausted == 0 || got.Reserves == 0 {
		t.Fatalf("workers reserved %d times and were refused %d times; want both", got.Reserves, got.Exhausted)
	}
	for i, s := range scopes {
		u := mustUsage(t, a, s)
		used := u.Settled.Add(u.Reserved)
		for _, d := range budget.Dimensions() {
			if l, ok := limits[i].Get(d); ok && used.Get(d).GreaterThan(l) {
				t.Errorf("%s: %s settled+reserved %s exceeds the limit %s", s, d, used.Get(d), l)
			}
		}
		if !u.Reserved.IsZero() {
			t.Errorf("%s: %v still reserved", s, u.Reserved)
		}
		if !u.Settled.Equal(got.Settled) || !u.Released.Equal(got.Released) {
			t.Errorf("%s: settled %v, released %v; the workers saw %v and %v", s, u.Settled, u.Released, got.Settled, got.Released)
		}
	}
}
