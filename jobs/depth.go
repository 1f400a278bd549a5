package jobs

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

const queueDepthSQL = `
SELECT count(*) FROM river_job
WHERE queue = $1 AND state IN ('available', 'retryable')`

// QueueDepth returns how many research runs wait for a worker: jobs
// available now or waiting to be retried. It reads River's job table
// through its queue index; run it per scrape, not per request.
func QueueDepth(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var n int
	if err := pool.QueryRow(ctx, queueDepthSQL, QueueName).Scan(&n); err != nil {
		return 0, fmt.Errorf("jobs: queue depth: %w", err)
	}
	return n, nil
}
