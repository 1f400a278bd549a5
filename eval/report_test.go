package eval

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/ledger"
)

func sampleReport() *Report {
	rs := append(results(ledger.ModeRules, ClassFact, 4, 3), results(ledger.ModeBaseline, ClassFact, 4, 1)...)
	rs = append(rs, results(ledger.ModeRules, ClassTrap, 2, 1)...)
	rs = append(rs, results(ledger.ModeBaseline, ClassTrap, 2, 2)...)
	rs[3].Checks[0].Reason = "status partial; want supported | with a pipe"
	return &Report{
		Command: "research eval --modes rules,baseline", Generated: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
		Corpus: "19 documents", Concurrency: 4, Results: rs, Summary: Summarize(rs),
		Judge: "skipped: no judge model configured", JudgeSkipped: true,
		Retrieval:   []MethodScore{{Method: "hybrid", Recall: map[int]float64{5: 0.6, 10: 0.75}, NDCG: map[int]float64{5: 0.46, 10: 0.5}, MRR: 0.43, IssuerCoverage: 1}},
		RetrievalKs: []int{5, 10}, RetrievalQueries: 49,
		ThresholdsChecked: true, Violations: []Violation{{Threshold: "rules/fact pass_rate", Got: 0.75, Min: 0.8, Reason: "r"}},
	}
}

func TestWriteFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	rep := sampleReport()
	if err := rep.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"`research eval --modes rules,baseline`",
		"| rules | fact | 4 | 0.75 |",
		"| baseline | trap | 2 | 1.00 |",
		"## Agentic (rules) against the fixed baseline",
		"| fact | 0.75 | 0.25 | wins |",
		"| trap | 0.50 | 1.00 | loses |",
		"FAILED rules/fact pass_rate = 0.750, below its threshold 0.800",
		"Skipped: skipped: no judge model configured",
		"| hybrid | 0.600 | 0.750 | 0.460 | 0.500 | 0.430 | 1.000 |",
		"want supported \\| with a pipe",
		"](chart.svg)",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}

	f, err := os.Open(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		var r ItemResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("results.jsonl line %d: %v", lines+1, err)
		}
		if r.ID == "" || r.Mode == "" || len(r.Checks) == 0 {
			t.Errorf("results.jsonl line %d lacks its item, mode or checks: %s", lines+1, sc.Text())
		}
		lines++
	}
	if lines != len(rep.Results) {
		t.Errorf("results.jsonl has %d lines; want %d", lines, len(rep.Results))
	}

	svg, err := os.ReadFile(filepath.Join(dir, ChartFile))
	if err != nil {
		t.Fatal(err)
	}
	checkSVG(t, svg)
}

// checkSVG parses the chart as XML and checks it draws a bar per mode and
// class in each panel and labels both panels.
func checkSVG(t *testing.T, svg []byte) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	bars, texts := 0, []string{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("chart.svg is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "title" {
			bars++
		}
		if cd, ok := tok.(xml.CharData); ok && strings.TrimSpace(string(cd)) != "" {
			texts = append(texts, string(cd))
		}
	}
	// 2 modes x (fact, trap, all) x 2 panels.
	if bars != 12 {
		t.Errorf("chart has %d bars; want 12", bars)
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"Pass rate by class", "p50 latency (ms) by class", "rules", "baseline", "fact", "trap", "all"} {
		if !strings.Contains(joined, want) {
			t.Errorf("chart lacks the text %q", want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	if err := WriteTable(&b, sampleReport().Summary); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"pass rate", "citations", "issuers", "status acc", "tokens", "cost USD", "p50 ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks the column %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "faithful") {
		t.Errorf("judge columns shown with nothing judged:\n%s", out)
	}
	if n := strings.Count(out, "\n"); n != 7 {
		t.Errorf("table has %d lines; want a header and six rows:\n%s", n, out)
	}
}

func TestNiceCeil(t *testing.T) {
	for in, want := range map[int64]int64{1: 1, 3: 5, 7: 10, 147: 200, 501: 1000, 2000: 2000} {
		if got := niceCeil(in); got != want {
			t.Errorf("niceCeil(%d) = %d; want %d", in, got, want)
		}
	}
}
