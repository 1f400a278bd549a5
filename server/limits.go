package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
)

// LimitError is a request refused because a limit is reached; it becomes a
// 429 with Retry-After.
type LimitError struct {
	Limit      string        // "rate", "daily_runs", "daily_spend", "concurrent_runs", "streams" or "bad_keys"
	RetryAfter time.Duration // when trying again may succeed
	Message    string        // what the client reads
}

// Error names the limit and says what the client reads.
func (e *LimitError) Error() string { return "server: limit " + e.Limit + ": " + e.Message }

// retryAfterSeconds is RetryAfter in whole seconds, at least 1.
func (e *LimitError) retryAfterSeconds() int64 {
	s := int64(math.Ceil(e.RetryAfter.Seconds()))
	return max(s, 1)
}

// principal is who a request acts for: the key's tenant with its limits.
type principal struct {
	tenant  Tenant
	keyHash []byte
	prefix  string
}

// errBadKey is an API key no tenant holds, or one that was revoked.
var errBadKey = errors.New("server: API key not valid")

// rateWindow is the window of the per-key request rate.
const rateWindow = time.Minute

const lockKeySQL = `
SELECT k.prefix, k.revoked_at IS NOT NULL, ` + tenantColumnsT + `
FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
WHERE k.key_hash = $1
FOR UPDATE OF k`

// tenantColumnsT is tenantColumns qualified by the alias t.
const tenantColumnsT = `t.id, t.name, t.created_at, t.requests_per_minute, t.daily_runs, t.daily_spend_usd,
	t.max_concurrent_runs, t.max_run_spend_usd, t.max_run_seconds, t.max_run_calls`

// rateSQL drops the key's requests that left the window, counts those in
// it and logs this one if the count is below the limit ($3). It returns the
// count before this request and how long until the oldest request in the
// window leaves it. statement_timestamp() is taken after the key's row lock
// was granted, so a request that waited for the lock is timed when it is
// admitted.
const rateSQL = `
WITH gone AS (
	DELETE FROM api_requests
	WHERE tenant_id = $1 AND key_hash = $2 AND at <= statement_timestamp() - make_interval(secs => $4)
), win AS (
	SELECT count(*) AS n, min(at) AS first FROM api_requests
	WHERE tenant_id = $1 AND key_hash = $2 AND at > statement_timestamp() - make_interval(secs => $4)
), ins AS (
	INSERT INTO api_requests (tenant_id, key_hash, at)
	SELECT $1, $2, statement_timestamp() FROM win WHERE n < $3
)
SELECT n, coalesce(extract(epoch FROM first + make_interval(secs => $4) - statement_timestamp()), 0)::float8 FROM win`

// authenticate finds the tenant of key and admits the request under the
// key's rate limit, in one transaction that holds the key's row, so that
// concurrent requests with one key are counted one after another in every
// server process.
func (s *Server) authenticate(ctx context.Context, key string) (principal, error) {
	if !wellFormedKey(key) {
		return principal{}, errBadKey
	}
	hash := HashKey(key)
	var p principal
	var limitErr *LimitError
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		row := tx.QueryRow(ctx, lockKeySQL, hash[:])
		var revoked bool
		var secs int64
		t := &p.tenant
		err := row.Scan(&p.prefix, &revoked, &t.ID, &t.Name, &t.Created, &t.Limits.RequestsPerMinute, &t.Limits.DailyRuns,
			&t.Limits.DailySpendUSD, &t.Limits.MaxConcurrentRuns, &t.Limits.MaxRunSpendUSD, &secs, &t.Limits.MaxRunCalls)
		if errors.Is(err, pgx.ErrNoRows) {
			return errBadKey
		}
		if err != nil {
			return err
		}
		if revoked {
			return errBadKey
		}
		t.Limits.MaxRunDuration = time.Duration(secs) * time.Second
		p.keyHash = hash[:]
		var n int64
		var wait float64
		if err := tx.QueryRow(ctx, rateSQL, t.ID, hash[:], t.Limits.RequestsPerMinute, rateWindow.Seconds()).Scan(&n, &wait); err != nil {
			return err
		}
		if n >= int64(t.Limits.RequestsPerMinute) {
			limitErr = &LimitError{
				Limit:      "rate",
				RetryAfter: time.Duration(wait * float64(time.Second)),
				Message:    fmt.Sprintf("rate limit: this key may make %d requests a minute; retry after the Retry-After seconds", t.Limits.RequestsPerMinute),
			}
		}
		return nil
	})
	if err != nil {
		return principal{}, err
	}
	if limitErr != nil {
		return p, limitErr
	}
	return p, nil
}

// admission is a run admitted under the tenant's limits.
type admission struct {
	id    string // the admission's id: the idempotency key, or a random one
	day   string // UTC date it counts against
	mode  string // the mode admitted: for a key admitted before, that admission's
	runID string // set when the key was admitted and queued before
	// pending is set when the key was admitted before but its run was not
	// recorded: that submission is under way, or it stopped half way. The
	// queue's own idempotency makes submitting again safe either way.
	pending bool
}

const lockTenantSQL = `SELECT daily_runs, max_concurrent_runs FROM tenants WHERE id = $1 FOR UPDATE`

// PendingAdmissionTTL bounds how long an admission whose run was never
// queued holds its place: a server that died between admitting a run and
// queueing it (which takes at most 30 seconds) gives back the tenant's
// concurrency slot and its place in the day's count this long after the
// admission. A client that retries with the same idempotency key later is
// admitted again, and the queue returns the run if it was queued after all.
const PendingAdmissionTTL = 2 * time.Minute

// reclaimAdmissionsSQL, run under the tenant's row lock, drops the
// tenant's admissions that never got their run within $2 seconds.
const reclaimAdmissionsSQL = `
DELETE FROM run_admissions
WHERE tenant_id = $1 AND run_id IS NULL AND created_at < now() - make_interval(secs => $2)`

// admitSQL, run under the tenant's row lock, finds an earlier admission of
// the idempotency key ($2), counts the tenant's runs of the day ($3) and
// those not finished, and records the admission when there is no earlier
// one and both counts are below their limits ($5 a day, $6 at once).
//
// A run counts as not finished while it is being submitted (no run id
// yet; reclaimAdmissionsSQL drops those older than PendingAdmissionTTL
// first), queued or running: jobs.Submit records the ledger run, whose
// finish time stays NULL until its verdict. An admission older than a day
// no longer counts, so a run whose job was lost cannot hold a slot for
// ever.
const admitSQL = `
WITH prior AS (
	SELECT run_id, mode FROM run_admissions WHERE tenant_id = $1 AND id = $2
), daily AS (
	SELECT count(*) AS n FROM run_admissions WHERE tenant_id = $1 AND day = $3
), active AS (
	SELECT count(*) AS n FROM run_admissions a
	LEFT JOIN runs r ON r.tenant_id = a.tenant_id AND r.id = a.run_id
	WHERE a.tenant_id = $1 AND a.created_at > now() - interval '1 day'
		AND (r.id IS NULL OR r.finished_at IS NULL)
), ins AS (
	INSERT INTO run_admissions (tenant_id, id, day, mode)
	SELECT $1, $2, $3, $4
	WHERE NOT EXISTS (SELECT 1 FROM prior) AND (SELECT n FROM daily) < $5 AND (SELECT n FROM active) < $6
	RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM prior), (SELECT run_id FROM prior), (SELECT mode FROM prior), (SELECT n FROM daily), (SELECT n FROM active),
	EXISTS (SELECT 1 FROM ins)`

// recordAdmissionSQL ties an admission to its run, recording the
// admission again if a failed submission of the same key gave it back
// meanwhile.
const recordAdmissionSQL = `
INSERT INTO run_admissions (tenant_id, id, day, mode, run_id) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (tenant_id, id) DO UPDATE SET run_id = EXCLUDED.run_id`

const deleteAdmissionSQL = `DELETE FROM run_admissions WHERE tenant_id = $1 AND id = $2 AND run_id IS NULL`

// admit admits one run of the tenant under its daily cap, its concurrent
// runs and, for model mode, its daily spend budget. The tenant's row is
// locked while the counts are taken and the admission recorded, so
// concurrent submissions in any server are admitted one at a time. With an
// idempotency key already admitted it returns that admission, with its run
// or pending.
func (s *Server) admit(ctx context.Context, p principal, mode, idemKey string) (admission, error) {
	now := s.now().UTC()
	day := now.Format(time.DateOnly)
	tenant := p.tenant.ID
	if mode == "model" {
		if err := s.checkDailySpend(ctx, tenant, p.tenant.Limits.DailySpendUSD, now); err != nil {
			return admission{}, err
		}
	}
	a := admission{id: idemKey, day: day, mode: mode}
	if a.id == "" {
		var b [12]byte
		_, _ = rand.Read(b[:])
		a.id = "adm-" + hex.EncodeToString(b[:])
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var daily, concurrent int
		if err := tx.QueryRow(ctx, lockTenantSQL, tenant).Scan(&daily, &concurrent); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, reclaimAdmissionsSQL, tenant, PendingAdmissionTTL.Seconds()); err != nil {
			return err
		}
		var (
			prior, inserted bool
			priorRun        *string
			priorMode       *string
			today, active   int
		)
		if err := tx.QueryRow(ctx, admitSQL, tenant, a.id, day, mode, daily, concurrent).Scan(&prior, &priorRun, &priorMode, &today, &active, &inserted); err != nil {
			return err
		}
		switch {
		case prior && priorRun != nil:
			a.runID = *priorRun
			if priorMode != nil {
				a.mode = *priorMode
			}
		case prior:
			a.pending = true
		case today >= daily:
			return &LimitError{
				Limit:      "daily_runs",
				RetryAfter: nextUTCDay(now).Sub(now),
				Message:    fmt.Sprintf("daily limit: this tenant may start %d runs a day (UTC) and has started %d; retry tomorrow", daily, today),
			}
		case active >= concurrent:
			return &LimitError{
				Limit:      "concurrent_runs",
				RetryAfter: s.cfg.ConcurrentRetryAfter,
				Message:    fmt.Sprintf("concurrency limit: this tenant may have %d runs queued or running at once; retry when one finishes", concurrent),
			}
		case !inserted:
			return errors.New("server: the admission was not recorded")
		}
		return nil
	})
	return a, err
}

// checkDailySpend refuses a run when the tenant's budget for the day has no
// money left. A day without a budget yet (no run has started) has spent
// nothing of limit.
func (s *Server) checkDailySpend(ctx context.Context, tenant string, limit decimal.Decimal, now time.Time) error {
	acct, err := s.budgetsOf(tenant)
	if err != nil {
		return err
	}
	left := limit
	u, err := acct.Usage(ctx, budget.DayScope(now))
	switch {
	case err == nil:
		rem, limited := u.Remaining(budget.SpendUSD)
		if !limited {
			return nil
		}
		left = rem
	case !errors.Is(err, budget.ErrNoBudget):
		return err
	}
	if !left.IsPositive() {
		return &LimitError{
			Limit:      "daily_spend",
			RetryAfter: nextUTCDay(now).Sub(now),
			Message:    "daily spend limit: this tenant's model spend for the day (UTC) is used up; rules and baseline runs still work",
		}
	}
	return nil
}

// recordAdmission ties an admission to the run it queued.
func (s *Server) recordAdmission(ctx context.Context, tenant string, a admission, runID string) error {
	_, err := s.pool.Exec(ctx, recordAdmissionSQL, tenant, a.id, a.day, a.mode, runID)
	return err
}

// dropAdmission gives back an admission whose run could not be queued.
func (s *Server) dropAdmission(ctx context.Context, tenant, id string) error {
	_, err := s.pool.Exec(ctx, deleteAdmissionSQL, tenant, id)
	return err
}

// nextUTCDay is the start of the UTC day after t.
func nextUTCDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}
