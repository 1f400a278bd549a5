package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

func TestMeteredAccountant(t *testing.T) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	mem, err := budget.NewMemory(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &meteredAccountant{Accountant: mem, m: m}
	ctx := context.Background()
	scope := budget.RunScope("run-1")
	l := budget.NoLimits()
	l.ModelCalls = 1
	if err := a.SetLimits(ctx, scope, l); err != nil {
		t.Fatal(err)
	}
	ask := budget.Amounts{ModelCalls: 1, InputTokens: 100, OutputTokens: 50, SpendUSD: decimal.RequireFromString("0.02")}
	if _, err := a.Reserve(ctx, "k1", []budget.Scope{scope}, ask, nil); err != nil {
		t.Fatal(err)
	}
	used := budget.Amounts{ModelCalls: 1, InputTokens: 80, OutputTokens: 20, SpendUSD: decimal.RequireFromString("0.01")}
	for range 2 { // the second settle is a replay and counts nothing
		if _, err := a.Settle(ctx, "k1", used); err != nil {
			t.Fatal(err)
		}
	}
	_, err = a.Reserve(ctx, "k2", []budget.Scope{scope}, ask, nil)
	if !errors.Is(err, budget.ErrExhausted) {
		t.Fatalf("second model call: %v", err)
	}
	if got := testutil.ToFloat64(m.tokens.WithLabelValues("in")); got != 80 {
		t.Errorf("tokens in %v", got)
	}
	if got := testutil.ToFloat64(m.tokens.WithLabelValues("out")); got != 20 {
		t.Errorf("tokens out %v", got)
	}
	if got := testutil.ToFloat64(m.spend); got != 0.01 {
		t.Errorf("spend %v", got)
	}
	if got := testutil.ToFloat64(m.budgetRejects.WithLabelValues("model_calls")); got != 1 {
		t.Errorf("rejections %v", got)
	}
}

func TestProgressMetrics(t *testing.T) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []executor.Progress{
		{Kind: "node_started", Tool: "search_filings", Wait: 3 * time.Millisecond},
		{Kind: "node_finished", Tool: "search_filings", Duration: 40 * time.Millisecond},
		{Kind: "node_failed", Tool: "lookup_fact"},
		{Kind: "model_call", Node: "plan", Duration: time.Second, Wait: time.Millisecond},
		{Kind: "route"},
	} {
		m.progress(p)
	}
	if n := testutil.CollectAndCount(m.nodeDuration); n != 1 {
		t.Errorf("%d node duration series", n)
	}
	if got := testutil.ToFloat64(m.nodeFailures.WithLabelValues("lookup_fact")); got != 1 {
		t.Errorf("failures %v", got)
	}
	if got := testutil.ToFloat64(m.modelCalls); got != 1 {
		t.Errorf("model calls %v", got)
	}
	if n := testutil.CollectAndCount(m.semaphoreWait); n != 2 {
		t.Errorf("%d semaphore wait series, want search_filings and model", n)
	}
}

// The engine's budget sweeps are counted through RunHooks, all tenants
// together.
func TestSweptMetric(t *testing.T) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	h := RunHooks(m, nil)
	h.Swept("acme", 3)
	h.Swept("beta", 2)
	if got := testutil.ToFloat64(m.budgetSwept); got != 5 {
		t.Errorf("research_budget_swept_total %v, want 5", got)
	}
}

func TestRunMetrics(t *testing.T) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	m.runOpened("acme/run-1", ledger.ModeBaseline, now)
	m.runOpened("acme/run-1", ledger.ModeBaseline, now) // a resumed run is one run
	if got := testutil.ToFloat64(m.runsInProgress); got != 1 {
		t.Errorf("in progress %v", got)
	}
	m.runFinished("acme/run-1", ledger.StatusPartial, now.Add(2*time.Second))
	m.runFinished("acme/run-2", ledger.StatusSupported, now) // opened by another process
	if got := testutil.ToFloat64(m.runsFinished.WithLabelValues("partial", "baseline")); got != 1 {
		t.Errorf("partial baseline %v", got)
	}
	if got := testutil.ToFloat64(m.runsFinished.WithLabelValues("supported", "unknown")); got != 1 {
		t.Errorf("supported unknown %v", got)
	}
	if got := testutil.ToFloat64(m.runsInProgress); got != 0 {
		t.Errorf("in progress %v", got)
	}
	// A run forgotten for a day no longer counts as in progress.
	m.runOpened("acme/run-3", ledger.ModeRules, now)
	m.runOpened("acme/run-4", ledger.ModeRules, now.Add(25*time.Hour))
	if got := testutil.ToFloat64(m.runsInProgress); got != 1 {
		t.Errorf("in progress after a day %v", got)
	}
}

func TestQueueDepthCollector(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.ObserveQueue(func(context.Context) (int, error) { return 7, nil }, nil)
	if err := testutil.GatherAndCompare(reg, strings.NewReader("# HELP research_queue_depth Runs waiting in the job queue, read from the database at each scrape.\n# TYPE research_queue_depth gauge\nresearch_queue_depth 7\n"), "research_queue_depth"); err != nil {
		t.Error(err)
	}
	m.ObserveQueue(func(context.Context) (int, error) { return 0, errors.New("database down") }, nil)
	if _, err := reg.Gather(); err != nil {
		t.Errorf("a failed read of the queue fails the scrape: %v", err)
	}
	if got := testutil.ToFloat64(m.queueErrors); got != 1 {
		t.Errorf("queue read failures %v, want 1", got)
	}
}

// TestMetricsWithDatabaseDown scrapes /metrics while the database does not
// answer: the process's metrics are served (200), the queue's depth is
// left out and its failure counted, and nothing names the database's
// host, port, user or name.
func TestMetricsWithDatabaseDown(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 1; pgxpool connects lazily.
	pool, err := pgxpool.New(context.Background(), "postgres://secret_user:secret_pw@127.0.0.1:1/secret_db?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var logs syncBuffer
	srv, err := New(pool, &Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		body := rec.Body.String()
		if rec.Code != http.StatusOK {
			t.Fatalf("GET /metrics = %d with the database down:\n%s", rec.Code, body)
		}
		want := []string{"go_goroutines", "process_cpu_seconds_total", "research_queue_depth_errors_total"}
		if i > 0 {
			want = append(want, `research_http_requests_total{code="200",route="GET /metrics"} 1`)
		}
		for _, want := range want {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
		for _, leak := range []string{"secret_user", "secret_pw", "secret_db", "127.0.0.1:1", "dial"} {
			if strings.Contains(body, leak) {
				t.Errorf("/metrics shows %q", leak)
			}
		}
		if strings.Contains(body, "\nresearch_queue_depth ") {
			t.Error("/metrics holds a queue depth it could not read")
		}
	}
	if strings.Contains(logs.String(), "secret_pw") {
		t.Error("the log holds the database password")
	}
}
