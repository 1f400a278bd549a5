package pgledger_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// The event log refuses UPDATE and DELETE in the database itself, not
// only through the store's API.
func TestEventLogIsAppendOnlyInTheDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	s, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.OpenRun(ctx, ledger.Run{ID: "r", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`UPDATE run_events SET message = 'rewritten' WHERE run_id = 'r'`,
		`DELETE FROM run_events WHERE run_id = 'r'`,
	} {
		_, err := pool.Exec(ctx, sql)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || !strings.Contains(pgErr.Message, "append-only") {
			t.Errorf("%s: %v, want the append-only refusal", sql, err)
		}
	}
	evs, err := s.Events(ctx, "r")
	if err != nil || len(evs) != 1 || evs[0].Message != "" {
		t.Fatalf("events after refused edits: %+v, %v", evs, err)
	}
	// Deleting a whole run still cascades to its log.
	if _, err := pool.Exec(ctx, `DELETE FROM runs WHERE tenant_id = 'acme' AND id = 'r'`); err != nil {
		t.Fatalf("delete run: %v", err)
	}
	if _, err := s.Run(ctx, "r"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("Run after delete = %v", err)
	}
}

// Every ledger table carries tenant_id as the first column of its key.
func TestEveryLedgerTableIsKeyedByTenant(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	rows, err := pool.Query(context.Background(), `
SELECT c.relname, a.attname
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
WHERE i.indisprimary AND c.relnamespace = current_schema()::regnamespace
  AND c.relname IN ('runs', 'requirements', 'tool_calls', 'evidence', 'requirement_evidence', 'ledger_facts',
                    'contradictions', 'search_history', 'run_events')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			t.Fatal(err)
		}
		n++
		if col != "tenant_id" {
			t.Errorf("table %s's primary key starts with %s, want tenant_id", table, col)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 9 {
		t.Fatalf("found %d ledger tables, want 9", n)
	}
}

// BenchmarkRecordEvidence measures evidence rows written per second: each
// op records one tool result of perResult new spans in one transaction,
// with the rows written by one multi-row INSERT in the commit batch
// (unnest, what the store does), one COPY before it (copy), an INSERT per
// row queued in the commit batch (batch) or one INSERT round trip each
// (row, the baseline). The run grows to b.N*perResult spans.
//
// The table first holds 20 other runs of 1,000 spans each and is analysed,
// as autovacuum would have it in service ("analysed"); "unanalysed" starts
// from an empty table that was never analysed, where Postgres plans
// without statistics (autovacuum is off on the benchmark machine).
//
//	DATABASE_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable \
//	  go test -run '^$' -bench RecordEvidence -benchtime 300x ./ledger/pgledger/
func BenchmarkRecordEvidence(b *testing.B) {
	for _, table := range []string{"analysed", "unanalysed"} {
		for _, perResult := range []int{10, 100} {
			for _, writer := range []string{"unnest", "copy", "batch", "row"} {
				if table == "unanalysed" && writer != "unnest" {
					continue
				}
				b.Run(fmt.Sprintf("%s/rows=%d/%s", table, perResult, writer), func(b *testing.B) {
					benchmarkRecordEvidence(b, table == "analysed", perResult, writer)
				})
			}
		}
	}
}

// backgroundSQL gives the evidence table 20 finished runs of 1,000 spans
// in 50 documents each, and statistics.
const backgroundSQL = `
INSERT INTO runs (tenant_id, id, question, mode, status, created_at)
SELECT 'bench', 'old' || r, 'q', 'rules', 'supported', now() FROM generate_series(1, 20) r;
INSERT INTO tool_calls (tenant_id, run_id, id, tool)
SELECT 'bench', 'old' || r, 'c0', 'search_filings' FROM generate_series(1, 20) r;
INSERT INTO evidence (tenant_id, run_id, id, kind, document_id, start_offset, end_offset, excerpt, tool_call_id)
SELECT 'bench', 'old' || r, 'E' || substr(md5(r || '/' || i), 1, 12), 'passage',
	encode(sha256(convert_to((i % 50)::text, 'UTF8')), 'hex'), i * 400, i * 400 + 330, repeat('x', 330), 'c0'
FROM generate_series(1, 20) r, generate_series(1, 1000) i;
ANALYZE runs, tool_calls, evidence, search_history, run_events;`

func benchmarkRecordEvidence(b *testing.B, analysed bool, perResult int, writer string) {
	ctx := context.Background()
	pool := pgtest.Pool(b)
	s, err := pgledger.New(pool, &pgledger.Config{Tenant: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	pgledger.UseEvidenceWriter(s, writer)
	if analysed {
		if _, err := pool.Exec(ctx, backgroundSQL); err != nil {
			b.Fatal(err)
		}
	}
	if _, _, err := s.OpenRun(ctx, ledger.Run{ID: "bench", Question: "q"}); err != nil {
		b.Fatal(err)
	}
	excerpt := strings.Repeat("Gross margin decreased due to higher component costs. ", 6)
	results := make([]*ledger.ToolResult, b.N)
	for i := range results {
		doc := fmt.Sprintf("%064x", i)
		ev := make([]ledger.Evidence, perResult)
		for j := range ev {
			ev[j] = ledger.Evidence{Kind: ledger.KindPassage, DocumentID: doc, Start: j * 400, End: j*400 + len(excerpt),
				Excerpt: excerpt, Ticker: "AAPL", Form: "10-K", Period: "FY2024", Page: j/10 + 1, Section: "Item 7"}
		}
		results[i] = &ledger.ToolResult{Call: ledger.ToolCall{ID: fmt.Sprintf("c%d", i), Tool: "search_filings"},
			Evidence: ev, Search: &ledger.Search{Query: "gross margin", CandidatesSeen: perResult}}
	}
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		rec, err := s.RecordToolResult(ctx, "bench", results[i])
		if err != nil {
			b.Fatal(err)
		}
		if rec.NewEvidence != perResult {
			b.Fatalf("new evidence %d, want %d", rec.NewEvidence, perResult)
		}
	}
	b.ReportMetric(float64(b.N*perResult)/time.Since(start).Seconds(), "rows/s")
}

// RecordToolResultTx commits with the caller's transaction, and a failed
// call leaves that transaction clean and usable.
func TestRecordToolResultTx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	s, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.OpenRun(ctx, ledger.Run{ID: "r", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	ev := ledger.Evidence{Kind: ledger.KindPassage, DocumentID: "d", Start: 0, End: 10}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	bad := &ledger.ToolResult{Call: ledger.ToolCall{ID: "c1", Tool: "search_filings"}, Evidence: []ledger.Evidence{ev},
		Facts: []ledger.Fact{{EvidenceID: "E000000000000", Concept: "x"}}}
	if _, err := s.RecordToolResultTx(ctx, tx, "r", bad); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("bad result = %v, want ErrNotFound", err)
	}
	good := &ledger.ToolResult{Call: ledger.ToolCall{ID: "c1", Tool: "search_filings"}, Evidence: []ledger.Evidence{ev}}
	rec, err := s.RecordToolResultTx(ctx, tx, "r", good)
	if err != nil || rec.NewEvidence != 1 {
		t.Fatalf("good result after a failed one in the same tx = %+v, %v", rec, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load(ctx, "r")
	if err != nil || len(l.Evidence) != 1 || len(l.ToolCalls) != 1 || len(l.Facts) != 0 {
		t.Fatalf("after commit: %v %+v", err, l)
	}
}
