package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/server"
)

func runTenant(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "tenant", tenantUsage, []subcommand{
		{"create", runTenantCreate}, {"key", runTenantKey}, {"revoke", runTenantRevoke},
		{"limits", runTenantLimits}, {"list", runTenantList}, {"delete", runTenantDelete},
	}, args, stdout, stderr)
}

const tenantUsage = `Usage: research tenant (create | key | revoke | limits | list | delete) [flags]

  create NAME          create a tenant of the HTTP API and print its API key, once
  key NAME             issue another API key for the tenant, printed once
  revoke NAME KEY      revoke a key, given whole or by the prefix 'list --keys' shows
  limits NAME [flags]  show the tenant's limits, or change those the flags name
  list [--keys]        list the tenants (and their keys' prefixes)
  delete NAME --yes    delete the tenant and everything it holds: keys, filings, runs, budgets

Only a key's SHA-256 is stored. A tenant's name is the --tenant of research ingest.
Run 'research tenant SUBCOMMAND --help' for its flags.
`

// limitFlags are the flags of a tenant's limits.
type limitFlags struct {
	fs                                 *flag.FlagSet
	rate, dailyRuns, concurrent, calls int
	dailySpend, runSpend               string
	runDuration                        time.Duration
}

func (l *limitFlags) register(fs *flag.FlagSet) {
	d := server.DefaultTenantLimits()
	l.fs = fs
	fs.IntVar(&l.rate, "rate", d.RequestsPerMinute, "requests a minute per API key (sliding window)")
	fs.IntVar(&l.dailyRuns, "daily-runs", d.DailyRuns, "runs the tenant may start per UTC day")
	fs.StringVar(&l.dailySpend, "daily-spend", d.DailySpendUSD.String(), "USD the tenant's runs may spend per UTC day")
	fs.IntVar(&l.concurrent, "max-concurrent", d.MaxConcurrentRuns, "runs the tenant may have queued or running at once")
	fs.StringVar(&l.runSpend, "max-run-spend", d.MaxRunSpendUSD.StringFixed(2), "the most USD one run may ask for")
	fs.DurationVar(&l.runDuration, "max-run-duration", d.MaxRunDuration, "the longest wall-clock budget one run may ask for (whole seconds)")
	fs.IntVar(&l.calls, "max-run-calls", d.MaxRunCalls, "the most model and tool calls one run may ask for")
}

// apply sets in base the limits whose flags were given (all of them when
// all is set) and returns the result.
func (l *limitFlags) apply(base server.TenantLimits, all bool) (server.TenantLimits, error) {
	set := map[string]bool{}
	l.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	given := func(name string) bool { return all || set[name] }
	money := func(name, v string) (decimal.Decimal, error) {
		d, err := decimal.NewFromString(v)
		if err != nil || d.IsNegative() || budget.CheckUSD(d) != nil {
			return decimal.Decimal{}, fmt.Errorf("--%s %q: want a non-negative amount of USD such as 5 or 0.50", name, v)
		}
		return d, nil
	}
	var err error
	if given("rate") {
		base.RequestsPerMinute = l.rate
	}
	if given("daily-runs") {
		base.DailyRuns = l.dailyRuns
	}
	if given("daily-spend") {
		if base.DailySpendUSD, err = money("daily-spend", l.dailySpend); err != nil {
			return base, err
		}
	}
	if given("max-concurrent") {
		base.MaxConcurrentRuns = l.concurrent
	}
	if given("max-run-spend") {
		if base.MaxRunSpendUSD, err = money("max-run-spend", l.runSpend); err != nil {
			return base, err
		}
	}
	if given("max-run-duration") {
		base.MaxRunDuration = l.runDuration
	}
	if given("max-run-calls") {
		base.MaxRunCalls = l.calls
	}
	return base, nil
}

// openTenants connects to the database the flags name and migrates it.
func openTenants(ctx context.Context, db string) (*server.Tenants, func(), error) {
	if db == "" {
		return nil, nil, errors.New("tenants live in Postgres: pass --db URL or set DATABASE_URL")
	}
	pool, err := openMigratedPool(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	ts, err := server.NewTenants(pool)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return ts, pool.Close, nil
}

func runTenantCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tenant create", "NAME [flags]",
		"Creates a tenant of the HTTP API with the limits the flags set and prints its first API key on\n"+
			"stdout, once: only its SHA-256 is stored, so keep it. The name (1-64 letters, digits, '.', '_'\n"+
			"or '-') is the tenant's id everywhere: ingest its filings with research ingest --tenant NAME.", stderr)
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL)")
	var lf limitFlags
	lf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	name := fs.Arg(0)
	if err := server.CheckTenantName(name); err != nil {
		return err
	}
	limits, err := lf.apply(server.DefaultTenantLimits(), true)
	if err != nil {
		return err
	}
	ts, closeDB, err := openTenants(ctx, *db)
	if err != nil {
		return err
	}
	defer closeDB()
	_, key, err := ts.Create(ctx, name, &limits)
	if errors.Is(err, server.ErrTenantExists) {
		return fmt.Errorf("tenant %q exists already; issue it another key with research tenant key %s", name, name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, key)
	fmt.Fprintf(stderr, "tenant %s created; its API key is above, shown this once (only its hash is kept).\n"+
		"Send it as Authorization: Bearer KEY. Ingest the tenant's filings with research ingest --tenant %s.\n", name, name)
	return nil
}

func runTenantKey(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tenant key", "NAME [--db URL]", "Issues another API key for the tenant and prints it on stdout, once.", stderr)
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	ts, closeDB, err := openTenants(ctx, *db)
	if err != nil {
		return err
	}
	defer closeDB()
	key, err := ts.IssueKey(ctx, fs.Arg(0))
	if errors.Is(err, server.ErrTenantNotFound) {
		return fmt.Errorf("no tenant %q: create it with research tenant create %s", fs.Arg(0), fs.Arg(0))
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, key)
	fmt.Fprintln(stderr, "a new API key for "+fs.Arg(0)+" is above, shown this once; the tenant's other keys still work.")
	return nil
}

func runTenantRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tenant revoke", "NAME KEY_OR_PREFIX [--db URL]",
		"Revokes one of the tenant's API keys, given whole or by its prefix (research tenant list --keys).\n"+
			"Requests with it are refused (401) from then on, by every server.", stderr)
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return errUsage
	}
	ts, closeDB, err := openTenants(ctx, *db)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := ts.RevokeKey(ctx, fs.Arg(0), fs.Arg(1)); errors.Is(err, server.ErrKeyNotFound) {
		return fmt.Errorf("tenant %q has no key %q: give the whole key or the prefix research tenant list --keys shows", fs.Arg(0), fs.Arg(1))
	} else if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked the key of %s\n", fs.Arg(0))
	return nil
}

func runTenantDelete(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tenant delete", "NAME --yes [--db URL]",
		"Deletes the tenant and everything it holds: its API keys, filings, runs and their ledgers,\n"+
			"batches and budgets; its queued runs are cancelled. A tenant created later with the same name\n"+
			"starts empty. There is no undo: --yes says you mean it.", stderr)
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL)")
	yes := fs.Bool("yes", false, "delete without asking")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if !*yes {
		return fmt.Errorf("deleting tenant %q removes all it holds and cannot be undone: add --yes", fs.Arg(0))
	}
	ts, closeDB, err := openTenants(ctx, *db)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := ts.Delete(ctx, fs.Arg(0)); errors.Is(err, server.ErrTenantNotFound) {
		return fmt.Errorf("no tenant %q: research tenant list names them", fs.Arg(0))
	} else if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "deleted tenant %s and all it held\n", fs.Arg(0))
	return nil
}

func runTenantLimits(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tenant limits", "NAME [flags]",
		"Prints the tenant's limits; with flags, changes those limits first. Every server applies\n"+
			"them from the next request on.", stderr)
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL)")
	var lf limitFlags
	lf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	name := fs.Arg(0)
	ts, closeDB, err := openTenants(ctx, *db)
	if err != nil {
		return err
	}
	defer closeDB()
	t, err := ts.Get(ctx, name)
	if errors.Is(err, server.ErrTenantNotFound) {
		return fmt.Errorf("no tenant %q: create it with research tenant create %s", name, name)
	}
	if err != nil {
		return err
	}
	changed := false
	fs.Visit(func(f *flag.Flag) { changed = changed || f.Name != "db" })
	if changed {
		l, err := lf.apply(t.Limits, false)
		if err != nil {
			return err
		}
		if err := ts.SetLimits(ctx, name, l); err != nil {
			return err
		}
		t.Limits = l
	}
	writeLimits(stdout, t)
	return nil
}

func writeLimits(w io.Writer, t server.Tenant) {
	l := t.Limits
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "tenant\t%s\n", t.Name)
	fmt.Fprintf(tw, "requests a minute per key\t%d\n", l.RequestsPerMinute)
	fmt.Fprintf(tw, "runs a day\t%d\n", l.DailyRuns)
	fmt.Fprintf(tw, "spend a day (USD)\t%s\n", l.DailySpendUSD)
	fmt.Fprintf(tw, "runs at once\t%d\n", l.MaxConcurrentRuns)
	fmt.Fprintf(tw, "spend a run (USD)\t%s\n", l.MaxRunSpendUSD)
	fmt.Fprintf(tw, "wall clock a run\t%s\n", l.MaxRunDuration)
	fmt.Fprintf(tw, "calls a run\t%d\n", l.MaxRunCalls)
	tw.Flush()
}

func runTenantList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tenant list", "[--keys] [--db URL]", "Lists the tenants with their limits and, with --keys, their keys' prefixes.", stderr)
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL)")
	keys := fs.Bool("keys", false, "also list each tenant's keys: prefix, created, revoked")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	ts, closeDB, err := openTenants(ctx, *db)
	if err != nil {
		return err
	}
	defer closeDB()
	all, err := ts.List(ctx)
	if err != nil {
		return err
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "no tenants: create one with research tenant create NAME")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TENANT\tCREATED\tRATE/MIN\tRUNS/DAY\tUSD/DAY\tAT ONCE\tUSD/RUN\tTIME/RUN\tCALLS/RUN")
	for _, t := range all {
		l := t.Limits
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%d\t%s\t%s\t%d\n", t.Name, t.Created.UTC().Format(time.DateOnly), l.RequestsPerMinute, l.DailyRuns,
			l.DailySpendUSD, l.MaxConcurrentRuns, l.MaxRunSpendUSD, l.MaxRunDuration, l.MaxRunCalls)
		if *keys {
			ks, err := ts.Keys(ctx, t.ID)
			if err != nil {
				return err
			}
			for _, k := range ks {
				state := "active"
				if !k.Revoked.IsZero() {
					state = "revoked " + k.Revoked.UTC().Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "  key %s\t%s\t%s\n", k.Prefix, k.Created.UTC().Format(time.RFC3339), state)
			}
		}
	}
	return tw.Flush()
}
