package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAPIEndToEnd submits a rules-mode run, follows it to its verdict by
// polling and by the event stream, and reads its ledger and a search.
func TestAPIEndToEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	r := h.do("POST", "/v1/runs", h.acmeKey, map[string]any{"question": acmeQuestion, "tickers": []string{"acme"}, "mode": "rules"})
	if r.code != http.StatusAccepted {
		t.Fatalf("POST /v1/runs = %d\n%s", r.code, r.body)
	}
	acc := r.json(t)
	id := acc["run_id"].(string)
	if acc["status"] != RunStatusQueued || r.header.Get("Location") != "/v1/runs/"+id {
		t.Errorf("accepted %s, Location %q", r.body, r.header.Get("Location"))
	}

	// The event stream: progress live, then the result, then the end.
	resp := h.stream(h.acmeKey, id, "")
	events := readSSE(t, resp.Body, nil)
	resp.Body.Close()
	if len(events) < 3 {
		t.Fatalf("%d events: %v", len(events), events)
	}
	last := events[len(events)-1]
	if last.event != sseResult {
		t.Fatalf("last event %q, want result: %v", last.event, events)
	}
	kinds := map[string]bool{}
	for _, ev := range events[:len(events)-1] {
		if ev.event != sseProgress || ev.id == "" {
			t.Errorf("event %+v: want progress with an id", ev)
		}
		var e struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal([]byte(ev.data), &e); err != nil {
			t.Fatalf("progress data: %v: %s", err, ev.data)
		}
		kinds[e.Kind] = true
	}
	for _, k := range []string{"route", "plan", "node_finished", "finished"} {
		if !kinds[k] {
			t.Errorf("no %s event among %v", k, kinds)
		}
	}
	var streamed map[string]any
	if err := json.Unmarshal([]byte(last.data), &streamed); err != nil {
		t.Fatal(err)
	}

	// GET: the same JSON as research ask --format json.
	res := h.waitDone(h.acmeKey, id)
	for _, key := range []string{"run_id", "status", "mode", "question", "answer", "citations", "requirements", "gaps", "contradictions", "budget", "elapsed_ms"} {
		if _, ok := res[key]; !ok {
			t.Errorf("result lacks %q", key)
		}
	}
	if res["run_id"] != id || res["mode"] != "rules" || res["status"] != streamed["status"] || res["answer"] != streamed["answer"] {
		t.Errorf("result %v\nstreamed %v", res, streamed)
	}
	cits, _ := res["citations"].([]any)
	cited := false
	for _, c := range cits {
		cited = cited || strings.Contains(c.(map[string]any)["excerpt"].(string), "component costs")
	}
	if !cited {
		t.Errorf("citations %v; want the Item 7 sentence among them", cits)
	}

	// A stream of a finished run replays and ends; after Last-Event-ID it
	// sends only the result.
	resp = h.stream(h.acmeKey, id, events[len(events)-2].id)
	again := readSSE(t, resp.Body, nil)
	resp.Body.Close()
	if len(again) != 1 || again[0].event != sseResult {
		t.Errorf("resumed stream: %v", again)
	}

	// The ledger export.
	r = h.do("GET", "/v1/runs/"+id+"/ledger", h.acmeKey, nil)
	if r.code != http.StatusOK {
		t.Fatalf("ledger = %d\n%s", r.code, r.body)
	}
	led := r.json(t)
	if led["run_id"] != id || led["tenant"] != "acme" || len(led["evidence"].([]any)) == 0 || len(led["events"].([]any)) == 0 {
		t.Errorf("ledger export %s", r.body)
	}

	// Search.
	r = h.do("POST", "/v1/search", h.acmeKey, map[string]any{"query": "gross margin component costs", "tickers": []string{"ACME"}, "k": 3})
	if r.code != http.StatusOK {
		t.Fatalf("search = %d\n%s", r.code, r.body)
	}
	results, _ := r.json(t)["results"].([]any)
	if len(results) == 0 || results[0].(map[string]any)["ticker"] != "ACME" {
		t.Errorf("search results %s", r.body)
	}

	// Logs are JSON lines; the run's carry its id and tenant.
	var sawQueued, sawProgress bool
	for _, line := range strings.Split(strings.TrimSpace(h.logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, line)
		}
		if m["run_id"] == id {
			if m["tenant"] != "acme" {
				t.Errorf("run's log line without its tenant: %s", line)
			}
			sawQueued = sawQueued || m["msg"] == "run queued"
			sawProgress = sawProgress || m["msg"] == "run progress"
		}
	}
	if !sawQueued || !sawProgress {
		t.Errorf("queued %v progress %v in logs:\n%s", sawQueued, sawProgress, h.logs.String())
	}

	// Metrics: requests by route and code, runs by status and mode, nodes.
	r = h.do("GET", "/metrics", "", nil)
	for _, want := range []string{
		`research_http_requests_total{code="202",route="POST /v1/runs"} 1`,
		`research_runs_submitted_total{mode="rules"} 1`,
		`research_runs_total{mode="rules",status="` + res["status"].(string) + `"} 1`,
		`research_node_duration_seconds_count{tool="search_filings"}`,
		`research_semaphore_wait_seconds_count{call="search_filings"}`,
		`research_run_duration_seconds_count{mode="rules"} 1`,
		`research_queue_depth 0`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// stream opens a run's event stream.
func (h *harness) stream(key, id, lastEventID string) *http.Response {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	h.t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", h.http.URL+"/v1/runs/"+id+"/events", nil)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := h.http.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		h.t.Fatalf("events = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp
}
