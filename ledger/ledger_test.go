package ledger_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/ledgerline/research/ledger"
)

// Evidence ids are part of the export format and of citations: they must
// not change between releases.
func TestEvidenceIDIsStable(t *testing.T) {
	tests := []struct {
		doc        string
		start, end int
		want       string
	}{
		{"abc", 0, 10, "E" + sha12("abc:0:10")},
		{"abc", 1, 10, "E" + sha12("abc:1:10")},
	}
	for _, tt := range tests {
		if got := ledger.EvidenceID(tt.doc, tt.start, tt.end); got != tt.want || len(got) != 13 {
			t.Errorf("EvidenceID(%s, %d, %d) = %s, want %s", tt.doc, tt.start, tt.end, got, tt.want)
		}
	}
	if ledger.EvidenceID("ab", 1, 10) == ledger.EvidenceID("a", 11, 0) {
		t.Fatal("separator does not separate")
	}
	// Golden: changing the derivation breaks every recorded citation.
	if got := ledger.EvidenceID("abc", 0, 10); got != "E317e5945f999" {
		t.Fatalf("EvidenceID changed: %s", got)
	}
}

func TestCorpusSnapshotIgnoresOrderAndRepeats(t *testing.T) {
	a := ledger.CorpusSnapshot([]string{"b", "a", "c"})
	ids := []string{"c", "a", "b", "a"}
	if b := ledger.CorpusSnapshot(ids); a != b {
		t.Fatalf("snapshots differ: %s %s", a, b)
	}
	if !slices.Equal(ids, []string{"c", "a", "b", "a"}) {
		t.Fatal("CorpusSnapshot modified its argument")
	}
	if a == ledger.CorpusSnapshot([]string{"a", "b"}) || a == ledger.CorpusSnapshot([]string{"ab", "c"}) {
		t.Fatal("different corpora share a snapshot")
	}
	if got, want := ledger.CorpusSnapshot(nil), sha64(""); got != want {
		t.Fatalf("empty snapshot %s, want %s", got, want)
	}
	if got, want := ledger.CorpusSnapshot([]string{"b", "a"}), sha64("a\nb\n"); got != want {
		t.Fatalf("snapshot %s, want sha256(\"a\\nb\\n\") %s", got, want)
	}
}

func TestQueryKey(t *testing.T) {
	tests := []struct {
		query   string
		filters map[string]string
		want    string
	}{
		{"Gross margin", nil, "gross margin"},
		{"  margin, GROSS  margin! ", nil, "gross margin"},
		{"gross margin", map[string]string{"Ticker": "AAPL", "form": "10-K", "section": " "}, "gross margin|form=10-K|ticker=AAPL"},
		{"", nil, ""},
	}
	for _, tt := range tests {
		if got := ledger.QueryKey(tt.query, tt.filters); got != tt.want {
			t.Errorf("QueryKey(%q, %v) = %q, want %q", tt.query, tt.filters, got, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	span := func(doc string, s, e int) ledger.Evidence {
		return ledger.Evidence{ID: ledger.EvidenceID(doc, s, e), Kind: ledger.KindPassage, DocumentID: doc, Start: s, End: e}
	}
	held := map[string][]ledger.Evidence{"d": {span("d", 100, 200)}}
	items := []ledger.Evidence{
		span("d", 100, 200), // duplicate of held
		span("d", 120, 180), // contained in held
		span("d", 150, 250), // overlaps: new
		span("d", 160, 240), // inside the previous item: contained
		span("d", 150, 250), // duplicate of an item before it
		span("e", 100, 200), // another document: new
		span("d", 100, 200), // duplicate again
	}
	outcomes, fresh := ledger.Classify(items, func(doc string) []ledger.Evidence { return held[doc] })
	want := []ledger.Outcome{ledger.OutcomeDuplicate, ledger.OutcomeContained, ledger.OutcomeNew, ledger.OutcomeContained,
		ledger.OutcomeDuplicate, ledger.OutcomeNew, ledger.OutcomeDuplicate}
	for i, o := range outcomes {
		if o.Outcome != want[i] || o.ID != items[i].ID {
			t.Errorf("item %d: %v, want %s", i, o, want[i])
		}
	}
	if outcomes[1].Within != items[0].ID || outcomes[3].Within != items[2].ID {
		t.Errorf("contained items name %s and %s as holders", outcomes[1].Within, outcomes[3].Within)
	}
	if len(fresh) != 4 || ledger.Count(outcomes, ledger.OutcomeNew) != 2 {
		t.Fatalf("fresh %d (want 4 rows to record), new %d (want 2)", len(fresh), ledger.Count(outcomes, ledger.OutcomeNew))
	}
}

func TestValidationErrorsNameTheField(t *testing.T) {
	res := &ledger.ToolResult{Call: ledger.ToolCall{ID: "c", Tool: "t"},
		Evidence: []ledger.Evidence{{Kind: ledger.KindPassage, DocumentID: "d", Start: 0, End: 5}, {Kind: ledger.KindPassage, DocumentID: "d", Start: 9, End: 3}}}
	var verr *ledger.ValidationError
	if err := res.Validate(); !errors.As(err, &verr) || verr.Field != "evidence[1].end" {
		t.Fatalf("Validate = %v, want a *ValidationError on evidence[1].end", err)
	}
	if res.Evidence[0].ID != ledger.EvidenceID("d", 0, 5) {
		t.Fatalf("Validate did not fill in the evidence id")
	}
}
