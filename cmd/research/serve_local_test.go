package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
)

var localFiling = corpustest.Filing{
	Ticker: "ACME", Company: "Acme Corp", Revenue: "1,000", Cost: "600",
	Item7: "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
		"We expect gross margin to remain under pressure in 2025 as component costs stay elevated.",
}

const localQuestion = "What drove Acme's gross margin in fiscal 2024 and does management expect it to persist?"

// localServe is research serve without --db, started on a fresh data
// directory holding localFiling.
type localServe struct {
	base    string
	dataDir string
	stdout  *lockedBuffer
	stderr  *lockedBuffer
	stop    func() int // cancels serve (SIGTERM) and returns its exit code
}

func startLocalServe(t *testing.T, extra ...string) *localServe {
	t.Helper()
	dir := t.TempDir()
	corpustest.WriteFilings(t, dir, localFiling)
	dataDir := filepath.Join(dir, "data")
	if code, _, errOut := runCLI(t, "ingest", "--db", "", "--data-dir", dataDir, "--manifest", filepath.Join(dir, "manifest.jsonl"), "--quiet"); code != 0 {
		t.Fatalf("ingest exited %d: %s", code, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &localServe{dataDir: dataDir, stdout: &lockedBuffer{}, stderr: &lockedBuffer{}}
	exited := make(chan int, 1)
	args := append([]string{"serve", "--db", "", "--data-dir", dataDir, "--addr", "127.0.0.1:0", "--workers", "2", "--shutdown-timeout", "10s"}, extra...)
	go func() { exited <- run(ctx, args, s.stdout, s.stderr) }()
	var once bool
	code := 0
	s.stop = func() int {
		if once {
			return code
		}
		once = true
		cancel()
		select {
		case code = <-exited:
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not stop")
		}
		return code
	}
	t.Cleanup(func() { s.stop() })
	deadline := time.After(30 * time.Second)
	for {
		if m := regexp.MustCompile(`serving on (http://\S+)`).FindStringSubmatch(s.stdout.String()); m != nil {
			s.base = m[1]
			return s
		}
		select {
		case c := <-exited:
			once, code = true, c
			t.Fatalf("serve exited %d:\n%s", c, s.stderr.String())
		case <-deadline:
			t.Fatalf("serve did not start:\n%s", s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// call makes a request without any API key and decodes the JSON reply.
func (s *localServe) call(t *testing.T, method, path, body string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, s.base+path, rd)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

// sseEvent is one event of a text/event-stream.
type sseEvent struct{ id, event, data string }

// follow reads the run's event stream until its result.
func (s *localServe) follow(t *testing.T, id string) (progress []sseEvent, result map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/v1/runs/"+id+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET events = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event == "result" {
				if err := json.Unmarshal([]byte(cur.data), &result); err != nil {
					t.Fatalf("result %q: %v", cur.data, err)
				}
				return progress, result
			}
			if cur.event != "" {
				progress = append(progress, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[len("id: "):]
		case strings.HasPrefix(line, "event: "):
			cur.event = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[len("data: "):]
		}
	}
	t.Fatalf("the stream ended without a result (%v) after %d progress events", sc.Err(), len(progress))
	return nil, nil
}

// TestServeLocal runs research serve without a database, as after make
// demo: no key anywhere, a question over the API followed on its event
// stream to the answer, a citation opened in the source view, the lists,
// the ledger, MCP, bad input, and a clean shutdown.
func TestServeLocal(t *testing.T) {
	t.Parallel()
	s := startLocalServe(t)
	if out := s.stdout.String(); !strings.Contains(out, "local") || !strings.Contains(out, "no API key") {
		t.Errorf("stdout %q does not say the server is local and takes no key", out)
	}
	if !strings.HasPrefix(s.base, "http://127.0.0.1:") {
		t.Errorf("serving on %s, want 127.0.0.1", s.base)
	}

	if code, cfg := s.call(t, "GET", "/v1/config", ""); code != http.StatusOK || cfg["auth"] != "none" || cfg["tenant"] != "default" {
		t.Errorf("GET /v1/config = %d %v; want auth none, tenant default", code, cfg)
	}
	code, acc := s.call(t, "POST", "/v1/runs", `{"question": "`+localQuestion+`", "mode": "rules"}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /v1/runs without a key = %d %v", code, acc)
	}
	id := acc["run_id"].(string)
	if acc["mode"] != "rules" || acc["status"] != "queued" {
		t.Errorf("202 reply %v", acc)
	}

	progress, res := s.follow(t, id)
	if len(progress) < 3 || progress[0].id != "1" {
		t.Errorf("%d progress events before the result, first %+v", len(progress), progress)
	}
	for i := 1; i < len(progress); i++ {
		if progress[i].id <= progress[i-1].id && len(progress[i].id) <= len(progress[i-1].id) {
			t.Errorf("progress ids out of order: %q after %q", progress[i].id, progress[i-1].id)
		}
	}
	if res["run_id"] != id || res["status"] != "supported" && res["status"] != "partial" {
		t.Fatalf("result %v", res)
	}
	cites, _ := res["citations"].([]any)
	if len(cites) == 0 || res["answer"] == "" {
		t.Fatalf("no cited answer: %v", res)
	}
	if code, got := s.call(t, "GET", "/v1/runs/"+id, ""); code != http.StatusOK || got["status"] != res["status"] {
		t.Errorf("GET /v1/runs/%s = %d %v", id, code, got["status"])
	}

	// The first citation, in its filing.
	c := cites[0].(map[string]any)
	eid, excerpt := c["evidence_id"].(string), c["excerpt"].(string)
	code, src := s.call(t, "GET", "/v1/runs/"+id+"/evidence/"+eid, "")
	if code != http.StatusOK {
		t.Fatalf("source view = %d %v", code, src)
	}
	if span, _ := src["span"].(string); !strings.Contains(span, excerpt) || src["ticker"] != "ACME" || src["company"] != "Acme Corp" {
		t.Errorf("source view of %s: span %q, want it to hold the excerpt %q (%v)", eid, span, excerpt, src)
	}
	if code, m := s.call(t, "GET", "/v1/runs/"+id+"/evidence/nope", ""); code != http.StatusNotFound || !strings.Contains(m["error"].(string), "no evidence") {
		t.Errorf("unknown evidence = %d %v", code, m)
	}

	// The lists, the ledger, search and the plan.
	code, list := s.call(t, "GET", "/v1/runs", "")
	runs, _ := list["runs"].([]any)
	if code != http.StatusOK || len(runs) != 1 || runs[0].(map[string]any)["run_id"] != id || runs[0].(map[string]any)["status"] != res["status"] {
		t.Errorf("GET /v1/runs = %d %v", code, list)
	}
	code, led := s.call(t, "GET", "/v1/runs/"+id+"/ledger", "")
	if ev, _ := led["evidence"].([]any); code != http.StatusOK || len(ev) == 0 {
		t.Errorf("GET ledger = %d, %d evidence", code, len(ev))
	}
	code, docs := s.call(t, "GET", "/v1/corpus", "")
	if d, _ := docs["documents"].([]any); code != http.StatusOK || len(d) != 1 {
		t.Errorf("GET /v1/corpus = %d %v", code, docs)
	}
	code, found := s.call(t, "POST", "/v1/search", `{"query": "gross margin component costs", "k": 3}`)
	if r, _ := found["results"].([]any); code != http.StatusOK || len(r) == 0 {
		t.Errorf("POST /v1/search = %d %v", code, found)
	}
	code, plan := s.call(t, "POST", "/v1/plan", `{"question": "`+localQuestion+`", "mode": "rules"}`)
	if code != http.StatusOK || plan["graph"] == nil {
		t.Errorf("POST /v1/plan = %d %v", code, plan)
	}

	// Bad input is refused with what to fix; model mode has no model.
	for _, tc := range []struct {
		body, field string
		code        int
	}{
		{`{"question": ""}`, "question", http.StatusBadRequest},
		{`{"question": "` + localQuestion + `", "budget": {"max_calls": 100000}}`, "budget.max_calls", http.StatusBadRequest},
		{`{"question": "` + localQuestion + `", "tickers": ["not a ticker"]}`, "tickers[0]", http.StatusBadRequest},
		{`{"question": "` + localQuestion + `", "colour": "red"}`, "", http.StatusBadRequest},
		{`{"question": "` + localQuestion + `", "mode": "model"}`, "", http.StatusServiceUnavailable},
	} {
		code, m := s.call(t, "POST", "/v1/runs", tc.body)
		if msg, _ := m["error"].(string); code != tc.code || msg == "" || m["field"] != nil && m["field"] != tc.field || tc.field != "" && m["field"] != tc.field {
			t.Errorf("POST /v1/runs %s = %d %v; want %d naming %q", tc.body, code, m, tc.code, tc.field)
		}
	}
	if code, m := s.call(t, "GET", "/v1/runs/no-such-run", ""); code != http.StatusNotFound {
		t.Errorf("GET an unknown run = %d %v", code, m)
	}

	// MCP without a key, over the same ledger.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "serve-local-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("MCP without a key: %v", err)
	}
	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ledger_show", Arguments: map[string]any{"run_id": id}})
	if err != nil || out.IsError || len(out.Content) == 0 || !strings.Contains(out.Content[0].(*mcp.TextContent).Text, eid) {
		t.Errorf("MCP ledger_show of the run: %v %+v", err, out)
	}
	// A session left open: shutdown finishes its session run.
	out, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_filings", Arguments: map[string]any{"query": "gross margin"}})
	var session struct {
		RunID string `json:"run_id"`
	}
	if b, _ := json.Marshal(out.StructuredContent); err != nil || out.IsError || json.Unmarshal(b, &session) != nil || session.RunID == "" {
		t.Fatalf("MCP search_filings: %v %+v", err, out)
	}
	defer cs.Close()

	// The run is in the embedded ledger, where research ledger reads it.
	if code, out, errOut := runCLI(t, "ledger", "show", id, "--db", "", "--data-dir", s.dataDir); code != 0 || !strings.Contains(out, eid) {
		t.Errorf("research ledger show exited %d: %s %s", code, out, errOut)
	}

	if code := s.stop(); code != 0 {
		t.Errorf("serve exited %d after shutdown:\n%s", code, s.stderr.String())
	}
	if led, err := embeddedledger.Open(s.dataDir, &embeddedledger.Config{Tenant: "default"}); err != nil {
		t.Error(err)
	} else {
		if run, err := led.Run(ctx, session.RunID); err != nil || run.Status != ledger.StatusPartial {
			t.Errorf("MCP session run after shutdown: %+v, %v; want partial", run, err)
		}
		led.Close()
	}
	logs := s.stderr.String()
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		if m["run_id"] == id && m["tenant"] != "default" {
			t.Errorf("a line about the run without its tenant: %s", line)
		}
	}
	if !strings.Contains(logs, `"run finished"`) || !strings.Contains(logs, "stopped serving") {
		t.Errorf("logs:\n%s", logs)
	}
}

// TestServeLocalRefusesOtherAddresses: without --db, serve takes no key,
// so it listens on loopback only and says why.
func TestServeLocalRefusesOtherAddresses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.2:0", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{"0.0.0.0:8080", false},
		{":8080", false},
		{"[::]:8080", false},
		{"192.168.1.20:8080", false},
		{"example.com:80", false},
		{"8080", false},
	} {
		err := checkLocalAddr(tc.addr)
		if (err == nil) != tc.ok {
			t.Errorf("checkLocalAddr(%q) = %v, want ok %v", tc.addr, err, tc.ok)
		}
	}
	code, _, errOut := runCLI(t, "serve", "--db", "", "--data-dir", t.TempDir(), "--addr", "0.0.0.0:0")
	if code != 1 || !strings.Contains(errOut, "loopback") || !strings.Contains(errOut, "no API key") || !strings.Contains(errOut, "--db") {
		t.Errorf("serve --addr 0.0.0.0:0 without --db exited %d: %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "serve", "--db", "", "--data-dir", t.TempDir(), "--addr", "127.0.0.1:0", "--workers", "0")
	if code != 1 || !strings.Contains(errOut, "--workers 0") {
		t.Errorf("serve --workers 0 without --db exited %d: %s", code, errOut)
	}
}
