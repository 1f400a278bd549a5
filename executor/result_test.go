package executor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ledgerline/research/ledger"
)

func TestBudgetReportJSON(t *testing.T) {
	rep := BudgetReport{
		Limits: map[string]*json.Number{"calls": nil, "model_calls": budgetNumber("8"), "spend_usd": budgetNumber("0.50")},
		Used:   map[string]json.Number{"calls": "3", "spend_usd": "0.0123", "wall_clock_ms": "1500"},
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"limits":{"calls":null,"model_calls":8,"spend_usd":0.50},"used":{"calls":3,"spend_usd":0.0123,"wall_clock_ms":1500}}`
	if string(data) != want {
		t.Errorf("JSON\n got %s\nwant %s", data, want)
	}
	var back BudgetReport
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Limits["calls"] != nil || *back.Limits["model_calls"] != "8" || back.Used["spend_usd"] != "0.0123" {
		t.Errorf("read back %+v", back)
	}
	if l, ok := back.Limit("spend_usd"); !ok || l.String() != "0.5" {
		t.Errorf("spend limit %s %v; want 0.5", l, ok)
	}
	if _, ok := back.Limit("calls"); ok {
		t.Error("an unlimited limit reads as a limit")
	}
	if u := back.UsedAmount("wall_clock_ms"); u.IntPart() != 1500 {
		t.Errorf("wall clock used %s; want 1500", u)
	}
}

// TestBudgetReportReadsRecordedStrings reads a result recorded before the
// values were numbers: a finished run's recorded answer must still load.
func TestBudgetReportReadsRecordedStrings(t *testing.T) {
	old := `{"run_id":"r1","status":"budget_exhausted","budget":{"limits":{"calls":"3","input_tokens":"unlimited","spend_usd":"0.50"},` +
		`"used":{"calls":"3","spend_usd":"0.000123","exhausted":"calls"}}}`
	var res Result
	if err := json.Unmarshal([]byte(old), &res); err != nil {
		t.Fatal(err)
	}
	b := res.Budget
	if b.Exhausted != "calls" || b.Limits["input_tokens"] != nil || *b.Limits["calls"] != "3" || b.Used["spend_usd"] != "0.000123" {
		t.Errorf("budget %+v", b)
	}
	if _, ok := b.Used["exhausted"]; ok {
		t.Error("exhausted read as a used amount")
	}
	for _, bad := range []string{`{"limits":{"calls":"many"}}`, `{"used":{"calls":null}}`, `{"used":{"calls":[1]}}`} {
		var b BudgetReport
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("%s: read without an error", bad)
		}
	}
}

// TestResultListsAlwaysPresent: the lists of `ask --format json` are []
// when empty, never null or missing, also in a result recorded without them.
func TestResultListsAlwaysPresent(t *testing.T) {
	var res Result
	if err := json.Unmarshal([]byte(`{"run_id":"r1","status":"supported","notes":null}`), &res); err != nil {
		t.Fatal(err)
	}
	res.fillEmpty()
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"citations":[]`, `"figures":[]`, `"requirements":[]`, `"gaps":[]`, `"contradictions":[]`,
		`"not_covered":[]`, `"notes":[]`, `"budget":{"limits":{},"used":{}}`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("JSON lacks %s:\n%s", key, data)
		}
	}
}

// TestRecordedResult: a finished run's answer is read back from its event
// log, the latest one when a run was answered again; a run still going
// has none, and an answer that cannot be read is an error, not a result.
func TestRecordedResult(t *testing.T) {
	answer := func(status string) ledger.Event {
		return ledger.Event{Kind: EventAnswer, Data: []byte(`{"run_id":"r","status":"` + status + `"}`)}
	}
	tests := []struct {
		name       string
		events     []ledger.Event
		err        error
		wantOK     bool
		wantStatus ledger.RunStatus
		wantErr    bool
	}{
		{name: "answered", events: []ledger.Event{{Kind: ledger.EventRunCreated}, answer("supported")}, wantOK: true, wantStatus: ledger.StatusSupported},
		{name: "answered again", events: []ledger.Event{answer("partial"), {Kind: ledger.EventRunResumed}, answer("supported")}, wantOK: true, wantStatus: ledger.StatusSupported},
		{name: "running", events: []ledger.Event{{Kind: ledger.EventRunCreated}}},
		{name: "unreadable answer", events: []ledger.Event{{Kind: EventAnswer, Data: []byte(`{"status":`)}}, wantErr: true},
		{name: "not found", err: ledger.ErrNotFound, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := EventReaderFunc(func(context.Context, string) ([]ledger.Event, error) { return tt.events, tt.err })
			res, ok, err := RecordedResult(context.Background(), events, "r")
			if (err != nil) != tt.wantErr || ok != tt.wantOK {
				t.Fatalf("RecordedResult = %+v, %v, %v; want ok %v, error %v", res, ok, err, tt.wantOK, tt.wantErr)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("error %v, want %v", err, tt.err)
			}
			if ok && (res.Status != tt.wantStatus || res.Citations == nil || res.Gaps == nil) {
				t.Errorf("result %+v, want %s with its lists filled", res, tt.wantStatus)
			}
		})
	}
}
