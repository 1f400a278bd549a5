package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"
)

// TenantLimits are what the API allows a tenant.
type TenantLimits struct {
	RequestsPerMinute int             // per API key, over a sliding minute; default 10
	DailyRuns         int             // runs admitted per UTC day; default 50
	DailySpendUSD     decimal.Decimal // spend of all the tenant's runs per UTC day; default 5
	MaxConcurrentRuns int             // runs queued or running at once; default 4
	MaxRunSpendUSD    decimal.Decimal // the most one run may spend; default 0.50
	MaxRunDuration    time.Duration   // the longest wall-clock budget of one run, whole seconds; default 120s
	MaxRunCalls       int             // the most model and tool calls of one run; default 200
}

// DefaultTenantLimits are the limits of a tenant created without any.
func DefaultTenantLimits() TenantLimits {
	return TenantLimits{
		RequestsPerMinute: 10,
		DailyRuns:         50,
		DailySpendUSD:     decimal.NewFromInt(5),
		MaxConcurrentRuns: 4,
		MaxRunSpendUSD:    decimal.RequireFromString("0.50"),
		MaxRunDuration:    120 * time.Second,
		MaxRunCalls:       200,
	}
}

// validate names the first field out of range.
func (l TenantLimits) validate() error {
	switch {
	case l.RequestsPerMinute <= 0:
		return fmt.Errorf("requests per minute %d: want at least 1", l.RequestsPerMinute)
	case l.DailyRuns < 0:
		return fmt.Errorf("daily runs %d: want 0 or more", l.DailyRuns)
	case l.DailySpendUSD.IsNegative():
		return fmt.Errorf("daily spend %s USD: want 0 or more", l.DailySpendUSD)
	case l.MaxConcurrentRuns <= 0:
		return fmt.Errorf("max concurrent runs %d: want at least 1", l.MaxConcurrentRuns)
	case l.MaxRunSpendUSD.IsNegative():
		return fmt.Errorf("max run spend %s USD: want 0 or more", l.MaxRunSpendUSD)
	case l.MaxRunDuration < time.Second || l.MaxRunDuration%time.Second != 0:
		return fmt.Errorf("max run duration %s: want whole seconds, at least 1s", l.MaxRunDuration)
	case l.MaxRunCalls <= 0:
		return fmt.Errorf("max run calls %d: want at least 1", l.MaxRunCalls)
	}
	return nil
}

// Tenant is a tenant of the API.
type Tenant struct {
	ID      string // the tenant_id of its documents, runs and budgets
	Name    string
	Created time.Time
	Limits  TenantLimits
}

// Key is an API key's record; the key itself is never stored.
type Key struct {
	Prefix  string // the key's first characters
	Tenant  string
	Created time.Time
	Revoked time.Time // zero while the key works
}

// Errors of Tenants.
var (
	// ErrTenantExists is returned by Create for a name already taken.
	ErrTenantExists = errors.New("server: a tenant of that name exists")
	// ErrTenantNotFound is returned for a tenant id the database does not hold.
	ErrTenantNotFound = errors.New("server: no such tenant")
	// ErrKeyNotFound is returned by RevokeKey for a key no tenant holds.
	ErrKeyNotFound = errors.New("server: no such API key")
)

// KeyPrefix starts every API key, so a leaked one is recognisable.
const KeyPrefix = "rk_"

// keyPrefixLen is how much of a key is kept to tell keys apart.
const keyPrefixLen = len(KeyPrefix) + 8

// Tenants creates tenants, issues and revokes their API keys and sets their
// limits, in the tables of migration 0005_tenants.
type Tenants struct {
	pool *pgxpool.Pool
}

// NewTenants returns the tenant registry over pool, whose schema must be
// migrated (package migrations).
func NewTenants(pool *pgxpool.Pool) (*Tenants, error) {
	if pool == nil {
		return nil, errors.New("server: NewTenants: nil pool")
	}
	return &Tenants{pool: pool}, nil
}

// CheckTenantName returns an error unless name may be a tenant: 1 to 64
// ASCII letters, digits, '.', '_' or '-', starting with a letter or digit.
func CheckTenantName(name string) error {
	if len(name) > 64 || !ledger.ValidName(name) {
		return fmt.Errorf("tenant name %q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

const insertTenantSQL = `
INSERT INTO tenants (id, name, requests_per_minute, daily_runs, daily_spend_usd, max_concurrent_runs,
	max_run_spend_usd, max_run_seconds, max_run_calls)
VALUES ($1, $1, $2, $3, $4, $5, $6, $7, $8)
RETURNING created_at`

const insertKeySQL = `INSERT INTO api_keys (key_hash, tenant_id, prefix) VALUES ($1, $2, $3)`

// Create registers a tenant named name (its id is the name) with limits
// (nil means DefaultTenantLimits) and issues its first API key, which is
// returned once and never again.
func (ts *Tenants) Create(ctx context.Context, name string, limits *TenantLimits) (Tenant, string, error) {
	if err := CheckTenantName(name); err != nil {
		return Tenant{}, "", err
	}
	l := DefaultTenantLimits()
	if limits != nil {
		l = *limits
	}
	if err := l.validate(); err != nil {
		return Tenant{}, "", err
	}
	key, hash, prefix, err := newKey()
	if err != nil {
		return Tenant{}, "", err
	}
	t := Tenant{ID: name, Name: name, Limits: l}
	err = pgx.BeginFunc(ctx, ts.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, insertTenantSQL, name, l.RequestsPerMinute, l.DailyRuns, l.DailySpendUSD,
			l.MaxConcurrentRuns, l.MaxRunSpendUSD, int64(l.MaxRunDuration/time.Second), l.MaxRunCalls).Scan(&t.Created)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, insertKeySQL, hash, name, prefix)
		return err
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return Tenant{}, "", fmt.Errorf("%w: %q", ErrTenantExists, name)
	}
	if err != nil {
		return Tenant{}, "", fmt.Errorf("server: create tenant %q: %w", name, err)
	}
	return t, key, nil
}

// IssueKey issues another API key for the tenant and returns it, once.
func (ts *Tenants) IssueKey(ctx context.Context, tenant string) (string, error) {
	if _, err := ts.Get(ctx, tenant); err != nil {
		return "", err
	}
	key, hash, prefix, err := newKey()
	if err != nil {
		return "", err
	}
	if _, err := ts.pool.Exec(ctx, insertKeySQL, hash, tenant, prefix); err != nil {
		return "", fmt.Errorf("server: issue a key for %q: %w", tenant, err)
	}
	return key, nil
}

const revokeKeySQL = `
UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
WHERE tenant_id = $1 AND (key_hash = $2 OR ($3 <> '' AND prefix = $3))
RETURNING prefix`

// RevokeKey revokes the tenant's key given in full or by its prefix (as
// Keys lists it); requests with it are refused from then on. Revoking a
// revoked key changes nothing.
func (ts *Tenants) RevokeKey(ctx context.Context, tenant, keyOrPrefix string) error {
	hash := HashKey(keyOrPrefix)
	prefix := keyOrPrefix
	if len(prefix) != keyPrefixLen || !strings.HasPrefix(prefix, KeyPrefix) {
		prefix = "" // only a whole key matches
	}
	rows, err := ts.pool.Query(ctx, revokeKeySQL, tenant, hash[:], prefix)
	if err != nil {
		return fmt.Errorf("server: revoke a key of %q: %w", tenant, err)
	}
	n, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("server: revoke a key of %q: %w", tenant, err)
	}
	if len(n) == 0 {
		return fmt.Errorf("%w for tenant %q", ErrKeyNotFound, tenant)
	}
	return nil
}

const keysSQL = `
SELECT prefix, tenant_id, created_at, revoked_at FROM api_keys
WHERE tenant_id = $1 ORDER BY created_at, prefix`

// Keys lists the tenant's keys, oldest first.
func (ts *Tenants) Keys(ctx context.Context, tenant string) ([]Key, error) {
	rows, err := ts.pool.Query(ctx, keysSQL, tenant)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Key, error) {
		var k Key
		var revoked *time.Time
		err := row.Scan(&k.Prefix, &k.Tenant, &k.Created, &revoked)
		if revoked != nil {
			k.Revoked = *revoked
		}
		return k, err
	})
}

const tenantColumns = `id, name, created_at, requests_per_minute, daily_runs, daily_spend_usd,
	max_concurrent_runs, max_run_spend_usd, max_run_seconds, max_run_calls`

func scanTenant(row pgx.Row) (Tenant, error) {
	var t Tenant
	var secs int64
	err := row.Scan(&t.ID, &t.Name, &t.Created, &t.Limits.RequestsPerMinute, &t.Limits.DailyRuns, &t.Limits.DailySpendUSD,
		&t.Limits.MaxConcurrentRuns, &t.Limits.MaxRunSpendUSD, &secs, &t.Limits.MaxRunCalls)
	t.Limits.MaxRunDuration = time.Duration(secs) * time.Second
	return t, err
}

// Get returns the tenant with id, or ErrTenantNotFound.
func (ts *Tenants) Get(ctx context.Context, id string) (Tenant, error) {
	t, err := scanTenant(ts.pool.QueryRow(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Tenant{}, fmt.Errorf("%w: %q", ErrTenantNotFound, id)
	}
	return t, err
}

// List returns every tenant by name.
func (ts *Tenants) List(ctx context.Context) ([]Tenant, error) {
	rows, err := ts.pool.Query(ctx, `SELECT `+tenantColumns+` FROM tenants ORDER BY name`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Tenant, error) { return scanTenant(row) })
}

const updateLimitsSQL = `
UPDATE tenants SET requests_per_minute = $2, daily_runs = $3, daily_spend_usd = $4, max_concurrent_runs = $5,
	max_run_spend_usd = $6, max_run_seconds = $7, max_run_calls = $8
WHERE id = $1`

// updateDaySpendSQL gives the tenant's days from today (UTC) on, whose
// budgets were created with the daily spend limit before, the new one.
const updateDaySpendSQL = `
UPDATE budgets SET limit_spend_usd = $2, updated_at = now()
WHERE tenant_id = $1 AND scope_kind = 'tenant_day' AND scope_id >= to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')`

// SetLimits replaces the tenant's limits; they hold from the next request
// on, in every server, and the daily spend limit holds for today's runs
// already under way too.
func (ts *Tenants) SetLimits(ctx context.Context, tenant string, l TenantLimits) error {
	if err := l.validate(); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, ts.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, updateLimitsSQL, tenant, l.RequestsPerMinute, l.DailyRuns, l.DailySpendUSD,
			l.MaxConcurrentRuns, l.MaxRunSpendUSD, int64(l.MaxRunDuration/time.Second), l.MaxRunCalls)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%w: %q", ErrTenantNotFound, tenant)
		}
		_, err = tx.Exec(ctx, updateDaySpendSQL, tenant, l.DailySpendUSD)
		return err
	})
	if errors.Is(err, ErrTenantNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("server: set the limits of %q: %w", tenant, err)
	}
	return nil
}

// cancelTenantJobsSQL cancels the tenant's runs still waiting in the
// queue: run by a worker after the tenant is gone, they would record
// under its name again.
const cancelTenantJobsSQL = `
UPDATE river_job SET state = 'cancelled', finalized_at = now()
WHERE args->>'tenant' = $1 AND state IN ('available', 'pending', 'retryable', 'scheduled')`

// Delete deletes the tenant and, with it (migration 0007), everything it
// holds: API keys, documents, runs and their ledgers, batches, budgets,
// reservations and settlements; its queued runs are cancelled. A tenant
// created later with the same name starts empty.
func (ts *Tenants) Delete(ctx context.Context, tenant string) error {
	err := pgx.BeginFunc(ctx, ts.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM tenants WHERE id = $1`, tenant)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%w: %q", ErrTenantNotFound, tenant)
		}
		_, err = tx.Exec(ctx, cancelTenantJobsSQL, tenant)
		return err
	})
	if errors.Is(err, ErrTenantNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("server: delete tenant %q: %w", tenant, err)
	}
	return nil
}

// HashKey is the SHA-256 of an API key, the only form in which keys are
// kept.
func HashKey(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// newKey returns a fresh API key: KeyPrefix and 32 random bytes in
// unpadded base64url, with its hash and its prefix.
func newKey() (key string, hash []byte, prefix string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, "", fmt.Errorf("server: generate an API key: %w", err)
	}
	key = KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	h := HashKey(key)
	return key, h[:], key[:keyPrefixLen], nil
}

// wellFormedKey reports whether s looks like a key this package issues, so
// garbage is refused without a query.
func wellFormedKey(s string) bool {
	if !strings.HasPrefix(s, KeyPrefix) || len(s) != len(KeyPrefix)+43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s[len(KeyPrefix):])
	return err == nil
}
