package jobs

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// A run that auto mode recorded in model mode, taken by a worker whose
// engine has no model, is not refused: it runs in its recorded mode with
// the rules planner and synthesizer, the result saying why, and auto as
// the mode asked for.
func TestWorkerAutoModelWithoutModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := setup(t)
	runID, err := Submit(ctx, pool, "acme", Submission{Question: questions[0], ModelConfigured: true})
	if err != nil {
		t.Fatal(err)
	}
	startWorker(t, pool, engines(t, pool, nil), WorkerOptions{})
	waitFor(t, 30*time.Second, "the run to finish", func() (bool, error) {
		return runStatus(t, pool, "acme", runID).Terminal(), nil
	})
	led, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	var res *executor.Result
	waitFor(t, 10*time.Second, "the run's result", func() (bool, error) {
		r, ok, err := executor.RecordedResult(ctx, led, runID)
		res = r
		return ok, err
	})
	ends := []ledger.RunStatus{ledger.StatusSupported, ledger.StatusPartial, ledger.StatusInsufficientEvidence, ledger.StatusConflictingEvidence, ledger.StatusBudgetExhausted}
	if !slices.Contains(ends, res.Status) {
		t.Errorf("status %s; want an end state", res.Status)
	}
	if res.Mode != ledger.ModeModel || res.RequestedMode != executor.ModeAuto || res.Class != "comparison" {
		t.Errorf("mode %s requested %q class %q; want the recorded model mode, chosen by auto, class comparison", res.Mode, res.RequestedMode, res.Class)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "this engine has no model configured") {
		t.Errorf("notes %v; want the reason the rules stood in", res.Notes)
	}
}
