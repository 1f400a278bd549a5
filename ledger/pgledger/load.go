package pgledger

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/ledgerline/research/ledger"
)

const requirementsSQL = `
SELECT r.id, r.issuer, r.period, r.description, r.completion_condition, r.status,
	coalesce(array_agg(l.evidence_id ORDER BY l.ord) FILTER (WHERE l.evidence_id IS NOT NULL), '{}')
FROM requirements r
LEFT JOIN requirement_evidence l
	ON l.tenant_id = r.tenant_id AND l.run_id = r.run_id AND l.requirement_id = r.id
WHERE r.tenant_id = $1 AND r.run_id = $2
GROUP BY r.tenant_id, r.run_id, r.id, r.ord
ORDER BY r.ord`

const toolCallsSQL = `
SELECT id, tool, requirement_id, arguments, started_at, finished_at, error
FROM tool_calls WHERE tenant_id = $1 AND run_id = $2 ORDER BY ord`

const evidenceSQL = `
SELECT id, kind, document_id, start_offset, end_offset, excerpt, ticker, form, period, page, section, tool_call_id
FROM evidence WHERE tenant_id = $1 AND run_id = $2 ORDER BY ord`

const factsSQL = `
SELECT id, evidence_id, concept, value, unit, period, tool_call_id
FROM ledger_facts WHERE tenant_id = $1 AND run_id = $2 ORDER BY ord`

const contradictionsSQL = `
SELECT id, requirement_id, evidence_ids, difference
FROM contradictions WHERE tenant_id = $1 AND run_id = $2 ORDER BY ord`

const searchesSQL = `
SELECT tool_call_id, query_key, query, filters, candidates_seen, new_evidence
FROM search_history WHERE tenant_id = $1 AND run_id = $2 ORDER BY ord`

const eventsSQL = `
SELECT seq, at, kind, subject, duration_us, message, data
FROM run_events WHERE tenant_id = $1 AND run_id = $2 ORDER BY seq`

// Load returns everything recorded for the run, read in one snapshot: a
// repeatable-read transaction whose BEGIN, queries and COMMIT go out in
// one round trip.
func (s *Store) Load(ctx context.Context, runID string) (*ledger.RunLedger, error) {
	if err := checkRunID(runID); err != nil {
		return nil, translate(err, "load run %s", runID)
	}
	l := &ledger.RunLedger{}
	var found func() error
	err := s.readTx(ctx, func(b *pgx.Batch) {
		found = s.queueRun(b, runID, &l.Run)
		args := []any{s.tenant, runID}
		queueCollect(b, requirementsSQL, args, func(row pgx.CollectableRow) (ledger.Requirement, error) {
			var r ledger.Requirement
			var status string
			err := row.Scan(&r.ID, &r.Issuer, &r.Period, &r.Description, &r.CompletionCondition, &status, &r.Evidence)
			r.Status = ledger.RequirementStatus(status)
			return r, err
		}, &l.Requirements)
		queueCollect(b, toolCallsSQL, args, func(row pgx.CollectableRow) (ledger.ToolCall, error) {
			var c ledger.ToolCall
			var args []byte
			var started, finished pgtype.Timestamptz
			err := row.Scan(&c.ID, &c.Tool, &c.RequirementID, &args, &started, &finished, &c.Error)
			if len(args) > 0 {
				c.Arguments = json.RawMessage(args)
			}
			c.Started, c.Finished = utc(started), utc(finished)
			return c, err
		}, &l.ToolCalls)
		queueCollect(b, evidenceSQL, args, func(row pgx.CollectableRow) (ledger.Evidence, error) {
			var e ledger.Evidence
			var kind string
			err := row.Scan(&e.ID, &kind, &e.DocumentID, &e.Start, &e.End, &e.Excerpt, &e.Ticker, &e.Form, &e.Period,
				&e.Page, &e.Section, &e.ToolCallID)
			e.Kind = ledger.EvidenceKind(kind)
			return e, err
		}, &l.Evidence)
		queueCollect(b, factsSQL, args, func(row pgx.CollectableRow) (ledger.Fact, error) {
			var f ledger.Fact
			var v pgtype.Numeric
			if err := row.Scan(&f.ID, &f.EvidenceID, &f.Concept, &v, &f.Unit, &f.Period, &f.ToolCallID); err != nil {
				return f, err
			}
			var err error
			f.Value, err = fromNumeric(v)
			return f, err
		}, &l.Facts)
		queueCollect(b, contradictionsSQL, args, func(row pgx.CollectableRow) (ledger.Contradiction, error) {
			var c ledger.Contradiction
			err := row.Scan(&c.ID, &c.RequirementID, &c.EvidenceIDs, &c.Difference)
			return c, err
		}, &l.Contradictions)
		queueCollect(b, searchesSQL, args, func(row pgx.CollectableRow) (ledger.Search, error) {
			var sr ledger.Search
			err := row.Scan(&sr.ToolCallID, &sr.QueryKey, &sr.Query, &sr.Filters, &sr.CandidatesSeen, &sr.NewEvidence)
			if len(sr.Filters) == 0 {
				sr.Filters = nil
			}
			return sr, err
		}, &l.Searches)
		queueCollect(b, eventsSQL, args, scanEvent, &l.Events)
	})
	if err == nil {
		err = found()
	}
	if err != nil {
		return nil, translate(err, "load run %s", runID)
	}
	return l, nil
}

func scanEvent(row pgx.CollectableRow) (ledger.Event, error) {
	var e ledger.Event
	var kind string
	var us int64
	var data []byte
	err := row.Scan(&e.Seq, &e.At, &kind, &e.Subject, &us, &e.Message, &data)
	e.Kind, e.Duration, e.At = ledger.EventKind(kind), time.Duration(us)*time.Microsecond, e.At.UTC()
	if len(data) > 0 {
		e.Data = json.RawMessage(data)
	}
	return e, err
}

// queueCollect queues a query whose rows scan collects into *dst.
func queueCollect[T any](b *pgx.Batch, sql string, args []any, scan pgx.RowToFunc[T], dst *[]T) {
	b.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		var err error
		*dst, err = pgx.CollectRows(rows, scan)
		return err
	})
}

func utc(t pgtype.Timestamptz) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}
