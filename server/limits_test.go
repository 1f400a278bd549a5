package server

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/llm/llmtest"
)

func mustDecimal(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// retryAfter returns the reply's Retry-After in seconds, failing the test
// unless it is a 429 with one in (0, most].
func retryAfter(t *testing.T, r reply, most int) int {
	t.Helper()
	if r.code != http.StatusTooManyRequests {
		t.Fatalf("= %d, want 429\n%s", r.code, r.body)
	}
	n, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || n <= 0 || n > most {
		t.Fatalf("Retry-After %q, want 1 to %d", r.header.Get("Retry-After"), most)
	}
	assertNoInternals(t, r.body)
	return n
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	l := generous()
	l.RequestsPerMinute = 3
	h := newHarness(t, harnessOpts{acme: l, noWorker: true})
	for i := range 3 {
		if r := h.do("POST", "/v1/search", h.acmeKey, `{"query": "margin"}`); r.code != http.StatusOK {
			t.Fatalf("request %d = %d", i+1, r.code)
		}
	}
	r := h.do("GET", "/v1/runs/run-1", h.acmeKey, nil)
	retryAfter(t, r, 60)
	if msg := r.json(t)["error"].(string); msg == "" {
		t.Error("no message")
	}
	// The limit is per key: another key of the tenant, and another tenant,
	// still pass.
	key2, err := h.tenants.IssueKey(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	if r := h.do("POST", "/v1/search", key2, `{"query": "margin"}`); r.code != http.StatusOK {
		t.Errorf("another key = %d", r.code)
	}
	if r := h.do("POST", "/v1/search", h.otherKey, `{"query": "margin"}`); r.code != http.StatusOK {
		t.Errorf("another tenant = %d", r.code)
	}
	// Refused requests do not count: the window still holds three.
	var n int
	if err := h.pool.QueryRow(t.Context(), `SELECT count(*) FROM api_requests WHERE tenant_id = 'acme'`).Scan(&n); err != nil || n != 4 {
		t.Errorf("%d requests logged for acme (%v), want 4", n, err)
	}
	m := h.do("GET", "/metrics", "", nil)
	if !contains(m.body, `research_limit_rejections_total{limit="rate"} 1`) {
		t.Error("the rejection is not counted in /metrics")
	}
}

func TestDailyRunCap(t *testing.T) {
	t.Parallel()
	l := generous()
	l.DailyRuns = 2
	h := newHarness(t, harnessOpts{acme: l, noWorker: true})
	h.submit(h.acmeKey, map[string]any{"question": acmeQuestion})
	h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "idempotency_key": "q-2"})
	// A repeat of an admitted idempotency key is the same run, not a new one.
	again := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion, "idempotency_key": "q-2"})
	if again.code != http.StatusAccepted || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("repeat = %d %v\n%s", again.code, again.header, again.body)
	}
	r := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion})
	retryAfter(t, r, 24*60*60)
	// Another tenant has its own cap.
	h.submit(h.otherKey, map[string]any{"question": acmeQuestion})
}

func TestConcurrentRunCap(t *testing.T) {
	t.Parallel()
	l := generous()
	l.MaxConcurrentRuns = 1
	h := newHarness(t, harnessOpts{acme: l, noWorker: true})
	h.submit(h.acmeKey, map[string]any{"question": acmeQuestion})
	r := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion})
	retryAfter(t, r, 60)
	h.submit(h.otherKey, map[string]any{"question": acmeQuestion})
}

// TestConcurrentRunCapFreed runs a run to its verdict: its slot is free
// again.
func TestConcurrentRunCapFreed(t *testing.T) {
	t.Parallel()
	l := generous()
	l.MaxConcurrentRuns = 1
	h := newHarness(t, harnessOpts{acme: l})
	id := h.submit(h.acmeKey, map[string]any{"question": acmeQuestion})
	h.waitDone(h.acmeKey, id)
	h.submit(h.acmeKey, map[string]any{"question": acmeQuestion})
}

func TestDailySpendLimit(t *testing.T) {
	t.Parallel()
	l := generous()
	l.DailySpendUSD = decimal.Zero
	h := newHarness(t, harnessOpts{acme: l, noWorker: true, cfg: func(c *Config) { c.ModelConfigured = true }})
	r := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "model"})
	retryAfter(t, r, 24*60*60)
	// Runs that spend no money still go.
	h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "rules"})
	h.submit(h.otherKey, map[string]any{"question": acmeQuestion, "mode": "model"})
}

// TestLimitsSurviveRestart fills a key's window and a tenant's day, then
// starts a new server over the same database: it refuses too.
func TestLimitsSurviveRestart(t *testing.T) {
	t.Parallel()
	acme := generous()
	acme.RequestsPerMinute = 2
	globex := generous()
	globex.DailyRuns = 1
	h := newHarness(t, harnessOpts{acme: acme, globex: globex, noWorker: true})
	for range 2 {
		h.do("POST", "/v1/search", h.acmeKey, `{"query": "margin"}`)
	}
	retryAfter(t, h.do("POST", "/v1/search", h.acmeKey, `{"query": "margin"}`), 60)
	h.submit(h.otherKey, map[string]any{"question": acmeQuestion})
	retryAfter(t, h.do("POST", "/v1/runs", h.otherKey, map[string]any{"question": acmeQuestion}), 24*60*60)

	// A new process: a new server, its own metrics, the same database.
	srv, err := New(h.pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.http.Close()
	h.http = httptest.NewServer(srv.Handler())
	t.Cleanup(h.http.Close)
	retryAfter(t, h.do("POST", "/v1/search", h.acmeKey, `{"query": "margin"}`), 60)
	retryAfter(t, h.do("POST", "/v1/runs", h.otherKey, map[string]any{"question": acmeQuestion}), 24*60*60)
}

func TestModelModeWithoutModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	r := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "model"})
	if r.code != http.StatusServiceUnavailable {
		t.Fatalf("= %d, want 503\n%s", r.code, r.body)
	}
	if msg := r.json(t)["error"].(string); !containsAll(msg, "model mode is not available", "rules") {
		t.Errorf("message %q", msg)
	}
	assertNoInternals(t, r.body)
	// Everything else works.
	h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "rules"})
	h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "baseline"})
	if r := h.do("POST", "/v1/search", h.acmeKey, `{"query": "margin"}`); r.code != http.StatusOK {
		t.Errorf("search = %d", r.code)
	}
}

func contains(b []byte, s string) bool { return containsAll(string(b), s) }

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestIdempotencyCompletesAnInterruptedSubmission: a submission that
// stopped between its admission and its record (a crash) is completed by
// the client's retry with the same key, without a second run.
func TestIdempotencyCompletesAnInterruptedSubmission(t *testing.T) {
	t.Parallel()
	l := generous()
	l.DailyRuns = 2
	h := newHarness(t, harnessOpts{acme: l, noWorker: true})
	ctx := t.Context()
	day := time.Now().UTC().Format(time.DateOnly)
	// Queued, but its admission never learnt the run.
	queued, err := jobs.Submit(ctx, h.pool, "acme", jobs.Submission{Question: acmeQuestion, IdempotencyKey: "k-queued"})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"k-queued", "k-lost"} {
		if _, err := h.pool.Exec(ctx, `INSERT INTO run_admissions (tenant_id, id, day, mode) VALUES ('acme', $1, $2, 'rules')`, key, day); err != nil {
			t.Fatal(err)
		}
	}
	r := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion, "idempotency_key": "k-queued"})
	if r.code != http.StatusAccepted || r.json(t)["run_id"] != queued {
		t.Fatalf("retry of a queued key = %d %s, want run %s", r.code, r.body, queued)
	}
	// Never queued: the retry queues it now.
	lost := h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "idempotency_key": "k-lost"})
	var n int
	if err := h.pool.QueryRow(ctx, `SELECT count(*) FROM run_admissions WHERE tenant_id = 'acme' AND run_id IN ($1, $2)`, queued, lost).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d admissions hold their runs (%v)", n, err)
	}
	// Neither took a second place in the day: the cap of 2 is reached.
	retryAfter(t, h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion}), 24*60*60)
}

// TestDailySpendBudget runs model-mode runs against the tenant's daily
// budget: a run whose calls the day cannot hold ends budget_exhausted
// without calling the model, and once the day's money is spent the API
// refuses model runs with 429 while rules runs go on.
func TestDailySpendBudget(t *testing.T) {
	t.Parallel()
	model := llmtest.New(t)
	l := generous()
	l.DailySpendUSD = mustDecimal("0.001") // less than one planning call's worst case
	h := newHarness(t, harnessOpts{acme: l, model: &executor.ModelConfig{Caller: model.Client(t), Model: "gpt-4o-mini"},
		cfg: func(c *Config) { c.ModelConfigured = true }})
	id := h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "model"})
	res := h.waitDone(h.acmeKey, id)
	if res["status"] != "budget_exhausted" {
		t.Errorf("status %v, want budget_exhausted", res["status"])
	}
	if n := len(model.Requests()); n != 0 {
		t.Errorf("the model was called %d times beyond the day's budget", n)
	}
	ctx := t.Context()
	day := budget.DayScope(time.Now())
	acct, err := budget.NewPostgres(h.pool, &budget.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := acct.Usage(ctx, day)
	if err != nil {
		t.Fatalf("the tenant's day has no budget: %v", err)
	}
	if v, ok := u.Limits.Get(budget.SpendUSD); !ok || !v.Equal(l.DailySpendUSD) {
		t.Errorf("the day's spend limit is %v (%v), want %s", v, ok, l.DailySpendUSD)
	}
	m := h.do("GET", "/metrics", "", nil)
	if !contains(m.body, `research_budget_rejections_total{dimension="spend_usd"}`) {
		t.Error("no spend rejection in /metrics")
	}

	// Spend the day's money; model runs are refused until tomorrow.
	spent := budget.Amounts{SpendUSD: l.DailySpendUSD}
	if _, err := acct.Reserve(ctx, "test/spent", []budget.Scope{day}, spent, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := acct.Settle(ctx, "test/spent", spent); err != nil {
		t.Fatal(err)
	}
	r := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "model"})
	retryAfter(t, r, 24*60*60)
	if msg := r.json(t)["error"].(string); !strings.Contains(msg, "daily spend") {
		t.Errorf("message %q", msg)
	}
	h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "rules"})
}

// TestLostAdmissionReclaimed: a server that died between admitting a run
// and queueing it left an admission without a run. Within
// PendingAdmissionTTL it holds the tenant's slot (the submission may still
// be under way); past it, the slot and the day's place are given back.
func TestLostAdmissionReclaimed(t *testing.T) {
	t.Parallel()
	l := generous()
	l.MaxConcurrentRuns = 1
	l.DailyRuns = 1
	h := newHarness(t, harnessOpts{acme: l, noWorker: true})
	ctx := t.Context()
	lost := func(id string, age time.Duration) {
		t.Helper()
		_, err := h.pool.Exec(ctx, `INSERT INTO run_admissions (tenant_id, id, day, mode, created_at)
			VALUES ('acme', $1, (now() AT TIME ZONE 'UTC')::date, 'rules', now() - make_interval(secs => $2))`, id, age.Seconds())
		if err != nil {
			t.Fatal(err)
		}
	}
	lost("under-way", PendingAdmissionTTL/2)
	retryAfter(t, h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion}), 24*60*60)

	if _, err := h.pool.Exec(ctx, `DELETE FROM run_admissions WHERE tenant_id = 'acme'`); err != nil {
		t.Fatal(err)
	}
	lost("crashed", PendingAdmissionTTL+time.Second)
	h.submit(h.acmeKey, map[string]any{"question": acmeQuestion})
	var n int
	if err := h.pool.QueryRow(ctx, `SELECT count(*) FROM run_admissions WHERE tenant_id = 'acme' AND run_id IS NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d admissions without a run left", n)
	}
}
