package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
)

func TestMain(m *testing.M) {
	code := m.Run()
	corpustest.Cleanup()
	os.Exit(code)
}

func loadGolden(t *testing.T) []GoldenItem {
	t.Helper()
	items, err := LoadGoldenSet(bytes.NewReader(GoldenSetJSONL))
	if err != nil {
		t.Fatalf("the built-in golden set does not load: %v", err)
	}
	return items
}

func loadThresholds(t *testing.T) *Thresholds {
	t.Helper()
	th, err := LoadThresholds(bytes.NewReader(ThresholdsJSON))
	if err != nil {
		t.Fatalf("eval/thresholds.json: %v", err)
	}
	return th
}

// TestGoldenSetShape holds the golden set to what the evaluation relies
// on: enough items, every class represented, comparisons of two and of
// three issuers, and ids in file order so new items go at the end.
func TestGoldenSetShape(t *testing.T) {
	items := loadGolden(t)
	if len(items) < 60 {
		t.Errorf("the golden set has %d items; want at least 60", len(items))
	}
	byClass := map[Class]int{}
	issuers := map[int]int{}
	for i, it := range items {
		byClass[it.Class]++
		if it.Class == ClassComparison {
			issuers[len(it.Issuers)]++
		}
		if i > 0 && it.ID <= items[i-1].ID {
			t.Errorf("%s follows %s: ids must ascend in file order (add new items at the end)", it.ID, items[i-1].ID)
		}
	}
	for _, c := range Classes() {
		if byClass[c] < 5 {
			t.Errorf("class %s has %d items; want at least 5", c, byClass[c])
		}
	}
	if issuers[2] < 3 || issuers[3] < 3 {
		t.Errorf("comparisons by issuer count %v; want at least three of two issuers and three of three", issuers)
	}
}

// TestGoldenEvidenceInCorpus checks every evidence phrase, and each of its
// alternatives, against the text of the filing it names: a phrase the
// filing does not hold could never be cited, and would fail every mode.
func TestGoldenEvidenceInCorpus(t *testing.T) {
	store := corpustest.Store(t)
	ctx := context.Background()
	docs, err := store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	filing := func(e Evidence) (corpus.Document, string, bool) {
		for _, d := range docs {
			if d.Ticker == e.Ticker && d.FiscalYear == e.FiscalYear && d.Form == e.Form {
				if _, ok := texts[d.ID]; !ok {
					full, err := store.Document(ctx, d.ID)
					if err != nil {
						t.Fatal(err)
					}
					texts[d.ID] = full.Text
				}
				return d, texts[d.ID], true
			}
		}
		return corpus.Document{}, "", false
	}
	n := 0
	// The built-in set, and the blind sets measured beside it.
	items := loadGolden(t)
	blind, err := filepath.Glob("golden_blind*.jsonl")
	if err != nil || len(blind) < 17 {
		t.Fatalf("the blind sets: %d files (%v); want at least 17", len(blind), err)
	}
	for _, name := range blind {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		more, err := LoadGoldenSet(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		items = append(items, more...)
	}
	for _, it := range items {
		for _, e := range it.Evidence {
			doc, text, ok := filing(e)
			if !ok {
				t.Errorf("%s: no %s %s FY%d filing in the corpus", it.ID, e.Ticker, e.Form, e.FiscalYear)
				continue
			}
			for _, p := range e.Phrases() {
				one := Evidence{Answer: Answer{Ticker: e.Ticker, FiscalYear: e.FiscalYear, Form: e.Form, Phrase: p}}
				if !one.MatchesText(doc, text) {
					t.Errorf("%s: %s %s FY%d does not hold %q", it.ID, e.Ticker, e.Form, e.FiscalYear, p)
				}
				n++
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d evidence phrases checked; the golden set names too little evidence", n)
	}
}

// TestGoldenLayer1 is the CI evaluation: every golden item, and every
// paraphrase of a test-half item, in rules, baseline and auto mode over the
// sample corpus, checked exactly, and compared with eval/thresholds.json:
// the whole set's figures, and the test half's and the paraphrases' pass
// rate, false_supported and citation_support. A figure past its threshold
// fails the test and names the items that failed, with why.
func TestGoldenLayer1(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the golden set over the whole sample corpus")
	}
	store := corpustest.Store(t)
	eng, lg := corpusEngine(t, store)
	golden := loadGolden(t)
	halves, err := LoadGoldenSplit()
	if err != nil {
		t.Fatal(err)
	}
	paras, err := LoadBuiltinParaphrases()
	if err != nil {
		t.Fatal(err)
	}
	items := append(slices.Clone(golden), paras...)
	modes := []ledger.Mode{ledger.ModeRules, ledger.ModeBaseline, executor.ModeAuto}
	results, err := RunGolden(context.Background(), eng, lg, items, &RunOpts{Modes: modes, Concurrency: 8, Halves: halves})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(modes)*len(items) {
		t.Fatalf("%d results for %d items in %d modes", len(results), len(items), len(modes))
	}
	summary := Summarize(results)
	if !slices.Equal(summary.Splits, Splits()) {
		t.Fatalf("splits %v; want every item in %v", summary.Splits, Splits())
	}
	var table strings.Builder
	if err := WriteTable(&table, summary); err != nil {
		t.Fatal(err)
	}
	t.Logf("layer 1 over the %d golden items:\n%s", len(golden), table.String())
	table.Reset()
	if err := WriteSplitTable(&table, summary); err != nil {
		t.Fatal(err)
	}
	t.Logf("by split (%d paraphrases of the test half); false sup = false/supported, cite sup = supporting/citations:\n%s", len(paras), table.String())

	scores, err := RunRetrieval(context.Background(), corpus.NewSearcher(store, corpus.HashEmbedder{}), GoldenRetrievalSet(golden), Methods, []int{5, 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scores {
		t.Logf("retrieval %-18s recall@5 %.3f recall@10 %.3f nDCG@5 %.3f nDCG@10 %.3f MRR %.3f issuers %.3f",
			s.Method, s.Recall[5], s.Recall[10], s.NDCG[5], s.NDCG[10], s.MRR, s.IssuerCoverage)
	}

	violations := loadThresholds(t).Check(summary, scores)
	for _, v := range violations {
		t.Errorf("regression: %s", v)
	}
	if len(violations) > 0 {
		for _, r := range results {
			if !r.Passed {
				var why []string
				for _, c := range r.Failed() {
					why = append(why, c.Name+": "+c.Reason)
				}
				t.Logf("failed %s %s %s (%s): %s", r.ID, r.Split.Label(), r.Mode, r.Status, strings.Join(why, "; "))
			}
		}
	}

	// Whatever the thresholds say, these hold for every run.
	for _, r := range results {
		if c, ok := r.Check(CheckCitations); !ok || !c.Passed {
			t.Errorf("%s %s: invalid citations: %s", r.ID, r.Mode, c.Reason)
		}
		if c, ok := r.Check(CheckBudget); !ok || !c.Passed {
			t.Errorf("%s %s: budget exceeded: %s", r.ID, r.Mode, c.Reason)
		}
		if r.Error != "" {
			t.Errorf("%s %s: the engine failed: %s", r.ID, r.Mode, r.Error)
		}
	}
}

// corpusEngine is an engine over store, with an embedded ledger of its own.
func corpusEngine(t *testing.T, store corpus.Store) (*executor.Engine, *embeddedledger.Store) {
	t.Helper()
	lg, err := embeddedledger.Open(t.TempDir(), &embeddedledger.Config{Tenant: "eval"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	eng, err := executor.New(executor.Config{
		Store: store, Searcher: corpus.NewSearcher(store, corpus.HashEmbedder{}), Ledger: lg, Tenant: "eval",
	})
	if err != nil {
		t.Fatal(err)
	}
	return eng, lg
}

// TestThresholdsCoverEveryClass makes sure the committed thresholds guard
// every class in every CI mode, and the run-wide invariants.
func TestThresholdsCoverEveryClass(t *testing.T) {
	th := loadThresholds(t)
	has := func(mode ledger.Mode, class Class, m Metric) bool {
		return slices.ContainsFunc(th.Golden, func(x Threshold) bool {
			return x.Split == SplitAll && x.Mode == mode && x.Class == class && x.Metric == m
		})
	}
	for _, mode := range []ledger.Mode{ledger.ModeRules, ledger.ModeBaseline, executor.ModeAuto} {
		for _, c := range append(Classes(), "") {
			if !has(mode, c, MetricPassRate) {
				t.Errorf("no pass_rate threshold for %s/%s", mode, c)
			}
		}
		for _, m := range []Metric{MetricCitationValidity, MetricRefusalAccuracy, MetricBudgetCompliance, MetricStatusAccuracy} {
			if !has(mode, "", m) {
				t.Errorf("no %s threshold for %s", m, mode)
			}
		}
	}
	// The reported figures: the test half and its paraphrases, per mode.
	hasSplit := func(split Split, mode ledger.Mode, m Metric) bool {
		return slices.ContainsFunc(th.Golden, func(x Threshold) bool {
			return x.Split == split && x.Mode == mode && x.Class == "" && x.Metric == m
		})
	}
	for _, split := range []Split{SplitTest, SplitParaphrase} {
		for _, mode := range []ledger.Mode{ledger.ModeRules, ledger.ModeBaseline, executor.ModeAuto} {
			for _, m := range []Metric{MetricPassRate, MetricFalseSupported, MetricCitationSupport} {
				if !hasSplit(split, mode, m) {
					t.Errorf("no %s threshold for %s on the %s split", m, mode, split)
				}
			}
		}
	}
	for _, x := range th.Golden {
		if x.Metric == MetricFalseSupported && !strings.Contains(x.Reason, "goal is 0") {
			t.Errorf("%s: the reason should say the goal is 0 (%q)", x.Name(), x.Reason)
		}
		if x.Metric == MetricCitationValidity || x.Metric == MetricBudgetCompliance {
			if x.Min != 1 {
				t.Errorf("%s is %v; citations must always be valid and budgets never exceeded (1.0)", x.Name(), x.Min)
			}
		}
	}
	if len(th.Retrieval) == 0 {
		t.Error("no retrieval thresholds")
	}
}

func TestLoadGoldenSetErrors(t *testing.T) {
	ok := `{"id":"g001","class":"fact","question":"What was NVIDIA's revenue?","status":["supported"],"issuers":["NVDA"],"note":"n"}`
	if _, err := LoadGoldenSet(strings.NewReader(ok)); err != nil {
		t.Fatalf("a valid item: %v", err)
	}
	para := strings.Replace(ok, `"id":"g001"`, `"id":"p001","paraphrase_of":"g001"`, 1)
	if _, err := LoadGoldenSet(strings.NewReader(para)); err != nil {
		t.Fatalf("a valid paraphrase: %v", err)
	}
	for name, in := range map[string]string{
		"bad id":                  strings.Replace(ok, `"g001"`, `"x1"`, 1),
		"p id, no paraphrase_of":  strings.Replace(ok, `"g001"`, `"p001"`, 1),
		"paraphrase with a g id":  strings.Replace(ok, `"id":"g001"`, `"id":"g001","paraphrase_of":"g001"`, 1),
		"paraphrase of a p id":    strings.Replace(ok, `"id":"g001"`, `"id":"p001","paraphrase_of":"p001"`, 1),
		"paraphrase digits":       strings.Replace(ok, `"id":"g001"`, `"id":"p002","paraphrase_of":"g001"`, 1),
		"duplicate id":            ok + "\n" + ok,
		"unknown class":           strings.Replace(ok, `"fact"`, `"poetry"`, 1),
		"unknown field":           strings.Replace(ok, `"note"`, `"notes"`, 1),
		"no note":                 strings.Replace(ok, `"note":"n"`, `"note":" "`, 1),
		"no status":               strings.Replace(ok, `["supported"]`, `[]`, 1),
		"running status":          strings.Replace(ok, `["supported"]`, `["running"]`, 1),
		"refused non-refusal":     strings.Replace(ok, `["supported"]`, `["refused"]`, 1),
		"refusal answered":        `{"id":"g110","class":"refusal","question":"Should I buy NVDA?","status":["supported"],"issuers":[],"note":"n"}`,
		"refusal with issuer":     `{"id":"g110","class":"refusal","question":"Should I buy NVDA?","status":["refused"],"issuers":["NVDA"],"note":"n"}`,
		"bad ticker":              strings.Replace(ok, `["NVDA"]`, `["nvda corp"]`, 1),
		"out of corpus unnamed":   `{"id":"g100","class":"out_of_corpus","question":"Tesla revenue?","status":["insufficient_evidence"],"issuers":[],"note":"n"}`,
		"figure without unit":     strings.Replace(ok, `"note"`, `"figures":[{"label":"r","value":1,"period":"2023"}],"note"`, 1),
		"figure without period":   strings.Replace(ok, `"note"`, `"figures":[{"label":"r","value":1,"unit":"usd"}],"note"`, 1),
		"zero figure":             strings.Replace(ok, `"note"`, `"figures":[{"label":"r","value":0,"unit":"usd","period":"2023"}],"note"`, 1),
		"evidence without filing": strings.Replace(ok, `"note"`, `"evidence":[{"ticker":"NVDA","phrase":"revenue was up"}],"note"`, 1),
		"one-word phrase":         strings.Replace(ok, `"note"`, `"evidence":[{"ticker":"NVDA","fiscal_year":2023,"form":"10-K","phrase":"revenue"}],"note"`, 1),
		"unknown tool":            strings.Replace(ok, `"note"`, `"tools":["web_search"],"note"`, 1),
		"empty":                   "# only a comment\n",
		"not json":                "{",
	} {
		if _, err := LoadGoldenSet(strings.NewReader(in)); err == nil {
			t.Errorf("%s: loaded; want an error", name)
		}
	}
}

func TestGoldenRetrievalSet(t *testing.T) {
	items := []GoldenItem{
		{ID: "g001", Question: "q1"},
		{ID: "g002", Question: "Compare NVIDIA and Apple", Evidence: []Evidence{
			{Answer: Answer{Ticker: "NVDA", FiscalYear: 2023, Form: "10-K", Phrase: "inventory charges"}, Alternatives: []string{"inventory provisions"}},
			{Answer: Answer{Ticker: "AAPL", FiscalYear: 2024, Form: "10-K", Phrase: "cost savings"}},
			{Answer: Answer{Ticker: "AAPL", FiscalYear: 2024, Form: "10-K", Phrase: "cost savings"}},
		}},
		{ID: "g003", Question: "q3", Evidence: []Evidence{
			{Answer: Answer{Ticker: "AAPL", FiscalYear: 2025, Form: "10-Q", Phrase: "due primarily to tariffs"}},
			{Answer: Answer{Ticker: "AAPL", FiscalYear: 2024, Form: "10-K", Phrase: "downward pressure"}},
		}},
	}
	set := GoldenRetrievalSet(items)
	if len(set) != 2 {
		t.Fatalf("%d queries; want the two items that name evidence", len(set))
	}
	q := set[0]
	if q.ID != "g002" || q.Query != "Compare NVIDIA and Apple" || strings.Join(q.Tickers, ",") != "NVDA,AAPL" ||
		len(q.FiscalYears) != 2 || q.FiscalYears[0] != 2023 || q.Form != "10-K" || len(q.Answers) != 2 {
		t.Errorf("query %+v; want the question filtered to NVDA and AAPL, 2023 and 2024, 10-K, with two answers", q)
	}
	if set[1].Form != "" {
		t.Errorf("query over a 10-Q and a 10-K has form %q; want none", set[1].Form)
	}
}
