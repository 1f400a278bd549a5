package jobs

import (
	"context"

	"github.com/ledgerline/research/executor"
)

// EngineFactory returns the engine that runs a tenant's jobs: corpus,
// ledger and budget scoped to the tenant. It is called once per job and
// must be safe for concurrent use; an engine returned again for the same
// tenant shares its semaphores among the tenant's runs. engine.Process's
// Engine method is the one every command uses.
type EngineFactory func(ctx context.Context, tenant string) (*executor.Engine, error)
