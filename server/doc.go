// Package server is the research engine's HTTP API: runs submitted as jobs
// and read back (status, a live progress stream, the ledger), search over a
// tenant's filings, health and readiness probes and Prometheus metrics.
//
// Every request but the probes and /metrics carries an API key
// (Authorization: Bearer KEY). A key belongs to one tenant, and every query
// the request makes is scoped to that tenant: another tenant's run is not
// found, exactly like a run that does not exist.
//
// Limits live in Postgres (migration 0005_tenants), so they hold across
// restarts and across every server sharing the database: a sliding-window
// request rate per key, a daily cap on runs and a daily spend budget per
// tenant (the budget package's tenant_day scope), and a cap on the runs a
// tenant has queued or running at once. A request over a limit gets 429 with
// Retry-After.
//
// A local server (NewLocal) is the same API for one person on one machine,
// without Postgres: one tenant (LocalTenant) over the embedded store and
// ledger, no API keys (GET /v1/config says so, for the web app), runs
// executed in the process rather than queued for workers, and the
// tenant's limits counted in the process. Whoever reaches it acts as its
// tenant, so it belongs on a loopback address.
//
// Errors never carry internals: the cause is logged with the request id,
// and the client gets a message that says what to fix and the same id.
package server
