package main

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/server"
)

// checkLocalAddr refuses an address a local serve (no --db) must not
// listen on: one other machines can reach. A local server takes no API
// key, so whoever connects acts as its tenant.
func checkLocalAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: want host:port, such as 127.0.0.1:8080", addr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return errNotLoopback(addr)
}

func errNotLoopback(addr string) error {
	return fmt.Errorf("--addr %s: without --db, serve asks for no API key and every request acts as its one local tenant, "+
		"so it listens on a loopback address only (127.0.0.1, ::1 or localhost); to serve other machines, "+
		"pass --db (or set DATABASE_URL) and give each tenant a key with research tenant create", addr)
}

// serveLocal listens on addr, which must be a loopback address, and
// serves the embedded store in dataDir until ctx ends.
func serveLocal(ctx context.Context, dataDir, addr string, stdout io.Writer, o serveOptions) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %v", addr, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		// "localhost" resolved to an address that is not loopback.
		ln.Close()
		return errNotLoopback(addr)
	}
	return serveEmbedded(ctx, dataDir, ln, stdout, o)
}

// serveEmbedded runs the API on ln over the embedded store in dataDir,
// for its one local tenant and without keys, executing the runs in this
// process (o.workers at once), until ctx ends; then it drains the
// requests and stops the runs.
func serveEmbedded(ctx context.Context, dataDir string, ln net.Listener, stdout io.Writer, o serveOptions) error {
	reg, metrics, mh, engines, err := serveEngine(&engine.Config{DataDir: dataDir}, o)
	if err != nil {
		ln.Close()
		return err
	}
	defer engines.Close()
	srv, err := server.NewLocal(engines, &server.Config{
		Logger: o.log, Registry: reg, Metrics: metrics, Embedder: o.embedder,
		ModelConfigured: o.model != nil, ShutdownTimeout: o.shutdown, PollInterval: o.poll,
		LocalRuns: o.workers,
		// MCP clients reach the engine at /mcp, without a key, as the
		// local tenant.
		MCP: mh.build(engines),
	})
	if err != nil {
		ln.Close()
		return err
	}
	t, err := engines.Tenant(ctx, server.LocalTenant)
	if err != nil {
		ln.Close()
		return err
	}
	stats, err := t.Store.Stats(ctx)
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintf(stdout, "serving on http://%s (local: the embedded store in %s, one tenant, no API key; runs at once %d, model %s)\n",
		ln.Addr(), dataDir, o.workers, modelName(o.model))
	if stats.Documents == 0 {
		fmt.Fprintf(stdout, "the store in %s holds no filings yet: run research ingest --data-dir %s --manifest ../shared/corpus/manifest.jsonl (or make demo)\n", dataDir, dataDir)
	}
	stopMCP := mh.closeOnDone(ctx)
	defer stopMCP()
	return srv.Serve(ctx, ln)
}
