package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/internal/pgtest"
)

// TestRunScale runs the scale benchmark end to end on 2,000 short chunks
// in Postgres and the embedded store. At this size the planner may prefer an
// exact scan to the HNSW index, so high recall is expected either way.
func TestRunScale(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	var progress bytes.Buffer
	rep, err := RunScale(context.Background(), pool, &ScaleOpts{
		Synthetic:   SyntheticOpts{Chunks: 2000, ChunksPerDoc: 100, ChunkBytes: 400, Tickers: 10, Seed: 3},
		Vocabulary:  BuiltinVocabulary(500, 3),
		Queries:     15,
		EfSearch:    []int{0, 200},
		EmbeddedDir: t.TempDir(),
	}, &progress)
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	if rep.Chunks != 2000 || rep.Documents != 20 || rep.Queries != 15 || rep.FilteredQueries != 5 {
		t.Errorf("report: %d chunks, %d documents, %d queries (%d filtered)", rep.Chunks, rep.Documents, rep.Queries, rep.FilteredQueries)
	}
	if rep.Generate <= 0 || rep.Embed <= 0 {
		t.Errorf("generate %s, embed %s", rep.Generate, rep.Embed)
	}
	if len(rep.Stores) != 2 || rep.Stores[0].Store != "postgres" || rep.Stores[1].Store != "embedded" {
		t.Fatalf("stores %+v", rep.Stores)
	}
	wantRecalls := map[string]int{"postgres": 2, "embedded": 1}
	for _, s := range rep.Stores {
		if s.Load <= 0 {
			t.Errorf("%s: load %s", s.Store, s.Load)
		}
		if s.Store == "postgres" && s.IndexBuild <= 0 {
			t.Errorf("postgres: index build %s", s.IndexBuild)
		}
		if len(s.Latency) != 9 { // three modes: all, unfiltered, filtered
			t.Errorf("%s: %d latency rows, want 9", s.Store, len(s.Latency))
		}
		for _, m := range s.Latency {
			l := m.Latency
			if l.N == 0 || l.P50 <= 0 || l.Mean <= 0 || l.P50 > l.P95 || l.P95 > l.P99 || l.P99 > l.Max {
				t.Errorf("%s %s %s: latency %+v", s.Store, m.Mode, m.Queries, l)
			}
		}
		if s.Store == "postgres" {
			checkFullTextSettings(t, s.FullText)
		} else if len(s.FullText) > 0 {
			t.Errorf("%s: full-text settings measured: %+v", s.Store, s.FullText)
		}
		if len(s.Recall) != wantRecalls[s.Store] {
			t.Errorf("%s: %d recall rows, want %d", s.Store, len(s.Recall), wantRecalls[s.Store])
		}
		for _, r := range s.Recall {
			for _, x := range []float64{r.Unfiltered, r.Filtered} {
				if x < 0.9 || x > 1 {
					t.Errorf("%s %s: recall@10 unfiltered %.3f, filtered %.3f; want 0.9 to 1", s.Store, r.Setting, r.Unfiltered, r.Filtered)
				}
			}
		}
	}
	for _, phase := range []string{"generated", "embedded in", "loaded in", "HNSW index built", "recall@10 at ef_search=200", "done"} {
		if !strings.Contains(progress.String(), phase) {
			t.Errorf("no progress line with %q", phase)
		}
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"postgres  ef_search=default", "embedded", "hybrid", "filtered", "candidates=default", "unbounded"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		Chunks int     `json:"chunks"`
		EmbedS float64 `json:"embed_s"`
		Stores []struct {
			LoadS   float64 `json:"load_s"`
			Latency []struct {
				Latency struct {
					P50 float64 `json:"p50_ms"`
				} `json:"latency"`
			} `json:"latency"`
		} `json:"stores"`
	}
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	if decoded.Chunks != 2000 || decoded.EmbedS <= 0 || len(decoded.Stores) != 2 || decoded.Stores[0].LoadS <= 0 ||
		decoded.Stores[0].Latency[0].Latency.P50 <= 0 {
		t.Errorf("JSON report: %s", b)
	}
}

// TestRunScaleNeedsFreshSchema: the benchmark drops the HNSW index, so it
// refuses a schema that holds chunks.
func TestRunScaleNeedsFreshSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: "someone"})
	if err != nil {
		t.Fatal(err)
	}
	doc := &corpus.Document{Ticker: "ACME", Form: "10-K", FiscalYear: 2024, Format: corpus.FormatText, Text: "Revenue grew."}
	doc.ID = corpus.DocumentID(doc.Text)
	chunk := corpus.Chunk{ID: corpus.ChunkID(doc.ID, 0), End: len(doc.Text), Text: doc.Text}
	if _, err := store.AddDocument(ctx, doc, []corpus.Chunk{chunk}, nil); err != nil {
		t.Fatal(err)
	}
	opts := &ScaleOpts{Synthetic: SyntheticOpts{Chunks: 10, ChunksPerDoc: 10, Tickers: 1}, Queries: 3}
	if _, err := RunScale(ctx, pool, opts, nil); err == nil || !strings.Contains(err.Error(), "fresh") {
		t.Errorf("err = %v, want a refusal", err)
	}
	if st, err := store.Stats(ctx); err != nil || st.Chunks != 1 {
		t.Errorf("the other tenant's store: %+v, %v", st, err)
	}
}

func TestRunSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := embedded.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	syn, err := Generate(ctx, BuiltinVocabulary(100, 1), &SyntheticOpts{Chunks: 300, ChunksPerDoc: 100, Tickers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := syn.Embed(ctx, corpus.HashEmbedder{}, 0, nil); err != nil {
		t.Fatal(err)
	}
	for _, d := range syn.Docs {
		if _, err := s.AddDocument(ctx, d.Doc, d.Chunks, nil); err != nil {
			t.Fatal(err)
		}
	}
	queries := append(DefaultQueries()[:4], Query{Text: "revenue margin", Filter: corpus.Filter{Tickers: []string{syn.Docs[0].Doc.Ticker}}})
	rep, err := RunSearch(ctx, s, corpus.HashEmbedder{}, queries, &SearchOpts{Store: "embedded", N: 12}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Documents != 3 || rep.Chunks != 300 || rep.Queries != 5 || rep.K != 10 {
		t.Errorf("report %+v", rep)
	}
	if len(rep.Latency) != 9 {
		t.Fatalf("%d latency rows, want 9", len(rep.Latency))
	}
	for _, m := range rep.Latency {
		want := map[string]int{allQueries: 12, unfilteredQueries: 10, filteredQueries: 2}[m.Queries]
		if m.Latency.N != want || m.Latency.P50 <= 0 {
			t.Errorf("%s %s: %+v, want %d timings", m.Mode, m.Queries, m.Latency, want)
		}
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil || !strings.Contains(out.String(), "hybrid") {
		t.Errorf("table (%v):\n%s", err, out.String())
	}
	if _, err := RunSearch(ctx, s, corpus.HashEmbedder{}, nil, nil, nil); err == nil {
		t.Error("RunSearch without queries succeeded")
	}
}

// checkFullTextSettings checks the default setting of the full-text
// candidates table, measured against the unbounded search: at 2,000 chunks
// the bound of 1,000 is reached by common words, so the results may differ
// somewhat, but not much.
func checkFullTextSettings(t *testing.T, ft []FullTextReport) {
	t.Helper()
	if len(ft) != 2 || ft[0].Setting != "candidates=default" || ft[1].Setting != "unbounded" {
		t.Fatalf("full-text settings %+v, want the default and unbounded", ft)
	}
	for _, f := range ft {
		if len(f.Latency) != 6 { // fulltext and hybrid: all, unfiltered, filtered
			t.Errorf("%s: %d latency rows, want 6", f.Setting, len(f.Latency))
		}
		for _, m := range f.Latency {
			if m.Latency.N == 0 || m.Latency.P50 <= 0 {
				t.Errorf("%s %s %s: latency %+v", f.Setting, m.Mode, m.Queries, m.Latency)
			}
		}
		for _, mode := range []corpus.SearchMode{corpus.ModeFullText, corpus.ModeHybrid} {
			a, ok := f.Agreement[mode]
			switch {
			case !ok:
				t.Errorf("%s %s: no agreement", f.Setting, mode)
			case f.Candidates == -1 && a != 1:
				t.Errorf("unbounded %s agrees with itself %.3f, want 1", mode, a)
			case a < 0.5 || a > 1:
				t.Errorf("%s %s: agreement %.3f with unbounded, want 0.5 to 1", f.Setting, mode, a)
			}
		}
	}
}
