package eval

import (
	"fmt"
	"slices"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"
)

// Metric names a figure of a summary row that a threshold can hold.
type Metric string

// The metrics of a summary row; each is a share from 0 to 1.
const (
	MetricPassRate         Metric = "pass_rate"         // items whose every check passed
	MetricStatusAccuracy   Metric = "status_accuracy"   // items whose status is one the item accepts
	MetricIssuersCovered   Metric = "issuers_covered"   // mean share of required issuers cited
	MetricCitationValidity Metric = "citation_validity" // citations in the run's ledger and verbatim
	MetricRefusalAccuracy  Metric = "refusal_accuracy"  // refused exactly when expected
	MetricBudgetCompliance Metric = "budget_compliance" // runs within every budget limit
	MetricFigureAccuracy   Metric = "figure_accuracy"   // items expecting figures that state them all
	MetricEvidenceRecall   Metric = "evidence_recall"   // items naming evidence that cite it all
	// MetricFalseSupported is the share of the results whose status is
	// supported that fail a layer-1 check: an answer that claims more than
	// it shows. 0 when no result is supported; lower is better.
	MetricFalseSupported Metric = "false_supported"
	// MetricCitationSupport is the share of the citations, over every
	// result of the row, whose excerpt supports the item asked (see
	// CitationSupport); absent when the row cites nothing.
	MetricCitationSupport Metric = "citation_support"
)

// Metrics returns every metric.
func Metrics() []Metric {
	return []Metric{MetricPassRate, MetricStatusAccuracy, MetricIssuersCovered, MetricCitationValidity,
		MetricRefusalAccuracy, MetricBudgetCompliance, MetricFigureAccuracy, MetricEvidenceRecall,
		MetricFalseSupported, MetricCitationSupport}
}

// LowerIsBetter reports whether a threshold holds the metric by a maximum
// (false_supported) rather than a minimum.
func (m Metric) LowerIsBetter() bool {
	return m == MetricFalseSupported
}

// Row is the summary of one mode over one class, or over every item when
// Class is "", of the whole golden set (Split "") or of one split.
type Row struct {
	Split Split       `json:"split,omitempty"`
	Mode  ledger.Mode `json:"mode"`
	Class Class       `json:"class,omitempty"`
	Items int         `json:"items"`
	// Passed counts the items whose every check passed.
	Passed int `json:"passed"`
	// Supported counts the results whose status is supported, and
	// FalseSupported those of them that fail a check (false_supported).
	Supported      int `json:"supported"`
	FalseSupported int `json:"false_supported"`
	// Citations counts the citations of the row's results, and
	// SupportingCitations those that support their item (citation_support).
	Citations           int `json:"citations"`
	SupportingCitations int `json:"supporting_citations"`

	values map[Metric]float64 // absent: the metric does not apply (no item checks it)

	MeanCitations float64         `json:"mean_citations"`
	Tokens        int64           `json:"tokens"` // input and output tokens of the runs, summed
	CostUSD       decimal.Decimal `json:"cost_usd"`
	P50LatencyMS  int64           `json:"p50_latency_ms"`
	P90LatencyMS  int64           `json:"p90_latency_ms"`

	// Layer 2, over the items the judge scored.
	Judged       int             `json:"judged"`
	Faithfulness float64         `json:"faithfulness"`
	Relevance    float64         `json:"relevance"`
	JudgeTokens  int64           `json:"judge_tokens"`
	JudgeCostUSD decimal.Decimal `json:"judge_cost_usd"`
}

// Value returns a metric of the row, and false when no item of the row
// is subject to it (issuers_covered over refusals).
func (r Row) Value(m Metric) (float64, bool) {
	v, ok := r.values[m]
	return v, ok
}

// Label is the row's class, or "all".
func (r Row) Label() string {
	if r.Class == "" {
		return "all"
	}
	return string(r.Class)
}

// Summary is the per-mode, per-class summary of an evaluation: of the
// whole golden set (every result but the paraphrases: the tune and test
// halves together, and items the split does not name), and of each split.
type Summary struct {
	Modes []ledger.Mode // every mode run, in the order first seen
	Rows  []Row         // the whole set: by mode, then class in Classes order, then the "all" row
	// Splits are the splits that have results, in Splits order; SplitRows
	// their rows, by split, then as Rows.
	Splits    []Split
	SplitRows []Row
}

// Row returns the whole set's row of mode and class ("" for all), and
// false when the evaluation had no such items.
func (s *Summary) Row(mode ledger.Mode, class Class) (Row, bool) {
	return s.RowOf(SplitAll, mode, class)
}

// RowOf returns the row of split, mode and class ("" for all), and false
// when the evaluation had no such items. SplitAll is the whole set.
func (s *Summary) RowOf(split Split, mode ledger.Mode, class Class) (Row, bool) {
	rows := s.Rows
	if split != SplitAll {
		rows = s.SplitRows
	}
	for _, r := range rows {
		if r.Split == split && r.Mode == mode && r.Class == class {
			return r, true
		}
	}
	return Row{}, false
}

// Summarize summarises results by mode and class, over the whole set and
// over each split.
func Summarize(results []ItemResult) *Summary {
	s := &Summary{}
	whole := []*ItemResult{}
	bySplit := map[Split][]*ItemResult{}
	for i := range results {
		r := &results[i]
		if !slices.Contains(s.Modes, r.Mode) {
			s.Modes = append(s.Modes, r.Mode)
		}
		if r.Split != SplitParaphrase {
			whole = append(whole, r)
		}
		if r.Split != SplitAll {
			bySplit[r.Split] = append(bySplit[r.Split], r)
		}
	}
	s.Rows = summarizeRows(SplitAll, s.Modes, whole)
	for _, sp := range Splits() {
		if rs := bySplit[sp]; len(rs) > 0 {
			s.Splits = append(s.Splits, sp)
			s.SplitRows = append(s.SplitRows, summarizeRows(sp, s.Modes, rs)...)
		}
	}
	return s
}

// summarizeRows summarises the results of one split by mode (in the order
// given) and class.
func summarizeRows(split Split, modes []ledger.Mode, results []*ItemResult) []Row {
	var rows []Row
	by := map[ledger.Mode]map[Class][]*ItemResult{}
	for _, r := range results {
		if by[r.Mode] == nil {
			by[r.Mode] = map[Class][]*ItemResult{}
		}
		by[r.Mode][r.Class] = append(by[r.Mode][r.Class], r)
		by[r.Mode][""] = append(by[r.Mode][""], r)
	}
	for _, mode := range modes {
		for _, c := range append(Classes(), "") {
			if rs := by[mode][c]; len(rs) > 0 {
				rows = append(rows, summarizeRow(split, mode, c, rs))
			}
		}
		// Classes outside the known ones (a custom golden file) follow.
		var extra []Class
		for c := range by[mode] {
			if c != "" && !slices.Contains(Classes(), c) {
				extra = append(extra, c)
			}
		}
		slices.Sort(extra)
		for _, c := range extra {
			rows = append(rows, summarizeRow(split, mode, c, by[mode][c]))
		}
	}
	return rows
}

func summarizeRow(split Split, mode ledger.Mode, class Class, rs []*ItemResult) Row {
	row := Row{Split: split, Mode: mode, Class: class, Items: len(rs), values: map[Metric]float64{},
		CostUSD: decimal.Zero, JudgeCostUSD: decimal.Zero}
	type share struct{ num, den float64 }
	shares := map[Metric]*share{}
	count := func(m Metric, ok bool) {
		sh := shares[m]
		if sh == nil {
			sh = &share{}
			shares[m] = sh
		}
		sh.den++
		if ok {
			sh.num++
		}
	}
	var citations, valid int
	var issuers, issuerItems float64
	var lat []int64
	var faith, rel float64
	for _, r := range rs {
		if r.Passed {
			row.Passed++
		}
		count(MetricPassRate, r.Passed)
		for _, pair := range []struct {
			m     Metric
			check string
		}{
			{MetricStatusAccuracy, CheckStatus}, {MetricRefusalAccuracy, CheckRefusal},
			{MetricBudgetCompliance, CheckBudget}, {MetricFigureAccuracy, CheckFigures},
			{MetricEvidenceRecall, CheckEvidence},
		} {
			if c, ok := r.Check(pair.check); ok {
				count(pair.m, c.Passed)
			} else if _, failed := r.Check(CheckRun); failed && pair.m != MetricFigureAccuracy && pair.m != MetricEvidenceRecall {
				count(pair.m, false) // a run that failed is wrong on every count
			}
		}
		citations += r.Citations
		valid += r.ValidCitations
		row.SupportingCitations += r.SupportingCitations
		if r.Status == ledger.StatusSupported {
			row.Supported++
			if !r.Passed {
				row.FalseSupported++
			}
		}
		if r.IssuersCovered != nil {
			issuers += *r.IssuersCovered
			issuerItems++
		}
		row.Tokens += r.InputTokens + r.OutputTokens
		if c, err := decimal.NewFromString(r.CostUSD); err == nil {
			row.CostUSD = row.CostUSD.Add(c)
		}
		lat = append(lat, r.LatencyMS)
		if r.Judge != nil {
			row.JudgeTokens += r.Judge.InputTokens + r.Judge.OutputTokens
			if c, err := decimal.NewFromString(r.Judge.CostUSD); err == nil {
				row.JudgeCostUSD = row.JudgeCostUSD.Add(c)
			}
			if r.Judge.Scored() {
				row.Judged++
				faith += r.Judge.Faithfulness
				rel += r.Judge.Relevance
			}
		}
	}
	for m, sh := range shares {
		row.values[m] = sh.num / sh.den
	}
	row.values[MetricCitationValidity] = 1
	if citations > 0 {
		row.values[MetricCitationValidity] = float64(valid) / float64(citations)
	}
	if issuerItems > 0 {
		row.values[MetricIssuersCovered] = issuers / issuerItems
	}
	row.Citations = citations
	row.values[MetricFalseSupported] = 0
	if row.Supported > 0 {
		row.values[MetricFalseSupported] = float64(row.FalseSupported) / float64(row.Supported)
	}
	if citations > 0 {
		row.values[MetricCitationSupport] = float64(row.SupportingCitations) / float64(citations)
	}
	row.MeanCitations = float64(citations) / float64(len(rs))
	row.P50LatencyMS = percentile(lat, 50)
	row.P90LatencyMS = percentile(lat, 90)
	if row.Judged > 0 {
		row.Faithfulness = faith / float64(row.Judged)
		row.Relevance = rel / float64(row.Judged)
	}
	return row
}

// percentile is the nearest-rank percentile of xs.
func percentile(xs []int64, p int) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := (p*len(s) + 99) / 100 // ceil(p/100 * n)
	return s[max(rank, 1)-1]
}

// Verdict is how one mode compares with another over a class.
type Verdict string

// The verdicts of a comparison.
const (
	VerdictWins  Verdict = "wins"
	VerdictTies  Verdict = "ties"
	VerdictLoses Verdict = "loses"
)

// Comparison is mode A against mode B over one class, by pass rate.
type Comparison struct {
	Class            Class
	A, B             ledger.Mode
	PassA, PassB     float64
	Verdict          Verdict // of A against B
	P50A, P50B       int64
	StatusA, StatusB float64
	// Default is the mode that should answer this class by default: A only
	// where it beats B, since B is the fixed path.
	Default ledger.Mode
}

// Compare compares mode a (the agentic path) with mode b (the fixed
// path) class by class. A class where a does not pass more items than b
// keeps b as its default.
func (s *Summary) Compare(a, b ledger.Mode) []Comparison {
	var out []Comparison
	for _, c := range append(Classes(), "") {
		ra, okA := s.Row(a, c)
		rb, okB := s.Row(b, c)
		if !okA || !okB {
			continue
		}
		pa, _ := ra.Value(MetricPassRate)
		pb, _ := rb.Value(MetricPassRate)
		sa, _ := ra.Value(MetricStatusAccuracy)
		sb, _ := rb.Value(MetricStatusAccuracy)
		cmp := Comparison{Class: c, A: a, B: b, PassA: pa, PassB: pb, P50A: ra.P50LatencyMS, P50B: rb.P50LatencyMS, StatusA: sa, StatusB: sb, Default: b}
		switch {
		case ra.Passed*rb.Items > rb.Passed*ra.Items:
			cmp.Verdict, cmp.Default = VerdictWins, a
		case ra.Passed*rb.Items == rb.Passed*ra.Items:
			cmp.Verdict = VerdictTies
		default:
			cmp.Verdict = VerdictLoses
		}
		out = append(out, cmp)
	}
	return out
}

// String is the comparison in a sentence.
func (c Comparison) String() string {
	label := string(c.Class)
	if label == "" {
		label = "all"
	}
	return fmt.Sprintf("%s: %s %s %s (pass rate %.2f vs %.2f); default %s", label, c.A, c.Verdict, c.B, c.PassA, c.PassB, c.Default)
}
