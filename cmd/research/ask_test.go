package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
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
	// Lists are lists even when empty; budget values are numbers.
	for _, key := range []string{"figures", "notes", "not_covered", "citations", "gaps", "contradictions"} {
		if _, ok := res[key].([]any); !ok {
			t.Errorf("%q is %v; want a list", key, res[key])
		}
	}
	budget, _ := res["budget"].(map[string]any)
	used, _ := budget["used"].(map[string]any)
	limits, _ := budget["limits"].(map[string]any)
	for _, key := range []string{"calls", "search_calls", "spend_usd", "wall_clock_ms"} {
		if _, ok := used[key].(float64); !ok {
			t.Errorf("budget.used.%s is %#v; want a number", key, used[key])
		}
	}
	if v, ok := limits["spend_usd"].(float64); !ok || v != 0.5 {
		t.Errorf("budget.limits.spend_usd is %#v; want 0.5", limits["spend_usd"])
	}
	if v, ok := limits["calls"]; !ok || v != nil {
		t.Errorf("budget.limits.calls is %#v; want null (no --max-calls)", v)
	}
	if res["run_id"] != "cli-run-1" || res["mode"] != "rules" || res["requested_mode"] != "auto" || res["class"] == nil {
		t.Errorf("run_id %v mode %v requested_mode %v class %v; want auto's choice of rules, with the class", res["run_id"], res["mode"], res["requested_mode"], res["class"])
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
	// Its summary is a line per requirement, the nodes by tool and the
	// worst case, with no condition or argument spelled out.
	code, out, errOut = runCLI(t, append([]string{"ask", q, "--dry-run", "--plan", "summary"}, storeArgs...)...)
	if code != 0 || !strings.Contains(out, "Worst case: ") || !regexp.MustCompile(`Nodes: .*\d+ search_filings`).MatchString(out) ||
		strings.Contains(out, "done when") || strings.Contains(out, `"query"`) {
		t.Errorf("dry-run summary exited %d:\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut = runCLI(t, append([]string{"ask", q, "--dry-run", "--plan", "brief"}, storeArgs...)...); code == 0 || !strings.Contains(errOut, "want full or summary") {
		t.Errorf("--plan brief exited %d: %s", code, errOut)
	}

	// A refusal is printed, and exits with its own status.
	code, out, _ = runCLI(t, append([]string{"ask", "Should I buy Acme stock?", "--quiet"}, storeArgs...)...)
	if code != 6 || !strings.HasPrefix(out, "Status: refused") {
		t.Errorf("refusal exited %d, want 6:\n%s", code, out)
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

// acmeDiscussion is the Item 7 of the tagged Acme filings.
const acmeDiscussion = "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
	"We expect gross margin to remain under pressure in 2025 as component costs stay elevated."

// ingestFilings writes tagged filings, ingests them into a fresh embedded
// store and returns the store flags that select it.
func ingestFilings(t *testing.T, filings ...corpustest.Filing) []string {
	t.Helper()
	dir := t.TempDir()
	corpustest.WriteFilings(t, dir, filings...)
	store := []string{"--db", "", "--data-dir", filepath.Join(dir, "store")}
	if code, out, errOut := runCLI(t, append([]string{"ingest", "--manifest", filepath.Join(dir, "manifest.jsonl")}, store...)...); code != 0 {
		t.Fatalf("ingest exited %d:\n%s\n%s", code, out, errOut)
	}
	return store
}

// TestCLIAskExitCodes runs a question ending in each end state and checks
// the exit status, and that the result was printed all the same.
func TestCLIAskExitCodes(t *testing.T) {
	_, manifest := writeFixtures(t)
	text := []string{"--db", "", "--data-dir", t.TempDir()}
	runCLI(t, append([]string{"ingest", "--manifest", manifest}, text...)...)
	tagged := ingestFilings(t, corpustest.Filing{Ticker: "ACME", Company: "Acme Corporation", Revenue: "1,000", Cost: "600", Item7: acmeDiscussion})
	amended := ingestFilings(t,
		corpustest.Filing{Name: "acme-10k.html", Ticker: "ACME", Company: "Acme Corporation", Form: "10-K", Revenue: "1,000", Cost: "600", Item7: acmeDiscussion},
		corpustest.Filing{Name: "acme-10ka.html", Ticker: "ACME", Company: "Acme Corporation", Form: "10-K/A", Revenue: "1,250", Cost: "600", Item7: acmeDiscussion + " Amended."},
	)
	const margin = "What was Acme's gross margin in fiscal 2024, and what drove it?"
	tests := []struct {
		name   string
		store  []string
		args   []string
		status ledger.RunStatus
		code   int
	}{
		{"supported", tagged, []string{margin}, ledger.StatusSupported, 0},
		{"partial", text, []string{"What drove Acme's gross margin in fiscal 2024?"}, ledger.StatusPartial, 0},
		{"insufficient_evidence", text, []string{"Did generative AI improve Acme's margins?"}, ledger.StatusInsufficientEvidence, 3},
		{"conflicting_evidence", amended, []string{margin}, ledger.StatusConflictingEvidence, 4},
		{"budget_exhausted", text, []string{"What drove Acme's gross margin in fiscal 2024?", "--max-calls", "1"}, ledger.StatusBudgetExhausted, 5},
		{"refused", text, []string{"Should I buy Acme stock?"}, ledger.StatusRefused, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"ask", "--quiet", "--format", "json"}, tt.args...), tt.store...)
			code, out, errOut := runCLI(t, args...)
			var res struct {
				Status ledger.RunStatus `json:"status"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("exit %d, and no result on stdout: %v\n%s\n%s", code, err, out, errOut)
			}
			if res.Status != tt.status || code != tt.code {
				t.Errorf("status %s, exit %d; want %s, exit %d\n%s", res.Status, code, tt.status, tt.code, errOut)
			}
			if errOut != "" {
				t.Errorf("an end state is no error; stderr:\n%s", errOut)
			}
		})
	}
}

func TestAskExit(t *testing.T) {
	tests := []struct {
		status ledger.RunStatus
		code   int
	}{
		{ledger.StatusSupported, 0}, {ledger.StatusPartial, 0}, {ledger.StatusInsufficientEvidence, 3},
		{ledger.StatusConflictingEvidence, 4}, {ledger.StatusBudgetExhausted, 5}, {ledger.StatusRefused, 6},
		{ledger.StatusFailed, 1}, {ledger.StatusRunning, 1},
	}
	for _, tt := range tests {
		code := 0
		if err := askExit(tt.status); err != nil {
			code = 1
			if es, ok := err.(exitStatus); ok {
				code = int(es)
			}
		}
		if code != tt.code {
			t.Errorf("%s: exit %d; want %d", tt.status, code, tt.code)
		}
	}
}

// TestCLIAskFigures checks the figures in each format on a tagged filing.
func TestCLIAskFigures(t *testing.T) {
	store := ingestFilings(t, corpustest.Filing{Ticker: "ACME", Company: "Acme Corporation", Revenue: "1,000", Cost: "600", Item7: acmeDiscussion})
	q := "What was Acme's gross margin in fiscal 2024, and what drove it?"
	code, out, errOut := runCLI(t, append([]string{"ask", q, "--quiet", "--format", "json", "--run-id", "figures-1"}, store...)...)
	if code != 0 {
		t.Fatalf("ask exited %d:\n%s\n%s", code, out, errOut)
	}
	var res struct {
		Figures []map[string]any `json:"figures"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	byValue := map[string]map[string]any{}
	for _, f := range res.Figures {
		v, _ := f["value"].(string)
		byValue[v] = f
	}
	want := []struct{ value, kind, unit, source string }{
		{"1000000000", "reported", "USD", "xbrl"},
		{"600000000", "reported", "USD", "xbrl"},
		{"0.4", "derived", "pure", "xbrl"},
	}
	for _, w := range want {
		f := byValue[w.value]
		if f == nil {
			t.Errorf("no figure of value %s in %v", w.value, res.Figures)
			continue
		}
		ids, _ := f["evidence_ids"].([]any)
		if f["issuer"] != "ACME" || f["kind"] != w.kind || f["unit"] != w.unit || f["source"] != w.source ||
			f["period"] != "2024-01-01/2024-12-31" || f["metric"] == "" || len(ids) == 0 {
			t.Errorf("figure %v; want ACME's %s figure in %s from %s, for 2024-01-01/2024-12-31, with evidence", f, w.kind, w.unit, w.source)
		}
		if w.kind == "derived" && f["formula"] == nil {
			t.Errorf("derived figure %v has no formula", f)
		}
	}

	// The text and markdown reports show them as a table; a finished run's
	// id returns its recorded answer, figures and all.
	for _, tt := range []struct{ format, head string }{{"text", "Figures:"}, {"markdown", "## Figures"}} {
		code, out, errOut := runCLI(t, append([]string{"ask", q, "--quiet", "--format", tt.format, "--run-id", "figures-1"}, store...)...)
		if code != 0 || !strings.Contains(out, tt.head) || !strings.Contains(out, "2024-01-01/2024-12-31") ||
			!strings.Contains(out, "1000000000") || !strings.Contains(out, "derived from xbrl") {
			t.Errorf("%s report exited %d; want a figures table:\n%s\n%s", tt.format, code, out, errOut)
		}
	}
}

// TestUsedLine: the budget line shows what the run used, calls first, then
// every budget dimension in report order, then the wall clock, and leaves
// out what it did not use.
func TestUsedLine(t *testing.T) {
	tests := []struct {
		name string
		used map[string]json.Number
		exh  string
		want string
	}{
		{"nothing", map[string]json.Number{"calls": "0", "spend_usd": "0"}, "", ""},
		{"every dimension", map[string]json.Number{
			"wall_clock_ms": "1500", "spend_usd": "0.0123", "retrieval_candidates": "40", "output_tokens": "90",
			"input_tokens": "800", "calculate_calls": "1", "fact_calls": "2", "read_calls": "3", "search_calls": "4",
			"model_calls": "2", "calls": "12",
		}, "", "calls=12 model_calls=2 search_calls=4 read_calls=3 fact_calls=2 calculate_calls=1 input_tokens=800 output_tokens=90 retrieval_candidates=40 spend_usd=0.0123 wall_clock_ms=1500"},
		{"exhausted", map[string]json.Number{"calls": "3", "search_calls": "0"}, "search_calls", "calls=3 exhausted=search_calls"},
	}
	for _, tt := range tests {
		if got := usedLine(executor.BudgetReport{Used: tt.used, Exhausted: tt.exh}); got != tt.want {
			t.Errorf("%s: usedLine = %q, want %q", tt.name, got, tt.want)
		}
	}
}
