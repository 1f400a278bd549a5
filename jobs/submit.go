package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/pgtx"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
	"github.com/ledgerline/research/planner"
)

// Submission is one research question to run as a job.
type Submission struct {
	Question string         // executor.MinQuestion to executor.MaxQuestion characters
	Tickers  []string       // issuers to include besides those the question names
	Mode     string         // auto, rules, model or baseline; "" means auto (resolved when the run is recorded)
	Limits   *budget.Limits // the run's budget; nil means executor.DefaultLimits
	MaxCalls int            // model and tool calls in all; 0 means no cap beyond Limits
	// ModelConfigured says the workers that run the job have a model
	// (executor.Config.Model): auto mode then resolves to model mode for
	// every question it does not refuse, as the workers' engines would
	// (executor.AutoModeFor). False means the offline per-class choice.
	ModelConfigured bool
	// IdempotencyKey, when set, makes the submission safe to repeat: a key
	// the tenant submitted before returns that run's id and enqueues
	// nothing. At most MaxKeyLen bytes, no control characters.
	IdempotencyKey string
}

// MaxKeyLen bounds idempotency keys, in bytes.
const MaxKeyLen = 200

// check validates s as the executor will, so that a bad request is refused
// at submission rather than failing in a worker. Errors are
// *executor.RequestError, naming the field.
func (s *Submission) check() error {
	if n := len([]rune(strings.TrimSpace(s.Question))); n < executor.MinQuestion || n > executor.MaxQuestion {
		return &executor.RequestError{Field: "question", Problem: fmt.Sprintf("%d characters; want %d to %d", n, executor.MinQuestion, executor.MaxQuestion)}
	}
	// The database keeps no NUL and no bytes that are not UTF-8: one such
	// question would fail its whole batch with the database's message.
	if !utf8.ValidString(s.Question) || strings.ContainsFunc(s.Question, func(r rune) bool {
		return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r'
	}) {
		return &executor.RequestError{Field: "question", Problem: "holds control characters or bytes that are not UTF-8; send plain text"}
	}
	switch ledger.Mode(s.Mode) {
	case "", ledger.ModeRules, ledger.ModeModel, ledger.ModeBaseline, executor.ModeAuto:
	default:
		return &executor.RequestError{Field: "mode", Problem: fmt.Sprintf("%q is not rules, model, baseline or auto", s.Mode)}
	}
	for _, t := range s.Tickers {
		if !corpus.ValidTicker(t) {
			return &executor.RequestError{Field: "tickers", Problem: fmt.Sprintf("%q is not a ticker (upper-case letters and digits, with a share class after a dot or dash where there is one)", t)}
		}
	}
	if s.MaxCalls < 0 {
		return &executor.RequestError{Field: "max calls", Problem: fmt.Sprintf("%d is negative", s.MaxCalls)}
	}
	if l := s.Limits; l != nil {
		for _, d := range budget.Dimensions() {
			if v, ok := l.Count(d); ok && v < budget.Unlimited {
				return &executor.RequestError{Field: "limits", Problem: fmt.Sprintf("%s %d: want a count, or -1 for unlimited", d, v)}
			}
		}
		if l.WallClock < 0 {
			return &executor.RequestError{Field: "limits", Problem: fmt.Sprintf("wall clock %s is negative", l.WallClock)}
		}
	}
	return checkKey(s.IdempotencyKey)
}

func checkKey(key string) error {
	if key == "" {
		return nil
	}
	if len(key) > MaxKeyLen {
		return &executor.RequestError{Field: "idempotency key", Problem: fmt.Sprintf("%d bytes; at most %d", len(key), MaxKeyLen)}
	}
	if strings.TrimSpace(key) == "" || strings.ContainsFunc(key, unicode.IsControl) {
		return &executor.RequestError{Field: "idempotency key", Problem: "blank, or holds control characters"}
	}
	return nil
}

func checkTenant(tenant string) error {
	if !ledger.ValidName(tenant) {
		return fmt.Errorf("jobs: tenant %q is not 1-128 letters, digits, '.', '_' or '-'", tenant)
	}
	return nil
}

// Submit records a run of s for tenant (its ledger run, status running)
// and enqueues the job that executes it, in one transaction, and returns
// the run's id. A repeated IdempotencyKey of the tenant returns the first
// run's id and enqueues nothing. A submission the executor would refuse is
// an *executor.RequestError and records nothing.
func Submit(ctx context.Context, pool *pgxpool.Pool, tenant string, s Submission) (runID string, err error) {
	if err := checkTenant(tenant); err != nil {
		return "", err
	}
	if err := s.check(); err != nil {
		return "", err
	}
	q, err := newQueue(ctx, pool, tenant)
	if err != nil {
		return "", err
	}
	var out []enqueued
	err = pgtx.WithTx(ctx, pool, pgx.TxOptions{}, func(tx pgx.Tx) (err error) {
		out, err = q.enqueue(ctx, tx, "", []Submission{s})
		return err
	})
	if err != nil {
		return "", err
	}
	return out[0].runID, nil
}

// queue writes a tenant's submissions.
type queue struct {
	tenant   string
	snapshot string           // the tenant's corpus as submitted
	catalog  *planner.Catalog // the same corpus, to resolve auto mode
	ledger   *pgledger.Store
	inserter *river.Client[pgx.Tx]
	now      func() time.Time
}

func newQueue(ctx context.Context, pool *pgxpool.Pool, tenant string) (*queue, error) {
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: tenant})
	if err != nil {
		return nil, err
	}
	docs, err := store.Documents(ctx)
	if err != nil {
		return nil, fmt.Errorf("jobs: list the tenant's corpus: %w", err)
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	led, err := pgledger.New(pool, &pgledger.Config{Tenant: tenant})
	if err != nil {
		return nil, err
	}
	// An insert-only client: no pool, no workers; it inserts in the
	// transactions given to it.
	ins, err := river.NewClient(riverpgxv5.New(nil), &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	return &queue{tenant: tenant, snapshot: ledger.CorpusSnapshot(ids), catalog: planner.NewCatalog(docs), ledger: led, inserter: ins, now: time.Now}, nil
}

// enqueued is what became of one submission.
type enqueued struct {
	runID  string
	reused bool // its idempotency key named an earlier run; nothing was enqueued
}

const claimSubmissionSQL = `
INSERT INTO run_submissions (tenant_id, run_id, idempotency_key, batch_id) VALUES ($1, $2, $3, $4)
ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`

const submittedRunSQL = `SELECT run_id FROM run_submissions WHERE tenant_id = $1 AND idempotency_key = $2`

const setJobsSQL = `
UPDATE run_submissions s SET job_id = j.job_id
FROM unnest($2::text[], $3::bigint[]) AS j(run_id, job_id)
WHERE s.tenant_id = $1 AND s.run_id = j.run_id`

// enqueue records the submissions in tx: for each one, its idempotency key
// (claimed first, so a concurrent submission of the same key waits for
// this transaction and then names this run), its runs row and its job.
// The submissions must have been checked.
func (q *queue) enqueue(ctx context.Context, tx pgx.Tx, batchID string, subs []Submission) ([]enqueued, error) {
	out := make([]enqueued, len(subs))
	var params []river.InsertManyParams
	var newRuns []string
	for i, s := range subs {
		runID := executor.NewRunID(q.now())
		var key, batch any
		if s.IdempotencyKey != "" {
			key = s.IdempotencyKey
		}
		if batchID != "" {
			batch = batchID
		}
		tag, err := tx.Exec(ctx, claimSubmissionSQL, q.tenant, runID, key, batch)
		if err != nil {
			return nil, fmt.Errorf("jobs: record the submission: %w", err)
		}
		if tag.RowsAffected() == 0 {
			if err := tx.QueryRow(ctx, submittedRunSQL, q.tenant, s.IdempotencyKey).Scan(&out[i].runID); err != nil {
				return nil, fmt.Errorf("jobs: find the run of idempotency key %q: %w", s.IdempotencyKey, err)
			}
			out[i].reused = true
			continue
		}
		requested := ""
		if s.Mode == "" || ledger.Mode(s.Mode) == executor.ModeAuto {
			// Auto mode is the default; the run is recorded with the mode
			// that will run it, and the job says auto chose it.
			mode, _ := executor.AutoModeFor(planner.RouteQuestion(s.Question, q.catalog, s.Tickers), s.ModelConfigured)
			s.Mode, requested = string(mode), string(executor.ModeAuto)
		}
		_, resumed, err := q.ledger.OpenRunTx(ctx, tx, ledger.Run{
			ID: runID, Question: s.Question, Mode: ledger.Mode(s.Mode), CorpusSnapshot: q.snapshot,
		})
		if err != nil {
			return nil, fmt.Errorf("jobs: record run %s: %w", runID, err)
		}
		if resumed {
			return nil, fmt.Errorf("jobs: run id %s was taken already; submit again", runID)
		}
		out[i].runID = runID
		newRuns = append(newRuns, runID)
		params = append(params, river.InsertManyParams{Args: RunArgs{
			Tenant: q.tenant, RunID: runID, Question: s.Question, Tickers: s.Tickers, Mode: s.Mode, RequestedMode: requested,
			Limits: s.Limits, MaxCalls: s.MaxCalls, BatchID: batchID,
		}})
	}
	if len(params) == 0 {
		return out, nil
	}
	res, err := q.inserter.InsertManyTx(ctx, tx, params)
	if err != nil {
		return nil, fmt.Errorf("jobs: enqueue: %w", err)
	}
	if len(res) != len(params) {
		return nil, errors.New("jobs: enqueue: River inserted fewer jobs than asked")
	}
	jobIDs := make([]int64, len(res))
	for i, r := range res {
		jobIDs[i] = r.Job.ID
	}
	if _, err := tx.Exec(ctx, setJobsSQL, q.tenant, newRuns, jobIDs); err != nil {
		return nil, fmt.Errorf("jobs: record the jobs: %w", err)
	}
	return out, nil
}
