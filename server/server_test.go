package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/jobs"
)

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	if r := h.do("GET", "/healthz", "", nil); r.code != http.StatusOK || r.json(t)["status"] != "ok" {
		t.Errorf("healthz = %d %s", r.code, r.body)
	}
	if r := h.do("GET", "/readyz", "", nil); r.code != http.StatusOK || r.json(t)["status"] != "ready" {
		t.Errorf("readyz = %d %s", r.code, r.body)
	}

	// A schema without the migrations: alive, not ready, and it says what
	// to run.
	empty, _ := pgtest.EmptyPool(t)
	srv, err := New(empty, nil)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) reply {
		req, _ := http.NewRequest("GET", path, nil)
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, req)
		return reply{code: w.Code, header: w.Header(), body: w.Body.Bytes()}
	}
	if r := get("/healthz"); r.code != http.StatusOK {
		t.Errorf("healthz over an empty schema = %d", r.code)
	}
	r := get("/readyz")
	if r.code != http.StatusServiceUnavailable || !strings.Contains(string(r.body), "research migrate") {
		t.Errorf("readyz over an empty schema = %d %s", r.code, r.body)
	}
	assertNoInternals(t, r.body)

	// Shutting down: not ready.
	h.srv.startClosing()
	if r := h.do("GET", "/readyz", "", nil); r.code != http.StatusServiceUnavailable || !strings.Contains(string(r.body), "shutting down") {
		t.Errorf("readyz while closing = %d %s", r.code, r.body)
	}
}

// TestGracefulShutdown cancels Serve's context while a submission is in
// flight and an event stream is open: the submission completes and is
// recorded, the stream ends, new connections are refused, Serve returns.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	entered := make(chan struct{})
	var queued atomic.Int32
	h := newHarness(t, harnessOpts{noWorker: true, cfg: func(c *Config) {
		inner := jobs.Submit
		c.Submit = func(ctx context.Context, pool *pgxpool.Pool, tenant string, s jobs.Submission) (string, error) {
			if s.IdempotencyKey == "slow" {
				close(entered)
				<-release
			}
			id, err := inner(ctx, pool, tenant, s)
			if err == nil {
				queued.Add(1)
			}
			return id, err
		}
	}})
	id := h.submit(h.acmeKey, map[string]any{"question": acmeQuestion})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- h.srv.Serve(ctx, ln) }()

	// An open event stream on a run that stays queued.
	req, _ := http.NewRequest("GET", base+"/v1/runs/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+h.acmeKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	streamDone := make(chan struct{})
	go func() {
		defer close(streamDone)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()

	// A submission held inside Submit.
	type result struct {
		code int
		body []byte
	}
	posted := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest("POST", base+"/v1/runs", strings.NewReader(`{"question": "`+acmeQuestion+`", "idempotency_key": "slow"}`))
		req.Header.Set("Authorization", "Bearer "+h.acmeKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			posted <- result{code: -1, body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		posted <- result{resp.StatusCode, b}
	}()
	waitFor(t, entered, "the submission to reach Submit")

	cancel()
	waitFor(t, streamDone, "the event stream to end")
	select {
	case err := <-served:
		t.Fatalf("Serve returned (%v) with a request in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Error("a new connection was accepted while shutting down")
	}
	close(release)
	select {
	case r := <-posted:
		if r.code != http.StatusAccepted {
			t.Fatalf("the in-flight submission = %d %s", r.code, r.body)
		}
		var acc struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(r.body, &acc); err != nil || acc.RunID == "" {
			t.Fatalf("accepted body %s", r.body)
		}
		var n int
		if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FROM run_admissions WHERE tenant_id = 'acme' AND run_id = $1`, acc.RunID).Scan(&n); err != nil || n != 1 {
			t.Errorf("the drained submission's admission: %d rows (%v)", n, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the in-flight submission never finished")
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after draining")
	}
	if queued.Load() != 2 {
		t.Errorf("%d runs queued, want 2", queued.Load())
	}
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestServeFailsOnAClosedListener(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := h.srv.Serve(context.Background(), ln); err == nil || errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve on a closed listener = %v", err)
	}
}

// TestStreamOutlivesReadTimeout keeps an event stream open past the
// server's read timeout: heartbeats keep coming.
func TestStreamOutlivesReadTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true, cfg: func(c *Config) {
		c.ReadTimeout = 200 * time.Millisecond
		c.Heartbeat = 50 * time.Millisecond
	}})
	id := h.submit(h.acmeKey, map[string]any{"question": acmeQuestion})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.srv.Serve(ctx, ln) }()
	defer func() { cancel(); <-served }()

	req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/v1/runs/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+h.acmeKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	beats := make(chan struct{}, 100)
	go func() {
		buf := make([]byte, 256)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 && strings.Contains(string(buf[:n]), "keep-alive") {
				beats <- struct{}{}
			}
			if err != nil {
				close(beats)
				return
			}
		}
	}()
	deadline := time.After(time.Second) // five read timeouts
	for {
		select {
		case _, ok := <-beats:
			if !ok {
				t.Fatal("the stream ended before a second had passed")
			}
		case <-deadline:
			return
		}
	}
}

// TestQueueRefusal maps a submission the queue refuses to a 400 and gives
// its admission back.
func TestQueueRefusal(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true, cfg: func(c *Config) {
		c.Submit = func(context.Context, *pgxpool.Pool, string, jobs.Submission) (string, error) {
			return "", &executor.RequestError{Field: "tickers", Problem: `"ZZZZ" is not in this corpus`}
		}
	}})
	r := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion})
	if r.code != http.StatusBadRequest || r.json(t)["field"] != "tickers" {
		t.Fatalf("= %d %s", r.code, r.body)
	}
	var n int
	if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FROM run_admissions`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d admissions left (%v)", n, err)
	}
	// Any other failure is a 500 that says nothing of it.
	h2 := newHarness(t, harnessOpts{noWorker: true, cfg: func(c *Config) {
		c.Submit = func(context.Context, *pgxpool.Pool, string, jobs.Submission) (string, error) {
			return "", errors.New(`ERROR: relation "river_job" does not exist (SQLSTATE 42P01)`)
		}
	}})
	r = h2.do("POST", "/v1/runs", h2.acmeKey, map[string]any{"question": acmeQuestion})
	if r.code != http.StatusInternalServerError {
		t.Fatalf("= %d %s", r.code, r.body)
	}
	assertNoInternals(t, r.body)
	rid := r.json(t)["request_id"].(string)
	if !strings.Contains(string(r.body), rid) || !strings.Contains(h2.logs.String(), "river_job") || !strings.Contains(h2.logs.String(), rid) {
		t.Errorf("the cause is not logged with the request id %s:\n%s", rid, h2.logs.String())
	}
}
