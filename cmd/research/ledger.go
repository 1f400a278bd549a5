package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

const ledgerUsage = `Usage: research ledger SUBCOMMAND [flags]

Subcommands:
  show RUN_ID   a run's evidence ledger: requirements, evidence, facts, contradictions,
                search history, corpus snapshot and event log (--format text|json)
  budget        budget audit: --run ID, or --tenant T --day D

Run 'research ledger SUBCOMMAND --help' for its flags.
`

// runLedger dispatches the ledger subcommands.
func runLedger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "ledger", ledgerUsage, []subcommand{
		{"show", runLedgerShow}, {"budget", runLedgerBudget},
	}, args, stdout, stderr)
}

func runLedgerShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ledger show", "RUN_ID [flags]",
		"Print a run's evidence ledger. JSON has the export shape: task, requirements by id with their\n"+
			"status and evidence ids, evidence, facts (values as exact decimal strings), contradictions,\n"+
			"search_history, corpus_snapshot, tool_calls and events. A run of another tenant is not found.", stderr)
	var sf storeFlags
	sf.register(fs)
	format := fs.String("format", "text", "text or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("--format %q: want text or json", *format)
	}
	runID := fs.Arg(0)
	store, closeStore, err := sf.openLedger(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	rep, err := ledger.Export(ctx, store, runID)
	if errors.Is(err, ledger.ErrNotFound) {
		return fmt.Errorf("run %q not found for tenant %q", runID, sf.tenant)
	}
	if err != nil {
		return err
	}
	if *format == "json" {
		return rep.WriteJSON(stdout)
	}
	return rep.WriteText(stdout)
}

// openLedger opens the ledger store the flags select: Postgres (migrated
// first) when a URL is given, the embedded ledger in --data-dir otherwise;
// either for --tenant.
func (f *storeFlags) openLedger(ctx context.Context) (ledger.Store, func(), error) {
	if f.db == "" {
		s, err := embeddedledger.Open(f.dataDir, &embeddedledger.Config{Tenant: f.tenant})
		if err != nil {
			return nil, nil, err
		}
		return s, func() { s.Close() }, nil
	}
	pool, err := openMigratedPool(ctx, f.db)
	if err != nil {
		return nil, nil, err
	}
	s, err := pgledger.New(pool, &pgledger.Config{Tenant: f.tenant})
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return s, func() { s.Close(); pool.Close() }, nil
}
