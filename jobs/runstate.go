package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/ledger"
)

// RunState is where a run stands, its ledger status read together with
// its job: between attempts the ledger may say failed while the job will
// still run.
type RunState struct {
	RunID string
	// Status is queued (not attempted yet), running (attempted, and its
	// job will run again or is running), or the status the run recorded
	// once it will not run again (failed when its job was given up).
	Status string
	// JobState is River's state of the run's job; "finished" once River
	// has deleted the job (after its retention period); "" for a run that
	// was not submitted as a job (`research ask`).
	JobState  string
	Attempt   int    // attempts River has made
	LastError string // the last failed attempt's error, if any
	Done      bool   // the run will not run again
}

const runStateSQL = `
SELECT r.status, s.run_id IS NOT NULL, j.state::text, coalesce(j.attempt, 0),
	coalesce(j.errors[array_upper(j.errors, 1)]->>'error', '')
FROM runs r
LEFT JOIN run_submissions s ON s.tenant_id = r.tenant_id AND s.run_id = r.id
LEFT JOIN river_job j ON j.id = s.job_id
WHERE r.tenant_id = $1 AND r.id = $2`

// GetRunState returns where tenant's run stands. A run of another tenant,
// or none, is ledger.ErrNotFound.
func GetRunState(ctx context.Context, pool *pgxpool.Pool, tenant, runID string) (*RunState, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if !ledger.ValidName(runID) {
		return nil, fmt.Errorf("jobs: run %q: %w", runID, ledger.ErrNotFound)
	}
	r := batchRun{runID: runID}
	var submitted bool
	err := pool.QueryRow(ctx, runStateSQL, tenant, runID).Scan(&r.runStatus, &submitted, &r.jobState, &r.attempt, &r.lastError)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("jobs: run %s: %w", runID, ledger.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: run %s: %w", runID, err)
	}
	st := &RunState{RunID: runID, Status: r.status(), Attempt: r.attempt, LastError: r.lastError, Done: r.done()}
	if submitted {
		st.JobState = r.job()
	}
	return st, nil
}
