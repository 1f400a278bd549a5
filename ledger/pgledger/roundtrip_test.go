package pgledger_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// countingPool is a one-connection pool on pool's schema whose round trips
// are counted, so that after a first pass every statement is in the
// connection's statement cache.
func countingPool(t *testing.T, pool *pgxpool.Pool) (*pgxpool.Pool, *pgtest.RoundTrips) {
	t.Helper()
	cfg := pool.Config()
	c := &pgtest.RoundTrips{}
	cfg.ConnConfig.Tracer = c
	cfg.MaxConns = 1
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, c
}

// The round trips each write and read of a run costs, its statements
// prepared: a write that reads before it writes takes two (BEGIN goes with
// the first batch and COMMIT with the last), a write that does not, one
// (a batch Postgres runs as one transaction), a read, one.
func TestRoundTripsPerOperation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, count := countingPool(t, pgtest.Pool(t))
	s, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	const doc = "0000000000000000000000000000000000000000000000000000000000000001"
	type op struct {
		name string
		want int64
		run  func(runID string) error
	}
	ops := []op{
		{"OpenRun", 2, func(id string) error {
			_, _, err := s.OpenRun(ctx, ledger.Run{ID: id, Question: "q"})
			return err
		}},
		{"AddRequirements", 2, func(id string) error {
			_, err := s.AddRequirements(ctx, id, []ledger.Requirement{{ID: "AAPL.margin"}})
			return err
		}},
		{"RecordToolResult", 2, func(id string) error {
			ev := ledger.Evidence{Kind: ledger.KindFact, DocumentID: doc, Start: 10, End: 40, Excerpt: "x"}
			_, err := s.RecordToolResult(ctx, id, &ledger.ToolResult{
				Call:     ledger.ToolCall{ID: "c1", Tool: "lookup_fact", RequirementID: "AAPL.margin"},
				Evidence: []ledger.Evidence{ev, {Kind: ledger.KindPassage, DocumentID: doc, Start: 0, End: 100}},
				Facts: []ledger.Fact{{EvidenceID: ledger.EvidenceID(doc, 10, 40), Concept: "us-gaap:GrossProfit",
					Value: decimal.RequireFromString("180683"), Unit: "USD"}},
				Search: &ledger.Search{Query: "gross margin", CandidatesSeen: 2},
			})
			return err
		}},
		{"UpdateRequirement", 1, func(id string) error {
			return s.UpdateRequirement(ctx, id, "AAPL.margin", ledger.RequirementSupported, []string{ledger.EvidenceID(doc, 0, 100)})
		}},
		{"AppendEvent", 1, func(id string) error {
			_, err := s.AppendEvent(ctx, id, ledger.Event{Kind: ledger.EventDecision, Message: "m"})
			return err
		}},
		{"AddContradiction", 2, func(id string) error {
			_, _, err := s.AddContradiction(ctx, id, ledger.Contradiction{RequirementID: "AAPL.margin",
				EvidenceIDs: []string{ledger.EvidenceID(doc, 0, 100), ledger.EvidenceID(doc, 10, 40)}, Difference: "d"})
			return err
		}},
		{"FinishRun", 1, func(id string) error { return s.FinishRun(ctx, id, ledger.StatusSupported) }},
		{"Run", 1, func(id string) error { _, err := s.Run(ctx, id); return err }},
		{"Events", 1, func(id string) error { _, err := s.Events(ctx, id); return err }},
		{"Load", 1, func(id string) error { _, err := s.Load(ctx, id); return err }},
	}
	for pass := range 2 { // the first pass fills the statement cache
		runID := fmt.Sprint("r", pass)
		for _, o := range ops {
			before := count.Count()
			if err := o.run(runID); err != nil {
				t.Fatalf("%s: %v", o.name, err)
			}
			if got := count.Count() - before; pass == 1 && got != o.want {
				t.Errorf("%s took %d round trips, want %d", o.name, got, o.want)
			}
		}
	}
	l, err := s.Load(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Evidence) != 2 || len(l.Facts) != 1 || len(l.Searches) != 1 || len(l.Contradictions) != 1 ||
		l.Run.Status != ledger.StatusSupported || len(l.Events) != 7 {
		t.Fatalf("run r1 holds %d evidence, %d facts, %d searches, %d contradictions, %d events, status %s",
			len(l.Evidence), len(l.Facts), len(l.Searches), len(l.Contradictions), len(l.Events), l.Run.Status)
	}
}
