package pgledger

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/ledgerline/research/ledger"
)

// UseEvidenceWriter swaps how s writes a result's new evidence rows, for
// BenchmarkRecordEvidence: "copy" (the default, one COPY), "batch" (one
// pgx.Batch of INSERTs) or "row" (one INSERT round trip per row, the
// baseline).
func UseEvidenceWriter(s *Store, name string) {
	switch name {
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

func rowEvidence(ctx context.Context, tx pgx.Tx, s *Store, runID string, ev []ledger.Evidence) error {
	for _, e := range ev {
		if _, err := tx.Exec(ctx, insertEvidenceRowSQL, rowArgs(s, runID, e)...); err != nil {
			return err
		}
	}
	return nil
}

func batchEvidence(ctx context.Context, tx pgx.Tx, s *Store, runID string, ev []ledger.Evidence) error {
	b := &pgx.Batch{}
	for _, e := range ev {
		b.Queue(insertEvidenceRowSQL, rowArgs(s, runID, e)...)
	}
	return tx.SendBatch(ctx, b).Close()
}
