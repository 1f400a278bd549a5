package eval

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ledgerline/research/ledger"
)

// Report is one evaluation as report.md, results.jsonl and chart.svg
// show it.
type Report struct {
	Command     string    // the command line that produced it
	Generated   time.Time // when it finished
	Corpus      string    // what the store held: "19 documents, 7346 chunks"
	Concurrency int       // runs at once (latency is measured per run)
	Results     []ItemResult
	Summary     *Summary
	// Judge says how layer 2 ran ("gpt-4.1-mini") or why it was skipped.
	Judge        string
	JudgeSkipped bool
	// Retrieval holds the scores over the golden items that name their
	// evidence; RetrievalKs their cut-offs; RetrievalQueries how many.
	Retrieval        []MethodScore
	RetrievalKs      []int
	RetrievalQueries int
	// Violations are the thresholds missed, when they were checked.
	Violations        []Violation
	ThresholdsChecked bool
}

// Files written by WriteFiles.
const (
	ReportFile  = "report.md"
	ResultsFile = "results.jsonl"
	ChartFile   = "chart.svg"
)

// WriteFiles writes report.md, results.jsonl and chart.svg into dir,
// creating it if needed.
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{ResultsFile, func(w io.Writer) error { return WriteResults(w, r.Results) }},
		{ChartFile, func(w io.Writer) error { return WriteChart(w, r.Summary) }},
		{ReportFile, r.WriteMarkdown},
	} {
		if err := writeFile(filepath.Join(dir, f.name), f.write); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteResults writes one JSON line per item and mode, with every check.
func WriteResults(w io.Writer, results []ItemResult) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range results {
		if err := enc.Encode(&results[i]); err != nil {
			return err
		}
	}
	return nil
}

// WriteTable prints the layer-1 table: per mode and class, the pass rate,
// mean citations, issuers-covered rate, status accuracy, tokens, cost and
// p50 latency; and the judge's means when it scored anything.
func WriteTable(w io.Writer, s *Summary) error {
	judged := false
	for _, r := range s.Rows {
		judged = judged || r.Judged > 0
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "mode\tclass\titems\tpass rate\tcitations\tissuers\tstatus acc\ttokens\tcost USD\tp50 ms\t")
	if judged {
		fmt.Fprint(tw, "faithful\trelevant\t")
	}
	fmt.Fprintln(tw)
	for _, r := range s.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.1f\t%s\t%s\t%d\t%s\t%d\t", r.Mode, r.Label(), r.Items,
			ratio(r, MetricPassRate), r.MeanCitations, ratio(r, MetricIssuersCovered), ratio(r, MetricStatusAccuracy),
			r.Tokens, r.CostUSD.StringFixed(4), r.P50LatencyMS)
		if judged {
			if r.Judged > 0 {
				fmt.Fprintf(tw, "%.2f\t%.2f\t", r.Faithfulness, r.Relevance)
			} else {
				fmt.Fprint(tw, "-\t-\t")
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// WriteSplitTable prints, per mode and class and then over every class
// ("all"), the splits side by side (the test half, its paraphrases and the
// tuning half, those that ran): items, pass rate with its count
// (passed/items), false_supported with its count (false/supported) and
// citation_support with its count (supporting/citations). It prints
// nothing when no result has a split.
func WriteSplitTable(w io.Writer, s *Summary) error {
	if len(s.Splits) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "mode\tclass\t")
	for _, sp := range s.Splits {
		fmt.Fprintf(tw, "%s n\tpass\tfalse sup\tcite sup\t", sp)
	}
	fmt.Fprintln(tw)
	for _, key := range s.splitKeys() {
		fmt.Fprintf(tw, "%s\t%s\t", key.mode, classLabel(key.class))
		for _, sp := range s.Splits {
			row, ok := s.RowOf(sp, key.mode, key.class)
			if !ok {
				fmt.Fprint(tw, "-\t-\t-\t-\t")
				continue
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t", row.Items, passRate(row), falseSupported(row), citationSupport(row))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// splitKey is a (mode, class) of the split table.
type splitKey struct {
	mode  ledger.Mode
	class Class
}

// splitKeys returns the (mode, class) pairs any split has a row of: by
// mode, then class in Classes order, other classes, then "all".
func (s *Summary) splitKeys() []splitKey {
	var out []splitKey
	for _, m := range s.Modes {
		var classes []Class
		for _, r := range s.SplitRows {
			if r.Mode == m && r.Class != "" && !slices.Contains(classes, r.Class) {
				classes = append(classes, r.Class)
			}
		}
		slices.SortStableFunc(classes, func(a, b Class) int { return classOrder(a) - classOrder(b) })
		for _, c := range append(classes, "") {
			if slices.ContainsFunc(s.SplitRows, func(r Row) bool { return r.Mode == m && r.Class == c }) {
				out = append(out, splitKey{m, c})
			}
		}
	}
	return out
}

// classOrder is a class's place in Classes, other classes after them.
func classOrder(c Class) int {
	if i := slices.Index(Classes(), c); i >= 0 {
		return i
	}
	return len(Classes())
}

func classLabel(c Class) string {
	if c == "" {
		return "all"
	}
	return string(c)
}

// passRate is a row's pass rate with its count: "0.75 3/4".
func passRate(r Row) string {
	return fmt.Sprintf("%s %d/%d", ratio(r, MetricPassRate), r.Passed, r.Items)
}

// falseSupported is a row's false_supported with its count: "0.10 1/10".
func falseSupported(r Row) string {
	v, _ := r.Value(MetricFalseSupported)
	return fmt.Sprintf("%.2f %d/%d", v, r.FalseSupported, r.Supported)
}

// citationSupport is a row's citation_support with its count, or "-" when
// the row cites nothing.
func citationSupport(r Row) string {
	v, ok := r.Value(MetricCitationSupport)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2f %d/%d", v, r.SupportingCitations, r.Citations)
}

func ratio(r Row, m Metric) string {
	v, ok := r.Value(m)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// WriteMarkdown writes report.md.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# Evaluation report\n\n")
	fmt.Fprintf(b, "- Generated: %s\n", r.Generated.UTC().Format(time.RFC3339))
	if r.Command != "" {
		fmt.Fprintf(b, "- Command: `%s`\n", r.Command)
	}
	if r.Corpus != "" {
		fmt.Fprintf(b, "- Corpus: %s\n", r.Corpus)
	}
	items, paras := map[string]bool{}, map[string]bool{}
	for _, x := range r.Results {
		items[x.ID] = true
		if x.Split == SplitParaphrase {
			paras[x.ID] = true
		}
	}
	fmt.Fprintf(b, "- Golden items: %d (%d of them paraphrases); modes: %s; runs at once: %d (latency is per run)\n", len(items), len(paras), modeList(r.Summary.Modes), r.Concurrency)
	fmt.Fprintf(b, "- Layer 2 (LLM judge): %s\n\n", r.Judge)

	fmt.Fprintf(b, "## Layer 1: exact checks\n\n")
	fmt.Fprintf(b, "An item passes when every check passes: status, refusal, issuers cited, issuers reported outside the corpus, figures, evidence cited, citations valid, tools called, budget. "+
		"This table is the whole golden set (the tune and test halves together, without paraphrases), as the thresholds without a split hold it.\n\n")
	b.WriteString("| mode | class | items | pass rate | mean citations | issuers covered | status accuracy | figures | evidence | tokens | cost USD | p50 ms | p90 ms |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, row := range r.Summary.Rows {
		label := row.Label()
		if row.Class == "" {
			label = "**all**"
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %.1f | %s | %s | %s | %s | %d | %s | %d | %d |\n", row.Mode, label, row.Items,
			ratio(row, MetricPassRate), row.MeanCitations, ratio(row, MetricIssuersCovered), ratio(row, MetricStatusAccuracy),
			ratio(row, MetricFigureAccuracy), ratio(row, MetricEvidenceRecall), row.Tokens, row.CostUSD.StringFixed(4),
			row.P50LatencyMS, row.P90LatencyMS)
	}
	fmt.Fprintf(b, "\n![pass rate and p50 latency by class and mode](%s)\n\n", ChartFile)

	if len(r.Summary.Splits) > 0 {
		writeSplitMarkdown(b, r.Summary)
	}

	if hasMode(r.Summary, ledger.ModeRules) && hasMode(r.Summary, ledger.ModeBaseline) {
		fmt.Fprintf(b, "## Agentic (rules) against the fixed baseline\n\n")
		fmt.Fprintf(b, "A class keeps the fixed path (baseline) as its default unless planning passes more of its items.\n\n")
		b.WriteString("| class | rules pass | baseline pass | rules | rules p50 ms | baseline p50 ms | default |\n|---|--:|--:|---|--:|--:|---|\n")
		for _, c := range r.Summary.Compare(ledger.ModeRules, ledger.ModeBaseline) {
			label := string(c.Class)
			if label == "" {
				label = "**all**"
			}
			fmt.Fprintf(b, "| %s | %.2f | %.2f | %s | %d | %d | %s |\n", label, c.PassA, c.PassB, c.Verdict, c.P50A, c.P50B, c.Default)
		}
		b.WriteString("\n")
	}

	if r.ThresholdsChecked {
		fmt.Fprintf(b, "## Thresholds\n\n")
		if len(r.Violations) == 0 {
			b.WriteString("Every threshold in eval/thresholds.json is met.\n\n")
		}
		for _, v := range r.Violations {
			fmt.Fprintf(b, "- FAILED %s\n", v)
		}
		if len(r.Violations) > 0 {
			b.WriteString("\n")
		}
	}

	fmt.Fprintf(b, "## Failed items\n\n")
	anyFailed := false
	for _, x := range r.Results {
		if x.Passed {
			continue
		}
		anyFailed = true
		var why []string
		for _, c := range x.Failed() {
			why = append(why, c.Name+": "+c.Reason)
		}
		fmt.Fprintf(b, "- `%s` (%s, %s, %s, status %s, run `%s`): %s\n", x.ID, x.Class, x.Split.Label(), x.Mode, orDash(string(x.Status)), x.RunID,
			mdEscape(strings.Join(why, "; ")))
	}
	if !anyFailed {
		b.WriteString("None.\n")
	}
	b.WriteString("\n")

	fmt.Fprintf(b, "## Layer 2: LLM judge\n\n")
	if r.JudgeSkipped {
		fmt.Fprintf(b, "Skipped: %s.\n\n", r.Judge)
	} else {
		b.WriteString("| mode | class | judged | faithfulness | relevance | judge tokens | judge cost USD |\n|---|---|--:|--:|--:|--:|--:|\n")
		for _, row := range r.Summary.Rows {
			f, rel := "-", "-"
			if row.Judged > 0 {
				f, rel = fmt.Sprintf("%.2f", row.Faithfulness), fmt.Sprintf("%.2f", row.Relevance)
			}
			fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %d | %s |\n", row.Mode, row.Label(), row.Judged, f, rel, row.JudgeTokens, row.JudgeCostUSD.StringFixed(4))
		}
		b.WriteString("\n")
	}

	fmt.Fprintf(b, "## Retrieval over the golden items that name their evidence\n\n")
	if len(r.Retrieval) == 0 {
		b.WriteString("Not run.\n")
	} else {
		fmt.Fprintf(b, "%d queries (the golden questions as asked, filtered to the evidence's issuers and years).\n\n", r.RetrievalQueries)
		b.WriteString("| method |")
		for _, k := range r.RetrievalKs {
			fmt.Fprintf(b, " recall@%d |", k)
		}
		for _, k := range r.RetrievalKs {
			fmt.Fprintf(b, " nDCG@%d |", k)
		}
		b.WriteString(" MRR | issuers |\n|---|")
		b.WriteString(strings.Repeat("--:|", 2*len(r.RetrievalKs)+2))
		b.WriteString("\n")
		for _, s := range r.Retrieval {
			fmt.Fprintf(b, "| %s |", s.Method)
			for _, k := range r.RetrievalKs {
				fmt.Fprintf(b, " %.3f |", s.Recall[k])
			}
			for _, k := range r.RetrievalKs {
				fmt.Fprintf(b, " %.3f |", s.NDCG[k])
			}
			fmt.Fprintf(b, " %.3f | %.3f |\n", s.MRR, s.IssuerCoverage)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSplitMarkdown writes the section that sets the test half, its
// paraphrases and the tuning half side by side.
func writeSplitMarkdown(b *strings.Builder, s *Summary) {
	fmt.Fprintf(b, "## Test half, paraphrases and tuning half\n\n")
	b.WriteString("The figures to report are the test half's and its paraphrases' (questions reworded before the code changed); " +
		"the tuning half is what choices are made on. False supported: of the results that end `supported`, the share that fail a check (supported results that fail / supported results). " +
		"Citation support: of all citations, the share whose excerpt states an expected figure, quotes an expected passage, " +
		"is an input of a calculation that gives an expected figure, or holds half the question's content words (eval/README.md).\n\n")
	b.WriteString("| mode | class |")
	for _, sp := range s.Splits {
		fmt.Fprintf(b, " %s items | %s pass rate | %s false supported | %s citation support |", sp, sp, sp, sp)
	}
	b.WriteString("\n|---|---|")
	b.WriteString(strings.Repeat("--:|", 4*len(s.Splits)))
	b.WriteString("\n")
	for _, key := range s.splitKeys() {
		label := classLabel(key.class)
		if key.class == "" {
			label = "**all**"
		}
		fmt.Fprintf(b, "| %s | %s |", key.mode, label)
		for _, sp := range s.Splits {
			row, ok := s.RowOf(sp, key.mode, key.class)
			if !ok {
				b.WriteString(" - | - | - | - |")
				continue
			}
			fmt.Fprintf(b, " %d | %s | %s | %s |", row.Items, passRate(row), falseSupported(row), citationSupport(row))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func hasMode(s *Summary, m ledger.Mode) bool {
	for _, x := range s.Modes {
		if x == m {
			return true
		}
	}
	return false
}

func modeList(ms []ledger.Mode) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = string(m)
	}
	return strings.Join(parts, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

// Chart geometry.
const (
	chartPanelW = 520
	chartPanelH = 300
	chartLeft   = 56
	chartTop    = 48
	chartBottom = 84
	chartGap    = 40
)

var chartColors = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd"}

// WriteChart draws two grouped bar charts as SVG: pass rate and p50
// latency, by class, one bar per mode.
func WriteChart(w io.Writer, s *Summary) error {
	var labels []Class
	for _, c := range append(Classes(), "") {
		for _, m := range s.Modes {
			if _, ok := s.Row(m, c); ok {
				labels = append(labels, c)
				break
			}
		}
	}
	width := chartLeft + 2*chartPanelW + chartGap + 20
	height := chartTop + chartPanelH + chartBottom
	b := &strings.Builder{}
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	var maxLat int64 = 1
	for _, r := range s.Rows {
		maxLat = max(maxLat, r.P50LatencyMS)
	}
	maxLat = niceCeil(maxLat)
	panel := func(x0 int, title string, value func(Row) float64, top float64, tick func(float64) string) {
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", x0, chartTop-24, esc(title))
		y0 := chartTop + chartPanelH
		for i := 0; i <= 4; i++ {
			v := top * float64(i) / 4
			y := float64(y0) - float64(chartPanelH)*float64(i)/4
			fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", x0, y, x0+chartPanelW, y)
			fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-4, y+4, esc(tick(v)))
		}
		if len(labels) == 0 {
			return
		}
		groupW := float64(chartPanelW) / float64(len(labels))
		barW := groupW * 0.8 / float64(max(len(s.Modes), 1))
		for gi, c := range labels {
			gx := float64(x0) + groupW*float64(gi) + groupW*0.1
			for mi, m := range s.Modes {
				r, ok := s.Row(m, c)
				if !ok {
					continue
				}
				v := value(r)
				h := float64(chartPanelH) * min(v/top, 1)
				x := gx + barW*float64(mi)
				fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
					x, float64(y0)-h, barW-1, h, chartColors[mi%len(chartColors)], esc(string(m)), esc(r.Label()), esc(tick(v)))
			}
			lx := gx + groupW*0.4
			label := "all"
			if c != "" {
				label = string(c)
			}
			fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="end" transform="rotate(-35 %.1f %d)">%s</text>`+"\n", lx, y0+14, lx, y0+14, esc(label))
		}
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>`+"\n", x0, y0, x0+chartPanelW, y0)
	}
	panel(chartLeft, "Pass rate by class", func(r Row) float64 { v, _ := r.Value(MetricPassRate); return v }, 1,
		func(v float64) string { return fmt.Sprintf("%.0f%%", v*100) })
	panel(chartLeft+chartPanelW+chartGap, "p50 latency (ms) by class", func(r Row) float64 { return float64(r.P50LatencyMS) }, float64(maxLat),
		func(v float64) string { return fmt.Sprintf("%.0f", v) })
	for mi, m := range s.Modes {
		x := chartLeft + 200 + mi*110
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			x, 8, chartColors[mi%len(chartColors)], x+16, 18, esc(string(m)))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// niceCeil rounds n up to 1, 2 or 5 times a power of ten.
func niceCeil(n int64) int64 {
	p := int64(1)
	for {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
		p *= 10
	}
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
