package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/internal/pgtest"
)

func TestLedgerBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	var schema string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	db := pgtest.SchemaURL(t, schema)

	acct, err := budget.NewPostgres(pool, &budget.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	run, day := budget.RunScope("r1"), budget.DayScope(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	lim := budget.NoLimits()
	lim.SpendUSD = decimal.RequireFromString("1.50")
	lim.ModelCalls = 10
	lim.WallClock = 5 * time.Minute
	for _, s := range []budget.Scope{run, day} {
		if err := acct.SetLimits(ctx, s, lim); err != nil {
			t.Fatal(err)
		}
	}
	scopes := []budget.Scope{run, day}
	call := budget.Amounts{ModelCalls: 1, InputTokens: 1000, OutputTokens: 500, SpendUSD: decimal.RequireFromString("0.25")}
	for _, k := range []string{"a", "b", "c"} {
		if _, err := acct.Reserve(ctx, k, scopes, call, nil); err != nil {
			t.Fatal(err)
		}
	}
	used := call
	used.SpendUSD = decimal.RequireFromString("0.1")
	if _, err := acct.Settle(ctx, "a", used); err != nil {
		t.Fatal(err)
	}
	if _, err := acct.Release(ctx, "b"); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCLI(t, "ledger", "budget", "--db", db, "--tenant", "acme", "--run", "r1")
	if code != 0 {
		t.Fatalf("ledger budget --run exited %d: %s", code, errOut)
	}
	for _, want := range []string{"budget of run r1, tenant acme", "spend_usd", "1.5", "0.25", "0.1", "1.15", "unlimited", "1 open, 1 settled, 1 released", "5m0s"} {
		if !strings.Contains(out, want) {
			t.Errorf("text audit lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = runCLI(t, "ledger", "budget", "--db", db, "--tenant", "acme", "--day", "2026-11-30", "--format", "json")
	if code != 0 {
		t.Fatalf("ledger budget --day exited %d: %s", code, errOut)
	}
	var rep budgetReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.Scope.Kind != "tenant_day" || rep.Scope.ID != "2026-11-30" || len(rep.Dimensions) != len(budget.Dimensions()) {
		t.Fatalf("json audit = %+v", rep)
	}
	for _, d := range rep.Dimensions {
		if d.Dimension == "spend_usd" {
			if *d.Limit != "1.5" || d.Reserved != "0.25" || d.Settled != "0.1" || d.Released != "0.25" || *d.Remaining != "1.15" {
				t.Fatalf("spend row = %+v", d)
			}
		}
		if d.Dimension == "input_tokens" && (d.Limit != nil || d.Remaining != nil) {
			t.Fatalf("unlimited row = %+v", d)
		}
	}

	// Another tenant's run, a missing flag, a bad day.
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--db", db, "--run", "r1"}, 1, `no budget for run r1 of tenant "default"`},
		{[]string{"--db", db}, 2, "exactly one of --run and --day"},
		{[]string{"--db", db, "--run", "r1", "--day", "2026-11-30"}, 2, "exactly one"},
		{[]string{"--db", db, "--day", "30/11/2026"}, 1, "want YYYY-MM-DD"},
		{[]string{"--db", "", "--run", "r1"}, 1, "give --db or set DATABASE_URL"},
		{[]string{"--db", db, "--run", "r1", "--format", "xml"}, 1, "want text or json"},
	}
	for _, tt := range tests {
		code, out, errOut := runCLI(t, append([]string{"ledger", "budget"}, tt.args...)...)
		if code != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("ledger budget %v exited %d, want %d saying %q:\n%s%s", tt.args, code, tt.code, tt.want, out, errOut)
		}
	}
}
