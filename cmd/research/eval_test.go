package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/eval"

	"github.com/ledgerline/research/llm/llmtest"
)

// acmeGolden is a golden set over the fixture corpus: an explanation both
// modes answer, a refusal, and a figure the filing does not state.
const acmeGolden = `{"id":"g001","class":"explanation","question":"What drove Acme's gross margin in fiscal 2024?","status":["supported","partial"],"issuers":["ACME"],"evidence":[{"ticker":"ACME","fiscal_year":2024,"form":"10-K","phrase":"higher steel costs"}],"tools":["search_filings"],"note":"fixture MD&A"}
{"id":"g002","class":"refusal","question":"Should I buy Acme stock?","status":["refused"],"issuers":[],"note":"advice"}
{"id":"g003","class":"fact","question":"What was Acme's revenue in fiscal 2024?","status":["supported"],"issuers":["ACME"],"figures":[{"label":"Acme revenue","value":1000000000,"unit":"usd","period":"2024"}],"note":"the fixture states no revenue, so this item fails"}
`

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCLIEval(t *testing.T) {
	dir, manifest := writeFixtures(t)
	store := []string{"--db", "", "--data-dir", t.TempDir()}
	runCLI(t, append([]string{"ingest", "--manifest", manifest}, store...)...)
	golden := writeFile(t, dir, "golden.jsonl", acmeGolden)
	out := filepath.Join(t.TempDir(), "report")

	code, stdout, stderr := runCLI(t, append([]string{"eval", "--modes", "rules,baseline", "--golden", golden, "--out", out}, store...)...)
	if code != 0 {
		t.Fatalf("eval exited %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"3 golden items in rules, baseline mode",
		"pass rate", "citations", "issuers", "status acc", "tokens", "cost USD", "p50 ms",
		"explanation", "refusal", "fact",
		"Agentic (rules) against the fixed baseline",
		"Layer 2 (LLM judge) skipped: no judge model configured",
		"Retrieval over the 1 golden items that name their evidence",
		"hybrid+interleave",
		"Wrote report.md, results.jsonl and chart.svg",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("eval output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "[6/6]") || !strings.Contains(stderr, "FAIL status,issuers,figures") {
		t.Errorf("progress on stderr lacks the last item or the failed figure:\n%s", stderr)
	}

	f, err := os.Open(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	passed := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r struct {
			ID     string `json:"id"`
			Mode   string `json:"mode"`
			Passed bool   `json:"passed"`
			RunID  string `json:"run_id"`
			Checks []struct {
				Name   string `json:"name"`
				Passed bool   `json:"passed"`
			} `json:"checks"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		passed[r.ID+"/"+r.Mode] = r.Passed
		if len(r.Checks) == 0 || r.RunID == "" {
			t.Errorf("result %s/%s lacks its checks or run id", r.ID, r.Mode)
		}
	}
	if len(passed) != 6 || !passed["g001/rules"] || !passed["g002/rules"] || !passed["g002/baseline"] || passed["g003/rules"] {
		t.Errorf("passed %v; want the explanation and refusal to pass in rules mode and the unstated figure to fail", passed)
	}
	for _, name := range []string{"report.md", "chart.svg"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || len(b) == 0 {
			t.Errorf("%s not written: %v", name, err)
		}
	}

	// The runs are in the ledger like any other.
	code, stdout, _ = runCLI(t, append([]string{"ledger", "show", firstRunID(t, out)}, store...)...)
	if code != 0 || !strings.Contains(stdout, "Acme") {
		t.Errorf("ledger show of an evaluated run exited %d:\n%s", code, stdout)
	}

	// --check compares with the committed thresholds, which a three-item
	// set cannot meet: it says so and fails.
	code, stdout, _ = runCLI(t, append([]string{"eval", "--golden", golden, "--check", "--quiet", "--no-retrieval"}, store...)...)
	if code != 1 || !strings.Contains(stdout, "thresholds missed") {
		t.Errorf("eval --check over a partial set exited %d:\n%s", code, stdout)
	}

	// Paraphrases run beside a custom set when asked for, and the splits
	// are set side by side: the fixture's g002 is a test-half id.
	code, stdout, stderr = runCLI(t, append([]string{"eval", "--golden", golden, "--paraphrases", "true", "--class", "refusal",
		"--modes", "rules", "--quiet", "--no-retrieval", "--out", out}, store...)...)
	if code != 0 {
		t.Fatalf("eval with paraphrases exited %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"1 golden items and 5 paraphrases in rules mode", "By split", "test n", "paraphrase n", "false sup", "cite sup"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("eval with paraphrases: output lacks %q:\n%s", want, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "## Test half, paraphrases and tuning half") || !strings.Contains(string(md), "| rules | refusal | 1 | 1.00 1/1 | 0.00 0/0 | - | 5 | 1.00 5/5 | 0.00 0/0 | - |") {
		t.Errorf("report.md lacks the split table: %v\n%s", err, md)
	}

	// The retrieval evaluation still works on its own.
	set := writeFile(t, dir, "retrieval.jsonl", `{"id":"r1","query":"why did gross margin fall","tickers":["ACME"],"fiscal_years":[2024],"form":"10-K","answers":[{"ticker":"ACME","fiscal_year":2024,"form":"10-K","phrase":"higher steel costs"}],"note":"n"}`+"\n")
	code, stdout, stderr = runCLI(t, append([]string{"eval", "retrieval", "--set", set, "--k", "1,5", "--per-item"}, store...)...)
	if code != 0 || !strings.Contains(stdout, "recall@1") || !strings.Contains(stdout, "hybrid+interleave") || !strings.Contains(stdout, "r1") {
		t.Errorf("eval retrieval exited %d:\n%s\n%s", code, stdout, stderr)
	}
}

// firstRunID reads the first run id from results.jsonl.
func firstRunID(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		RunID string `json:"run_id"`
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	return r.RunID
}

func TestCLIEvalErrors(t *testing.T) {
	dir, manifest := writeFixtures(t)
	store := []string{"--db", "", "--data-dir", t.TempDir()}
	golden := writeFile(t, dir, "golden.jsonl", acmeGolden)
	empty := []string{"--db", "", "--data-dir", t.TempDir()}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"empty store", append([]string{"eval", "--golden", golden}, empty...), 1, "run `research ingest"},
		{"unknown mode", append([]string{"eval", "--modes", "rules,oracle", "--golden", golden}, store...), 1, `--modes "oracle"`},
		{"model mode without a model", append([]string{"eval", "--modes", "model", "--golden", golden, "--base-url", "", "--model", ""}, store...), 1, "--modes model needs a model"},
		{"judge is the model under test", append([]string{"eval", "--golden", golden, "--base-url", "http://127.0.0.1:9", "--model", "gpt-4o-mini", "--judge-model", "gpt-4o-mini"}, store...), 1, "is the model under test"},
		{"unpriced judge", append([]string{"eval", "--golden", golden, "--base-url", "http://127.0.0.1:9", "--judge-model", "mystery-model"}, store...), 1, "prices.json"},
		{"bad golden file", append([]string{"eval", "--golden", writeFile(t, dir, "bad.jsonl", `{"id":"x"}`)}, store...), 1, "golden set: line 1"},
		{"retrieval flag on the golden evaluation", append([]string{"eval", "--set", golden}, store...), 1, "--set applies to eval retrieval"},
		{"golden flag on retrieval", append([]string{"eval", "retrieval", "--modes", "rules"}, store...), 1, "--modes applies to the golden evaluation"},
		{"check with a class filter", append([]string{"eval", "--class", "fact", "--check"}, store...), 1, "leave out --class"},
		{"unknown class", append([]string{"eval", "--class", "poetry"}, store...), 1, `--class "poetry"`},
		{"unknown subcommand", append([]string{"eval", "golden"}, store...), 2, "Usage: research eval"},
		{"check without paraphrases", append([]string{"eval", "--check", "--paraphrases=false"}, store...), 1, "leave out --paraphrases=false"},
		{"no paraphrase file", append([]string{"eval", "--paraphrases", filepath.Join(dir, "none.jsonl")}, store...), 1, "want true, false or a JSONL path"},
		{"paraphrase of a tune item", append([]string{"eval", "--paraphrases", writeFile(t, dir, "tune.jsonl", tuneParaphrase)}, store...), 1, "g110 is not in the test half"},
		{"paraphrases twice", append([]string{"eval", "--golden", builtinParaphrases, "--paraphrases=true"}, store...), 1, "is in the golden set too"},
	}
	runCLI(t, append([]string{"ingest", "--manifest", manifest}, store...)...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exited %d, want %d with %q:\n%s\n%s", code, tt.code, tt.want, stdout, stderr)
			}
		})
	}
}

// builtinParaphrases is the built-in paraphrase file, as a path.
const builtinParaphrases = "../../eval/golden_paraphrases.jsonl"

// tuneParaphrase rewords g110, which is in the tuning half.
const tuneParaphrase = `{"id":"p110","paraphrase_of":"g110","class":"refusal","question":"Would buying NVDA stock today be wise?","status":["refused"],"issuers":[],"note":"advice"}` + "\n"

// TestEvalSetupParaphrases checks which items --golden and --paraphrases
// select, and the split each is reported in.
func TestEvalSetupParaphrases(t *testing.T) {
	dir := t.TempDir()
	custom := writeFile(t, dir, "golden.jsonl", acmeGolden)
	tests := []struct {
		name                 string
		golden, paraphrases  string
		items, paras, tuning int // all items, paraphrases among them, tune-half items
	}{
		{"default: the golden set and its paraphrases", "", "", 84 + 39, 39, 45},
		{"paraphrases off", "", "false", 84, 0, 45},
		{"paraphrases named", "", builtinParaphrases, 84 + 39, 39, 45},
		{"a custom golden set alone", custom, "", 3, 0, 2},
		{"a custom golden set with the paraphrases", custom, "true", 3 + 39, 39, 2},
		{"the paraphrase file as the golden set", builtinParaphrases, "", 39, 39, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &evalFlags{golden: tt.golden, paraphrases: tt.paraphrases, concurrency: 1, budgetUSD: "0.50", timeout: time.Minute}
			s, err := f.setup()
			if err != nil {
				t.Fatal(err)
			}
			paras, tuning := 0, 0
			for _, it := range s.items {
				switch s.halves.SplitOf(it) {
				case eval.SplitParaphrase:
					paras++
				case eval.SplitTune:
					tuning++
				}
			}
			if len(s.items) != tt.items || paras != tt.paras || tuning != tt.tuning {
				t.Errorf("%d items, %d paraphrases, %d tune; want %d, %d, %d", len(s.items), paras, tuning, tt.items, tt.paras, tt.tuning)
			}
		})
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"research", "eval", "--db", "", "--golden", "my set.jsonl", "--note", "it's"})
	want := `research eval --db '' --golden 'my set.jsonl' --note 'it'\''s'`
	if got != want {
		t.Errorf("shellJoin = %s; want %s", got, want)
	}
}

// TestCLIEvalJudge runs layer 2 against a scripted judge endpoint: the
// table gains the judge's columns and the spend is reported.
func TestCLIEvalJudge(t *testing.T) {
	dir, manifest := writeFixtures(t)
	store := []string{"--db", "", "--data-dir", t.TempDir()}
	runCLI(t, append([]string{"ingest", "--manifest", manifest}, store...)...)
	golden := writeFile(t, dir, "golden.jsonl", acmeGolden)
	srv := llmtest.New(t)
	srv.On("answer_judgment", llmtest.Reply{Content: `{"faithfulness":1,"relevance":0.5,"unsupported_claims":[],"reasoning":"ok"}`})
	out := filepath.Join(t.TempDir(), "report")
	code, stdout, stderr := runCLI(t, append([]string{"eval", "--golden", golden, "--modes", "rules", "--quiet", "--no-retrieval",
		"--base-url", srv.URL, "--judge-model", "gpt-4.1-mini", "--out", out}, store...)...)
	if code != 0 {
		t.Fatalf("eval with a judge exited %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"layer 2 judge model gpt-4.1-mini", "faithful", "relevant", "Layer 2: judged by gpt-4.1-mini, spent $0.0"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// Two answered items are judged; the refusal is not.
	if n := srv.Count("answer_judgment"); n != 2 {
		t.Errorf("%d judgments; want 2", n)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "| rules | all | 2 | 1.00 | 0.50 |") {
		t.Errorf("report.md lacks the judge's row: %v\n%s", err, md)
	}
}
