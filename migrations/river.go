package migrations

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// River's job queue (package jobs) keeps its tables (river_job,
// river_leader, river_queue, ...) in the same schema as ours, created by
// River's own migrations and tracked in its river_migration table. Apply
// runs them after the SQL files, one River version per transaction under
// the same per-schema advisory lock, so concurrent Applys never race and a
// version that adds an enum value commits before the next one uses it.

// riverMigrator returns River's migrator for the first schema of the
// connection's search_path, and that schema.
func riverMigrator(ctx context.Context, db DB) (*rivermigrate.Migrator[pgx.Tx], error) {
	var schema string
	if err := readTx(ctx, db, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema)
	}); err != nil {
		return nil, err
	}
	// A nil pool: the migrator only ever runs in the transactions given
	// to it.
	return rivermigrate.New(riverpgxv5.New(nil), &rivermigrate.Config{
		Logger: slog.New(slog.DiscardHandler),
		Schema: schema,
	})
}

// readTx runs fn in a transaction that is always rolled back.
func readTx(ctx context.Context, db DB, fn func(tx pgx.Tx) error) error {
	tx, err := db.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	return fn(tx)
}

// RiverPending returns the versions of River's migrations not yet applied
// to the first schema of search_path, in order; none when River's schema
// is up to date. Apply applies them with the SQL files; a schema is
// current when both Pending and RiverPending return none.
func RiverPending(ctx context.Context, db DB) ([]int, error) {
	m, err := riverMigrator(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("migrations: river: %w", err)
	}
	pending, err := riverPending(ctx, db, m)
	if err != nil {
		return nil, fmt.Errorf("migrations: river: %w", err)
	}
	return pending, nil
}

func riverPending(ctx context.Context, db DB, m *rivermigrate.Migrator[pgx.Tx]) ([]int, error) {
	var done []int
	err := readTx(ctx, db, func(tx pgx.Tx) error {
		existing, err := m.ExistingVersionsTx(ctx, tx)
		for _, v := range existing {
			done = append(done, v.Version)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var pending []int
	for _, v := range m.AllVersions() {
		if !slices.Contains(done, v.Version) {
			pending = append(pending, v.Version)
		}
	}
	return pending, nil
}

// applyRiver brings River's schema up to date.
func applyRiver(ctx context.Context, db DB) error {
	m, err := riverMigrator(ctx, db)
	if err != nil {
		return err
	}
	pending, err := riverPending(ctx, db, m)
	if err != nil || len(pending) == 0 {
		return err
	}
	for _, v := range pending {
		if err := applyRiverVersion(ctx, db, m, v); err != nil {
			return fmt.Errorf("version %03d: %w", v, err)
		}
	}
	return nil
}

// applyRiverVersion applies River's versions up to v, under the lock, in
// one transaction; another process may have applied them already, in
// which case it does nothing.
func applyRiverVersion(ctx context.Context, db DB, m *rivermigrate.Migrator[pgx.Tx], v int) (err error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err := tx.Exec(ctx, lockSQL); err != nil {
		return err
	}
	// Taking a relation lock makes this backend apply the catalog
	// invalidations of the transactions it waited for; River checks for its
	// tables with to_regclass, which takes none and would otherwise miss a
	// table another process created meanwhile.
	if _, err := tx.Exec(ctx, createTableSQL); err != nil {
		return err
	}
	// MigrateTx applies every pending version up to v in tx; called once
	// per version, it applies one version per transaction, which is what
	// River's own Migrate does (MigrateTx is deprecated only for applying
	// several versions in one transaction).
	if _, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{TargetVersion: v}); err != nil { //nolint:staticcheck // one version per transaction, see above
		return err
	}
	return tx.Commit(ctx)
}
