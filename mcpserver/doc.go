// Package mcpserver serves the research engine to Model Context Protocol
// clients: filing search, fact lookup and passage reading through the
// engine's own tools (their bounds, scope checks and ledger recording),
// the full engine as an ask tool under a budget (with progress
// notifications), and run ledgers. The direct tool calls of a session are
// recorded in a session run, charged to its budget and the tenant's day
// as the engine charges its own, and the run is finished when the session
// ends.
//
// A Server is built for one tenant, which the process (a flag, or an API
// key over HTTP) decides; no tool argument can name another tenant or
// widen what the tenant may read.
package mcpserver
