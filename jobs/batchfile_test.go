package jobs

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/executor"
)

func TestParseBatch(t *testing.T) {
	q := `"question": "What drove Acme's gross margin in 2024?"`
	file := strings.Join([]string{
		`{` + q + `}`,
		``,
		`{` + q + `, "tickers": ["acme", " bolt "], "mode": "baseline", "budget_usd": "0.25", "max_calls": 12, "idempotency_key": "k-1"}`,
		`   `,
		`{` + q + `, "budget_usd": 0.1}` + "\r",
		`not json`,
		`{"question": "hi"}`,
		`{` + q + `, "colour": "blue"}`,
		`{` + q + `, "mode": "magic"}`,
		`{` + q + `, "tickers": ["BAD TICKER"]}`,
		`{` + q + `, "max_calls": -3}`,
		`{` + q + `, "max_calls": 1.5}`,
		`{` + q + `, "budget_usd": -1}`,
		`{` + q + `, "budget_usd": "lots"}`,
		`{` + q + `, "tickers": "ACME"}`,
		`[1, 2]`,
		`null`,
		`{` + q + `} {` + q + `}`,
		`{` + q + `, "idempotency_key": "` + strings.Repeat("k", MaxKeyLen+1) + `"}`,
		`{` + q + `, "mode": "model"}`,
		`{` + q + `, "budget_usd": 1e9999}`,
		`{` + q + `, "budget_usd": "1e-9999"}`,
	}, "\n")
	lines, bad, err := ParseBatch(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	wantLines := []int{1, 3, 5, 20}
	if len(lines) != len(wantLines) {
		t.Fatalf("accepted %d lines %+v; want lines %v", len(lines), lines, wantLines)
	}
	for i, l := range lines {
		if l.Line != wantLines[i] {
			t.Errorf("accepted line %d is numbered %d; want %d", i, l.Line, wantLines[i])
		}
	}
	full := lines[1]
	if strings.Join(full.Tickers, ",") != "ACME,BOLT" || full.Mode != "baseline" || full.MaxCalls != 12 || full.IdempotencyKey != "k-1" ||
		full.Limits == nil || !full.Limits.SpendUSD.Equal(decimal.RequireFromString("0.25")) || full.Limits.WallClock != executor.DefaultLimits().WallClock {
		t.Errorf("line 3 parsed as %+v", full)
	}
	if lines[0].Limits != nil {
		t.Errorf("line 1 without a budget has limits %+v; want the defaults (nil)", lines[0].Limits)
	}
	if !lines[2].Limits.SpendUSD.Equal(decimal.RequireFromString("0.1")) {
		t.Errorf("line 5 budget %s; want 0.1", lines[2].Limits.SpendUSD)
	}
	wantBad := map[int]string{
		6: "not valid JSON", 7: "question: 2 characters", 8: `unknown field "colour"`, 9: `mode: "magic"`,
		10: `tickers: "BAD TICKER"`, 11: "max_calls: -3 is negative", 12: "max_calls: got a JSON number 1.5",
		13: "budget_usd -1", 14: "budget_usd:", 15: "tickers: got a JSON string, want a list of strings",
		16: "got a JSON array", 17: "null", 18: "not valid JSON", 19: "idempotency_key: 201 bytes",
		21: "budget_usd: want an amount such as 0.50, below 10^12", 22: "at most 8 decimal places",
	}
	if len(bad) != len(wantBad) {
		t.Errorf("%d bad lines %v; want %d", len(bad), bad, len(wantBad))
	}
	for _, e := range bad {
		want, ok := wantBad[e.Line]
		if !ok {
			t.Errorf("line %d rejected (%v); want it accepted", e.Line, e.Err)
			continue
		}
		if !strings.Contains(e.Error(), want) || !strings.HasPrefix(e.Error(), "line ") || len(e.Error()) > 200 {
			t.Errorf("line %d: %q; want it to say %q", e.Line, e.Error(), want)
		}
	}
}

func TestParseBatchBounds(t *testing.T) {
	long := `{"question": "` + strings.Repeat("a", MaxLineBytes) + `"}`
	lines, bad, err := ParseBatch(strings.NewReader(long + "\n" + `{"question": "After the long line"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || bad[0].Line != 1 || !strings.Contains(bad[0].Error(), "longer than") {
		t.Errorf("bad %v; want line 1 too long", bad)
	}
	if len(lines) != 1 || lines[0].Line != 2 {
		t.Errorf("lines %+v; want line 2 accepted after the long one", lines)
	}

	var many bytes.Buffer
	for range MaxBatchLines + 2 {
		many.WriteString(`{"question": "What drove revenue?"}` + "\n")
	}
	lines, bad, err = ParseBatch(&many)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != MaxBatchLines || len(bad) != 2 || bad[0].Line != MaxBatchLines+1 {
		t.Errorf("%d lines, %d bad (first %v); want %d and 2 beyond the limit", len(lines), len(bad), bad[0], MaxBatchLines)
	}

	// No trailing newline, and an empty input.
	if lines, bad, _ := ParseBatch(strings.NewReader(`{"question": "What drove revenue?"}`)); len(lines) != 1 || len(bad) != 0 {
		t.Errorf("a last line without newline: %d lines, %v", len(lines), bad)
	}
	if lines, bad, _ := ParseBatch(strings.NewReader("")); len(lines) != 0 || len(bad) != 0 {
		t.Errorf("empty input: %d lines, %v", len(lines), bad)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestParseBatchReadError(t *testing.T) {
	if _, _, err := ParseBatch(failingReader{}); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("error %v; want the reader's", err)
	}
}

func FuzzParseBatch(f *testing.F) {
	f.Add([]byte(`{"question": "What drove Acme's margin?", "tickers": ["ACME"], "budget_usd": 0.2}` + "\n"))
	f.Add([]byte("{\"question\": \"abc\"}\r\n\n{\"mode\": 3}\n[]\nnull\n"))
	f.Add([]byte(`{"question": "abcd", "idempotency_key": "\u0000"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, bad, err := ParseBatch(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("reading from memory failed: %v", err)
		}
		seen := map[int]bool{}
		for _, l := range lines {
			if l.Line <= 0 || seen[l.Line] {
				t.Fatalf("line number %d repeated or not positive", l.Line)
			}
			seen[l.Line] = true
			if err := l.check(); err != nil {
				t.Fatalf("accepted line %d fails its check: %v", l.Line, err)
			}
		}
		for _, e := range bad {
			if e.Line <= 0 || seen[e.Line] {
				t.Fatalf("bad line number %d repeated or not positive", e.Line)
			}
			seen[e.Line] = true
		}
		if n := bytes.Count(data, []byte("\n")) + 1; len(seen) > n {
			t.Fatalf("%d numbered lines in %d lines of input", len(seen), n)
		}
	})
}

func TestBatchRunStatus(t *testing.T) {
	state := func(s string) *string { return &s }
	cases := []struct {
		run     string
		job     *string
		attempt int
		want    string
		done    bool
	}{
		{"running", state("available"), 0, StatusQueued, false},
		{"running", state("scheduled"), 0, StatusQueued, false},
		{"failed", state("retryable"), 1, "running", false},
		{"failed", state("available"), 2, "running", false},
		{"running", state("running"), 1, "running", false},
		{"failed", state("running"), 2, "running", false},
		{"supported", state("completed"), 1, "supported", true},
		{"refused", state("completed"), 1, "refused", true},
		{"failed", state("cancelled"), 1, "failed", true},
		{"running", state("discarded"), 5, "failed", true},
		{"failed", state("discarded"), 5, "failed", true},
		{"partial", nil, 1, "partial", true},
		{"running", nil, 0, "running", false},
	}
	for _, c := range cases {
		r := batchRun{runStatus: c.run, jobState: c.job, attempt: c.attempt}
		if got := r.status(); got != c.want || r.done() != c.done {
			job := "<deleted>"
			if c.job != nil {
				job = *c.job
			}
			t.Errorf("run %s, job %s, attempt %d: %s (done %v); want %s (done %v)", c.run, job, c.attempt, got, r.done(), c.want, c.done)
		}
	}
}
