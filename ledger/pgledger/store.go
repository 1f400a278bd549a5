package pgledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"

	"github.com/ledgerline/research/internal/pgtx"
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

	// insertEvidence writes a result's new evidence rows; CopyFrom unless a
	// benchmark swaps in the row-at-a-time baseline.
	insertEvidence func(ctx context.Context, tx pgx.Tx, s *Store, runID string, ev []ledger.Evidence) error
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
	s := &Store{pool: pool, tenant: cfg.Tenant, now: cfg.Now, insertEvidence: copyEvidence}
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

// withTx runs fn in a transaction, committed when fn returns nil.
func (s *Store) withTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgtx.WithTx(ctx, s.pool, pgx.TxOptions{}, fn)
}

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

// run is a locked run inside a transaction: events appended through it get
// consecutive sequence numbers, stored back by flush.
type run struct {
	id   string
	last int64
	evs  []ledger.Event
}

const lockRunSQL = `SELECT last_event FROM runs WHERE tenant_id = $1 AND id = $2 FOR UPDATE`

// lock locks the run's row for the transaction; ErrNotFound when the tenant
// holds no such run.
func (s *Store) lock(ctx context.Context, tx pgx.Tx, runID string) (*run, error) {
	if !ledger.ValidName(runID) {
		return nil, fmt.Errorf("pgledger: run %q: %w", runID, ledger.ErrNotFound)
	}
	r := &run{id: runID}
	if err := tx.QueryRow(ctx, lockRunSQL, s.tenant, runID).Scan(&r.last); err != nil {
		return nil, translate(err, "run %s", runID)
	}
	return r, nil
}

func (r *run) append(e ledger.Event) ledger.Event {
	r.last++
	e.Seq = r.last
	r.evs = append(r.evs, e)
	return e
}

const insertEventSQL = `
INSERT INTO run_events (tenant_id, run_id, seq, at, kind, subject, duration_us, message, data)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`

const setLastEventSQL = `UPDATE runs SET last_event = $3 WHERE tenant_id = $1 AND id = $2`

// flush writes the events appended through r and the run's last sequence
// number.
func (s *Store) flush(ctx context.Context, tx pgx.Tx, r *run) error {
	if len(r.evs) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	for _, e := range r.evs {
		var data any
		if len(e.Data) > 0 {
			data = string(e.Data)
		}
		b.Queue(insertEventSQL, s.tenant, r.id, e.Seq, e.At, string(e.Kind), e.Subject, e.Duration.Microseconds(), e.Message, data)
	}
	b.Queue(setLastEventSQL, s.tenant, r.id, r.last)
	return tx.SendBatch(ctx, b).Close()
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
	err := s.withTx(ctx, func(tx pgx.Tx) (err error) {
		out, resumed, err = s.openRun(ctx, tx, r)
		return err
	})
	if err != nil {
		return ledger.Run{}, false, translate(err, "open run %s", r.ID)
	}
	return out, resumed, nil
}

func (s *Store) getRun(ctx context.Context, q pgx.Tx, runID string) (ledger.Run, error) {
	var r ledger.Run
	var finished pgtype.Timestamptz
	var mode, status string
	err := q.QueryRow(ctx, runSQL, s.tenant, runID).Scan(&r.ID, &r.Question, &mode, &status, &r.CorpusSnapshot, &r.Created, &finished)
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
	if !ledger.ValidName(runID) {
		return ledger.Run{}, fmt.Errorf("pgledger: run %q: %w", runID, ledger.ErrNotFound)
	}
	var r ledger.Run
	err := s.readTx(ctx, func(tx pgx.Tx) (err error) {
		r, err = s.getRun(ctx, tx, runID)
		return err
	})
	return r, err
}

// readTx runs fn in a read-only, repeatable-read transaction, so a
// multi-query read sees one state.
func (s *Store) readTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
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

// finish records a run's verdict, and after it then, when not nil, in the
// same transaction; it returns then as recorded.
func (s *Store) finish(ctx context.Context, runID string, status ledger.RunStatus, then *ledger.Event) (ledger.Event, error) {
	var out ledger.Event
	if then != nil {
		out = *then
	}
	if !status.Terminal() {
		return out, &ledger.ValidationError{Field: "status", Problem: fmt.Sprintf("%q is not a terminal run status", status)}
	}
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		lk, err := s.lock(ctx, tx, runID)
		if err != nil {
			return err
		}
		now := s.clock()
		if _, err := tx.Exec(ctx, finishRunSQL, s.tenant, runID, string(status), now); err != nil {
			return err
		}
		lk.append(ledger.Event{At: now, Kind: ledger.EventRunFinished, Subject: runID, Message: string(status)})
		if then != nil {
			e := *then
			e.At = now
			out = lk.append(e)
		}
		return s.flush(ctx, tx, lk)
	})
	if err != nil {
		return out, translate(err, "finish run %s", runID)
	}
	return out, nil
}

// AddRequirements records the requirements whose ids are new.
func (s *Store) AddRequirements(ctx context.Context, runID string, reqs []ledger.Requirement) (int, error) {
	reqs = append([]ledger.Requirement(nil), reqs...)
	if err := ledger.ValidateRequirements(reqs); err != nil {
		return 0, err
	}
	var added int
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		lk, err := s.lock(ctx, tx, runID)
		if err != nil {
			return err
		}
		if len(reqs) == 0 {
			return nil
		}
		cols := make([][]string, 6)
		for _, r := range reqs {
			for i, v := range []string{r.ID, r.Issuer, r.Period, r.Description, r.CompletionCondition, string(r.Status)} {
				cols[i] = append(cols[i], v)
			}
		}
		tag, err := tx.Exec(ctx, insertRequirementsSQL, s.tenant, runID, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5])
		if err != nil {
			return err
		}
		added = int(tag.RowsAffected())
		if added > 0 {
			lk.append(ledger.Event{At: s.clock(), Kind: ledger.EventPlan, Message: fmt.Sprintf("%d requirements added", added)})
		}
		return s.flush(ctx, tx, lk)
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

// UpdateRequirement sets a requirement's status and links evidence to it.
func (s *Store) UpdateRequirement(ctx context.Context, runID, reqID string, status ledger.RequirementStatus, evidenceIDs []string) error {
	if !status.Valid() {
		return &ledger.ValidationError{Field: "status", Problem: fmt.Sprintf("%q is not pending, supported, missing or conflicting", status)}
	}
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		lk, err := s.lock(ctx, tx, runID)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, updateRequirementSQL, s.tenant, runID, reqID, string(status))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("pgledger: requirement %s of run %s: %w", reqID, runID, ledger.ErrNotFound)
		}
		if len(evidenceIDs) > 0 {
			if _, err := tx.Exec(ctx, linkEvidenceSQL, s.tenant, runID, reqID, evidenceIDs); err != nil {
				return err
			}
		}
		msg := "status " + string(status)
		if len(evidenceIDs) > 0 {
			msg += fmt.Sprintf(", %d evidence linked", len(evidenceIDs))
		}
		lk.append(ledger.Event{At: s.clock(), Kind: ledger.EventRequirement, Subject: reqID, Message: msg})
		return s.flush(ctx, tx, lk)
	})
	return translate(err, "update requirement %s of run %s", reqID, runID)
}

const insertToolCallSQL = `
INSERT INTO tool_calls (tenant_id, run_id, id, tool, requirement_id, arguments, started_at, finished_at, error)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (tenant_id, run_id, id) DO NOTHING`

const requirementExistsSQL = `
SELECT EXISTS (SELECT 1 FROM requirements WHERE tenant_id = $1 AND run_id = $2 AND id = $3)`

const heldSpansSQL = `
SELECT id, document_id, start_offset, end_offset FROM evidence
WHERE tenant_id = $1 AND run_id = $2 AND document_id = ANY($3::text[])`

var evidenceColumns = []string{"tenant_id", "run_id", "id", "kind", "document_id", "start_offset", "end_offset",
	"excerpt", "ticker", "form", "period", "page", "section", "tool_call_id"}

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
// transaction.
func (s *Store) RecordToolResult(ctx context.Context, runID string, in *ledger.ToolResult) (*ledger.RecordResult, error) {
	res, err := prepare(in)
	if err != nil {
		return nil, err
	}
	var out *ledger.RecordResult
	err = s.withTx(ctx, func(tx pgx.Tx) (err error) {
		out, err = s.recordTx(ctx, tx, runID, res)
		return err
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
	out, err := s.recordTx(ctx, sp, runID, res)
	if err != nil {
		_ = sp.Rollback(context.WithoutCancel(ctx))
		return nil, translate(err, "record tool call %s of run %s", res.Call.ID, runID)
	}
	if err := sp.Commit(ctx); err != nil {
		return nil, translate(err, "record tool call %s of run %s", res.Call.ID, runID)
	}
	return out, nil
}

func (s *Store) recordTx(ctx context.Context, tx pgx.Tx, runID string, res *ledger.ToolResult) (*ledger.RecordResult, error) {
	var out *ledger.RecordResult
	lk, err := s.lock(ctx, tx, runID)
	if err != nil {
		return nil, err
	}
	c := res.Call
	tag, err := tx.Exec(ctx, insertToolCallSQL, s.tenant, runID, c.ID, c.Tool, c.RequirementID,
		jsonArg(c.Arguments), nullTime(c.Started), nullTime(c.Finished), c.Error)
	if err != nil {
		return nil, err
	}
	if tag.RowsAffected() == 0 {
		out = ledger.ReplayResult(res)
		return out, nil
	}
	if c.RequirementID != "" {
		var ok bool
		if err := tx.QueryRow(ctx, requirementExistsSQL, s.tenant, runID, c.RequirementID).Scan(&ok); err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("pgledger: tool call %s: requirement %s of run %s: %w", c.ID, c.RequirementID, runID, ledger.ErrNotFound)
		}
	}
	held, err := s.heldSpans(ctx, tx, runID, res.Evidence)
	if err != nil {
		return nil, err
	}
	outcomes, fresh := ledger.Classify(res.Evidence, func(doc string) []ledger.Evidence { return held[doc] })
	out = &ledger.RecordResult{Evidence: outcomes, NewEvidence: ledger.Count(outcomes, ledger.OutcomeNew)}
	if len(fresh) > 0 {
		if err := s.insertEvidence(ctx, tx, s, runID, fresh); err != nil {
			return nil, err
		}
	}
	if c.RequirementID != "" && len(outcomes) > 0 {
		ids := make([]string, len(outcomes))
		for i, o := range outcomes {
			ids[i] = o.ID
		}
		if _, err := tx.Exec(ctx, linkEvidenceSQL, s.tenant, runID, c.RequirementID, ids); err != nil {
			return nil, err
		}
	}
	if len(res.Facts) > 0 {
		cols := make([][]string, 5)
		values := make([]pgtype.Numeric, len(res.Facts))
		for i, f := range res.Facts {
			for j, v := range []string{f.ID, f.EvidenceID, f.Concept, f.Unit, f.Period} {
				cols[j] = append(cols[j], v)
			}
			values[i] = numeric(f.Value)
		}
		tag, err := tx.Exec(ctx, insertFactsSQL, s.tenant, runID, cols[0], cols[1], cols[2], values, cols[3], cols[4], c.ID)
		if err != nil {
			return nil, err
		}
		out.NewFacts = int(tag.RowsAffected())
	}
	if sr := res.Search; sr != nil {
		filters := sr.Filters
		if filters == nil {
			filters = map[string]string{}
		}
		if _, err := tx.Exec(ctx, insertSearchSQL, s.tenant, runID, c.ID, sr.QueryKey, sr.Query, filters,
			sr.CandidatesSeen, out.NewEvidence); err != nil {
			return nil, err
		}
	}
	lk.append(ledger.Event{At: s.clock(), Kind: ledger.EventToolCall, Subject: c.ID, Duration: c.Duration(),
		Message: ledger.ToolCallMessage(res, out)})
	if err := s.flush(ctx, tx, lk); err != nil {
		return nil, err
	}
	return out, nil
}

// heldSpans returns the run's evidence in the documents the items name.
func (s *Store) heldSpans(ctx context.Context, tx pgx.Tx, runID string, items []ledger.Evidence) (map[string][]ledger.Evidence, error) {
	if len(items) == 0 {
		return nil, nil
	}
	seen := map[string]bool{}
	var docs []string
	for _, e := range items {
		if !seen[e.DocumentID] {
			seen[e.DocumentID] = true
			docs = append(docs, e.DocumentID)
		}
	}
	rows, err := tx.Query(ctx, heldSpansSQL, s.tenant, runID, docs)
	if err != nil {
		return nil, err
	}
	held := map[string][]ledger.Evidence{}
	var e ledger.Evidence
	_, err = pgx.ForEachRow(rows, []any{&e.ID, &e.DocumentID, &e.Start, &e.End}, func() error {
		held[e.DocumentID] = append(held[e.DocumentID], e)
		return nil
	})
	return held, err
}

// copyEvidence writes evidence rows with one COPY.
func copyEvidence(ctx context.Context, tx pgx.Tx, s *Store, runID string, ev []ledger.Evidence) error {
	rows := make([][]any, len(ev))
	for i, e := range ev {
		rows[i] = []any{s.tenant, runID, e.ID, string(e.Kind), e.DocumentID, e.Start, e.End,
			e.Excerpt, e.Ticker, e.Form, e.Period, e.Page, e.Section, e.ToolCallID}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"evidence"}, evidenceColumns, pgx.CopyFromRows(rows))
	return err
}

const evidenceCheckSQL = `
SELECT count(*) FROM evidence WHERE tenant_id = $1 AND run_id = $2 AND id = ANY($3::text[])`

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
	var added bool
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		lk, err := s.lock(ctx, tx, runID)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, evidenceCheckSQL, s.tenant, runID, c.EvidenceIDs).Scan(&n); err != nil {
			return err
		}
		if n != len(c.EvidenceIDs) {
			return fmt.Errorf("pgledger: contradiction %s names evidence run %s does not hold: %w", c.ID, runID, ledger.ErrNotFound)
		}
		tag, err := tx.Exec(ctx, insertContradictionSQL, s.tenant, runID, c.ID, c.RequirementID, c.EvidenceIDs, c.Difference)
		if err != nil {
			return err
		}
		if added = tag.RowsAffected() > 0; !added {
			return nil
		}
		lk.append(ledger.Event{At: s.clock(), Kind: ledger.EventContradiction, Subject: c.RequirementID, Message: c.ID + ": " + c.Difference})
		return s.flush(ctx, tx, lk)
	})
	if err != nil {
		return c, false, translate(err, "add contradiction to run %s", runID)
	}
	return c, added, nil
}

// AppendEvent appends a caller's event.
func (s *Store) AppendEvent(ctx context.Context, runID string, e ledger.Event) (ledger.Event, error) {
	if err := e.Validate(); err != nil {
		return e, err
	}
	e.Data = append(json.RawMessage(nil), e.Data...)
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		lk, err := s.lock(ctx, tx, runID)
		if err != nil {
			return err
		}
		e.At = s.clock()
		e = lk.append(e)
		return s.flush(ctx, tx, lk)
	})
	if err != nil {
		return e, translate(err, "append event to run %s", runID)
	}
	return e, nil
}

// Events returns the run's event log in order.
func (s *Store) Events(ctx context.Context, runID string) ([]ledger.Event, error) {
	var evs []ledger.Event
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		if _, err := s.getRun(ctx, tx, runID); err != nil {
			return err
		}
		var err error
		evs, err = s.events(ctx, tx, runID)
		return err
	})
	return evs, translate(err, "events of run %s", runID)
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
