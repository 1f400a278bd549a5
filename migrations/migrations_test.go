package migrations_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/migrations"
)

func TestApplyTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := pgtest.EmptyPool(t)

	pending, err := migrations.Pending(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) == 0 || pending[0] != 1 {
		t.Fatalf("Pending on an empty schema = %v, want every migration from 1", pending)
	}
	applied, err := migrations.Apply(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(applied, pending) {
		t.Fatalf("Apply = %v, want the pending %v", applied, pending)
	}
	again, err := migrations.Apply(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 0 {
		t.Fatalf("second Apply = %v, want nothing", again)
	}
	if pending, err = migrations.Pending(ctx, pool); err != nil || len(pending) != 0 {
		t.Fatalf("Pending after Apply = %v, %v; want none", pending, err)
	}
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != len(applied) {
		t.Fatalf("schema_migrations holds %d rows, want %d", rows, len(applied))
	}
}

func TestApplyConcurrently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := pgtest.EmptyPool(t)
	want, err := migrations.Pending(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}

	const n = 8
	var wg sync.WaitGroup
	results := make([][]int, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { results[i], errs[i] = migrations.Apply(ctx, pool) })
	}
	wg.Wait()

	var all []int
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Apply %d: %v", i, errs[i])
		}
		all = append(all, results[i]...)
	}
	slices.Sort(all)
	if !slices.Equal(all, want) {
		t.Fatalf("concurrent Applys applied %v together, want each of %v exactly once", all, want)
	}
}

// TestSchemaIsolated checks that migrations land in the first schema of
// search_path: a sibling test schema does not see this one's tables.
func TestSchemaIsolated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	migrated := pgtest.Pool(t)
	empty, schema := pgtest.EmptyPool(t)

	pending, err := migrations.Pending(ctx, empty)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) == 0 {
		t.Fatalf("schema %s sees another schema's migrations", schema)
	}
	var where string
	err = migrated.QueryRow(ctx, `SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = 'documents'::regclass`).Scan(&where)
	if err != nil {
		t.Fatal(err)
	}
	if where == "public" || where == schema {
		t.Fatalf("documents created in %s, want the migrated pool's own schema", where)
	}
}

func TestPendingUpToDate(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	pending, err := migrations.Pending(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 0 {
		t.Fatalf("Pending on a migrated schema = %v", pending)
	}
}
