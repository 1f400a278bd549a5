package pgledger

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/ledgerline/research/ledger"
)

// UseEvidenceWriter swaps how s writes a result's new evidence rows, for
// BenchmarkRecordEvidence: "unnest" (the default, one multi-row INSERT in
// the commit batch), "copy" (one COPY, a round trip before the commit
// batch), "batch" (an INSERT per row, queued in the commit batch) or "row"
// (one INSERT round trip per row, the baseline).
func UseEvidenceWriter(s *Store, name string) {
	switch name {
	case "unnest":
		s.insertEvidence = unnestEvidence
	case "copy":
		s.insertEvidence = copyEvidence
	case "batch":
		s.insertEvidence = batchEvidence
	case "row":
		s.insertEvidence = rowEvidence
	default:
		panic("pgledger: unknown evidence writer " + name)
	}
}

const insertEvidenceRowSQL = `
INSERT INTO evidence (tenant_id, run_id, id, kind, document_id, start_offset, end_offset, excerpt, ticker, form, period, page, section, tool_call_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`

func rowArgs(s *Store, runID string, e ledger.Evidence) []any {
	return []any{s.tenant, runID, e.ID, string(e.Kind), e.DocumentID, e.Start, e.End,
		e.Excerpt, e.Ticker, e.Form, e.Period, e.Page, e.Section, e.ToolCallID}
}

func rowEvidence(ctx context.Context, q sender, _ *pgx.Batch, s *Store, runID string, ev []ledger.Evidence) error {
	for _, e := range ev {
		if _, err := q.Exec(ctx, insertEvidenceRowSQL, rowArgs(s, runID, e)...); err != nil {
			return err
		}
	}
	return nil
}

func batchEvidence(_ context.Context, _ sender, w *pgx.Batch, s *Store, runID string, ev []ledger.Evidence) error {
	for _, e := range ev {
		w.Queue(insertEvidenceRowSQL, rowArgs(s, runID, e)...)
	}
	return nil
}

// HeldSpansSQL and HeldFactsSQL are the reads of what a run holds, for
// TestHeldReadsProbeTheIndex.
const (
	HeldSpansSQL = heldSpansSQL
	HeldFactsSQL = heldFactsSQL
)
