package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// markupFiling holds text that would be markup if a page took it as HTML.
var markupFiling = corpustest.Filing{
	Name: "acme-2024.html", Ticker: "ACME", Company: "Acme Corp", Revenue: "1,000", Cost: "600",
	Item7: "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
		"Our product line &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt; sold well. " +
		"We expect gross margin to remain under pressure in 2025 as component costs stay elevated.",
}

// sourceReply is the JSON of GET /v1/runs/{id}/evidence/{eid}.
type sourceReply struct {
	EvidenceID  string `json:"evidence_id"`
	Ticker      string `json:"ticker"`
	Company     string `json:"company"`
	Form        string `json:"form"`
	FiscalYear  int    `json:"fiscal_year"`
	PeriodEnd   string `json:"period_end"`
	Section     string `json:"section"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	Before      string `json:"before"`
	Span        string `json:"span"`
	After       string `json:"after"`
	TextStart   int    `json:"text_start"`
	TextEnd     int    `json:"text_end"`
	DocumentLen int    `json:"document_length"`
}

// answeredRun runs acmeQuestion with key and returns its result's citations.
func answeredRun(t *testing.T, h *harness, key string) (string, []map[string]any) {
	t.Helper()
	id := h.submit(key, map[string]any{"question": acmeQuestion, "mode": "rules"})
	res := h.waitDone(key, id)
	raw, _ := res["citations"].([]any)
	if len(raw) == 0 {
		t.Fatalf("run %s has no citations: %v", id, res)
	}
	cites := make([]map[string]any, len(raw))
	for i, c := range raw {
		cites[i] = c.(map[string]any)
	}
	return id, cites
}

func TestRunEvidenceShowsTheSpanInItsFiling(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	// A third tenant whose Acme filing holds text that looks like markup.
	ingestFixture(t, h.pool, "initech", markupFiling)
	_, key, err := h.tenants.Create(context.Background(), "initech", generous())
	if err != nil {
		t.Fatal(err)
	}
	id, cites := answeredRun(t, h, key)
	for _, c := range cites {
		eid := c["evidence_id"].(string)
		r := h.do("GET", "/v1/runs/"+id+"/evidence/"+eid, key, nil)
		if r.code != http.StatusOK {
			t.Fatalf("GET evidence %s = %d\n%s", eid, r.code, r.body)
		}
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Content-Type %q, want JSON", ct)
		}
		if r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Error("no X-Content-Type-Options: nosniff")
		}
		var s sourceReply
		if err := json.Unmarshal(r.body, &s); err != nil {
			t.Fatal(err)
		}
		if s.EvidenceID != eid || s.Ticker != "ACME" || s.Company != "Acme Corp" || s.Form != "10-K" || s.FiscalYear != 2024 || s.PeriodEnd != "2024-12-31" {
			t.Errorf("source metadata = %+v", s)
		}
		if !strings.Contains(s.Span, c["excerpt"].(string)) {
			t.Errorf("span %q does not hold the citation's excerpt %q", s.Span, c["excerpt"])
		}
		if len(s.Span) != s.End-s.Start || s.TextStart+len(s.Before) != s.Start || s.End+len(s.After) != s.TextEnd {
			t.Errorf("offsets do not add up: %+v", s)
		}
		// The filing's text comes back as text: no entity escaping, no markup.
		whole := s.Before + s.Span + s.After
		if !strings.Contains(whole, "<script>alert(1)</script> & <b>bold</b>") {
			t.Errorf("the text around the span lost or escaped the filing's characters: %q", whole)
		}
		if strings.Contains(whole, "&lt;") || strings.Contains(whole, "&amp;") {
			t.Errorf("the text holds HTML entities: %q", whole)
		}
	}

	eid := cites[0]["evidence_id"].(string)
	t.Run("context", func(t *testing.T) {
		r := h.do("GET", "/v1/runs/"+id+"/evidence/"+eid+"?context=0", key, nil)
		var s sourceReply
		if err := json.Unmarshal(r.body, &s); err != nil || r.code != 200 {
			t.Fatalf("%d %v %s", r.code, err, r.body)
		}
		if s.Before != "" || s.After != "" {
			t.Errorf("context=0 gave text around the span: %+v", s)
		}
		r = h.do("GET", "/v1/runs/"+id+"/evidence/"+eid+"?context=-1", key, nil)
		if r.code != http.StatusBadRequest || r.json(t)["field"] != "context" {
			t.Errorf("context=-1: %d %s", r.code, r.body)
		}
	})
	t.Run("tenant scoped", func(t *testing.T) {
		r := h.do("GET", "/v1/runs/"+id+"/evidence/"+eid, h.acmeKey, nil)
		if r.code != http.StatusNotFound {
			t.Errorf("another tenant's run: %d, want 404\n%s", r.code, r.body)
		}
		if strings.Contains(string(r.body), "Gross margin") {
			t.Errorf("another tenant saw filing text: %s", r.body)
		}
		r = h.do("GET", "/v1/runs/"+id+"/evidence/"+eid, "", nil)
		if r.code != http.StatusUnauthorized {
			t.Errorf("no key: %d, want 401", r.code)
		}
		r = h.do("GET", "/v1/runs/"+id+"/evidence/Edeadbeef0000", key, nil)
		if r.code != http.StatusNotFound {
			t.Errorf("evidence the run does not hold: %d, want 404", r.code)
		}
		assertNoInternals(t, r.body)
	})
	t.Run("runs and corpus", func(t *testing.T) {
		var runs struct {
			Runs []runListItem `json:"runs"`
		}
		if err := json.Unmarshal(h.do("GET", "/v1/runs", key, nil).body, &runs); err != nil {
			t.Fatal(err)
		}
		if len(runs.Runs) != 1 || runs.Runs[0].RunID != id || runs.Runs[0].Question != acmeQuestion || runs.Runs[0].Finished == nil {
			t.Errorf("initech's runs = %+v", runs.Runs)
		}
		if err := json.Unmarshal(h.do("GET", "/v1/runs", h.acmeKey, nil).body, &runs); err != nil {
			t.Fatal(err)
		}
		if len(runs.Runs) != 0 {
			t.Errorf("acme sees initech's runs: %+v", runs.Runs)
		}
		var docs struct {
			Documents []corpusItem `json:"documents"`
		}
		if err := json.Unmarshal(h.do("GET", "/v1/corpus", h.acmeKey, nil).body, &docs); err != nil {
			t.Fatal(err)
		}
		if len(docs.Documents) != 1 || docs.Documents[0].Ticker != "ACME" || docs.Documents[0].PeriodEnd != "2024-12-31" {
			t.Errorf("acme's corpus = %+v", docs.Documents)
		}
		if err := json.Unmarshal(h.do("GET", "/v1/corpus", h.otherKey, nil).body, &docs); err != nil {
			t.Fatal(err)
		}
		if len(docs.Documents) != 0 {
			t.Errorf("globex's corpus = %+v", docs.Documents)
		}
	})
}

func TestPlanIsADryRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	r := h.do("POST", "/v1/plan", h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "rules", "budget": map[string]any{"spend_usd": "0.25", "max_calls": 10}})
	if r.code != http.StatusOK {
		t.Fatalf("POST /v1/plan = %d\n%s", r.code, r.body)
	}
	var plan struct {
		Graph struct {
			Requirements []map[string]any `json:"requirements"`
			Nodes        []map[string]any `json:"nodes"`
		} `json:"graph"`
		WorstCase map[string]string `json:"worst_case"`
	}
	if err := json.Unmarshal(r.body, &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Graph.Requirements) == 0 || len(plan.Graph.Nodes) == 0 || len(plan.WorstCase) == 0 {
		t.Errorf("plan = %s", r.body)
	}
	var runs struct {
		Runs []runListItem `json:"runs"`
	}
	if err := json.Unmarshal(h.do("GET", "/v1/runs", h.acmeKey, nil).body, &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs.Runs) != 0 {
		t.Errorf("a dry run recorded runs: %+v", runs.Runs)
	}
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{"question": ""}, "question"},
		{map[string]any{"question": acmeQuestion, "budget": map[string]any{"max_calls": 0}}, "budget.max_calls"},
		{map[string]any{"question": acmeQuestion, "mode": "psychic"}, "mode"},
	} {
		r := h.do("POST", "/v1/plan", h.acmeKey, tc.body)
		if r.code != http.StatusBadRequest || r.json(t)["field"] != tc.field {
			t.Errorf("POST /v1/plan %v = %d %s, want 400 on %s", tc.body, r.code, r.body, tc.field)
		}
		assertNoInternals(t, r.body)
	}
}

func TestWebAppIsServed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	for _, p := range []string{"/", "/assets/app.js", "/assets/app.css"} {
		r := h.do("GET", p, "", nil)
		if r.code != http.StatusOK || len(r.body) == 0 {
			t.Errorf("GET %s = %d", p, r.code)
		}
		if r.header.Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: no Content-Security-Policy", p)
		}
	}
	if r := h.do("GET", "/nope", "", nil); r.code != http.StatusNotFound || r.json(t)["error"] == nil {
		t.Errorf("GET /nope = %d %s, want the API's JSON 404", r.code, r.body)
	}
}

// /mcp is served when configured, with the API's own key check: a key's
// tenant reaches the handler, and an unknown key is refused.
func TestMCPMountedWithTheAPIKeys(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true, cfg: func(c *Config) {
		c.MCP = func(keys func(context.Context, string) (string, error)) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, key, _ := strings.Cut(r.Header.Get("Authorization"), " ")
				tenant, err := keys(r.Context(), key)
				if err != nil {
					http.Error(w, "refused", http.StatusUnauthorized)
					return
				}
				w.Write([]byte(tenant))
			})
		}
	}})
	if r := h.do("POST", "/mcp", h.acmeKey, nil); r.code != http.StatusOK || string(r.body) != "acme" {
		t.Errorf("POST /mcp with acme's key = %d %q; want acme's tenant", r.code, r.body)
	}
	if r := h.do("POST", "/mcp", "rk_"+strings.Repeat("0", 40), nil); r.code != http.StatusUnauthorized {
		t.Errorf("POST /mcp with an unknown key = %d; want 401", r.code)
	}
	plain := newHarness(t, harnessOpts{noWorker: true})
	if r := plain.do("POST", "/mcp", plain.acmeKey, nil); r.code != http.StatusNotFound {
		t.Errorf("POST /mcp without MCP configured = %d; want 404", r.code)
	}
}

// TestRunListShowsSpend: GET /v1/runs lists the tenant's runs newest
// first, each with what its budget settled, a run still going included;
// a run without a budget spent nothing.
func TestRunListShowsSpend(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	ctx := context.Background()
	led, err := pgledger.New(h.pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	acct, err := budget.NewPostgres(h.pool, &budget.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		run, spend string // spend "" means no budget
		finished   bool
	}{
		{run: "spent", spend: "0.0125", finished: true},
		{run: "going", spend: "0.003"},
		{run: "free"},
	} {
		if _, _, err := led.OpenRun(ctx, ledger.Run{ID: tt.run, Question: acmeQuestion}); err != nil {
			t.Fatal(err)
		}
		if tt.spend != "" {
			scope := budget.RunScope(tt.run)
			use := budget.Amounts{ModelCalls: 1, SpendUSD: decimal.RequireFromString(tt.spend)}
			if err := acct.SetLimits(ctx, scope, budget.NoLimits()); err != nil {
				t.Fatal(err)
			}
			if _, err := acct.Reserve(ctx, "k-"+tt.run, []budget.Scope{scope}, use, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := acct.Settle(ctx, "k-"+tt.run, use); err != nil {
				t.Fatal(err)
			}
		}
		if tt.finished {
			if err := led.FinishRun(ctx, tt.run, ledger.StatusSupported); err != nil {
				t.Fatal(err)
			}
		}
	}
	var list struct {
		Runs []runListItem `json:"runs"`
	}
	r := h.do("GET", "/v1/runs", h.acmeKey, nil)
	if err := json.Unmarshal(r.body, &list); err != nil {
		t.Fatalf("GET /v1/runs = %d %s: %v", r.code, r.body, err)
	}
	got := map[string]runListItem{}
	for i, it := range list.Runs {
		got[it.RunID] = it
		if i > 0 && it.Created.After(list.Runs[i-1].Created) {
			t.Errorf("run %s listed after the older %s", it.RunID, list.Runs[i-1].RunID)
		}
	}
	for run, want := range map[string]struct {
		spend, status string
		finished      bool
	}{
		"spent": {"0.0125", "supported", true},
		"going": {"0.003", "running", false},
		"free":  {"0", "running", false},
	} {
		it, ok := got[run]
		if !ok || it.SpendUSD != want.spend || it.Status != want.status || (it.Finished != nil) != want.finished {
			t.Errorf("run %s listed as %+v (%v); want spend %s, status %s, finished %v", run, it, ok, want.spend, want.status, want.finished)
		}
	}
	if len(list.Runs) != 3 {
		t.Errorf("GET /v1/runs lists %d runs, want 3", len(list.Runs))
	}
}
