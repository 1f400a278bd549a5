package embedded

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
)

const dim = 16

func open(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// randVec returns a deterministic random vector (not unit length).
func randVec(seed uint64, n int) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * 3)
	}
	return v
}

type fixture struct {
	doc    *corpus.Document
	chunks []corpus.Chunk
	facts  []corpus.Fact
}

// makeDoc builds a document whose paragraphs are its chunks.
func makeDoc(ticker, form string, fy int, sections, paragraphs []string, seed uint64) fixture {
	var text strings.Builder
	chunks := make([]corpus.Chunk, len(paragraphs))
	for i, p := range paragraphs {
		chunks[i] = corpus.Chunk{Ordinal: i, Start: text.Len(), Text: p, Embedding: randVec(seed+uint64(i), dim)}
		text.WriteString(p)
		chunks[i].End = text.Len()
		text.WriteString("\n")
		if i < len(sections) {
			chunks[i].Section = sections[i]
		}
	}
	doc := &corpus.Document{
		Ticker: ticker, Company: ticker + " Inc.", Form: form, FiscalYear: fy,
		PeriodEnd: time.Date(fy, 9, 30, 0, 0, 0, 0, time.UTC), Filed: time.Date(fy, 11, 1, 0, 0, 0, 0, time.UTC),
		Source: "fixture/" + ticker, Format: corpus.FormatText, Pages: 2, Embedder: "test-embedder", Text: text.String(),
	}
	doc.ID = corpus.DocumentID(doc.Text)
	for i := range chunks {
		chunks[i].ID = corpus.ChunkID(doc.ID, i)
		chunks[i].DocumentID = doc.ID
	}
	facts := []corpus.Fact{{
		Concept: "us-gaap:Revenues", Value: decimal.RequireFromString(fmt.Sprintf("%d.5", seed)), Unit: "USD",
		Decimals: "-6", PeriodStart: doc.PeriodEnd.AddDate(-1, 0, 1), PeriodEnd: doc.PeriodEnd, ContextID: "c1",
		Dimensions: map[string]string{"srt:SegmentAxis": "x:Services"}, Start: 0, End: 3,
	}}
	return fixture{doc, chunks, facts}
}

func (f fixture) add(t *testing.T, s *Store) {
	t.Helper()
	added, err := s.AddDocument(context.Background(), f.doc, f.chunks, f.facts)
	if err != nil || !added {
		t.Fatalf("AddDocument(%s) = %v, %v", f.doc.Ticker, added, err)
	}
}

func sampleDocs() []fixture {
	return []fixture{
		makeDoc("AAPL", "10-K", 2024, []string{"Item 1", "Item 7", "Item 7", "Item 8"}, []string{
			"The Company designs smartphones and wearables.",
			"Products gross margin decreased due to weaker foreign currencies.",
			"Services net sales increased due to advertising and cloud services.",
			"Total net sales | 391,035 | 383,285",
		}, 100),
		makeDoc("NVDA", "10-K", 2023, []string{"Item 1", "Item 7", "Item 7"}, []string{
			"NVIDIA pioneered accelerated computing.",
			"Gross margin decreased due to inventory provisions.",
			"Data Center revenue grew on demand from hyperscale customers.",
		}, 200),
		makeDoc("AAPL", "10-Q", 2025, []string{"Item 2", "Item 2"}, []string{
			"Products gross margin decreased during the quarter due to tariff costs.",
			"Services gross margin increased.",
		}, 300),
	}
}

// snapshot records everything a store answers about the sample documents.
func snapshot(t *testing.T, s *Store) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	var err error
	record := func(name string, v any, e error) {
		if e != nil {
			err = e
		}
		out[name] = v
	}
	docs, e := s.Documents(ctx)
	record("documents", docs, e)
	for _, d := range docs {
		full, e := s.Document(ctx, d.ID)
		record("document "+d.ID, full, e)
		facts, e := s.Facts(ctx, corpus.FactFilter{DocumentID: d.ID})
		record("facts "+d.ID, facts, e)
	}
	for _, q := range []string{"gross margin", "gross margin decreased -tariff", `"net sales"`, "391,035", "cloud or hyperscale"} {
		r, e := s.FullTextSearch(ctx, q, corpus.Filter{}, 5)
		record("fts "+q, r, e)
	}
	r, e := s.VectorSearch(ctx, randVec(201, dim), corpus.Filter{}, 4)
	record("vector", r, e)
	st, e := s.Stats(ctx)
	record("stats", st, e)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPersistence(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", ".research") // created by Open
	s := open(t, dir)
	for _, f := range sampleDocs() {
		f.add(t, s)
	}
	before := snapshot(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, dir)
	after := snapshot(t, s)
	for name, want := range before {
		if got := after[name]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s after reopening:\n got %+v\nwant %+v", name, got, want)
		}
	}
	// Adding a stored document again, after reopening, changes nothing.
	f := sampleDocs()[1]
	added, err := s.AddDocument(context.Background(), f.doc, f.chunks, f.facts)
	if err != nil || added {
		t.Fatalf("AddDocument of a stored document = %v, %v; want false, nil", added, err)
	}
	if st, _ := s.Stats(context.Background()); !reflect.DeepEqual(st, after["stats"]) {
		t.Fatalf("stats changed: %+v", st)
	}
}

func TestVectorsRoundTripExactly(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	f := sampleDocs()[0]
	f.add(t, s)
	s.Close()
	data, err := os.ReadFile(filepath.Join(dir, "docs", f.doc.ID+".doc"))
	if err != nil {
		t.Fatal(err)
	}
	_, doc, chunks, facts, err := decodeDocFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc, f.doc) {
		t.Errorf("document:\n got %+v\nwant %+v", doc, f.doc)
	}
	if !reflect.DeepEqual(chunks, f.chunks) {
		t.Errorf("chunks differ:\n got %+v\nwant %+v", chunks, f.chunks)
	}
	if len(facts) != 1 || !facts[0].Value.Equal(f.facts[0].Value) || facts[0].DocumentID != f.doc.ID ||
		!reflect.DeepEqual(facts[0].Dimensions, f.facts[0].Dimensions) {
		t.Errorf("facts: got %+v", facts)
	}
}

func TestChunkTextNotInDocument(t *testing.T) {
	// A chunk whose text is not the document's text at its span is kept as given.
	s := open(t, t.TempDir())
	f := makeDoc("X", "10-K", 2024, nil, []string{"alpha beta"}, 1)
	f.chunks[0].Text = "rewritten gamma"
	f.add(t, s)
	got, err := s.FullTextSearch(context.Background(), "gamma", corpus.Filter{}, 1)
	if err != nil || len(got) != 1 || got[0].Text != "rewritten gamma" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestCorruptFile(t *testing.T) {
	tests := []struct {
		name   string
		damage func(data []byte) []byte
	}{
		{"flipped byte", func(d []byte) []byte { d[len(d)/2] ^= 0x40; return d }},
		{"truncated", func(d []byte) []byte { return d[:len(d)-100] }},
		{"truncated header", func(d []byte) []byte { return d[:10] }},
		{"empty", func(d []byte) []byte { return nil }},
		{"not a document file", func(d []byte) []byte { return []byte("hello, world, this is not it") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir)
			for _, f := range sampleDocs() {
				f.add(t, s)
			}
			s.Close()
			path := filepath.Join(dir, "docs", sampleDocs()[1].doc.ID+".doc")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tt.damage(data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = Open(dir, nil)
			if err == nil {
				t.Fatal("Open of a store with a damaged file succeeded")
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Open error %q does not name %s as corrupt", err, path)
			}
		})
	}
}

func TestMisnamedFile(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	f := sampleDocs()[0]
	f.add(t, s)
	s.Close()
	from := filepath.Join(dir, "docs", f.doc.ID+".doc")
	to := filepath.Join(dir, "docs", "abc.doc")
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, nil); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), to) {
		t.Fatalf("Open error = %v, want one naming %s", err, to)
	}
}

func TestFormatFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "FORMAT"), []byte("something else\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, nil); err == nil || !strings.Contains(err.Error(), "FORMAT") {
		t.Fatalf("Open of a foreign directory: error %v", err)
	}
}

func TestStaleTempFiles(t *testing.T) {
	dir := t.TempDir()
	open(t, dir).Close()
	stale := filepath.Join(dir, "docs", tempPrefix+"stale")
	fresh := filepath.Join(dir, "docs", tempPrefix+"fresh")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTemp)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	open(t, dir)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temporary file kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh temporary file (perhaps another process's write) removed: %v", err)
	}
}

func TestTwoStoresOneDirectory(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	docs := sampleDocs()
	docs[0].add(t, a)
	docs[1].add(t, b)
	// b has not seen docs[0]; adding it finds the file and takes it.
	added, err := b.AddDocument(context.Background(), docs[0].doc, docs[0].chunks, docs[0].facts)
	if err != nil || added {
		t.Fatalf("second store adding a document the first stored = %v, %v; want false, nil", added, err)
	}
	if _, err := b.Document(context.Background(), docs[0].doc.ID); err != nil {
		t.Fatalf("the second store did not take the first's copy: %v", err)
	}
	c := open(t, dir)
	if st, _ := c.Stats(context.Background()); st.Documents != 2 {
		t.Fatalf("reopened store has %d documents, want 2", st.Documents)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	var wg sync.WaitGroup
	docs := sampleDocs()
	for i := range 8 {
		wg.Go(func() {
			// Everyone adds every document; each is stored once.
			for _, f := range docs {
				if _, err := s.AddDocument(ctx, f.doc, f.chunks, f.facts); err != nil {
					t.Error(err)
				}
			}
			for j := range 50 {
				if _, err := s.FullTextSearch(ctx, "gross margin", corpus.Filter{}, 3); err != nil {
					t.Error(err)
				}
				if _, err := s.VectorSearch(ctx, randVec(uint64(i*100+j), dim), corpus.Filter{}, 3); err != nil {
					t.Error(err)
				}
				if _, err := s.Documents(ctx); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	st, err := s.Stats(ctx)
	if err != nil || st.Documents != len(docs) || st.Chunks != 9 || st.Facts != 3 {
		t.Fatalf("stats %+v, %v", st, err)
	}
}

func TestFilters(t *testing.T) {
	s := open(t, t.TempDir())
	for _, f := range sampleDocs() {
		f.add(t, s)
	}
	ctx := context.Background()
	tests := []struct {
		name   string
		filter corpus.Filter
		ok     func(r corpus.SearchResult) bool
		n      int // chunks the filter admits
	}{
		{"none", corpus.Filter{}, func(corpus.SearchResult) bool { return true }, 9},
		{"tickers", corpus.Filter{Tickers: []string{"NVDA", "MSFT"}}, func(r corpus.SearchResult) bool { return r.Ticker == "NVDA" }, 3},
		{"form", corpus.Filter{Form: "10-Q"}, func(r corpus.SearchResult) bool { return r.Form == "10-Q" }, 2},
		{"years", corpus.Filter{FiscalYears: []int{2023, 2025}}, func(r corpus.SearchResult) bool { return r.FiscalYear != 2024 }, 5},
		{"section", corpus.Filter{Section: "Item 7"}, func(r corpus.SearchResult) bool { return r.Section == "Item 7" }, 4},
		{"all", corpus.Filter{Tickers: []string{"AAPL"}, Form: "10-K", FiscalYears: []int{2024}, Section: "Item 8"},
			func(r corpus.SearchResult) bool { return r.Section == "Item 8" && r.Ticker == "AAPL" }, 1},
		{"nothing", corpus.Filter{Section: "Item 9"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vec, err := s.VectorSearch(ctx, randVec(7, dim), tt.filter, 100)
			if err != nil {
				t.Fatal(err)
			}
			if len(vec) != tt.n {
				t.Fatalf("VectorSearch: %d results, want %d", len(vec), tt.n)
			}
			// Full text finds, of the chunks the filter admits, those with the word.
			var want []string
			for _, r := range vec {
				if strings.Contains(strings.ToLower(r.Text), "margin") {
					want = append(want, r.ChunkID)
				}
			}
			fts, err := s.FullTextSearch(ctx, "margins", tt.filter, 100)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range fts {
				got = append(got, r.ChunkID)
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("FullTextSearch: %q, want %q", got, want)
			}
			for _, r := range append(vec, fts...) {
				if !tt.ok(r) {
					t.Errorf("result outside the filter: %+v", r)
				}
			}
		})
	}
}

func TestFullTextANDThenOR(t *testing.T) {
	s := open(t, t.TempDir())
	for _, f := range sampleDocs() {
		f.add(t, s)
	}
	ctx := context.Background()
	texts := func(q string, k int) []string {
		t.Helper()
		rs, err := s.FullTextSearch(ctx, q, corpus.Filter{}, k)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.Text)
			if r.Score < 0 || math.IsNaN(r.Score) {
				t.Errorf("score %v", r.Score)
			}
		}
		return out
	}
	// Three chunks hold all of "gross margin decreased": with k=3 they are all we get.
	got := texts("gross margin decreased", 3)
	for _, txt := range got {
		if !strings.Contains(strings.ToLower(txt), "gross margin decreased") {
			t.Errorf("k=3 returned a partial match %q", txt)
		}
	}
	// With k=5 the one chunk holding some of the words follows them.
	got = texts("gross margin decreased", 5)
	if len(got) != 4 || got[3] != "Services gross margin increased." {
		t.Errorf("k=5: %q, want the three exact matches and then the partial one", got)
	}
	// No chunk holds every word: the best partial matches.
	got = texts("tariff hyperscale provisions inventory", 10)
	if len(got) != 3 || got[0] != "Gross margin decreased due to inventory provisions." {
		t.Errorf("OR fallback: %q", got)
	}
	// The fallback keeps exclusions.
	for _, txt := range texts("gross margin -tariff -inventory", 10) {
		if strings.Contains(txt, "tariff") || strings.Contains(txt, "inventory") {
			t.Errorf("excluded word in %q", txt)
		}
	}
	// Phrases and numbers.
	if got := texts(`"net sales" 391,035`, 10); len(got) == 0 || got[0] != "Total net sales | 391,035 | 383,285" {
		t.Errorf("phrase and number: %q", got)
	}
	for _, q := range []string{"", "the of and", "-", `""`, "-tariff", "gross or -tariff"} {
		if got := texts(q, 10); len(got) != 0 {
			t.Errorf("%q matched %q", q, got)
		}
	}
}

func TestVectorSearch(t *testing.T) {
	s := open(t, t.TempDir())
	docs := sampleDocs()
	for _, f := range docs {
		f.add(t, s)
	}
	ctx := context.Background()
	// The stored vector itself (at any scale) is its own nearest, similarity 1.
	target := docs[1].chunks[2]
	q := slices.Clone(target.Embedding)
	for i := range q {
		q[i] *= 0.01
	}
	got, err := s.VectorSearch(ctx, q, corpus.Filter{}, 9)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 9 || got[0].ChunkID != target.ID || math.Abs(got[0].Score-1) > 1e-6 {
		t.Fatalf("nearest = %+v", got[0])
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Fatalf("not ordered: %v then %v", got[i-1].Score, got[i].Score)
		}
	}
	if _, err := s.VectorSearch(ctx, make([]float32, dim), corpus.Filter{}, 3); err == nil {
		t.Error("zero query vector accepted")
	}
	if _, err := s.VectorSearch(ctx, randVec(1, dim+1), corpus.Filter{}, 3); err == nil {
		t.Error("query of the wrong dimension accepted")
	}
	nan := randVec(1, dim)
	nan[3] = float32(math.NaN())
	if _, err := s.VectorSearch(ctx, nan, corpus.Filter{}, 3); err == nil {
		t.Error("NaN query accepted")
	}
	if got, err := s.VectorSearch(ctx, q, corpus.Filter{}, 0); err != nil || len(got) != 0 {
		t.Errorf("k=0: %v, %v", got, err)
	}
}

// TestVectorSearchFilteredK: one filing among twenty matches the filter; k
// results come back, all from it, and they are the exact top k.
func TestVectorSearchFilteredK(t *testing.T) {
	s, err := Open(t.TempDir(), &Config{Parallelism: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var target []corpus.Chunk
	for d := range 20 {
		paras := make([]string, 12+d)
		for i := range paras {
			paras[i] = fmt.Sprintf("Filing %d paragraph %d.", d, i)
		}
		ticker := fmt.Sprintf("T%02d", d)
		if d == 13 {
			ticker = "X"
		}
		f := makeDoc(ticker, "10-K", 2020+d%3, nil, paras, uint64(1000*d))
		f.add(t, s)
		if d == 13 {
			target = f.chunks
		}
	}
	q := randVec(99, dim)
	got, err := s.VectorSearch(context.Background(), q, corpus.Filter{Tickers: []string{"X"}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(target, func(a, b corpus.Chunk) int {
		return -compareFloat(cosine(q, a.Embedding), cosine(q, b.Embedding))
	})
	if len(got) != 10 {
		t.Fatalf("%d results, want 10", len(got))
	}
	for i, r := range got {
		if r.Ticker != "X" || r.ChunkID != target[i].ID {
			t.Errorf("result %d = %s (%s), want %s", i, r.ChunkID, r.Ticker, target[i].ID)
		}
		if want := cosine(q, target[i].Embedding); math.Abs(r.Score-want) > 1e-5 {
			t.Errorf("result %d score %v, want cosine %v", i, r.Score, want)
		}
	}
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(na*nb)
}

func TestSplitSpans(t *testing.T) {
	spans := []span{{0, 10}, {20, 23}, {30, 50}}
	for n := 1; n <= 8; n++ {
		parts := splitSpans(spans, 33, n)
		var rows []int
		for _, p := range parts {
			for _, sp := range p {
				for i := sp.lo; i < sp.hi; i++ {
					rows = append(rows, i)
				}
			}
		}
		if len(rows) != 33 || len(parts) > n || !slices.IsSorted(rows) {
			t.Errorf("n=%d: %d parts covering %d rows: %v", n, len(parts), len(rows), parts)
		}
	}
}

func TestDocumentsAndFacts(t *testing.T) {
	s := open(t, t.TempDir())
	for _, f := range sampleDocs() {
		f.add(t, s)
	}
	ctx := context.Background()
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.Ticker+" "+d.Form)
		if d.Text != "" {
			t.Error("listing carries text")
		}
	}
	if want := []string{"AAPL 10-K", "AAPL 10-Q", "NVDA 10-K"}; !slices.Equal(got, want) {
		t.Errorf("Documents() = %q, want %q", got, want)
	}
	d, err := s.FindFiling(ctx, "NVDA", "10-K", time.Date(2023, 9, 30, 15, 0, 0, 0, time.FixedZone("x", 3600)))
	if err != nil || d.Ticker != "NVDA" || d.Text != "" {
		t.Fatalf("FindFiling = %+v, %v", d, err)
	}
	if _, err := s.FindFiling(ctx, "NVDA", "10-Q", d.PeriodEnd); !errors.Is(err, corpus.ErrNotFound) {
		t.Errorf("FindFiling of a missing filing: %v", err)
	}
	if _, err := s.Document(ctx, "nope"); !errors.Is(err, corpus.ErrNotFound) {
		t.Errorf("Document(nope): %v", err)
	}
	facts, err := s.Facts(ctx, corpus.FactFilter{Ticker: "AAPL", Concept: "us-gaap:Revenues"})
	if err != nil || len(facts) != 2 || facts[0].DocumentID > facts[1].DocumentID {
		t.Fatalf("Facts(AAPL) = %+v, %v", facts, err)
	}
	facts[0].Dimensions["mutated"] = "yes"
	again, _ := s.Facts(ctx, corpus.FactFilter{Ticker: "AAPL", Limit: 1})
	if len(again) != 1 || again[0].Dimensions["mutated"] != "" {
		t.Fatalf("Facts(Limit 1) = %+v (a caller's change must not reach the store)", again)
	}
}

func TestAddDocumentValidation(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	base := func() fixture { return makeDoc("X", "10-K", 2024, nil, []string{"one", "two"}, 1) }
	tests := []struct {
		name  string
		spoil func(f *fixture)
	}{
		{"bad id", func(f *fixture) { f.doc.ID = "../escape" }},
		{"duplicate chunk", func(f *fixture) { f.chunks[1].ID = f.chunks[0].ID }},
		{"foreign chunk", func(f *fixture) { f.chunks[1].DocumentID = "other" }},
		{"ragged embeddings", func(f *fixture) { f.chunks[1].Embedding = f.chunks[1].Embedding[:3] }},
		{"NaN embedding", func(f *fixture) { f.chunks[1].Embedding[0] = float32(math.NaN()) }},
		{"foreign fact", func(f *fixture) { f.facts[0].DocumentID = "other" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base()
			tt.spoil(&f)
			if added, err := s.AddDocument(ctx, f.doc, f.chunks, f.facts); err == nil || added {
				t.Fatalf("AddDocument = %v, %v; want an error", added, err)
			}
		})
	}
	// The store's dimension is fixed by its first embedding.
	base().add(t, s)
	f := makeDoc("Y", "10-K", 2024, nil, []string{"three"}, 2)
	f.chunks[0].Embedding = randVec(5, dim*2)
	if _, err := s.AddDocument(ctx, f.doc, f.chunks, nil); err == nil {
		t.Fatal("embedding of another dimension accepted")
	}
	if entries, _ := os.ReadDir(s.docsDir); len(entries) != 1 {
		t.Fatalf("rejected documents left files: %v", entries)
	}
	// Chunks without embeddings are stored but never found by vector search.
	g := makeDoc("Z", "10-K", 2024, nil, []string{"no vector here"}, 3)
	g.chunks[0].Embedding = nil
	g.add(t, s)
	rs, err := s.VectorSearch(ctx, randVec(1, dim), corpus.Filter{Tickers: []string{"Z"}}, 5)
	if err != nil || len(rs) != 0 {
		t.Fatalf("VectorSearch over an unembedded chunk = %v, %v", rs, err)
	}
}

func TestConfig(t *testing.T) {
	if _, err := Open(t.TempDir(), &Config{Parallelism: -1}); err == nil || !strings.Contains(err.Error(), "Parallelism") {
		t.Errorf("negative Parallelism: %v", err)
	}
	if _, err := Open(t.TempDir(), &Config{Dimensions: -1}); err == nil || !strings.Contains(err.Error(), "Dimensions") {
		t.Errorf("negative Dimensions: %v", err)
	}
	s, err := Open(t.TempDir(), &Config{Dimensions: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f := makeDoc("X", "10-K", 2024, nil, []string{"one"}, 1) // 16 dimensions
	if _, err := s.AddDocument(context.Background(), f.doc, f.chunks, nil); err == nil {
		t.Fatal("embedding longer than Config.Dimensions accepted")
	}
}

func TestClosed(t *testing.T) {
	s := open(t, t.TempDir())
	sampleDocs()[0].add(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	ctx := context.Background()
	f := sampleDocs()[1]
	if _, err := s.AddDocument(ctx, f.doc, f.chunks, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("AddDocument: %v", err)
	}
	if _, err := s.FullTextSearch(ctx, "margin", corpus.Filter{}, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("FullTextSearch: %v", err)
	}
	if _, err := s.VectorSearch(ctx, randVec(1, dim), corpus.Filter{}, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("VectorSearch: %v", err)
	}
	if _, err := s.Stats(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Stats: %v", err)
	}
}

func TestCanceledContext(t *testing.T) {
	s := open(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := sampleDocs()[0]
	if _, err := s.AddDocument(ctx, f.doc, f.chunks, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("AddDocument: %v", err)
	}
	if _, err := s.FullTextSearch(ctx, "margin", corpus.Filter{}, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("FullTextSearch: %v", err)
	}
}
