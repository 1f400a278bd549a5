package pgledger_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// BenchmarkToolCall replays what the executor asks of the Postgres ledger
// and budget for one tool call of a run (executor.runNode and progress):
// reserve the call; report it started (the run's usage, an event); record
// its result (5 new passages and a search); settle; link the evidence to
// the requirement; report it finished (usage, event). nodes goroutines
// call tools of one run at once, as the executor's concurrent nodes do,
// over a pool of pgx's default size. The tool's own work is left out: this
// is the database's share of a tool call.
//
//	DATABASE_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable \
//	  go test -run '^$' -bench ToolCall -benchtime 400x ./ledger/pgledger/
func BenchmarkToolCall(b *testing.B) {
	for _, nodes := range []int{1, 4} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			ctx := context.Background()
			pool := pgtest.Pool(b)
			led, err := pgledger.New(pool, &pgledger.Config{Tenant: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			acct, err := budget.NewPostgres(pool, &budget.Config{Tenant: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			const runID = "bench"
			scopes := []budget.Scope{budget.RunScope(runID), budget.DayScope(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC))}
			for _, s := range scopes {
				if err := acct.SetLimits(ctx, s, budget.NoLimits()); err != nil {
					b.Fatal(err)
				}
			}
			if _, _, err := led.OpenRun(ctx, ledger.Run{ID: runID, Question: "q"}); err != nil {
				b.Fatal(err)
			}
			reqs := make([]ledger.Requirement, nodes)
			for i := range reqs {
				reqs[i] = ledger.Requirement{ID: fmt.Sprint("req", i)}
			}
			if _, err := led.AddRequirements(ctx, runID, reqs); err != nil {
				b.Fatal(err)
			}
			excerpt := strings.Repeat("Gross margin decreased due to higher component costs. ", 4)
			call := func(node int, i int64) error {
				id, req := fmt.Sprint("c", i), reqs[node].ID
				key := runID + "/" + id
				if _, err := acct.Reserve(ctx, key, scopes, budget.Amounts{SearchCalls: 1, Candidates: 40}, nil); err != nil {
					return err
				}
				progress := func(kind string) error {
					if _, err := acct.Usage(ctx, scopes[0]); err != nil {
						return err
					}
					_, err := led.AppendEvent(ctx, runID, ledger.Event{Kind: ledger.EventKind(kind), Subject: id})
					return err
				}
				if err := progress("node_started"); err != nil {
					return err
				}
				doc := fmt.Sprintf("%064x", i)
				ev := make([]ledger.Evidence, 5)
				for j := range ev {
					ev[j] = ledger.Evidence{Kind: ledger.KindPassage, DocumentID: doc, Start: j * 400, End: j*400 + len(excerpt),
						Excerpt: excerpt, Ticker: "AAPL", Form: "10-K", Period: "FY2024", Page: 1, Section: "Item 7"}
				}
				rec, err := led.RecordToolResult(ctx, runID, &ledger.ToolResult{
					Call:     ledger.ToolCall{ID: id, Tool: "search_filings", RequirementID: req},
					Evidence: ev, Search: &ledger.Search{Query: "gross margin", CandidatesSeen: 12}})
				if err != nil {
					return err
				}
				if _, err := acct.Settle(ctx, key, budget.Amounts{SearchCalls: 1, Candidates: 12}); err != nil {
					return err
				}
				ids := make([]string, len(rec.Evidence))
				for j, o := range rec.Evidence {
					ids[j] = o.ID
				}
				if err := led.UpdateRequirement(ctx, runID, req, ledger.RequirementPending, ids); err != nil {
					return err
				}
				return progress("node_finished")
			}
			var next atomic.Int64
			var failed atomic.Pointer[error]
			b.ResetTimer()
			var wg sync.WaitGroup
			for node := range nodes {
				wg.Go(func() {
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						if err := call(node, i); err != nil {
							failed.Store(&err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			if err := failed.Load(); err != nil {
				b.Fatal(*err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// BenchmarkLedgerOps times the ledger's writes one at a time, one caller.
//
//	DATABASE_URL=... go test -run '^$' -bench LedgerOps -benchtime 500x ./ledger/pgledger/
func BenchmarkLedgerOps(b *testing.B) {
	ctx := context.Background()
	setup := func(b *testing.B) *pgledger.Store {
		s, err := pgledger.New(pgtest.Pool(b), &pgledger.Config{Tenant: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.OpenRun(ctx, ledger.Run{ID: "r", Question: "q"}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.AddRequirements(ctx, "r", []ledger.Requirement{{ID: "req"}}); err != nil {
			b.Fatal(err)
		}
		return s
	}
	b.Run("AppendEvent", func(b *testing.B) {
		s := setup(b)
		for b.Loop() {
			if _, err := s.AppendEvent(ctx, "r", ledger.Event{Kind: "node_started", Subject: "n1"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("RecordToolResult", func(b *testing.B) {
		s := setup(b)
		i := 0
		for b.Loop() {
			i++
			doc := fmt.Sprintf("%064x", i)
			ev := []ledger.Evidence{{Kind: ledger.KindPassage, DocumentID: doc, Start: 0, End: 200, Excerpt: "x"},
				{Kind: ledger.KindPassage, DocumentID: doc, Start: 400, End: 600, Excerpt: "y"}}
			if _, err := s.RecordToolResult(ctx, "r", &ledger.ToolResult{Call: ledger.ToolCall{ID: fmt.Sprint("c", i), Tool: "search_filings", RequirementID: "req"},
				Evidence: ev, Search: &ledger.Search{Query: "q"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("UpdateRequirement", func(b *testing.B) {
		s := setup(b)
		if _, err := s.RecordToolResult(ctx, "r", &ledger.ToolResult{Call: ledger.ToolCall{ID: "c", Tool: "search_filings"},
			Evidence: []ledger.Evidence{{Kind: ledger.KindPassage, DocumentID: "d", Start: 0, End: 10}}}); err != nil {
			b.Fatal(err)
		}
		ids := []string{ledger.EvidenceID("d", 0, 10)}
		for b.Loop() {
			if err := s.UpdateRequirement(ctx, "r", "req", ledger.RequirementPending, ids); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Load", func(b *testing.B) {
		s := setup(b)
		for b.Loop() {
			if _, err := s.Load(ctx, "r"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
