package executor

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm/llmtest"
)

const aiTrap = "Did generative AI improve Netflix's margins?"

// TestOutcomes runs each terminal outcome end to end on the sample corpus
// (or a fixture pair of filings), in rules mode and in model mode against
// the scripted fake endpoint, which plans what the rules planner plans and
// answers by citing the evidence it is shown.
func TestOutcomes(t *testing.T) {
	conflicting := func(t *testing.T) corpus.Store {
		return corpustest.FixtureStore(t,
			corpustest.Filing{Name: "acme-10k.html", Ticker: "ACME", Company: "Acme Corporation", Form: "10-K", Revenue: "1,000", Cost: "600", Item7: acmeDiscussion},
			corpustest.Filing{Name: "acme-10ka.html", Ticker: "ACME", Company: "Acme Corporation", Form: "10-K/A", Revenue: "1,250", Cost: "600", Item7: acmeDiscussion + " Amended."},
		)
	}
	sample := func(t *testing.T) corpus.Store { return corpustest.Store(t) }
	tiny := DefaultLimits()
	tiny.SpendUSD = decimal.RequireFromString("0.0005")
	tiny.FactCalls = 2
	tests := []struct {
		name     string
		store    func(t *testing.T) corpus.Store
		question string
		req      func(*Request)
		want     ledger.RunStatus
		check    func(t *testing.T, res *Result) // rules mode, whose wording the project owns
	}{
		{name: "supported", store: sample, question: threeIssuers, want: ledger.StatusSupported,
			check: func(t *testing.T, res *Result) {
				if got := citedTickers(res); len(got) != 3 {
					t.Errorf("cited %v; want all three issuers", got)
				}
			}},
		{name: "partial", store: func(t *testing.T) corpus.Store {
			return &downStore{Store: corpustest.Store(t), tickers: []string{"GOOGL"}}
		}, question: threeIssuers, want: ledger.StatusPartial},
		{name: "insufficient_evidence", store: sample, question: aiTrap, want: ledger.StatusInsufficientEvidence,
			check: func(t *testing.T, res *Result) {
				if !strings.Contains(res.Answer, "do not state") {
					t.Errorf("the answer must say the filings do not make the claim:\n%s", res.Answer)
				}
			}},
		{name: "conflicting_evidence", store: conflicting, question: "What was Acme's gross margin in fiscal 2024, and what drove it?", want: ledger.StatusConflictingEvidence},
		{name: "budget_exhausted", store: sample, question: threeIssuers, want: ledger.StatusBudgetExhausted,
			req: func(r *Request) { l := tiny; r.Limits = &l }},
		{name: "refused", store: sample, question: "Which stock should I buy, NVDA or AAPL?", want: ledger.StatusRefused},
	}
	for _, mode := range []ledger.Mode{ledger.ModeRules, ledger.ModeModel} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				store := tt.store(t)
				var eng *Engine
				var lg ledger.Store
				var srv *llmtest.Server
				if mode == ledger.ModeModel {
					eng, lg, srv = modelEngine(t, store)
					srv.On("task_graph", llmtest.Reply{Content: rulesPlanReply(t, store, tt.question)})
					srv.OnFunc("answer", citingAnswer(nil))
					srv.On("replan", llmtest.Reply{Content: `{"nodes":[],"reason":"nothing more to try"}`})
				} else {
					eng, lg = newEngineOver(t, store, nil)
				}
				req := Request{Question: tt.question, Mode: mode}
				if tt.req != nil {
					tt.req(&req)
				}
				res, err := eng.Run(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, lg, res)
				if res.Status != tt.want {
					t.Errorf("status %s; want %s\n%s\ngaps %+v\nnotes %v", res.Status, tt.want, res.Answer, res.Gaps, res.Notes)
				}
				if tt.want == ledger.StatusRefused && srv != nil && len(srv.Requests()) != 0 {
					t.Errorf("a refused question reached the model %d times", len(srv.Requests()))
				}
				if tt.check != nil && mode == ledger.ModeRules {
					tt.check(t, res)
				}
			})
		}
	}
}
