package migrations_test

import (
	"context"
	"testing"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/migrations"
)

// Apply creates River's job queue in the schema being migrated, with the
// project's tables, and applies nothing of it twice.
func TestApplyCreatesRiverSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, schema := pgtest.EmptyPool(t)
	pending, err := migrations.RiverPending(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) == 0 || pending[0] != 1 {
		t.Fatalf("RiverPending on an empty schema = %v; want every River version from 1", pending)
	}
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if pending, err := migrations.RiverPending(ctx, pool); err != nil || len(pending) != 0 {
		t.Fatalf("RiverPending after Apply = %v, %v; want none", pending, err)
	}
	for _, table := range []string{"river_job", "river_leader", "river_queue", "river_migration"} {
		var found bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, schema+"."+table).Scan(&found); err != nil {
			t.Fatal(err)
		}
		if !found {
			t.Errorf("%s.%s missing after Apply", schema, table)
		}
	}
	var versions int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_migration`).Scan(&versions); err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var again int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_migration`).Scan(&again); err != nil {
		t.Fatal(err)
	}
	if again != versions || versions == 0 {
		t.Errorf("river_migration holds %d versions after a second Apply, %d after the first", again, versions)
	}
}
