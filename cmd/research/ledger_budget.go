package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/ledgerline/research/budget"
)

// runLedgerBudget prints the budget audit of a run or of a tenant's day:
// limits, reserved, settled, released and remaining per dimension, from the
// database.
func runLedgerBudget(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ledger budget", "--run ID | --day YYYY-MM-DD [flags]",
		"Print a budget's audit from the database: for each dimension its limit, what open reservations\n"+
			"hold, what settled calls used, what releases and sweeps returned, and what remains; then the\n"+
			"reservations by state and the refused settlements. Money is exact (decimal). \"unlimited\" marks\n"+
			"a dimension without a limit.", stderr)
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL); required")
	tenant := fs.String("tenant", budget.DefaultTenant, "tenant whose budget to show")
	runID := fs.String("run", "", "a run's budget")
	day := fs.String("day", "", "the tenant's budget for a UTC day, YYYY-MM-DD")
	format := fs.String("format", "text", "text or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 || (*runID == "") == (*day == "") {
		fmt.Fprintln(stderr, "research ledger budget: give exactly one of --run and --day")
		fs.Usage()
		return errUsage
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("--format %q: want text or json", *format)
	}
	if *db == "" {
		return errors.New("--db: budgets live in Postgres; give --db or set DATABASE_URL")
	}
	scope := budget.RunScope(*runID)
	if *day != "" {
		d, err := time.Parse(time.DateOnly, *day)
		if err != nil {
			return fmt.Errorf("--day %q: want YYYY-MM-DD", *day)
		}
		scope = budget.DayScope(d)
	}

	pool, err := openMigratedPool(ctx, *db)
	if err != nil {
		return err
	}
	defer pool.Close()
	acct, err := budget.NewPostgres(pool, &budget.Config{Tenant: *tenant})
	if err != nil {
		return err
	}
	u, err := acct.Usage(ctx, scope)
	if errors.Is(err, budget.ErrNoBudget) {
		return fmt.Errorf("no budget for %s of tenant %q", scope, *tenant)
	}
	if err != nil {
		return err
	}
	rep := newBudgetReport(*tenant, u)
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.writeText(stdout)
}

// budgetReport is the audit as printed; amounts are exact decimal strings,
// and a nil limit or remainder means unlimited.
type budgetReport struct {
	Tenant       string            `json:"tenant"`
	Scope        budgetScopeJSON   `json:"scope"`
	Dimensions   []budgetDimension `json:"dimensions"`
	Reservations map[string]int64  `json:"reservations"`
	Rejected     int64             `json:"rejected_settlements"`
	WallClockMS  *int64            `json:"wall_clock_ms"`
}

type budgetScopeJSON struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

type budgetDimension struct {
	Dimension string  `json:"dimension"`
	Limit     *string `json:"limit"`
	Reserved  string  `json:"reserved"`
	Settled   string  `json:"settled"`
	Released  string  `json:"released"`
	Remaining *string `json:"remaining"`
}

func newBudgetReport(tenant string, u budget.Usage) budgetReport {
	rep := budgetReport{
		Tenant:       tenant,
		Scope:        budgetScopeJSON{Kind: string(u.Scope.Kind), ID: u.Scope.ID},
		Reservations: map[string]int64{},
		Rejected:     u.Rejected,
	}
	for _, s := range []budget.State{budget.StateReserved, budget.StateSettled, budget.StateReleased, budget.StateExpired} {
		rep.Reservations[string(s)] = u.Reservations[s]
	}
	if u.Limits.WallClock > 0 {
		ms := u.Limits.WallClock.Milliseconds()
		rep.WallClockMS = &ms
	}
	for _, d := range budget.Dimensions() {
		row := budgetDimension{
			Dimension: string(d),
			Reserved:  u.Reserved.Get(d).String(),
			Settled:   u.Settled.Get(d).String(),
			Released:  u.Released.Get(d).String(),
		}
		if l, ok := u.Limits.Get(d); ok {
			ls := l.String()
			row.Limit = &ls
		}
		if r, ok := u.Remaining(d); ok {
			rs := r.String()
			row.Remaining = &rs
		}
		rep.Dimensions = append(rep.Dimensions, row)
	}
	return rep
}

func (r budgetReport) writeText(w io.Writer) error {
	fmt.Fprintf(w, "budget of %s %s, tenant %s\n\n", r.Scope.Kind, r.Scope.ID, r.Tenant)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// Right-aligned numbers; the names are padded so they read left-aligned.
	fmt.Fprintf(tw, "%-20s\tlimit\treserved\tsettled\treleased\tremaining\t\n", "dimension")
	orUnlimited := func(s *string) string {
		if s == nil {
			return "unlimited"
		}
		return *s
	}
	for _, d := range r.Dimensions {
		fmt.Fprintf(tw, "%-20s\t%s\t%s\t%s\t%s\t%s\t\n", d.Dimension, orUnlimited(d.Limit), d.Reserved, d.Settled, d.Released, orUnlimited(d.Remaining))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	wall := "none"
	if r.WallClockMS != nil {
		wall = (time.Duration(*r.WallClockMS) * time.Millisecond).String()
	}
	res := r.Reservations
	_, err := fmt.Fprintf(w, "\nreservations: %d open, %d settled, %d released, %d expired (swept); %d settlements refused\nwall clock per run: %s\n",
		res["reserved"], res["settled"], res["released"], res["expired"], r.Rejected, wall)
	return err
}
