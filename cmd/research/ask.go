package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/validator"
)

// modelFlags configure model mode; each defaults from the environment.
type modelFlags struct {
	baseURL     string
	model       string
	graderModel string
}

func (m *modelFlags) register(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&m.baseURL, "base-url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible endpoint for model mode (default $OPENAI_BASE_URL); the key is read from $OPENAI_API_KEY")
	fs.StringVar(&m.model, "model", os.Getenv("RESEARCH_MODEL"), "model for planning and synthesis (default $RESEARCH_MODEL)")
	fs.StringVar(&m.graderModel, "grader-model", os.Getenv("RESEARCH_GRADER_MODEL"), "model that grades answers; empty means no grader (default $RESEARCH_GRADER_MODEL)")
}

// config returns the engine's model configuration, or nil when no model
// is configured.
func (m *modelFlags) config() (*executor.ModelConfig, error) {
	if m.baseURL == "" && m.model == "" {
		return nil, nil
	}
	if m.model == "" {
		return nil, errors.New("--model: set a model name (or $RESEARCH_MODEL) for model mode")
	}
	client, err := llm.NewClient(llm.ChatConfig{BaseURL: m.baseURL, APIKey: os.Getenv("OPENAI_API_KEY"), Timeout: 60 * time.Second})
	if err != nil {
		return nil, err
	}
	return &executor.ModelConfig{Caller: client, Model: m.model, GraderModel: m.graderModel}, nil
}

// engineEnv is an engine with what it was opened over: the ledger it
// records in (eval reads each run back), the searcher and a description of
// the corpus.
type engineEnv struct {
	engine   *executor.Engine
	ledger   ledger.Store
	searcher *corpus.Searcher
	corpus   string // "19 documents (7346 chunks), embedder hash-v1-384"
	close    func()
}

// openEngine builds the flags' tenant's engine with engine.New: in
// Postgres over one pool when a URL is given (each run also counting
// against the tenant's day), in the data directory (with an in-process
// budget) otherwise. cfg carries the model and a progress callback. An
// empty store is an error that says to ingest first.
func (f *storeFlags) openEngine(ctx context.Context, cfg executor.Config) (*engineEnv, error) {
	emb, err := f.newEmbedder()
	if err != nil {
		return nil, err
	}
	ec := &engine.Config{DataDir: f.dataDir, Embedder: emb, Model: cfg.Model, Prices: cfg.Prices}
	if progress := cfg.Progress; progress != nil {
		ec.Hooks.Progress = func(_ string, p executor.Progress) { progress(p) }
	}
	closePool := func() {}
	if f.db != "" {
		pool, err := openMigratedPool(ctx, f.db)
		if err != nil {
			return nil, err
		}
		ec.Pool, closePool = pool, pool.Close
	}
	proc, err := engine.New(ec)
	if err != nil {
		closePool()
		return nil, err
	}
	closeAll := func() { proc.Close(); closePool() }
	t, err := proc.Tenant(ctx, f.tenant)
	if err != nil {
		closeAll()
		return nil, err
	}
	stats, err := t.Store.Stats(ctx)
	if err != nil {
		closeAll()
		return nil, err
	}
	if stats.Documents == 0 {
		closeAll()
		return nil, fmt.Errorf("the store holds no filings: run `research ingest --manifest ../shared/corpus/manifest.jsonl` first (same --db or --data-dir)")
	}
	return &engineEnv{
		engine: t.Engine, ledger: t.Ledger, searcher: t.Searcher, close: closeAll,
		corpus: fmt.Sprintf("%d documents (%d chunks), embedder %s", stats.Documents, stats.Chunks, emb.Name()),
	}, nil
}

func runAsk(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ask", "\"QUESTION\" [flags]",
		"Research a question over the ingested filings: route it, plan a task graph of evidence\n"+
			"requirements and tool calls, gather the evidence concurrently under the budget, and answer\n"+
			"only with verbatim, cited evidence, or say what is missing. Progress goes to stderr.\n"+
			"Modes: auto (the default: with a model configured, model mode, falling back to the rules planner\n"+
			"and synthesizer where the model fails; without one, rules for figures, comparisons,\n"+
			"explanations, outlook, causal questions and issuers outside the corpus, as\n"+
			"docs/evaluation.md measured), rules (planned task graph, no model), baseline (one fixed retrieval\n"+
			"pass and the extractive answer), model (planner and synthesizer are model calls; needs --base-url\n"+
			"and --model). The result names the mode that ran and the question's class.\n\n"+
			"Exit status: the run's end state, after the result is printed. 0 supported or partial (an\n"+
			"answer); 3 insufficient_evidence; 4 conflicting_evidence; 5 budget_exhausted; 6 refused;\n"+
			"1 an error, nothing answered (a flag value that is not valid too); 2 no question or an unknown\n"+
			"flag. --dry-run exits 0 once the plan is printed.", stderr)
	var sf storeFlags
	sf.register(fs)
	var mf modelFlags
	mf.register(fs)
	var tickers listFlag
	fs.Var(&tickers, "tickers", "issuers to include besides those the question names (comma-separated)")
	mode := fs.String("mode", "auto", "auto (model mode with a model configured; otherwise per question class, the path the evaluation found better), rules, baseline or model")
	budgetUSD := fs.String("budget-usd", "0.50", "the run's spend limit in USD (model calls)")
	maxCalls := fs.Int("max-calls", 0, "model and tool calls in all; 0 means only the per-kind limits")
	timeout := fs.Duration("timeout", 60*time.Second, "the run's wall-clock budget")
	format := fs.String("format", "text", "text, json or markdown")
	dryRun := fs.Bool("dry-run", false, "print the plan and its worst-case budget; spend nothing, record nothing")
	planView := fs.String("plan", "full", "with --dry-run: full (every requirement's condition and node's arguments) or summary (a line per requirement, the nodes by tool, the worst case)")
	runID := fs.String("run-id", "", "run id; an existing run's id resumes it (default: a new id)")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	var af askFetch
	af.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	switch *format {
	case "text", "json", "markdown":
	default:
		return fmt.Errorf("--format %q: want text, json or markdown", *format)
	}
	spend, err := decimal.NewFromString(*budgetUSD)
	if err != nil || spend.IsNegative() || budget.CheckUSD(spend) != nil {
		return fmt.Errorf("--budget-usd %q: want a non-negative amount such as 0.50", *budgetUSD)
	}
	if *timeout <= 0 {
		return fmt.Errorf("--timeout %s: want a positive duration such as 60s", *timeout)
	}
	if *maxCalls < 0 {
		return fmt.Errorf("--max-calls %d: want 0 (no cap) or more", *maxCalls)
	}
	limits := executor.DefaultLimits()
	limits.SpendUSD = spend
	limits.WallClock = *timeout
	for i, t := range tickers {
		tickers[i] = strings.ToUpper(t)
	}
	req := executor.Request{
		RunID: *runID, Question: strings.Join(fs.Args(), " "), Tickers: tickers,
		Mode: ledger.Mode(*mode), Limits: &limits, MaxCalls: *maxCalls,
	}
	mc, err := mf.config()
	if err != nil {
		return err
	}
	cfg := executor.Config{Model: mc}
	if !*quiet && !*dryRun {
		cfg.Progress = func(p executor.Progress) { fmt.Fprintln(stderr, p.Line()) }
	}
	var fetched *askFetchResult
	if af.enabled && !*dryRun {
		var progress io.Writer
		if !*quiet {
			progress = stderr
		}
		start := time.Now()
		if fetched, err = af.run(ctx, &sf, req.Question, tickers, *timeout, progress); err != nil {
			return err
		}
		if fetched != nil {
			limits.WallClock = *timeout - time.Since(start) // the fetch spent its part of the budget
		}
	}
	env, err := sf.openEngine(ctx, cfg)
	if err != nil {
		return err
	}
	defer env.close()
	eng := env.engine

	if *dryRun {
		if *planView != "full" && *planView != "summary" {
			return fmt.Errorf("--plan %q: want full or summary", *planView)
		}
		plan, err := eng.DryRun(ctx, req)
		if err != nil {
			return err
		}
		if *format == "json" {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(plan)
		}
		if *planView == "summary" {
			return writePlanSummary(stdout, plan, &limits)
		}
		return writePlan(stdout, plan, &limits)
	}
	res, err := eng.Run(ctx, req)
	if err != nil {
		return err
	}
	if fetched != nil {
		res.Notes = append(res.Notes, fetched.note())
		if err := fetched.record(ctx, env.ledger, res.RunID); err != nil {
			fmt.Fprintf(stderr, "research ask: the fetch is in %s but could not be recorded in the run's ledger: %v\n", fetched.log, err)
		}
	}
	switch *format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(res)
	case "markdown":
		err = writeMarkdown(stdout, res)
	default:
		err = writeReport(stdout, res)
	}
	if err != nil {
		return err
	}
	return askExit(res.Status)
}

// Exit statuses of research ask beyond 0 (an answer), 1 (an error) and 2
// (a usage error): a script can tell how the run ended without reading
// its output.
const (
	exitInsufficientEvidence exitStatus = 3
	exitConflictingEvidence  exitStatus = 4
	exitBudgetExhausted      exitStatus = 5
	exitRefused              exitStatus = 6
)

// askExit is how research ask exits after printing a run that ended in
// status: nil for an answer (supported or partial), an exitStatus for the
// other end states, and an error (exit 1) for a status no finished run has.
func askExit(status ledger.RunStatus) error {
	switch status {
	case ledger.StatusSupported, ledger.StatusPartial:
		return nil
	case ledger.StatusInsufficientEvidence:
		return exitInsufficientEvidence
	case ledger.StatusConflictingEvidence:
		return exitConflictingEvidence
	case ledger.StatusBudgetExhausted:
		return exitBudgetExhausted
	case ledger.StatusRefused:
		return exitRefused
	}
	return fmt.Errorf("the run ended with status %q, which is not an end state", status)
}

// writeReport prints a result for a person: status first, the answer, the
// sources, the gaps and the budget used.
func writeReport(w io.Writer, r *executor.Result) error {
	fmt.Fprintf(w, "Status: %s\n", r.Status)
	fmt.Fprintf(w, "Run:    %s (%s)\n\n", r.RunID, runDetail(r))
	fmt.Fprintln(w, r.Answer)
	if len(r.Citations) > 0 {
		fmt.Fprintln(w, "\nSources:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  [n]\tticker\tform\tperiod end\tsection\tpage\tevidence\texcerpt")
		for _, c := range r.Citations {
			page := "-"
			if c.Page != nil {
				page = fmt.Sprint(*c.Page)
			}
			fmt.Fprintf(tw, "  [%d]\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Index, c.Ticker, c.Form, c.PeriodEnd, orDash(c.Section), page, c.EvidenceID, oneLine(c.Excerpt, 70))
		}
		tw.Flush()
	}
	if len(r.Figures) > 0 {
		fmt.Fprintln(w, "\nFigures:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  issuer\tmetric\tperiod\tvalue\tunit\tsource")
		for _, f := range r.Figures {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", f.Issuer, f.Metric, f.Period, f.Value.String(), orDash(f.Unit), figureSource(f))
		}
		tw.Flush()
	}
	if len(r.Gaps) > 0 {
		fmt.Fprintln(w, "\nGaps:")
		for _, g := range r.Gaps {
			fmt.Fprintf(w, "  - %s: %s\n", g.What, g.Why)
		}
	}
	if len(r.Contradictions) > 0 {
		fmt.Fprintln(w, "\nContradictions:")
		for _, c := range r.Contradictions {
			fmt.Fprintf(w, "  - %s (%s)\n", c.Difference, strings.Join(c.EvidenceIDs, ", "))
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
	fmt.Fprintf(w, "\nBudget used: %s\n", usedLine(r.Budget))
	return nil
}

// runDetail is how a run went, as the reports print it: "auto → model
// mode, class comparison, 147 ms".
func runDetail(r *executor.Result) string {
	mode := string(r.Mode) + " mode"
	if r.RequestedMode != "" && r.RequestedMode != r.Mode {
		mode = string(r.RequestedMode) + " → " + mode
	}
	parts := []string{mode}
	if r.Class != "" {
		parts = append(parts, "class "+r.Class)
	}
	parts = append(parts, fmt.Sprintf("%d ms", r.ElapsedMS))
	return strings.Join(parts, ", ")
}

// writeMarkdown prints the text report as Markdown: the status, the
// answer, the sources as a numbered list with each excerpt quoted whole,
// the figures, gaps, contradictions and notes, and the budget used. Text
// from the filings and the answer is printed as it is, escaped only where
// Markdown would read it as markup.
func writeMarkdown(w io.Writer, r *executor.Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "**Status:** `%s`\n\n", r.Status)
	fmt.Fprintf(bw, "Run `%s` (%s)\n\n", r.RunID, runDetail(r))
	if r.Answer != "" {
		fmt.Fprintf(bw, "%s\n", mdBlock(r.Answer, ""))
	}
	if len(r.Citations) > 0 {
		fmt.Fprint(bw, "\n## Sources\n\n")
		// The validator numbers citations 1..k; a list that is not so
		// numbered is printed with its numbers in brackets, since Markdown
		// renumbers an ordered list from its first item.
		ordered := true
		for i, c := range r.Citations {
			if c.Index != r.Citations[0].Index+i {
				ordered = false
			}
		}
		for i, c := range r.Citations {
			if i > 0 {
				fmt.Fprintln(bw)
			}
			// The item's quote is indented to its text.
			marker := fmt.Sprintf("%d. ", c.Index)
			indent := strings.Repeat(" ", len(marker))
			if !ordered {
				marker, indent = fmt.Sprintf("- \\[%d\\] ", c.Index), "  "
			}
			page := "no page"
			if c.Page != nil {
				page = fmt.Sprintf("page %d", *c.Page)
			}
			meta := []string{"**" + mdText(c.Ticker) + "**", mdText(c.Form)}
			if c.PeriodEnd != "" {
				meta = append(meta, "period end "+mdText(c.PeriodEnd))
			}
			if c.Section != "" {
				meta = append(meta, mdText(c.Section))
			}
			meta = append(meta, page, "evidence `"+c.EvidenceID+"`")
			fmt.Fprintf(bw, "%s%s\n\n", marker, strings.Join(meta, ", "))
			fmt.Fprintf(bw, "%s\n", mdBlock(c.Excerpt, indent+"> "))
		}
	}
	if len(r.Figures) > 0 {
		fmt.Fprint(bw, "\n## Figures\n\n")
		fmt.Fprintln(bw, "| Issuer | Metric | Period | Value | Unit | Source |")
		fmt.Fprintln(bw, "|---|---|---|---:|---|---|")
		for _, f := range r.Figures {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s |\n", mdCell(f.Issuer), mdCell(f.Metric), mdCell(f.Period), f.Value.String(), mdCell(f.Unit), mdCell(figureSource(f)))
		}
	}
	if len(r.Gaps) > 0 {
		fmt.Fprint(bw, "\n## Gaps\n\n")
		for _, g := range r.Gaps {
			fmt.Fprintf(bw, "- %s: %s\n", mdText(g.What), mdText(g.Why))
		}
	}
	if len(r.Contradictions) > 0 {
		fmt.Fprint(bw, "\n## Contradictions\n\n")
		for _, c := range r.Contradictions {
			fmt.Fprintf(bw, "- %s (%s)\n", mdText(c.Difference), mdText(strings.Join(c.EvidenceIDs, ", ")))
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprint(bw, "\n## Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(bw, "- %s\n", mdText(n))
		}
	}
	fmt.Fprintf(bw, "\n*Budget used:* %s\n", mdText(usedLine(r.Budget)))
	return bw.Flush()
}

func writePlan(w io.Writer, p *executor.Plan, limits *budget.Limits) error {
	if p.Graph == nil {
		for _, n := range p.Notes {
			fmt.Fprintln(w, n)
		}
		return nil
	}
	g := p.Graph
	fmt.Fprintf(w, "Plan (%s planner): %d requirements, %d nodes; issuers %s\n\n", g.Planner, len(g.Requirements), len(g.Nodes), strings.Join(g.Tickers, ", "))
	fmt.Fprintln(w, "Requirements:")
	for _, r := range g.Requirements {
		req := "required"
		if !r.Required {
			req = "optional"
		}
		fmt.Fprintf(w, "  %s (%s): %s\n      done when: %s\n", r.ID, req, r.Need, validator.DescribeCondition(r.Completion))
	}
	fmt.Fprintln(w, "\nNodes:")
	for _, n := range g.Nodes {
		deps := ""
		if len(n.DependsOn) > 0 {
			deps = " after " + strings.Join(n.DependsOn, ",")
		}
		fmt.Fprintf(w, "  %s %s %s%s -> %s\n", n.ID, n.Tool, string(n.Args), deps, strings.Join(n.Serves, ","))
	}
	fmt.Fprintln(w, "\nWorst-case budget (sum of all reservations):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, d := range budget.Dimensions() {
		limit := "unlimited"
		if v, ok := limits.Get(d); ok {
			limit = v.String()
		}
		fmt.Fprintf(tw, "  %s\t%s\tlimit %s\n", d, p.WorstCase.Get(d), limit)
	}
	tw.Flush()
	for _, x := range p.Exceeds {
		fmt.Fprintf(w, "  exceeds: %s\n", x)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	return nil
}

// writePlanSummary writes a plan in a few lines: what it will look for
// (a line per requirement), how (the nodes by tool), and the most it may
// spend.
func writePlanSummary(w io.Writer, p *executor.Plan, limits *budget.Limits) error {
	if p.Graph == nil {
		return writePlan(w, p, limits)
	}
	g := p.Graph
	required := 0
	for _, r := range g.Requirements {
		if r.Required {
			required++
		}
	}
	fmt.Fprintf(w, "Plan (%s planner): %d requirements (%d required), %d nodes; issuers %s\n", g.Planner, len(g.Requirements), required, len(g.Nodes), strings.Join(g.Tickers, ", "))
	for _, r := range g.Requirements {
		mark := "*"
		if !r.Required {
			mark = "-"
		}
		fmt.Fprintf(w, "  %s %s\n", mark, oneLine(r.Need, 110))
	}
	count := map[string]int{}
	var names []string
	for _, n := range g.Nodes {
		if count[n.Tool] == 0 {
			names = append(names, n.Tool)
		}
		count[n.Tool]++
	}
	slices.Sort(names)
	var byTool []string
	for _, t := range names {
		byTool = append(byTool, fmt.Sprintf("%d %s", count[t], t))
	}
	fmt.Fprintf(w, "Nodes: %s\n", strings.Join(byTool, ", "))
	var worst []string
	for _, d := range budget.Dimensions() {
		if v := p.WorstCase.Get(d); !v.IsZero() {
			s := fmt.Sprintf("%s %s", d, v)
			if l, ok := limits.Get(d); ok {
				s += " of " + l.String()
			}
			worst = append(worst, s)
		}
	}
	fmt.Fprintf(w, "Worst case: %s\n", strings.Join(worst, ", "))
	for _, x := range p.Exceeds {
		fmt.Fprintf(w, "  exceeds: %s\n", x)
	}
	fmt.Fprintln(w, "(* required, - optional; --plan full shows each condition and node)")
	return nil
}

func usedLine(b executor.BudgetReport) string {
	keys := []string{"calls"}
	for _, d := range budget.Dimensions() {
		keys = append(keys, string(d))
	}
	keys = append(keys, "wall_clock_ms")
	var parts []string
	for _, k := range keys {
		if v, ok := b.Used[k]; ok && !b.UsedAmount(k).IsZero() {
			parts = append(parts, k+"="+v.String())
		}
	}
	if b.Exhausted != "" {
		parts = append(parts, "exhausted="+b.Exhausted)
	}
	return strings.Join(parts, " ")
}

// figureSource is a figure's source as a report shows it: "xbrl",
// "table", or "derived from xbrl" for a calculation.
func figureSource(f executor.Figure) string {
	if f.Kind == executor.FigureDerived {
		return "derived from " + string(f.Source)
	}
	return string(f.Source)
}

// mdCell is s made safe for a markdown table cell.
func mdCell(s string) string {
	return mdText(oneLine(s, 200))
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// mdBlock is text (an answer, an excerpt) as Markdown lines, each after
// prefix ("> " quotes it): every character kept, escaped only where
// Markdown would read it as markup, each newline a hard line break ("\"
// at the end of the line) and each blank line a paragraph break.
func mdBlock(text, prefix string) string {
	lines := strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text), "\n")
	blank := func(i int) bool { return i >= len(lines) || strings.TrimSpace(lines[i]) == "" }
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if blank(i) {
			b.WriteString(strings.TrimRight(prefix, " "))
			continue
		}
		b.WriteString(prefix)
		b.WriteString(mdLine(line, i == 0 || blank(i-1)))
		if !blank(i + 1) {
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// mdText is one line of text escaped for Markdown, as mdBlock escapes it;
// a newline in it becomes a space.
func mdText(s string) string {
	return mdLine(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s), true)
}

var (
	// mdEntity is what follows an '&' that Markdown reads as an entity.
	mdEntity = regexp.MustCompile(`^&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)
	// mdCitation is an answer's [n] marker, which Markdown prints as it is
	// unless a link follows it.
	mdCitation = regexp.MustCompile(`^\[[0-9]+\]`)
	// mdListNumber is an ordered list item's start.
	mdListNumber = regexp.MustCompile(`^[0-9]{1,9}[.)]([ \t]|$)`)
	// mdHeading is an ATX heading's start.
	mdHeading = regexp.MustCompile(`^#{1,6}([ \t]|$)`)
)

// mdLine escapes one line of text for Markdown: inline markup anywhere
// (emphasis, code, links, HTML, entities, tables, strikethrough), and at
// the start of a line what would begin a block (heading, quote, list,
// rule, setext underline; at the start of a paragraph, indented code).
func mdLine(line string, paragraphStart bool) string {
	// Block markup: up to three spaces, then the marker.
	lead := len(line) - len(strings.TrimLeft(line, " "))
	rest := line[lead:]
	switch {
	case lead >= 4 || (lead < len(line) && line[lead] == '\t'):
		if !paragraphStart {
			return mdInline(line) // a continuation line's indentation is dropped, not code
		}
		// Indented code: the first blank becomes an entity, which
		// Markdown does not count as indentation.
		ent := "&#32;"
		if line[0] == '\t' {
			ent = "&#9;"
		}
		return ent + mdInline(line[1:])
	case rest == "":
		return line
	case rest[0] == '>', // a quote
		mdHeading.MatchString(rest),
		(rest[0] == '-' || rest[0] == '+') && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t'), // a list item
		strings.Trim(rest, "- \t") == "" && strings.Contains(rest, "-"),                             // a rule, or a setext underline
		!paragraphStart && strings.Trim(rest, "= \t") == "":                                         // a setext underline
		return line[:lead] + "\\" + rest[:1] + mdInline(rest[1:])
	case mdListNumber.MatchString(rest):
		// Only a list that starts at 1 may interrupt a paragraph.
		i := strings.IndexAny(rest, ".)")
		if n, _ := strconv.Atoi(rest[:i]); paragraphStart || n == 1 {
			return line[:lead] + rest[:i] + "\\" + mdInline(rest[i:])
		}
	}
	return mdInline(line)
}

// mdInline escapes the inline markup of s.
func mdInline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			// A backslash escapes the punctuation after it, and one at the
			// end of a line would break it.
			if i+1 == len(s) || isASCIIPunct(s[i+1]) {
				b.WriteByte('\\')
			}
		case '`', '*', '|', '~':
			b.WriteByte('\\')
		case '_':
			// Only an underscore inside a word is never emphasis.
			if i == 0 || i+1 == len(s) || !isWordByte(s[i-1]) || !isWordByte(s[i+1]) {
				b.WriteByte('\\')
			}
		case '[':
			if m := mdCitation.FindString(s[i:]); m == "" || strings.HasPrefix(s[i+len(m):], "(") || strings.HasPrefix(s[i+len(m):], ":") {
				b.WriteByte('\\')
			}
		case '<':
			if i+1 < len(s) && (isASCIILetter(s[i+1]) || strings.IndexByte("/!?", s[i+1]) >= 0) {
				b.WriteByte('\\')
			}
		case '&':
			if mdEntity.MatchString(s[i:]) {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c < 0x80 && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// isWordByte reports whether c is an ASCII letter or digit. (A letter
// beyond ASCII is not told apart from Unicode punctuation, beside which
// an underscore may be emphasis; such an underscore is escaped.)
func isWordByte(c byte) bool {
	return isASCIILetter(c) || c >= '0' && c <= '9'
}
