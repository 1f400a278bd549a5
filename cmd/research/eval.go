package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/eval"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm"
)

// evalFlags are the flags of both evaluations; each applies to one.
type evalFlags struct {
	sf storeFlags
	mf modelFlags

	// retrieval
	setPath string
	ks      listFlag
	perItem bool

	// golden
	modes       listFlag
	classes     listFlag
	golden      string
	paraphrases string
	out         string
	concurrency int
	budgetUSD   string
	timeout     time.Duration
	judgeModel  string
	judgeUSD    string
	check       bool
	noRetrieval bool
	quiet       bool
}

var (
	retrievalOnly = []string{"set", "per-item"}
	goldenOnly    = []string{"modes", "class", "golden", "paraphrases", "out", "concurrency", "budget-usd", "timeout", "judge-model",
		"judge-budget-usd", "check", "no-retrieval", "quiet", "base-url", "model", "grader-model"}
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", "[retrieval] [flags]",
		"Without an argument: runs the golden set (default: the built-in eval/golden.jsonl) and the\n"+
			"paraphrases of its test half (see --paraphrases) through the engine in each mode (--modes,\n"+
			"default rules,baseline; model needs --base-url and --model), checks every answer exactly\n"+
			"(status, refusals, issuers cited, figures, cited evidence, citations in the ledger and verbatim,\n"+
			"tools called, budget), prints a table per task class and mode over the golden set, and one\n"+
			"that sets the test half, its paraphrases and the tuning half side by side (pass rate,\n"+
			"false_supported: supported answers that fail a check, citation_support: citations that\n"+
			"support the item asked), scores retrieval over the golden items that name their evidence, and\n"+
			"with --out writes report.md, results.jsonl and chart.svg. With --judge-model (a model other\n"+
			"than --model) an LLM judge also scores faithfulness and relevance. Runs are recorded in the\n"+
			"ledger like any other.\n\n"+
			"--paraphrases takes true (the built-in eval/golden_paraphrases.jsonl), false (none) or the\n"+
			"path of a paraphrase file; unset, it is true with the built-in golden set and false with a\n"+
			"custom --golden. Each paraphrase must reword a test-half item of the built-in set (same class).\n"+
			"Items of a custom --golden file that the built-in split does not name are reported as \"all\".\n\n"+
			"retrieval: scores full-text, vector, hybrid and hybrid with per-issuer interleaving on a\n"+
			"retrieval set (default: the built-in eval/retrieval.jsonl) by recall@k, nDCG@k, MRR and\n"+
			"issuer coverage.\n\n"+
			"Both work over the ingested filings (--db, or the embedded store in --data-dir) and ingest nothing.", stderr)
	var f evalFlags
	f.sf.register(fs)
	f.mf.register(fs)
	fs.StringVar(&f.setPath, "set", "", "retrieval: retrieval set JSONL (default: the built-in set)")
	fs.Var(&f.ks, "k", "cut-offs of retrieval scores (default 5,10)")
	fs.BoolVar(&f.perItem, "per-item", false, "retrieval: also print each query's rank of the first relevant result")
	fs.Var(&f.modes, "modes", "modes to run: rules, baseline, model (default rules,baseline)")
	fs.Var(&f.classes, "class", "run only these task classes (comma-separated; default all)")
	fs.StringVar(&f.golden, "golden", "", "golden set JSONL (default: the built-in eval/golden.jsonl); may hold paraphrases")
	fs.StringVar(&f.paraphrases, "paraphrases", "", "paraphrases of the test half to run too: true (built-in eval/golden_paraphrases.jsonl), false, or a JSONL path (default: true with the built-in golden set, false with --golden)")
	fs.StringVar(&f.out, "out", "", "directory to write report.md, results.jsonl and chart.svg into (default: print only)")
	fs.IntVar(&f.concurrency, "concurrency", 4, "runs at once; latency is measured per run, so 1 measures it most faithfully")
	fs.StringVar(&f.budgetUSD, "budget-usd", "0.50", "each run's spend limit in USD (model calls)")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "each run's wall-clock budget")
	fs.StringVar(&f.judgeModel, "judge-model", os.Getenv("RESEARCH_JUDGE_MODEL"), "model of the LLM judge (layer 2), different from --model; empty skips the judge (default $RESEARCH_JUDGE_MODEL)")
	fs.StringVar(&f.judgeUSD, "judge-budget-usd", eval.DefaultJudgeSpend.StringFixed(2), "the judge's spend limit in USD over the whole evaluation")
	fs.BoolVar(&f.check, "check", false, "compare the figures with the committed thresholds (eval/thresholds.json) and fail on a regression")
	fs.BoolVar(&f.noRetrieval, "no-retrieval", false, "skip the retrieval scores over the golden items")
	fs.BoolVar(&f.quiet, "quiet", false, "no per-item progress on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	switch {
	case fs.NArg() == 1 && fs.Arg(0) == "retrieval":
		for _, name := range goldenOnly {
			if set[name] {
				return fmt.Errorf("--%s applies to the golden evaluation, not to eval retrieval", name)
			}
		}
		return runEvalRetrieval(ctx, &f, stdout)
	case fs.NArg() == 0:
		for _, name := range retrievalOnly {
			if set[name] {
				return fmt.Errorf("--%s applies to eval retrieval, not to the golden evaluation", name)
			}
		}
		return runEvalGolden(ctx, &f, args, stdout, stderr)
	}
	fs.Usage()
	return errUsage
}

// cutoffs parses --k.
func (f *evalFlags) cutoffs() ([]int, error) {
	if len(f.ks) == 0 {
		return []int{5, 10}, nil
	}
	var out []int
	for _, k := range f.ks {
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 || n > corpus.MaxK {
			return nil, fmt.Errorf("--k %q: want cut-offs from 1 to %d", k, corpus.MaxK)
		}
		out = append(out, n)
	}
	return out, nil
}

func runEvalRetrieval(ctx context.Context, f *evalFlags, stdout io.Writer) error {
	cutoffs, err := f.cutoffs()
	if err != nil {
		return err
	}
	raw := eval.RetrievalSetJSONL
	if f.setPath != "" {
		b, err := os.ReadFile(f.setPath)
		if err != nil {
			return err
		}
		raw = b
	}
	set, err := eval.LoadRetrievalSet(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("retrieval set: %w", err)
	}
	store, emb, closeStore, err := f.sf.open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	st, err := store.Stats(ctx)
	if err != nil {
		return err
	}
	if st.Documents == 0 {
		return fmt.Errorf("the store holds no documents: run research ingest first")
	}
	scores, err := eval.RunRetrieval(ctx, corpus.NewSearcher(store, emb), set, eval.Methods, cutoffs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d queries over %d documents (%d chunks), embedder %s\n\n", len(set), st.Documents, st.Chunks, emb.Name())
	writeRetrievalTable(stdout, scores, cutoffs)
	if f.perItem {
		fmt.Fprintln(stdout)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "query\t")
		for _, s := range scores {
			fmt.Fprintf(tw, "%s\t", s.Method)
		}
		fmt.Fprintln(tw)
		for i, q := range set {
			fmt.Fprintf(tw, "%s\t", q.ID)
			for _, s := range scores {
				fmt.Fprintf(tw, "%d\t", s.PerItem[i].Rank)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	return nil
}

func writeRetrievalTable(w io.Writer, scores []eval.MethodScore, cutoffs []int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "method\t")
	for _, k := range cutoffs {
		fmt.Fprintf(tw, "recall@%d\t", k)
	}
	for _, k := range cutoffs {
		fmt.Fprintf(tw, "nDCG@%d\t", k)
	}
	fmt.Fprintln(tw, "MRR\tissuers\t")
	for _, s := range scores {
		fmt.Fprintf(tw, "%s\t", s.Method)
		for _, k := range cutoffs {
			fmt.Fprintf(tw, "%.3f\t", s.Recall[k])
		}
		for _, k := range cutoffs {
			fmt.Fprintf(tw, "%.3f\t", s.NDCG[k])
		}
		fmt.Fprintf(tw, "%.3f\t%.3f\t\n", s.MRR, s.IssuerCoverage)
	}
	tw.Flush()
}

// goldenSetup is what the golden evaluation needs, checked before
// anything is opened.
type goldenSetup struct {
	items  []eval.GoldenItem // the golden set, then the paraphrases
	halves *eval.Halves      // the built-in split, which gives each item its split
	modes  []ledger.Mode
	limits budget.Limits
	model  *executor.ModelConfig
	judge  *eval.Judge
	// judgeNote says how layer 2 runs, or why it is skipped.
	judgeNote string
}

func (f *evalFlags) setup() (*goldenSetup, error) {
	s := &goldenSetup{}
	builtin, err := eval.LoadGoldenSet(bytes.NewReader(eval.GoldenSetJSONL))
	if err != nil {
		return nil, fmt.Errorf("built-in golden set: %w", err)
	}
	if s.halves, err = eval.LoadGoldenSplit(); err != nil {
		return nil, err
	}
	items := builtin
	if f.golden != "" {
		b, err := os.ReadFile(f.golden)
		if err != nil {
			return nil, err
		}
		if items, err = eval.LoadGoldenSet(bytes.NewReader(b)); err != nil {
			return nil, fmt.Errorf("golden set: %w", err)
		}
		// Paraphrases in the file (eval/golden_paraphrases.jsonl itself)
		// must reword test-half items of the built-in set.
		if err := s.halves.CheckParaphrases(items, builtin); err != nil {
			return nil, fmt.Errorf("golden set: %w", err)
		}
	}
	paras, err := f.loadParaphrases()
	if err != nil {
		return nil, err
	}
	for _, p := range paras {
		if slices.ContainsFunc(items, func(it eval.GoldenItem) bool { return it.ID == p.ID }) {
			return nil, fmt.Errorf("paraphrase %s is in the golden set too: leave out --paraphrases, or give a file without it", p.ID)
		}
	}
	items = append(items, paras...)
	if f.check && f.paraphrases == "false" {
		return nil, errors.New("--check holds the paraphrases to their thresholds too: leave out --paraphrases=false")
	}
	if len(f.classes) > 0 {
		if f.check {
			return nil, errors.New("--check compares the whole golden set with the thresholds: leave out --class")
		}
		for _, c := range f.classes {
			if !slices.Contains(eval.Classes(), eval.Class(c)) {
				return nil, fmt.Errorf("--class %q: want one of %v", c, eval.Classes())
			}
		}
		items = slices.DeleteFunc(items, func(it eval.GoldenItem) bool { return !slices.Contains(f.classes, string(it.Class)) })
		if len(items) == 0 {
			return nil, fmt.Errorf("--class %s: the golden set holds no such items", strings.Join(f.classes, ","))
		}
	}
	s.items = items

	modes := []string(f.modes)
	if len(modes) == 0 {
		modes = []string{"rules", "baseline"}
	}
	for _, m := range modes {
		mode := ledger.Mode(m)
		switch mode {
		case ledger.ModeRules, ledger.ModeBaseline, ledger.ModeModel, executor.ModeAuto:
		default:
			return nil, fmt.Errorf("--modes %q: want rules, baseline, auto or model", m)
		}
		if slices.Contains(s.modes, mode) {
			return nil, fmt.Errorf("--modes names %s twice", m)
		}
		s.modes = append(s.modes, mode)
	}
	if f.concurrency < 1 {
		return nil, fmt.Errorf("--concurrency %d: want 1 or more", f.concurrency)
	}
	spend, err := decimal.NewFromString(f.budgetUSD)
	if err != nil || spend.IsNegative() {
		return nil, fmt.Errorf("--budget-usd %q: want a non-negative amount such as 0.50", f.budgetUSD)
	}
	if f.timeout <= 0 {
		return nil, fmt.Errorf("--timeout %s: want a positive duration such as 60s", f.timeout)
	}
	s.limits = executor.DefaultLimits()
	s.limits.SpendUSD = spend
	s.limits.WallClock = f.timeout

	// The model under test is configured only for model mode: --base-url
	// alone may serve the judge.
	if slices.Contains(s.modes, ledger.ModeModel) {
		if s.model, err = f.mf.config(); err != nil {
			return nil, err
		}
		if s.model == nil {
			return nil, errors.New("--modes model needs a model: set --base-url and --model (or $OPENAI_BASE_URL and $RESEARCH_MODEL)")
		}
	}
	if f.judgeModel == "" {
		s.judgeNote = "skipped: no judge model configured (set --judge-model or $RESEARCH_JUDGE_MODEL, with --base-url or $OPENAI_BASE_URL)"
		return s, nil
	}
	judgeSpend, err := decimal.NewFromString(f.judgeUSD)
	if err != nil || !judgeSpend.IsPositive() {
		return nil, fmt.Errorf("--judge-budget-usd %q: want a positive amount such as 1.00", f.judgeUSD)
	}
	client, err := llm.NewClient(llm.ChatConfig{BaseURL: f.mf.baseURL, APIKey: os.Getenv("OPENAI_API_KEY"), Timeout: 60 * time.Second})
	if err != nil {
		return nil, err
	}
	s.judge, err = eval.NewJudge(client, configs.Prices(), eval.JudgeConfig{
		Model: f.judgeModel, ModelUnderTest: f.mf.model, SpendLimit: judgeSpend,
	})
	if err != nil {
		if errors.Is(err, eval.ErrSameModel) {
			return nil, fmt.Errorf("--judge-model %s is the model under test (--model): choose another model to judge it", f.judgeModel)
		}
		return nil, err
	}
	s.judgeNote = "judge model " + f.judgeModel
	return s, nil
}

// loadParaphrases reads the paraphrases --paraphrases names: true the
// built-in ones, false none, else a path; unset, the built-in ones with the
// built-in golden set and none with --golden. Every paraphrase is checked
// against the built-in golden set and split.
func (f *evalFlags) loadParaphrases() ([]eval.GoldenItem, error) {
	switch f.paraphrases {
	case "false":
		return nil, nil
	case "true":
		return eval.LoadBuiltinParaphrases()
	case "":
		if f.golden != "" {
			return nil, nil
		}
		return eval.LoadBuiltinParaphrases()
	}
	b, err := os.ReadFile(f.paraphrases)
	if err != nil {
		return nil, fmt.Errorf("--paraphrases: %w (want true, false or a JSONL path)", err)
	}
	paras, err := eval.LoadGoldenParaphrases(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("--paraphrases %s: %w", f.paraphrases, err)
	}
	return paras, nil
}

// retrievalItems are the items retrieval is scored over: the golden items
// that are not paraphrases, so the figures stay those the thresholds hold;
// every item when all are paraphrases.
func retrievalItems(items []eval.GoldenItem) []eval.GoldenItem {
	out := slices.DeleteFunc(slices.Clone(items), func(it eval.GoldenItem) bool { return it.ParaphraseOf != "" })
	if len(out) == 0 {
		return items
	}
	return out
}

func runEvalGolden(ctx context.Context, f *evalFlags, args []string, stdout, stderr io.Writer) error {
	s, err := f.setup()
	if err != nil {
		return err
	}
	var th *eval.Thresholds
	if f.check {
		if th, err = eval.LoadThresholds(bytes.NewReader(eval.ThresholdsJSON)); err != nil {
			return err
		}
	}
	env, err := f.sf.openEngine(ctx, executor.Config{Model: s.model})
	if err != nil {
		return err
	}
	defer env.close()

	nParas := 0
	for _, it := range s.items {
		if it.ParaphraseOf != "" {
			nParas++
		}
	}
	what := fmt.Sprintf("%d golden items", len(s.items))
	if nParas > 0 {
		what = fmt.Sprintf("%d golden items and %d paraphrases", len(s.items)-nParas, nParas)
	}
	fmt.Fprintf(stdout, "%s in %s mode over %s; layer 2 %s\n", what, modeNames(s.modes), env.corpus, s.judgeNote)
	start := time.Now()
	opts := &eval.RunOpts{Modes: s.modes, Limits: &s.limits, Concurrency: f.concurrency, Judge: s.judge, Halves: s.halves}
	if !f.quiet {
		opts.Progress = func(done, total int, r *eval.ItemResult) {
			verdict := "pass"
			if !r.Passed {
				var names []string
				for _, c := range r.Failed() {
					names = append(names, c.Name)
				}
				verdict = "FAIL " + strings.Join(names, ",")
			}
			fmt.Fprintf(stderr, "[%d/%d] %s %-10s %-8s %-13s %-21s %5d ms  %s\n", done, total, r.ID, r.Split.Label(), r.Mode, r.Class, orDash(string(r.Status)), r.LatencyMS, verdict)
		}
	}
	results, err := eval.RunGolden(ctx, env.engine, env.ledger, s.items, opts)
	if err != nil {
		return err
	}
	summary := eval.Summarize(results)
	fmt.Fprintf(stdout, "%d runs in %s\n\n", len(results), time.Since(start).Round(time.Millisecond))
	if err := eval.WriteTable(stdout, summary); err != nil {
		return err
	}
	if len(summary.Splits) > 0 {
		fmt.Fprintln(stdout, "\nBy split (false sup = supported answers that fail a check / supported answers; cite sup = supporting citations / citations):")
		if err := eval.WriteSplitTable(stdout, summary); err != nil {
			return err
		}
	}
	if slices.Contains(s.modes, ledger.ModeRules) && slices.Contains(s.modes, ledger.ModeBaseline) {
		fmt.Fprintln(stdout, "\nAgentic (rules) against the fixed baseline, by pass rate:")
		for _, c := range summary.Compare(ledger.ModeRules, ledger.ModeBaseline) {
			fmt.Fprintf(stdout, "  %s\n", c)
		}
	}
	if s.judge != nil {
		fmt.Fprintf(stdout, "\nLayer 2: judged by %s, spent $%s\n", s.judge.Model(), s.judge.Spent().StringFixed(4))
	} else {
		fmt.Fprintf(stdout, "\nLayer 2 (LLM judge) %s\n", s.judgeNote)
	}

	rep := &eval.Report{
		Command: redact(shellJoin(append([]string{"research", "eval"}, args...)), f.sf.db), Generated: time.Now(),
		Corpus: env.corpus, Concurrency: f.concurrency, Results: results, Summary: summary,
		Judge: s.judgeNote, JudgeSkipped: s.judge == nil,
	}
	var scores []eval.MethodScore
	if !f.noRetrieval {
		cutoffs, err := f.cutoffs()
		if err != nil {
			return err
		}
		set := eval.GoldenRetrievalSet(retrievalItems(s.items))
		if len(set) > 0 {
			scores, err = eval.RunRetrieval(ctx, env.searcher, set, eval.Methods, cutoffs)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "\nRetrieval over the %d golden items that name their evidence:\n", len(set))
			writeRetrievalTable(stdout, scores, cutoffs)
			rep.Retrieval, rep.RetrievalKs, rep.RetrievalQueries = scores, cutoffs, len(set)
		}
	}
	if th != nil {
		rep.ThresholdsChecked = true
		rep.Violations = th.Check(summary, scores)
		if len(rep.Violations) == 0 {
			fmt.Fprintln(stdout, "\nEvery threshold in eval/thresholds.json is met.")
		} else {
			fmt.Fprintf(stdout, "\n%d thresholds missed:\n", len(rep.Violations))
			for _, v := range rep.Violations {
				fmt.Fprintf(stdout, "  %s\n", v)
			}
		}
	}
	if f.out != "" {
		if err := rep.WriteFiles(f.out); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nWrote %s, %s and %s to %s\n", eval.ReportFile, eval.ResultsFile, eval.ChartFile, f.out)
	}
	if len(rep.Violations) > 0 {
		return fmt.Errorf("%d thresholds missed (see above)", len(rep.Violations))
	}
	return nil
}

// shellJoin joins args as a shell would need them typed: empty
// arguments and those with spaces or quotes in single quotes.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$`\\*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

func modeNames(ms []ledger.Mode) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = string(m)
	}
	return strings.Join(parts, ", ")
}
