package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/internal/pgtest"
)

const dim = 384

func newStore(t testing.TB, pool *pgxpool.Pool, tenant string) *pgstore.Store {
	t.Helper()
	s, err := pgstore.New(pool, &pgstore.Config{Tenant: tenant})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// randomVec returns a random unit vector.
func randomVec(r *rand.Rand) []float32 {
	v := make([]float32, dim)
	var n float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// fixture builds a document of n chunks, one paragraph each, with random
// embeddings; section(i) names chunk i's section.
func fixture(r *rand.Rand, ticker string, fy, n int, section func(i int) string) (*corpus.Document, []corpus.Chunk) {
	var text strings.Builder
	chunks := make([]corpus.Chunk, n)
	for i := range chunks {
		start := text.Len()
		fmt.Fprintf(&text, "%s paragraph %d of fiscal %d on revenue and margin.", ticker, i, fy)
		chunks[i] = corpus.Chunk{Ordinal: i, Start: start, End: text.Len(), Embedding: randomVec(r)}
		if section != nil {
			chunks[i].Section = section(i)
		}
		text.WriteString("\n")
	}
	doc := &corpus.Document{
		Ticker: ticker, Company: ticker + " Inc.", Form: "10-K", FiscalYear: fy,
		PeriodEnd: time.Date(fy, 12, 31, 0, 0, 0, 0, time.UTC), Source: "fixture/" + ticker,
		Format: corpus.FormatText, Embedder: "fixture", Text: text.String(),
	}
	doc.ID = corpus.DocumentID(doc.Text)
	for i := range chunks {
		chunks[i].ID = corpus.ChunkID(doc.ID, i)
		chunks[i].DocumentID = doc.ID
		chunks[i].Text = doc.Text[chunks[i].Start:chunks[i].End]
	}
	return doc, chunks
}

func mustAdd(t testing.TB, s *pgstore.Store, doc *corpus.Document, chunks []corpus.Chunk, facts []corpus.Fact) {
	t.Helper()
	added, err := s.AddDocument(context.Background(), doc, chunks, facts)
	if err != nil {
		t.Fatal(err)
	}
	if !added {
		t.Fatalf("AddDocument(%s) = false on first add", doc.Source)
	}
}

// exactTop returns the ids of the k chunks nearest to q, by brute force.
func exactTop(q []float32, chunks []corpus.Chunk, k int) []string {
	sorted := slices.Clone(chunks)
	slices.SortStableFunc(sorted, func(a, b corpus.Chunk) int {
		sa, sb := cosine(q, a.Embedding), cosine(q, b.Embedding)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	ids := make([]string, 0, k)
	for _, c := range sorted[:min(k, len(sorted))] {
		ids = append(ids, c.ID)
	}
	return ids
}

func ids(rs []corpus.SearchResult) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ChunkID
	}
	return out
}

func TestAddDocumentDedup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, pgtest.Pool(t), "")
	r := rand.New(rand.NewPCG(1, 2))
	doc, chunks := fixture(r, "AAPL", 2024, 3, nil)
	facts := []corpus.Fact{{Concept: "us-gaap:Revenues", Value: decimal.NewFromInt(1), Unit: "USD", PeriodEnd: doc.PeriodEnd}}
	mustAdd(t, s, doc, chunks, facts)

	// The same id again, even with other content, changes nothing.
	changed := *doc
	changed.Company = "Someone Else"
	more := slices.Clone(chunks)
	more[0].Text = "replaced"
	more = append(more, corpus.Chunk{ID: corpus.ChunkID(doc.ID, 3), Ordinal: 3, Text: "extra", Embedding: randomVec(r)})
	added, err := s.AddDocument(ctx, &changed, more, append(facts, facts...))
	if err != nil {
		t.Fatal(err)
	}
	if added {
		t.Fatal("AddDocument of a stored id returned true")
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 1 || st.Chunks != 3 || st.Facts != 1 {
		t.Fatalf("stats after duplicate add = %+v, want 1 document, 3 chunks, 1 fact", st)
	}
	got, err := s.Document(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Company != doc.Company {
		t.Fatalf("company = %q: the duplicate overwrote the document", got.Company)
	}
	cs, err := s.Chunks(ctx, []string{chunks[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Text != chunks[0].Text {
		t.Fatalf("chunk 0 = %+v: the duplicate overwrote it", cs)
	}
}

func TestAddDocumentRejectsForeignParts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, pgtest.Pool(t), "")
	r := rand.New(rand.NewPCG(3, 4))
	doc, chunks := fixture(r, "AAPL", 2024, 2, nil)
	chunks[1].DocumentID = "someone-else"
	if _, err := s.AddDocument(ctx, doc, chunks, nil); err == nil {
		t.Fatal("AddDocument accepted a chunk of another document")
	}
	if _, err := s.Document(ctx, doc.ID); !errors.Is(err, corpus.ErrNotFound) {
		t.Fatalf("after a rejected add, Document = %v, want ErrNotFound", err)
	}
}

func TestAddDocumentRollsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, pgtest.Pool(t), "")
	r := rand.New(rand.NewPCG(5, 6))
	doc, chunks := fixture(r, "AAPL", 2024, 2, nil)
	chunks[1].Embedding = []float32{1, 2, 3} // wrong width: the copy fails
	if _, err := s.AddDocument(ctx, doc, chunks, nil); err == nil {
		t.Fatal("AddDocument accepted a 3-dimensional embedding")
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 0 || st.Chunks != 0 {
		t.Fatalf("a failed add left %+v behind", st)
	}
}

func TestFactsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, pgtest.Pool(t), "")
	r := rand.New(rand.NewPCG(7, 8))
	doc, chunks := fixture(r, "NVDA", 2024, 1, nil)
	facts := []corpus.Fact{
		{
			Concept: "us-gaap:Revenues", Value: decimal.RequireFromString("60922000000"), Unit: "USD", Decimals: "-6",
			PeriodStart: day("2023-01-30"), PeriodEnd: day("2024-01-28"), ContextID: "c1", Start: 10, End: 16,
		},
		{
			Concept: "us-gaap:Revenues", Value: decimal.RequireFromString("-123456789012345678901234567890.000123"),
			Unit: "USD", Decimals: "INF", PeriodStart: day("2023-01-30"), PeriodEnd: day("2024-01-28"), ContextID: "c2",
			Dimensions: map[string]string{"srt:ProductOrServiceAxis": "nvda:DataCenterMember", "us-gaap:StatementGeographicalAxis": "country:US"},
			Start:      20, End: 30,
		},
		{
			Concept: "us-gaap:Assets", Value: decimal.RequireFromString("0.50"), Unit: "USD", Decimals: "2",
			PeriodEnd: day("2024-01-28"), Instant: true, ContextID: "i1", Start: 40, End: 44,
		},
		{
			Concept: "dei:EntityCommonStockSharesOutstanding", Value: decimal.RequireFromString("2464000000"),
			Unit: "shares", PeriodEnd: day("2024-02-16"), Instant: true, ContextID: "i2",
		},
	}
	for i := range facts {
		facts[i].DocumentID = doc.ID
		facts[i].Kind = corpus.FactXBRL
	}
	mustAdd(t, s, doc, chunks, facts)

	got, err := s.Facts(ctx, corpus.FactFilter{DocumentID: doc.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(facts) {
		t.Fatalf("got %d facts, want %d", len(got), len(facts))
	}
	for i, f := range got {
		w := facts[i]
		if !f.Value.Equal(w.Value) || f.Value.String() != w.Value.String() {
			t.Errorf("fact %d value %s, want %s exactly", i, f.Value, w.Value)
		}
		if f.PeriodStart != w.PeriodStart || f.PeriodEnd != w.PeriodEnd {
			t.Errorf("fact %d period %v..%v, want %v..%v", i, f.PeriodStart, f.PeriodEnd, w.PeriodStart, w.PeriodEnd)
		}
		f.Value, w.Value = decimal.Zero, decimal.Zero
		if fmt.Sprint(f) != fmt.Sprint(w) {
			t.Errorf("fact %d:\n got %+v\nwant %+v", i, f, w)
		}
	}

	tests := []struct {
		name   string
		filter corpus.FactFilter
		want   []int // indexes into facts
	}{
		{"concept", corpus.FactFilter{Concept: "us-gaap:Revenues"}, []int{0, 1}},
		{"concept and period", corpus.FactFilter{Concept: "us-gaap:Assets", PeriodEnd: day("2024-01-28")}, []int{2}},
		{"period", corpus.FactFilter{PeriodEnd: day("2024-02-16")}, []int{3}},
		{"ticker", corpus.FactFilter{Ticker: "NVDA", Limit: 3}, []int{0, 1, 2}},
		{"other ticker", corpus.FactFilter{Ticker: "AAPL"}, nil},
		{"other period", corpus.FactFilter{Concept: "us-gaap:Revenues", PeriodEnd: day("2023-01-29")}, nil},
	}
	for _, tt := range tests {
		got, err := s.Facts(ctx, tt.filter)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var contexts, want []string
		for _, f := range got {
			contexts = append(contexts, f.ContextID)
		}
		for _, i := range tt.want {
			want = append(want, facts[i].ContextID)
		}
		if !slices.Equal(contexts, want) {
			t.Errorf("%s: facts %q, want %q", tt.name, contexts, want)
		}
	}
}

func TestDates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, pgtest.Pool(t), "")
	r := rand.New(rand.NewPCG(9, 10))
	doc, chunks := fixture(r, "MSFT", 2024, 1, nil)
	// A calendar date given in another zone is that calendar date.
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip(err)
	}
	doc.PeriodEnd = time.Date(2024, 6, 30, 0, 0, 0, 0, ny)
	mustAdd(t, s, doc, chunks, nil)
	got, err := s.Document(ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := day("2024-06-30"); got.PeriodEnd != want || !got.Filed.IsZero() {
		t.Fatalf("period end %v, filed %v; want %v at UTC midnight and zero", got.PeriodEnd, got.Filed, want)
	}
	if _, err := s.FindFiling(ctx, "MSFT", "10-K", day("2024-06-30")); err != nil {
		t.Fatalf("FindFiling by the UTC date: %v", err)
	}
}

// TestTenantIsolation gives two tenants the same filing (so the same ids)
// and one more each, and checks that neither sees the other's.
func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	a, b := newStore(t, pool, "a"), newStore(t, pool, "b")
	r := rand.New(rand.NewPCG(11, 12))

	shared, sharedChunks := fixture(r, "AAPL", 2024, 4, nil)
	fact := []corpus.Fact{{Concept: "us-gaap:Revenues", Value: decimal.NewFromInt(7), Unit: "USD", PeriodEnd: shared.PeriodEnd}}
	mustAdd(t, a, shared, sharedChunks, fact)
	mustAdd(t, b, shared, sharedChunks, fact) // same id, other tenant: added

	onlyB, onlyBChunks := fixture(r, "TSLA", 2023, 4, nil)
	mustAdd(t, b, onlyB, onlyBChunks, []corpus.Fact{{Concept: "us-gaap:Revenues", Value: decimal.NewFromInt(9), Unit: "USD", PeriodEnd: onlyB.PeriodEnd}})

	if _, err := a.Document(ctx, onlyB.ID); !errors.Is(err, corpus.ErrNotFound) {
		t.Errorf("tenant a Document(b's) error = %v, want ErrNotFound", err)
	}
	if _, err := a.FindFiling(ctx, "TSLA", "10-K", onlyB.PeriodEnd); !errors.Is(err, corpus.ErrNotFound) {
		t.Errorf("tenant a FindFiling(b's) error = %v, want ErrNotFound", err)
	}
	docs, err := a.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].ID != shared.ID {
		t.Errorf("tenant a Documents = %v, want only its own", docs)
	}
	cs, err := a.Chunks(ctx, []string{onlyBChunks[0].ID, onlyBChunks[1].ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 0 {
		t.Errorf("tenant a reads b's chunks: %v", ids(cs))
	}
	ft, err := a.FullTextSearch(ctx, "TSLA paragraph", corpus.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range ft {
		if res.Ticker == "TSLA" {
			t.Errorf("tenant a full-text search finds b's chunk %s", res.ChunkID)
		}
	}
	vs, err := a.VectorSearch(ctx, onlyBChunks[0].Embedding, corpus.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(sharedChunks) {
		t.Errorf("tenant a vector search = %d results, want its own %d", len(vs), len(sharedChunks))
	}
	for _, res := range vs {
		if res.Ticker == "TSLA" {
			t.Errorf("tenant a vector search finds b's chunk %s", res.ChunkID)
		}
	}
	facts, err := a.Facts(ctx, corpus.FactFilter{Concept: "us-gaap:Revenues"})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || !facts[0].Value.Equal(decimal.NewFromInt(7)) {
		t.Errorf("tenant a facts = %+v, want only its own", facts)
	}
	st, err := a.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 1 || st.Chunks != 4 || st.Facts != 1 {
		t.Errorf("tenant a stats = %+v", st)
	}
	st, err = b.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 2 || st.Chunks != 8 || st.Facts != 2 {
		t.Errorf("tenant b stats = %+v", st)
	}
	// The default tenant is a tenant too.
	if st, err := newStore(t, pool, "").Stats(ctx); err != nil || st.Documents != 0 {
		t.Errorf("default tenant stats = %+v, %v; want empty", st, err)
	}
}

// corpusOf20 stores 20 filings of 100 chunks with random embeddings; in
// each filing, chunks 0..4 are in section "Item 7A".
func corpusOf20(t testing.TB, s *pgstore.Store) map[string][]corpus.Chunk {
	t.Helper()
	r := rand.New(rand.NewPCG(13, 14))
	byTicker := map[string][]corpus.Chunk{}
	for d := range 20 {
		ticker := fmt.Sprintf("T%02d", d)
		doc, chunks := fixture(r, ticker, 2020+d%4, 100, func(i int) string {
			if i < 5 {
				return "Item 7A"
			}
			return "Item 7"
		})
		mustAdd(t, s, doc, chunks, nil)
		byTicker[ticker] = chunks
	}
	return byTicker
}

// TestSelectiveFilter runs the selective-filter tests on one corpus of 20
// filings of 100 chunks with random embeddings.
func TestSelectiveFilter(t *testing.T) {
	t.Parallel()
	s := newStore(t, pgtest.Pool(t), "")
	byTicker := corpusOf20(t, s)
	t.Run("VectorSearch", func(t *testing.T) { testVectorSearchSelectiveFilter(t, s, byTicker) })
	t.Run("IterativeIndexScan", func(t *testing.T) { testIterativeIndexScan(t, s, byTicker) })
}

// testVectorSearchSelectiveFilter asks for k=10 within one filing of twenty
// (5% of the chunks) and wants the exact top 10 in order: so selective a
// filter is cheap to search exactly, and the planner does. It then asks
// within a small section spread over every filing (5% again, with no index
// to help), which the planner may serve from the HNSW index: k results,
// under the filter, best first, most of them the true nearest.
func testVectorSearchSelectiveFilter(t *testing.T, s *pgstore.Store, byTicker map[string][]corpus.Chunk) {
	ctx := context.Background()
	var section []corpus.Chunk
	for _, chunks := range byTicker {
		section = append(section, chunks[:5]...)
	}
	r := rand.New(rand.NewPCG(15, 16))
	const k, queries = 10, 5
	var sectionRecall recall
	for i := range queries {
		q := randomVec(r)
		got, err := s.VectorSearch(ctx, q, corpus.Filter{Tickers: []string{"T13"}}, k)
		if err != nil {
			t.Fatal(err)
		}
		checkResults(t, q, got, byTicker["T13"], k)
		if want := exactTop(q, byTicker["T13"], k); !slices.Equal(ids(got), want) {
			t.Errorf("query %d: got %v, want the exact top %d %v", i, ids(got), k, want)
		}

		got, err = s.VectorSearch(ctx, q, corpus.Filter{Section: "Item 7A"}, k)
		if err != nil {
			t.Fatal(err)
		}
		checkResults(t, q, got, section, k)
		sectionRecall.add(got, exactTop(q, section, k))
	}
	if sectionRecall.value() < 0.8 {
		t.Errorf("section-filtered recall@%d = %.2f, want at least 0.8", k, sectionRecall.value())
	}
}

// checkResults checks that results are k chunks of within, best first,
// scored with their cosine similarity to q.
func checkResults(t *testing.T, q []float32, got []corpus.SearchResult, within []corpus.Chunk, k int) {
	t.Helper()
	if len(got) != k {
		t.Fatalf("got %d results, want %d", len(got), k)
	}
	for i, res := range got {
		j := slices.IndexFunc(within, func(c corpus.Chunk) bool { return c.ID == res.ChunkID })
		if j < 0 {
			t.Fatalf("result %s is outside the filter", res.ChunkID)
		}
		if sim := cosine(q, within[j].Embedding); math.Abs(sim-res.Score) > 1e-5 {
			t.Errorf("result %d score %v, want its cosine similarity %v", i, res.Score, sim)
		}
		if i > 0 && res.Score > got[i-1].Score {
			t.Errorf("result %d scores %v, above the one before it (%v)", i, res.Score, got[i-1].Score)
		}
	}
}

// recall accumulates the share of the exact top k that searches found.
type recall struct{ found, wanted int }

func (r *recall) add(got []corpus.SearchResult, exact []string) {
	for _, res := range got {
		if slices.Contains(exact, res.ChunkID) {
			r.found++
		}
	}
	r.wanted += len(exact)
}

func (r *recall) value() float64 { return float64(r.found) / float64(r.wanted) }

func TestVectorSearchFewerThanK(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, pgtest.Pool(t), "")
	r := rand.New(rand.NewPCG(17, 18))
	for _, ticker := range []string{"AAA", "BBB"} {
		doc, chunks := fixture(r, ticker, 2024, 30, func(i int) string { return fmt.Sprintf("Item %d", i%10) })
		chunks[0].Embedding = nil // not embedded yet: never a vector result
		mustAdd(t, s, doc, chunks, nil)
	}
	got, err := s.VectorSearch(ctx, randomVec(r), corpus.Filter{Tickers: []string{"AAA"}, Section: "Item 0"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d results, want the 2 embedded chunks matching the filter", len(got))
	}
	got, err = s.VectorSearch(ctx, randomVec(r), corpus.Filter{Tickers: []string{"ZZZ"}}, 10)
	if err != nil || len(got) != 0 {
		t.Fatalf("filter matching nothing: %v, %v", ids(got), err)
	}
}

// TestWithoutRegisteredTypes uses a pool whose connections were not given
// pgxvec.RegisterTypes: the store registers the types itself.
func TestWithoutRegisteredTypes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := pgtest.Pool(t).Config()
	cfg.AfterConnect = nil
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s := newStore(t, pool, "")
	r := rand.New(rand.NewPCG(19, 20))
	doc, chunks := fixture(r, "AAPL", 2024, 5, nil)
	mustAdd(t, s, doc, chunks, nil)
	got, err := s.VectorSearch(ctx, chunks[2].Embedding, corpus.Filter{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ChunkID != chunks[2].ID {
		t.Fatalf("nearest to chunk 2 = %v", ids(got))
	}
}

func TestFullTextORKeepsNegations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, pgtest.Pool(t), "")
	texts := []string{
		"Gross margin decreased on tariffs.",
		"Gross profit rose.",
		"Operating margin held.",
		"Unrelated text about leases.",
		"Data center revenue grew.",
		"Revenue from the data warehouse and the center of town.",
	}
	var b strings.Builder
	chunks := make([]corpus.Chunk, len(texts))
	for i, txt := range texts {
		chunks[i] = corpus.Chunk{Ordinal: i, Start: b.Len(), End: b.Len() + len(txt), Text: txt}
		b.WriteString(txt + "\n")
	}
	doc := &corpus.Document{Ticker: "X", Form: "10-K", FiscalYear: 2024, PeriodEnd: day("2024-12-31"), Format: corpus.FormatText, Text: b.String()}
	doc.ID = corpus.DocumentID(doc.Text)
	for i := range chunks {
		chunks[i].ID = corpus.ChunkID(doc.ID, i)
	}
	mustAdd(t, s, doc, chunks, nil)

	tests := []struct {
		query string
		want  []int // chunk ordinals, best first where it matters
	}{
		{"gross margin -tariff", []int{1, 2}},         // OR fallback, negation kept
		{`"data center" revenue`, []int{4, 5}},        // phrase first, then any word
		{`"data center" -warehouse`, []int{4}},        // the phrase alone
		{"gross or operating margin", []int{0, 1, 2}}, // explicit OR (order by rank, compared as a set)
		{"-gross", nil},                                            // nothing required
		{"leases or -gross", nil},                                  // nothing required
		{"the of and", nil},                                        // stop words
		{"gross margin", []int{0, 1, 2}},                           // AND match first
		{`gross -"margin decreased" -operating`, []int{1}},         // negated phrase
		{`margin -(held)`, []int{0}},                               // parentheses are plain text to websearch
		{"O'Brien's \\ 'quoted' & | ! <-> : * gross", []int{0, 1}}, // operators are words to websearch
	}
	for _, tt := range tests {
		got, err := s.FullTextSearch(ctx, tt.query, corpus.Filter{}, 10)
		if err != nil {
			t.Errorf("%q: %v", tt.query, err)
			continue
		}
		var ord []int
		for _, r := range got {
			ord = append(ord, slices.Index(texts, r.Text))
		}
		if strings.Contains(tt.query, " or ") {
			slices.Sort(ord)
		}
		if !slices.Equal(ord, tt.want) {
			t.Errorf("%q = chunks %v, want %v", tt.query, ord, tt.want)
		}
	}
}

// testIterativeIndexScan holds the HNSW path itself to the contract: walking
// the index under a filter that matches one filing of twenty, it returns k
// results, where a plain (non-iterative) index scan comes up short, and
// they are mostly the true nearest (HNSW is approximate).
func testIterativeIndexScan(t *testing.T, s *pgstore.Store, byTicker map[string][]corpus.Chunk) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(21, 22))
	filter := corpus.Filter{Tickers: []string{"T13"}}
	const k, queries = 10, 5
	var rec recall
	plainFound := 0
	for range queries {
		q := randomVec(r)
		got, plan, err := s.IndexVectorSearch(ctx, q, filter, k, true)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "chunks_embedding_idx") {
			t.Fatalf("the query did not walk the HNSW index:\n%s", plan)
		}
		checkResults(t, q, got, byTicker["T13"], k)
		rec.add(got, exactTop(q, byTicker["T13"], k))

		plain, _, err := s.IndexVectorSearch(ctx, q, filter, k, false)
		if err != nil {
			t.Fatal(err)
		}
		plainFound += len(plain)
	}
	if rec.value() < 0.8 {
		t.Errorf("iterative index scan recall@%d = %.2f, want at least 0.8", k, rec.value())
	}
	if plainFound >= queries*k {
		t.Errorf("a plain index scan found all %d results too: the test does not exercise iterative scans", queries*k)
	}
	t.Logf("recall@%d %.2f; a plain index scan found %d of %d results", k, rec.value(), plainFound, queries*k)
}

// BenchmarkVectorSearch measures the HNSW path (forced, as in
// testIterativeIndexScan) on 2000 random 384-dimensional unit vectors, the
// hardest kind of data for HNSW, and reports recall@10 beside the time, for
// a few Config.EfSearch values, unfiltered and filtered to one filing of 20:
//
//	DATABASE_URL=... go test -run '^$' -bench VectorSearch ./corpus/pgstore/
func BenchmarkVectorSearch(b *testing.B) {
	ctx := context.Background()
	pool := pgtest.Pool(b)
	byTicker := corpusOf20(b, newStore(b, pool, ""))
	var all []corpus.Chunk
	for _, chunks := range byTicker {
		all = append(all, chunks...)
	}
	const k = 10
	for _, ef := range []int{40, 100, 200} {
		s, err := pgstore.New(pool, &pgstore.Config{EfSearch: ef})
		if err != nil {
			b.Fatal(err)
		}
		for _, bc := range []struct {
			name   string
			filter corpus.Filter
			within []corpus.Chunk
		}{
			{"unfiltered", corpus.Filter{}, all},
			{"one_filing_of_20", corpus.Filter{Tickers: []string{"T13"}}, byTicker["T13"]},
		} {
			b.Run(fmt.Sprintf("ef=%d/%s", ef, bc.name), func(b *testing.B) {
				r := rand.New(rand.NewPCG(23, 24))
				qs := make([][]float32, 64)
				exact := make([][]string, len(qs))
				for i := range qs {
					qs[i] = randomVec(r)
					exact[i] = exactTop(qs[i], bc.within, k)
				}
				var rec recall
				i := 0
				for b.Loop() {
					got, _, err := s.IndexVectorSearch(ctx, qs[i%len(qs)], bc.filter, k, true)
					if err != nil {
						b.Fatal(err)
					}
					rec.add(got, exact[i%len(qs)])
					i++
				}
				b.ReportMetric(rec.value(), "recall@10")
			})
		}
	}
}
