package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ledgerline/research/ledger"
)

// results makes n results of one mode and class, the first pass of which
// pass every check and the rest fail their status check.
func results(mode ledger.Mode, class Class, n, pass int) []ItemResult {
	var out []ItemResult
	for i := range n {
		ok := i < pass
		r := ItemResult{ID: fmt.Sprintf("g%03d", i), Class: class, Mode: mode, Passed: ok, CostUSD: "0.001", LatencyMS: int64(10 * (i + 1)),
			Citations: 2, ValidCitations: 2, InputTokens: 100, OutputTokens: 10,
			Checks: []Check{{Name: CheckStatus, Passed: ok}, {Name: CheckRefusal, Passed: true}, {Name: CheckCitations, Passed: true}, {Name: CheckBudget, Passed: true}}}
		out = append(out, r)
	}
	return out
}

func TestThresholdCheck(t *testing.T) {
	th := &Thresholds{Golden: []Threshold{
		{Mode: ledger.ModeRules, Class: ClassFact, Metric: MetricPassRate, Min: 0.87, Reason: "7/8 when set"},
		{Mode: ledger.ModeRules, Metric: MetricCitationValidity, Min: 1, Reason: "always"},
		{Mode: ledger.ModeBaseline, Class: ClassFact, Metric: MetricPassRate, Min: 0.5, Reason: "not run here"},
	}}
	tests := []struct {
		name string
		res  []ItemResult
		want []string // thresholds violated
	}{
		{"as good as when set", results(ledger.ModeRules, ClassFact, 8, 7), nil},
		{"better", results(ledger.ModeRules, ClassFact, 8, 8), nil},
		{"one more failure", results(ledger.ModeRules, ClassFact, 8, 6), []string{"rules/fact pass_rate"}},
		{"the class is gone", results(ledger.ModeRules, ClassTrap, 8, 8), []string{"rules/fact pass_rate"}},
		{"an invalid citation", func() []ItemResult {
			rs := results(ledger.ModeRules, ClassFact, 8, 7)
			rs[0].ValidCitations = 1
			return rs
		}(), []string{"rules/all citation_validity"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := th.Check(Summarize(tt.res), nil)
			var got []string
			for _, v := range vs {
				got = append(got, v.Threshold)
				if v.Reason == "" || !strings.Contains(v.String(), v.Threshold) {
					t.Errorf("violation %+v does not explain itself: %s", v, v)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("violations %v; want %v", got, tt.want)
			}
		})
	}
}

// split sets the split of results.
func split(sp Split, rs []ItemResult) []ItemResult {
	for i := range rs {
		rs[i].Split = sp
	}
	return rs
}

// supported makes the results at the indexes given supported.
func supported(rs []ItemResult, idx ...int) []ItemResult {
	for _, i := range idx {
		rs[i].Status = ledger.StatusSupported
	}
	return rs
}

// TestThresholdMaxCheck checks thresholds held by their maximum
// (false_supported) and thresholds of a split.
func TestThresholdMaxCheck(t *testing.T) {
	loaded, err := LoadThresholds(strings.NewReader(`{"golden":[
		{"split":"test","mode":"rules","metric":"false_supported","max":0.25,"reason":"1/4 when set; the goal is 0"},
		{"split":"test","mode":"rules","metric":"pass_rate","min":0.5,"reason":"r"},
		{"split":"paraphrase","mode":"rules","metric":"citation_support","min":0.5,"reason":"r"},
		{"mode":"rules","metric":"pass_rate","min":0.5,"reason":"the whole set"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded.Golden[0].Name(); got != "test: rules/all false_supported" {
		t.Errorf("name %q; want the split before the mode", got)
	}
	tests := []struct {
		name string
		res  []ItemResult
		want []string
	}{
		// 8 test results, the first 6 pass.
		{"at the maximum: 1/4", supported(split(SplitTest, results(ledger.ModeRules, ClassFact, 8, 6)), 0, 1, 2, 6), nil},
		{"none supported is 0", split(SplitTest, results(ledger.ModeRules, ClassFact, 8, 6)), nil},
		{"supported and passing", supported(split(SplitTest, results(ledger.ModeRules, ClassFact, 8, 6)), 0, 1, 2, 3, 4, 5), nil},
		{"above the maximum: 1/3", supported(split(SplitTest, results(ledger.ModeRules, ClassFact, 8, 6)), 0, 1, 6), []string{"test: rules/all false_supported"}},
		{"every supported one fails", supported(split(SplitTest, results(ledger.ModeRules, ClassFact, 8, 6)), 6, 7), []string{"test: rules/all false_supported"}},
		{"paraphrases cite nothing that supports", append(split(SplitTest, results(ledger.ModeRules, ClassFact, 8, 8)),
			split(SplitParaphrase, results(ledger.ModeRules, ClassFact, 2, 2))...), []string{"paraphrase: rules/all citation_support"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range loaded.Check(Summarize(tt.res), nil) {
				got = append(got, v.Threshold)
				if v.Max != nil && !strings.Contains(v.String(), "above its maximum") {
					t.Errorf("violation of a maximum reads %q", v)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("violations %v; want %v", got, tt.want)
			}
		})
	}
	// A split that did not run is not checked; the whole set still is.
	vs := loaded.Check(Summarize(results(ledger.ModeRules, ClassFact, 8, 2)), nil)
	if len(vs) != 1 || vs[0].Threshold != "rules/all pass_rate" {
		t.Errorf("without splits, violations %v; want only the whole set's pass rate", vs)
	}
}

func TestRetrievalThresholdCheck(t *testing.T) {
	th := &Thresholds{Retrieval: []RetrievalThreshold{
		{Method: "hybrid", Metric: "recall@10", Min: 0.74, Reason: "r"},
		{Method: "hybrid+interleave", Metric: "issuer_coverage", Min: 1, Reason: "r"},
	}}
	scores := []MethodScore{
		{Method: "hybrid", Recall: map[int]float64{10: 0.7483}},
		{Method: "hybrid+interleave", Recall: map[int]float64{10: 0.7483}, IssuerCoverage: 1},
	}
	s := Summarize(nil)
	if vs := th.Check(s, scores); len(vs) != 0 {
		t.Errorf("violations %v; want none", vs)
	}
	scores[0].Recall[10] = 0.70
	scores[1].IssuerCoverage = 0.875
	if vs := th.Check(s, scores); len(vs) != 2 {
		t.Errorf("violations %v; want hybrid recall@10 and interleave issuer coverage", vs)
	}
	if vs := th.Check(s, nil); len(vs) != 0 {
		t.Errorf("retrieval not run, violations %v; want none", vs)
	}
	if vs := th.Check(s, scores[:1]); len(vs) != 2 || !vs[1].Missing {
		t.Errorf("a method missing from the scores: %v; want it reported as not measured", vs)
	}
}

func TestLoadThresholdsErrors(t *testing.T) {
	for name, in := range map[string]string{
		"no reason":      `{"golden":[{"mode":"rules","metric":"pass_rate","min":0.5}]}`,
		"unknown metric": `{"golden":[{"mode":"rules","metric":"vibes","min":0.5,"reason":"r"}]}`,
		"unknown class":  `{"golden":[{"mode":"rules","class":"poetry","metric":"pass_rate","min":0.5,"reason":"r"}]}`,
		"unknown mode":   `{"golden":[{"mode":"oracle","metric":"pass_rate","min":0.5,"reason":"r"}]}`,
		"above one":      `{"golden":[{"mode":"rules","metric":"pass_rate","min":1.5,"reason":"r"}]}`,
		"twice":          `{"golden":[{"mode":"rules","metric":"pass_rate","min":0.5,"reason":"r"},{"mode":"rules","metric":"pass_rate","min":0.6,"reason":"r"}]}`,
		"unknown field":  `{"golden":[{"mode":"rules","metric":"pass_rate","min":0.5,"reason":"r","ceiling":1}]}`,
		"max of a min":   `{"golden":[{"mode":"rules","metric":"pass_rate","min":0.5,"max":0.9,"reason":"r"}]}`,
		"min of a max":   `{"golden":[{"mode":"rules","metric":"false_supported","min":0.1,"reason":"r"}]}`,
		"min and max":    `{"golden":[{"mode":"rules","metric":"false_supported","min":0.1,"max":0.2,"reason":"r"}]}`,
		"max above one":  `{"golden":[{"mode":"rules","metric":"false_supported","max":1.5,"reason":"r"}]}`,
		"unknown split":  `{"golden":[{"split":"holdout","mode":"rules","metric":"pass_rate","min":0.5,"reason":"r"}]}`,
		"split twice":    `{"golden":[{"split":"test","mode":"rules","metric":"pass_rate","min":0.5,"reason":"r"},{"split":"test","mode":"rules","metric":"pass_rate","min":0.6,"reason":"r"}]}`,
		"bad method":     `{"retrieval":[{"method":"bm25","metric":"recall@10","min":0.5,"reason":"r"}]}`,
		"bad cut-off":    `{"retrieval":[{"method":"hybrid","metric":"recall@7","min":0.5,"reason":"r"}]}`,
	} {
		if _, err := LoadThresholds(strings.NewReader(in)); err == nil {
			t.Errorf("%s: loaded; want an error", name)
		}
	}
}

func TestSummarize(t *testing.T) {
	rs := append(results(ledger.ModeRules, ClassFact, 4, 3), results(ledger.ModeRules, ClassTrap, 2, 0)...)
	rs = append(rs, results(ledger.ModeBaseline, ClassFact, 4, 1)...)
	covered := 0.5
	rs[0].IssuersCovered = &covered
	s := Summarize(rs)
	row, ok := s.Row(ledger.ModeRules, ClassFact)
	if !ok || row.Items != 4 || row.Passed != 3 {
		t.Fatalf("rules/fact row %+v", row)
	}
	if v, _ := row.Value(MetricPassRate); v != 0.75 {
		t.Errorf("pass rate %v; want 0.75", v)
	}
	if v, ok := row.Value(MetricIssuersCovered); !ok || v != 0.5 {
		t.Errorf("issuers covered %v %v; want 0.5 over the one item that names issuers", v, ok)
	}
	if _, ok := row.Value(MetricFigureAccuracy); ok {
		t.Error("figure accuracy reported for items that expect no figures")
	}
	if row.P50LatencyMS != 20 || row.P90LatencyMS != 40 || row.Tokens != 440 || row.CostUSD.String() != "0.004" {
		t.Errorf("p50 %d p90 %d tokens %d cost %s; want 20, 40, 440, 0.004", row.P50LatencyMS, row.P90LatencyMS, row.Tokens, row.CostUSD)
	}
	all, _ := s.Row(ledger.ModeRules, "")
	if all.Items != 6 || all.Passed != 3 {
		t.Errorf("rules/all %d of %d; want 3 of 6", all.Passed, all.Items)
	}
	cmp := s.Compare(ledger.ModeRules, ledger.ModeBaseline)
	if len(cmp) != 2 || cmp[0].Class != ClassFact || cmp[0].Verdict != VerdictWins || cmp[0].Default != ledger.ModeRules {
		t.Errorf("comparison %+v; want rules winning facts and becoming their default", cmp)
	}
	if cmp[1].Class != "" || cmp[1].Default != ledger.ModeRules {
		t.Errorf("overall comparison %+v", cmp[1])
	}
}

func TestCompareKeepsTheFixedPathUnlessPlanningWins(t *testing.T) {
	for _, tt := range []struct {
		rules, base int
		want        Verdict
		def         ledger.Mode
	}{
		{3, 2, VerdictWins, ledger.ModeRules},
		{2, 2, VerdictTies, ledger.ModeBaseline},
		{1, 2, VerdictLoses, ledger.ModeBaseline},
	} {
		rs := append(results(ledger.ModeRules, ClassOutlook, 4, tt.rules), results(ledger.ModeBaseline, ClassOutlook, 4, tt.base)...)
		c := Summarize(rs).Compare(ledger.ModeRules, ledger.ModeBaseline)[0]
		if c.Verdict != tt.want || c.Default != tt.def {
			t.Errorf("rules %d vs baseline %d: %s, default %s; want %s, default %s", tt.rules, tt.base, c.Verdict, c.Default, tt.want, tt.def)
		}
	}
}

func TestPercentile(t *testing.T) {
	for _, tt := range []struct {
		xs   []int64
		p    int
		want int64
	}{
		{nil, 50, 0}, {[]int64{5}, 50, 5}, {[]int64{3, 1, 2}, 50, 2}, {[]int64{1, 2, 3, 4}, 50, 2}, {[]int64{1, 2, 3, 4}, 90, 4},
	} {
		if got := percentile(tt.xs, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %d) = %d; want %d", tt.xs, tt.p, got, tt.want)
		}
	}
}
