package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/llm/llmtest"
)

// crashModel is the model the fake endpoint serves; configs/prices.json
// prices it, so runs spend.
const crashModel = "gpt-4o-mini"

// built is the research binary the process tests share, built once.
var built struct {
	once sync.Once
	dir  string // removed by TestMain
	bin  string
	skip string // why it cannot be built here
	err  error
}

// buildResearch builds the research binary, once for all the tests that
// run it, and returns its path.
func buildResearch(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			built.skip = fmt.Sprintf("the go command is not on PATH (%v); the process tests build the binary", err)
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "research-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "research")
		if out, err := exec.Command(goBin, "build", "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.skip != "" {
		t.Skip(built.skip)
	}
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// evidenceShown matches the evidence a synthesis prompt shows.
var evidenceShown = regexp.MustCompile(`(?s)<evidence id="(E[0-9a-f]+)" ticker="([A-Z]+)"[^>]*>\n(.*?)\n</evidence>`)

// slowModel is a fake model endpoint whose every answer takes delay: a
// plan it cannot use (so the rules planner stands in), no re-plan, and an
// answer citing what it was shown (citingModel). Runs on it are long
// enough for a test to kill the process running them.
func slowModel(t *testing.T, delay time.Duration) *llmtest.Server {
	t.Helper()
	srv := llmtest.New(t)
	srv.On("task_graph", llmtest.Reply{Content: "I would search the filings for margins.", Delay: delay})
	srv.On("replan", llmtest.Reply{Content: "No more searches.", Delay: delay})
	srv.OnFunc("answer", citingModel(delay))
	return srv
}

// citingModel answers by quoting, verbatim, the first 80 bytes of the
// first evidence shown for each issuer, after delay.
func citingModel(delay time.Duration) func(llmtest.Request) llmtest.Reply {
	return func(req llmtest.Request) llmtest.Reply {
		var text []string
		var cits []map[string]any
		seen := map[string]bool{}
		for _, m := range req.Messages {
			for _, g := range evidenceShown.FindAllStringSubmatch(m.Content, -1) {
				if seen[g[2]] {
					continue
				}
				seen[g[2]] = true
				ex := strings.TrimSpace(g[3])
				if len(ex) > 80 {
					ex = ex[:80]
					for !utf8.ValidString(ex) {
						ex = ex[:len(ex)-1]
					}
				}
				n := len(cits) + 1
				text = append(text, fmt.Sprintf("%s's filing states: %q [%d].", g[2], ex, n))
				cits = append(cits, map[string]any{"index": n, "evidence_id": g[1], "excerpt": ex})
			}
		}
		b, _ := json.Marshal(map[string]any{"answer": strings.Join(text, "\n"), "citations": cits, "status": "supported", "gaps": []any{}})
		return llmtest.Reply{Content: string(b), Delay: delay}
	}
}

// batchDB is a fresh schema holding the fixture corpus for tenant "acme".
type batchDB struct {
	url  string
	pool *pgxpool.Pool
}

func newBatchDB(t *testing.T, bin, manifest string) batchDB {
	t.Helper()
	pool, schema := pgtest.EmptyPool(t)
	db := batchDB{url: pgtest.SchemaURL(t, schema), pool: pool}
	if out, err := exec.Command(bin, "ingest", "--db", db.url, "--tenant", "acme", "--manifest", manifest, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	return db
}

func (db batchDB) submit(t *testing.T, bin, file string) string {
	t.Helper()
	cmd := exec.Command(bin, "batch", "submit", file, "--db", db.url, "--tenant", "acme")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("batch submit: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// worker is a `research worker` process.
type worker struct {
	cmd *exec.Cmd
	log string
}

func (db batchDB) startWorker(t *testing.T, bin, modelURL, name string) *worker {
	t.Helper()
	log := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cmd := exec.Command(bin, "worker", "--db", db.url, "--concurrency", "4", "--poll", "100ms",
		"--job-timeout", "8s", "--rescue-after", "10s", "--grace", "20s")
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+modelURL, "OPENAI_API_KEY=test", "RESEARCH_MODEL="+crashModel, "RESEARCH_GRADER_MODEL=")
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &worker{cmd: cmd, log: log}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return w
}

// stop sends SIGTERM and waits for a clean exit.
func (w *worker) stop(t *testing.T) {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Wait(); err != nil {
		out, _ := os.ReadFile(w.log)
		t.Fatalf("worker exited with %v after SIGTERM:\n%s", err, out)
	}
}

// lineEvidence counts each batch line's evidence.
func (db batchDB) lineEvidence(t *testing.T, batchID string) map[int]int {
	t.Helper()
	rows, err := db.pool.Query(context.Background(), `
		SELECT bi.line, count(e.id) FROM batch_items bi
		LEFT JOIN evidence e ON e.tenant_id = bi.tenant_id AND e.run_id = bi.run_id
		WHERE bi.tenant_id = 'acme' AND bi.batch_id = $1 GROUP BY bi.line`, batchID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int]int{}
	for rows.Next() {
		var line, n int
		if err := rows.Scan(&line, &n); err != nil {
			t.Fatal(err)
		}
		out[line] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// spend is the tenant's spend as the budget tables hold it.
type spend struct {
	settlements decimal.Decimal // the tenant's settlements: what was charged
	runScopes   decimal.Decimal // the sum over runs of their scopes' settled spend
	twice       int             // reservations closed more than once
	rejected    int             // settlements refused
	open        int             // reservations still held
}

func (db batchDB) spend(t *testing.T) spend {
	t.Helper()
	ctx := context.Background()
	var s spend
	err := db.pool.QueryRow(ctx, `SELECT
		(SELECT coalesce(sum(spend_usd), 0) FROM settlements WHERE tenant_id = 'acme' AND kind = 'settle'),
		(SELECT coalesce(sum(settled_spend_usd), 0) FROM budgets WHERE tenant_id = 'acme' AND scope_kind = 'run'),
		(SELECT count(*) FROM (SELECT key FROM settlements WHERE tenant_id = 'acme' AND kind <> 'rejected'
			GROUP BY key HAVING count(*) > 1) d),
		(SELECT count(*) FROM settlements WHERE tenant_id = 'acme' AND kind = 'rejected'),
		(SELECT count(*) FROM reservations WHERE tenant_id = 'acme' AND state = 'reserved')`).
		Scan(&s.settlements, &s.runScopes, &s.twice, &s.rejected, &s.open)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBatchSurvivesWorkerCrash kills a worker with SIGKILL in the middle
// of a batch of model-mode runs, starts another, and checks the batch
// against a clean run of the same batch: every run ends with a verdict,
// each question gathered the same evidence, and the tenant's settled spend
// is the sum of its runs', with no reservation settled twice.
func TestBatchSurvivesWorkerCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs worker processes; skipped with -short")
	}
	pgtest.URL(t)
	t.Parallel()
	bin := buildResearch(t)

	// A slow model: plans are never valid (the rules planner takes over
	// after two corrections) and answers cite the evidence shown.
	const delay = 120 * time.Millisecond
	srv := slowModel(t, delay)

	const n = 24
	var lines []string
	for i, q := range batchQuestions(n) {
		b, _ := json.Marshal(map[string]any{"question": q, "mode": "model", "idempotency_key": fmt.Sprintf("q-%02d", i+1)})
		lines = append(lines, string(b))
	}
	file := writeBatchFile(t, lines...)
	manifest := writeBatchCorpus(t)
	crash, clean := newBatchDB(t, bin, manifest), newBatchDB(t, bin, manifest)

	// The clean run of the same batch, alongside.
	cleanID := clean.submit(t, bin, file)
	cleanWorker := clean.startWorker(t, bin, srv.URL, "clean")

	// The crash: kill -9 once some runs are done and one at least is cut
	// mid-way (evidence recorded, no verdict yet).
	batchID := crash.submit(t, bin, file)
	started := time.Now()
	first := crash.startWorker(t, bin, srv.URL, "first")
	waitForBatch(t, crash.pool, "acme", batchID, 3*time.Minute, func(st *jobs.BatchStatus) bool {
		if st.Done == st.Runs {
			t.Fatalf("the batch finished before the kill; slow the fake model down")
		}
		var midway int
		err := crash.pool.QueryRow(context.Background(), `SELECT count(*) FROM runs r WHERE r.tenant_id = 'acme' AND r.status = 'running'
			AND EXISTS (SELECT 1 FROM evidence e WHERE e.tenant_id = r.tenant_id AND e.run_id = r.id)`).Scan(&midway)
		if err != nil {
			t.Fatal(err)
		}
		return st.Done >= 4 && midway >= 1
	})
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()
	killed := time.Now()
	atKill, err := jobs.GetBatchStatus(context.Background(), crash.pool, "acme", batchID)
	if err != nil {
		t.Fatal(err)
	}
	var midway int
	if err := crash.pool.QueryRow(context.Background(), `SELECT count(*) FROM runs r WHERE r.tenant_id = 'acme' AND r.status = 'running'
		AND EXISTS (SELECT 1 FROM evidence e WHERE e.tenant_id = r.tenant_id AND e.run_id = r.id)`).Scan(&midway); err != nil {
		t.Fatal(err)
	}
	heldAtKill := crash.spend(t).open

	second := crash.startWorker(t, bin, srv.URL, "second")
	final := waitForBatch(t, crash.pool, "acme", batchID, 3*time.Minute, func(st *jobs.BatchStatus) bool { return st.Done == st.Runs })
	recovered := time.Since(killed)
	second.stop(t)
	crashSpend := crash.spend(t)

	cleanFinal := waitForBatch(t, clean.pool, "acme", cleanID, 3*time.Minute, func(st *jobs.BatchStatus) bool { return st.Done == st.Runs })
	cleanWorker.stop(t)
	cleanSpend := clean.spend(t)

	var resumed int
	if err := crash.pool.QueryRow(context.Background(), `SELECT count(*) FROM (SELECT run_id FROM run_events
		WHERE tenant_id = 'acme' AND kind = 'run_resumed' GROUP BY run_id HAVING count(*) > 1) r`).Scan(&resumed); err != nil {
		t.Fatal(err)
	}
	t.Logf("crash: killed after %s with %d of %d runs done, %d running (%d cut mid-way, %d reservations held); "+
		"the second worker finished the batch %s after the kill; %d runs took a second attempt",
		killed.Sub(started).Round(time.Millisecond), atKill.Done, atKill.Runs, atKill.Statuses["running"], midway, heldAtKill,
		recovered.Round(time.Millisecond), resumed)
	t.Logf("crash statuses %v, spend $%s (run scopes $%s), %d settled twice, %d rejected settlements, %d reservations left open",
		final.Statuses, crashSpend.settlements, crashSpend.runScopes, crashSpend.twice, crashSpend.rejected, crashSpend.open)
	t.Logf("clean statuses %v, spend $%s (run scopes $%s)", cleanFinal.Statuses, cleanSpend.settlements, cleanSpend.runScopes)

	if final.Runs != n || final.Done != n {
		t.Fatalf("crash batch: %d of %d runs done; want all %d", final.Done, final.Runs, n)
	}
	for status := range final.Statuses {
		if status == "failed" || status == jobs.StatusQueued || status == "running" {
			t.Errorf("crash batch statuses %v: want every run to end with a verdict", final.Statuses)
		}
	}
	if resumed == 0 {
		t.Error("no run took a second attempt: the kill interrupted nothing")
	}
	crashEv, cleanEv := crash.lineEvidence(t, batchID), clean.lineEvidence(t, cleanID)
	if len(crashEv) != n || len(cleanEv) != n {
		t.Fatalf("evidence counted for %d and %d lines; want %d", len(crashEv), len(cleanEv), n)
	}
	total := 0
	for line := 1; line <= n; line++ {
		total += cleanEv[line]
		if crashEv[line] != cleanEv[line] {
			t.Errorf("line %d: %d evidence after the crash, %d in the clean run", line, crashEv[line], cleanEv[line])
		}
	}
	t.Logf("evidence: %d items over %d questions in both runs", total, n)
	if !crashSpend.settlements.Equal(crashSpend.runScopes) || !crashSpend.settlements.IsPositive() {
		t.Errorf("the tenant settled $%s; its runs' scopes $%s; want them equal and positive", crashSpend.settlements, crashSpend.runScopes)
	}
	if crashSpend.twice != 0 {
		t.Errorf("%d reservations settled more than once", crashSpend.twice)
	}
	if !cleanSpend.settlements.Equal(cleanSpend.runScopes) {
		t.Errorf("clean run: the tenant settled $%s, its runs' scopes $%s", cleanSpend.settlements, cleanSpend.runScopes)
	}
	// A resumed run replays the model replies it paid for and makes each
	// other call once, so the crash costs nothing extra. The fake's usage
	// follows from the prompt's size, and a resumed run may show the model
	// its evidence in another order (the order it was recorded in), so
	// the totals agree within a few percent, not to the cent.
	if diff := crashSpend.settlements.Sub(cleanSpend.settlements).Abs(); diff.GreaterThan(cleanSpend.settlements.Mul(decimal.RequireFromString("0.05"))) {
		t.Errorf("the crashed batch settled $%s, the clean one $%s; a resumed run must not pay for its calls again", crashSpend.settlements, cleanSpend.settlements)
	}
	if fmt.Sprint(final.Statuses) != fmt.Sprint(cleanFinal.Statuses) {
		t.Errorf("statuses after the crash %v, in the clean run %v; want the same", final.Statuses, cleanFinal.Statuses)
	}
}
