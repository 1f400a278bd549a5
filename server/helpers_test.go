package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/pgtest"
)

var acmeFiling = corpustest.Filing{
	Name: "acme-2024.html", Ticker: "ACME", Company: "Acme Corp", Revenue: "1,000", Cost: "600",
	Item7: "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
		"We expect gross margin to remain under pressure in 2025 as component costs stay elevated.",
}

// acmeQuestion is answered from acmeFiling in rules mode.
const acmeQuestion = "What drove Acme's gross margin in fiscal 2024 and does management expect it to persist?"

// ingestFixture ingests the filings, through the real ingest path, into
// the tenant's documents on pool.
func ingestFixture(t testing.TB, pool *pgxpool.Pool, tenant string, filings ...corpustest.Filing) {
	t.Helper()
	entries := corpustest.WriteFilings(t, t.TempDir(), filings...)
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: tenant})
	if err != nil {
		t.Fatal(err)
	}
	if err := corpustest.Ingest(context.Background(), store, entries); err != nil {
		t.Fatal(err)
	}
}

// harness is an API over its own schema, with a tenant "acme" holding the
// fixture corpus and a tenant "globex" holding none.
type harness struct {
	t        *testing.T
	pool     *pgxpool.Pool
	tenants  *Tenants
	srv      *Server
	http     *httptest.Server
	reg      *prometheus.Registry
	metrics  *Metrics
	logs     *syncBuffer
	acmeKey  string
	otherKey string // globex's
}

type harnessOpts struct {
	acme, globex *TenantLimits // nil means generous limits
	cfg          func(*Config)
	noWorker     bool // no worker: runs stay queued
	model        *executor.ModelConfig
}

func generous() *TenantLimits {
	l := DefaultTenantLimits()
	l.RequestsPerMinute = 10_000
	l.DailyRuns = 1000
	l.MaxConcurrentRuns = 100
	return &l
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	pool := pgtest.Pool(t)
	ingestFixture(t, pool, "acme", acmeFiling)
	ts, err := NewTenants(pool)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if o.acme == nil {
		o.acme = generous()
	}
	if o.globex == nil {
		o.globex = generous()
	}
	_, acmeKey, err := ts.Create(ctx, "acme", o.acme)
	if err != nil {
		t.Fatal(err)
	}
	_, globexKey, err := ts.Create(ctx, "globex", o.globex)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, pool: pool, tenants: ts, acmeKey: acmeKey, otherKey: globexKey, logs: &syncBuffer{}}
	h.reg = prometheus.NewRegistry()
	if h.metrics, err = NewMetrics(h.reg); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := Config{Logger: logger, Registry: h.reg, Metrics: h.metrics, PollInterval: 20 * time.Millisecond, ModelConfigured: o.model != nil}
	if !o.noWorker {
		startWorker(t, pool, o.model, h.metrics, logger)
	}
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	if h.srv, err = New(pool, &cfg); err != nil {
		t.Fatal(err)
	}
	h.http = httptest.NewServer(h.srv.Handler())
	t.Cleanup(h.http.Close)
	return h
}

// reply is an HTTP response read whole.
type reply struct {
	code   int
	header http.Header
	body   []byte
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response %d is not a JSON object: %v\n%s", r.code, err, r.body)
	}
	return m
}

// do sends a request with key (none when "") and reads the reply.
func (h *harness) do(method, path, key string, body any) reply {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.http.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := h.http.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return reply{code: resp.StatusCode, header: resp.Header, body: data}
}

// submit posts a run and returns its id, failing unless it is accepted.
func (h *harness) submit(key string, body any) string {
	h.t.Helper()
	r := h.do("POST", "/v1/runs", key, body)
	if r.code != http.StatusAccepted {
		h.t.Fatalf("POST /v1/runs = %d, want 202\n%s", r.code, r.body)
	}
	id, _ := r.json(h.t)["run_id"].(string)
	if id == "" {
		h.t.Fatalf("no run_id in %s", r.body)
	}
	return id
}

// waitDone polls the run until its status is a verdict with a result, and
// returns the last reply.
func (h *harness) waitDone(key, id string) map[string]any {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := h.do("GET", "/v1/runs/"+id, key, nil)
		if r.code != http.StatusOK {
			h.t.Fatalf("GET run = %d\n%s", r.code, r.body)
		}
		m := r.json(h.t)
		switch m["status"] {
		case RunStatusQueued, "running":
		default:
			return m
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("run %s still %v after 60s", id, m["status"])
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// sse is one Server-Sent Event.
type sse struct {
	id, event, data string
}

// readSSE reads events from body until it ends or stop says so.
func readSSE(t *testing.T, body io.Reader, stop func(sse) bool) []sse {
	t.Helper()
	var out []sse
	var cur sse
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event != "" || cur.data != "" {
				out = append(out, cur)
				if stop != nil && stop(cur) {
					return out
				}
			}
			cur = sse{}
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			cur.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data += strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// internals are strings no error body may hold.
var internals = []string{"pgx", "SQLSTATE", "postgres", "relation ", ".go:", "goroutine", "runtime.", "panic", "server:", "json: ", "executor:", "ledger:", "/root", "/work", "/tmp"}

func assertNoInternals(t *testing.T, body []byte) {
	t.Helper()
	for _, s := range internals {
		if bytes.Contains(body, []byte(s)) {
			t.Errorf("error body holds %q: %s", s, body)
		}
	}
}
