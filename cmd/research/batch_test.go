package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/jobs"
)

// batchRisk is every batch filing's Item 1A.
const batchRisk = "Our suppliers are concentrated and a disruption at any of them could raise our costs. Demand for our products is cyclical."

// batchFilings are three issuers with different revenue and margin stories.
var batchFilings = []corpustest.Filing{
	{Ticker: "ACME", Company: "Acme Corporation", Revenue: "1,000", Cost: "600", RiskFactors: batchRisk, Item7: "Revenue grew 8% in 2024 on higher anvil volumes. Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
		"We expect gross margin to remain under pressure in 2025 as component costs stay elevated."},
	{Ticker: "BOLT", Company: "Bolt Industries", Revenue: "2,400", Cost: "1,100", RiskFactors: batchRisk, Item7: "Revenue increased 12% in 2024 driven by new fastener contracts. Gross margin increased in 2024 as freight costs fell and pricing held. " +
		"Management expects gross margin to stay near current levels in 2025."},
	{Ticker: "CRUX", Company: "Crux Systems", Revenue: "800", Cost: "520", RiskFactors: batchRisk, Item7: "Revenue declined 5% in 2024 as a large customer paused orders. Gross margin declined in 2024 because of warranty charges and lower utilization of our plants. " +
		"We expect these pressures to ease in the second half of 2025."},
}

// writeBatchCorpus writes the filings and their manifest and returns the
// manifest's path.
func writeBatchCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	corpustest.WriteFilings(t, dir, batchFilings...)
	return filepath.Join(dir, "manifest.jsonl")
}

// batchQuestions are n distinct research questions over the filings.
func batchQuestions(n int) []string {
	subjects := []string{"ACME", "BOLT", "CRUX", "ACME and BOLT", "BOLT and CRUX", "ACME, BOLT and CRUX"}
	asks := []string{
		"What drove the change in gross margin at %s in fiscal 2024?",
		"Does management at %s expect gross-margin pressure to persist into 2025?",
		"Compare revenue growth at %s in fiscal 2024.",
		"What are the main risk factors %s disclose about suppliers?",
	}
	var out []string
	for i := 0; len(out) < n; i++ {
		out = append(out, fmt.Sprintf(asks[i%len(asks)], subjects[(i/len(asks)+i)%len(subjects)]))
	}
	return out
}

// writeBatchFile writes lines as a batch file and returns its path.
func writeBatchFile(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "questions.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitForBatch polls the batch's status until done holds, failing the test
// after timeout.
func waitForBatch(t *testing.T, pool *pgxpool.Pool, tenant, batchID string, timeout time.Duration, done func(*jobs.BatchStatus) bool) *jobs.BatchStatus {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := jobs.GetBatchStatus(context.Background(), pool, tenant, batchID)
		if err != nil {
			t.Fatalf("batch status: %v", err)
		}
		if done(st) {
			return st
		}
		select {
		case <-deadline.C:
			t.Fatalf("batch %s not there within %s: %+v", batchID, timeout, st)
		case <-tick.C:
		}
	}
}

func TestCLIBatchNeedsDatabase(t *testing.T) {
	t.Parallel()
	file := writeBatchFile(t, `{"question": "What drove revenue at ACME?"}`)
	for _, args := range [][]string{
		{"batch", "submit", file}, {"batch", "status", "batch-x"}, {"batch", "results", "batch-x"}, {"worker"},
	} {
		code, _, errOut := runCLI(t, append(args, "--db", "")...)
		if code != 1 || !strings.Contains(errOut, "no database: pass --db URL or set DATABASE_URL") {
			t.Errorf("%v without a database: exit %d, %q; want 1 and a clear error", args, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "batch"); code != 2 || !strings.Contains(errOut, "submit FILE.jsonl") {
		t.Errorf("batch without a subcommand: exit %d, %q; want usage", code, errOut)
	}
	if code, _, errOut := runCLI(t, "batch", "resubmit"); code != 2 || !strings.Contains(errOut, `unknown subcommand "resubmit"`) {
		t.Errorf("an unknown subcommand: exit %d, %q", code, errOut)
	}
}

func TestCLIBatch(t *testing.T) {
	t.Parallel()
	pool, schema := pgtest.EmptyPool(t)
	url := pgtest.SchemaURL(t, schema)
	if code, out, errOut := runCLI(t, "ingest", "--db", url, "--tenant", "acme", "--manifest", writeBatchCorpus(t), "--quiet"); code != 0 {
		t.Fatalf("ingest exited %d\n%s\n%s", code, out, errOut)
	}

	file := writeBatchFile(t,
		`{"question": "What drove the change in gross margin at ACME in fiscal 2024?", "idempotency_key": "q1"}`,
		`{"question": "hi"}`,
		`{"question": "Compare revenue growth at BOLT and CRUX in fiscal 2024.", "tickers": ["bolt"], "mode": "baseline", "budget_usd": 0.2}`,
		`{"question": "What drove revenue at CRUX?", "colour": "red"}`,
		``,
		`{"question": "Should I buy ACME stock now?"}`,
		`{"question": "Does ACME expect margin pressure to persist?", "idempotency_key": "q1"}`,
	)
	code, out, errOut := runCLI(t, "batch", "submit", file, "--db", url, "--tenant", "acme")
	if code != 1 {
		t.Fatalf("submit with bad lines exited %d, want 1\n%s\n%s", code, out, errOut)
	}
	batchID := strings.TrimSpace(out)
	if !strings.HasPrefix(batchID, "batch-") || strings.Contains(batchID, "\n") {
		t.Fatalf("stdout %q: want the batch id alone", out)
	}
	for _, want := range []string{
		file + ":2: question: 2 characters", file + `:4: unknown field "colour"`,
		"3 questions queued, 1 named runs submitted before", "2 lines rejected", "2 lines of " + file + " were rejected",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("submit stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "batch", "submit", writeBatchFile(t, `{"question": "x"}`), "--db", url, "--tenant", "acme"); code != 1 || !strings.Contains(errOut, "no question to submit") {
		t.Errorf("a batch of bad lines: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "batch", "submit", file, "--db", url, "--tenant", "empty"); code != 1 || !strings.Contains(errOut, `tenant "empty" holds no filings`) {
		t.Errorf("a tenant without filings: exit %d, %q", code, errOut)
	}

	code, out, errOut = runCLI(t, "batch", "status", batchID, "--db", url, "--tenant", "acme")
	if code != 0 || !strings.Contains(out, "6 read, 2 rejected, 3 runs") || !strings.Contains(out, "queued 3") || !strings.Contains(out, "Done:            0 of 3") {
		t.Errorf("status before the worker: exit %d\n%s%s", code, out, errOut)
	}

	// A worker, in process, until the batch is done.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wout, werr bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"worker", "--db", url, "--concurrency", "2", "--poll", "100ms", "--base-url", "", "--model", ""}, &wout, &werr)
	}()
	st := waitForBatch(t, pool, "acme", batchID, 2*time.Minute, func(st *jobs.BatchStatus) bool { return st.Done == st.Runs })
	cancel()
	if code := <-exited; code != 0 {
		t.Errorf("the worker exited %d on its signal\n%s", code, werr.String())
	}
	if st.Statuses["refused"] != 1 || st.Jobs["completed"] != 3 {
		t.Errorf("status %+v: want one refused run, three jobs completed", st)
	}
	runLines := 0
	sc := bufio.NewScanner(&werr)
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("worker log line %q is not JSON", sc.Text())
		}
		if msg, _ := l["msg"].(string); strings.HasPrefix(msg, "run ") {
			runLines++
			if l["run_id"] == nil || l["tenant"] != "acme" {
				t.Errorf("log line %s lacks run_id or tenant", sc.Text())
			}
		}
	}
	if runLines < 6 {
		t.Errorf("%d log lines about runs; want a start and a finish for each of 3", runLines)
	}

	code, out, errOut = runCLI(t, "batch", "status", batchID, "--db", url, "--tenant", "acme", "--format", "json")
	var js map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &js) != nil || js["done"] != float64(3) || js["runs"] != float64(3) {
		t.Errorf("status --format json: exit %d\n%s%s", code, out, errOut)
	}

	code, out, errOut = runCLI(t, "batch", "results", batchID, "--db", url, "--tenant", "acme", "--format", "jsonl")
	if code != 0 {
		t.Fatalf("results exited %d: %s", code, errOut)
	}
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("results line %q is not JSON: %v", l, err)
		}
		got = append(got, m)
	}
	wantLines := []float64{1, 3, 6, 7}
	if len(got) != len(wantLines) {
		t.Fatalf("%d results; want %d", len(got), len(wantLines))
	}
	for i, m := range got {
		if m["line"] != wantLines[i] || m["answer"] == nil || m["status"] == "" || m["budget"] == nil {
			t.Errorf("result %d: %v; want line %v with its recorded result", i, m, wantLines[i])
		}
	}
	if got[2]["status"] != "refused" || got[1]["mode"] != "baseline" || got[3]["run_id"] != got[0]["run_id"] {
		t.Errorf("results: line 6 %v, line 3 mode %v, line 7 run %v (line 1 %v)", got[2]["status"], got[1]["mode"], got[3]["run_id"], got[0]["run_id"])
	}
	code, out, _ = runCLI(t, "batch", "results", batchID, "--db", url, "--tenant", "acme", "--format", "text")
	if code != 0 || !strings.Contains(out, "refused") || strings.Count(out, "\n") != 5 {
		t.Errorf("results --format text: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "batch", "status", batchID, "--db", url, "--tenant", "other"); code != 1 || !strings.Contains(errOut, "not found for tenant \"other\"") {
		t.Errorf("another tenant's batch: exit %d, %q; want not found", code, errOut)
	}
}

// Lines in auto mode are queued for model mode when the workers have a
// model (--with-model, by default whether $RESEARCH_MODEL is set), and for
// the offline paths otherwise.
func TestCLIBatchWithModel(t *testing.T) {
	t.Parallel()
	pool, schema := pgtest.EmptyPool(t)
	url := pgtest.SchemaURL(t, schema)
	if code, out, errOut := runCLI(t, "ingest", "--db", url, "--tenant", "acme", "--manifest", writeBatchCorpus(t), "--quiet"); code != 0 {
		t.Fatalf("ingest exited %d\n%s\n%s", code, out, errOut)
	}
	for _, tc := range []struct {
		flag, question string
		model          bool
	}{
		{"--with-model", "What drove the change in gross margin at ACME in fiscal 2024?", true},
		{"--with-model=false", "What drove revenue at CRUX in fiscal 2024?", false},
	} {
		file := writeBatchFile(t, `{"question": "`+tc.question+`"}`)
		if code, out, errOut := runCLI(t, "batch", "submit", file, tc.flag, "--db", url, "--tenant", "acme"); code != 0 {
			t.Fatalf("submit %s exited %d\n%s\n%s", tc.flag, code, out, errOut)
		}
		var mode string
		if err := pool.QueryRow(context.Background(), `SELECT mode FROM runs WHERE tenant_id = 'acme' AND question = $1`, tc.question).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if (mode == "model") != tc.model {
			t.Errorf("%s: the auto line was queued in %s mode; want model mode %v", tc.flag, mode, tc.model)
		}
	}
}
