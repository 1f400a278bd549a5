// Package mcpserver serves the research engine to Model Context Protocol
// clients: filing search, fact lookup and passage reading through the
// engine's own tools (their bounds, scope checks and ledger recording),
// the full engine as an ask tool under a budget, and run ledgers.
//
// A Server is built for one tenant, which the process (a flag, or an API
// key over HTTP) decides; no tool argument can name another tenant or
// widen what the tenant may read.
package mcpserver
