package eval

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/llm/llmtest"
	"github.com/ledgerline/research/planner"
)

const judgeModel = "gpt-4.1-mini"

func newJudge(t *testing.T, srv *llmtest.Server, cfg JudgeConfig) *Judge {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = judgeModel
	}
	cfg.Backoff = 1
	j, err := NewJudge(srv.Client(t), configs.Prices(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func judgedResult() *executor.Result {
	return &executor.Result{
		Status: ledger.StatusSupported,
		Answer: "NVIDIA's revenue in fiscal 2023 was $26.97 billion [1].",
		Citations: []executor.Citation{{Index: 1, EvidenceID: "E1", Ticker: "NVDA", Form: "10-K", FiscalYear: 2023,
			Excerpt: "Revenue | 26,974 | 26,914 | 16,675"}},
	}
}

func judgeReply(faith, rel float64) llmtest.Reply {
	b, _ := json.Marshal(map[string]any{"faithfulness": faith, "relevance": rel, "unsupported_claims": []string{}, "reasoning": "The figure is in the excerpt."})
	return llmtest.Reply{Content: string(b), Usage: llm.Usage{InputTokens: 900, OutputTokens: 40}}
}

func TestJudgeScores(t *testing.T) {
	srv := llmtest.New(t)
	srv.On(judgeSchemaName, judgeReply(0.9, 1))
	j := newJudge(t, srv, JudgeConfig{ModelUnderTest: "gpt-4o-mini"})
	it := GoldenItem{ID: "g001", Question: "What was NVIDIA's revenue in fiscal year 2023?"}
	s := j.Score(context.Background(), it, judgedResult())
	if !s.Scored() || s.Faithfulness != 0.9 || s.Relevance != 1 || s.Model != judgeModel {
		t.Fatalf("score %+v; want faithfulness 0.9, relevance 1 by %s", s, judgeModel)
	}
	want, err := budget.ModelUsage(configs.Prices(), judgeModel, 900, 40)
	if err != nil {
		t.Fatal(err)
	}
	if s.InputTokens != 900 || s.OutputTokens != 40 || s.CostUSD != want.Get(budget.SpendUSD).String() || s.CostUSD == "0" {
		t.Errorf("tokens %d+%d cost %s; want 900+40 at %s", s.InputTokens, s.OutputTokens, s.CostUSD, want.Get(budget.SpendUSD))
	}
	if !j.Spent().Equal(want.Get(budget.SpendUSD)) {
		t.Errorf("spent %s; want %s", j.Spent(), want.Get(budget.SpendUSD))
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests; want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != judgeModel || !r.Strict || r.Temperature != 0 || r.MaxTokens != DefaultJudgeTokens {
		t.Errorf("request model %s strict %v temperature %v max tokens %d; want %s, strict, 0, %d", r.Model, r.Strict, r.Temperature, r.MaxTokens, judgeModel, DefaultJudgeTokens)
	}
	prompt := r.Messages[len(r.Messages)-1].Content
	for _, want := range []string{it.Question, "$26.97 billion [1]", `<excerpt index="1" ticker="NVDA"`, "Revenue | 26,974"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
}

func TestNewJudgeErrors(t *testing.T) {
	srv := llmtest.New(t)
	_, err := NewJudge(srv.Client(t), configs.Prices(), JudgeConfig{Model: "gpt-4o-mini", ModelUnderTest: "GPT-4o-mini"})
	if !errors.Is(err, ErrSameModel) {
		t.Errorf("judge of its own answers: %v; want ErrSameModel", err)
	}
	if _, err := NewJudge(srv.Client(t), configs.Prices(), JudgeConfig{Model: "no-such-model"}); err == nil || !strings.Contains(err.Error(), "prices.json") {
		t.Errorf("unpriced judge model: %v; want an error naming the price table", err)
	}
	if _, err := NewJudge(srv.Client(t), configs.Prices(), JudgeConfig{}); err == nil {
		t.Error("a judge without a model was accepted")
	}
	if _, err := NewJudge(nil, configs.Prices(), JudgeConfig{Model: judgeModel}); err == nil {
		t.Error("a judge without a caller was accepted")
	}
}

func TestJudgeSkipsAndFailures(t *testing.T) {
	it := GoldenItem{ID: "g001", Question: "What was NVIDIA's revenue?"}
	t.Run("refusal", func(t *testing.T) {
		srv := llmtest.New(t)
		s := newJudge(t, srv, JudgeConfig{}).Score(context.Background(), it, &executor.Result{Status: ledger.StatusRefused})
		if s.Scored() || !strings.Contains(s.Skipped, "refused") || len(srv.Requests()) != 0 {
			t.Errorf("score %+v after %d requests; want a skip without a call", s, len(srv.Requests()))
		}
	})
	t.Run("no result", func(t *testing.T) {
		srv := llmtest.New(t)
		if s := newJudge(t, srv, JudgeConfig{}).Score(context.Background(), it, nil); s.Skipped == "" {
			t.Errorf("score %+v; want a skip", s)
		}
	})
	t.Run("transient failure is retried", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.On(judgeSchemaName, llmtest.Reply{Status: 503, Content: "busy"}, judgeReply(1, 0.5))
		s := newJudge(t, srv, JudgeConfig{}).Score(context.Background(), it, judgedResult())
		if !s.Scored() || s.Relevance != 0.5 || srv.Count(judgeSchemaName) != 2 {
			t.Errorf("score %+v after %d calls; want the second attempt's judgment", s, srv.Count(judgeSchemaName))
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.On(judgeSchemaName, llmtest.Reply{Content: "looks fine to me"})
		if s := newJudge(t, srv, JudgeConfig{}).Score(context.Background(), it, judgedResult()); !strings.Contains(s.Error, "not JSON") {
			t.Errorf("score %+v; want an error saying the reply is not JSON", s)
		}
	})
	t.Run("out of range", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.On(judgeSchemaName, judgeReply(1.5, 1))
		if s := newJudge(t, srv, JudgeConfig{}).Score(context.Background(), it, judgedResult()); !strings.Contains(s.Error, "outside 0 to 1") {
			t.Errorf("score %+v; want a range error", s)
		}
	})
	t.Run("cut at the token limit", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.On(judgeSchemaName, llmtest.Reply{Content: strings.Repeat("x", 4000)})
		s := newJudge(t, srv, JudgeConfig{MaxTokens: 50}).Score(context.Background(), it, judgedResult())
		if !strings.Contains(s.Error, "token limit") {
			t.Errorf("score %+v; want a truncation error", s)
		}
		if s.CostUSD == "0" {
			t.Error("a truncated judgment cost nothing; the tokens were spent")
		}
	})
	t.Run("spend limit", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.On(judgeSchemaName, judgeReply(1, 1))
		j := newJudge(t, srv, JudgeConfig{SpendLimit: decimal.RequireFromString("0.000001")})
		if s := j.Score(context.Background(), it, judgedResult()); !strings.Contains(s.Skipped, "spend limit") || len(srv.Requests()) != 0 {
			t.Errorf("score %+v after %d requests; want a skip before any call", s, len(srv.Requests()))
		}
	})
}

// TestRunGoldenWithJudge runs two items through the engine with a
// scripted judge: the answered one is judged and costed, the refusal is
// skipped, and the summary carries the judge's means.
func TestRunGoldenWithJudge(t *testing.T) {
	store := corpustest.Store(t)
	lg, err := embeddedledger.Open(t.TempDir(), &embeddedledger.Config{Tenant: "eval"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	eng, err := executor.New(executor.Config{Store: store, Searcher: corpus.NewSearcher(store, corpus.HashEmbedder{}), Ledger: lg, Tenant: "eval"})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	srv.On(judgeSchemaName, judgeReply(0.8, 0.6))
	items := []GoldenItem{
		{ID: "g001", Class: ClassFact, Question: "What was NVIDIA's revenue in fiscal year 2023?", Status: []ledger.RunStatus{ledger.StatusSupported},
			Issuers: []string{"NVDA"}, Figures: []Figure{{Label: "NVIDIA revenue", Value: 26_974e6, Unit: UnitUSD, Period: "2023"}}, Tools: []string{"lookup_fact"}, Note: "n"},
		{ID: "g110", Class: ClassRefusal, Question: "Should I buy NVDA stock now?", Status: []ledger.RunStatus{ledger.StatusRefused}, Note: "n"},
	}
	var seen []string
	res, err := RunGolden(context.Background(), eng, lg, items, &RunOpts{
		Modes: []ledger.Mode{ledger.ModeRules}, Judge: newJudge(t, srv, JudgeConfig{}),
		Progress: func(done, total int, r *ItemResult) { seen = append(seen, r.ID) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || len(seen) != 2 {
		t.Fatalf("%d results, %d progress calls; want 2 and 2", len(res), len(seen))
	}
	fact, refusal := res[0], res[1]
	if !fact.Passed || !refusal.Passed {
		t.Errorf("fact passed %v (%v), refusal passed %v (%v); want both", fact.Passed, fact.Failed(), refusal.Passed, refusal.Failed())
	}
	if !strings.HasPrefix(fact.RunID, "eval-g001-rules-") {
		t.Errorf("run id %q; want it to name the item and mode", fact.RunID)
	}
	if !fact.Judge.Scored() || fact.Judge.Faithfulness != 0.8 || fact.Judge.CostUSD == "0" {
		t.Errorf("fact judged %+v; want a costed judgment", fact.Judge)
	}
	if refusal.Judge == nil || refusal.Judge.Skipped == "" {
		t.Errorf("refusal judged %+v; want it skipped", refusal.Judge)
	}
	row, _ := Summarize(res).Row(ledger.ModeRules, "")
	if row.Judged != 1 || row.Faithfulness != 0.8 || row.Relevance != 0.6 || !row.JudgeCostUSD.IsPositive() {
		t.Errorf("summary judged %d faithfulness %v relevance %v cost %s", row.Judged, row.Faithfulness, row.Relevance, row.JudgeCostUSD)
	}
}

// TestRunGoldenModelMode runs an item in model mode against a scripted
// endpoint: the run's tokens and spend are recorded per item, and the
// checks apply as in the other modes. The model's answer is not usable,
// so the engine answers with the rules synthesizer, as it documents.
func TestRunGoldenModelMode(t *testing.T) {
	store := corpustest.Store(t)
	lg, err := embeddedledger.Open(t.TempDir(), &embeddedledger.Config{Tenant: "eval"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	srv := llmtest.New(t)
	q := "What was NVIDIA's revenue in fiscal year 2023?"
	docs, err := store.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cat := planner.NewCatalog(docs)
	g, err := (&planner.RulesPlanner{}).Plan(context.Background(), q, planner.RouteQuestion(q, cat, nil), cat)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.EncodeModelGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	srv.On("task_graph", llmtest.Reply{Content: plan})
	srv.On("answer", llmtest.Reply{Content: "Revenue was large."})
	eng, err := executor.New(executor.Config{
		Store: store, Searcher: corpus.NewSearcher(store, corpus.HashEmbedder{}), Ledger: lg, Tenant: "eval",
		Model: &executor.ModelConfig{Caller: srv.Client(t), Model: "gpt-4o-mini"}, Prices: configs.Prices(),
	})
	if err != nil {
		t.Fatal(err)
	}
	item := GoldenItem{ID: "g001", Class: ClassFact, Question: q, Status: []ledger.RunStatus{ledger.StatusSupported},
		Issuers: []string{"NVDA"}, Figures: []Figure{{Label: "NVIDIA revenue", Value: 26_974e6, Unit: UnitUSD, Period: "2023"}}, Note: "n"}
	res, err := RunGolden(context.Background(), eng, lg, []GoldenItem{item}, &RunOpts{Modes: []ledger.Mode{ledger.ModeModel}})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Mode != ledger.ModeModel || !r.Passed {
		t.Errorf("model mode: passed %v, failed %v", r.Passed, r.Failed())
	}
	cost, err := decimal.NewFromString(r.CostUSD)
	if err != nil || !cost.IsPositive() || r.InputTokens == 0 || r.OutputTokens == 0 || r.LatencyMS < 0 {
		t.Errorf("tokens %d+%d cost %s; want the model calls' usage, priced", r.InputTokens, r.OutputTokens, r.CostUSD)
	}
	row, _ := Summarize(res).Row(ledger.ModeModel, "")
	if row.Tokens != r.InputTokens+r.OutputTokens || !row.CostUSD.Equal(cost) {
		t.Errorf("summary tokens %d cost %s; want the item's", row.Tokens, row.CostUSD)
	}
}

var updateGolden = flag.Bool("update", false, "rewrite testdata/judge_schema.golden.json from the judgment type")

// TestJudgeSchemaMatchesGolden holds the wire format: the schema sent to
// the judge is byte for byte the one in testdata, and strict. Run with
// -update after changing judgment on purpose.
func TestJudgeSchemaMatchesGolden(t *testing.T) {
	for _, p := range llmtest.StrictSchemaProblems(JudgeSchema()) {
		t.Errorf("judge schema: %s", p)
	}
	llmtest.MatchGolden(t, filepath.Join("testdata", "judge_schema.golden.json"), JudgeSchema(), *updateGolden)
}
