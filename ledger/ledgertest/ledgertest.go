// Package ledgertest is the contract every ledger.Store passes: the
// Postgres and the embedded store run the same suite, so a run recorded by
// one reads the same as a run recorded by the other.
package ledgertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/ledger"
)

// Opener opens a store for a tenant on one backing storage (one database
// schema, one data directory): two calls give two independent instances
// that see the same data, as two processes would. The suite closes them.
type Opener func(t *testing.T, tenant string) ledger.Store

// Run runs the contract suite. backend returns an Opener on new, empty
// storage for one subtest.
func Run(t *testing.T, backend func(t *testing.T) Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"OpenRunCreatesThenResumes", testOpenRun},
		{"MissingRunIsNotFound", testMissingRun},
		{"DedupBySpanAcrossToolCalls", testDedupBySpan},
		{"ResumeWithoutDuplicates", testResume},
		{"TenantCannotReadAnotherTenantsRun", testTenants},
		{"EventLogAppendOnlyAndOrdered", testEvents},
		{"DecimalFactValuesRoundTripExactly", testDecimals},
		{"RequirementsKeepOrderAndLinks", testRequirements},
		{"BadInputRecordsNothing", testBadInput},
		{"Contradictions", testContradictions},
		{"FinishRun", testFinish},
		{"RunsListsTheTenantsRunsNewestFirst", testRuns},
		{"ExportSchema", testExport},
		{"ConcurrentRecordsCountEachSpanOnce", testConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opener := backend(t)
			tt.fn(t, func(t *testing.T, tenant string) ledger.Store {
				s := opener(t, tenant)
				t.Cleanup(func() { s.Close() })
				return s
			})
		})
	}
}

// Doc1 and Doc2 are document ids (hex sha256 of a canonical text).
const (
	Doc1 = "1111111111111111111111111111111111111111111111111111111111111111"
	Doc2 = "2222222222222222222222222222222222222222222222222222222222222222"
)

func passage(doc string, start, end int, excerpt string) ledger.Evidence {
	return ledger.Evidence{Kind: ledger.KindPassage, DocumentID: doc, Start: start, End: end, Excerpt: excerpt,
		Ticker: "AAPL", Form: "10-K", Period: "FY2024", Page: 3, Section: "Item 7"}
}

func call(id string) ledger.ToolCall {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return ledger.ToolCall{ID: id, Tool: "search_filings", Arguments: json.RawMessage(`{"query":"gross margin"}`),
		Started: t0, Finished: t0.Add(1500 * time.Microsecond)}
}

func openRun(t *testing.T, s ledger.Store, id string) ledger.Run {
	t.Helper()
	r, _, err := s.OpenRun(context.Background(), ledger.Run{ID: id, Question: "How did AAPL's gross margin change in FY2024?",
		CorpusSnapshot: ledger.CorpusSnapshot([]string{Doc2, Doc1})})
	if err != nil {
		t.Fatalf("OpenRun(%s): %v", id, err)
	}
	return r
}

func record(t *testing.T, s ledger.Store, runID string, res *ledger.ToolResult) *ledger.RecordResult {
	t.Helper()
	out, err := s.RecordToolResult(context.Background(), runID, res)
	if err != nil {
		t.Fatalf("RecordToolResult(%s): %v", res.Call.ID, err)
	}
	return out
}

func load(t *testing.T, s ledger.Store, runID string) *ledger.RunLedger {
	t.Helper()
	l, err := s.Load(context.Background(), runID)
	if err != nil {
		t.Fatalf("Load(%s): %v", runID, err)
	}
	return l
}

func kinds(evs []ledger.Event) []ledger.EventKind {
	var ks []ledger.EventKind
	for _, e := range evs {
		ks = append(ks, e.Kind)
	}
	return ks
}

func testOpenRun(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, "acme")
	r, resumed, err := s.OpenRun(ctx, ledger.Run{ID: "run-1", Question: "Q1", CorpusSnapshot: "snap"})
	if err != nil || resumed {
		t.Fatalf("OpenRun = %v, resumed %v; want a new run", err, resumed)
	}
	if r.ID != "run-1" || r.Tenant != "acme" || r.Question != "Q1" || r.Mode != ledger.ModeRules ||
		r.Status != ledger.StatusRunning || r.CorpusSnapshot != "snap" || r.Created.IsZero() || !r.Finished.IsZero() {
		t.Fatalf("new run = %+v", r)
	}
	again, resumed, err := s.OpenRun(ctx, ledger.Run{ID: "run-1", Question: "another question", Mode: ledger.ModeModel})
	if err != nil || !resumed {
		t.Fatalf("OpenRun again = %v, resumed %v; want resumed", err, resumed)
	}
	if !again.Created.Equal(r.Created) || again.Question != "Q1" || again.Mode != ledger.ModeRules || again.CorpusSnapshot != "snap" {
		t.Fatalf("resumed run = %+v, want the first one %+v", again, r)
	}
	got, err := s.Run(ctx, "run-1")
	if err != nil || got.Question != "Q1" || !got.Created.Equal(r.Created) {
		t.Fatalf("Run = %+v, %v", got, err)
	}
	evs, err := s.Events(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []ledger.EventKind{ledger.EventRunCreated, ledger.EventRunResumed}; !slices.Equal(kinds(evs), want) {
		t.Fatalf("events %v, want %v", kinds(evs), want)
	}
	var verr *ledger.ValidationError
	for _, bad := range []ledger.Run{{ID: "", Question: "q"}, {ID: "../x", Question: "q"}, {ID: "ok", Question: ""}, {ID: "ok", Question: "q", Mode: "llm"}} {
		if _, _, err := s.OpenRun(ctx, bad); !errors.As(err, &verr) {
			t.Errorf("OpenRun(%+v) = %v, want a *ValidationError", bad, err)
		}
	}
}

func testMissingRun(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, "acme")
	openRun(t, s, "present")
	for _, id := range []string{"absent", "../present", ""} {
		checks := map[string]error{}
		_, checks["Run"] = s.Run(ctx, id)
		_, checks["Load"] = s.Load(ctx, id)
		_, checks["Events"] = s.Events(ctx, id)
		checks["FinishRun"] = s.FinishRun(ctx, id, ledger.StatusPartial)
		_, checks["AddRequirements"] = s.AddRequirements(ctx, id, []ledger.Requirement{{ID: "R1"}})
		checks["UpdateRequirement"] = s.UpdateRequirement(ctx, id, "R1", ledger.RequirementSupported, nil)
		_, checks["RecordToolResult"] = s.RecordToolResult(ctx, id, &ledger.ToolResult{Call: call("c1")})
		_, checks["AppendEvent"] = s.AppendEvent(ctx, id, ledger.Event{Kind: ledger.EventDecision})
		for name, err := range checks {
			if !errors.Is(err, ledger.ErrNotFound) {
				t.Errorf("%s(%q) = %v, want ErrNotFound", name, id, err)
			}
		}
	}
}

func testDedupBySpan(t *testing.T, open Opener) {
	s := open(t, "acme")
	openRun(t, s, "r")
	a := passage(Doc1, 0, 100, "Gross margin was 46.2 percent.")
	b := passage(Doc1, 200, 300, "Services revenue grew.")
	first := record(t, s, "r", &ledger.ToolResult{Call: call("c1"), Evidence: []ledger.Evidence{a, b},
		Search: &ledger.Search{Query: "Gross margin", CandidatesSeen: 10}})
	wantIDs := []string{ledger.EvidenceID(Doc1, 0, 100), ledger.EvidenceID(Doc1, 200, 300)}
	if first.NewEvidence != 2 || first.Evidence[0].ID != wantIDs[0] || first.Evidence[1].ID != wantIDs[1] ||
		first.Evidence[0].Outcome != ledger.OutcomeNew || first.Evidence[1].Outcome != ledger.OutcomeNew {
		t.Fatalf("first call: %+v", first)
	}

	// The same span under other wording, a span inside a, a new span twice,
	// and a span around a.
	reworded := a
	reworded.Excerpt = "gross margin: 46.2%"
	reworded.Kind = ledger.KindFact
	inside := passage(Doc1, 10, 50, "was 46.2")
	d := passage(Doc2, 0, 100, "NVDA data center revenue.")
	around := passage(Doc1, 0, 150, "Gross margin was 46.2 percent. More.")
	second := record(t, s, "r", &ledger.ToolResult{Call: call("c2"), Evidence: []ledger.Evidence{reworded, inside, d, d, around},
		Search: &ledger.Search{Query: "margin  gross!", CandidatesSeen: 12}})
	want := []ledger.EvidenceOutcome{
		{ID: wantIDs[0], Outcome: ledger.OutcomeDuplicate},
		{ID: ledger.EvidenceID(Doc1, 10, 50), Outcome: ledger.OutcomeContained, Within: wantIDs[0]},
		{ID: ledger.EvidenceID(Doc2, 0, 100), Outcome: ledger.OutcomeNew},
		{ID: ledger.EvidenceID(Doc2, 0, 100), Outcome: ledger.OutcomeDuplicate},
		{ID: ledger.EvidenceID(Doc1, 0, 150), Outcome: ledger.OutcomeNew},
	}
	if !slices.Equal(second.Evidence, want) || second.NewEvidence != 2 {
		t.Fatalf("second call outcomes:\n got %v (new %d)\nwant %v (new 2)", second.Evidence, second.NewEvidence, want)
	}

	l := load(t, s, "r")
	var ids []string
	for _, e := range l.Evidence {
		ids = append(ids, e.ID)
	}
	wantAll := []string{wantIDs[0], wantIDs[1], ledger.EvidenceID(Doc1, 10, 50), ledger.EvidenceID(Doc2, 0, 100), ledger.EvidenceID(Doc1, 0, 150)}
	if !slices.Equal(ids, wantAll) {
		t.Fatalf("evidence %v, want %v (one row per span, in the order found)", ids, wantAll)
	}
	e0 := l.Evidence[0]
	if e0.Excerpt != a.Excerpt || e0.Kind != ledger.KindPassage || e0.ToolCallID != "c1" || e0.Ticker != "AAPL" ||
		e0.Form != "10-K" || e0.Period != "FY2024" || e0.Page != 3 || e0.Section != "Item 7" || e0.Start != 0 || e0.End != 100 || e0.DocumentID != Doc1 {
		t.Fatalf("first evidence = %+v; want the first finding, from c1, kept as found", e0)
	}
	if len(l.Searches) != 2 || l.Searches[0].NewEvidence != 2 || l.Searches[1].NewEvidence != 2 ||
		l.Searches[0].QueryKey != "gross margin" || l.Searches[1].QueryKey != "gross margin" ||
		l.Searches[1].CandidatesSeen != 12 || l.Searches[1].ToolCallID != "c2" {
		t.Fatalf("search history = %+v; want two searches under one key, 2 new each (the contained span not counted)", l.Searches)
	}
}

func sampleResult(callID string) *ledger.ToolResult {
	e1 := passage(Doc1, 0, 100, "Gross margin was 46.2 percent.")
	e2 := passage(Doc1, 100, 180, "Net sales were $391,035 million.")
	e2.Kind = ledger.KindFact
	e3 := passage(Doc2, 40, 90, "Gross margin decreased.")
	c := call(callID)
	c.RequirementID = "AAPL.margin"
	return &ledger.ToolResult{
		Call:     c,
		Evidence: []ledger.Evidence{e1, e2, e3},
		Facts: []ledger.Fact{{EvidenceID: ledger.EvidenceID(Doc1, 100, 180), Concept: "us-gaap:Revenues",
			Value: decimal.RequireFromString("391035000000"), Unit: "USD", Period: "2023-10-01/2024-09-28"}},
		Search: &ledger.Search{Query: "AAPL gross margin", Filters: map[string]string{"ticker": "AAPL"}, CandidatesSeen: 20},
	}
}

func sampleRequirements() []ledger.Requirement {
	return []ledger.Requirement{
		{ID: "AAPL.margin", Issuer: "AAPL", Period: "FY2024", Description: "reported gross margin inputs",
			CompletionCondition: "revenue and cost of sales for FY2024"},
		{ID: "AAPL.outlook", Issuer: "AAPL", Period: "FY2024", Description: "management's outlook on margins",
			CompletionCondition: "a forward-looking statement on gross margin"},
	}
}

type counts struct{ reqs, calls, evidence, facts, searches, contradictions, links int }

func countOf(l *ledger.RunLedger) counts {
	c := counts{reqs: len(l.Requirements), calls: len(l.ToolCalls), evidence: len(l.Evidence), facts: len(l.Facts),
		searches: len(l.Searches), contradictions: len(l.Contradictions)}
	for _, r := range l.Requirements {
		c.links += len(r.Evidence)
	}
	return c
}

func testResume(t *testing.T, open Opener) {
	ctx := context.Background()
	s1 := open(t, "acme")
	openRun(t, s1, "r")
	if n, err := s1.AddRequirements(ctx, "r", sampleRequirements()); err != nil || n != 2 {
		t.Fatalf("AddRequirements = %d, %v", n, err)
	}
	rec := record(t, s1, "r", sampleResult("c1"))
	if rec.NewEvidence != 3 || rec.NewFacts != 1 || rec.Replayed {
		t.Fatalf("first record = %+v", rec)
	}
	if err := s1.UpdateRequirement(ctx, "r", "AAPL.margin", ledger.RequirementSupported, nil); err != nil {
		t.Fatal(err)
	}
	before := countOf(load(t, s1, "r"))

	// A new instance, as after a crash: the plan and the replayed call
	// are recorded again.
	s2 := open(t, "acme")
	run, resumed, err := s2.OpenRun(ctx, ledger.Run{ID: "r", Question: "How did AAPL's gross margin change in FY2024?"})
	if err != nil || !resumed || run.CorpusSnapshot != ledger.CorpusSnapshot([]string{Doc1, Doc2}) {
		t.Fatalf("reopen = %+v, resumed %v, %v", run, resumed, err)
	}
	if n, err := s2.AddRequirements(ctx, "r", sampleRequirements()); err != nil || n != 0 {
		t.Fatalf("AddRequirements on resume = %d, %v; want 0 added", n, err)
	}
	replay := record(t, s2, "r", sampleResult("c1"))
	if !replay.Replayed || replay.NewEvidence != 0 || replay.NewFacts != 0 || len(replay.Evidence) != 3 ||
		replay.Evidence[0].Outcome != ledger.OutcomeDuplicate {
		t.Fatalf("replayed call = %+v; want a replay with every item a duplicate", replay)
	}
	after := countOf(load(t, s2, "r"))
	if after != before {
		t.Fatalf("after resume and replay: %+v, want unchanged %+v", after, before)
	}

	// The same search again under a new call id: no new evidence or facts,
	// one more search in the history (it did run), with 0 new.
	again := record(t, s2, "r", sampleResult("c2"))
	if again.Replayed || again.NewEvidence != 0 || again.NewFacts != 0 {
		t.Fatalf("same evidence under a new call = %+v", again)
	}
	l := load(t, s2, "r")
	got := countOf(l)
	want := before
	want.calls++
	want.searches++
	if got != want {
		t.Fatalf("after a repeated search: %+v, want %+v", got, want)
	}
	if last := l.Searches[len(l.Searches)-1]; last.NewEvidence != 0 || last.ToolCallID != "c2" {
		t.Fatalf("repeated search = %+v", last)
	}
	if l.Requirements[0].Status != ledger.RequirementSupported {
		t.Fatalf("requirement status after resume = %s; a re-planned requirement must keep its status", l.Requirements[0].Status)
	}
	// The first instance sees what the second recorded.
	if got := countOf(load(t, s1, "r")); got != want {
		t.Fatalf("first instance sees %+v, want %+v", got, want)
	}
}

func testTenants(t *testing.T, open Opener) {
	ctx := context.Background()
	a := open(t, "tenant-a")
	b := open(t, "tenant-b")
	openRun(t, a, "shared-id")
	if _, err := a.AddRequirements(ctx, "shared-id", sampleRequirements()); err != nil {
		t.Fatal(err)
	}
	record(t, a, "shared-id", sampleResult("c1"))

	if _, err := b.Run(ctx, "shared-id"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("tenant B Run(A's run) = %v, want ErrNotFound", err)
	}
	if _, err := b.Load(ctx, "shared-id"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("tenant B Load(A's run) = %v, want ErrNotFound", err)
	}
	if _, err := ledger.Export(ctx, b, "shared-id"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("tenant B Export(A's run) = %v, want ErrNotFound", err)
	}
	if _, err := b.Events(ctx, "shared-id"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("tenant B Events(A's run) = %v, want ErrNotFound", err)
	}
	if _, err := b.RecordToolResult(ctx, "shared-id", sampleResult("c9")); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("tenant B RecordToolResult(A's run) = %v, want ErrNotFound", err)
	}
	if err := b.FinishRun(ctx, "shared-id", ledger.StatusFailed); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("tenant B FinishRun(A's run) = %v, want ErrNotFound", err)
	}

	// B may use the same run id: it is B's own run, and A's is untouched.
	run, resumed, err := b.OpenRun(ctx, ledger.Run{ID: "shared-id", Question: "B's question"})
	if err != nil || resumed || run.Tenant != "tenant-b" || run.Question != "B's question" {
		t.Fatalf("tenant B OpenRun = %+v, resumed %v, %v; want a new run of its own", run, resumed, err)
	}
	if l := load(t, b, "shared-id"); len(l.Evidence) != 0 || len(l.Requirements) != 0 {
		t.Fatalf("tenant B's run holds A's records: %+v", countOf(l))
	}
	if _, err := b.AddRequirements(ctx, "shared-id", []ledger.Requirement{{ID: "B.only"}}); err != nil {
		t.Fatal(err)
	}
	la := load(t, a, "shared-id")
	if la.Run.Question == "B's question" || len(la.Requirements) != 2 || len(la.Evidence) != 3 || la.Run.Tenant != "tenant-a" {
		t.Fatalf("tenant A's run changed: %+v %+v", la.Run, countOf(la))
	}
}

func testEvents(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, "acme")
	openRun(t, s, "r")
	first, err := s.AppendEvent(ctx, "r", ledger.Event{Kind: ledger.EventDecision, Subject: "AAPL.margin",
		Message: "stop: two searches brought nothing new", Duration: 2*time.Millisecond + 7*time.Nanosecond,
		Data: json.RawMessage(`{"searches": 2, "new": 0}`)})
	if err != nil {
		t.Fatal(err)
	}
	if first.Seq != 2 || first.At.IsZero() {
		t.Fatalf("appended %+v; want seq 2 after run_created", first)
	}
	snapshot, err := s.Events(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	record(t, s, "r", &ledger.ToolResult{Call: call("c1"), Evidence: []ledger.Evidence{passage(Doc1, 0, 10, "x")}})

	// Concurrent appends: none lost, none numbered twice.
	const workers, each = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if _, err := s.AppendEvent(ctx, "r", ledger.Event{Kind: "progress", Message: fmt.Sprintf("w%d-%d", w, i)}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	evs, err := s.Events(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3+workers*each {
		t.Fatalf("%d events, want %d", len(evs), 3+workers*each)
	}
	for i, e := range evs {
		if e.Seq != int64(i)+1 {
			t.Fatalf("event %d has seq %d: want 1, 2, 3, ... without gaps", i, e.Seq)
		}
		if i > 0 && e.At.Before(evs[i-1].At) {
			t.Fatalf("event %d at %v is before event %d at %v", i, e.At, i-1, evs[i-1].At)
		}
	}
	// Append-only: what was read before is a prefix of what is read now.
	for i, e := range snapshot {
		if !sameEvent(e, evs[i]) {
			t.Fatalf("event %d changed from %+v to %+v", i, e, evs[i])
		}
	}
	got := evs[1]
	if got.Kind != ledger.EventDecision || got.Subject != "AAPL.margin" || got.Duration != 2*time.Millisecond ||
		!jsonEqual(got.Data, `{"new":0,"searches":2}`) {
		t.Fatalf("decision event = %+v (duration kept to the microsecond, data as JSON)", got)
	}
	tc := evs[2]
	if tc.Kind != ledger.EventToolCall || tc.Subject != "c1" || tc.Duration != 1500*time.Microsecond ||
		!strings.Contains(tc.Message, "1 new") {
		t.Fatalf("tool call event = %+v; want the call's timing and outcome", tc)
	}
	var verr *ledger.ValidationError
	if _, err := s.AppendEvent(ctx, "r", ledger.Event{}); !errors.As(err, &verr) {
		t.Fatalf("AppendEvent without a kind = %v, want a *ValidationError", err)
	}
	if _, err := s.AppendEvent(ctx, "r", ledger.Event{Kind: "x", Data: json.RawMessage(`{nope`)}); !errors.As(err, &verr) {
		t.Fatalf("AppendEvent with bad data = %v, want a *ValidationError", err)
	}
}

func sameEvent(a, b ledger.Event) bool {
	return a.Seq == b.Seq && a.At.Equal(b.At) && a.Kind == b.Kind && a.Subject == b.Subject &&
		a.Duration == b.Duration && a.Message == b.Message && (len(a.Data) == 0) == (len(b.Data) == 0) &&
		(len(a.Data) == 0 || jsonEqual(a.Data, string(b.Data)))
}

func jsonEqual(raw json.RawMessage, want string) bool {
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func testDecimals(t *testing.T, open Opener) {
	s := open(t, "acme")
	openRun(t, s, "r")
	values := []string{
		"0.1", "-0.3", "391035000000", "46.2", "0.000000000000000000000000000001",
		"-123456789012345678901234567890.123456789012345678901234567890", "1.10", "0",
	}
	ev := passage(Doc1, 0, 100, "numbers")
	ev.ID = ledger.EvidenceID(Doc1, 0, 100)
	var facts []ledger.Fact
	for i, v := range values {
		facts = append(facts, ledger.Fact{EvidenceID: ev.ID, Concept: fmt.Sprintf("c%d", i), Value: decimal.RequireFromString(v), Unit: "USD"})
	}
	rec := record(t, s, "r", &ledger.ToolResult{Call: call("c1"), Evidence: []ledger.Evidence{ev}, Facts: facts})
	if rec.NewFacts != len(values) {
		t.Fatalf("NewFacts = %d, want %d", rec.NewFacts, len(values))
	}
	l := load(t, s, "r")
	if len(l.Facts) != len(values) {
		t.Fatalf("%d facts, want %d", len(l.Facts), len(values))
	}
	for i, f := range l.Facts {
		want := decimal.RequireFromString(values[i])
		if !f.Value.Equal(want) || f.Value.String() != want.String() {
			t.Errorf("fact %s = %s, want exactly %s", f.Concept, f.Value, values[i])
		}
		if f.ID != ledger.FactID(ev.ID, f.Concept, "", "USD") || f.ToolCallID != "c1" {
			t.Errorf("fact = %+v", f)
		}
	}
	b, err := json.Marshal(ledger.NewReport(l))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Facts []struct {
			Value json.RawMessage `json:"value"`
		} `json:"facts"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if got := string(out.Facts[5].Value); got != `"`+decimal.RequireFromString(values[5]).String()+`"` {
		t.Fatalf("exported value %s: want the exact decimal as a JSON string", got)
	}
}

func testRequirements(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, "acme")
	openRun(t, s, "r")
	reqs := sampleRequirements()
	reqs = append(reqs, ledger.Requirement{ID: "cross.definitions", Description: "compatible margin definitions", Status: ledger.RequirementMissing})
	if n, err := s.AddRequirements(ctx, "r", reqs); err != nil || n != 3 {
		t.Fatalf("AddRequirements = %d, %v", n, err)
	}
	res := sampleResult("c1") // serves AAPL.margin: its evidence is linked
	record(t, s, "r", res)
	e1, e3 := ledger.EvidenceID(Doc1, 0, 100), ledger.EvidenceID(Doc2, 40, 90)
	if err := s.UpdateRequirement(ctx, "r", "AAPL.outlook", ledger.RequirementSupported, []string{e3, e1, e3}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateRequirement(ctx, "r", "AAPL.outlook", ledger.RequirementSupported, []string{e1}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateRequirement(ctx, "r", "nope", ledger.RequirementSupported, nil); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("UpdateRequirement(unknown) = %v, want ErrNotFound", err)
	}
	if err := s.UpdateRequirement(ctx, "r", "AAPL.outlook", ledger.RequirementConflicting, []string{"E000000000000"}); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("UpdateRequirement(unknown evidence) = %v, want ErrNotFound", err)
	}
	var verr *ledger.ValidationError
	if err := s.UpdateRequirement(ctx, "r", "AAPL.outlook", "done", nil); !errors.As(err, &verr) {
		t.Fatalf("UpdateRequirement(bad status) = %v, want a *ValidationError", err)
	}
	if _, err := s.AddRequirements(ctx, "r", []ledger.Requirement{{ID: "x"}, {ID: "x"}}); !errors.As(err, &verr) {
		t.Fatalf("AddRequirements with an id twice = %v, want a *ValidationError", err)
	}
	l := load(t, s, "r")
	var ids []string
	for _, r := range l.Requirements {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []string{"AAPL.margin", "AAPL.outlook", "cross.definitions"}) {
		t.Fatalf("requirements %v, want the planned order", ids)
	}
	margin, outlook, cross := l.Requirements[0], l.Requirements[1], l.Requirements[2]
	if margin.Status != ledger.RequirementPending || !slices.Equal(margin.Evidence, []string{e1, ledger.EvidenceID(Doc1, 100, 180), e3}) ||
		margin.Issuer != "AAPL" || margin.Period != "FY2024" || margin.CompletionCondition != "revenue and cost of sales for FY2024" {
		t.Fatalf("AAPL.margin = %+v; want pending with the tool call's evidence", margin)
	}
	if outlook.Status != ledger.RequirementSupported || !slices.Equal(outlook.Evidence, []string{e3, e1}) {
		t.Fatalf("AAPL.outlook = %+v; want supported with [%s %s] (a failed update changes nothing)", outlook, e3, e1)
	}
	if cross.Status != ledger.RequirementMissing || len(cross.Evidence) != 0 {
		t.Fatalf("cross.definitions = %+v", cross)
	}
}

func testBadInput(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, "acme")
	openRun(t, s, "r")
	before := countOf(load(t, s, "r"))
	var verr *ledger.ValidationError
	bad := []*ledger.ToolResult{
		{Call: ledger.ToolCall{Tool: "search_filings"}},
		{Call: ledger.ToolCall{ID: "c1"}},
		{Call: call("c1"), Evidence: []ledger.Evidence{passage(Doc1, 10, 10, "")}},
		{Call: call("c1"), Evidence: []ledger.Evidence{passage(Doc1, -1, 10, "")}},
		{Call: call("c1"), Evidence: []ledger.Evidence{{Kind: "rumour", DocumentID: Doc1, Start: 0, End: 1}}},
		{Call: call("c1"), Evidence: []ledger.Evidence{{Kind: ledger.KindPassage, Start: 0, End: 1}}},
		{Call: call("c1"), Evidence: []ledger.Evidence{{ID: "E1", Kind: ledger.KindPassage, DocumentID: Doc1, Start: 0, End: 1}}},
		{Call: call("c1"), Facts: []ledger.Fact{{Concept: "x", EvidenceID: ""}}},
		{Call: call("c1"), Search: &ledger.Search{CandidatesSeen: -1}},
	}
	for i, res := range bad {
		if _, err := s.RecordToolResult(ctx, "r", res); !errors.As(err, &verr) {
			t.Errorf("bad result %d: %v, want a *ValidationError", i, err)
		}
	}
	// A fact naming evidence the run does not hold fails the whole result.
	res := &ledger.ToolResult{Call: call("c1"), Evidence: []ledger.Evidence{passage(Doc1, 0, 10, "x")},
		Facts:  []ledger.Fact{{EvidenceID: ledger.EvidenceID(Doc2, 0, 10), Concept: "x", Value: decimal.NewFromInt(1)}},
		Search: &ledger.Search{Query: "q"}}
	if _, err := s.RecordToolResult(ctx, "r", res); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("fact on unknown evidence = %v, want ErrNotFound", err)
	}
	// A call for an unknown requirement too.
	unknownReq := &ledger.ToolResult{Call: call("c1"), Evidence: []ledger.Evidence{passage(Doc1, 0, 10, "x")}}
	unknownReq.Call.RequirementID = "nope"
	if _, err := s.RecordToolResult(ctx, "r", unknownReq); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("call for an unknown requirement = %v, want ErrNotFound", err)
	}
	if after := countOf(load(t, s, "r")); after != before {
		t.Fatalf("bad input recorded something: %+v, before %+v", after, before)
	}
	// Nothing was recorded, so the call id is still free.
	res.Facts[0].EvidenceID = ledger.EvidenceID(Doc1, 0, 10)
	if rec := record(t, s, "r", res); rec.Replayed || rec.NewEvidence != 1 || rec.NewFacts != 1 {
		t.Fatalf("corrected result = %+v", rec)
	}
	if evs, _ := s.Events(ctx, "r"); len(evs) != 2 {
		t.Fatalf("events %v: failed calls must leave no event", kinds(evs))
	}
}

func testContradictions(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, "acme")
	openRun(t, s, "r")
	if _, err := s.AddRequirements(ctx, "r", sampleRequirements()); err != nil {
		t.Fatal(err)
	}
	record(t, s, "r", sampleResult("c1"))
	e1, e3 := ledger.EvidenceID(Doc1, 0, 100), ledger.EvidenceID(Doc2, 40, 90)
	c := ledger.Contradiction{RequirementID: "AAPL.margin", EvidenceIDs: []string{e3, e1}, Difference: "46.2% against 45.6%"}
	got, added, err := s.AddContradiction(ctx, "r", c)
	if err != nil || !added || got.ID != ledger.ContradictionID("AAPL.margin", []string{e1, e3}) || !slices.Equal(got.EvidenceIDs, []string{e1, e3}) {
		t.Fatalf("AddContradiction = %+v, %v, %v", got, added, err)
	}
	if _, added, err := s.AddContradiction(ctx, "r", c); err != nil || added {
		t.Fatalf("AddContradiction again = %v, %v; want not added", added, err)
	}
	if _, _, err := s.AddContradiction(ctx, "r", ledger.Contradiction{RequirementID: "AAPL.margin", EvidenceIDs: []string{e1, "E000000000000"}, Difference: "d"}); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("AddContradiction(unknown evidence) = %v, want ErrNotFound", err)
	}
	if _, _, err := s.AddContradiction(ctx, "r", ledger.Contradiction{RequirementID: "nope", EvidenceIDs: []string{e1, e3}, Difference: "d"}); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("AddContradiction(unknown requirement) = %v, want ErrNotFound", err)
	}
	var verr *ledger.ValidationError
	if _, _, err := s.AddContradiction(ctx, "r", ledger.Contradiction{RequirementID: "AAPL.margin", EvidenceIDs: []string{e1, e1}, Difference: "d"}); !errors.As(err, &verr) {
		t.Fatalf("AddContradiction(one evidence) = %v, want a *ValidationError", err)
	}
	l := load(t, s, "r")
	if len(l.Contradictions) != 1 || l.Contradictions[0].Difference != c.Difference || l.Contradictions[0].RequirementID != "AAPL.margin" {
		t.Fatalf("contradictions = %+v", l.Contradictions)
	}
}

func testFinish(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, "acme")
	openRun(t, s, "r")
	var verr *ledger.ValidationError
	if err := s.FinishRun(ctx, "r", ledger.StatusRunning); !errors.As(err, &verr) {
		t.Fatalf("FinishRun(running) = %v, want a *ValidationError", err)
	}
	if err := s.FinishRun(ctx, "r", ledger.StatusPartial); err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(ctx, "r")
	if err != nil || r.Status != ledger.StatusPartial || r.Finished.IsZero() || r.Finished.Before(r.Created) {
		t.Fatalf("finished run = %+v, %v", r, err)
	}
	evs, _ := s.Events(ctx, "r")
	if k := kinds(evs); k[len(k)-1] != ledger.EventRunFinished || evs[len(evs)-1].Message != "partial" {
		t.Fatalf("events %v", k)
	}
}

func testRuns(t *testing.T, open Opener) {
	ctx := context.Background()
	s, other := open(t, "acme"), open(t, "globex")
	if runs, err := s.Runs(ctx, 10); err != nil || len(runs) != 0 {
		t.Fatalf("Runs on empty storage = %+v, %v; want none", runs, err)
	}
	for _, id := range []string{"run-b", "run-a", "run-c"} {
		openRun(t, s, id)
	}
	openRun(t, other, "run-z")
	if err := s.FinishRun(ctx, "run-a", ledger.StatusSupported); err != nil {
		t.Fatal(err)
	}
	all, err := s.Runs(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, r := range all {
		ids = append(ids, r.ID)
		if r.Tenant != "acme" || r.Question == "" || r.Created.IsZero() {
			t.Errorf("listed run %+v", r)
		}
		if i > 0 && (r.Created.After(all[i-1].Created) || r.Created.Equal(all[i-1].Created) && r.ID < all[i-1].ID) {
			t.Errorf("run %s listed after %s, which is not newer or equally new with a smaller id", r.ID, all[i-1].ID)
		}
		if want, err := s.Run(ctx, r.ID); err != nil || want != r {
			t.Errorf("listed %+v; Run(%s) = %+v, %v", r, r.ID, want, err)
		}
	}
	if len(ids) != 3 || !slices.Contains(ids, "run-a") || !slices.Contains(ids, "run-b") || !slices.Contains(ids, "run-c") {
		t.Fatalf("Runs = %v; want acme's three runs", ids)
	}
	if last := all[slices.Index(ids, "run-c")]; !all[0].Created.Equal(last.Created) {
		t.Errorf("Runs = %v; want the run opened last (run-c) first", ids)
	}
	a := all[slices.Index(ids, "run-a")]
	if a.Status != ledger.StatusSupported || a.Finished.IsZero() {
		t.Errorf("finished run listed as %+v", a)
	}
	two, err := s.Runs(ctx, 2)
	if err != nil || len(two) != 2 || two[0].ID != ids[0] || two[1].ID != ids[1] {
		t.Errorf("Runs(2) = %+v, %v; want the first two of %v", two, err, ids)
	}
	theirs, err := other.Runs(ctx, 10)
	if err != nil || len(theirs) != 1 || theirs[0].ID != "run-z" {
		t.Errorf("globex's Runs = %+v, %v; want its one run", theirs, err)
	}
}

func testExport(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t, "acme")
	run := openRun(t, s, "r")
	if _, err := s.AddRequirements(ctx, "r", sampleRequirements()); err != nil {
		t.Fatal(err)
	}
	record(t, s, "r", sampleResult("c1"))
	if err := s.UpdateRequirement(ctx, "r", "AAPL.margin", ledger.RequirementSupported, nil); err != nil {
		t.Fatal(err)
	}
	rep, err := ledger.Export(ctx, s, "r")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	CheckExport(t, b, ExportWant{
		Task:           run.Question,
		CorpusSnapshot: run.CorpusSnapshot,
		Requirements: map[string]RequirementWant{
			"AAPL.margin":  {Status: "supported", Evidence: []string{ledger.EvidenceID(Doc1, 0, 100), ledger.EvidenceID(Doc1, 100, 180), ledger.EvidenceID(Doc2, 40, 90)}},
			"AAPL.outlook": {Status: "pending", Evidence: []string{}},
		},
		Facts:    []FactWant{{ID: ledger.FactID(ledger.EvidenceID(Doc1, 100, 180), "us-gaap:Revenues", "2023-10-01/2024-09-28", "USD"), EvidenceID: ledger.EvidenceID(Doc1, 100, 180), Value: "391035000000", Unit: "USD"}},
		Searches: []SearchWant{{QueryKey: "aapl gross margin|ticker=AAPL", NewEvidence: 3}},
	})
}

// ExportWant is what CheckExport expects of an export.
type ExportWant struct {
	Task, CorpusSnapshot string
	Requirements         map[string]RequirementWant
	Facts                []FactWant
	Searches             []SearchWant
}

// RequirementWant is an expected requirement of an export.
type RequirementWant struct {
	Status   string
	Evidence []string
}

// FactWant is an expected fact of an export.
type FactWant struct{ ID, EvidenceID, Value, Unit string }

// SearchWant is an expected search history entry of an export.
type SearchWant struct {
	QueryKey    string
	NewEvidence int
}

// CheckExport unmarshals an exported run and checks its shape:
// {"task","requirements":{"<id>":{"status","evidence":[...]}},
// "facts":[{"id","evidence_id","value","unit"}],"contradictions":[],
// "search_history":[{"query_key","new_evidence"}],"corpus_snapshot"} with
// the values in want. The CLI tests use it too.
func CheckExport(t testing.TB, data []byte, want ExportWant) {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("export is not a JSON object: %v\n%s", err, data)
	}
	for _, key := range []string{"task", "requirements", "facts", "contradictions", "search_history", "corpus_snapshot", "evidence", "events"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("export lacks %q", key)
		}
	}
	var got struct {
		Task         string `json:"task"`
		Requirements map[string]struct {
			Status   *string   `json:"status"`
			Evidence *[]string `json:"evidence"`
		} `json:"requirements"`
		Facts []struct {
			ID         *string `json:"id"`
			EvidenceID *string `json:"evidence_id"`
			Value      *string `json:"value"`
			Unit       *string `json:"unit"`
		} `json:"facts"`
		Contradictions []json.RawMessage `json:"contradictions"`
		SearchHistory  []struct {
			QueryKey    *string `json:"query_key"`
			NewEvidence *int    `json:"new_evidence"`
		} `json:"search_history"`
		CorpusSnapshot string `json:"corpus_snapshot"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("export: %v\n%s", err, data)
	}
	if got.Task != want.Task || got.CorpusSnapshot != want.CorpusSnapshot {
		t.Errorf("task %q snapshot %q, want %q %q", got.Task, got.CorpusSnapshot, want.Task, want.CorpusSnapshot)
	}
	if string(doc["contradictions"]) == "null" {
		t.Errorf("contradictions is null, want a list")
	}
	if len(got.Requirements) != len(want.Requirements) {
		t.Errorf("%d requirements, want %d", len(got.Requirements), len(want.Requirements))
	}
	for id, w := range want.Requirements {
		r, ok := got.Requirements[id]
		switch {
		case !ok:
			t.Errorf("requirement %s missing", id)
		case r.Status == nil || r.Evidence == nil:
			t.Errorf("requirement %s lacks status or evidence (null is not a list)", id)
		case *r.Status != w.Status || !slices.Equal(*r.Evidence, w.Evidence):
			t.Errorf("requirement %s = %s %v, want %s %v", id, *r.Status, *r.Evidence, w.Status, w.Evidence)
		}
	}
	if len(got.Facts) != len(want.Facts) {
		t.Fatalf("%d facts, want %d", len(got.Facts), len(want.Facts))
	}
	for i, w := range want.Facts {
		f := got.Facts[i]
		if f.ID == nil || f.EvidenceID == nil || f.Value == nil || f.Unit == nil {
			t.Errorf("fact %d lacks id, evidence_id, value or unit (value must be a string)", i)
			continue
		}
		if *f.ID != w.ID || *f.EvidenceID != w.EvidenceID || *f.Value != w.Value || *f.Unit != w.Unit {
			t.Errorf("fact %d = %s %s %s %s, want %+v", i, *f.ID, *f.EvidenceID, *f.Value, *f.Unit, w)
		}
	}
	if len(got.SearchHistory) != len(want.Searches) {
		t.Fatalf("%d searches, want %d", len(got.SearchHistory), len(want.Searches))
	}
	for i, w := range want.Searches {
		sh := got.SearchHistory[i]
		if sh.QueryKey == nil || sh.NewEvidence == nil || *sh.QueryKey != w.QueryKey || *sh.NewEvidence != w.NewEvidence {
			t.Errorf("search %d = %+v, want %+v", i, sh, w)
		}
	}
}

func testConcurrent(t *testing.T, open Opener) {
	ctx := context.Background()
	s1 := open(t, "acme")
	s2 := open(t, "acme") // two instances, as two processes
	openRun(t, s1, "r")
	const workers, spans = 8, 12
	var wg sync.WaitGroup
	news := make([]int, workers)
	errs := make([]error, workers)
	for w := range workers {
		s := s1
		if w%2 == 1 {
			s = s2
		}
		wg.Go(func() {
			// Every worker finds every span, in its own order.
			var ev []ledger.Evidence
			for i := range spans {
				j := (i + w) % spans
				ev = append(ev, passage(Doc1, j*100, j*100+50, fmt.Sprintf("span %d", j)))
			}
			rec, err := s.RecordToolResult(ctx, "r", &ledger.ToolResult{Call: call(fmt.Sprintf("w%d", w)), Evidence: ev,
				Search: &ledger.Search{Query: "same query"}})
			if err != nil {
				errs[w] = err
				return
			}
			news[w] = rec.NewEvidence
		})
	}
	wg.Wait()
	total := 0
	for w := range workers {
		if errs[w] != nil {
			t.Fatal(errs[w])
		}
		total += news[w]
	}
	l := load(t, s1, "r")
	if total != spans || len(l.Evidence) != spans {
		t.Fatalf("workers saw %d new spans and the ledger holds %d; want each of %d spans new exactly once", total, len(l.Evidence), spans)
	}
	sum := 0
	for _, sr := range l.Searches {
		sum += sr.NewEvidence
	}
	if len(l.Searches) != workers || sum != spans {
		t.Fatalf("search history: %d entries summing %d new, want %d summing %d", len(l.Searches), sum, workers, spans)
	}
}
