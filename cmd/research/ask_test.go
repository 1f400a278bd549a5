package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgerline/research/internal/pgtest"
)

// exerciseAsk ingests the small fixture corpus and asks about it through
// the command line, against the store that storeArgs select.
func exerciseAsk(t *testing.T, storeArgs ...string) {
	t.Helper()
	_, manifest := writeFixtures(t)
	runCLI(t, append([]string{"ingest", "--manifest", manifest}, storeArgs...)...)

	q := "What drove Acme's gross margin in fiscal 2024?"
	code, out, errOut := runCLI(t, append([]string{"ask", q, "--format", "json", "--run-id", "cli-run-1"}, storeArgs...)...)
	if code != 0 {
		t.Fatalf("ask exited %d:\n%s\n%s", code, out, errOut)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("ask JSON: %v\n%s", err, out)
	}
	for _, key := range []string{"run_id", "status", "mode", "answer", "citations", "requirements", "gaps", "contradictions", "budget", "elapsed_ms"} {
		if _, ok := res[key]; !ok {
			t.Errorf("result lacks %q", key)
		}
	}
	if res["run_id"] != "cli-run-1" || res["mode"] != "rules" {
		t.Errorf("run_id %v mode %v", res["run_id"], res["mode"])
	}
	cits, _ := res["citations"].([]any)
	if len(cits) == 0 {
		t.Fatalf("no citations:\n%s", out)
	}
	c := cits[0].(map[string]any)
	for _, key := range []string{"index", "evidence_id", "document_id", "ticker", "form", "fiscal_year", "period_end", "page", "section", "excerpt"} {
		if _, ok := c[key]; !ok {
			t.Errorf("citation lacks %q: %v", key, c)
		}
	}
	if !strings.Contains(c["excerpt"].(string), "steel costs") {
		t.Errorf("first citation %v; want the 2024 MD&A sentence", c)
	}
	// Progress lines went to stderr, timestamped.
	if !strings.Contains(errOut, "node_finished") || !strings.Contains(errOut, "finished") {
		t.Errorf("no progress on stderr:\n%s", errOut)
	}

	// The ledger holds the run.
	code, out, errOut = runCLI(t, append([]string{"ledger", "show", "cli-run-1"}, storeArgs...)...)
	if code != 0 || !strings.Contains(out, "steel costs") {
		t.Errorf("ledger show exited %d:\n%s\n%s", code, out, errOut)
	}

	// The report a person reads starts with the status.
	code, out, _ = runCLI(t, append([]string{"ask", q, "--quiet"}, storeArgs...)...)
	if code != 0 || !strings.HasPrefix(out, "Status: ") || !strings.Contains(out, "Sources:") || !strings.Contains(out, "Budget used:") {
		t.Errorf("text report exited %d:\n%s", code, out)
	}

	// A dry run prints the plan and its worst case, and records nothing.
	code, out, errOut = runCLI(t, append([]string{"ask", q, "--dry-run", "--run-id", "cli-dry"}, storeArgs...)...)
	if code != 0 || !strings.Contains(out, "Worst-case budget") || !strings.Contains(out, "search_filings") {
		t.Errorf("dry run exited %d:\n%s\n%s", code, out, errOut)
	}
	if code, _, _ = runCLI(t, append([]string{"ledger", "show", "cli-dry"}, storeArgs...)...); code == 0 {
		t.Error("a dry run recorded a run")
	}

	// Refusals exit 0: a refusal is an answer.
	code, out, _ = runCLI(t, append([]string{"ask", "Should I buy Acme stock?", "--quiet"}, storeArgs...)...)
	if code != 0 || !strings.HasPrefix(out, "Status: refused") {
		t.Errorf("refusal exited %d:\n%s", code, out)
	}
}

func TestCLIAskEmbedded(t *testing.T) {
	exerciseAsk(t, "--db", "", "--data-dir", t.TempDir())
}

func TestCLIAskPostgres(t *testing.T) {
	_, schema := pgtest.EmptyPool(t)
	exerciseAsk(t, "--db", pgtest.SchemaURL(t, schema))
}

func TestCLIAskUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ask"}, 2, "Usage: research ask"},
		{[]string{"ask", "--help"}, 0, "-dry-run"},
		{[]string{"ask", "q?", "--format", "xml", "--data-dir", dir}, 1, "--format"},
		{[]string{"ask", "q?", "--budget-usd", "-1", "--data-dir", dir}, 1, "--budget-usd"},
		{[]string{"ask", "q?", "--timeout", "0s", "--data-dir", dir}, 1, "--timeout"},
		{[]string{"ask", "What drove margins?", "--db", "", "--data-dir", dir}, 1, "research ingest"},
	}
	for _, tt := range tests {
		code, out, errOut := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s%s", tt.args, code, tt.code, tt.want, out, errOut)
		}
	}
}
