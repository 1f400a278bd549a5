package mcpserver_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/mcpserver"
)

const acmeDiscussion = "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
	"We expect gross margin to remain under pressure in 2025 as component costs stay elevated."

const acmeQuestion = "What drove Acme's gross margin in fiscal 2024 and does management expect it to persist?"

// fixture is an engine process over a small ingested store, whose
// progress is relayed to ask calls.
type fixture struct {
	proc     *engine.Process
	progress *mcpserver.ProgressRelay
}

// setup ingests two issuers' filings into a fresh embedded store and
// builds the engine process over it.
func setup(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	entries := corpustest.WriteFilings(t, dir,
		corpustest.Filing{Ticker: "ACME", Company: "Acme Corporation", Revenue: "1,000", Cost: "600", Item7: acmeDiscussion},
		corpustest.Filing{Ticker: "BETA", Company: "Beta Industries", Revenue: "2,000", Cost: "1,500",
			Item7: "Gross margin increased in 2024 because freight costs fell."},
	)
	storeDir := filepath.Join(dir, "store")
	store, err := embedded.Open(storeDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := corpustest.Ingest(context.Background(), store, entries); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	progress := mcpserver.NewProgressRelay()
	proc, err := engine.New(&engine.Config{DataDir: storeDir, Hooks: engine.Hooks{Progress: progress.Hook(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Close() })
	return &fixture{proc: proc, progress: progress}
}

// connect serves tenant's Server on an in-memory transport and returns a
// connected client session.
func (f *fixture) connect(t *testing.T, tenant string) (*mcp.ClientSession, *mcpserver.Server) {
	t.Helper()
	return f.connectWith(t, &mcpserver.Config{Tenant: tenant}, nil)
}

// connectWith is connect with the server's configuration (its Progress
// is the fixture's) and the client's options.
func (f *fixture) connectWith(t *testing.T, cfg *mcpserver.Config, copts *mcp.ClientOptions) (*mcp.ClientSession, *mcpserver.Server) {
	t.Helper()
	ctx := context.Background()
	tn, err := f.proc.Tenant(ctx, cfg.Tenant)
	if err != nil {
		t.Fatal(err)
	}
	c := *cfg
	c.Progress = f.progress
	srv, err := mcpserver.New(tn, &c)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, copts)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		if err := srv.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return cs, srv
}

// call calls a tool and returns its result and its text content.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return res, text.String()
}

// structured decodes a result's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

func TestMCPListTools(t *testing.T) {
	f := setup(t)
	cs, _ := f.connect(t, "")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("tool %s: want a description and an input schema", tl.Name)
		}
	}
	slices.Sort(names)
	want := []string{"ask", "ledger_show", "lookup_fact", "read_passage", "search_filings"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	schema, _ := json.Marshal(res.Tools[slices.IndexFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == "search_filings" })].InputSchema)
	for _, field := range []string{"query", "tickers", "form", "fiscal_year", "section", "k"} {
		if !strings.Contains(string(schema), `"`+field+`"`) {
			t.Errorf("search_filings schema lacks %s: %s", field, schema)
		}
	}
}

var chunkAttr = regexp.MustCompile(`chunk="([^"]+)"`)

// TestMCPTools calls each tool against the fixture store and reads the
// resources.
func TestMCPTools(t *testing.T) {
	f := setup(t)
	cs, srv := f.connect(t, "")
	ctx := context.Background()

	res, text := call(t, cs, "search_filings", map[string]any{"query": "gross margin component costs", "tickers": []string{"acme"}, "fiscal_year": 2024, "k": 3})
	if res.IsError {
		t.Fatalf("search_filings: %s", text)
	}
	var sr mcpserver.ToolResult
	structured(t, res, &sr)
	if sr.RunID == "" || len(sr.Passages) == 0 {
		t.Fatalf("search_filings: want a run and passages, got %+v", sr)
	}
	for _, p := range sr.Passages {
		if p.Ticker != "ACME" {
			t.Errorf("search_filings for ACME returned a passage of %s", p.Ticker)
		}
	}
	if !strings.Contains(text, "<evidence") {
		t.Errorf("search_filings text does not wrap its evidence: %s", text)
	}
	m := chunkAttr.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("search_filings text names no chunk: %s", text)
	}

	res, text = call(t, cs, "lookup_fact", map[string]any{"ticker": "ACME", "metric": "revenue", "period": "FY2024"})
	if res.IsError {
		t.Fatalf("lookup_fact: %s", text)
	}
	var lr mcpserver.ToolResult
	structured(t, res, &lr)
	if len(lr.Facts) == 0 || lr.Facts[0].Value != "1000000000" || lr.RunID != sr.RunID {
		t.Errorf("lookup_fact: got %+v, want revenue 1000000000 in run %s", lr, sr.RunID)
	}

	// A chunk id, and an evidence id of the session run.
	res, text = call(t, cs, "read_passage", map[string]any{"id": m[1], "before": 0, "after": 1})
	if res.IsError {
		t.Fatalf("read_passage chunk: %s", text)
	}
	ev := sr.Passages[0]
	res, text = call(t, cs, "read_passage", map[string]any{"id": ev.EvidenceID})
	if res.IsError {
		t.Fatalf("read_passage evidence: %s", text)
	}
	var rr mcpserver.ToolResult
	structured(t, res, &rr)
	if rr.Cited == nil || rr.Cited.EvidenceID != ev.EvidenceID || len(rr.Passages) == 0 {
		t.Errorf("read_passage evidence: got %+v", rr)
	}
	if !strings.Contains(text, ev.EvidenceID) {
		t.Errorf("read_passage text does not show the evidence: %s", text)
	}

	res, text = call(t, cs, "ask", map[string]any{"question": acmeQuestion, "tickers": []string{"ACME"}})
	if res.IsError {
		t.Fatalf("ask: %s", text)
	}
	var ar executor.Result
	if err := json.Unmarshal([]byte(text), &ar); err != nil {
		t.Fatalf("ask result is not the JSON contract: %v\n%s", err, text)
	}
	if ar.RunID == "" || !ar.Status.Terminal() || len(ar.Citations) == 0 {
		t.Errorf("ask: got run %q status %s with %d citations", ar.RunID, ar.Status, len(ar.Citations))
	}

	for _, runID := range []string{ar.RunID, sr.RunID} {
		res, text = call(t, cs, "ledger_show", map[string]any{"run_id": runID})
		if res.IsError {
			t.Fatalf("ledger_show %s: %s", runID, text)
		}
		var rep map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &rep); err != nil {
			t.Fatalf("ledger_show %s: %v", runID, err)
		}
		if !strings.Contains(string(rep["evidence"]), ev.EvidenceID) && runID == sr.RunID {
			t.Errorf("the session run's ledger lacks evidence %s the client was shown", ev.EvidenceID)
		}
	}

	rc, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.CorpusURI})
	if err != nil {
		t.Fatal(err)
	}
	var corpus mcpserver.Corpus
	if err := json.Unmarshal([]byte(rc.Contents[0].Text), &corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus.Issuers) != 2 || corpus.Issuers[0].Ticker != "ACME" || corpus.Issuers[0].Filings[0].Period != "FY2024" {
		t.Errorf("corpus resource: %s", rc.Contents[0].Text)
	}
	rl, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.LedgerURI(ar.RunID)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rl.Contents[0].Text, ar.RunID) {
		t.Errorf("ledger resource does not name its run: %.200s", rl.Contents[0].Text)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 {
		t.Errorf("resource templates: %v, %v", tmpl, err)
	}

	// Closing the server finishes the session run.
	if err := srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	tn, _ := f.proc.Tenant(ctx, "")
	run, err := tn.Ledger.Run(ctx, sr.RunID)
	if err != nil || run.Status != ledger.StatusPartial {
		t.Errorf("session run after Close: %+v, %v", run, err)
	}
}

// TestMCPScope checks that a client cannot reach outside its tenant's
// corpus and ledger through arguments, and that bad arguments are tool
// errors.
func TestMCPScope(t *testing.T) {
	f := setup(t)
	ctx := context.Background()

	// A run of another tenant.
	other, err := f.proc.Tenant(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	otherRes, err := other.Engine.Run(ctx, executor.Request{Question: acmeQuestion, Tickers: []string{"ACME"}})
	if err != nil {
		t.Fatal(err)
	}

	cs, _ := f.connect(t, "default")
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string // in the error text
	}{
		{"search_filings", map[string]any{"query": "gross margin", "tickers": []string{"ZZZZ"}}, "outside"},
		{"lookup_fact", map[string]any{"ticker": "ZZZZ", "metric": "revenue"}, "outside"},
		{"search_filings", map[string]any{"query": ""}, "query"},
		{"search_filings", map[string]any{"query": "margin", "tenant": "other"}, "tenant"},
		{"search_filings", map[string]any{"query": "margin", "k": 500}, "k"},
		{"read_passage", map[string]any{"id": "nope"}, "id"},
		{"read_passage", map[string]any{"id": "0000000000000000-00000", "before": 9}, "before"},
		{"read_passage", map[string]any{"id": "E000000000000", "run_id": otherRes.RunID}, "not found"},
		{"ledger_show", map[string]any{"run_id": otherRes.RunID}, "not found"},
		{"ledger_show", map[string]any{"run_id": "../etc/passwd"}, "run_id"},
		{"ask", map[string]any{"question": ""}, "question"},
		{"ask", map[string]any{"question": acmeQuestion, "budget_usd": 1000}, "budget_usd"},
		{"ask", map[string]any{"question": acmeQuestion, "mode": "yolo"}, "mode"},
	} {
		res, text := call(t, cs, tt.tool, tt.args)
		t.Logf("%s %v: %s", tt.tool, tt.args, text)
		if !res.IsError {
			t.Errorf("%s %v: want a tool error, got %.300s", tt.tool, tt.args, text)
			continue
		}
		if !strings.Contains(text, tt.want) || strings.Contains(text, "internal error") {
			t.Errorf("%s %v: error %q, want one naming %q", tt.tool, tt.args, text, tt.want)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.LedgerURI(otherRes.RunID)}); err == nil {
		t.Errorf("read another tenant's ledger resource")
	}
}

// TestMCPAskBudget runs ask with one call allowed: the run stops at the
// budget and says so.
func TestMCPAskBudget(t *testing.T) {
	f := setup(t)
	cs, _ := f.connect(t, "")
	res, text := call(t, cs, "ask", map[string]any{"question": "What drove Acme's gross margin in fiscal 2024?", "max_calls": 1})
	if res.IsError {
		t.Fatalf("ask: %s", text)
	}
	var ar executor.Result
	if err := json.Unmarshal([]byte(text), &ar); err != nil {
		t.Fatal(err)
	}
	if ar.Status != ledger.StatusBudgetExhausted {
		t.Errorf("status %s, want budget_exhausted; budget %+v", ar.Status, ar.Budget)
	}
	var st executor.Result
	structured(t, res, &st)
	if st.RunID != ar.RunID || st.Status != ar.Status {
		t.Errorf("structured content: run %q status %s, want the text's %q %s", st.RunID, st.Status, ar.RunID, ar.Status)
	}
}

// TestMCPSessionCallCap checks the per-session cap on tool calls.
func TestMCPSessionCallCap(t *testing.T) {
	f := setup(t)
	ctx := context.Background()
	tn, err := f.proc.Tenant(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(tn, &mcpserver.Config{MaxToolCalls: 1})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, text := call(t, cs, "search_filings", map[string]any{"query": "margin"}); res.IsError {
		t.Fatalf("first call: %s", text)
	}
	if res, text := call(t, cs, "search_filings", map[string]any{"query": "margin"}); !res.IsError || !strings.Contains(text, "new session") {
		t.Errorf("second call: want the session's cap, got %s", text)
	}
}
