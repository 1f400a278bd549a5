package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/tools"
)

// localOpts shape a local test server.
type localOpts struct {
	limits *TenantLimits // nil means generous limits
	runs   int           // Config.LocalRuns
	block  bool          // tool calls wait for release
	model  llm.Caller    // the engines' model; nil means none
	mcp    func(keys func(context.Context, string) (string, error)) http.Handler
}

// localHarness is a local server (NewLocal) over a data directory holding
// acmeFiling; its do, submit and waitDone send no key.
type localHarness struct {
	*harness
	dataDir string
	release chan struct{} // closed to let blocked tool calls go on
	started chan struct{} // receives when a tool call starts
}

func newLocalHarness(t *testing.T, o localOpts) *localHarness {
	t.Helper()
	dataDir := t.TempDir()
	store, err := embedded.Open(dataDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := corpustest.Ingest(context.Background(), store, corpustest.WriteFilings(t, t.TempDir(), acmeFiling)); err != nil {
		t.Fatal(err)
	}
	store.Close()
	lh := &localHarness{dataDir: dataDir, release: make(chan struct{}), started: make(chan struct{}, 64)}
	ec := &engine.Config{DataDir: dataDir}
	if o.model != nil {
		ec.Model = &executor.ModelConfig{Caller: o.model, Model: "gpt-4o-mini"}
	}
	if o.block {
		ec.Tool = func(ctx context.Context, env *tools.Env, call tools.Call) (*tools.Output, error) {
			lh.started <- struct{}{}
			select {
			case <-lh.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return tools.Run(ctx, env, call)
		}
	}
	engines, err := engine.New(ec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engines.Close() })
	if o.limits == nil {
		o.limits = generous()
	}
	h := &harness{t: t, logs: &syncBuffer{}, reg: prometheus.NewRegistry()}
	cfg := &Config{
		Logger:   slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Registry: h.reg, PollInterval: 20 * time.Millisecond, LocalLimits: o.limits, LocalRuns: o.runs, MCP: o.mcp,
		ModelConfigured: o.model != nil,
	}
	if h.srv, err = NewLocal(engines, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-lh.release:
		default:
			close(lh.release)
		}
		h.srv.Close()
	})
	h.http = httptest.NewServer(h.srv.Handler())
	t.Cleanup(h.http.Close)
	lh.harness = h
	return lh
}

func TestLocalServerNeedsNoKey(t *testing.T) {
	t.Parallel()
	h := newLocalHarness(t, localOpts{})
	if r := h.do("GET", "/v1/config", "", nil); r.code != http.StatusOK || r.json(t)["auth"] != "none" || r.json(t)["tenant"] != LocalTenant {
		t.Errorf("GET /v1/config = %d %s", r.code, r.body)
	}
	id := h.submit("", map[string]any{"question": acmeQuestion, "mode": "rules"})
	res := h.waitDone("", id)
	if cites, _ := res["citations"].([]any); len(cites) == 0 {
		t.Fatalf("result %v", res)
	}
	// A key, even one no tenant holds, is neither needed nor read.
	for _, key := range []string{"", "rk_" + strings.Repeat("0", 43), "garbage"} {
		if r := h.do("GET", "/v1/runs/"+id, key, nil); r.code != http.StatusOK || r.json(t)["run_id"] != id {
			t.Errorf("GET the run with key %q = %d %s", key, r.code, r.body)
		}
	}
	// The run is the local tenant's, in the embedded ledger research ask
	// and research ledger read.
	led, err := embeddedledger.Open(h.dataDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run, err := led.Run(context.Background(), id); err != nil || run.Status != ledger.RunStatus(res["status"].(string)) {
		t.Errorf("the embedded ledger's run: %+v %v", run, err)
	}
	if r := h.do("GET", "/readyz", "", nil); r.code != http.StatusOK {
		t.Errorf("GET /readyz = %d %s", r.code, r.body)
	}
}

// GET /v1/config tells the web app whether to ask for a key; it needs
// none itself.
func TestConfigSaysWhetherKeysAreNeeded(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	r := h.do("GET", "/v1/config", "", nil)
	if m := r.json(t); r.code != http.StatusOK || m["auth"] != "api_key" || m["tenant"] != nil || m["model"] != false {
		t.Errorf("GET /v1/config over Postgres = %d %s", r.code, r.body)
	}
	if r := h.do("GET", "/v1/corpus", "", nil); r.code != http.StatusUnauthorized {
		t.Errorf("GET /v1/corpus without a key over Postgres = %d", r.code)
	}
}

func TestLocalServerLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		limits func(*TenantLimits)
		block  bool   // runs stay running
		before int    // runs admitted before the one refused
		mode   string // of the one refused
		limit  string // the words of its refusal
	}{
		{"daily runs", func(l *TenantLimits) { l.DailyRuns = 2 }, false, 2, "rules", "daily limit"},
		{"concurrent runs", func(l *TenantLimits) { l.MaxConcurrentRuns = 1 }, true, 1, "rules", "concurrency limit"},
		{"daily spend", func(l *TenantLimits) { l.DailySpendUSD = decimal.Zero }, false, 0, "model", "daily spend limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := generous()
			tc.limits(l)
			// A model is configured, so model mode meets its limits; no
			// run here reaches it.
			h := newLocalHarness(t, localOpts{limits: l, block: tc.block, model: failingModel})
			for i := 0; i < tc.before; i++ {
				h.submit("", map[string]any{"question": acmeQuestion, "mode": "rules"})
			}
			r := h.do("POST", "/v1/runs", "", map[string]any{"question": acmeQuestion, "mode": tc.mode})
			if r.code != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || !strings.Contains(r.json(t)["error"].(string), tc.limit) {
				t.Errorf("run past the limit = %d (Retry-After %q) %s", r.code, r.header.Get("Retry-After"), r.body)
			}
			if tc.name == "daily spend" {
				// With no money left for the day, auto mode takes the
				// offline paths.
				r := h.do("POST", "/v1/runs", "", map[string]any{"question": acmeQuestion})
				m := r.json(t)
				if r.code != http.StatusAccepted || m["mode"] == "model" {
					t.Fatalf("auto mode with the day's spend used up = %d %s", r.code, r.body)
				}
				if res := h.waitDone("", m["run_id"].(string)); res["status"] != "supported" && res["status"] != "partial" {
					t.Errorf("the offline run with no money left for the day: %v", res)
				}
			}
		})
	}
}

// failingModel is a model that answers nothing.
var failingModel = llm.CallerFunc(func(context.Context, llm.ChatRequest) (*llm.ChatResponse, error) {
	return nil, errors.New("no model here")
})

// Model runs at once hold the day's money until they finish, so together
// they cannot spend more than the day has; what they spent is settled
// when they finish.
func TestLocalServerHoldsTheDaysSpend(t *testing.T) {
	t.Parallel()
	l := generous()
	l.DailySpendUSD, l.MaxRunSpendUSD = decimal.RequireFromString("1.00"), decimal.RequireFromString("1.00")
	var h *localHarness
	model := llm.CallerFunc(func(ctx context.Context, _ llm.ChatRequest) (*llm.ChatResponse, error) {
		h.started <- struct{}{}
		select {
		case <-h.release:
		case <-ctx.Done():
		}
		return nil, errors.New("no model here")
	})
	h = newLocalHarness(t, localOpts{limits: l, runs: 4, model: model})
	modelRun := map[string]any{"question": acmeQuestion, "mode": "model", "budget": map[string]any{"spend_usd": 0.6}}
	first := h.submit("", modelRun)
	second := h.submit("", modelRun) // may spend the 0.40 left
	for range 2 {
		select {
		case <-h.started:
		case <-time.After(30 * time.Second):
			t.Fatal("the model runs made no model call")
		}
	}
	r := h.do("POST", "/v1/runs", "", modelRun)
	if r.code != http.StatusTooManyRequests || !strings.Contains(r.json(t)["error"].(string), "daily spend limit") {
		t.Errorf("a third model run while two hold the day's money = %d %s", r.code, r.body)
	}
	h.submit("", map[string]any{"question": acmeQuestion, "mode": "rules"}) // spends nothing
	close(h.release)
	h.waitDone("", first)
	h.waitDone("", second)
	// The two spent nothing (their model calls failed): the day's money
	// is free again.
	h.submit("", modelRun)
}

func TestLocalServerRate(t *testing.T) {
	t.Parallel()
	l := generous()
	l.RequestsPerMinute = 3
	h := newLocalHarness(t, localOpts{limits: l, mcp: func(keys func(context.Context, string) (string, error)) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tenant, err := keys(r.Context(), strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			if err != nil {
				http.Error(w, err.Error(), http.StatusUnauthorized)
				return
			}
			io.WriteString(w, tenant)
		})
	}})
	// MCP without a key is the local tenant's, and counts against the rate.
	if r := h.do("POST", "/mcp", "", nil); r.code != http.StatusOK || string(r.body) != LocalTenant {
		t.Errorf("POST /mcp without a key = %d %q; want the local tenant", r.code, r.body)
	}
	for i := 0; i < 2; i++ {
		if r := h.do("GET", "/v1/corpus", "", nil); r.code != http.StatusOK {
			t.Fatalf("request %d = %d %s", i+2, r.code, r.body)
		}
	}
	r := h.do("GET", "/v1/corpus", "", nil)
	if r.code != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || !strings.Contains(r.json(t)["error"].(string), "3 requests a minute") {
		t.Errorf("request past the rate = %d (Retry-After %q) %s", r.code, r.header.Get("Retry-After"), r.body)
	}
	if r := h.do("POST", "/mcp", "", nil); r.code != http.StatusUnauthorized {
		t.Errorf("MCP past the rate = %d %s", r.code, r.body)
	}
	// The probes and the config are not counted.
	for _, p := range []string{"/healthz", "/v1/config", "/metrics"} {
		if r := h.do("GET", p, "", nil); r.code != http.StatusOK {
			t.Errorf("GET %s past the rate = %d", p, r.code)
		}
	}
}

func TestLocalServerIdempotency(t *testing.T) {
	t.Parallel()
	h := newLocalHarness(t, localOpts{})
	body := map[string]any{"question": acmeQuestion, "mode": "rules", "idempotency_key": "once-1"}
	first := h.submit("", body)
	r := h.do("POST", "/v1/runs", "", body)
	if r.code != http.StatusAccepted || r.json(t)["run_id"] != first || r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the same key again = %d %s (replayed %q); want run %s", r.code, r.body, r.header.Get("Idempotent-Replayed"), first)
	}
	if other := h.submit("", map[string]any{"question": acmeQuestion, "mode": "rules"}); other == first {
		t.Error("a run without the key got the keyed run's id")
	}
}

// A local server that stops finishes its runs' records: the one running
// is stopped, the one waiting never starts, and both say why; no run is
// admitted after.
func TestLocalServerStopRecordsUnfinishedRuns(t *testing.T) {
	t.Parallel()
	h := newLocalHarness(t, localOpts{runs: 1, block: true})
	running := h.submit("", map[string]any{"question": acmeQuestion, "mode": "rules"})
	select {
	case <-h.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the first run made no tool call")
	}
	waiting := h.submit("", map[string]any{"question": acmeQuestion, "mode": "rules"})
	if r := h.do("GET", "/v1/runs/"+waiting, "", nil); r.json(t)["status"] != RunStatusQueued {
		t.Errorf("the second run, waiting for a slot: %s", r.body)
	}
	if r := h.do("GET", "/metrics", "", nil); !strings.Contains(string(r.body), "research_queue_depth 1") {
		t.Errorf("metrics do not count the waiting run:\n%s", r.body)
	}

	stopped := make(chan struct{})
	go func() {
		h.srv.Close()
		close(stopped)
	}()
	close(h.release)
	select {
	case <-stopped:
	case <-time.After(60 * time.Second):
		t.Fatal("Close did not return")
	}
	for id, why := range map[string]string{running: "", waiting: "stopped before the run started"} {
		res := h.waitDone("", id)
		led, err := embeddedledger.Open(h.dataDir, nil)
		if err != nil {
			t.Fatal(err)
		}
		events, err := led.Events(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var log []string
		for _, e := range events {
			log = append(log, e.Message)
		}
		if why != "" && (res["status"] != "failed" || !strings.Contains(strings.Join(log, "\n"), why)) {
			t.Errorf("run %s: %v, log %q; want failed, saying %q", id, res["status"], log, why)
		}
	}
	if r := h.do("POST", "/v1/runs", "", map[string]any{"question": acmeQuestion, "mode": "rules"}); r.code != http.StatusServiceUnavailable {
		t.Errorf("a run after the stop = %d %s; want 503", r.code, r.body)
	}
}

func TestNewLocalChecksItsConfig(t *testing.T) {
	t.Parallel()
	if _, err := NewLocal(nil, nil); err == nil {
		t.Error("NewLocal(nil engines) succeeded")
	}
	engines, err := engine.New(&engine.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer engines.Close()
	bad := DefaultLocalLimits()
	bad.RequestsPerMinute = 0
	for _, cfg := range []*Config{{LocalLimits: &bad}, {LocalRuns: -1}} {
		if _, err := NewLocal(engines, cfg); err == nil || !strings.Contains(err.Error(), "Local") {
			t.Errorf("NewLocal(%+v) = %v; want an error naming the field", cfg, err)
		}
	}
}

func TestSlidingWindow(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0
	w := &slidingWindow{limit: 2, window: time.Minute, now: func() time.Time { return now }}
	for _, tc := range []struct {
		at   time.Duration // after t0
		ok   bool
		wait time.Duration // when refused
	}{
		{0, true, 0},
		{10 * time.Second, true, 0},
		{20 * time.Second, false, 40 * time.Second},
		{59 * time.Second, false, time.Second},
		{60 * time.Second, true, 0}, // the first left the window
		{65 * time.Second, false, 5 * time.Second},
		{130 * time.Second, true, 0},
	} {
		now = t0.Add(tc.at)
		wait, ok := w.add()
		if ok != tc.ok || wait != tc.wait {
			t.Errorf("at +%s: ok %v wait %s; want %v %s", tc.at, ok, wait, tc.ok, tc.wait)
		}
	}
}
