package eval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

// ThresholdsJSON is the committed thresholds file, embedded in the binary.
//
//go:embed thresholds.json
var ThresholdsJSON []byte

// Thresholds are the minimum figures an evaluation must reach; the CI test
// fails when a change brings one below its threshold.
type Thresholds struct {
	// About says what the figures were measured on and how to update them.
	About     string               `json:"about"`
	Golden    []Threshold          `json:"golden"`
	Retrieval []RetrievalThreshold `json:"retrieval"`
}

// Threshold is the minimum of one metric, or the maximum of one where
// lower is better (false_supported), for one mode over one class of one
// split.
type Threshold struct {
	// Split is "" for the whole golden set (the tune and test halves
	// together, as before the split), or tune, test or paraphrase.
	Split  Split       `json:"split,omitempty"`
	Mode   ledger.Mode `json:"mode"`
	Class  Class       `json:"class,omitempty"` // "" means every item of the mode
	Metric Metric      `json:"metric"`
	Min    float64     `json:"min,omitempty"`
	// Max holds a metric where lower is better (Metric.LowerIsBetter), and
	// only such a metric; nil for the others.
	Max    *float64 `json:"max,omitempty"`
	Reason string   `json:"reason"` // why this figure: what it guards, what it was when set
}

// Name identifies the threshold in messages: "rules/fact pass_rate", and
// "test: rules/all false_supported" for a split's.
func (t Threshold) Name() string {
	c := string(t.Class)
	if c == "" {
		c = "all"
	}
	name := fmt.Sprintf("%s/%s %s", t.Mode, c, t.Metric)
	if t.Split != SplitAll {
		name = string(t.Split) + ": " + name
	}
	return name
}

// RetrievalThreshold is the minimum of one retrieval score of one method
// over the golden items that name their evidence.
type RetrievalThreshold struct {
	Method string  `json:"method"` // a Methods name: "hybrid+interleave"
	Metric string  `json:"metric"` // "recall@5", "recall@10", "ndcg@5", "ndcg@10", "mrr" or "issuer_coverage"
	Min    float64 `json:"min"`
	Reason string  `json:"reason"`
}

// Name identifies the threshold in messages: "retrieval hybrid recall@10".
func (t RetrievalThreshold) Name() string {
	return fmt.Sprintf("retrieval %s %s", t.Method, t.Metric)
}

var retrievalMetrics = []string{"recall@5", "recall@10", "ndcg@5", "ndcg@10", "mrr", "issuer_coverage"}

// LoadThresholds reads and checks a thresholds file; errors name the
// threshold at fault.
func LoadThresholds(r io.Reader) (*Thresholds, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var th Thresholds
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&th); err != nil {
		return nil, fmt.Errorf("thresholds: %v", err)
	}
	seen := map[string]bool{}
	for i, t := range th.Golden {
		where := fmt.Sprintf("thresholds: golden[%d] (%s)", i, t.Name())
		switch {
		case t.Mode != ledger.ModeRules && t.Mode != ledger.ModeBaseline && t.Mode != ledger.ModeModel && t.Mode != executor.ModeAuto:
			return nil, fmt.Errorf("%s: mode %q is not rules, baseline, auto or model", where, t.Mode)
		case t.Class != "" && !slices.Contains(Classes(), t.Class):
			return nil, fmt.Errorf("%s: class %q is not one of %v", where, t.Class, Classes())
		case t.Split != SplitAll && !slices.Contains(Splits(), t.Split):
			return nil, fmt.Errorf("%s: split %q is not one of %v (or empty for the whole set)", where, t.Split, Splits())
		case !slices.Contains(Metrics(), t.Metric):
			return nil, fmt.Errorf("%s: metric %q is not one of %v", where, t.Metric, Metrics())
		case t.Metric.LowerIsBetter() && t.Max == nil:
			return nil, fmt.Errorf("%s: %s is held by max (lower is better); set max, not min", where, t.Metric)
		case t.Metric.LowerIsBetter() && t.Min != 0:
			return nil, fmt.Errorf("%s: %s is held by max (lower is better); min %v does not apply", where, t.Metric, t.Min)
		case !t.Metric.LowerIsBetter() && t.Max != nil:
			return nil, fmt.Errorf("%s: %s is held by min (higher is better); max applies to false_supported only", where, t.Metric)
		case t.Min < 0 || t.Min > 1:
			return nil, fmt.Errorf("%s: min %v is outside 0 to 1", where, t.Min)
		case t.Max != nil && (*t.Max < 0 || *t.Max > 1):
			return nil, fmt.Errorf("%s: max %v is outside 0 to 1", where, *t.Max)
		case strings.TrimSpace(t.Reason) == "":
			return nil, fmt.Errorf("%s: reason is required: say what the threshold guards", where)
		case seen[t.Name()]:
			return nil, fmt.Errorf("%s: set twice", where)
		}
		seen[t.Name()] = true
	}
	for i, t := range th.Retrieval {
		where := fmt.Sprintf("thresholds: retrieval[%d] (%s)", i, t.Name())
		switch {
		case !slices.ContainsFunc(Methods, func(m Method) bool { return m.Name == t.Method }):
			return nil, fmt.Errorf("%s: method %q is not a retrieval method", where, t.Method)
		case !slices.Contains(retrievalMetrics, t.Metric):
			return nil, fmt.Errorf("%s: metric %q is not one of %v", where, t.Metric, retrievalMetrics)
		case t.Min < 0 || t.Min > 1:
			return nil, fmt.Errorf("%s: min %v is outside 0 to 1", where, t.Min)
		case strings.TrimSpace(t.Reason) == "":
			return nil, fmt.Errorf("%s: reason is required: say what the threshold guards", where)
		case seen[t.Name()]:
			return nil, fmt.Errorf("%s: set twice", where)
		}
		seen[t.Name()] = true
	}
	return &th, nil
}

// Violation is a figure below its minimum, or above its maximum.
type Violation struct {
	Threshold string   `json:"threshold"`
	Got       float64  `json:"got"`
	Min       float64  `json:"min"`
	Max       *float64 `json:"max,omitempty"` // set for a threshold held by its maximum
	Reason    string   `json:"reason"`
	Missing   bool     `json:"missing,omitempty"` // the evaluation produced no such figure
}

func (v Violation) String() string {
	bound, limit := "threshold", v.Min
	if v.Max != nil {
		bound, limit = "maximum", *v.Max
	}
	switch {
	case v.Missing:
		return fmt.Sprintf("%s: not measured, although the mode ran (%s %.3f: %s)", v.Threshold, bound, limit, v.Reason)
	case v.Max != nil:
		return fmt.Sprintf("%s = %.3f, above its maximum %.3f (%s)", v.Threshold, v.Got, limit, v.Reason)
	}
	return fmt.Sprintf("%s = %.3f, below its threshold %.3f (%s)", v.Threshold, v.Got, limit, v.Reason)
}

// Check compares a summary, and retrieval scores when given, with the
// thresholds. Thresholds of modes the summary did not run, of splits it
// has no results of (paraphrases left out), and retrieval thresholds when
// scores is nil, are not checked; a threshold whose mode and split ran but
// whose figure is absent (a class without items) is a violation. Figures
// are compared after rounding to four decimals, so 7/8 meets 0.875; a
// threshold with Max fails above it, any other below its Min.
func (th *Thresholds) Check(s *Summary, scores []MethodScore) []Violation {
	var out []Violation
	for _, t := range th.Golden {
		if !slices.Contains(s.Modes, t.Mode) || (t.Split != SplitAll && !slices.Contains(s.Splits, t.Split)) {
			continue
		}
		row, ok := s.RowOf(t.Split, t.Mode, t.Class)
		var got float64
		if ok {
			got, ok = row.Value(t.Metric)
		}
		v := Violation{Threshold: t.Name(), Got: got, Min: t.Min, Max: t.Max, Reason: t.Reason}
		switch {
		case !ok:
			v.Got, v.Missing = 0, true
			out = append(out, v)
		case t.Max != nil && round4(got) > round4(*t.Max):
			out = append(out, v)
		case t.Max == nil && round4(got) < round4(t.Min):
			out = append(out, v)
		}
	}
	if scores == nil {
		return out
	}
	for _, t := range th.Retrieval {
		i := slices.IndexFunc(scores, func(m MethodScore) bool { return m.Method == t.Method })
		if i < 0 {
			out = append(out, Violation{Threshold: t.Name(), Min: t.Min, Reason: t.Reason, Missing: true})
			continue
		}
		got, ok := retrievalValue(scores[i], t.Metric)
		if !ok {
			out = append(out, Violation{Threshold: t.Name(), Min: t.Min, Reason: t.Reason, Missing: true})
			continue
		}
		if round4(got) < round4(t.Min) {
			out = append(out, Violation{Threshold: t.Name(), Got: got, Min: t.Min, Reason: t.Reason})
		}
	}
	return out
}

func retrievalValue(m MethodScore, metric string) (float64, bool) {
	var k int
	switch {
	case metric == "mrr":
		return m.MRR, true
	case metric == "issuer_coverage":
		return m.IssuerCoverage, true
	case strings.HasPrefix(metric, "recall@"):
		fmt.Sscanf(metric, "recall@%d", &k)
		v, ok := m.Recall[k]
		return v, ok
	case strings.HasPrefix(metric, "ndcg@"):
		fmt.Sscanf(metric, "ndcg@%d", &k)
		v, ok := m.NDCG[k]
		return v, ok
	}
	return 0, false
}

func round4(x float64) float64 {
	return float64(int64(x*10000+0.5)) / 10000
}
