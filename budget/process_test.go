package budget_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	dec "github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/budget/budgettest"
	"github.com/ledgerline/research/internal/pgtest"
)

// The helper process: the test binary re-executed with BUDGET_HELPER set
// runs one role against the schema in BUDGET_HELPER_URL and reports on
// stdout.
//
//   - workers: 64 goroutines reserve and settle against run BUDGET_HELPER_RUN
//     inside the day until exhausted, then print "TALLY <json>".
//   - leased-workers: the same through a Leased accountant, closed before
//     the tally is printed.
//   - hold: reserve once, print "HELD", and wait to be killed.
//   - leased-hold: through a Leased accountant whose writes wait an hour,
//     reserve and settle leasedCalls calls, write them (Usage), settle
//     unwrittenCalls more, print "HELD", and wait to be killed.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv("BUDGET_HELPER")
	if role == "" {
		t.Skip("run by TestPostgresProcesses and TestKilledWorkerSwept")
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("BUDGET_HELPER_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	acct, err := budget.NewPostgres(pool, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	scopes := []budget.Scope{helperDay, budget.RunScope(os.Getenv("BUDGET_HELPER_RUN"))}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	switch role {
	case "workers", "leased-workers":
		var a budget.Accountant = acct
		var leased *budget.Leased
		if role == "leased-workers" {
			if leased, err = budget.NewLeased(acct, nil); err != nil {
				fail(err)
			}
			a = leased
		}
		w := budgettest.Workers{Accountant: a, Scopes: scopes, Prefix: os.Getenv("BUDGET_HELPER_ID")}
		tally, err := w.Run(ctx, 64)
		if err != nil {
			fail(err)
		}
		if leased != nil {
			if err := leased.Close(ctx); err != nil {
				fail(err)
			}
		}
		b, _ := json.Marshal(tally)
		fmt.Printf("TALLY %s\n", b)
	case "leased-hold":
		pg, err := budget.NewPostgres(pool, &budget.Config{TTL: time.Minute})
		if err != nil {
			fail(err)
		}
		leased, err := budget.NewLeased(pg, &budget.LeaseConfig{FlushInterval: time.Hour})
		if err != nil {
			fail(err)
		}
		for i := range leasedCalls + unwrittenCalls {
			if i == leasedCalls {
				if _, err := leased.Usage(ctx, scopes[1]); err != nil {
					fail(err)
				}
			}
			key := fmt.Sprint("call", i)
			if _, err := leased.Reserve(ctx, key, scopes, heldByDoomed, nil); err != nil {
				fail(err)
			}
			if _, err := leased.Settle(ctx, key, heldByDoomed); err != nil {
				fail(err)
			}
		}
		fmt.Println("HELD")
		select {} // until killed
	case "hold":
		_, err := acct.Reserve(ctx, "doomed", scopes, heldByDoomed, &budget.ReserveOpts{Expires: time.Now().Add(time.Minute)})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("HELD")
		select {} // until killed
	}
	os.Exit(0)
}

// The leased-hold helper settles leasedCalls calls and writes them, then
// settles unwrittenCalls more before it is killed.
const (
	leasedCalls    = 3
	unwrittenCalls = 2
)

var (
	helperDay0   = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	helperDay    = budget.DayScope(helperDay0)
	heldByDoomed = budget.Amounts{ModelCalls: 1, InputTokens: 2000, OutputTokens: 1000, SpendUSD: usd("0.0123")}
)

// helperURL is DATABASE_URL on the pool's schema, for a child process.
// killHeld starts a helper process in role on run "run-k", waits until it
// says it holds its reservation (HELD), and kills it.
func killHeld(t *testing.T, role string, pool *pgxpool.Pool) {
	t.Helper()
	cmd := helperCmd(t, role, helperURL(t, pool), "run-k", "k")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	held := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "HELD" {
				held <- true
				return
			}
		}
		held <- false
	}()
	select {
	case ok := <-held:
		if !ok {
			_ = cmd.Wait()
			t.Fatal("the worker exited without reserving")
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the worker did not reserve within 30s")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

func helperURL(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var schema string
	if err := pool.QueryRow(context.Background(), `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	q.Set("pool_max_conns", "8")
	u.RawQuery = q.Encode()
	return u.String()
}

func helperCmd(t *testing.T, role, dbURL, run, id string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BUDGET_HELPER="+role, "BUDGET_HELPER_URL="+dbURL,
		"BUDGET_HELPER_RUN="+run, "BUDGET_HELPER_ID="+id)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestPostgresProcesses: 64 goroutines in each of 4 processes reserve and
// settle against one tenant day (two runs inside it, two processes each)
// until it is exhausted, through Postgres, or through a Leased accountant
// in each process. No limit is passed, and the totals in the database
// equal the sum of what the processes saw succeed.
func TestPostgresProcesses(t *testing.T) {
	t.Parallel()
	pgtest.URL(t)
	for _, role := range []string{"workers", "leased-workers"} {
		t.Run(role, func(t *testing.T) {
			t.Parallel()
			testProcesses(t, role)
		})
	}
}

func testProcesses(t *testing.T, role string) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	acct := newPostgres(t, pool)
	runA, runB := budget.RunScope("run-a"), budget.RunScope("run-b")
	runLimits := budget.NoLimits()
	runLimits.SpendUSD = usd("2.5")
	runLimits.ModelCalls = 200
	dayLimits := budget.NoLimits()
	dayLimits.SpendUSD = usd("4")
	dayLimits.OutputTokens = 150_000
	for s, l := range map[budget.Scope]budget.Limits{runA: runLimits, runB: runLimits, helperDay: dayLimits} {
		if err := acct.SetLimits(ctx, s, l); err != nil {
			t.Fatal(err)
		}
	}

	dbURL := helperURL(t, pool)
	const procs = 4
	tallies := make([]budgettest.Tally, procs)
	errs := make([]error, procs)
	var wg sync.WaitGroup
	for i := range procs {
		run := []string{"run-a", "run-b"}[i%2]
		wg.Go(func() {
			out, err := helperCmd(t, role, dbURL, run, fmt.Sprint("p", i)).Output()
			if err != nil {
				errs[i] = fmt.Errorf("process %d: %v", i, err)
				return
			}
			for line := range strings.Lines(string(out)) {
				if js, ok := strings.CutPrefix(line, "TALLY "); ok {
					errs[i] = json.Unmarshal([]byte(js), &tallies[i])
					return
				}
			}
			errs[i] = fmt.Errorf("process %d printed no tally:\n%s", i, out)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	total := tallies[0].Add(tallies[1]).Add(tallies[2]).Add(tallies[3])
	t.Logf("%d reservations, %d refusals; settled %v", total.Reserves, total.Exhausted, total.Settled)
	budgettest.CheckTotals(t, acct, []budget.Scope{helperDay}, []budget.Limits{dayLimits}, total)
	budgettest.CheckTotals(t, acct, []budget.Scope{runA}, []budget.Limits{runLimits}, tallies[0].Add(tallies[2]))
	budgettest.CheckTotals(t, acct, []budget.Scope{runB}, []budget.Limits{runLimits}, tallies[1].Add(tallies[3]))

	// The ledger of settlements agrees with the totals: every call was
	// written, and the leases were returned.
	var settled, released string
	var calls, openLeases int
	err := pool.QueryRow(ctx, `SELECT
		coalesce(sum(s.spend_usd) FILTER (WHERE s.kind = 'settle'), 0)::text,
		coalesce(sum(s.spend_usd) FILTER (WHERE s.kind = 'release'), 0)::text,
		count(*) FILTER (WHERE s.kind IN ('settle', 'release')),
		(SELECT count(*) FROM reservations WHERE lease AND state = 'reserved')
		FROM settlements s JOIN reservations r USING (tenant_id, key) WHERE NOT r.lease`).Scan(&settled, &released, &calls, &openLeases)
	if err != nil {
		t.Fatal(err)
	}
	if !usd(settled).Equal(total.Settled.SpendUSD) || !usd(released).Equal(total.Released.SpendUSD) {
		t.Fatalf("settlements sum to %s settled and %s released; workers saw %s and %s", settled, released, total.Settled.SpendUSD, total.Released.SpendUSD)
	}
	if calls != total.Reserves || openLeases != 0 {
		t.Fatalf("%d calls closed in settlements, %d leases open; workers reserved %d", calls, openLeases, total.Reserves)
	}
}

// TestKilledWorkerSwept: a process reserves and is killed before it can
// settle. Its hold stays until it expires; then a sweep returns it, once.
func TestKilledWorkerSwept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	acct := newPostgres(t, pool)
	run := budget.RunScope("run-k")
	for _, s := range []budget.Scope{run, helperDay} {
		if err := acct.SetLimits(ctx, s, budget.NoLimits()); err != nil {
			t.Fatal(err)
		}
	}
	killHeld(t, "hold", pool)

	u, err := acct.Usage(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if !u.Reserved.Equal(heldByDoomed) {
		t.Fatalf("the dead worker holds %v, want %v", u.Reserved, heldByDoomed)
	}
	if n, err := acct.Sweep(ctx, time.Now()); err != nil || n != 0 {
		t.Fatalf("Sweep before expiry = %d, %v; want 0", n, err)
	}
	later := time.Now().Add(2 * time.Minute)
	if n, err := acct.Sweep(ctx, later); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
	if n, err := acct.Sweep(ctx, later); err != nil || n != 0 {
		t.Fatalf("second Sweep = %d, %v; want 0", n, err)
	}
	for _, s := range []budget.Scope{run, helperDay} {
		u, err := acct.Usage(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if !u.Reserved.IsZero() || !u.Released.Equal(heldByDoomed) || u.Reservations[budget.StateExpired] != 1 {
			t.Fatalf("%s after sweeping: reserved %v, released %v, counts %v; want the hold returned once", s, u.Reserved, u.Released, u.Reservations)
		}
	}
}

func usd(s string) dec.Decimal { return dec.RequireFromString(s) }
