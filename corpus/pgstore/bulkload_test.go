package pgstore_test

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/internal/pgtest"
)

// hnswIndex reports whether the chunks table has its HNSW index, failing
// the test if the index exists but is not valid.
func hnswIndex(t *testing.T, pool *pgxpool.Pool) bool {
	t.Helper()
	var exists, valid bool
	err := pool.QueryRow(context.Background(), `
SELECT to_regclass('chunks_embedding_idx') IS NOT NULL,
	coalesce((SELECT indisvalid AND indisready FROM pg_index WHERE indexrelid = to_regclass('chunks_embedding_idx')), false)`).
		Scan(&exists, &valid)
	if err != nil {
		t.Fatal(err)
	}
	if exists && !valid {
		t.Fatal("the HNSW index exists but is not valid")
	}
	return exists
}

var vectorLiteral = regexp.MustCompile(`'\[[^]]*\]'`)

type fixtureDoc struct {
	doc    *corpus.Document
	chunks []corpus.Chunk
}

func fixtureDocs(r *rand.Rand, n, chunks int) []fixtureDoc {
	docs := make([]fixtureDoc, n)
	for i := range docs {
		docs[i].doc, docs[i].chunks = fixture(r, "T"+string(rune('A'+i)), 2020+i, chunks, nil)
	}
	return docs
}

// checkFindsItself searches with some chunks' own embeddings: each must be
// its own nearest neighbour.
func checkFindsItself(t *testing.T, s *pgstore.Store, docs []fixtureDoc) {
	t.Helper()
	for _, d := range docs {
		for _, c := range d.chunks[:5] {
			got, err := s.VectorSearch(context.Background(), c.Embedding, corpus.Filter{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 10 || got[0].ChunkID != c.ID {
				t.Fatalf("searching chunk %s's own embedding: first of %d results is %v", c.ID, len(got), ids(got[:min(1, len(got))]))
			}
		}
	}
}

func TestBulkLoadBuildsIndexAfter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	s := newStore(t, pool, "")
	// 5,000 chunks: below about 4,000 the planner would rather sort them
	// all than walk the index at ef_search 100.
	docs := fixtureDocs(rand.New(rand.NewPCG(21, 22)), 5, 1000)

	s.BeginBulkLoad()
	mustAdd(t, s, docs[0].doc, docs[0].chunks, nil)
	if hnswIndex(t, pool) {
		t.Fatal("a bulk load into an empty table kept the HNSW index")
	}
	// Without the index, searches score every chunk: still right.
	checkFindsItself(t, s, docs[:1])
	for _, d := range docs[1:] {
		mustAdd(t, s, d.doc, d.chunks, nil)
	}
	if err := s.RefreshStats(ctx); err != nil {
		t.Fatal(err)
	}
	if !hnswIndex(t, pool) {
		t.Fatal("RefreshStats did not build the HNSW index after a bulk load")
	}
	plan, err := s.VectorPlan(ctx, docs[2].chunks[7].Embedding, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "Index Scan using chunks_embedding_idx") {
		t.Fatalf("a vector search after the bulk load does not use the HNSW index:\n%s", vectorLiteral.ReplaceAllString(plan, "'[...]'"))
	}
	checkFindsItself(t, s, docs)
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Loading the same documents again changes nothing, and leaves the
	// index alone.
	again := newStore(t, pool, "")
	again.BeginBulkLoad()
	for _, d := range docs {
		added, err := again.AddDocument(ctx, d.doc, d.chunks, nil)
		if err != nil {
			t.Fatal(err)
		}
		if added {
			t.Fatalf("re-adding %s in a bulk load reported it added", d.doc.Source)
		}
		if !hnswIndex(t, pool) {
			t.Fatal("re-adding stored documents in a bulk load dropped the HNSW index")
		}
	}
	if err := again.RefreshStats(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := again.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Documents != before.Documents || after.Chunks != before.Chunks || after.Facts != before.Facts {
		t.Fatalf("stats after re-adding = %+v, want %+v", after, before)
	}
	checkFindsItself(t, again, docs)
}

func TestBulkLoadIntoSmallTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	s, err := pgstore.New(pool, &pgstore.Config{BulkLoadThreshold: 1000})
	if err != nil {
		t.Fatal(err)
	}
	docs := fixtureDocs(rand.New(rand.NewPCG(23, 24)), 6, 200)
	for _, d := range docs[:3] { // 600 chunks, inserted into the index
		mustAdd(t, s, d.doc, d.chunks, nil)
	}
	s.BeginBulkLoad()
	steps := []struct {
		doc   fixtureDoc
		index bool
		why   string
	}{
		{docs[3], false, "800 chunks: the load added a quarter of the 600 there were, the index is dropped"},
		{docs[4], false, "1,000 chunks, the threshold: still without the index"},
		{docs[5], true, "1,200 chunks would pass the threshold: the index is built first"},
	}
	for _, st := range steps {
		mustAdd(t, s, st.doc.doc, st.doc.chunks, nil)
		if got := hnswIndex(t, pool); got != st.index {
			t.Fatalf("index = %v, want %v: %s", got, st.index, st.why)
		}
	}
	if err := s.RefreshStats(ctx); err != nil {
		t.Fatal(err)
	}
	if !hnswIndex(t, pool) {
		t.Fatal("no HNSW index after the bulk load")
	}
	checkFindsItself(t, s, docs)
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Chunks != 1200 {
		t.Fatalf("chunks = %d, want 1200", st.Chunks)
	}
}

func TestBulkLoadKeepsIndexForAFewChunks(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	s := newStore(t, pool, "")
	docs := fixtureDocs(rand.New(rand.NewPCG(25, 26)), 3, 200)
	for _, d := range docs[:2] {
		mustAdd(t, s, d.doc, d.chunks, nil)
	}
	// Not a bulk load: the index takes every chunk.
	if !hnswIndex(t, pool) {
		t.Fatal("an ingest without BeginBulkLoad dropped the HNSW index")
	}
	// A bulk load of 50 chunks into a table of 400 keeps the index:
	// building it again for 450 chunks would cost more than inserting 50.
	s.BeginBulkLoad()
	few := docs[2]
	mustAdd(t, s, few.doc, few.chunks[:50], nil)
	if !hnswIndex(t, pool) {
		t.Fatal("a bulk load of 50 chunks into a table of 400 dropped the HNSW index")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !hnswIndex(t, pool) {
		t.Fatal("no HNSW index after Close")
	}
}

func TestBulkLoadEndedByClose(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	s := newStore(t, pool, "")
	docs := fixtureDocs(rand.New(rand.NewPCG(27, 28)), 2, 100)
	s.BeginBulkLoad()
	for _, d := range docs {
		mustAdd(t, s, d.doc, d.chunks, nil)
	}
	if hnswIndex(t, pool) {
		t.Fatal("a bulk load into an empty table kept the HNSW index")
	}
	// The load failed before RefreshStats: Close builds the index.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !hnswIndex(t, pool) {
		t.Fatal("Close did not build the HNSW index after a bulk load")
	}
	checkFindsItself(t, s, docs)
}

func TestBulkLoadRepairsMissingIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	s := newStore(t, pool, "")
	docs := fixtureDocs(rand.New(rand.NewPCG(29, 30)), 2, 100)
	mustAdd(t, s, docs[0].doc, docs[0].chunks, nil)
	// What a bulk load whose process died leaves behind.
	if _, err := pool.Exec(ctx, `DROP INDEX chunks_embedding_idx`); err != nil {
		t.Fatal(err)
	}
	s.BeginBulkLoad() // a load that adds nothing still builds it
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !hnswIndex(t, pool) {
		t.Fatal("a bulk load did not build the missing HNSW index")
	}
}

func TestVectorIndexSQL(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	var def, schema string
	err := pool.QueryRow(context.Background(), `SELECT pg_get_indexdef('chunks_embedding_idx'::regclass), current_schema()`).Scan(&def, &schema)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Replace(def, " ON "+schema+".chunks ", " ON chunks ", 1); got != pgstore.VectorIndexSQL {
		t.Fatalf("the migrations define the HNSW index as\n\t%s\nthe store builds it as\n\t%s", got, pgstore.VectorIndexSQL)
	}
}
