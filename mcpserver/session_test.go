package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/mcpserver"
)

// waitFinished waits until run runID of l has a terminal status, and
// returns it.
func waitFinished(t *testing.T, l ledger.Store, runID string) ledger.Run {
	t.Helper()
	ctx := context.Background()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		run, err := l.Run(ctx, runID)
		if err != nil {
			t.Fatalf("run %s: %v", runID, err)
		}
		if run.Status.Terminal() {
			return run
		}
		select {
		case <-deadline:
			t.Fatalf("run %s is still %s", runID, run.Status)
		case <-tick.C:
		}
	}
}

// sessionRun makes a search_filings call and returns the session run.
func sessionRun(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, text := call(t, cs, "search_filings", map[string]any{"query": "gross margin"})
	if res.IsError {
		t.Fatalf("search_filings: %s", text)
	}
	var tr mcpserver.ToolResult
	structured(t, res, &tr)
	if tr.RunID == "" {
		t.Fatalf("search_filings names no run: %s", text)
	}
	return tr.RunID
}

// lastDecision is the message of the last decision event of run runID.
func lastDecision(t *testing.T, l ledger.Store, runID string) string {
	t.Helper()
	led, err := l.Load(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	msg := ""
	for _, e := range led.Events {
		if e.Kind == ledger.EventDecision {
			msg = e.Message
		}
	}
	return msg
}

// TestMCPSessionRunFinished closes the client: the session run ends
// finished, with an event saying why.
func TestMCPSessionRunFinished(t *testing.T) {
	f := setup(t)
	tn, err := f.proc.Tenant(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := f.connect(t, "")
	runID := sessionRun(t, cs)
	if run, _ := tn.Ledger.Run(context.Background(), runID); run.Status != ledger.StatusRunning {
		t.Fatalf("session run during the session: %s, want running", run.Status)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	run := waitFinished(t, tn.Ledger, runID)
	if run.Status != ledger.StatusPartial || run.Finished.IsZero() {
		t.Errorf("session run after the client closed: %s, finished %v; want partial", run.Status, run.Finished)
	}
	if msg := lastDecision(t, tn.Ledger, runID); !strings.Contains(msg, "client closed") || !strings.Contains(msg, "tool calls made: 1") {
		t.Errorf("the session run's last decision: %q", msg)
	}
}

// TestMCPHTTPSessionEnds ends HTTP sessions in each way they end: the
// client deletes the session, it is idle past the timeout, the server
// shuts down. Each session run ends finished; a shut-down server refuses
// the session's calls and new sessions.
func TestMCPHTTPSessionEnds(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	tn, err := f.proc.Tenant(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	keys := func(_ context.Context, key string) (string, error) {
		if key == "key-default" {
			return "default", nil
		}
		return "", mcpserver.ErrUnknownKey
	}
	// serve serves a handler and returns it with a func that connects a
	// client, or returns the error.
	serve := func(timeout time.Duration) (*mcpserver.HTTPHandler, func() (*mcp.ClientSession, error)) {
		h := mcpserver.NewHTTPHandler(f.proc, keys, &mcpserver.Config{Progress: f.progress}, &mcpserver.HTTPOpts{SessionTimeout: timeout})
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		t.Cleanup(func() { h.Close(ctx) })
		return h, func() (*mcp.ClientSession, error) {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{"key-default", http.DefaultTransport}}, DisableStandaloneSSE: true,
			}, nil)
			if err == nil {
				t.Cleanup(func() { cs.Close() })
			}
			return cs, err
		}
	}
	must := func(cs *mcp.ClientSession, err error) *mcp.ClientSession {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}

	t.Run("client closes", func(t *testing.T) {
		_, connect := serve(0)
		cs := must(connect())
		runID := sessionRun(t, cs)
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
		if run := waitFinished(t, tn.Ledger, runID); run.Status != ledger.StatusPartial {
			t.Errorf("status %s, want partial", run.Status)
		}
	})

	t.Run("idle timeout", func(t *testing.T) {
		_, connect := serve(300 * time.Millisecond)
		runID := sessionRun(t, must(connect()))
		if run := waitFinished(t, tn.Ledger, runID); run.Status != ledger.StatusPartial {
			t.Errorf("status %s, want partial", run.Status)
		}
		if msg := lastDecision(t, tn.Ledger, runID); !strings.Contains(msg, "idle") {
			t.Errorf("the session run's last decision: %q", msg)
		}
	})

	t.Run("shutdown", func(t *testing.T) {
		h, connect := serve(0)
		cs := must(connect())
		runID := sessionRun(t, cs)
		if err := h.Close(ctx); err != nil {
			t.Fatal(err)
		}
		run, err := tn.Ledger.Run(ctx, runID)
		if err != nil || run.Status != ledger.StatusPartial {
			t.Errorf("session run once Close returned: %+v, %v; want partial", run, err)
		}
		if msg := lastDecision(t, tn.Ledger, runID); !strings.Contains(msg, "server closed") {
			t.Errorf("the session run's last decision: %q", msg)
		}
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_filings", Arguments: map[string]any{"query": "margin"}}); err == nil && !res.IsError {
			t.Errorf("a call after shutdown succeeded")
		}
		if _, err := connect(); err == nil {
			t.Errorf("a new session after shutdown connected")
		}
	})
}

// TestMCPToolBudget limits the session's search calls to one: the first
// is charged (settled in the session run's budget), the second refused
// with a tool error naming the limit, and other calls go on; the session
// run ends budget_exhausted.
func TestMCPToolBudget(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	tn, err := f.proc.Tenant(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	limits := budget.NoLimits()
	limits.SearchCalls = 1
	cs, _ := f.connectWith(t, &mcpserver.Config{SessionLimits: &limits}, nil)
	runID := sessionRun(t, cs)
	u, err := tn.Budget.Usage(ctx, budget.RunScope(runID))
	if err != nil {
		t.Fatal(err)
	}
	if u.Settled.SearchCalls != 1 || u.Settled.Candidates <= 0 || !u.Reserved.IsZero() {
		t.Errorf("after one search: settled %s, reserved %s; want 1 search call and its candidates settled", u.Settled, u.Reserved)
	}

	res, text := call(t, cs, "search_filings", map[string]any{"query": "freight costs"})
	if !res.IsError || !strings.Contains(text, "budget exhausted") || !strings.Contains(text, "search_calls") || strings.Contains(text, "internal") {
		t.Errorf("a search past the limit: %q; want a refusal naming search_calls", text)
	}
	res, text = call(t, cs, "lookup_fact", map[string]any{"ticker": "ACME", "metric": "revenue"})
	if res.IsError {
		t.Errorf("lookup_fact within the budget: %s", text)
	}
	u, err = tn.Budget.Usage(ctx, budget.RunScope(runID))
	if err != nil {
		t.Fatal(err)
	}
	if u.Settled.SearchCalls != 1 || u.Settled.FactCalls != 1 {
		t.Errorf("settled %s; want the refused search uncharged and the lookup charged", u.Settled)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if run := waitFinished(t, tn.Ledger, runID); run.Status != ledger.StatusBudgetExhausted {
		t.Errorf("session run: %s, want budget_exhausted", run.Status)
	}
}

// TestMCPAskProgress asks with a progress token: progress notifications
// for it arrive, numbered, from the route to the end of the run, before
// the result.
func TestMCPAskProgress(t *testing.T) {
	f := setup(t)
	notes := make(chan *mcp.ProgressNotificationParams, 1000)
	cs, _ := f.connectWith(t, &mcpserver.Config{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { notes <- r.Params },
	})
	params := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": acmeQuestion, "tickers": []string{"ACME"}}}
	params.SetProgressToken("ask-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	var ar executor.Result
	structured(t, res, &ar)
	if res.IsError || ar.RunID == "" {
		t.Fatalf("ask: %+v", res)
	}
	got := collectProgress(t, notes)
	for _, p := range got {
		if p.ProgressToken != "ask-1" {
			t.Errorf("progress token %v, want ask-1", p.ProgressToken)
		}
	}
	if !strings.HasPrefix(got[0].Message, "route") || !strings.HasPrefix(got[len(got)-1].Message, "finished") {
		t.Errorf("progress from %q to %q; want route to finished", got[0].Message, got[len(got)-1].Message)
	}
	t.Logf("%d progress notifications: %q ... %q", len(got), got[0].Message, got[len(got)-1].Message)
	if len(got) < 4 {
		t.Errorf("%d progress notifications, want the run's steps", len(got))
	}
}

// collectProgress reads notifications until one says the run finished,
// and returns them in the order of their progress, which must count 1,
// 2, 3, ...
func collectProgress(t *testing.T, notes <-chan *mcp.ProgressNotificationParams) []*mcp.ProgressNotificationParams {
	t.Helper()
	var got []*mcp.ProgressNotificationParams
	timeout := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case p := <-notes:
			got = append(got, p)
			done = strings.HasPrefix(p.Message, "finished")
		case <-timeout:
			t.Fatalf("no progress saying the run finished; got %d notifications", len(got))
		}
	}
	// Notifications may be handled out of order; all must be there.
	for len(got) < int(got[len(got)-1].Progress) {
		select {
		case p := <-notes:
			got = append(got, p)
		case <-timeout:
			t.Fatalf("progress notifications missing: got %d", len(got))
		}
	}
	slices.SortFunc(got, func(a, b *mcp.ProgressNotificationParams) int { return int(a.Progress - b.Progress) })
	for i, p := range got {
		if p.Progress != float64(i+1) {
			b, _ := json.Marshal(got)
			t.Fatalf("progress values are not 1..%d: %s", len(got), b)
		}
	}
	return got
}
