package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

func TestSubmitRecordsRunAndJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	limits := executor.DefaultLimits()
	limits.SpendUSD = decimal.RequireFromString("0.25")
	runID, err := Submit(ctx, pool, "acme", Submission{
		Question: questions[0], Tickers: []string{"ACME"}, Mode: "baseline", Limits: &limits, MaxCalls: 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	led, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := led.Run(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != ledger.StatusRunning || run.Question != questions[0] || run.Mode != ledger.ModeBaseline || run.CorpusSnapshot == "" {
		t.Errorf("run %+v: want running, the question, baseline mode and the corpus snapshot", run)
	}
	var kind, queue, state string
	var args []byte
	var maxAttempts int
	err = pool.QueryRow(ctx, `
		SELECT j.kind, j.queue, j.state::text, j.args, j.max_attempts FROM river_job j
		JOIN run_submissions s ON s.job_id = j.id WHERE s.tenant_id = 'acme' AND s.run_id = $1`, runID).
		Scan(&kind, &queue, &state, &args, &maxAttempts)
	if err != nil {
		t.Fatal(err)
	}
	if kind != Kind || queue != QueueName || state != "available" || maxAttempts != MaxAttempts {
		t.Errorf("job %s on %s, %s, %d attempts: want %s on %s, available, %d", kind, queue, state, maxAttempts, Kind, QueueName, MaxAttempts)
	}
	var got RunArgs
	if err := json.Unmarshal(args, &got); err != nil {
		t.Fatal(err)
	}
	if got.Tenant != "acme" || got.RunID != runID || got.Question != questions[0] || got.Mode != "baseline" ||
		got.MaxCalls != 30 || got.Limits == nil || !got.Limits.SpendUSD.Equal(limits.SpendUSD) || got.Limits.WallClock != limits.WallClock {
		t.Errorf("job args %+v do not carry the submission", got)
	}
}

func TestSubmitIdempotencyKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	ingestFixtures(t, pool, "beta")
	first, err := Submit(ctx, pool, "acme", Submission{Question: questions[0], IdempotencyKey: "q-1"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Submit(ctx, pool, "acme", Submission{Question: questions[1], IdempotencyKey: "q-1"})
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Errorf("the key submitted again gave run %s; want the first run %s", again, first)
	}
	other, err := Submit(ctx, pool, "beta", Submission{Question: questions[0], IdempotencyKey: "q-1"})
	if err != nil {
		t.Fatal(err)
	}
	if other == first {
		t.Error("another tenant's key named the first tenant's run")
	}
	noKey1, _ := Submit(ctx, pool, "acme", Submission{Question: questions[0]})
	noKey2, _ := Submit(ctx, pool, "acme", Submission{Question: questions[0]})
	if noKey1 == noKey2 || noKey1 == "" {
		t.Errorf("submissions without a key gave runs %q and %q; want two runs", noKey1, noKey2)
	}
	if n := count(t, pool, `SELECT count(*) FROM river_job`); n != 4 {
		t.Errorf("%d jobs; want 4 (the repeated key enqueues nothing)", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM runs`); n != 4 {
		t.Errorf("%d runs; want 4", n)
	}
}

func TestSubmitSameKeyConcurrently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	const n = 8
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ids[i], errs[i] = Submit(ctx, pool, "acme", Submission{Question: questions[0], IdempotencyKey: "same"})
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("submission %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Errorf("submission %d gave run %s, submission 0 gave %s", i, ids[i], ids[0])
		}
	}
	if jobs := count(t, pool, `SELECT count(*) FROM river_job`); jobs != 1 {
		t.Errorf("%d jobs for one key; want 1", jobs)
	}
}

// A failing enqueue leaves nothing behind: the run row is written in the
// job's transaction.
func TestSubmitIsOneTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	if _, err := pool.Exec(ctx, `DROP TABLE river_job CASCADE`); err != nil {
		t.Fatal(err)
	}
	_, err := Submit(ctx, pool, "acme", Submission{Question: questions[0], IdempotencyKey: "k"})
	if err == nil {
		t.Fatal("Submit without River's job table succeeded")
	}
	if !strings.Contains(err.Error(), "enqueue") {
		t.Errorf("error %q does not say the enqueue failed", err)
	}
	for _, table := range []string{"runs", "run_events", "run_submissions"} {
		if n := count(t, pool, `SELECT count(*) FROM `+table); n != 0 {
			t.Errorf("%d rows in %s after a failed enqueue; want none", n, table)
		}
	}
}

func TestSubmitRefusesBadSubmissions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	neg := budget.NoLimits()
	neg.ReadCalls = -2
	cases := []struct {
		name  string
		s     Submission
		field string
	}{
		{"short question", Submission{Question: " a "}, "question"},
		{"long question", Submission{Question: strings.Repeat("x", executor.MaxQuestion+1)}, "question"},
		{"mode", Submission{Question: questions[0], Mode: "magic"}, "mode"},
		{"ticker", Submission{Question: questions[0], Tickers: []string{"acme"}}, "tickers"},
		{"max calls", Submission{Question: questions[0], MaxCalls: -1}, "max calls"},
		{"limits", Submission{Question: questions[0], Limits: &neg}, "limits"},
		{"long key", Submission{Question: questions[0], IdempotencyKey: strings.Repeat("k", MaxKeyLen+1)}, "idempotency key"},
		{"control key", Submission{Question: questions[0], IdempotencyKey: "a\nb"}, "idempotency key"},
		{"NUL in the question", Submission{Question: "What drove Acme's\x00 gross margin?"}, "question"},
		{"not UTF-8", Submission{Question: "What drove Acme's \xff\xfe gross margin?"}, "question"},
	}
	for _, c := range cases {
		_, err := Submit(ctx, pool, "acme", c.s)
		var re *executor.RequestError
		if !errors.As(err, &re) || re.Field != c.field {
			t.Errorf("%s: error %v; want a RequestError naming %s", c.name, err, c.field)
		}
		if c.field == "limits" && re != nil && !strings.HasPrefix(re.Problem, "read_calls -2:") {
			t.Errorf("%s: problem %q; want it to name the dimension and its value", c.name, re.Problem)
		}
	}
	if _, err := Submit(ctx, pool, "bad tenant!", Submission{Question: questions[0]}); err == nil {
		t.Error("Submit accepted an invalid tenant")
	}
	if n := count(t, pool, `SELECT count(*) FROM runs`); n != 0 {
		t.Errorf("%d runs recorded by refused submissions", n)
	}
}

// TestSubmitResolvesAutoMode: without a mode a submission runs in auto
// mode, resolved when the run is recorded as the workers' engines resolve
// it, so the recorded mode is the one that runs: without a model, the
// planned graph for a comparison and the fixed pass for an outlook
// question about one issuer; with one, model mode for every question but
// a refused one. The job says auto chose the mode.
func TestSubmitResolvesAutoMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	led, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	const outlook = "Does Acme expect its gross margin pressure to persist?"
	for _, tt := range []struct {
		question, mode string
		model          bool
		want           ledger.Mode
	}{
		{questions[0], "", false, ledger.ModeRules},                 // a three-issuer comparison
		{outlook, "auto", false, ledger.ModeRules},                  // outlook, one issuer
		{outlook, "rules", false, ledger.ModeRules},                 // an explicit mode is kept
		{questions[0], "", true, ledger.ModeModel},                  // with a model, model mode
		{outlook, "auto", true, ledger.ModeModel},                   // for every class
		{"Should I buy Acme stock?", "", true, ledger.ModeBaseline}, // but a refusal, refused before any path
		{outlook, "baseline", true, ledger.ModeBaseline},            // an explicit mode is kept
	} {
		id, err := Submit(ctx, pool, "acme", Submission{Question: tt.question, Mode: tt.mode, ModelConfigured: tt.model})
		if err != nil {
			t.Fatal(err)
		}
		run, err := led.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if run.Mode != tt.want {
			t.Errorf("%q in mode %q (model %v) was recorded as %s; want %s", tt.question, tt.mode, tt.model, run.Mode, tt.want)
		}
		var raw []byte
		if err := pool.QueryRow(ctx, `SELECT j.args FROM river_job j JOIN run_submissions s ON s.job_id = j.id
			WHERE s.tenant_id = 'acme' AND s.run_id = $1`, id).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var args RunArgs
		if err := json.Unmarshal(raw, &args); err != nil {
			t.Fatal(err)
		}
		wantRequested := ""
		if tt.mode == "" || tt.mode == "auto" {
			wantRequested = "auto"
		}
		if args.Mode != string(tt.want) || args.RequestedMode != wantRequested {
			t.Errorf("%q in mode %q: job mode %q requested %q; want %s and %q", tt.question, tt.mode, args.Mode, args.RequestedMode, tt.want, wantRequested)
		}
	}
}
