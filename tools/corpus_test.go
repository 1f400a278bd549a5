package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
)

// The tests in this file run the tools on the sample corpus.

func TestSearchFilingsCorpus(t *testing.T) {
	store := corpustest.Store(t)
	t.Parallel()
	tests := []struct {
		name       string
		scope      Scope
		args       map[string]any
		tickers    []string
		period     string // every result's, when set
		section    string // every result's, when set
		candidates int
	}{
		{
			name:       "every ticker of the scope",
			scope:      Scope{Tickers: []string{"AAPL", "NVDA"}},
			args:       map[string]any{"query": "gross margin decreased", "k": 8},
			tickers:    []string{"AAPL", "NVDA"},
			candidates: 2 * (8 + 40),
		},
		{
			name:       "the scope's fiscal years",
			scope:      Scope{Tickers: []string{"AAPL", "NVDA"}, FiscalYears: []int{2024}},
			args:       map[string]any{"query": "net sales iPhone", "tickers": []string{"aapl"}},
			tickers:    []string{"AAPL"},
			period:     "FY2024",
			candidates: 6 + 40,
		},
		{
			name:       "section and form",
			scope:      Scope{Tickers: []string{"NVDA"}},
			args:       map[string]any{"query": "data center demand", "section": "7", "form": "10-k", "k": 5},
			tickers:    []string{"NVDA"},
			section:    "Item 7",
			candidates: 5 + 40,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, store, tt.scope)
			out := run(t, env, "s1", SearchFilings, tt.args)
			if len(out.Evidence) == 0 {
				t.Fatalf("no results:\n%s", out.Text)
			}
			checkRegistered(t, env, out)
			checkBounds(t, out.Text)
			seen := map[string]bool{}
			for _, e := range out.Evidence {
				seen[e.Ticker] = true
				if !tt.scope.hasTicker(e.Ticker) || e.Kind != ledger.KindPassage {
					t.Errorf("evidence %s of %s (%s) is outside the scope", e.ID, e.Ticker, e.Kind)
				}
				if tt.period != "" && e.Period != tt.period {
					t.Errorf("evidence %s is of %s, want %s", e.ID, e.Period, tt.period)
				}
				if tt.section != "" && e.Section != tt.section {
					t.Errorf("evidence %s is in %q, want %q", e.ID, e.Section, tt.section)
				}
				if e.Form != "10-K" && e.Form != "10-Q" {
					t.Errorf("evidence %s has form %q", e.ID, e.Form)
				}
			}
			for _, tk := range tt.tickers {
				if !seen[tk] {
					t.Errorf("no result of %s; interleaving should give each ticker a place", tk)
				}
			}
			if out.CandidatesSeen != tt.candidates {
				t.Errorf("CandidatesSeen = %d, want %d", out.CandidatesSeen, tt.candidates)
			}
			l := load(t, env)
			if len(l.Searches) != 1 {
				t.Fatalf("%d searches recorded", len(l.Searches))
			}
			s := l.Searches[0]
			if s.CandidatesSeen != tt.candidates || s.Filters["tickers"] != strings.Join(tt.tickers, ",") ||
				s.NewEvidence != len(out.Evidence) || s.Query != tt.args["query"] {
				t.Errorf("search history %+v", s)
			}
			if len(l.ToolCalls) != 1 || l.ToolCalls[0].Error != "" {
				t.Errorf("tool calls %+v", l.ToolCalls)
			}
		})
	}
}

func TestReadChunksCorpus(t *testing.T) {
	store := corpustest.Store(t)
	t.Parallel()
	env := newEnv(t, store, Scope{Tickers: []string{"AAPL"}})
	hits := run(t, env, "s1", SearchFilings, map[string]any{"query": "foreign currency exchange rates", "k": 3})
	var ids []string
	for _, e := range hits.Evidence {
		ids = append(ids, hits.chunkOf(t, e.ID))
	}
	out := run(t, env, "r1", ReadChunks, map[string]any{"ids": ids})
	checkRegistered(t, env, out)
	if len(out.Evidence) != len(hits.Evidence) {
		t.Fatalf("%d chunks read, want %d", len(out.Evidence), len(hits.Evidence))
	}
	for i := range out.Evidence {
		if out.Evidence[i].ID != hits.Evidence[i].ID {
			t.Errorf("chunk %d: evidence %s, want the span the search found, %s", i, out.Evidence[i].ID, hits.Evidence[i].ID)
		}
	}
	if out.Record.NewEvidence != 0 {
		t.Errorf("reading found spans again counted %d as new evidence", out.Record.NewEvidence)
	}
	if out.CandidatesSeen != len(ids) {
		t.Errorf("CandidatesSeen = %d, want %d", out.CandidatesSeen, len(ids))
	}
}

// chunkOf returns the chunk id the response shows for an evidence id.
func (o *Output) chunkOf(t *testing.T, evidenceID string) string {
	t.Helper()
	i := strings.Index(o.Text, `<evidence id="`+evidenceID+`"`)
	if i < 0 {
		t.Fatalf("the response does not show evidence %s", evidenceID)
	}
	tag := o.Text[i : i+strings.IndexByte(o.Text[i:], '>')]
	m := chunkAttr.FindStringSubmatch(tag)
	if m == nil {
		t.Fatalf("the response shows evidence %s without its chunk: %s", evidenceID, tag)
	}
	return m[1]
}

func TestReadChunksCorpusScope(t *testing.T) {
	store := corpustest.Store(t)
	t.Parallel()
	nvda := newEnv(t, store, Scope{Tickers: []string{"NVDA"}})
	hits := run(t, nvda, "s1", SearchFilings, map[string]any{"query": "gaming revenue", "k": 1})
	id := hits.chunkOf(t, hits.Evidence[0].ID)

	env := newEnv(t, store, Scope{Tickers: []string{"AAPL"}})
	for _, tool := range []string{ReadChunks, ReadSurrounding} {
		args := `{"ids":["` + id + `"]}`
		if tool == ReadSurrounding {
			args = `{"id":"` + id + `","before":1}`
		}
		out, err := Run(context.Background(), env, Call{ID: tool, Tool: tool, Args: json.RawMessage(args)})
		if !errors.Is(err, ErrOutOfScope) {
			t.Fatalf("%s of an NVDA chunk in an AAPL run: %v", tool, err)
		}
		if strings.Contains(out.Text, hits.Evidence[0].Excerpt[:40]) {
			t.Errorf("%s showed the out-of-scope text", tool)
		}
	}
	l := load(t, env)
	if len(l.ToolCalls) != 2 || len(l.Evidence) != 0 {
		t.Fatalf("recorded %d calls and %d evidence; want 2 failed calls and none", len(l.ToolCalls), len(l.Evidence))
	}
	for _, c := range l.ToolCalls {
		if !strings.Contains(c.Error, "outside the run's scope") {
			t.Errorf("call %s recorded with error %q", c.ID, c.Error)
		}
	}
}

func TestLookupFactCorpus(t *testing.T) {
	store := corpustest.Store(t)
	t.Parallel()
	tests := []struct {
		name          string
		args          map[string]any
		concept       string
		value, period string
		shown         string // the value as the filing displays it
		prior         string // the comparative's value
	}{
		{
			name:    "AAPL revenue by label",
			args:    map[string]any{"ticker": "AAPL", "label": "revenue", "period": "FY2024"},
			concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
			value:   "391035000000", period: "2023-10-01/2024-09-28", shown: "391,035", prior: "383285000000",
		},
		{
			name:    "AAPL revenue, latest annual period",
			args:    map[string]any{"ticker": "AAPL", "label": "total net sales"},
			concept: "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
			value:   "391035000000", period: "2023-10-01/2024-09-28", shown: "391,035", prior: "383285000000",
		},
		{
			name:    "AAPL gross profit",
			args:    map[string]any{"ticker": "AAPL", "label": "gross profit", "period": "FY2024"},
			concept: "us-gaap:GrossProfit",
			value:   "180683000000", period: "2023-10-01/2024-09-28", shown: "180,683", prior: "169148000000",
		},
		{
			name:    "NVDA revenue by concept",
			args:    map[string]any{"ticker": "NVDA", "concept": "us-gaap:Revenues", "period": "FY2023"},
			concept: "us-gaap:Revenues",
			value:   "26974000000", period: "2022-01-31/2023-01-29", shown: "26,974", prior: "26914000000",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, store, Scope{Tickers: []string{"AAPL", "NVDA"}})
			out := run(t, env, "l1", LookupFact, tt.args)
			checkRegistered(t, env, out)
			checkBounds(t, out.Text)
			if len(out.Facts) != 2 {
				t.Fatalf("%d facts, want the value and its comparative:\n%s", len(out.Facts), out.Text)
			}
			f, prior := out.Facts[0], out.Facts[1]
			if f.Concept != tt.concept || f.Value.String() != tt.value || f.Period != tt.period || f.Unit != "USD" {
				t.Errorf("fact %+v, want %s = %s USD for %s", f, tt.concept, tt.value, tt.period)
			}
			if prior.Concept != tt.concept || prior.Value.String() != tt.prior {
				t.Errorf("comparative %+v, want %s", prior, tt.prior)
			}
			var ev ledger.Evidence
			for _, e := range out.Evidence {
				if e.ID == f.EvidenceID {
					ev = e
				}
			}
			if ev.Kind != ledger.KindFact || !strings.Contains(ev.Excerpt, tt.shown) || strings.Contains(ev.Excerpt, "\n") {
				t.Errorf("fact evidence %q (%s): want the line showing %s", ev.Excerpt, ev.Kind, tt.shown)
			}
			if ev.Ticker != tt.args["ticker"] || ev.Form != "10-K" || ev.Page == 0 || ev.Section == "" {
				t.Errorf("fact evidence %+v lacks its filing's ticker, form, page or section", ev)
			}
			if !strings.Contains(out.Text, tt.value+" USD") || !strings.Contains(out.Text, tt.shown) {
				t.Errorf("the response does not show the value:\n%s", out.Text)
			}
			if out.CandidatesSeen == 0 || out.CandidatesSeen > MaxFactsSeen {
				t.Errorf("CandidatesSeen = %d", out.CandidatesSeen)
			}
		})
	}
}

func TestCalculateCorpus(t *testing.T) {
	store := corpustest.Store(t)
	t.Parallel()
	env := newEnv(t, store, Scope{Tickers: []string{"AAPL", "NVDA"}})
	margin := map[string]any{"expression": "gross_profit / revenue", "facts": map[string]any{
		"gross_profit": map[string]any{"ticker": "AAPL", "concept": "GrossProfit", "period": "FY2024"},
		"revenue":      map[string]any{"ticker": "AAPL", "concept": "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "period": "FY2024"},
	}}

	// Before the facts are looked up, calculate has nothing to use.
	_, err := Run(context.Background(), env, Call{ID: "c0", Tool: Calculate, Args: mustJSON(t, margin)})
	var ae *ArgError
	if !errors.As(err, &ae) || !strings.HasPrefix(ae.Field, "facts.") || !strings.Contains(err.Error(), "lookup_fact") {
		t.Fatalf("calculate before lookup: %v; want an ArgError naming the fact", err)
	}

	rev := run(t, env, "l1", LookupFact, map[string]any{"ticker": "AAPL", "label": "revenue", "period": "FY2024"})
	gp := run(t, env, "l2", LookupFact, map[string]any{"ticker": "AAPL", "label": "gross profit", "period": "FY2024"})
	out := run(t, env, "c1", Calculate, margin)
	want := dec("180683000000").DivRound(dec("391035000000"), 10)
	c := out.Calculation
	if c == nil || !c.Result.Equal(want) {
		t.Fatalf("gross margin %+v, want %s", c, want)
	}
	if c.Inputs["gross_profit"] != gp.Facts[0].ID || c.Inputs["revenue"] != rev.Facts[0].ID ||
		c.Values["gross_profit"] != "180683000000" || c.Values["revenue"] != "391035000000" {
		t.Errorf("inputs %v, values %v", c.Inputs, c.Values)
	}
	if !strings.Contains(out.Text, "gross_profit / revenue = 180683000000 / 391035000000 = "+want.String()) {
		t.Errorf("response:\n%s", out.Text)
	}
	if len(out.Evidence) != 0 || len(out.Facts) != 0 || out.Record.NewEvidence != 0 {
		t.Errorf("calculate registered evidence: %+v", out.Record)
	}

	// The prior year's comparative, looked up with FY2024's facts.
	growth := map[string]any{"expression": "(now - before) / before", "facts": map[string]any{
		"now":    map[string]any{"ticker": "AAPL", "concept": "RevenueFromContractWithCustomerExcludingAssessedTax", "period": "FY2024"},
		"before": map[string]any{"ticker": "AAPL", "concept": "RevenueFromContractWithCustomerExcludingAssessedTax", "period": "FY2023"},
	}}
	out = run(t, env, "c2", Calculate, growth)
	if want := dec("7750000000").DivRound(dec("383285000000"), 10); !out.Calculation.Result.Equal(want) {
		t.Errorf("revenue growth %s, want %s", out.Calculation.Result, want)
	}

	// A fact of another issuer the run never looked up.
	nvda := map[string]any{"expression": "gp", "facts": map[string]any{"gp": map[string]any{"ticker": "NVDA", "concept": "GrossProfit", "period": "FY2023"}}}
	if _, err := Run(context.Background(), env, Call{ID: "c3", Tool: Calculate, Args: mustJSON(t, nvda)}); !errors.As(err, &ae) || ae.Field != "facts.gp" {
		t.Errorf("calculate with a fact not looked up: %v", err)
	}
	// Division by zero is an error, and recorded.
	zero := map[string]any{"expression": "revenue / (revenue - revenue)", "facts": map[string]any{
		"revenue": map[string]any{"ticker": "AAPL", "concept": "RevenueFromContractWithCustomerExcludingAssessedTax", "period": "FY2024"},
	}}
	if _, err := Run(context.Background(), env, Call{ID: "c4", Tool: Calculate, Args: mustJSON(t, zero)}); !errors.Is(err, ErrDivisionByZero) {
		t.Errorf("division by zero: %v", err)
	}
	l := load(t, env)
	errs := map[string]bool{}
	for _, c := range l.ToolCalls {
		errs[c.ID] = c.Error != ""
	}
	for id, failed := range map[string]bool{"c0": true, "l1": false, "l2": false, "c1": false, "c2": false, "c3": true, "c4": true} {
		if got, ok := errs[id]; !ok || got != failed {
			t.Errorf("call %s recorded %v with error %v; want failed = %v", id, ok, got, failed)
		}
	}
}

// A quarter's column asked of a 10-Q is the quarter's or nothing: its
// revenue for the three months, but no share repurchases, which its
// cash-flow statement prints for the nine months alone.
func TestLookupFactQuarterColumn(t *testing.T) {
	store := corpustest.Store(t)
	t.Parallel()
	env := newEnv(t, store, Scope{Tickers: []string{"AAPL"}})
	out := run(t, env, "q1", LookupFact, map[string]any{"ticker": "AAPL", "label": "revenue", "period": "FY2025", "quarter": true})
	if len(out.Facts) == 0 || out.Facts[0].Period != "2025-03-30/2025-06-28" {
		t.Errorf("revenue of the June 2025 quarter: facts %+v, want the three months to 2025-06-28", out.Facts)
	}
	out = run(t, env, "q2", LookupFact, map[string]any{"ticker": "AAPL", "concept": "us-gaap:PaymentsForRepurchaseOfCommonStock", "period": "FY2025", "quarter": true})
	if len(out.Facts) != 0 {
		t.Errorf("share repurchases of the June 2025 quarter: facts %+v, want none (the 10-Q prints nine months only)", out.Facts)
	}
	out = run(t, env, "q3", LookupFact, map[string]any{"ticker": "AAPL", "concept": "us-gaap:PaymentsForRepurchaseOfCommonStock", "period": "FY2025"})
	if len(out.Facts) == 0 {
		t.Errorf("share repurchases of FY2025 without the quarter asked: no facts, want the nine months")
	}
}
