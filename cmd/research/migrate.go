package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ledgerline/research/migrations"
)

func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("migrate", "[--db URL]",
		"Applies the embedded SQL migrations in order, each in its own transaction with its\n"+
			"schema_migrations row. Safe to run twice. Other commands migrate by themselves.", stderr)
	db := fs.String("db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *db == "" {
		return errors.New("no database: pass --db URL or set DATABASE_URL (the embedded store needs no migrations)")
	}
	pool, err := openPool(ctx, *db)
	if err != nil {
		return err
	}
	defer pool.Close()
	applied, err := migrations.Apply(ctx, pool)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "schema is up to date; nothing applied")
		return nil
	}
	fmt.Fprintf(stdout, "applied migrations %v\n", applied)
	return nil
}
