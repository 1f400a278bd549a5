package pgledger_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// The reads of the spans and facts a run holds probe an index by document
// (by fact), for a run the table's statistics do not know yet, in the
// custom plans of a statement's first runs and in the generic plan
// Postgres settles on after five: they never read every span of the run.
func TestHeldReadsProbeTheIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	if _, err := pool.Exec(ctx, backgroundSQL); err != nil {
		t.Fatal(err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	defer conn.Exec(context.WithoutCancel(ctx), `RESET plan_cache_mode`)
	for _, tt := range []struct {
		name, sql, want string
	}{
		{"spans", pgledger.HeldSpansSQL, "document_id = d.id"},
		{"facts", pgledger.HeldFactsSQL, "id = w.id"},
	} {
		if _, err := conn.Exec(ctx, "PREPARE held_"+tt.name+" AS "+tt.sql); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
			if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
				t.Fatal(err)
			}
			for _, run := range []string{"old1", "new"} {
				rows, err := conn.Query(ctx, "EXPLAIN EXECUTE held_"+tt.name+"('bench', '"+run+"', ARRAY['a', 'b'])")
				if err != nil {
					t.Fatal(err)
				}
				plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
				if err != nil {
					t.Fatal(err)
				}
				text := strings.Join(plan, "\n")
				if !strings.Contains(text, "Index Cond: ") || !strings.Contains(text, tt.want+")") || strings.Contains(text, "Filter:") {
					t.Errorf("%s, %s, run %s: the plan does not probe the index with %q:\n%s", tt.name, mode, run, tt.want, text)
				}
			}
		}
	}
}

// Evidence names a tool call of its tenant and run, checked once per
// statement by the database (migration 0009) with a foreign key's rules.
func TestEvidenceNamesItsToolCall(t *testing.T) {
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
	if _, err := s.AddRequirements(ctx, "r", []ledger.Requirement{{ID: "q1"}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c1", "c2"} {
		ev := ledger.Evidence{Kind: ledger.KindPassage, DocumentID: "doc-" + id, Start: 0, End: 10, Excerpt: "0123456789"}
		res := &ledger.ToolResult{Call: ledger.ToolCall{ID: id, Tool: "search_filings", RequirementID: "q1"},
			Evidence: []ledger.Evidence{ev},
			Facts:    []ledger.Fact{{EvidenceID: ledger.EvidenceID(ev.DocumentID, 0, 10), Concept: "x"}}}
		if _, err := s.RecordToolResult(ctx, "r", res); err != nil {
			t.Fatal(err)
		}
	}
	fkViolation := func(what string, err error) {
		t.Helper()
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23503" {
			t.Errorf("%s: %v, want SQLSTATE 23503", what, err)
		}
	}
	count := func(table string) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE tenant_id = 'acme'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// An unknown call, or one of another tenant or run, is refused, in a
	// multi-row insert whose other rows name a call that exists.
	for _, call := range [][3]string{{"acme", "r", "nope"}, {"other", "r", "c1"}, {"acme", "r2", "c1"}} {
		_, err := pool.Exec(ctx, `
INSERT INTO evidence (tenant_id, run_id, id, kind, document_id, start_offset, end_offset, tool_call_id)
VALUES ('acme', 'r', 'E1', 'passage', 'd', 0, 1, 'c1'), ($1, $2, 'E2', 'passage', 'd', 1, 2, $3)`, call[0], call[1], call[2])
		fkViolation(fmt.Sprintf("insert naming call %v", call), err)
	}
	_, err = pool.Exec(ctx, `UPDATE evidence SET tool_call_id = 'nope' WHERE tenant_id = 'acme' AND tool_call_id = 'c1'`)
	fkViolation("evidence moved to an unknown call", err)
	_, err = pool.Exec(ctx, `UPDATE tool_calls SET id = 'c9' WHERE tenant_id = 'acme' AND id = 'c1'`)
	fkViolation("renaming a call that evidence names", err)
	if _, err := pool.Exec(ctx, `UPDATE tool_calls SET error = 'late' WHERE tenant_id = 'acme'`); err != nil {
		t.Errorf("updating calls without touching their keys: %v", err)
	}
	if n := count("evidence"); n != 2 {
		t.Fatalf("%d evidence rows after the refused writes, want 2", n)
	}

	// Deleting a call deletes its evidence, and with it the links and facts.
	if _, err := pool.Exec(ctx, `DELETE FROM tool_calls WHERE tenant_id = 'acme' AND id = 'c1'`); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Evidence) != 1 || l.Evidence[0].ToolCallID != "c2" || len(l.Facts) != 1 || len(l.Requirements[0].Evidence) != 1 {
		t.Fatalf("after deleting c1: evidence %+v, facts %+v, links %v", l.Evidence, l.Facts, l.Requirements[0].Evidence)
	}

	// Deleting the run deletes the rest; truncating the runs empties evidence.
	if _, err := pool.Exec(ctx, `DELETE FROM runs WHERE tenant_id = 'acme' AND id = 'r'`); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"evidence", "ledger_facts", "requirement_evidence", "tool_calls"} {
		if n := count(table); n != 0 {
			t.Errorf("%d rows left in %s after deleting the run", n, table)
		}
	}
	if _, _, err := s.OpenRun(ctx, ledger.Run{ID: "r", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	res := &ledger.ToolResult{Call: ledger.ToolCall{ID: "c1", Tool: "search_filings"},
		Evidence: []ledger.Evidence{{Kind: ledger.KindPassage, DocumentID: "d", Start: 0, End: 1}}}
	if _, err := s.RecordToolResult(ctx, "r", res); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `TRUNCATE runs CASCADE`); err != nil {
		t.Fatal(err)
	}
	if n := count("evidence"); n != 0 {
		t.Errorf("%d evidence rows after TRUNCATE runs CASCADE", n)
	}
}
