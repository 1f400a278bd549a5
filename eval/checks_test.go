package eval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

func num(s string) *json.Number {
	n := json.Number(s)
	return &n
}

// goodRun is a run that passes every check of goodItem.
func goodRun() (*executor.Result, *ledger.RunLedger) {
	res := &executor.Result{
		RunID:  "r1",
		Status: ledger.StatusSupported,
		Answer: "NVIDIA (NVDA):\n- Revenue, FY2023: $26.97 billion [1].\n- Apple: Total net sales, FY2024 [2].",
		Citations: []executor.Citation{
			{Index: 1, EvidenceID: "E1", Ticker: "NVDA", Form: "10-K", FiscalYear: 2023, Excerpt: "Revenue | 26,974 | 26,914"},
			{Index: 2, EvidenceID: "E2", Ticker: "AAPL", Form: "10-K", FiscalYear: 2024, Excerpt: "Total net sales | 391,035"},
		},
		Budget: executor.BudgetReport{
			Limits: map[string]*json.Number{"search_calls": num("60"), "spend_usd": num("0.50"), "input_tokens": nil, "wall_clock_ms": num("60000")},
			Used:   map[string]json.Number{"search_calls": "3", "spend_usd": "0", "input_tokens": "0", "wall_clock_ms": "120"},
		},
	}
	led := &ledger.RunLedger{
		ToolCalls: []ledger.ToolCall{{ID: "c1", Tool: "search_filings"}, {ID: "c2", Tool: "lookup_fact"}},
		Evidence: []ledger.Evidence{
			{ID: "E1", Ticker: "NVDA", Excerpt: "Revenue | 26,974 | 26,914 | 16,675"},
			{ID: "E2", Ticker: "AAPL", Excerpt: "Total net sales | 391,035 | 383,285 | 394,328"},
		},
	}
	return res, led
}

func goodItem() GoldenItem {
	return GoldenItem{
		ID: "g001", Class: ClassComparison, Question: "Compare NVIDIA and Apple revenue.",
		Status: []ledger.RunStatus{ledger.StatusSupported}, Issuers: []string{"NVDA", "AAPL"},
		Figures:  []Figure{{Label: "NVIDIA revenue", Value: 26_974e6, Unit: UnitUSD, Period: "2023"}},
		Evidence: []Evidence{{Answer: Answer{Ticker: "NVDA", FiscalYear: 2023, Form: "10-K", Phrase: "26,974 | 26,914"}}},
		Tools:    []string{"lookup_fact"},
		Note:     "test",
	}
}

func failedChecks(checks []Check) map[string]string {
	out := map[string]string{}
	for _, c := range checks {
		if !c.Passed {
			out[c.Name] = c.Reason
		}
	}
	return out
}

func TestCheckResult(t *testing.T) {
	tests := []struct {
		name  string
		item  func(*GoldenItem)
		run   func(*executor.Result, *ledger.RunLedger)
		fails map[string]string // check -> part of its reason
	}{
		{name: "all pass"},
		{
			name:  "wrong status",
			run:   func(r *executor.Result, _ *ledger.RunLedger) { r.Status = ledger.StatusPartial },
			fails: map[string]string{CheckStatus: "got partial; want supported"},
		},
		{
			name: "a comparison citing one company",
			run: func(r *executor.Result, _ *ledger.RunLedger) {
				r.Citations = r.Citations[:1]
			},
			fails: map[string]string{CheckIssuers: "no citation from AAPL"},
		},
		{
			name: "figure missing",
			run: func(r *executor.Result, _ *ledger.RunLedger) {
				r.Answer = strings.ReplaceAll(r.Answer, "26.97", "25.97")
			},
			fails: map[string]string{CheckFigures: "NVIDIA revenue"},
		},
		{
			name: "evidence not cited",
			run: func(r *executor.Result, _ *ledger.RunLedger) {
				r.Citations[0].Excerpt = "Revenue"
			},
			fails: map[string]string{CheckEvidence: `quotes "26,974 | 26,914"`},
		},
		{
			name: "citation not in the ledger",
			run: func(r *executor.Result, _ *ledger.RunLedger) {
				r.Citations[1].EvidenceID = "E9"
			},
			fails: map[string]string{CheckCitations: "[2] names E9"},
		},
		{
			name: "citation not verbatim",
			run: func(r *executor.Result, _ *ledger.RunLedger) {
				r.Citations[1].Excerpt = "Total net sales | 391,036"
			},
			fails: map[string]string{CheckCitations: "[2] excerpt is not verbatim"},
		},
		{
			name: "citation labelled with another issuer",
			run: func(r *executor.Result, _ *ledger.RunLedger) {
				r.Citations[1].Ticker = "NVDA"
			},
			fails: map[string]string{CheckCitations: "labelled NVDA", CheckIssuers: "AAPL"},
		},
		{
			name: "required tool not called",
			run: func(_ *executor.Result, l *ledger.RunLedger) {
				l.ToolCalls = l.ToolCalls[:1]
			},
			fails: map[string]string{CheckTools: "lookup_fact"},
		},
		{
			name: "required tool failed",
			run: func(_ *executor.Result, l *ledger.RunLedger) {
				l.ToolCalls[1].Error = "store down"
			},
			fails: map[string]string{CheckTools: "lookup_fact"},
		},
		{
			name: "budget exceeded",
			run: func(r *executor.Result, _ *ledger.RunLedger) {
				r.Budget.Used["spend_usd"] = "0.5000001"
				r.Budget.Used["wall_clock_ms"] = "60001"
			},
			fails: map[string]string{CheckBudget: "spend_usd used 0.5000001 of a 0.5 limit; wall_clock_ms used 60001"},
		},
		{
			name: "answered what must be refused",
			item: func(it *GoldenItem) {
				*it = GoldenItem{ID: "g110", Class: ClassRefusal, Question: "Should I buy NVDA?", Status: []ledger.RunStatus{ledger.StatusRefused}, Note: "n"}
			},
			fails: map[string]string{CheckStatus: "want refused", CheckRefusal: "answered (supported)"},
		},
		{
			name: "refused what must be answered",
			run: func(r *executor.Result, _ *ledger.RunLedger) {
				r.Status, r.RefusalReason, r.Citations, r.Answer = ledger.StatusRefused, "advice", nil, "Refused"
			},
			fails: map[string]string{CheckStatus: "refused", CheckRefusal: "refused a question it should answer", CheckIssuers: "NVDA", CheckFigures: "NVIDIA", CheckEvidence: "NVDA"},
		},
		{
			name: "a refusal after tool calls",
			item: func(it *GoldenItem) {
				*it = GoldenItem{ID: "g110", Class: ClassRefusal, Question: "Should I buy NVDA?", Status: []ledger.RunStatus{ledger.StatusRefused}, Note: "n"}
			},
			run: func(r *executor.Result, _ *ledger.RunLedger) {
				r.Status, r.Citations = ledger.StatusRefused, nil
			},
			fails: map[string]string{CheckRefusal: "2 tool calls were made before refusing"},
		},
		{
			name: "issuer outside the corpus not reported",
			item: func(it *GoldenItem) { it.NotCovered = []string{"Samsung"} },
			run: func(r *executor.Result, _ *ledger.RunLedger) {
				r.NotCovered = []string{"Tesla"}
			},
			fails: map[string]string{CheckCoverage: "Samsung is not reported"},
		},
		{
			name: "issuer outside the corpus reported, case aside",
			item: func(it *GoldenItem) { it.NotCovered = []string{"Samsung"} },
			run:  func(r *executor.Result, _ *ledger.RunLedger) { r.NotCovered = []string{"SAMSUNG"} },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := goodItem()
			if tt.item != nil {
				tt.item(&it)
			}
			res, led := goodRun()
			if tt.run != nil {
				tt.run(res, led)
			}
			checks, _ := CheckResult(it, res, led)
			got := failedChecks(checks)
			for name, want := range tt.fails {
				reason, ok := got[name]
				if !ok {
					t.Errorf("check %s passed; want it to fail with %q", name, want)
				} else if !strings.Contains(reason, want) {
					t.Errorf("check %s failed with %q; want it to say %q", name, reason, want)
				}
			}
			for name, reason := range got {
				if _, ok := tt.fails[name]; !ok {
					t.Errorf("check %s failed unexpectedly: %s", name, reason)
				}
			}
		})
	}
}

func TestCheckResultLeavesOutWhatDoesNotApply(t *testing.T) {
	it := GoldenItem{ID: "g080", Class: ClassUnanswerable, Question: "What was Meta's revenue in 2030?",
		Status: []ledger.RunStatus{ledger.StatusInsufficientEvidence}, Note: "n"}
	res := &executor.Result{Status: ledger.StatusInsufficientEvidence}
	checks, valid := CheckResult(it, res, &ledger.RunLedger{})
	var names []string
	for _, c := range checks {
		names = append(names, c.Name)
		if !c.Passed {
			t.Errorf("%s failed: %s", c.Name, c.Reason)
		}
	}
	if got := strings.Join(names, ","); got != "status,refusal,citations_valid,budget" || valid != 0 {
		t.Errorf("checks %s, %d valid citations; want status,refusal,citations_valid,budget and 0", got, valid)
	}
}

func TestFillResult(t *testing.T) {
	it := goodItem()
	res, led := goodRun()
	res.Budget.Used["input_tokens"] = "1200"
	res.Budget.Used["output_tokens"] = "300"
	res.Budget.Used["spend_usd"] = "0.00042"
	var r ItemResult
	fillResult(&r, it, res, led)
	if !r.Passed || r.Citations != 2 || r.ValidCitations != 2 || r.InputTokens != 1200 || r.OutputTokens != 300 || r.CostUSD != "0.00042" {
		t.Errorf("result %+v; want a pass with 2 valid citations, 1200+300 tokens, $0.00042", r)
	}
	if r.IssuersCovered == nil || *r.IssuersCovered != 1 || strings.Join(r.CitedIssuers, ",") != "AAPL,NVDA" ||
		strings.Join(r.ToolsCalled, ",") != "lookup_fact,search_filings" {
		t.Errorf("issuers %v %v, tools %v", r.IssuersCovered, r.CitedIssuers, r.ToolsCalled)
	}
	res.Citations = res.Citations[:1]
	fillResult(&r, it, res, led)
	if r.Passed || *r.IssuersCovered != 0.5 {
		t.Errorf("one of two issuers cited: passed %v, covered %v; want a failure and 0.5", r.Passed, *r.IssuersCovered)
	}
}
