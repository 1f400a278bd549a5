package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgerline/research/internal/pgtest"
)

func TestTenantCommands(t *testing.T) {
	t.Parallel()
	_, schema := pgtest.EmptyPool(t)
	u := pgtest.SchemaURL(t, schema)

	code, out, errOut := runCLI(t, "tenant", "create", "acme", "--db", u, "--rate", "30", "--daily-spend", "2.5")
	if code != 0 {
		t.Fatalf("tenant create exited %d: %s", code, errOut)
	}
	key := strings.TrimSpace(out)
	if !regexp.MustCompile(`^rk_[A-Za-z0-9_-]{43}$`).MatchString(key) {
		t.Fatalf("stdout %q is not one key", out)
	}
	if !strings.Contains(errOut, "shown this once") || strings.Contains(errOut, key) {
		t.Errorf("stderr %q", errOut)
	}

	if code, _, errOut = runCLI(t, "tenant", "create", "acme", "--db", u); code != 1 || !strings.Contains(errOut, "exists already") {
		t.Errorf("a second create exited %d: %s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "tenant", "create", "acme corp", "--db", u); code != 1 || !strings.Contains(errOut, "tenant name") {
		t.Errorf("a bad name exited %d: %s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "tenant", "create", "x", "--db", u, "--daily-spend", "lots"); code != 1 || !strings.Contains(errOut, "--daily-spend") {
		t.Errorf("a bad amount exited %d: %s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "tenant", "create", "acme", "--db", ""); code != 1 || !strings.Contains(errOut, "Postgres") {
		t.Errorf("no database exited %d: %s", code, errOut)
	}

	code, out, _ = runCLI(t, "tenant", "limits", "acme", "--db", u)
	if code != 0 || !regexp.MustCompile(`requests a minute per key\s+30`).MatchString(out) || !regexp.MustCompile(`spend a day \(USD\)\s+2.5`).MatchString(out) ||
		!regexp.MustCompile(`runs a day\s+50`).MatchString(out) {
		t.Errorf("limits exited %d:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "tenant", "limits", "acme", "--db", u, "--max-concurrent", "7")
	if code != 0 || !regexp.MustCompile(`runs at once\s+7`).MatchString(out) || !regexp.MustCompile(`requests a minute per key\s+30`).MatchString(out) {
		t.Errorf("changing one limit exited %d:\n%s", code, out)
	}

	code, out, _ = runCLI(t, "tenant", "key", "acme", "--db", u)
	key2 := strings.TrimSpace(out)
	if code != 0 || key2 == key || !strings.HasPrefix(key2, "rk_") {
		t.Fatalf("tenant key exited %d: %q", code, out)
	}
	if code, _, errOut = runCLI(t, "tenant", "key", "nobody", "--db", u); code != 1 || !strings.Contains(errOut, "no tenant") {
		t.Errorf("a key for nobody exited %d: %s", code, errOut)
	}

	code, out, _ = runCLI(t, "tenant", "list", "--keys", "--db", u)
	if code != 0 || !strings.Contains(out, "acme") || !strings.Contains(out, key[:11]) || !strings.Contains(out, key2[:11]) || strings.Contains(out, key) {
		t.Errorf("list exited %d:\n%s", code, out)
	}
	if code, out, _ = runCLI(t, "tenant", "revoke", "acme", key2[:11], "--db", u); code != 0 || !strings.Contains(out, "revoked") {
		t.Errorf("revoke exited %d: %s", code, out)
	}
	if _, out, _ = runCLI(t, "tenant", "list", "--keys", "--db", u); !strings.Contains(out, "revoked") {
		t.Errorf("the revoked key is not shown so:\n%s", out)
	}
	if code, _, errOut = runCLI(t, "tenant", "revoke", "acme", "rk_nothing", "--db", u); code != 1 || !strings.Contains(errOut, "has no key") {
		t.Errorf("revoking nothing exited %d: %s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "tenant", "delete", "acme", "--db", u); code != 1 || !strings.Contains(errOut, "--yes") {
		t.Errorf("delete without --yes exited %d: %s", code, errOut)
	}
	if code, out, _ = runCLI(t, "tenant", "delete", "acme", "--yes", "--db", u); code != 0 || !strings.Contains(out, "deleted tenant acme") {
		t.Errorf("delete exited %d: %s", code, out)
	}
	if code, _, errOut = runCLI(t, "tenant", "delete", "acme", "--yes", "--db", u); code != 1 || !strings.Contains(errOut, "no tenant") {
		t.Errorf("deleting it again exited %d: %s", code, errOut)
	}
	if code, _, _ = runCLI(t, "tenant"); code != 2 {
		t.Errorf("tenant without a subcommand exited %d", code)
	}
}

// TestServe runs research serve as a person would: a tenant, its filings,
// the server with its worker, a run through the API, and a shutdown by
// cancelling the command's context (what SIGTERM does).
func TestServe(t *testing.T) {
	t.Parallel()
	_, schema := pgtest.EmptyPool(t)
	u := pgtest.SchemaURL(t, schema)
	_, manifest := writeFixtures(t)
	runCLI(t, "ingest", "--manifest", manifest, "--db", u, "--tenant", "acme")
	code, out, errOut := runCLI(t, "tenant", "create", "acme", "--db", u, "--rate", "1000")
	if code != 0 {
		t.Fatalf("tenant create: %s", errOut)
	}
	key := strings.TrimSpace(out)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"serve", "--db", u, "--addr", "127.0.0.1:0", "--workers", "2", "--shutdown-timeout", "10s"}, &stdout, &stderr)
	}()
	base := ""
	deadline := time.Now().Add(30 * time.Second)
	for base == "" {
		if m := regexp.MustCompile(`serving on (http://\S+)`).FindStringSubmatch(stdout.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case c := <-exited:
			t.Fatalf("serve exited %d:\n%s", c, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", stderr.String())
		}
	}
	if !strings.Contains(stdout.String(), "model none") {
		t.Errorf("stdout %q does not say model mode is off", stdout.String())
	}

	call := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, base+path, rd)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &m)
		return resp.StatusCode, m
	}
	code, acc := call("POST", "/v1/runs", `{"question": "What drove Acme's gross margin in fiscal 2024?", "tickers": ["ACME"]}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /v1/runs = %d %v", code, acc)
	}
	id := acc["run_id"].(string)
	var res map[string]any
	for end := time.Now().Add(60 * time.Second); ; {
		code, res = call("GET", "/v1/runs/"+id, "")
		if code != http.StatusOK {
			t.Fatalf("GET = %d %v", code, res)
		}
		if s := res["status"]; s != "queued" && s != "running" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("run still %v", res["status"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	if cits, _ := res["citations"].([]any); len(cits) == 0 || res["answer"] == "" {
		t.Errorf("result %v", res)
	}
	if code, m := call("POST", "/v1/runs", `{"question": "What drove Acme's gross margin?", "mode": "model"}`); code != http.StatusServiceUnavailable {
		t.Errorf("model mode without a model = %d %v", code, m)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`research_runs_total{mode="rules",status=`, "research_queue_depth 0", `research_http_requests_total{code="202",route="POST /v1/runs"} 1`} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("metrics lack %s", want)
		}
	}

	cancel() // SIGTERM
	select {
	case c := <-exited:
		if c != 0 {
			t.Errorf("serve exited %d after shutdown:\n%s", c, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	// Logs are JSON lines; each about the run names it and its tenant.
	sawRun := false
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		if m["run_id"] == id {
			sawRun = true
			if m["tenant"] != "acme" {
				t.Errorf("a line about the run without its tenant: %s", line)
			}
		}
	}
	if !sawRun || !strings.Contains(stderr.String(), "stopped serving") || !strings.Contains(stderr.String(), "worker stopped") {
		t.Errorf("logs:\n%s", stderr.String())
	}
}

// lockedBuffer is a bytes.Buffer a running command and the test share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestBenchLoad runs a small load test: it stops by itself, loses no run
// and reports its figures.
func TestBenchLoad(t *testing.T) {
	t.Parallel()
	pgtest.URL(t)
	dir, _ := writeFixtures(t)
	manifest := filepath.Join(dir, "small.jsonl")
	line := `{"path": "acme-2024.txt", "ticker": "ACME", "company": "Acme Corp", "form": "10-K", "fiscal_year": 2024, "period_end": "2024-12-31"}` + "\n"
	if err := os.WriteFile(manifest, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("bench_load_test_%d", time.Now().UnixNano())
	code, out, errOut := runCLI(t, "bench", "load", "--manifest", manifest, "--clients", "3", "--runs", "6", "--workers", "2",
		"--duration", "1m", "--drain", "1m", "--schema", schema, "--json", "-")
	if code != 0 {
		t.Fatalf("bench load exited %d:\n%s\n%s", code, out, errOut)
	}
	var rep struct {
		Submitted, Accepted, Completed, Errors, Lost int
		RunsPerSec                                   float64 `json:"runs_per_second"`
		Run                                          struct {
			N   int     `json:"n"`
			P50 float64 `json:"p50_ms"`
		} `json:"run_latency"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if rep.Submitted != 6 || rep.Accepted != 6 || rep.Completed != 6 || rep.Errors != 0 || rep.Lost != 0 || rep.RunsPerSec <= 0 {
		t.Errorf("report %+v\n%s", rep, out)
	}
}
