package pgledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"
)

// DefaultTenant is the tenant of a store whose Config names none.
const DefaultTenant = "default"

// Config configures a Store. A nil *Config means the defaults.
type Config struct {
	// Tenant scopes every read and write; "" means DefaultTenant.
	Tenant string

	// Now is the clock for creation, finish and event times; nil means
	// time.Now. Times are kept to the microsecond, as Postgres does.
	Now func() time.Time
}

func (c *Config) validate() error {
	if c.Tenant != "" && !ledger.ValidName(c.Tenant) {
		return fmt.Errorf("pgledger: Config.Tenant %q is not 1-128 letters, digits, '.', '_' or '-'", c.Tenant)
	}
	return nil
}

// Store is a ledger.Store on Postgres for one tenant. It is safe for
// concurrent use.
type Store struct {
	pool   *pgxpool.Pool
	tenant string
	now    func() time.Time

	// insertEvidence writes a result's new evidence rows: queued in the
	// commit batch w (unnestEvidence, the default) or sent through q
	// before it (the writers BenchmarkRecordEvidence compares).
	insertEvidence func(ctx context.Context, q sender, w *pgx.Batch, s *Store, runID string, ev []ledger.Evidence) error
}

var _ ledger.Store = (*Store)(nil)

// New returns a store for cfg.Tenant on pool, whose schema must be migrated
// (package migrations). The pool stays the caller's: Close does not close it.
func New(pool *pgxpool.Pool, cfg *Config) (*Store, error) {
	if pool == nil {
		return nil, errors.New("pgledger: nil pool")
	}
	if cfg == nil {
		cfg = &Config{}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Store{pool: pool, tenant: cfg.Tenant, now: cfg.Now, insertEvidence: unnestEvidence}
	if s.tenant == "" {
		s.tenant = DefaultTenant
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Tenant returns the tenant the store reads and writes.
func (s *Store) Tenant() string { return s.tenant }

// Close releases nothing: the pool belongs to the caller.
func (s *Store) Close() error { return nil }

func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// translate maps driver errors to the ledger's: no rows and foreign-key
// violations (an unknown requirement or evidence id) are ErrNotFound.
func translate(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	what := fmt.Sprintf(format, args...)
	var pgErr *pgconn.PgError
	var verr *ledger.ValidationError
	switch {
	case errors.Is(err, ledger.ErrNotFound), errors.As(err, &verr):
		return err
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("pgledger: %s: %w", what, ledger.ErrNotFound)
	case errors.As(err, &pgErr) && pgErr.Code == "23503":
		return fmt.Errorf("pgledger: %s: %s: %w", what, pgErr.Detail, ledger.ErrNotFound)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("pgledger: %s: %w", what, err)
	}
	return &StoreError{What: what, Err: err}
}

// StoreError is a failure of the database under the ledger. A run records
// its errors where its tenant reads them, so its message names the
// operation and, for an error the database returned, its SQLSTATE; never
// the driver's text, which can name the database's host, user and name.
// The cause is kept for errors.Is and errors.As, and for the operator's
// log (Err.Error()).
type StoreError struct {
	What string // the operation: "load run R"
	Err  error
}

// Error names the operation and the kind of failure.
func (e *StoreError) Error() string {
	var pgErr *pgconn.PgError
	if errors.As(e.Err, &pgErr) {
		return fmt.Sprintf("pgledger: %s: the database refused it (SQLSTATE %s)", e.What, pgErr.Code)
	}
	return fmt.Sprintf("pgledger: %s: the database could not be reached", e.What)
}

// Unwrap returns the driver's error.
func (e *StoreError) Unwrap() error { return e.Err }

const lockRunSQL = `SELECT last_event FROM runs WHERE tenant_id = $1 AND id = $2 FOR UPDATE`

// queueLock queues the lock of the run's row, which every write to a run
// takes first. The check it returns, once the batch has run, is
// ErrNotFound when the tenant holds no such run. It is not the
// statement's callback that fails: pgx forgets a connection's prepared
// statements when a batch fails, and an unknown run is an ordinary answer.
func (s *Store) queueLock(b *pgx.Batch, runID string) (check func() error) {
	held := false
	b.Queue(lockRunSQL, s.tenant, runID).Query(func(rows pgx.Rows) error {
		held = rows.Next()
		return nil
	})
	return func() error {
		if !held {
			return fmt.Errorf("pgledger: run %s: %w", runID, ledger.ErrNotFound)
		}
		return nil
	}
}

func checkRunID(runID string) error {
	if !ledger.ValidName(runID) {
		return fmt.Errorf("pgledger: run %q: %w", runID, ledger.ErrNotFound)
	}
	return nil
}

// insertEventTemplate appends one event after the run's last. An earlier
// statement of the transaction must hold the run's row lock: this
// statement's snapshot, taken after it, then sees the last event whoever
// appended it. An event's time is never before the last one's, though its
// clock was read before the lock was taken. %s may narrow the run's row to
// a condition; where it holds not, nothing is appended. The last event is
// read by a subquery, not a join: Postgres's generic plan for a join
// would read every event of the run.
const insertEventTemplate = `
INSERT INTO run_events (tenant_id, run_id, seq, at, kind, subject, duration_us, message, data)
SELECT r.tenant_id, r.id, r.last_event + 1,
	greatest($3::timestamptz, coalesce((SELECT p.at FROM run_events p
		WHERE p.tenant_id = $1 AND p.run_id = $2 AND p.seq = r.last_event), $3::timestamptz)),
	$4, $5, $6, $7, $8::jsonb
FROM runs r
WHERE r.tenant_id = $1 AND r.id = $2%s
RETURNING seq, at`

var (
	insertEventSQL = fmt.Sprintf(insertEventTemplate, "")
	// insertEventIfRequirementSQL appends nothing unless the run holds
	// requirement $9, so that a write that finds no such requirement in
	// the same batch records nothing.
	insertEventIfRequirementSQL = fmt.Sprintf(insertEventTemplate,
		"\n\tAND EXISTS (SELECT 1 FROM requirements q WHERE q.tenant_id = $1 AND q.run_id = $2 AND q.id = $9)")
)

// bumpLastEventSQL sets runs.last_event to the run's last event (one
// index probe), whether or not the statement before appended one.
const bumpLastEventSQL = `
UPDATE runs SET last_event = coalesce((SELECT max(e.seq) FROM run_events e WHERE e.tenant_id = $1 AND e.run_id = $2), last_event)
WHERE tenant_id = $1 AND id = $2`

// queueEvents queues the append of evs to the run's log (guarded by the
// requirement reqID unless it is ""), two statements each, kept simple so
// that Postgres plans them once; once the batch has run, evs hold their
// sequence numbers and times as stored.
func (s *Store) queueEvents(b *pgx.Batch, runID string, evs []ledger.Event, reqID string) {
	for i := range evs {
		e := &evs[i]
		var data any
		if len(e.Data) > 0 {
			data = string(e.Data)
		}
		sql, args := insertEventSQL, []any{s.tenant, runID, e.At, string(e.Kind), e.Subject, e.Duration.Microseconds(), e.Message, data}
		if reqID != "" {
			sql, args = insertEventIfRequirementSQL, append(args, reqID)
		}
		b.Queue(sql, args...).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				if err := rows.Scan(&e.Seq, &e.At); err != nil {
					return err
				}
				e.At = e.At.UTC()
			}
			return nil
		})
		b.Queue(bumpLastEventSQL, s.tenant, runID)
	}
}

const insertRunSQL = `
INSERT INTO runs (tenant_id, id, question, mode, status, corpus_snapshot, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (tenant_id, id) DO NOTHING`

const runSQL = `
SELECT id, question, mode, status, corpus_snapshot, created_at, finished_at
FROM runs WHERE tenant_id = $1 AND id = $2`

// OpenRun creates the run or reopens the one with its id.
func (s *Store) OpenRun(ctx context.Context, r ledger.Run) (ledger.Run, bool, error) {
	if err := r.Validate(); err != nil {
		return ledger.Run{}, false, err
	}
	var out ledger.Run
	var resumed bool
	err := s.writeTx(ctx, func(q sender) (b *pgx.Batch, err error) {
		out, resumed, b, err = s.openRun(ctx, q, r)
		return b, err
	})
	if err != nil {
		return ledger.Run{}, false, translate(err, "open run %s", r.ID)
	}
	return out, resumed, nil
}

// queueRun queues the read of the run into *r; the check it returns, once
// the batch has run, is ErrNotFound when the tenant holds no such run (see
// queueLock for why the callback does not fail).
func (s *Store) queueRun(b *pgx.Batch, runID string, r *ledger.Run) (check func() error) {
	found := false
	b.Queue(runSQL, s.tenant, runID).Query(func(rows pgx.Rows) error {
		if found = rows.Next(); !found {
			return nil
		}
		var err error
		*r, err = s.scanRun(rows, runID)
		return err
	})
	return func() error {
		if !found {
			return fmt.Errorf("pgledger: run %s: %w", runID, ledger.ErrNotFound)
		}
		return nil
	}
}

func (s *Store) scanRun(row pgx.Row, runID string) (ledger.Run, error) {
	var r ledger.Run
	var finished pgtype.Timestamptz
	var mode, status string
	err := row.Scan(&r.ID, &r.Question, &mode, &status, &r.CorpusSnapshot, &r.Created, &finished)
	if err != nil {
		return r, translate(err, "run %s", runID)
	}
	r.Tenant, r.Mode, r.Status = s.tenant, ledger.Mode(mode), ledger.RunStatus(status)
	r.Created = r.Created.UTC()
	if finished.Valid {
		r.Finished = finished.Time.UTC()
	}
	return r, nil
}

// Run returns the run without its records.
func (s *Store) Run(ctx context.Context, runID string) (ledger.Run, error) {
	if err := checkRunID(runID); err != nil {
		return ledger.Run{}, err
	}
	return s.scanRun(s.pool.QueryRow(ctx, runSQL, s.tenant, runID), runID)
}

const runsSQL = `
SELECT id, question, mode, status, corpus_snapshot, created_at, finished_at
FROM runs WHERE tenant_id = $1
ORDER BY created_at DESC, id
LIMIT $2`

// Runs returns the tenant's latest runs, newest first.
func (s *Store) Runs(ctx context.Context, limit int) ([]ledger.Run, error) {
	var lim any // NULL: no limit
	if limit > 0 {
		lim = limit
	}
	rows, err := s.pool.Query(ctx, runsSQL, s.tenant, lim)
	if err != nil {
		return nil, translate(err, "list runs")
	}
	defer rows.Close()
	runs := []ledger.Run{}
	for rows.Next() {
		r, err := s.scanRun(rows, "")
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "list runs")
	}
	return runs, nil
}

const finishRunSQL = `UPDATE runs SET status = $3, finished_at = $4 WHERE tenant_id = $1 AND id = $2`

// FinishRun sets a terminal status and the finish time.
func (s *Store) FinishRun(ctx context.Context, runID string, status ledger.RunStatus) error {
	_, err := s.finish(ctx, runID, status, nil)
	return err
}

// FinishRunWithEvent is FinishRun and AppendEvent(e) in one transaction:
// the run's verdict and the event that follows it (its answer) are
// recorded together or not at all, so a process that dies between the two
// cannot leave a run finished without its answer, which the next attempt
// would run again and finish a second time.
func (s *Store) FinishRunWithEvent(ctx context.Context, runID string, status ledger.RunStatus, e ledger.Event) (ledger.Event, error) {
	if err := e.Validate(); err != nil {
		return e, err
	}
	e.Data = append(json.RawMessage(nil), e.Data...)
	return s.finish(ctx, runID, status, &e)
}

// finish records a run's verdict, and after it then, when not nil, in one
// round trip: the statements of one batch, which Postgres runs as one
// transaction; it returns then as recorded.
func (s *Store) finish(ctx context.Context, runID string, status ledger.RunStatus, then *ledger.Event) (ledger.Event, error) {
	var out ledger.Event
	if then != nil {
		out = *then
	}
	if !status.Terminal() {
		return out, &ledger.ValidationError{Field: "status", Problem: fmt.Sprintf("%q is not a terminal run status", status)}
	}
	if err := checkRunID(runID); err != nil {
		return out, err
	}
	now := s.clock()
	evs := []ledger.Event{{At: now, Kind: ledger.EventRunFinished, Subject: runID, Message: string(status)}}
	if then != nil {
		e := *then
		e.At = now
		evs = append(evs, e)
	}
	b := &pgx.Batch{}
	held := s.queueLock(b, runID)
	b.Queue(finishRunSQL, s.tenant, runID, string(status), now)
	s.queueEvents(b, runID, evs, "")
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return out, translate(err, "finish run %s", runID)
	}
	if err := held(); err != nil {
		return out, err
	}
	if then != nil {
		out = evs[1]
	}
	return out, nil
}

// AddRequirements records the requirements whose ids are new.
func (s *Store) AddRequirements(ctx context.Context, runID string, reqs []ledger.Requirement) (int, error) {
	reqs = append([]ledger.Requirement(nil), reqs...)
	if err := ledger.ValidateRequirements(reqs); err != nil {
		return 0, err
	}
	if err := checkRunID(runID); err != nil {
		return 0, translate(err, "add requirements to run %s", runID)
	}
	var added int
	err := s.writeTx(ctx, func(q sender) (*pgx.Batch, error) {
		b := &pgx.Batch{}
		held := s.queueLock(b, runID)
		if len(reqs) > 0 {
			cols := make([][]string, 6)
			for _, r := range reqs {
				for i, v := range []string{r.ID, r.Issuer, r.Period, r.Description, r.CompletionCondition, string(r.Status)} {
					cols[i] = append(cols[i], v)
				}
			}
			b.Queue(insertRequirementsSQL, s.tenant, runID, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5]).
				Exec(func(tag pgconn.CommandTag) error {
					added = int(tag.RowsAffected())
					return nil
				})
		}
		if err := q.SendBatch(ctx, b).Close(); err != nil {
			return nil, err
		}
		if err := held(); err != nil || added == 0 {
			return nil, err
		}
		b = &pgx.Batch{}
		s.queueEvents(b, runID, []ledger.Event{{At: s.clock(), Kind: ledger.EventPlan, Message: fmt.Sprintf("%d requirements added", added)}}, "")
		return b, nil
	})
	if err != nil {
		return 0, translate(err, "add requirements to run %s", runID)
	}
	return added, nil
}

const insertRequirementsSQL = `
INSERT INTO requirements (tenant_id, run_id, id, issuer, period, description, completion_condition, status)
SELECT $1, $2, r.id, r.issuer, r.period, r.description, r.completion_condition, r.status
FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
	WITH ORDINALITY AS r(id, issuer, period, description, completion_condition, status, n)
ORDER BY r.n
ON CONFLICT (tenant_id, run_id, id) DO NOTHING`

const updateRequirementSQL = `UPDATE requirements SET status = $4 WHERE tenant_id = $1 AND run_id = $2 AND id = $3`

const linkEvidenceSQL = `
INSERT INTO requirement_evidence (tenant_id, run_id, requirement_id, evidence_id)
SELECT $1, $2, $3, e.id FROM unnest($4::text[]) WITH ORDINALITY AS e(id, n)
ORDER BY e.n
ON CONFLICT DO NOTHING`

// UpdateRequirement sets a requirement's status and links evidence to it,
// in one round trip: lock, update, link and event are one batch, which
// Postgres runs as one transaction. Where the requirement is unknown
// nothing is written (the update finds no row, the link fails on its
// foreign key, the event's statement is guarded by the requirement), and
// an unknown evidence id fails the link and so the whole batch.
func (s *Store) UpdateRequirement(ctx context.Context, runID, reqID string, status ledger.RequirementStatus, evidenceIDs []string) error {
	if !status.Valid() {
		return &ledger.ValidationError{Field: "status", Problem: fmt.Sprintf("%q is not pending, supported, missing or conflicting", status)}
	}
	if err := checkRunID(runID); err != nil {
		return translate(err, "update requirement %s of run %s", reqID, runID)
	}
	b := &pgx.Batch{}
	held := s.queueLock(b, runID)
	updated := false
	b.Queue(updateRequirementSQL, s.tenant, runID, reqID, string(status)).Exec(func(tag pgconn.CommandTag) error {
		updated = tag.RowsAffected() > 0
		return nil
	})
	if len(evidenceIDs) > 0 {
		b.Queue(linkEvidenceSQL, s.tenant, runID, reqID, evidenceIDs)
	}
	msg := "status " + string(status)
	if len(evidenceIDs) > 0 {
		msg += fmt.Sprintf(", %d evidence linked", len(evidenceIDs))
	}
	s.queueEvents(b, runID, []ledger.Event{{At: s.clock(), Kind: ledger.EventRequirement, Subject: reqID, Message: msg}}, reqID)
	err := s.pool.SendBatch(ctx, b).Close()
	if err == nil {
		err = held()
	}
	if err == nil && !updated {
		err = fmt.Errorf("pgledger: requirement %s of run %s: %w", reqID, runID, ledger.ErrNotFound)
	}
	return translate(err, "update requirement %s of run %s", reqID, runID)
}

const insertToolCallSQL = `
INSERT INTO tool_calls (tenant_id, run_id, id, tool, requirement_id, arguments, started_at, finished_at, error)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (tenant_id, run_id, id) DO NOTHING`

const requirementExistsSQL = `
SELECT EXISTS (SELECT 1 FROM requirements WHERE tenant_id = $1 AND run_id = $2 AND id = $3)`

// heldSpansSQL reads the spans the run holds in documents $3, in span
// order: one probe of the span index (tenant_id, run_id, document_id, …)
// per document. Not "document_id = ANY($3)": Postgres costs the array as
// several probes and, for a run its statistics do not know yet (a new
// run estimates one row), prefers one probe on (tenant_id, run_id) with
// the documents as a filter, reading every span of the run on every call
// (6 ms a result at 30,000 spans). A plain equality per document, in a
// subquery kept a subquery (OFFSET 0), leaves no such choice; the primary
// key cannot serve the lookup either (migration 0010).
const heldSpansSQL = `
SELECT e.id, e.document_id, e.start_offset, e.end_offset
FROM unnest($3::text[]) AS d(id)
CROSS JOIN LATERAL (
	SELECT id, document_id, start_offset, end_offset FROM evidence
	WHERE tenant_id = $1 AND run_id = $2 AND document_id = d.id
	ORDER BY start_offset, end_offset OFFSET 0) e`

// heldFactsSQL reads which of the facts $3 the run holds, a probe of the
// key each, for the reason heldSpansSQL gives.
const heldFactsSQL = `
SELECT f.id
FROM unnest($3::text[]) AS w(id)
CROSS JOIN LATERAL (
	SELECT id FROM ledger_facts WHERE tenant_id = $1 AND run_id = $2 AND id = w.id OFFSET 0) f`

var evidenceColumns = []string{"tenant_id", "run_id", "id", "kind", "document_id", "start_offset", "end_offset",
	"excerpt", "ticker", "form", "period", "page", "section", "tool_call_id"}

// insertEvidenceSQL writes a result's new evidence rows, in order, with
// one statement that travels in the result's commit batch.
const insertEvidenceSQL = `
INSERT INTO evidence (tenant_id, run_id, id, kind, document_id, start_offset, end_offset, excerpt, ticker, form, period, page, section, tool_call_id)
SELECT $1, $2, e.id, e.kind, e.document_id, e.start_offset, e.end_offset, e.excerpt, e.ticker, e.form, e.period, e.page, e.section, $14
FROM unnest($3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::text[], $9::text[], $10::text[], $11::text[], $12::int[], $13::text[])
	WITH ORDINALITY AS e(id, kind, document_id, start_offset, end_offset, excerpt, ticker, form, period, page, section, n)
ORDER BY e.n`

const insertFactsSQL = `
INSERT INTO ledger_facts (tenant_id, run_id, id, evidence_id, concept, value, unit, period, tool_call_id)
SELECT $1, $2, f.id, f.evidence_id, f.concept, f.value, f.unit, f.period, $9
FROM unnest($3::text[], $4::text[], $5::text[], $6::numeric[], $7::text[], $8::text[])
	WITH ORDINALITY AS f(id, evidence_id, concept, value, unit, period, n)
ORDER BY f.n
ON CONFLICT (tenant_id, run_id, id) DO NOTHING`

const insertSearchSQL = `
INSERT INTO search_history (tenant_id, run_id, tool_call_id, query_key, query, filters, candidates_seen, new_evidence)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

// RecordToolResult records one tool call and what it returned, in one
// transaction of two round trips: BEGIN, the run's lock, the call's row
// and the reads of what the run holds; then the evidence, links, facts,
// search and event with COMMIT.
func (s *Store) RecordToolResult(ctx context.Context, runID string, in *ledger.ToolResult) (*ledger.RecordResult, error) {
	res, err := prepare(in)
	if err != nil {
		return nil, err
	}
	var out *ledger.RecordResult
	err = s.writeTx(ctx, func(q sender) (b *pgx.Batch, err error) {
		out, b, err = s.record(ctx, q, runID, res)
		return b, err
	})
	if err != nil {
		return nil, translate(err, "record tool call %s of run %s", res.Call.ID, runID)
	}
	return out, nil
}

// prepare validates a copy of a tool result.
func prepare(in *ledger.ToolResult) (*ledger.ToolResult, error) {
	if in == nil {
		return nil, &ledger.ValidationError{Field: "result", Problem: "nil"}
	}
	res := cloneResult(in)
	if err := res.Validate(); err != nil {
		return nil, err
	}
	return res, nil
}

// RecordToolResultTx is RecordToolResult within the caller's transaction,
// so that recording a result and settling its budget reservation, say,
// commit together. It locks the run's row until tx ends, and works under a
// savepoint: when it fails, it leaves nothing in tx and tx stays usable.
func (s *Store) RecordToolResultTx(ctx context.Context, tx pgx.Tx, runID string, in *ledger.ToolResult) (*ledger.RecordResult, error) {
	res, err := prepare(in)
	if err != nil {
		return nil, err
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return nil, translate(err, "record tool call %s of run %s", res.Call.ID, runID)
	}
	var out *ledger.RecordResult
	err = inTx(ctx, sp, func(q sender) (b *pgx.Batch, err error) {
		out, b, err = s.record(ctx, q, runID, res)
		return b, err
	})
	if err != nil {
		_ = sp.Rollback(context.WithoutCancel(ctx))
		return nil, translate(err, "record tool call %s of run %s", res.Call.ID, runID)
	}
	if err := sp.Commit(ctx); err != nil {
		return nil, translate(err, "record tool call %s of run %s", res.Call.ID, runID)
	}
	return out, nil
}

// record sends, through q, the first batch of recording res: the run's
// lock, the call's row, and the reads of the spans and facts the run
// holds; it decides what is new and returns the batch of writes, for the
// caller to send (with COMMIT, or in its own transaction). A replayed call
// returns no batch.
func (s *Store) record(ctx context.Context, q sender, runID string, res *ledger.ToolResult) (*ledger.RecordResult, *pgx.Batch, error) {
	if err := checkRunID(runID); err != nil {
		return nil, nil, err
	}
	c := res.Call
	b := &pgx.Batch{}
	held := s.queueLock(b, runID)
	var inserted bool
	b.Queue(insertToolCallSQL, s.tenant, runID, c.ID, c.Tool, c.RequirementID,
		jsonArg(c.Arguments), nullTime(c.Started), nullTime(c.Finished), c.Error).Exec(func(tag pgconn.CommandTag) error {
		inserted = tag.RowsAffected() > 0
		return nil
	})
	reqHeld := true
	if c.RequirementID != "" {
		b.Queue(requirementExistsSQL, s.tenant, runID, c.RequirementID).QueryRow(func(row pgx.Row) error {
			return row.Scan(&reqHeld)
		})
	}
	spans := map[string][]ledger.Evidence{}
	if docs := documentsOf(res.Evidence); len(docs) > 0 {
		b.Queue(heldSpansSQL, s.tenant, runID, docs).Query(func(rows pgx.Rows) error {
			var e ledger.Evidence
			_, err := pgx.ForEachRow(rows, []any{&e.ID, &e.DocumentID, &e.Start, &e.End}, func() error {
				spans[e.DocumentID] = append(spans[e.DocumentID], e)
				return nil
			})
			return err
		})
	}
	heldFacts := map[string]bool{}
	if len(res.Facts) > 0 {
		ids := make([]string, len(res.Facts))
		for i, f := range res.Facts {
			ids[i] = f.ID
		}
		b.Queue(heldFactsSQL, s.tenant, runID, ids).Query(func(rows pgx.Rows) error {
			var id string
			_, err := pgx.ForEachRow(rows, []any{&id}, func() error {
				heldFacts[id] = true
				return nil
			})
			return err
		})
	}
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, err
	}
	if err := held(); err != nil {
		return nil, nil, err
	}
	if !inserted {
		return ledger.ReplayResult(res), nil, nil
	}
	if !reqHeld {
		return nil, nil, fmt.Errorf("pgledger: tool call %s: requirement %s of run %s: %w", c.ID, c.RequirementID, runID, ledger.ErrNotFound)
	}

	outcomes, fresh := ledger.Classify(res.Evidence, func(doc string) []ledger.Evidence { return spans[doc] })
	out := &ledger.RecordResult{Evidence: outcomes, NewEvidence: ledger.Count(outcomes, ledger.OutcomeNew)}
	w := &pgx.Batch{}
	if len(fresh) > 0 {
		if err := s.insertEvidence(ctx, q, w, s, runID, fresh); err != nil {
			return nil, nil, err
		}
	}
	if c.RequirementID != "" && len(outcomes) > 0 {
		ids := make([]string, len(outcomes))
		for i, o := range outcomes {
			ids[i] = o.ID
		}
		w.Queue(linkEvidenceSQL, s.tenant, runID, c.RequirementID, ids)
	}
	if len(res.Facts) > 0 {
		// The facts the run does not hold, each id once, are the ones the
		// insert adds (the run's lock keeps it so): counted here because
		// the event's message, in the same batch, names the number.
		cols := make([][]string, 5)
		values := make([]pgtype.Numeric, len(res.Facts))
		for i, f := range res.Facts {
			for j, v := range []string{f.ID, f.EvidenceID, f.Concept, f.Unit, f.Period} {
				cols[j] = append(cols[j], v)
			}
			values[i] = numeric(f.Value)
			if !heldFacts[f.ID] {
				heldFacts[f.ID] = true
				out.NewFacts++
			}
		}
		w.Queue(insertFactsSQL, s.tenant, runID, cols[0], cols[1], cols[2], values, cols[3], cols[4], c.ID)
	}
	if sr := res.Search; sr != nil {
		filters := sr.Filters
		if filters == nil {
			filters = map[string]string{}
		}
		w.Queue(insertSearchSQL, s.tenant, runID, c.ID, sr.QueryKey, sr.Query, filters, sr.CandidatesSeen, out.NewEvidence)
	}
	s.queueEvents(w, runID, []ledger.Event{{At: s.clock(), Kind: ledger.EventToolCall, Subject: c.ID, Duration: c.Duration(),
		Message: ledger.ToolCallMessage(res, out)}}, "")
	return out, w, nil
}

// documentsOf lists the documents items name, each once.
func documentsOf(items []ledger.Evidence) []string {
	seen := map[string]bool{}
	var docs []string
	for _, e := range items {
		if !seen[e.DocumentID] {
			seen[e.DocumentID] = true
			docs = append(docs, e.DocumentID)
		}
	}
	return docs
}

// unnestEvidence queues the evidence rows in w as one multi-row INSERT:
// no round trip of their own.
func unnestEvidence(_ context.Context, _ sender, w *pgx.Batch, s *Store, runID string, ev []ledger.Evidence) error {
	n := len(ev)
	ids, kinds, docs := make([]string, n), make([]string, n), make([]string, n)
	excerpts, tickers, forms, periods, sections := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	starts, ends, pages := make([]int32, n), make([]int32, n), make([]int32, n)
	for i, e := range ev {
		ids[i], kinds[i], docs[i] = e.ID, string(e.Kind), e.DocumentID
		excerpts[i], tickers[i], forms[i], periods[i], sections[i] = e.Excerpt, e.Ticker, e.Form, e.Period, e.Section
		for _, v := range []struct {
			dst *int32
			val int
		}{{&starts[i], e.Start}, {&ends[i], e.End}, {&pages[i], e.Page}} {
			if v.val > math.MaxInt32 {
				return &ledger.ValidationError{Field: "evidence", Problem: fmt.Sprintf("offset or page %d beyond the store's int range", v.val)}
			}
			*v.dst = int32(v.val)
		}
	}
	w.Queue(insertEvidenceSQL, s.tenant, runID, ids, kinds, docs, starts, ends, excerpts, tickers, forms, periods, pages, sections, ev[0].ToolCallID)
	return nil
}

// copyEvidence writes the evidence rows with one COPY, a round trip of
// its own before the commit batch.
func copyEvidence(ctx context.Context, q sender, _ *pgx.Batch, s *Store, runID string, ev []ledger.Evidence) error {
	rows := make([][]any, len(ev))
	for i, e := range ev {
		rows[i] = []any{s.tenant, runID, e.ID, string(e.Kind), e.DocumentID, e.Start, e.End,
			e.Excerpt, e.Ticker, e.Form, e.Period, e.Page, e.Section, e.ToolCallID}
	}
	_, err := q.CopyFrom(ctx, pgx.Identifier{"evidence"}, evidenceColumns, pgx.CopyFromRows(rows))
	return err
}

const evidenceCheckSQL = `
SELECT count(*) FROM evidence WHERE tenant_id = $1 AND run_id = $2 AND id = ANY($3::text[])`

const contradictionExistsSQL = `
SELECT EXISTS (SELECT 1 FROM contradictions WHERE tenant_id = $1 AND run_id = $2 AND id = $3)`

const insertContradictionSQL = `
INSERT INTO contradictions (tenant_id, run_id, id, requirement_id, evidence_ids, difference)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (tenant_id, run_id, id) DO NOTHING`

// AddContradiction records a contradiction once.
func (s *Store) AddContradiction(ctx context.Context, runID string, c ledger.Contradiction) (ledger.Contradiction, bool, error) {
	c.EvidenceIDs = append([]string(nil), c.EvidenceIDs...)
	if err := c.Validate(); err != nil {
		return c, false, err
	}
	if err := checkRunID(runID); err != nil {
		return c, false, translate(err, "add contradiction to run %s", runID)
	}
	var added bool
	err := s.writeTx(ctx, func(q sender) (*pgx.Batch, error) {
		b := &pgx.Batch{}
		held := s.queueLock(b, runID)
		var n int
		b.Queue(evidenceCheckSQL, s.tenant, runID, c.EvidenceIDs).QueryRow(func(row pgx.Row) error { return row.Scan(&n) })
		var exists bool
		b.Queue(contradictionExistsSQL, s.tenant, runID, c.ID).QueryRow(func(row pgx.Row) error { return row.Scan(&exists) })
		if err := q.SendBatch(ctx, b).Close(); err != nil {
			return nil, err
		}
		if err := held(); err != nil {
			return nil, err
		}
		if n != len(c.EvidenceIDs) {
			return nil, fmt.Errorf("pgledger: contradiction %s names evidence run %s does not hold: %w", c.ID, runID, ledger.ErrNotFound)
		}
		if exists {
			return nil, nil
		}
		// Under the run's lock nothing else adds it: the insert below adds it
		// (or fails on an unknown requirement, and the commit with it).
		added = true
		b = &pgx.Batch{}
		b.Queue(insertContradictionSQL, s.tenant, runID, c.ID, c.RequirementID, c.EvidenceIDs, c.Difference)
		s.queueEvents(b, runID, []ledger.Event{{At: s.clock(), Kind: ledger.EventContradiction, Subject: c.RequirementID, Message: c.ID + ": " + c.Difference}}, "")
		return b, nil
	})
	if err != nil {
		return c, false, translate(err, "add contradiction to run %s", runID)
	}
	return c, added, nil
}

// AppendEvent appends a caller's event in one round trip: the run's lock
// and the event's insert are one batch, which Postgres runs as one
// transaction, committed before the call returns.
func (s *Store) AppendEvent(ctx context.Context, runID string, e ledger.Event) (ledger.Event, error) {
	if err := e.Validate(); err != nil {
		return e, err
	}
	e.Data = append(json.RawMessage(nil), e.Data...)
	if err := checkRunID(runID); err != nil {
		return e, translate(err, "append event to run %s", runID)
	}
	e.At = s.clock()
	evs := []ledger.Event{e}
	b := &pgx.Batch{}
	held := s.queueLock(b, runID)
	s.queueEvents(b, runID, evs, "")
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return e, translate(err, "append event to run %s", runID)
	}
	if err := held(); err != nil {
		return e, err
	}
	return evs[0], nil
}

// Events returns the run's event log in order.
func (s *Store) Events(ctx context.Context, runID string) ([]ledger.Event, error) {
	if err := checkRunID(runID); err != nil {
		return nil, translate(err, "events of run %s", runID)
	}
	var evs []ledger.Event
	var r ledger.Run
	var found func() error
	err := s.readTx(ctx, func(b *pgx.Batch) {
		found = s.queueRun(b, runID, &r)
		queueCollect(b, eventsSQL, []any{s.tenant, runID}, scanEvent, &evs)
	})
	if err == nil {
		err = found()
	}
	if err != nil {
		return nil, translate(err, "events of run %s", runID)
	}
	return evs, nil
}

func cloneResult(in *ledger.ToolResult) *ledger.ToolResult {
	res := &ledger.ToolResult{
		Call:     in.Call,
		Evidence: append([]ledger.Evidence(nil), in.Evidence...),
		Facts:    append([]ledger.Fact(nil), in.Facts...),
	}
	if in.Search != nil {
		sr := *in.Search
		res.Search = &sr
	}
	return res
}

func jsonArg(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return string(raw)
}

func nullTime(t time.Time) pgtype.Timestamptz {
	if t.IsZero() {
		return pgtype.Timestamptz{}
	}
	return pgtype.Timestamptz{Time: t, Valid: true}
}

// numeric converts a decimal exactly, without a detour through text.
func numeric(d decimal.Decimal) pgtype.Numeric {
	return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
}

func fromNumeric(n pgtype.Numeric) (decimal.Decimal, error) {
	if !n.Valid || n.NaN || n.InfinityModifier != pgtype.Finite {
		return decimal.Decimal{}, fmt.Errorf("pgledger: fact value is not a finite number: %w", ledger.ErrCorrupt)
	}
	return decimal.NewFromBigInt(n.Int, n.Exp), nil
}
