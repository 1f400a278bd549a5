// Package pgtest gives integration tests a Postgres pool of their own: a
// fresh, migrated schema per call, dropped when the test ends, so tests that
// use it can run with t.Parallel().
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/ledgerline/research/migrations"
)

// URL returns the DATABASE_URL integration tests connect to. When it is
// unset the test is skipped, or fails under CI (CI non-empty), where a
// missing database must not pass silently.
func URL(t testing.TB) string {
	t.Helper()
	url := os.Getenv("DATABASE_URL")
	if url != "" {
		return url
	}
	if os.Getenv("CI") != "" {
		t.Fatal("DATABASE_URL is not set; integration tests need Postgres with pgvector (see scripts/setup-postgres.sh)")
	}
	t.Skip("integration test: set DATABASE_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable (and run scripts/setup-postgres.sh) to run it")
	return ""
}

// Pool returns a pool on a new schema t_<random>, with the migrations
// applied. Its connections use search_path=<schema>,public and know the
// pgvector types. The schema is dropped and the pool closed when the test
// ends.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	p, _ := newPool(t, true)
	return p
}

// EmptyPool is Pool without the migrations, for testing them; it also
// returns the schema's name.
func EmptyPool(t testing.TB) (pool *pgxpool.Pool, schema string) {
	t.Helper()
	return newPool(t, false)
}

func newPool(t testing.TB, migrate bool) (*pgxpool.Pool, string) {
	t.Helper()
	url := URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	schema := "t_" + randomHex(8)
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("pgtest: connect to DATABASE_URL: %v", err)
	}
	defer admin.Close(ctx)
	if err := ensureVector(ctx, admin); err != nil {
		t.Fatalf("pgtest: %v (run scripts/setup-postgres.sh)", err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() { dropSchema(t, url, schema) })

	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatalf("pgtest: parse DATABASE_URL: %v", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema + ",public"
	cfg.AfterConnect = pgxvec.RegisterTypes
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("pgtest: open pool: %v", err)
	}
	t.Cleanup(p.Close) // runs before dropSchema: cleanups run last-in first-out
	if migrate {
		if _, err := migrations.Apply(ctx, p); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	return p, schema
}

// ensureVector creates the vector extension once per database, under a
// lock: concurrent CREATE EXTENSION IF NOT EXISTS from tests migrating their
// own schemas would otherwise collide on the catalog's unique index.
func ensureVector(ctx context.Context, conn *pgx.Conn) error {
	var present bool
	err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')`).Scan(&present)
	if err != nil || present {
		return err
	}
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('ledgerline/research pgtest vector'))`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector SCHEMA public`)
		return err
	})
}

func dropSchema(t testing.TB, url, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Errorf("pgtest: drop schema %s: %v", schema, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		t.Errorf("pgtest: drop schema %s: %v", schema, err)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// SchemaURL returns the test database's URL with search_path set to schema
// and public, for code under test that opens its own connections (the
// command line, worker processes).
func SchemaURL(t testing.TB, schema string) string {
	t.Helper()
	u, err := url.Parse(URL(t))
	if err != nil {
		t.Fatalf("DATABASE_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}
