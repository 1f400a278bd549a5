package edgar_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ledgerline/research/edgar"
	"github.com/ledgerline/research/internal/edgartest"
)

func TestNewClientRequiresUserAgent(t *testing.T) {
	t.Parallel()
	for _, ua := range []string{"", "research", "research@example.com", "Go-http-client/1.1"} {
		_, err := edgar.NewClient(&edgar.Config{UserAgent: ua, CacheDir: t.TempDir()})
		if !errors.Is(err, edgar.ErrUserAgent) {
			t.Errorf("NewClient(UserAgent %q): err = %v, want ErrUserAgent", ua, err)
		}
	}
	if _, err := edgar.NewClient(nil); !errors.Is(err, edgar.ErrUserAgent) {
		t.Errorf("NewClient(nil): err = %v", err)
	}
	if _, err := edgar.NewClient(&edgar.Config{UserAgent: userAgent, CacheDir: t.TempDir(), RequestsPerSecond: 11}); err == nil ||
		!strings.Contains(err.Error(), "RequestsPerSecond") {
		t.Errorf("11 requests a second: err = %v", err)
	}
	if _, err := edgar.NewClient(&edgar.Config{UserAgent: userAgent}); err == nil || !strings.Contains(err.Error(), "CacheDir") {
		t.Errorf("no cache: err = %v", err)
	}
	// Offline sends nothing, so needs no User-Agent.
	if _, err := edgar.NewClient(&edgar.Config{CacheDir: t.TempDir(), Offline: true}); err != nil {
		t.Errorf("offline: %v", err)
	}
}

func TestClientSendsUserAgentAndAcceptsGzip(t *testing.T) {
	t.Parallel()
	srv := edgartest.New(t)
	body := strings.Repeat("gross margin ", 2000)
	srv.Put("/a.htm", []byte(body))
	c := newClient(t, srv, t.TempDir(), nil)
	res := mustGet(t, c, srv.URL+"/a.htm")
	got, _ := os.ReadFile(res.Path)
	if string(got) != body {
		t.Fatalf("cached body is %d bytes, want %d", len(got), len(body))
	}
	h := srv.Hits()[0]
	if h.UserAgent != userAgent || !h.Gzip {
		t.Errorf("request: User-Agent %q, gzip %v", h.UserAgent, h.Gzip)
	}
	st := c.Stats()
	if st.Bytes != int64(len(body)) || st.WireBytes >= st.Bytes/10 {
		t.Errorf("stats: %d bytes stored, %d received; want the body gzipped on the wire", st.Bytes, st.WireBytes)
	}
}

func TestClientRevalidatesWithConditionalRequest(t *testing.T) {
	t.Parallel()
	srv := edgartest.New(t)
	srv.Put("/submissions/CIK0000000001.json", []byte(`{"v":1}`))
	c := newClient(t, srv, t.TempDir(), nil)
	url := srv.URL + "/submissions/CIK0000000001.json"
	first := mustGet(t, c, url)
	if first.FromCache || first.ETag == "" || first.LastModified == "" {
		t.Fatalf("first = %+v", first)
	}
	again := mustGet(t, c, url)
	if !again.FromCache || !again.NotModified || again.Path != first.Path {
		t.Errorf("again = %+v, want a 304 answered from the cache", again)
	}
	if h := srv.Hits()[1]; !h.Conditional || h.Status != 304 {
		t.Errorf("second request: conditional %v, status %d", h.Conditional, h.Status)
	}
	// Changed at the source: downloaded again.
	srv.Put("/submissions/CIK0000000001.json", []byte(`{"v":2}`))
	changed := mustGet(t, c, url)
	if b, _ := os.ReadFile(changed.Path); changed.FromCache || string(b) != `{"v":2}` {
		t.Errorf("changed: FromCache %v, body %s", changed.FromCache, b)
	}
	// An immutable resource in the cache is not asked for at all.
	n := len(srv.Hits())
	if res, err := c.Get(context.Background(), url, &edgar.GetOpts{Immutable: true}); err != nil || !res.FromCache || len(srv.Hits()) != n {
		t.Errorf("immutable: %+v, %v, %d requests", res, err, len(srv.Hits())-n)
	}
}

func TestClientOffline(t *testing.T) {
	t.Parallel()
	srv := edgartest.New(t)
	srv.Put("/a.htm", []byte("filing"))
	dir := t.TempDir()
	offline := newClient(t, srv, dir, &edgar.Config{Offline: true})
	if _, err := offline.Get(context.Background(), srv.URL+"/a.htm", nil); !errors.Is(err, edgar.ErrNotCached) {
		t.Fatalf("offline, empty cache: err = %v", err)
	}
	mustGet(t, newClient(t, srv, dir, nil), srv.URL+"/a.htm")
	n := len(srv.Hits())
	if res, err := offline.Get(context.Background(), srv.URL+"/a.htm", nil); err != nil || !res.FromCache {
		t.Fatalf("offline, cached: %+v, %v", res, err)
	}
	if len(srv.Hits()) != n {
		t.Error("offline client sent a request")
	}
}

func TestClientRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		faults  []edgartest.Fault
		minWait time.Duration // between the first request and the last
	}{
		{"429 with Retry-After", []edgartest.Fault{{Status: 429, RetryAfter: "1"}}, time.Second},
		{"500 then success", []edgartest.Fault{{Status: 500}}, 0},
		{"503 twice then success", []edgartest.Fault{{Status: 503}, {Status: 503}}, 0},
		{"connection cut mid-body", []edgartest.Fault{{CutAfter: 100}}, 0},
		{"429 with a Retry-After date", []edgartest.Fault{{Status: 429, RetryAfter: "in 3s"}}, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := edgartest.New(t)
			body := strings.Repeat("revenue grew ", 500)
			srv.Put("/a.htm", []byte(body))
			for i, f := range tt.faults {
				if f.RetryAfter == "in 3s" { // an HTTP date, set when the subtest runs
					tt.faults[i].RetryAfter = time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)
				}
			}
			srv.Fail("/a.htm", tt.faults...)
			c := newClient(t, srv, t.TempDir(), nil)
			res := mustGet(t, c, srv.URL+"/a.htm")
			if b, _ := os.ReadFile(res.Path); string(b) != body {
				t.Fatalf("cached %d bytes, want %d", len(b), len(body))
			}
			hits := srv.Hits()
			if len(hits) != len(tt.faults)+1 || c.Stats().Retries != len(tt.faults) {
				t.Errorf("%d requests, %d retries; want %d retries", len(hits), c.Stats().Retries, len(tt.faults))
			}
			if wait := hits[len(hits)-1].Time.Sub(hits[0].Time); wait < tt.minWait {
				t.Errorf("retried after %s, want at least %s", wait, tt.minWait)
			}
		})
	}
}

func TestClientGivesUp(t *testing.T) {
	t.Parallel()
	srv := edgartest.New(t)
	srv.Put("/a.htm", []byte(strings.Repeat("x", 4000)))
	srv.Fail("/a.htm", edgartest.Fault{CutAfter: 1000}, edgartest.Fault{CutAfter: 2000}, edgartest.Fault{CutAfter: 3000})
	dir := t.TempDir()
	c := newClient(t, srv, dir, &edgar.Config{MaxAttempts: 3})
	_, err := c.Get(context.Background(), srv.URL+"/a.htm", nil)
	if err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Fatalf("err = %v", err)
	}
	// Nothing of the partial bodies entered the cache, not even a temporary file.
	if _, ok := c.Cache().Lookup(srv.URL + "/a.htm"); ok {
		t.Error("a partial body is in the cache")
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left in the cache: %s", path)
		}
		return nil
	})

	// A Retry-After beyond the deadline is not waited for.
	srv.Fail("/b.htm", edgartest.Fault{Status: 429, RetryAfter: "600"})
	c2 := newClient(t, srv, t.TempDir(), &edgar.Config{RetryDeadline: 5 * time.Second})
	start := time.Now()
	if _, err := c2.Get(context.Background(), srv.URL+"/b.htm", nil); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("err = %v", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("waited %s for a retry it could not make", time.Since(start))
	}

	// 403 (the SEC's answer to an undeclared tool) and 404 are not retried.
	srv.Fail("/c.htm", edgartest.Fault{Status: 403})
	var se *edgar.StatusError
	if _, err := c2.Get(context.Background(), srv.URL+"/c.htm", nil); !errors.As(err, &se) || se.StatusCode != 403 || !strings.Contains(err.Error(), "User-Agent") {
		t.Errorf("403: err = %v", err)
	}
	if _, err := c2.Get(context.Background(), srv.URL+"/missing.htm", nil); !errors.Is(err, edgar.ErrNotFound) {
		t.Errorf("404: err = %v", err)
	}
	if n := srv.Count("/c.htm", 0) + srv.Count("/missing.htm", 0); n != 2 {
		t.Errorf("%d requests for a 403 and a 404, want 2", n)
	}
}

// TestClientRateLimit sends 30 requests from 8 workers and checks, by the
// times the server saw them arrive, that no second held more than 10.
func TestClientRateLimit(t *testing.T) {
	t.Parallel()
	srv := edgartest.New(t)
	const n = 30
	for i := range n {
		srv.Put(fmt.Sprintf("/doc%d.htm", i), []byte("x"))
	}
	// Two failures on the way: retries are paced too.
	srv.Fail("/doc3.htm", edgartest.Fault{Status: 503})
	srv.Fail("/doc7.htm", edgartest.Fault{Status: 429, RetryAfter: "0"})
	c := newClient(t, srv, t.TempDir(), &edgar.Config{Backoff: time.Millisecond})
	g := new(errgroup.Group)
	g.SetLimit(8)
	start := time.Now()
	for i := range n {
		g.Go(func() error {
			_, err := c.Get(context.Background(), fmt.Sprintf("%s/doc%d.htm", srv.URL, i), nil)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	// The client releases at most the limit each second. What the server
	// sees can bunch by a request or two when the machine is loaded (a
	// released request that waits for a CPU arrives with the next one), so
	// one second may hold two more; over three seconds the bunching
	// evens out and the sustained rate must hold.
	if got := srv.MaxPerWindow(time.Second); got > edgar.MaxRequestsPerSecond+2 {
		t.Errorf("%d requests arrived within one second; the limit is %d", got, edgar.MaxRequestsPerSecond)
	}
	if got := srv.MaxPerWindow(3 * time.Second); got > 3*edgar.MaxRequestsPerSecond+1 {
		t.Errorf("%d requests arrived within three seconds; the limit is %d a second", got, edgar.MaxRequestsPerSecond)
	}
	if reqs := len(srv.Hits()); reqs != n+2 {
		t.Errorf("%d requests, want %d", reqs, n+2)
	}
	// And the limit is not far under: 32 requests take about 3.3s.
	if elapsed > 5*time.Second {
		t.Errorf("32 requests took %s", elapsed)
	}
	t.Logf("%d requests in %s: at most %d in any second; waited %s on the limiter in all",
		n+2, elapsed.Round(time.Millisecond), srv.MaxPerWindow(time.Second), c.Stats().LimiterWait.Round(time.Millisecond))

	// A lower configured rate holds too.
	srv2 := edgartest.New(t)
	srv2.Put("/a.htm", []byte("x"))
	slow := newClient(t, srv2, t.TempDir(), &edgar.Config{RequestsPerSecond: 4})
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() { slow.Get(context.Background(), srv2.URL+"/a.htm", nil) })
	}
	wg.Wait()
	if got := srv2.MaxPerWindow(time.Second); got > 4 {
		t.Errorf("%d requests within one second at 4 a second", got)
	}
}

func TestCachePathStaysInside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, err := edgar.NewCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{
		"https://www.sec.gov/../../etc/passwd",
		"https://www.sec.gov/Archives/%2e%2e/%2e%2e/x",
		"https://www.sec.gov/",
		"https://www.sec.gov/a/.hidden?x=1",
		"http://127.0.0.1:8080/submissions/CIK0000320193.json",
	} {
		p, err := c.Path(u)
		if err != nil {
			t.Errorf("Path(%s): %v", u, err)
			continue
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || strings.HasPrefix(rel, "..") || strings.Contains(rel, string(filepath.Separator)+".") {
			t.Errorf("Path(%s) = %s, outside the cache or hidden", u, p)
		}
	}
	a, _ := c.Path("https://www.sec.gov/a?x=1")
	b, _ := c.Path("https://www.sec.gov/a?x=2")
	if a == b {
		t.Error("two queries share a cache file")
	}
	want := filepath.Join(dir, "www.sec.gov", "Archives", "edgar", "data", "320193", "000032019324000123", "aapl-20240928.htm")
	if p, _ := c.Path("https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm"); p != want {
		t.Errorf("archive path = %s, want %s", p, want)
	}
}
