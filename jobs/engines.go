package jobs

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger/pgledger"
	"github.com/ledgerline/research/tools"
)

// EngineFactory returns the engine that runs a tenant's jobs: corpus,
// ledger and budget scoped to the tenant. It is called once per job and
// must be safe for concurrent use; an engine returned again for the same
// tenant shares its semaphores among the tenant's runs.
type EngineFactory func(ctx context.Context, tenant string) (*executor.Engine, error)

// PgEngineFactory is the standard factory: for each tenant, once, an
// engine over pgstore, pgledger and budget.NewPostgres on pool, searching
// with emb (nil means corpus.HashEmbedder, the ingest default; it must be
// the embedder the corpus was ingested with). base carries the rest of the
// configuration (Model, Prices, Concurrency, TenantDay, ...); its Store,
// Searcher, Ledger, Budget and Tenant are replaced.
//
// Tool calls that have started run to completion even when their run is
// cancelled (a worker handing its jobs back): a call cut short would be
// recorded as failed, and its replay on the next attempt would bring
// nothing. Deadlines, such as the run's wall-clock budget, still cut them.
func PgEngineFactory(pool *pgxpool.Pool, base executor.Config, emb corpus.Embedder) EngineFactory {
	if emb == nil {
		emb = corpus.HashEmbedder{}
	}
	var mu sync.Mutex
	engines := map[string]*executor.Engine{} // guarded by mu
	return func(ctx context.Context, tenant string) (*executor.Engine, error) {
		mu.Lock()
		defer mu.Unlock()
		if e, ok := engines[tenant]; ok {
			return e, nil
		}
		if err := checkTenant(tenant); err != nil {
			return nil, err
		}
		store, err := pgstore.New(pool, &pgstore.Config{Tenant: tenant})
		if err != nil {
			return nil, err
		}
		led, err := pgledger.New(pool, &pgledger.Config{Tenant: tenant})
		if err != nil {
			return nil, err
		}
		acct, err := budget.NewPostgres(pool, &budget.Config{Tenant: tenant})
		if err != nil {
			return nil, err
		}
		cfg := base
		cfg.Store, cfg.Searcher, cfg.Ledger, cfg.Budget, cfg.Tenant = store, corpus.NewSearcher(store, emb), led, acct, tenant
		run := cfg.Tool
		if run == nil {
			run = tools.Run
		}
		cfg.Tool = CompleteCalls(run)
		e, err := executor.New(cfg)
		if err != nil {
			return nil, err
		}
		engines[tenant] = e
		return e, nil
	}
}

// toolCallLimit bounds a tool call whose run has no deadline.
const toolCallLimit = time.Minute

// CompleteCalls lets a tool call that has started finish although its run
// is cancelled (a worker handing its runs back to the queue as it stops),
// so the work is kept rather than redone when the run resumes; a call not
// yet started when the run is cancelled does not start, and nothing is
// recorded for it. Deadlines, such as the run's wall-clock budget, still
// cut calls short.
func CompleteCalls(run executor.ToolFunc) executor.ToolFunc {
	return func(ctx context.Context, env *tools.Env, call tools.Call) (*tools.Output, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cctx := context.WithoutCancel(ctx)
		var cancel context.CancelFunc
		if deadline, ok := ctx.Deadline(); ok {
			cctx, cancel = context.WithDeadline(cctx, deadline)
		} else {
			cctx, cancel = context.WithTimeout(cctx, toolCallLimit)
		}
		defer cancel()
		return run(cctx, env, call)
	}
}
