package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/pgtx"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// ErrNotFound is a batch the tenant does not hold.
var ErrNotFound = errors.New("jobs: no such batch")

// Batch is a submitted batch.
type Batch struct {
	ID       string
	Tenant   string
	Source   string // the file, as the submitter named it
	Lines    int    // questions read: accepted and rejected
	Rejected int    // lines refused at submission
	Items    []BatchItem
}

// BatchItem is one accepted line of a batch and the run it names.
type BatchItem struct {
	Line   int
	RunID  string
	Reused bool // its idempotency key named a run submitted before; nothing new was enqueued
}

// NewBatchID returns a fresh batch id: "batch-", the UTC date and time,
// and 8 random hex digits.
func NewBatchID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "batch-" + now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

const insertBatchSQL = `INSERT INTO batches (tenant_id, id, source, lines, rejected) VALUES ($1, $2, $3, $4, $5)`

const insertBatchItemsSQL = `
INSERT INTO batch_items (tenant_id, batch_id, line, run_id, idempotency_key, question, reused)
SELECT $1, $2, i.line, i.run_id, nullif(i.key, ''), i.question, i.reused
FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::bool[]) AS i(line, run_id, key, question, reused)`

// SubmitBatch records a batch of tenant's questions and enqueues a run for
// each line, all in one transaction: the batch is queued whole or not at
// all. source names the file and rejected counts the lines refused before
// (ParseBatch's LineErrors), for the batch's status. A line whose
// idempotency key the tenant submitted before names that run and enqueues
// nothing. A line the executor would refuse is a *LineError wrapping an
// *executor.RequestError, and nothing is recorded.
func SubmitBatch(ctx context.Context, pool *pgxpool.Pool, tenant, source string, lines []BatchLine, rejected int) (*Batch, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, errors.New("jobs: the batch holds no question")
	}
	if len(lines) > MaxBatchLines {
		return nil, fmt.Errorf("jobs: %d questions; a batch holds at most %d", len(lines), MaxBatchLines)
	}
	if rejected < 0 {
		return nil, fmt.Errorf("jobs: %d rejected lines is negative", rejected)
	}
	subs := make([]Submission, len(lines))
	for i, l := range lines {
		if l.Line <= 0 {
			return nil, fmt.Errorf("jobs: line number %d: want 1 or more", l.Line)
		}
		if err := l.check(); err != nil {
			return nil, &LineError{l.Line, err}
		}
		subs[i] = l.Submission
	}
	q, err := newQueue(ctx, pool, tenant)
	if err != nil {
		return nil, err
	}
	b := &Batch{ID: NewBatchID(q.now()), Tenant: tenant, Source: source, Lines: len(lines) + rejected, Rejected: rejected}
	err = pgtx.WithTx(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, insertBatchSQL, tenant, b.ID, source, b.Lines, rejected); err != nil {
			return fmt.Errorf("jobs: record the batch: %w", err)
		}
		out, err := q.enqueue(ctx, tx, b.ID, subs)
		if err != nil {
			return err
		}
		n := len(lines)
		nums, runs, keys, questions, reused := make([]int32, n), make([]string, n), make([]string, n), make([]string, n), make([]bool, n)
		b.Items = make([]BatchItem, n)
		for i, l := range lines {
			nums[i], runs[i], keys[i], questions[i], reused[i] = int32(l.Line), out[i].runID, l.IdempotencyKey, l.Question, out[i].reused
			b.Items[i] = BatchItem{Line: l.Line, RunID: out[i].runID, Reused: out[i].reused}
		}
		if _, err := tx.Exec(ctx, insertBatchItemsSQL, tenant, b.ID, nums, runs, keys, questions, reused); err != nil {
			return fmt.Errorf("jobs: record the batch's lines: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// StatusQueued is the status of a run whose job has not been attempted
// yet; the others are the ledger's run statuses.
const StatusQueued = "queued"

// BatchStatus is where a batch stands.
type BatchStatus struct {
	ID       string
	Source   string
	Created  time.Time
	Lines    int // questions read
	Rejected int // lines refused at submission
	Runs     int // distinct runs the accepted lines name
	// Jobs counts runs by the state of their River job: available,
	// scheduled, running, retryable, completed, cancelled, discarded; and
	// "finished" for a job River has since deleted (after its retention
	// period).
	Jobs map[string]int
	// Statuses counts runs by status: queued, running, or the verdict
	// (supported, partial, ..., failed) of a run that will not run again.
	Statuses map[string]int
	Done     int             // runs that will not run again
	SpendUSD decimal.Decimal // settled by the batch's runs so far
	HeldUSD  decimal.Decimal // reserved by calls in flight
}

const batchSQL = `SELECT source, lines, rejected, created_at FROM batches WHERE tenant_id = $1 AND id = $2`

// batchRunsSQL lists a batch's lines, in order, with each run's state.
// River's job row is reached through the tenant's own submission.
const batchRunsSQL = `
SELECT bi.line, bi.run_id, r.question, r.mode, r.status,
	j.state::text, coalesce(j.attempt, 0), coalesce(j.errors[array_upper(j.errors, 1)]->>'error', ''),
	coalesce(b.settled_spend_usd, 0), coalesce(b.reserved_spend_usd, 0)
FROM batch_items bi
JOIN runs r ON r.tenant_id = bi.tenant_id AND r.id = bi.run_id
JOIN run_submissions s ON s.tenant_id = bi.tenant_id AND s.run_id = bi.run_id
LEFT JOIN river_job j ON j.id = s.job_id
LEFT JOIN budgets b ON b.tenant_id = bi.tenant_id AND b.scope_kind = 'run' AND b.scope_id = bi.run_id
WHERE bi.tenant_id = $1 AND bi.batch_id = $2
ORDER BY bi.line`

// batchRun is one line of a batch with its run's state.
type batchRun struct {
	line                int
	runID, question     string
	mode, runStatus     string
	jobState            *string
	attempt             int
	lastError           string
	settledUSD, heldUSD decimal.Decimal
}

// status is the run's status as a batch reports it: queued or running
// while its job will still run (a "failed" status recorded by an attempt
// that will be retried is not the end), else the status recorded, failed
// when its job was given up before any verdict.
func (r *batchRun) status() string {
	if r.jobState == nil {
		return r.runStatus
	}
	switch *r.jobState {
	case "available", "scheduled", "pending", "retryable":
		if r.attempt == 0 {
			return StatusQueued
		}
		return string(ledger.StatusRunning)
	case "running":
		return string(ledger.StatusRunning)
	case "cancelled", "discarded":
		if ledger.RunStatus(r.runStatus).Terminal() {
			return r.runStatus
		}
		return string(ledger.StatusFailed)
	}
	return r.runStatus
}

// done reports whether the run will not run again.
func (r *batchRun) done() bool { return ledger.RunStatus(r.status()).Terminal() }

func (r *batchRun) job() string {
	if r.jobState == nil {
		return "finished"
	}
	return *r.jobState
}

// loadBatch reads the batch's row and its lines.
func loadBatch(ctx context.Context, pool *pgxpool.Pool, tenant, batchID string) (*BatchStatus, []batchRun, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, nil, err
	}
	if !ledger.ValidName(batchID) {
		return nil, nil, fmt.Errorf("%w: %q", ErrNotFound, batchID)
	}
	st := &BatchStatus{ID: batchID, Jobs: map[string]int{}, Statuses: map[string]int{}}
	var runs []batchRun
	err := pgtx.WithTx(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, batchSQL, tenant, batchID).Scan(&st.Source, &st.Lines, &st.Rejected, &st.Created)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: %s", ErrNotFound, batchID)
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, batchRunsSQL, tenant, batchID)
		if err != nil {
			return err
		}
		runs, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (batchRun, error) {
			var r batchRun
			err := row.Scan(&r.line, &r.runID, &r.question, &r.mode, &r.runStatus, &r.jobState, &r.attempt, &r.lastError, &r.settledUSD, &r.heldUSD)
			return r, err
		})
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("jobs: batch %s: %w", batchID, err)
	}
	st.Created = st.Created.UTC()
	return st, runs, nil
}

// GetBatchStatus returns where tenant's batch stands: its runs counted by
// job state and by status, and what they have spent. A batch of another
// tenant, or none, is ErrNotFound.
func GetBatchStatus(ctx context.Context, pool *pgxpool.Pool, tenant, batchID string) (*BatchStatus, error) {
	st, runs, err := loadBatch(ctx, pool, tenant, batchID)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range runs {
		r := &runs[i]
		if seen[r.runID] {
			continue // two lines with one idempotency key name one run
		}
		seen[r.runID] = true
		st.Runs++
		st.Jobs[r.job()]++
		st.Statuses[r.status()]++
		if r.done() {
			st.Done++
		}
		st.SpendUSD = st.SpendUSD.Add(r.settledUSD)
		st.HeldUSD = st.HeldUSD.Add(r.heldUSD)
	}
	return st, nil
}

// BatchResult is one accepted line of a batch and how its run stands.
type BatchResult struct {
	Line      int
	RunID     string
	Question  string
	Mode      string
	Status    string // as BatchStatus.Statuses counts it
	JobState  string // as BatchStatus.Jobs counts it
	Attempt   int    // attempts River has made
	LastError string // the last failed attempt's error, if any
	// Result is the run's recorded result; nil until the run has one.
	Result *executor.Result
}

// MarshalJSON writes the run's result (executor.Result's JSON, as
// `research ask --format json` prints it) with the batch line, or, for a
// run without a result yet, its line, run id, question, mode, status and
// job.
func (r BatchResult) MarshalJSON() ([]byte, error) {
	if r.Result != nil {
		return json.Marshal(struct {
			Line int `json:"line"`
			*executor.Result
		}{r.Line, r.Result})
	}
	return json.Marshal(struct {
		Line      int    `json:"line"`
		RunID     string `json:"run_id"`
		Status    string `json:"status"`
		Mode      string `json:"mode"`
		Question  string `json:"question"`
		JobState  string `json:"job_state"`
		Attempt   int    `json:"attempt"`
		LastError string `json:"last_error,omitempty"`
	}{r.Line, r.RunID, r.Status, r.Mode, r.Question, r.JobState, r.Attempt, r.LastError})
}

// BatchResults returns tenant's batch line by line, in the order
// submitted: each run's recorded result, or its status while it has none.
// A batch of another tenant, or none, is ErrNotFound.
func BatchResults(ctx context.Context, pool *pgxpool.Pool, tenant, batchID string) ([]BatchResult, error) {
	_, runs, err := loadBatch(ctx, pool, tenant, batchID)
	if err != nil {
		return nil, err
	}
	led, err := pgledger.New(pool, &pgledger.Config{Tenant: tenant})
	if err != nil {
		return nil, err
	}
	out := make([]BatchResult, len(runs))
	for i := range runs {
		r := &runs[i]
		out[i] = BatchResult{
			Line: r.line, RunID: r.runID, Question: r.question, Mode: r.mode,
			Status: r.status(), JobState: r.job(), Attempt: r.attempt, LastError: r.lastError,
		}
		if !r.done() {
			continue
		}
		res, ok, err := executor.RecordedResult(ctx, led, r.runID)
		if err != nil {
			return nil, fmt.Errorf("jobs: the result of run %s: %w", r.runID, err)
		}
		if ok {
			out[i].Result = res
		}
	}
	return out, nil
}
