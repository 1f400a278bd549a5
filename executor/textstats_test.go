package executor

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/planner"
)

// countingStore counts the documents read, and fails them while fail is
// set. When gate is set, a read tells entered and waits for gate to close.
type countingStore struct {
	corpus.Store
	reads   atomic.Int64
	fail    atomic.Bool
	gate    chan struct{}
	entered chan struct{}
}

func (s *countingStore) Document(ctx context.Context, id string) (*corpus.Document, error) {
	s.reads.Add(1)
	if s.gate != nil {
		select {
		case s.entered <- struct{}{}:
		default:
		}
		<-s.gate
	}
	if s.fail.Load() {
		return nil, errors.New("store unavailable")
	}
	return s.Store.Document(ctx, id)
}

const statsSafeHarbour = " undertakes no obligation to revise or update any forward-looking statements to reflect events or circumstances after the filing date, except as required by law."

// statsFixture is a store of four issuers' annual reports, each with the
// safe harbour under its own name and a sentence of its own, and a 10-Q of
// one of them.
func statsFixture(t *testing.T) *countingStore {
	t.Helper()
	filing := func(ticker, company, own string) corpustest.Filing {
		return corpustest.Filing{Ticker: ticker, Company: company, Revenue: "1,000", Cost: "600",
			Item7: own + " " + company + statsSafeHarbour}
	}
	q := filing("ACME", "Acme Corp", "Quarterly anvil shipments slowed as desert customers paused orders.")
	q.Name, q.Form = "acme-10q.html", "10-Q"
	return &countingStore{Store: corpustest.FixtureStore(t,
		filing("ACME", "Acme Corp", "Anvil margins widened as the Mojave foundry ran at full capacity."),
		filing("BOLT", "Bolt Industries", "Fastener volumes doubled after the Detroit plant retooled its presses."),
		filing("CRUX", "Crux Labs", "Gene assay revenue grew with three new hospital networks in Ohio."),
		filing("DYNE", "Dyne Motors", "Battery pack warranty claims fell after the cell chemistry change."),
		q,
	)}
}

func TestTextStatsFromStore(t *testing.T) {
	store := statsFixture(t)
	eng, _ := newEngineOver(t, store, nil)
	ctx := context.Background()
	docs, err := store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 5 {
		t.Fatalf("%d documents stored, want 5", len(docs))
	}

	stats, err := eng.textStats(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Documents() != 4 || stats.Issuers() != 4 {
		t.Errorf("counted %d documents of %d issuers, want one 10-K of each of 4", stats.Documents(), stats.Issuers())
	}
	if got := store.reads.Load(); got != 4 {
		t.Errorf("%d documents read, want 4", got)
	}
	tests := []struct {
		sentence string
		min, max float64
	}{
		{"Acme Corp" + statsSafeHarbour, 0.8, 1},
		{"We" + statsSafeHarbour, 0.8, 1},
		{"Anvil margins widened as the Mojave foundry ran at full capacity.", 0, 0.2},
	}
	for _, tc := range tests {
		if got := stats.Boilerplate(tc.sentence); got < tc.min || got > tc.max {
			t.Errorf("Boilerplate(%q) = %.2f, want in [%.2f, %.2f]", tc.sentence, got, tc.min, tc.max)
		}
	}
	if stats.IDF("anvil") <= stats.IDF("revenues") {
		t.Errorf("IDF(anvil) = %v, not above IDF(revenues) = %v", stats.IDF("anvil"), stats.IDF("revenues"))
	}

	// The same documents, listed in another order: the same stats, not
	// read again.
	reversed := slices.Clone(docs)
	slices.Reverse(reversed)
	again, err := eng.textStats(ctx, reversed)
	if err != nil {
		t.Fatal(err)
	}
	if again != stats {
		t.Error("the second call built new stats")
	}
	if got := store.reads.Load(); got != 4 {
		t.Errorf("%d documents read after the second call, want 4", got)
	}

	// Another set of documents builds new stats and drops the old.
	fewer := slices.DeleteFunc(slices.Clone(docs), func(d corpus.Document) bool { return d.Ticker == "DYNE" })
	other, err := eng.textStats(ctx, fewer)
	if err != nil {
		t.Fatal(err)
	}
	if other == stats || other.Issuers() != 3 {
		t.Errorf("stats of 3 issuers: %p with %d issuers, want new stats of 3", other, other.Issuers())
	}
	eng.stats.mu.Lock()
	n := len(eng.stats.entries)
	eng.stats.mu.Unlock()
	if n != 1 {
		t.Errorf("%d sets of stats kept, want 1", n)
	}
}

func TestTextStatsBuiltOnce(t *testing.T) {
	store := statsFixture(t)
	eng, _ := newEngineOver(t, store, nil)
	ctx := context.Background()
	docs, err := store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}

	const runs = 8
	got := make([]*planner.TextStats, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			s, err := eng.textStats(ctx, docs)
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		})
	}
	wg.Wait()
	for i, s := range got {
		if s == nil || s != got[0] {
			t.Fatalf("run %d got stats %p, run 0 %p: want one build", i, s, got[0])
		}
	}
	if n := store.reads.Load(); n != 4 {
		t.Errorf("%d documents read by %d runs at once, want 4", n, runs)
	}
}

func TestTextStatsError(t *testing.T) {
	store := statsFixture(t)
	eng, _ := newEngineOver(t, store, nil)
	ctx := context.Background()
	docs, err := store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	store.fail.Store(true)
	if _, err := eng.textStats(ctx, docs); err == nil {
		t.Fatal("no error from a store that fails")
	}
	// A failure is not kept: the next call tries again.
	store.fail.Store(false)
	stats, err := eng.textStats(ctx, docs)
	if err != nil || stats.Documents() != 4 {
		t.Fatalf("after the store recovered: %v, %d documents; want 4", err, stats.Documents())
	}

}

func TestTextStatsWaiterCanceled(t *testing.T) {
	store := statsFixture(t)
	store.gate, store.entered = make(chan struct{}), make(chan struct{}, 1)
	eng, _ := newEngineOver(t, store, nil)
	ctx := context.Background()
	docs, err := store.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}

	built := make(chan *planner.TextStats)
	go func() {
		s, err := eng.textStats(ctx, docs)
		if err != nil {
			t.Error(err)
		}
		built <- s
	}()
	select {
	case <-store.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the build did not start")
	}

	// A caller whose context ends stops waiting for the build.
	waiter, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := eng.textStats(waiter, docs); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled waiter: error %v, want context.Canceled", err)
	}

	close(store.gate)
	var s *planner.TextStats
	select {
	case s = <-built:
	case <-time.After(10 * time.Second):
		t.Fatal("the build did not finish")
	}
	if again, err := eng.textStats(ctx, docs); err != nil || again != s {
		t.Errorf("after the build: %p, %v; want the built %p", again, err, s)
	}
}

func TestTextStatsDocuments(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	doc := func(id, ticker, form, end string, f corpus.Format) corpus.Document {
		return corpus.Document{ID: id, Ticker: ticker, Form: form, PeriodEnd: day(end), Format: f, Text: "text"}
	}
	docs := []corpus.Document{
		doc("a-k23", "AAA", "10-K", "2023-12-31", corpus.FormatText),
		doc("a-k24-txt", "AAA", "10-K", "2024-12-31", corpus.FormatText),
		doc("a-k24", "AAA", "10-K", "2024-12-31", corpus.FormatHTML), // the same filing in HTML wins
		doc("a-q25", "AAA", "10-Q", "2025-03-31", corpus.FormatHTML), // a later 10-Q does not
		doc("b-q24", "BBB", "10-Q", "2024-06-30", corpus.FormatHTML),
		doc("b-q25", "BBB", "10-Q", "2025-06-30", corpus.FormatPDF), // no 10-K: the latest filing
		doc("c-k22", "CCC", "10-K", "2022-12-31", corpus.FormatHTML),
		doc("x", "", "10-K", "2025-12-31", corpus.FormatHTML), // no issuer
	}
	ids := func(ds []corpus.Document) []string {
		var out []string
		for _, d := range ds {
			if d.Text != "" {
				t.Errorf("%s keeps its text", d.ID)
			}
			out = append(out, d.ID)
		}
		return out
	}
	tests := []struct {
		max  int
		want []string
	}{
		{200, []string{"a-k24", "b-q25", "c-k22"}},
		{2, []string{"a-k24", "b-q25"}}, // the most recent issuers
		{1, []string{"b-q25"}},
	}
	for _, tc := range tests {
		if got := ids(statsDocuments(docs, tc.max)); !slices.Equal(got, tc.want) {
			t.Errorf("statsDocuments(max %d) = %v, want %v", tc.max, got, tc.want)
		}
	}
}
