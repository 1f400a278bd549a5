package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ledgerline/research/internal/pgtest"
)

// TestServeCrashRecovered kills `research serve` with SIGKILL while its
// in-process worker is in the middle of model-mode runs, then starts a
// `research worker`: the runs serve held are resumed and finish with a
// verdict within the bound serve documents (--rescue-after plus River's
// rescue pass and a leader's election, about 45 s), and no reservation is
// left open.
func TestServeCrashRecovered(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs serve and worker processes; skipped with -short")
	}
	pgtest.URL(t)
	t.Parallel()
	bin := buildResearch(t)

	const delay = 150 * time.Millisecond
	srv := slowModel(t, delay)

	db := newBatchDB(t, bin, writeBatchCorpus(t))
	out, err := exec.Command(bin, "tenant", "create", "acme", "--db", db.url, "--rate", "1000").Output()
	if err != nil {
		t.Fatalf("tenant create: %v", err)
	}
	key := strings.TrimSpace(string(out))

	const rescueAfter = 5 * time.Second
	logPath := filepath.Join(t.TempDir(), "serve.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	serve := exec.Command(bin, "serve", "--db", db.url, "--addr", "127.0.0.1:0", "--workers", "4", "--poll", "100ms",
		"--job-timeout", "4s", "--rescue-after", rescueAfter.String())
	serve.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=test", "RESEARCH_MODEL="+crashModel, "RESEARCH_GRADER_MODEL=")
	serve.Stdout, serve.Stderr = logFile, logFile
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if serve.ProcessState == nil {
			_ = serve.Process.Kill()
			_ = serve.Wait()
		}
	})
	base := ""
	for deadline := time.Now().Add(30 * time.Second); base == ""; {
		b, _ := os.ReadFile(logPath)
		if m := regexp.MustCompile(`serving on (http://\S+)`).FindSubmatch(b); m != nil {
			base = string(m[1])
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}

	const runs = 4
	for i, q := range batchQuestions(runs) {
		body, _ := json.Marshal(map[string]any{"question": q, "mode": "model", "idempotency_key": fmt.Sprintf("q-%d", i)})
		req, _ := http.NewRequest("POST", base+"/v1/runs", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /v1/runs = %d", resp.StatusCode)
		}
	}

	ctx := context.Background()
	midway := func() int {
		var n int
		if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM runs r WHERE r.tenant_id = 'acme' AND r.status = 'running'
			AND EXISTS (SELECT 1 FROM evidence e WHERE e.tenant_id = r.tenant_id AND e.run_id = r.id)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for deadline := time.Now().Add(60 * time.Second); midway() == 0; {
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("no run got under way in serve:\n%s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := serve.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = serve.Wait()
	killed := time.Now()
	cut := midway()

	w := db.startWorker(t, bin, srv.URL, "after-serve")
	bound := rescueAfter + 45*time.Second
	for {
		var open int
		if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM runs WHERE tenant_id = 'acme' AND finished_at IS NULL`).Scan(&open); err != nil {
			t.Fatal(err)
		}
		if open == 0 {
			break
		}
		if time.Since(killed) > bound+15*time.Second {
			b, _ := os.ReadFile(w.log)
			t.Fatalf("%d runs still unfinished %s after serve was killed (bound %s):\n%s", open, time.Since(killed).Round(time.Second), bound, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	recovered := time.Since(killed)
	w.stop(t)
	t.Logf("serve killed with %d runs cut mid-way; all %d runs finished %s after the kill (bound %s)", cut, runs, recovered.Round(100*time.Millisecond), bound)
	if recovered > bound {
		t.Errorf("recovery took %s, above the documented bound %s", recovered.Round(100*time.Millisecond), bound)
	}
	var failed int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM runs WHERE tenant_id = 'acme' AND status = 'failed'`).Scan(&failed); err != nil {
		t.Fatal(err)
	}
	if failed != 0 {
		t.Errorf("%d runs failed", failed)
	}
	if s := db.spend(t); s.open != 0 || s.twice != 0 {
		t.Errorf("%d reservations left open, %d settled twice", s.open, s.twice)
	}
}
