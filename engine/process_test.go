package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/llm/llmtest"
	"github.com/ledgerline/research/server"
)

var acmeFiling = corpustest.Filing{
	Name: "acme-2024.html", Ticker: "ACME", Company: "Acme Corp", Revenue: "1,000", Cost: "600",
	Item7: "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
		"We expect gross margin to remain under pressure in 2025 as component costs stay elevated.",
}

const acmeQuestion = "What drove Acme's gross margin in fiscal 2024 and does management expect it to persist?"

// dearPrices price every model at $5 a million tokens, so that a few
// calls spend a daily cap.
type dearPrices struct{}

func (dearPrices) Price(model string) (configs.PriceEntry, error) {
	p := decimal.NewFromInt(5)
	return configs.PriceEntry{Model: model, InputPerMillion: p, OutputPerMillion: p}, nil
}

func ingest(t *testing.T, pool *pgxpool.Pool, tenant string) {
	t.Helper()
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: tenant})
	if err != nil {
		t.Fatal(err)
	}
	if err := corpustest.Ingest(context.Background(), store, corpustest.WriteFilings(t, t.TempDir(), acmeFiling)); err != nil {
		t.Fatal(err)
	}
}

// TestDailyCapAcrossWorkers runs model-mode runs of one tenant on three
// workers, each a process of its own with no API server in front (so no
// one created the tenant's day budget beforehand): every run is executed
// (none fails for want of a day budget), the day's budget is created once
// with the tenant's persisted daily spend limit, and the money the runs
// spend together never goes above it.
func TestDailyCapAcrossWorkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	ingest(t, pool, "acme")
	ts, err := server.NewTenants(pool)
	if err != nil {
		t.Fatal(err)
	}
	limits := server.DefaultTenantLimits()
	limits.DailySpendUSD = decimal.RequireFromString("0.20")
	if _, _, err := ts.Create(ctx, "acme", &limits); err != nil {
		t.Fatal(err)
	}

	// The model answers what no planner or synthesizer can use, and
	// reports close to the most each call may use: each run costs about
	// what it holds, and auto mode falls back to the rules paths.
	model := llmtest.New(t)
	model.OnFunc("task_graph", func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: `{}`, Usage: llm.Usage{InputTokens: llmtest.PromptTokens(r.Messages), OutputTokens: r.MaxTokens}}
	})
	model.OnFunc("answer", func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: `{}`, Usage: llm.Usage{InputTokens: 7900, OutputTokens: r.MaxTokens}}
	})
	for i := range 3 {
		proc, err := engine.New(&engine.Config{
			Pool: pool, Prices: dearPrices{},
			Model: &executor.ModelConfig{Caller: model.Client(t), Model: "dear-model", PlanTokens: 500, AnswerTokens: 500},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { proc.Close() })
		w, err := jobs.NewWorker(pool, proc.Engine, jobs.WorkerOptions{Concurrency: 4, PollInterval: 100 * time.Millisecond, ID: fmt.Sprintf("worker-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := w.Stop(sctx); err != nil {
				t.Errorf("stop worker %d: %v", i, err)
			}
		})
	}

	const runs = 16
	run := executor.DefaultLimits()
	run.SpendUSD = decimal.RequireFromString("0.50")
	var ids []string
	for i := range runs {
		id, err := jobs.Submit(ctx, pool, "acme", jobs.Submission{
			Question: acmeQuestion, Mode: "auto", ModelConfigured: true, Limits: &run,
			IdempotencyKey: fmt.Sprintf("run-%d", i),
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var open int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM runs WHERE tenant_id = 'acme' AND finished_at IS NULL`).Scan(&open); err != nil {
			t.Fatal(err)
		}
		if open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d runs unfinished after two minutes", open, runs)
		}
		time.Sleep(100 * time.Millisecond)
	}

	var failed int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM runs WHERE tenant_id = 'acme' AND status = 'failed'`).Scan(&failed); err != nil {
		t.Fatal(err)
	}
	if failed > 0 {
		t.Errorf("%d of %d runs failed", failed, runs)
	}
	var days int
	var limit, daySpend, runSpend decimal.Decimal
	if err := pool.QueryRow(ctx, `SELECT count(*), coalesce(max(limit_spend_usd), -1), coalesce(sum(settled_spend_usd), 0) FROM budgets WHERE tenant_id = 'acme' AND scope_kind = 'tenant_day'`).Scan(&days, &limit, &daySpend); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT coalesce(sum(settled_spend_usd), 0) FROM budgets WHERE tenant_id = 'acme' AND scope_kind = 'run'`).Scan(&runSpend); err != nil {
		t.Fatal(err)
	}
	if days != 1 || !limit.Equal(limits.DailySpendUSD) {
		t.Errorf("%d day budgets with spend limit %s, want 1 with %s", days, limit, limits.DailySpendUSD)
	}
	if runSpend.GreaterThan(limits.DailySpendUSD) || daySpend.GreaterThan(limits.DailySpendUSD) {
		t.Errorf("the runs spent %s (the day records %s) against a daily cap of %s", runSpend, daySpend, limits.DailySpendUSD)
	}
	if !runSpend.Equal(daySpend) {
		t.Errorf("the runs spent %s and the day records %s", runSpend, daySpend)
	}
	if runSpend.LessThan(limits.DailySpendUSD.Div(decimal.NewFromInt(4))) {
		// On a machine loaded by other tests the model calls may time
		// out before they are charged; the checks above still hold, but
		// this run did not show the cap binding.
		t.Logf("the runs spent only %s of %s: the cap was not pressed this time", runSpend, limits.DailySpendUSD)
	}
	acct, err := budget.NewPostgres(pool, &budget.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := acct.Usage(ctx, budget.DayScope(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if n := u.Reservations[budget.StateReserved]; n != 0 {
		t.Errorf("%d reservations still open", n)
	}
	t.Logf("%d runs spent %s against a daily cap of %s", runs, runSpend, limits.DailySpendUSD)
}

// TestRunRecordsNoInternals runs a model-mode question (auto mode, which
// falls back to the rules paths) against a model endpoint that refuses
// connections: what the run records for its tenant (result, notes, event
// log, ledger) says the endpoint could not be reached, and names neither
// its address nor the socket's; the cause goes to the process's log.
func TestRunRecordsNoInternals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	ingest(t, pool, "acme")
	// Nothing listens on port 1.
	const endpoint = "http://127.0.0.1:1/secret-path/v1"
	client, err := llm.NewClient(llm.ChatConfig{BaseURL: endpoint, APIKey: "sk-secret"})
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	var mu sync.Mutex
	proc, err := engine.New(&engine.Config{
		Pool: pool, Model: &executor.ModelConfig{Caller: client, Model: "gpt-4o-mini"},
		Retry:  executor.RetryPolicy{Attempts: 2, Base: time.Millisecond},
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	tn, err := proc.Tenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	res, err := tn.Engine.Run(ctx, executor.Request{Question: acmeQuestion, Mode: executor.ModeAuto})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ledger.Export(ctx, tn.Ledger, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := json.Marshal(map[string]any{"result": res, "ledger": rep})
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"127.0.0.1", ":1/", "secret-path", "sk-secret", "dial tcp", "connect:"} {
		if bytes.Contains(recorded, []byte(leak)) {
			t.Errorf("the run records %q", leak)
		}
	}
	if !bytes.Contains(recorded, []byte("the model endpoint refused the connection")) {
		t.Errorf("the run does not say the model endpoint refused the connection: notes %q", res.Notes)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "connection refused") {
		t.Errorf("the process log lacks the cause:\n%s", logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
