package jobs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
	"github.com/ledgerline/research/tools"
)

// logBuffer collects a worker's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer // guarded by mu
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// startWorker starts a worker over pool and stops it when the test ends.
func startWorker(t *testing.T, pool *pgxpool.Pool, engines EngineFactory, opts WorkerOptions) *Worker {
	t.Helper()
	if opts.PollInterval == 0 {
		opts.PollInterval = 100 * time.Millisecond
	}
	w, err := NewWorker(pool, engines, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := w.Stop(ctx); err != nil {
			t.Errorf("stop the worker: %v", err)
		}
	})
	return w
}

// runStatus returns a run's status in the ledger.
func runStatus(t *testing.T, pool *pgxpool.Pool, tenant, runID string) ledger.RunStatus {
	t.Helper()
	led, err := pgledger.New(pool, &pgledger.Config{Tenant: tenant})
	if err != nil {
		t.Fatal(err)
	}
	run, err := led.Run(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	return run.Status
}

func TestWorkerRunsBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	lines := []BatchLine{
		{Line: 1, Submission: Submission{Question: questions[0]}},
		{Line: 2, Submission: Submission{Question: questions[1], Mode: "baseline"}},
		{Line: 4, Submission: Submission{Question: "Should I buy ACME stock now?"}},
		{Line: 5, Submission: Submission{Question: questions[2], IdempotencyKey: "dup"}},
		{Line: 6, Submission: Submission{Question: questions[3], IdempotencyKey: "dup"}},
	}
	b, err := SubmitBatch(ctx, pool, "acme", "questions.jsonl", lines, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) != 5 || !b.Items[4].Reused || b.Items[4].RunID != b.Items[3].RunID || b.Items[3].Reused {
		t.Fatalf("items %+v: want five, the last naming the run of the line before", b.Items)
	}
	st, err := GetBatchStatus(ctx, pool, "acme", b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Lines != 6 || st.Rejected != 1 || st.Runs != 4 || st.Statuses[StatusQueued] != 4 || st.Jobs["available"] != 4 || st.Done != 0 {
		t.Errorf("status before any worker %+v: want 6 lines, 1 rejected, 4 runs queued", st)
	}
	if depth, err := QueueDepth(ctx, pool); err != nil || depth != 4 {
		t.Errorf("queue depth %d, %v; want 4", depth, err)
	}

	var logs logBuffer
	w := startWorker(t, pool, engines(t, pool, nil), WorkerOptions{
		Concurrency: 2, Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	waitFor(t, 60*time.Second, "the batch to finish", func() (bool, error) {
		st, err := GetBatchStatus(ctx, pool, "acme", b.ID)
		return err == nil && st.Done == st.Runs, err
	})
	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := w.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}

	st, err = GetBatchStatus(ctx, pool, "acme", b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Jobs["completed"] != 4 || st.Statuses[string(ledger.StatusRefused)] != 1 || st.Statuses[StatusQueued] != 0 {
		t.Errorf("status after the worker %+v: want 4 jobs completed, one run refused", st)
	}
	results, err := BatchResults(ctx, pool, "acme", b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 5 {
		t.Fatalf("%d results; want one per accepted line", len(results))
	}
	for i, r := range results {
		if r.Line != lines[i].Line || r.Result == nil || r.Result.RunID != r.RunID || string(r.Result.Status) != r.Status || !r.Result.Status.Terminal() {
			t.Errorf("result %d: line %d, status %s, result %v; want line %d's recorded result", i, r.Line, r.Status, r.Result != nil, lines[i].Line)
		}
	}
	if results[2].Status != string(ledger.StatusRefused) {
		t.Errorf("the advice question ended %s; want refused", results[2].Status)
	}
	if results[1].Result != nil && results[1].Result.Mode != ledger.ModeBaseline {
		t.Errorf("line 2 ran in %s mode; want baseline", results[1].Result.Mode)
	}
	line, err := json.Marshal(results[0])
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(line, &decoded); err != nil {
		t.Fatal(err)
	}
	if decoded["line"] != float64(1) || decoded["run_id"] != results[0].RunID || decoded["answer"] == nil || decoded["citations"] == nil {
		t.Errorf("JSON line %s: want the result with its batch line", line)
	}
	if depth, err := QueueDepth(ctx, pool); err != nil || depth != 0 {
		t.Errorf("queue depth %d, %v after the batch; want 0", depth, err)
	}

	// Every line about a run names it and its tenant.
	finished := 0
	for _, l := range logs.lines(t) {
		msg, _ := l["msg"].(string)
		if !strings.HasPrefix(msg, "run ") {
			continue
		}
		if l["run_id"] == nil || l["run_id"] == "" || l["tenant"] != "acme" {
			t.Errorf("log line %v lacks run_id or tenant", l)
		}
		if msg == "run finished" {
			finished++
		}
	}
	if finished != 4 {
		t.Errorf("%d 'run finished' log lines; want 4", finished)
	}
}

func TestBatchNotFound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	ingestFixtures(t, pool, "beta")
	b, err := SubmitBatch(ctx, pool, "acme", "f.jsonl", []BatchLine{{Line: 1, Submission: Submission{Question: questions[0]}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tenant, id string }{{"beta", b.ID}, {"acme", "batch-none"}, {"acme", "bad id!"}} {
		if _, err := GetBatchStatus(ctx, pool, c.tenant, c.id); !errors.Is(err, ErrNotFound) {
			t.Errorf("status of %s for %s: %v; want ErrNotFound", c.id, c.tenant, err)
		}
		if _, err := BatchResults(ctx, pool, c.tenant, c.id); !errors.Is(err, ErrNotFound) {
			t.Errorf("results of %s for %s: %v; want ErrNotFound", c.id, c.tenant, err)
		}
	}
	var le *LineError
	if _, err := SubmitBatch(ctx, pool, "acme", "f.jsonl", []BatchLine{{Line: 7, Submission: Submission{Question: "x"}}}, 0); !errors.As(err, &le) || le.Line != 7 {
		t.Errorf("a bad line: %v; want a LineError for line 7", err)
	}
	if _, err := SubmitBatch(ctx, pool, "acme", "f.jsonl", nil, 3); err == nil {
		t.Error("an empty batch was accepted")
	}
}

// A job whose first attempt is cancelled mid-run (its worker stopping
// past the grace period) goes back to the queue without spending an
// attempt, and the next attempt resumes the run: the evidence it gathers
// is that of a run never interrupted, none of it twice, and no call is
// settled twice.
func TestWorkerResumesCancelledRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	runID, err := Submit(ctx, pool, "acme", Submission{Question: questions[0]})
	if err != nil {
		t.Fatal(err)
	}

	// The first worker's third tool call waits until the run is cancelled.
	blocked, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	blocking := func(ctx context.Context, env *tools.Env, call tools.Call) (*tools.Output, error) {
		if calls.Add(1) == 3 {
			close(blocked)
			<-release
		}
		return tools.Run(ctx, env, call)
	}
	inner := engines(t, pool, &engine.Config{Tool: blocking})
	jobCtx := make(chan context.Context, 1)
	first := startWorker(t, pool, func(ctx context.Context, tenant string) (*executor.Engine, error) {
		jobCtx <- ctx
		return inner(ctx, tenant)
	}, WorkerOptions{Concurrency: 1})
	jctx := receive(t, jobCtx, "the first attempt")
	receive(t, blocked, "the third tool call")
	stopped := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		stopped <- first.Stop(sctx)
	}()
	receive(t, jctx.Done(), "the run's cancellation")
	close(release)
	if err := receive(t, stopped, "the first worker to stop"); err != nil {
		t.Fatal(err)
	}

	var state string
	var attempt, maxAttempts int
	err = pool.QueryRow(ctx, `SELECT j.state::text, j.attempt, j.max_attempts FROM river_job j
		JOIN run_submissions s ON s.job_id = j.id WHERE s.tenant_id = 'acme' AND s.run_id = $1`, runID).Scan(&state, &attempt, &maxAttempts)
	if err != nil {
		t.Fatal(err)
	}
	if state != "available" || maxAttempts-attempt != MaxAttempts {
		t.Errorf("handed-back job: %s, attempt %d of %d; want available with all %d attempts left", state, attempt, maxAttempts, MaxAttempts)
	}
	if s := runStatus(t, pool, "acme", runID); s.Terminal() && s != ledger.StatusFailed {
		t.Fatalf("the cancelled run ended %s; want it unfinished", s)
	}
	if st, err := GetRunState(ctx, pool, "acme", runID); err != nil || st.Status != StatusQueued || st.Done || st.JobState != "available" {
		t.Errorf("the handed-back run's state %+v, %v; want queued again, not done", st, err)
	}
	if n := count(t, pool, `SELECT count(*) FROM tool_calls WHERE tenant_id = 'acme' AND run_id = $1 AND error <> ''`, runID); n != 0 {
		t.Errorf("%d tool calls recorded as failed by the cancellation; want none (calls in flight complete)", n)
	}
	before := count(t, pool, `SELECT count(*) FROM evidence WHERE tenant_id = 'acme' AND run_id = $1`, runID)
	if before == 0 {
		t.Error("the first attempt recorded no evidence; the test needs a run cut mid-way")
	}

	// A clean run of the same question, and the resumed one.
	cleanID, err := Submit(ctx, pool, "acme", Submission{Question: questions[0]})
	if err != nil {
		t.Fatal(err)
	}
	startWorker(t, pool, engines(t, pool, nil), WorkerOptions{Concurrency: 2})
	waitFor(t, 60*time.Second, "both runs to finish", func() (bool, error) {
		return runStatus(t, pool, "acme", runID).Terminal() && runStatus(t, pool, "acme", runID) != ledger.StatusFailed &&
			runStatus(t, pool, "acme", cleanID).Terminal(), nil
	})
	waitFor(t, 10*time.Second, "the job to complete", func() (bool, error) {
		return count(t, pool, `SELECT count(*) FROM river_job WHERE state = 'completed'`) == 2, nil
	})

	if st, err := GetRunState(ctx, pool, "acme", runID); err != nil || !st.Done || st.JobState != "completed" || !ledger.RunStatus(st.Status).Terminal() {
		t.Errorf("the resumed run's state %+v, %v; want done with its verdict", st, err)
	}
	evidence := func(id string) int {
		return count(t, pool, `SELECT count(*) FROM evidence WHERE tenant_id = 'acme' AND run_id = $1`, id)
	}
	if got, want := evidence(runID), evidence(cleanID); got != want || got < before {
		t.Errorf("the resumed run holds %d evidence (%d before the cancellation); the clean run %d", got, before, want)
	}
	if n := count(t, pool, `SELECT count(*) FROM run_events WHERE tenant_id = 'acme' AND run_id = $1 AND kind = 'run_resumed'`, runID); n < 2 {
		t.Errorf("%d run_resumed events; want one per attempt", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM (SELECT key FROM settlements WHERE kind <> 'rejected' GROUP BY tenant_id, key HAVING count(*) > 1) d`); n != 0 {
		t.Errorf("%d reservations settled more than once", n)
	}
	var settledCalls, runScopeCalls int
	err = pool.QueryRow(ctx, `SELECT coalesce(sum(search_calls + read_calls + fact_calls + calculate_calls), 0) FROM settlements
		WHERE tenant_id = 'acme' AND kind = 'settle' AND key LIKE $1 || '/%'`, runID).Scan(&settledCalls)
	if err != nil {
		t.Fatal(err)
	}
	err = pool.QueryRow(ctx, `SELECT settled_search_calls + settled_read_calls + settled_fact_calls + settled_calculate_calls FROM budgets
		WHERE tenant_id = 'acme' AND scope_kind = 'run' AND scope_id = $1`, runID).Scan(&runScopeCalls)
	if err != nil {
		t.Fatal(err)
	}
	if settledCalls != runScopeCalls || settledCalls == 0 {
		t.Errorf("the run's scope settled %d tool calls, its settlements %d; want them equal", runScopeCalls, settledCalls)
	}
}

// receive waits for a value on ch.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// A run whose attempt fails with an error is retried, and completes.
func TestWorkerRetriesFailedAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	runID, err := Submit(ctx, pool, "acme", Submission{Question: questions[1]})
	if err != nil {
		t.Fatal(err)
	}
	inner := engines(t, pool, nil)
	var attempts atomic.Int32
	startWorker(t, pool, func(ctx context.Context, tenant string) (*executor.Engine, error) {
		if attempts.Add(1) == 1 {
			return nil, errors.New("the database blinked")
		}
		return inner(ctx, tenant)
	}, WorkerOptions{})
	waitFor(t, 30*time.Second, "the retried run to finish", func() (bool, error) {
		return count(t, pool, `SELECT count(*) FROM river_job WHERE state = 'completed'`) == 1, nil
	})
	if s := runStatus(t, pool, "acme", runID); !s.Terminal() || s == ledger.StatusFailed {
		t.Errorf("the retried run ended %s; want a verdict", s)
	}
	var attempt int
	var lastErr string
	if err := pool.QueryRow(ctx, `SELECT attempt, errors[1]->>'error' FROM river_job`).Scan(&attempt, &lastErr); err != nil {
		t.Fatal(err)
	}
	if attempt != 2 || lastErr != "the database blinked" {
		t.Errorf("attempt %d, first error %q; want the second attempt after the recorded error", attempt, lastErr)
	}
}

// A request the executor refuses is not retried: the job is cancelled and
// the run ends failed.
func TestWorkerCancelsRefusedRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	runID, err := Submit(ctx, pool, "acme", Submission{Question: questions[1], Mode: "model"})
	if err != nil {
		t.Fatal(err)
	}
	// No model configured: model mode is refused.
	startWorker(t, pool, engines(t, pool, nil), WorkerOptions{})
	waitFor(t, 30*time.Second, "the job to be cancelled", func() (bool, error) {
		return count(t, pool, `SELECT count(*) FROM river_job WHERE state = 'cancelled'`) == 1, nil
	})
	if s := runStatus(t, pool, "acme", runID); s != ledger.StatusFailed {
		t.Errorf("the refused run is %s; want failed", s)
	}
	if n := count(t, pool, `SELECT count(*) FROM run_events WHERE tenant_id = 'acme' AND run_id = $1 AND message LIKE 'run refused: %model mode%'`, runID); n != 1 {
		t.Errorf("%d events saying why the run was refused; want 1", n)
	}
}

func TestWorkerOptions(t *testing.T) {
	cases := []struct {
		name string
		in   WorkerOptions
		ok   bool
		want WorkerOptions
	}{
		{"zero", WorkerOptions{}, true, WorkerOptions{Concurrency: DefaultConcurrency, JobTimeout: DefaultJobTimeout, RescueAfter: DefaultJobTimeout + time.Minute}},
		{"set", WorkerOptions{Concurrency: 3, JobTimeout: time.Second, RescueAfter: 2 * time.Second}, true, WorkerOptions{Concurrency: 3, JobTimeout: time.Second, RescueAfter: 2 * time.Second}},
		{"negative concurrency", WorkerOptions{Concurrency: -1}, false, WorkerOptions{}},
		{"too many", WorkerOptions{Concurrency: 10_001}, false, WorkerOptions{}},
		{"rescue before timeout", WorkerOptions{JobTimeout: time.Minute, RescueAfter: time.Minute}, false, WorkerOptions{}},
		{"negative timeout", WorkerOptions{JobTimeout: -time.Second}, false, WorkerOptions{}},
		{"negative poll", WorkerOptions{PollInterval: -time.Second}, false, WorkerOptions{}},
		{"fast poll", WorkerOptions{PollInterval: time.Millisecond}, false, WorkerOptions{}},
	}
	for _, c := range cases {
		got, err := c.in.withDefaults()
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v; want ok=%v", c.name, err, c.ok)
			continue
		}
		if !c.ok {
			continue
		}
		if got.Logger == nil {
			t.Errorf("%s: nil logger", c.name)
		}
		got.Logger = nil
		if got != c.want {
			t.Errorf("%s: %+v; want %+v", c.name, got, c.want)
		}
	}
}

func TestGetRunState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	runID, err := Submit(ctx, pool, "acme", Submission{Question: questions[1]})
	if err != nil {
		t.Fatal(err)
	}
	st, err := GetRunState(ctx, pool, "acme", runID)
	if err != nil || st.Status != StatusQueued || st.JobState != "available" || st.Attempt != 0 || st.Done {
		t.Errorf("a submitted run: %+v, %v; want queued", st, err)
	}
	// A run recorded outside the queue, as `research ask` records one.
	led, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := led.OpenRun(ctx, ledger.Run{ID: "asked", Question: questions[1]}); err != nil {
		t.Fatal(err)
	}
	if st, err := GetRunState(ctx, pool, "acme", "asked"); err != nil || st.Status != "running" || st.JobState != "" {
		t.Errorf("a run outside the queue: %+v, %v; want its ledger status and no job", st, err)
	}
	for _, c := range []struct{ tenant, id string }{{"beta", runID}, {"acme", "none"}, {"acme", "bad id!"}} {
		if _, err := GetRunState(ctx, pool, c.tenant, c.id); !errors.Is(err, ledger.ErrNotFound) {
			t.Errorf("run %s of %s: %v; want ledger.ErrNotFound", c.id, c.tenant, err)
		}
	}
}
