package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/validator"
)

// Names of the layer-1 checks, as results.jsonl records them.
const (
	CheckRun       = "run"             // the engine returned a result
	CheckStatus    = "status"          // the status is one the item accepts
	CheckRefusal   = "refusal"         // refused exactly when the item must be, and then before any call
	CheckIssuers   = "issuers"         // every required issuer is cited
	CheckCoverage  = "not_covered"     // every issuer outside the corpus is reported as such
	CheckFigures   = "figures"         // every expected figure is stated, for its period, within tolerance
	CheckEvidence  = "evidence"        // every required passage is among the citations
	CheckCitations = "citations_valid" // every citation is evidence of the run and verbatim
	CheckTools     = "tools"           // every required tool was called successfully
	CheckBudget    = "budget"          // no dimension's use exceeds its limit
)

// Check is one check of one item in one mode.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Reason string `json:"reason,omitempty"` // why it failed; empty when it passed
}

// ItemResult is one golden item run in one mode, with every check.
type ItemResult struct {
	ID    string      `json:"id"`
	Class Class       `json:"class"`
	Mode  ledger.Mode `json:"mode"`
	// Split is tune or test for an item of the golden split, paraphrase
	// for a paraphrase of a test item, and "" for an item the split does
	// not name (a custom golden file).
	Split    Split              `json:"split"`
	Question string             `json:"question"`
	RunID    string             `json:"run_id,omitempty"`
	Status   ledger.RunStatus   `json:"status,omitempty"`
	Expected []ledger.RunStatus `json:"expected_status"`
	Passed   bool               `json:"passed"`
	Checks   []Check            `json:"checks"`

	Citations int `json:"citations"`
	// ValidCitations counts the citations that are evidence of the run
	// and verbatim.
	ValidCitations int `json:"valid_citations"`
	// SupportingCitations counts the citations whose excerpt supports the
	// item (see CitationSupport); CitationSupport gives, per citation in
	// order, the rule that held, or "" when none did.
	SupportingCitations int           `json:"supporting_citations"`
	CitationSupport     []SupportRule `json:"citation_support,omitempty"`
	CitedIssuers        []string      `json:"cited_issuers"`
	// IssuersCovered is the share of the required issuers cited; nil when
	// the item requires none.
	IssuersCovered *float64 `json:"issuers_covered,omitempty"`
	InputTokens    int64    `json:"input_tokens"`
	OutputTokens   int64    `json:"output_tokens"`
	CostUSD        string   `json:"cost_usd"`
	LatencyMS      int64    `json:"latency_ms"`
	ToolsCalled    []string `json:"tools_called"`
	Answer         string   `json:"answer"`
	Error          string   `json:"error,omitempty"` // the engine's error, when it returned none

	Judge *JudgeScore `json:"judge,omitempty"`
}

// Check returns the named check and whether the result has it.
func (r *ItemResult) Check(name string) (Check, bool) {
	i := slices.IndexFunc(r.Checks, func(c Check) bool { return c.Name == name })
	if i < 0 {
		return Check{}, false
	}
	return r.Checks[i], true
}

// Failed returns the checks that failed.
func (r *ItemResult) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.Passed {
			out = append(out, c)
		}
	}
	return out
}

// RunOpts configures RunGolden.
type RunOpts struct {
	// Modes to run each item in; nil means rules and baseline.
	Modes []ledger.Mode
	// Limits is every run's budget; nil means executor.DefaultLimits.
	Limits *budget.Limits
	// Concurrency is how many runs go at once; 0 means 4. Latency is
	// measured per run, so a higher value trades its accuracy for time.
	Concurrency int
	// Judge, when set, scores every answered item (layer 2).
	Judge *Judge
	// Progress, when set, is told about each item as it finishes; calls
	// are serialised.
	Progress func(done, total int, r *ItemResult)
	// Halves assigns each item its split (tune or test); nil puts every
	// item but paraphrases in SplitAll. Paraphrases are SplitParaphrase
	// either way.
	Halves *Halves
	// RunIDPrefix starts every run id; "" means "eval".
	RunIDPrefix string
	Now         func() time.Time // nil means time.Now
}

// RunGolden runs every item in every mode through eng, whose ledger is lg,
// and checks each result (layer 1, and layer 2 when a judge is set).
// Results come in item order, modes in the order given. An engine error
// fails that item's run check and does not stop the others; only the end
// of ctx does.
func RunGolden(ctx context.Context, eng *executor.Engine, lg ledger.Store, items []GoldenItem, opts *RunOpts) ([]ItemResult, error) {
	var o RunOpts
	if opts != nil {
		o = *opts
	}
	if len(o.Modes) == 0 {
		o.Modes = []ledger.Mode{ledger.ModeRules, ledger.ModeBaseline}
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Limits == nil {
		l := executor.DefaultLimits()
		o.Limits = &l
	}
	if o.RunIDPrefix == "" {
		o.RunIDPrefix = "eval"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	stamp := strings.TrimPrefix(executor.NewRunID(o.Now()), "run-")
	out := make([]ItemResult, len(items)*len(o.Modes))
	var mu sync.Mutex
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Concurrency)
	for i, it := range items {
		for j, mode := range o.Modes {
			slot := &out[i*len(o.Modes)+j]
			runID := fmt.Sprintf("%s-%s-%s-%s", o.RunIDPrefix, it.ID, mode, stamp)
			g.Go(func() error {
				if err := gctx.Err(); err != nil {
					return err
				}
				var res *executor.Result
				*slot, res = runItem(gctx, eng, lg, it, mode, runID, o.Limits)
				slot.Split = o.Halves.SplitOf(it)
				if o.Judge != nil {
					slot.Judge = o.Judge.Score(gctx, it, res)
				}
				if gctx.Err() != nil {
					return gctx.Err()
				}
				if o.Progress != nil {
					mu.Lock()
					done++
					o.Progress(done, len(out), slot)
					mu.Unlock()
				}
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// runItem runs one item in one mode and checks it; the engine's result is
// nil when it returned an error.
func runItem(ctx context.Context, eng *executor.Engine, lg ledger.Store, it GoldenItem, mode ledger.Mode, runID string, limits *budget.Limits) (ItemResult, *executor.Result) {
	r := ItemResult{ID: it.ID, Class: it.Class, Mode: mode, Question: it.Question, Expected: it.Status,
		RunID: runID, CostUSD: "0", CitedIssuers: []string{}, ToolsCalled: []string{}}
	l := *limits
	start := time.Now()
	res, err := eng.Run(ctx, executor.Request{RunID: runID, Question: it.Question, Mode: mode, Limits: &l})
	r.LatencyMS = time.Since(start).Milliseconds()
	if err != nil {
		r.Error = err.Error()
		r.Checks = []Check{{Name: CheckRun, Reason: "the engine returned an error: " + err.Error()}}
		return r, nil
	}
	led, err := lg.Load(ctx, res.RunID)
	if err != nil {
		r.Error = err.Error()
		r.Checks = []Check{{Name: CheckRun, Reason: "the run's ledger cannot be read: " + err.Error()}}
		return r, res
	}
	fillResult(&r, it, res, led)
	return r, res
}

// fillResult records what a run produced and checks it.
func fillResult(r *ItemResult, it GoldenItem, res *executor.Result, led *ledger.RunLedger) {
	r.RunID, r.Status, r.Answer = res.RunID, res.Status, res.Answer
	r.Citations = len(res.Citations)
	r.CitedIssuers = citedIssuers(res)
	r.InputTokens = usedInt(res.Budget, budget.InputTokens)
	r.OutputTokens = usedInt(res.Budget, budget.OutputTokens)
	if v, err := decimal.NewFromString(string(res.Budget.Used[string(budget.SpendUSD)])); err == nil {
		r.CostUSD = v.String()
	}
	if led != nil {
		seen := map[string]bool{}
		for _, c := range led.ToolCalls {
			if !seen[c.Tool] {
				seen[c.Tool] = true
				r.ToolsCalled = append(r.ToolsCalled, c.Tool)
			}
		}
		slices.Sort(r.ToolsCalled)
	}
	if len(it.Issuers) > 0 {
		n := 0
		for _, t := range it.Issuers {
			if slices.Contains(r.CitedIssuers, t) {
				n++
			}
		}
		share := float64(n) / float64(len(it.Issuers))
		r.IssuersCovered = &share
	}
	r.Checks, r.ValidCitations = CheckResult(it, res, led)
	r.CitationSupport = CitationSupport(it, res, led)
	for _, rule := range r.CitationSupport {
		if rule != SupportNone {
			r.SupportingCitations++
		}
	}
	r.Passed = true
	for _, c := range r.Checks {
		r.Passed = r.Passed && c.Passed
	}
}

func citedIssuers(res *executor.Result) []string {
	out := []string{}
	for _, c := range res.Citations {
		if c.Ticker != "" && !slices.Contains(out, c.Ticker) {
			out = append(out, c.Ticker)
		}
	}
	slices.Sort(out)
	return out
}

func usedInt(b executor.BudgetReport, d budget.Dimension) int64 {
	return b.UsedAmount(string(d)).IntPart()
}

// CheckResult runs the layer-1 checks of one item on one run's result and
// ledger (nil when the run recorded none) and returns them with the number
// of valid citations. Checks that do not apply to the item (figures for an
// item that expects none) are left out.
func CheckResult(it GoldenItem, res *executor.Result, led *ledger.RunLedger) ([]Check, int) {
	var checks []Check
	add := func(name string, reasons []string) {
		checks = append(checks, Check{Name: name, Passed: len(reasons) == 0, Reason: strings.Join(reasons, "; ")})
	}

	var why []string
	if !slices.Contains(it.Status, res.Status) {
		why = append(why, fmt.Sprintf("got %s; want %s", res.Status, joinStatuses(it.Status)))
	}
	add(CheckStatus, why)

	why = nil
	refused := res.Status == ledger.StatusRefused
	switch {
	case it.ExpectsRefusal() && !refused:
		why = append(why, fmt.Sprintf("answered (%s) a request that must be refused", res.Status))
	case !it.ExpectsRefusal() && refused:
		why = append(why, "refused a question it should answer: "+res.RefusalReason)
	case refused:
		if len(res.Citations) > 0 {
			why = append(why, fmt.Sprintf("a refusal carries %d citations", len(res.Citations)))
		}
		if led != nil && len(led.ToolCalls) > 0 {
			why = append(why, fmt.Sprintf("%d tool calls were made before refusing", len(led.ToolCalls)))
		}
		if n := usedInt(res.Budget, budget.ModelCalls); n > 0 {
			why = append(why, fmt.Sprintf("%d model calls were made before refusing", n))
		}
	}
	add(CheckRefusal, why)

	if len(it.Issuers) > 0 {
		why = nil
		cited := citedIssuers(res)
		var missing []string
		for _, t := range it.Issuers {
			if !slices.Contains(cited, t) {
				missing = append(missing, t)
			}
		}
		if len(missing) > 0 {
			why = append(why, fmt.Sprintf("no citation from %s (cited: %s)", strings.Join(missing, ", "), orNone(cited)))
		}
		add(CheckIssuers, why)
	}

	if len(it.NotCovered) > 0 {
		why = nil
		for _, name := range it.NotCovered {
			if !slices.ContainsFunc(res.NotCovered, func(s string) bool { return NotCoveredNames(s, name) }) {
				why = append(why, fmt.Sprintf("%s is not reported as outside the corpus (not_covered: %s)", name, orNone(res.NotCovered)))
			}
		}
		add(CheckCoverage, why)
	}

	if len(it.Figures) > 0 {
		why = nil
		for _, f := range it.Figures {
			if _, ok := FindFigure(res.Answer, f); !ok {
				why = append(why, fmt.Sprintf("%s (%s %s, period %s) is not stated", f.Label, formatValue(f.Value), f.Unit, f.Period))
			}
		}
		add(CheckFigures, why)
	}

	if len(it.Evidence) > 0 {
		why = nil
		for _, e := range it.Evidence {
			if !slices.ContainsFunc(res.Citations, e.MatchesCitation) {
				why = append(why, fmt.Sprintf("no citation of %s %s FY%d quotes %q", e.Ticker, e.Form, e.FiscalYear, e.Phrase))
			}
		}
		add(CheckEvidence, why)
	}

	why = nil
	valid := 0
	evidence := map[string]ledger.Evidence{}
	if led != nil {
		for _, e := range led.Evidence {
			evidence[e.ID] = e
		}
	}
	for _, c := range res.Citations {
		e, ok := evidence[c.EvidenceID]
		switch {
		case !ok:
			why = append(why, fmt.Sprintf("[%d] names %s, which is not evidence of the run", c.Index, c.EvidenceID))
		case !validator.Verbatim(c.Excerpt, e.Excerpt):
			why = append(why, fmt.Sprintf("[%d] excerpt is not verbatim in %s", c.Index, c.EvidenceID))
		case c.Ticker != e.Ticker:
			why = append(why, fmt.Sprintf("[%d] is labelled %s but %s is %s evidence", c.Index, c.Ticker, c.EvidenceID, e.Ticker))
		default:
			valid++
		}
	}
	add(CheckCitations, why)

	if len(it.Tools) > 0 {
		why = nil
		for _, tool := range it.Tools {
			ok := led != nil && slices.ContainsFunc(led.ToolCalls, func(c ledger.ToolCall) bool { return c.Tool == tool && c.Error == "" })
			if !ok {
				why = append(why, tool+" was not called successfully")
			}
		}
		add(CheckTools, why)
	}

	add(CheckBudget, budgetExcess(res.Budget))
	return checks, valid
}

// budgetExcess lists every dimension whose use exceeds its limit.
func budgetExcess(b executor.BudgetReport) []string {
	var why []string
	keys := make([]string, 0, len(b.Limits))
	for k := range b.Limits {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		lim := b.Limits[k]
		if lim == nil { // unlimited
			continue
		}
		l, err := decimal.NewFromString(string(*lim))
		if err != nil {
			why = append(why, fmt.Sprintf("%s limit %q is not a number", k, *lim))
			continue
		}
		u, ok := b.Used[k]
		if !ok {
			continue
		}
		used, err := decimal.NewFromString(string(u))
		if err != nil {
			why = append(why, fmt.Sprintf("%s use %q is not a number", k, u))
			continue
		}
		if used.GreaterThan(l) {
			why = append(why, fmt.Sprintf("%s used %s of a %s limit", k, used, l))
		}
	}
	return why
}

func joinStatuses(s []ledger.RunStatus) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = string(x)
	}
	return strings.Join(parts, " or ")
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func formatValue(v float64) string {
	return decimal.NewFromFloat(v).String()
}

// NotCoveredNames reports whether a result's not-covered entry names the
// issuer an item calls name. Entries read "TSLA (Tesla, Inc.)" when the
// SEC issuer list resolves the issuer, else as the question wrote it, so
// "Tesla", "TSLA" and "tesla" all match that entry.
func NotCoveredNames(entry, name string) bool {
	if strings.EqualFold(entry, name) {
		return true
	}
	ticker, title, ok := strings.Cut(entry, " (")
	if !ok {
		return false
	}
	squash := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, s)
	}
	n := squash(name)
	return n != "" && (strings.EqualFold(ticker, name) || strings.Contains(squash(title), n))
}
