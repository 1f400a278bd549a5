package migrations

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
)

//go:embed sql/*.sql
var files embed.FS

// all is every embedded migration in version order. Loading panics on a
// malformed file name or a duplicate version: both are programmer errors.
var all = mustLoad(files, "sql")

// DB is what Apply and Pending need; *pgxpool.Pool and *pgx.Conn satisfy it.
type DB interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

type migration struct {
	version int
	name    string // file name without version and extension: "corpus"
	sql     string
}

var fileName = regexp.MustCompile(`^(\d+)_([a-z0-9_]+)\.sql$`)

func load(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var ms []migration
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migrations: %s: want a name like 0001_name.sql", e.Name())
		}
		version, err := strconv.Atoi(m[1])
		if err != nil || version <= 0 {
			return nil, fmt.Errorf("migrations: %s: version must be a positive integer", e.Name())
		}
		if prev, ok := seen[version]; ok {
			return nil, fmt.Errorf("migrations: %s and %s share version %d", prev, e.Name(), version)
		}
		seen[version] = e.Name()
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: version, name: m[2], sql: string(b)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	return ms, nil
}

func mustLoad(fsys fs.FS, dir string) []migration {
	ms, err := load(fsys, dir)
	if err != nil {
		panic(err)
	}
	return ms
}

// Migrations run under a transaction-level advisory lock keyed on the
// current schema, so processes migrating the same schema queue up while
// tests migrating their own schemas run side by side.
const lockSQL = `SELECT pg_advisory_xact_lock(hashtext('ledgerline/research migrations'), hashtext(current_schema()))`

const createTableSQL = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    int PRIMARY KEY,
	name       text NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`

const appliedSQL = `SELECT version FROM schema_migrations ORDER BY version`

const isAppliedSQL = `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`

const recordSQL = `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`

// tableExistsSQL looks in the current schema only: a schema_migrations table
// further down search_path (in public, say) belongs to another schema.
const tableExistsSQL = `SELECT EXISTS (
	SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'schema_migrations'
)`

// Apply applies the pending migrations in version order and returns the
// versions it applied, none when the schema is up to date. Each migration
// runs in its own transaction with its schema_migrations row; on error the
// failing migration leaves no trace and the ones before it stay applied.
// River's job queue migrations follow (see RiverPending); their versions
// are River's own and are not among those returned.
//
// The lock is per schema. The vector extension is per database, so on a
// fresh database, migrate one schema (or create the extension) before
// migrating several schemas at once.
func Apply(ctx context.Context, db DB) (applied []int, err error) {
	pending, err := Pending(ctx, db)
	if err != nil {
		return nil, err
	}
	for _, m := range all {
		if !slices.Contains(pending, m.version) {
			continue
		}
		ok, err := apply(ctx, db, m)
		if err != nil {
			return applied, fmt.Errorf("migrations: %04d_%s: %w", m.version, m.name, err)
		}
		if ok {
			applied = append(applied, m.version)
		}
	}
	if err := applyRiver(ctx, db); err != nil {
		return applied, fmt.Errorf("migrations: river job queue: %w", err)
	}
	return applied, nil
}

// apply runs one migration unless another process applied it first.
func apply(ctx context.Context, db DB, m migration) (applied bool, err error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err := tx.Exec(ctx, lockSQL); err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, createTableSQL); err != nil {
		return false, err
	}
	var done bool
	if err := tx.QueryRow(ctx, isAppliedSQL, m.version).Scan(&done); err != nil {
		return false, err
	}
	if done {
		return false, tx.Rollback(ctx)
	}
	if _, err := tx.Exec(ctx, m.sql); err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, recordSQL, m.version, m.name); err != nil {
		return false, err
	}
	return true, tx.Commit(ctx)
}

// Pending returns the versions of the embedded migrations not yet applied to
// the first schema of search_path, in order; none when it is up to date.
func Pending(ctx context.Context, db DB) ([]int, error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var exists bool
	if err := tx.QueryRow(ctx, tableExistsSQL).Scan(&exists); err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	var done []int
	if exists {
		rows, err := tx.Query(ctx, appliedSQL)
		if err != nil {
			return nil, fmt.Errorf("migrations: %w", err)
		}
		done, err = pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return nil, fmt.Errorf("migrations: %w", err)
		}
	}
	var pending []int
	for _, m := range all {
		if !slices.Contains(done, m.version) {
			pending = append(pending, m.version)
		}
	}
	return pending, nil
}
