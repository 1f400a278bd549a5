package mcpserver_test

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/mcpserver"
)

// Serve one tenant's engine to an MCP client over stdin and stdout, as
// `research mcp` does.
func Example() {
	ctx := context.Background()
	proc, err := engine.New(&engine.Config{DataDir: ".research"})
	if err != nil {
		log.Fatal(err)
	}
	defer proc.Close()
	tenant, err := proc.Tenant(ctx, "default")
	if err != nil {
		log.Fatal(err)
	}
	srv, err := mcpserver.New(tenant, &mcpserver.Config{Tenant: "default"})
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
