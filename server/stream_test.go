package server

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// txCounter counts the database transactions a pool's connections start:
// each statement sent while the connection is idle (a BEGIN, or a
// statement in its own implicit transaction).
type txCounter struct{ n atomic.Int64 }

func (c *txCounter) TraceQueryStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	if conn.PgConn().TxStatus() == 'I' {
		c.n.Add(1)
	}
	return ctx
}

func (c *txCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// countingPool is a pool on h's schema whose transactions are counted.
func countingPool(t *testing.T, h *harness) (*pgxpool.Pool, *txCounter) {
	t.Helper()
	cfg := h.pool.Config()
	c := &txCounter{}
	cfg.ConnConfig.Tracer = c
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, c
}

// openStream opens GET /v1/runs/{id}/events and returns once the stream's
// first bytes arrived; the stream ends with ctx.
func openStream(ctx context.Context, t *testing.T, base, key, id string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/runs/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK {
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	return resp
}

// TestStreamsShareOnePoller opens event streams on a run that makes no
// progress (no worker) and counts the database transactions the server
// makes while they stay open: one poller serves every stream of the
// process, so the streams together cost about what one costs, not one
// poll each per interval.
func TestStreamsShareOnePoller(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	id := h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "rules"})
	pool, counter := countingPool(t, h)
	srv, err := New(pool, &Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	const streams = 8
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range streams {
		resp := openStream(ctx, t, ts.URL, h.acmeKey, id)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream = %d", resp.StatusCode)
		}
		defer resp.Body.Close()
	}
	// The poller's first read wakes every stream once (it has seen no
	// mark of the run before); the count starts after it.
	<-time.After(time.Second)
	const window = 2 * time.Second
	before := counter.n.Load()
	<-time.After(window)
	n := counter.n.Load() - before
	perStream := float64(n) / window.Seconds() / streams
	t.Logf("%d streams open for %s: %d transactions, %.2f a second per stream (poll interval %s)", streams, window, n, perStream, srv.cfg.PollInterval)
	if perStream > 1 {
		t.Errorf("%.2f transactions a second per open stream; want the streams to share one poller", perStream)
	}
}

// TestStreamLimitPerKey: a key holds at most Config.MaxStreamsPerKey
// event streams at once; one more is refused with 429 until one ends.
func TestStreamLimitPerKey(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true, cfg: func(c *Config) { c.MaxStreamsPerKey = 2 }})
	id := h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "rules"})
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	for _, ctx := range []context.Context{ctx1, ctx2} {
		resp := openStream(ctx, t, h.http.URL, h.acmeKey, id)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream = %d", resp.StatusCode)
		}
		defer resp.Body.Close()
	}
	third := openStream(context.Background(), t, h.http.URL, h.acmeKey, id)
	third.Body.Close()
	if third.StatusCode != http.StatusTooManyRequests || third.Header.Get("Retry-After") == "" {
		t.Fatalf("a third stream = %d, want 429 with Retry-After", third.StatusCode)
	}
	// Another key (of another tenant) has its own streams.
	if r := h.do("GET", "/v1/runs/"+id+"/events", h.otherKey, nil); r.code == http.StatusTooManyRequests {
		t.Errorf("another key's stream = %d", r.code)
	}
	cancel1()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithCancel(context.Background())
		resp := openStream(ctx, t, h.http.URL, h.acmeKey, id)
		resp.Body.Close()
		cancel()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a stream after one ended = %d", resp.StatusCode)
		}
		<-time.After(20 * time.Millisecond)
	}
}

// TestUnknownKeysRateLimited: requests with well-formed keys that no
// tenant holds are limited per client address, before any query.
func TestUnknownKeysRateLimited(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true, cfg: func(c *Config) { c.BadKeysPerMinute = 5 }})
	unknown := KeyPrefix + strings.Repeat("B", 43)
	if r := h.do("POST", "/v1/search", h.acmeKey, `{"query": "margin"}`); r.code != http.StatusOK {
		t.Fatalf("a valid key = %d", r.code)
	}
	codes := map[int]int{}
	for range 12 {
		codes[h.do("POST", "/v1/search", unknown, `{"query": "margin"}`).code]++
	}
	if codes[http.StatusUnauthorized] != 5 || codes[http.StatusTooManyRequests] != 7 {
		t.Errorf("12 requests with an unknown key: %v, want 5 401s then 429s", codes)
	}
	// A key that authenticated here before still works from the same
	// address; one not seen yet waits for the window like the unknown ones.
	if r := h.do("POST", "/v1/search", h.acmeKey, `{"query": "margin"}`); r.code != http.StatusOK {
		t.Errorf("a valid key after the unknown ones = %d", r.code)
	}
	if r := h.do("POST", "/v1/search", h.otherKey, `{"query": "margin"}`); r.code != http.StatusTooManyRequests {
		t.Errorf("a key not seen before, from the limited address = %d, want 429", r.code)
	}
}
