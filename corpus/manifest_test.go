package corpus

import (
	"errors"
	"strings"
	"testing"
)

func TestReadManifest(t *testing.T) {
	in := `{"path": "edgar/a.html", "ticker": "AAPL", "company": "Apple Inc.", "form": "10-K", "fiscal_year": 2024, "period_end": "2024-09-28", "filed": "2024-11-01"}
# a comment

{"path": "text/b.txt", "ticker": "aapl!", "company": "Apple", "form": "10-K", "fiscal_year": 2022, "period_end": "2022-09-24"}
{"path": "text/c.txt", "ticker": "MSFT", "company": "Microsoft", "form": "10-K", "fiscal_year": 2022, "period_end": "2022-06-31"}
{"path": "text/d.txt", "ticker": "MSFT", "company": "Microsoft", "form": "10-K", "fiscal_year": 2022, "period_end": "2022-06-30", "fiscal_yr": 2}
not json
{"path": "e.txt", "ticker": "BRK.B", "company": "Berkshire", "form": "10-q", "fiscal_year": 2023, "period_end": "2023-06-30"}
{"path": "text/f.txt", "ticker": "X", "company": "X", "form": "S-99", "fiscal_year": 2023, "period_end": "2023-06-30"}
{"path": "text/g.txt", "ticker": "X", "company": "X", "form": "10-K", "fiscal_year": 2023, "period_end": "2023-06-30", "filed": "2023-01-01"}
{"path": "/etc/passwd", "ticker": "X", "company": "X", "form": "10-K", "fiscal_year": 2023, "period_end": "2023-06-30"}
{"path": "text/../../secrets.txt", "ticker": "X", "company": "X", "form": "10-K", "fiscal_year": 2023, "period_end": "2023-06-30"}
`
	entries, errs := ReadManifest(strings.NewReader(in), "m.jsonl", "/corpus")
	if len(entries) != 2 {
		t.Fatalf("entries = %+v, want 2", entries)
	}
	if e := entries[0]; e.Path != "/corpus/edgar/a.html" || e.Ticker != "AAPL" || e.FiscalYear != 2024 ||
		e.PeriodEnd.Format("2006-01-02") != "2024-09-28" || e.Filed.Format("2006-01-02") != "2024-11-01" || e.Where() != "m.jsonl:1" {
		t.Errorf("entry 0 = %+v", e)
	}
	if e := entries[1]; e.Path != "/corpus/e.txt" || e.Form != "10-Q" || e.Ticker != "BRK.B" || e.Line != 8 {
		t.Errorf("entry 1 = %+v", e)
	}
	wantErrs := []struct {
		line int
		text string
	}{
		{4, `ticker "aapl!"`}, {5, `"2022-06-31" is not a date`}, {6, "fiscal_yr"}, {7, "not a valid manifest object"},
		{9, `form "S-99"`}, {10, "before period_end"}, {11, "outside the manifest's folder"}, {12, "outside the manifest's folder"},
	}
	if len(errs) != len(wantErrs) {
		t.Fatalf("errors = %v, want %d", errs, len(wantErrs))
	}
	for i, w := range wantErrs {
		var me *ManifestError
		if !errors.As(errs[i], &me) || me.Line != w.line || !strings.Contains(errs[i].Error(), w.text) ||
			!strings.HasPrefix(errs[i].Error(), "m.jsonl:") {
			t.Errorf("error %d = %v, want line %d mentioning %q", i, errs[i], w.line, w.text)
		}
	}
}

func FuzzReadManifest(f *testing.F) {
	f.Add(`{"path": "a.html", "ticker": "AAPL", "company": "A", "form": "10-K", "fiscal_year": 2024, "period_end": "2024-09-28"}`)
	f.Add("{}\n\n#x\n{\"path\":1}")
	f.Fuzz(func(t *testing.T, s string) {
		entries, errs := ReadManifest(strings.NewReader(s), "f", "/b")
		lines := strings.Count(s, "\n") + 1
		if len(entries)+len(errs) > lines+1 {
			t.Fatalf("%d entries and %d errors from %d lines", len(entries), len(errs), lines)
		}
		for _, e := range entries {
			if !ValidTicker(e.Ticker) || e.Path == "" || e.PeriodEnd.IsZero() {
				t.Fatalf("invalid entry accepted: %+v", e)
			}
		}
	})
}
