package pgtest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pgvector/pgvector-go"

	"github.com/ledgerline/research/internal/pgtest"
)

func TestPool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var schema string
	t.Run("use", func(t *testing.T) {
		pool := pgtest.Pool(t)
		var searchPath string
		if err := pool.QueryRow(ctx, `SELECT current_schema(), current_setting('search_path')`).Scan(&schema, &searchPath); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(schema, "t_") || strings.ReplaceAll(searchPath, " ", "") != schema+",public" {
			t.Fatalf("schema %q, search_path %q; want t_<random> first, then public", schema, searchPath)
		}
		// Migrated, and the vector type resolves and is registered.
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE embedding <=> $1::vector < 2`, pgvector.NewVector(make([]float32, 384))).Scan(&n); err != nil {
			t.Fatal(err)
		}
	})
	if t.Failed() {
		return
	}
	// The schema is gone once the subtest has ended.
	other := pgtest.Pool(t)
	var exists bool
	if err := other.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Fatalf("schema %s outlived its test", schema)
	}
}
