// Package engine builds a process's research engine: the one place where
// the corpus, the evidence ledger, the budget (each run's and each tenant's
// day), the price table, the model client and the concurrency limits are
// put together. Every entry point (research ask, eval, serve, worker, and
// so the runs of batches) builds its engines here, so a promise the engine
// keeps, such as a tenant's daily spend cap, holds on every path.
package engine
