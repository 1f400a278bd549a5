package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestValidation sends each kind of bad request and checks the 400 says
// what to fix and nothing of the server's internals.
func TestValidation(t *testing.T) {
	t.Parallel()
	l := generous()
	l.MaxRunSpendUSD = mustDecimal("0.25")
	h := newHarness(t, harnessOpts{acme: l, noWorker: true})
	long := strings.Repeat("margin ", 400) // 2,800 characters
	tests := []struct {
		name, path string
		body       string
		field      string // the field named, "" for the body
		want       string // in the message
	}{
		{"empty body", "/v1/runs", "", "", "the body is empty"},
		{"not JSON", "/v1/runs", "question=hi", "", "not valid JSON"},
		{"truncated JSON", "/v1/runs", `{"question": "gross margin`, "", "ends too early"},
		{"an array", "/v1/runs", `[1, 2]`, "", "JSON object"},
		{"unknown field", "/v1/runs", `{"question": "gross margin at ACME", "sql": "drop table runs"}`, "", `unknown field "sql"`},
		{"unknown budget field", "/v1/runs", `{"question": "gross margin at ACME", "budget": {"dollars": 1}}`, "", `unknown field "dollars"`},
		{"two objects", "/v1/runs", `{"question": "gross margin at ACME"} {}`, "", "more than one JSON value"},
		{"wrong type", "/v1/runs", `{"question": 42}`, "question", "want a JSON string"},
		{"tickers not a list", "/v1/runs", `{"question": "gross margin at ACME", "tickers": "ACME"}`, "tickers", "want a JSON array"},
		{"question too short", "/v1/runs", `{"question": "hi"}`, "question", "2 characters; want 3 to 2000"},
		{"question missing", "/v1/runs", `{"mode": "rules"}`, "question", "0 characters"},
		{"question too long", "/v1/runs", `{"question": "` + long + `"}`, "question", "want 3 to 2000"},
		{"bad ticker", "/v1/runs", `{"question": "gross margin", "tickers": ["ACME", "A;DROP"]}`, "tickers[1]", "is not a ticker"},
		{"too many tickers", "/v1/runs", `{"question": "gross margin", "tickers": ["A","B","C","D","E","F","G","H","I","J","K","L","M","N","O","P","Q","R","S","T","U"]}`, "tickers", "want at most 20"},
		{"bad mode", "/v1/runs", `{"question": "gross margin at ACME", "mode": "magic"}`, "mode", "want auto, rules, baseline or model"},
		{"spend over the cap", "/v1/runs", `{"question": "gross margin at ACME", "budget": {"spend_usd": "0.30"}}`, "budget.spend_usd", "above this tenant's cap of 0.25"},
		{"negative spend", "/v1/runs", `{"question": "gross margin at ACME", "budget": {"spend_usd": -1}}`, "budget.spend_usd", "negative"},
		{"spend not a number", "/v1/runs", `{"question": "gross margin at ACME", "budget": {"spend_usd": "lots"}}`, "", "amounts are JSON numbers"},
		{"spend of a tiny exponent", "/v1/runs", `{"question": "gross margin at ACME", "budget": {"spend_usd": 1e-9999}}`, "budget.spend_usd", "at most 8 decimal places"},
		{"spend of a huge exponent", "/v1/runs", `{"question": "gross margin at ACME", "budget": {"spend_usd": 1e9999}}`, "budget.spend_usd", "want an amount in USD"},
		{"spend of a huge exponent as a string", "/v1/runs", `{"question": "gross margin at ACME", "budget": {"spend_usd": "-1e9999"}}`, "budget.spend_usd", "want an amount in USD"},
		{"NUL in a question", "/v1/runs", `{"question": "gross margin at ACME\u0000 in 2024"}`, "question", "control character"},
		{"escape in a question", "/v1/runs", `{"question": "gross margin at ACME\u001b[31m"}`, "question", "control character"},
		{"NUL in a query", "/v1/search", `{"query": "margin\u0000"}`, "query", "control character"},
		{"NUL in a section", "/v1/search", `{"query": "margin", "section": "7\u0000"}`, "section", "control character"},
		{"unknown section", "/v1/search", `{"query": "margin", "section": "MD&A"}`, "section", "is not a section"},
		{"timeout over the cap", "/v1/runs", `{"question": "gross margin at ACME", "budget": {"timeout_seconds": 121}}`, "budget.timeout_seconds", "want 1 to 120"},
		{"no calls", "/v1/runs", `{"question": "gross margin at ACME", "budget": {"max_calls": 0}}`, "budget.max_calls", "want 1 to 200"},
		{"bad idempotency key", "/v1/runs", `{"question": "gross margin at ACME", "idempotency_key": "a b"}`, "idempotency_key", "letters, digits"},
		{"search without a query", "/v1/search", `{"k": 3}`, "query", "want 1 to 1000"},
		{"search k too large", "/v1/search", `{"query": "margin", "k": 5000}`, "k", "want 1 to 200"},
		{"search bad mode", "/v1/search", `{"query": "margin", "mode": "psychic"}`, "mode", "hybrid, fulltext or vector"},
		{"search bad year", "/v1/search", `{"query": "margin", "fiscal_years": [24]}`, "fiscal_years[0]", "not a fiscal year"},
		{"search bad form", "/v1/search", `{"query": "margin", "form": "10-K'; --"}`, "form", "10-K or 10-Q"},
		{"search unknown field", "/v1/search", `{"query": "margin", "tenant": "globex"}`, "", `unknown field "tenant"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do("POST", tt.path, h.acmeKey, tt.body)
			if r.code != http.StatusBadRequest {
				t.Fatalf("= %d, want 400\n%s", r.code, r.body)
			}
			m := r.json(t)
			msg, _ := m["error"].(string)
			if !strings.Contains(msg, tt.want) {
				t.Errorf("message %q lacks %q", msg, tt.want)
			}
			if f, _ := m["field"].(string); f != tt.field {
				t.Errorf("field %q, want %q", f, tt.field)
			}
			if id, _ := m["request_id"].(string); id == "" || id != r.header.Get("X-Request-Id") {
				t.Errorf("request_id %q, header %q", id, r.header.Get("X-Request-Id"))
			}
			assertNoInternals(t, r.body)
			if len(msg) > 300 {
				t.Errorf("a message of %d bytes: %.100s…", len(msg), msg)
			}
		})
	}

	t.Run("invalid UTF-8", func(t *testing.T) {
		// The JSON decoder reads bytes that are not UTF-8 as U+FFFD: the
		// request is taken as that text, and nothing fails.
		for _, tt := range []struct{ path, body string }{
			{"/v1/runs", "{\"question\": \"gross margin at ACME \xff\xfe in 2024\", \"mode\": \"rules\"}"},
			{"/v1/search", "{\"query\": \"margin \xc3\x28\"}"},
			{"/v1/search", "{\"query\": \"margin\", \"section\": \"\xff\"}"},
		} {
			r := h.do("POST", tt.path, h.acmeKey, tt.body)
			if r.code >= 500 {
				t.Errorf("POST %s with bytes that are not UTF-8 = %d\n%s", tt.path, r.code, r.body)
			}
			assertNoInternals(t, r.body)
		}
	})

	t.Run("oversized body", func(t *testing.T) {
		body := `{"question": "` + strings.Repeat("x", 70<<10) + `"}`
		r := h.do("POST", "/v1/runs", h.acmeKey, body)
		if r.code != http.StatusBadRequest || !strings.Contains(string(r.body), "larger than 64 KiB") {
			t.Fatalf("= %d\n%.300s", r.code, r.body)
		}
		assertNoInternals(t, r.body)
	})

	t.Run("not JSON content", func(t *testing.T) {
		req, _ := http.NewRequest("POST", h.http.URL+"/v1/runs", strings.NewReader("question=x"))
		req.Header.Set("Authorization", "Bearer "+h.acmeKey)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := h.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("= %d", resp.StatusCode)
		}
	})

	// Nothing was admitted but the one run whose question was read as
	// text: the daily count is untouched.
	var n int
	if err := h.pool.QueryRow(t.Context(), `SELECT count(*) FROM run_admissions`).Scan(&n); err != nil || n > 1 {
		t.Errorf("%d admissions after bad requests (%v)", n, err)
	}
}

// TestAuth checks that every endpoint but the probes and /metrics needs a
// valid key.
func TestAuth(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noWorker: true})
	ctx := t.Context()
	revoked, err := h.tenants.IssueKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.tenants.RevokeKey(ctx, "acme", revoked[:keyPrefixLen]); err != nil {
		t.Fatal(err)
	}
	unknown := KeyPrefix + strings.Repeat("A", 43)
	endpoints := []struct{ method, path, body string }{
		{"POST", "/v1/runs", `{"question": "gross margin at ACME"}`},
		{"GET", "/v1/runs/run-1", ""},
		{"GET", "/v1/runs/run-1/events", ""},
		{"GET", "/v1/runs/run-1/ledger", ""},
		{"POST", "/v1/search", `{"query": "margin"}`},
	}
	for _, e := range endpoints {
		for name, key := range map[string]string{"no key": "", "unknown key": unknown, "revoked key": revoked, "garbage": "hunter2"} {
			r := h.do(e.method, e.path, key, nilIfEmpty(e.body))
			if r.code != http.StatusUnauthorized {
				t.Errorf("%s %s with %s = %d, want 401\n%s", e.method, e.path, name, r.code, r.body)
			}
			if r.header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s %s with %s: no WWW-Authenticate", e.method, e.path, name)
			}
			assertNoInternals(t, r.body)
		}
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if r := h.do("GET", path, "", nil); r.code != http.StatusOK {
			t.Errorf("GET %s without a key = %d", path, r.code)
		}
	}
	// The other key of the tenant still works.
	if r := h.do("POST", "/v1/search", h.acmeKey, `{"query": "margin"}`); r.code != http.StatusOK {
		t.Errorf("a working key = %d\n%s", r.code, r.body)
	}
	// An unknown route is a JSON 404.
	if r := h.do("GET", "/v2/anything", h.acmeKey, nil); r.code != http.StatusNotFound || r.json(t)["error"] == nil {
		t.Errorf("unknown route = %d %s", r.code, r.body)
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
