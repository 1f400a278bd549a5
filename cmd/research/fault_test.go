package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/jobs"
)

// TestFaultSuite runs a batch of model-mode runs on a serve process (with
// its in-process worker) and a research worker, and meanwhile, at random
// points: kills the worker with SIGKILL and starts another, cuts every
// database connection of both processes (what a database restart does to
// them), and kills serve with SIGKILL and starts another. Afterwards every
// run has finished exactly once with a verdict, no evidence span is
// recorded twice in a run, no reservation is open or settled twice, and
// the tenant's day has not spent more than its cap.
//
// The batch has 12 runs here; RESEARCH_FAULT_RUNS=50 runs the full size
// (go test -run TestFaultSuite -v ./cmd/research/). The processes account
// with budget leases, their default; RESEARCH_BUDGET_LEASES=false runs
// them on the budgets' row locks. RESEARCH_FAULT_SEED replays a run's
// faults (its seed is logged).
func TestFaultSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs serve and worker processes; skipped with -short")
	}
	pgtest.URL(t)
	t.Parallel()
	n := 12
	if v := os.Getenv("RESEARCH_FAULT_RUNS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("RESEARCH_FAULT_RUNS=%q: want a positive number", v)
		}
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("RESEARCH_FAULT_SEED"); v != "" { // replay a failing run's faults
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("RESEARCH_FAULT_SEED=%q: %v", v, err)
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	t.Logf("seed %d, %d runs", seed, n)
	bin := buildResearch(t)

	const delay = 100 * time.Millisecond
	srv := slowModel(t, delay)

	db := newBatchDB(t, bin, writeBatchCorpus(t))
	const cap = "0.10"
	if out, err := exec.Command(bin, "tenant", "create", "acme", "--db", db.url, "--daily-spend", cap,
		"--max-concurrent", "100", "--daily-runs", "1000").CombinedOutput(); err != nil {
		t.Fatalf("tenant create: %v\n%s", err, out)
	}
	// The processes name themselves, so their connections can be cut.
	app := "fault-" + strconv.FormatUint(seed%1e9, 10)
	u, err := url.Parse(db.url)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	procDB := db
	procDB.url = u.String()

	var lines []string
	for i, question := range batchQuestions(n) {
		b, _ := json.Marshal(map[string]any{"question": question, "mode": "model", "idempotency_key": fmt.Sprintf("f-%02d", i+1)})
		lines = append(lines, string(b))
	}
	batchID := db.submit(t, bin, writeBatchFile(t, lines...))

	var logs []string // the processes' logs, read when a reservation is left open
	startServe := func(name string) *exec.Cmd {
		path := filepath.Join(t.TempDir(), name+".log")
		logs = append(logs, path)
		log, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { log.Close() })
		cmd := exec.Command(bin, "serve", "--db", procDB.url, "--addr", "127.0.0.1:0", "--workers", "2", "--poll", "100ms",
			"--job-timeout", "8s", "--rescue-after", "10s")
		cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=test", "RESEARCH_MODEL="+crashModel, "RESEARCH_GRADER_MODEL=")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		})
		return cmd
	}
	kill := func(cmd *exec.Cmd) {
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}
	ctx := context.Background()
	doneAtLeast := func(k int) {
		waitForBatch(t, db.pool, "acme", batchID, 3*time.Minute, func(st *jobs.BatchStatus) bool { return st.Done >= k })
	}

	serve := startServe("serve-1")
	worker := procDB.startWorker(t, bin, srv.URL, "worker-1")
	logs = append(logs, worker.log)
	// Three faults, each after a random share of the batch is done.
	points := []int{1 + rng.IntN(max(n/4, 1)), n/4 + 1 + rng.IntN(max(n/4, 1)), n/2 + 1 + rng.IntN(max(n/4, 1))}
	start := time.Now()

	doneAtLeast(points[0])
	kill(worker.cmd)
	t.Logf("%s: worker killed", time.Since(start).Round(time.Millisecond))
	worker = procDB.startWorker(t, bin, srv.URL, "worker-2")
	logs = append(logs, worker.log)

	doneAtLeast(points[1])
	var cut int
	if err := db.pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&cut); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d database connections cut", time.Since(start).Round(time.Millisecond), cut)

	doneAtLeast(points[2])
	kill(serve)
	t.Logf("%s: serve killed", time.Since(start).Round(time.Millisecond))
	serve = startServe("serve-2")

	final := waitForBatch(t, db.pool, "acme", batchID, 3*time.Minute, func(st *jobs.BatchStatus) bool { return st.Done == st.Runs })
	t.Logf("%s: batch done, statuses %v", time.Since(start).Round(time.Millisecond), final.Statuses)
	worker.stop(t)
	if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = serve.Wait()

	if final.Runs != n {
		t.Fatalf("%d runs in the batch, want %d", final.Runs, n)
	}
	for status := range final.Statuses {
		if status == "failed" || status == jobs.StatusQueued || status == "running" {
			t.Errorf("statuses %v: want every run to end with a verdict", final.Statuses)
		}
	}
	var finishedTwice, dupEvidence int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT run_id FROM run_events WHERE tenant_id = 'acme' AND kind = 'run_finished'
		GROUP BY run_id HAVING count(*) <> 1) r`).Scan(&finishedTwice); err != nil {
		t.Fatal(err)
	}
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM evidence WHERE tenant_id = 'acme'
		GROUP BY run_id, document_id, start_offset, end_offset HAVING count(*) > 1) d`).Scan(&dupEvidence); err != nil {
		t.Fatal(err)
	}
	// What the runs recorded for their tenant names no database, socket
	// or driver message, although every connection was cut under them.
	var leaks int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM run_events WHERE tenant_id = 'acme'
		AND message ~* '127\.0\.0\.1|user=|database=|terminating connection|dial tcp|conn closed'`).Scan(&leaks); err != nil {
		t.Fatal(err)
	}
	if leaks != 0 {
		t.Errorf("%d run events name the database or the driver's messages", leaks)
		rows, _ := db.pool.Query(ctx, `SELECT kind, message FROM run_events WHERE tenant_id = 'acme'
			AND message ~* '127\.0\.0\.1|user=|database=|terminating connection|dial tcp|conn closed'`)
		for rows.Next() {
			var kind, msg string
			_ = rows.Scan(&kind, &msg)
			t.Logf("%s: %.300s", kind, msg)
		}
		rows.Close()
	}
	s := db.spend(t)
	var daySpend decimal.Decimal
	if err := db.pool.QueryRow(ctx, `SELECT coalesce(sum(settled_spend_usd), 0) FROM budgets WHERE tenant_id = 'acme' AND scope_kind = 'tenant_day'`).Scan(&daySpend); err != nil {
		t.Fatal(err)
	}
	var leases int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM reservations WHERE tenant_id = 'acme' AND lease`).Scan(&leases); err != nil {
		t.Fatal(err)
	}
	t.Logf("spend $%s (run scopes $%s, the day's $%s against a cap of $%s); %d reservations open, %d settled twice; %d budget leases taken",
		s.settlements, s.runScopes, daySpend, cap, s.open, s.twice, leases)
	if finishedTwice != 0 {
		t.Errorf("%d runs finished other than once", finishedTwice)
		rows, _ := db.pool.Query(ctx, `SELECT run_id, seq, kind, message FROM run_events WHERE tenant_id = 'acme' AND run_id IN
			(SELECT run_id FROM run_events WHERE tenant_id = 'acme' AND kind = 'run_finished' GROUP BY run_id HAVING count(*) <> 1)
			AND kind IN ('run_created', 'run_resumed', 'run_finished', 'answer', 'finished', 'decision') ORDER BY run_id, seq`)
		for rows.Next() {
			var id, kind, msg string
			var seq int
			_ = rows.Scan(&id, &seq, &kind, &msg)
			t.Logf("%s %d %s %.150s", id, seq, kind, msg)
		}
		rows.Close()
	}
	if dupEvidence != 0 {
		t.Errorf("%d evidence spans recorded twice in a run", dupEvidence)
	}
	if s.open != 0 || s.twice != 0 {
		t.Errorf("%d reservations open, %d settled twice", s.open, s.twice)
		words := []string{"reservations", "lease"}
		rows, _ := db.pool.Query(ctx, `SELECT key, lease, scope_keys, created_at, expires_at FROM reservations WHERE tenant_id = 'acme' AND state = 'reserved'`)
		for rows.Next() {
			var key string
			var lease bool
			var scopes []string
			var created, expires time.Time
			_ = rows.Scan(&key, &lease, &scopes, &created, &expires)
			t.Logf("open: %s lease=%v scopes %v created %s expires %s", key, lease, scopes, created.Format(time.RFC3339Nano), expires.Format(time.RFC3339Nano))
			for _, sc := range scopes {
				if run, ok := strings.CutPrefix(sc, "run/"); ok {
					words = append(words, run)
				}
			}
		}
		rows.Close()
		// What the processes said about budgets and about the runs of the
		// open reservations.
		for _, path := range logs {
			b, _ := os.ReadFile(path)
			for _, line := range strings.Split(string(b), "\n") {
				if slices.ContainsFunc(words, func(w string) bool { return strings.Contains(line, w) }) {
					t.Logf("%s: %.300s", filepath.Base(path), line)
				}
			}
		}
	}
	if !s.settlements.Equal(s.runScopes) {
		t.Errorf("the tenant settled $%s, its runs' scopes $%s", s.settlements, s.runScopes)
	}
	if daySpend.GreaterThan(decimal.RequireFromString(cap)) {
		t.Errorf("the day spent $%s against a cap of $%s", daySpend, cap)
	}
	if strings.Contains(fmt.Sprint(final.Statuses), "failed") {
		t.Errorf("failed runs: %v", final.Statuses)
	}
}
