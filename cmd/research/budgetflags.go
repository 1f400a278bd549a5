package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/ledgerline/research/engine"
)

// budgetFlags choose how a process over Postgres accounts for its runs'
// calls.
type budgetFlags struct {
	leases bool
	set    bool // --budget-leases was given: it wins over the environment
	// sweep is --budget-sweep-interval: engine.Config.BudgetSweepInterval.
	sweep time.Duration
}

func (f *budgetFlags) register(fs *flag.FlagSet) {
	fs.BoolFunc("budget-leases", "over Postgres, reserve and settle calls against budget leases (default true, or $RESEARCH_BUDGET_LEASES): slices of a run's and its tenant's day's budgets taken at once, so the runs of one tenant do not queue on the day's row; --budget-leases=false locks the budgets' rows at every call instead", func(v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		f.leases, f.set = b, true
		return nil
	})
	fs.DurationVar(&f.sweep, "budget-sweep-interval", 0, "over Postgres, how often to return to their budgets the reservations of every tenant whose expiry has passed: the holds and leases of processes that died (killed, or their machine lost), which otherwise count against the tenants' budgets and daily caps for good. 0 means 1m; a negative value sweeps nothing (leave it to other processes). Any number of processes may sweep at once")
}

// check settles the choice after parsing: the flag, else
// $RESEARCH_BUDGET_LEASES, else leases.
func (f *budgetFlags) check() error {
	if f.set {
		return nil
	}
	f.leases = true
	if v := os.Getenv("RESEARCH_BUDGET_LEASES"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("RESEARCH_BUDGET_LEASES=%q: want true or false", v)
		}
		f.leases = b
	}
	return nil
}

// sweepInterval says how often the process sweeps, for its logs.
func (f *budgetFlags) sweepInterval() string {
	switch {
	case f.sweep < 0:
		return "off"
	case f.sweep == 0:
		return engine.DefaultBudgetSweepInterval.String()
	}
	return f.sweep.String()
}
