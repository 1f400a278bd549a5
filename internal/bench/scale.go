package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/corpus/pgstore"
)

// ScaleOpts configures RunScale. The zero value is valid.
type ScaleOpts struct {
	Synthetic  SyntheticOpts
	Vocabulary *Vocabulary     // nil means BuiltinVocabulary(3000, Synthetic.Seed)
	Embedder   corpus.Embedder // nil means corpus.HashEmbedder{}
	Queries    int             // 0 means 200
	K          int             // results per search; 0 means 10
	// EfSearch lists the pgstore.Config.EfSearch values (HNSW ef_search)
	// at which Postgres' recall is measured; 0 is the store's default.
	// Empty means 0 and 400.
	EfSearch []int
	// FullTextCandidates lists the pgstore.Config.FullTextCandidates
	// values (0 the store's default, -1 unbounded) at which Postgres'
	// full-text and hybrid searches are timed side by side and compared
	// with the unbounded ranking. Empty means 0 and -1.
	FullTextCandidates []int
	Tenant             string // Postgres tenant; "" means "bench"
	// IndexDuringLoad keeps the HNSW index while the chunks are copied in,
	// so that every row is inserted into the graph; by default the index is
	// dropped before the load and built again after it, which is faster.
	IndexDuringLoad bool
	// MaintenanceWorkMem is maintenance_work_mem for the index build; ""
	// means "2GB".
	MaintenanceWorkMem string
	// LoadParallelism is the number of documents stored at once in
	// Postgres; 0 means GOMAXPROCS.
	LoadParallelism int
	// EmbeddedDir, when not empty, is a directory for an embedded store
	// (it must hold none) measured alongside Postgres.
	EmbeddedDir string
}

// ScaleReport is the outcome of RunScale.
type ScaleReport struct {
	Chunks          int           `json:"chunks"`
	Documents       int           `json:"documents"`
	Tickers         int           `json:"tickers"`
	TextBytes       int64         `json:"text_bytes"`
	VocabularyWords int           `json:"vocabulary_words"`
	Seed            uint64        `json:"seed"`
	Embedder        string        `json:"embedder"`
	Queries         int           `json:"queries"`
	FilteredQueries int           `json:"filtered_queries"` // filtered to one ticker
	K               int           `json:"k"`
	Generate        time.Duration `json:"-"` // generating the text
	Embed           time.Duration `json:"-"` // embedding every chunk
	Exact           time.Duration `json:"-"` // exact top-k of every query, in Go
	Stores          []StoreReport `json:"stores"`
}

// StoreReport is what RunScale measured of one store.
type StoreReport struct {
	Store      string           `json:"store"` // "postgres" or "embedded"
	Load       time.Duration    `json:"-"`     // storing every document
	IndexBuild time.Duration    `json:"-"`     // building the HNSW index; 0 when kept during the load
	Index      string           `json:"index"` // how the vector index was built
	Sizes      map[string]int64 `json:"sizes_bytes,omitempty"`
	Latency    []ModeLatency    `json:"latency"`
	Recall     []RecallReport   `json:"recall"`
	FullText   []FullTextReport `json:"fulltext_candidates,omitempty"`
}

// RecallReport is the mean recall@k of vector search at one setting
// against exact search, with its latency.
type RecallReport struct {
	Setting    string        `json:"setting"`   // "ef_search=400", "ef_search=default", "exact scan"
	EfSearch   int           `json:"ef_search"` // pgstore.Config.EfSearch; 0 for the default or an exact store
	Unfiltered float64       `json:"unfiltered"`
	Filtered   float64       `json:"filtered"` // queries filtered to one ticker
	Latency    []ModeLatency `json:"latency"`  // of the vector searches
}

// MarshalJSON writes durations as seconds.
func (r ScaleReport) MarshalJSON() ([]byte, error) {
	type plain ScaleReport
	return json.Marshal(struct {
		plain
		Generate float64 `json:"generate_s"`
		Embed    float64 `json:"embed_s"`
		Exact    float64 `json:"exact_s"`
	}{plain(r), r.Generate.Seconds(), r.Embed.Seconds(), r.Exact.Seconds()})
}

// MarshalJSON writes durations as seconds.
func (r StoreReport) MarshalJSON() ([]byte, error) {
	type plain StoreReport
	return json.Marshal(struct {
		plain
		Load       float64 `json:"load_s"`
		IndexBuild float64 `json:"index_build_s"`
	}{plain(r), r.Load.Seconds(), r.IndexBuild.Seconds()})
}

// hnswIndex is the HNSW index of migrations/sql/0001_corpus.sql.
const hnswIndex = "chunks_embedding_idx"

// RunScale generates a synthetic corpus, loads it into Postgres through
// pool and, with opts.EmbeddedDir, into an embedded store; times searches in
// each mode on each store; and measures vector search recall against an
// exact top k computed in Go. pool (nil to skip Postgres) must be on a
// migrated schema holding no chunks of any tenant, as from CreateSchema:
// the run drops and rebuilds its HNSW index. Progress lines go to progress
// (nil means none).
func RunScale(ctx context.Context, pool *pgxpool.Pool, opts *ScaleOpts, progress io.Writer) (*ScaleReport, error) {
	o, err := scaleDefaults(opts)
	if err != nil {
		return nil, err
	}
	p := newProgress(progress)
	rep := &ScaleReport{Seed: o.Synthetic.Seed, VocabularyWords: o.Vocabulary.Len(), Embedder: o.Embedder.Name(), K: o.K}

	p.printf("generating %d chunks of about %d bytes (seed %d, vocabulary of %d words)",
		o.Synthetic.Chunks, o.Synthetic.ChunkBytes, o.Synthetic.Seed, o.Vocabulary.Len())
	start := time.Now()
	syn, err := Generate(ctx, o.Vocabulary, &o.Synthetic)
	if err != nil {
		return nil, err
	}
	rep.Generate = time.Since(start)
	rep.Chunks, rep.Documents, rep.Tickers, rep.TextBytes = syn.Chunks(), len(syn.Docs), len(syn.Tickers()), syn.TextBytes()
	p.printf("generated %d documents, %d chunks, %.1f MB in %s", rep.Documents, rep.Chunks, float64(rep.TextBytes)/1e6, rep.Generate.Round(time.Millisecond))

	p.printf("embedding %d chunks with %s", rep.Chunks, rep.Embedder)
	start = time.Now()
	if err := syn.Embed(ctx, o.Embedder, o.Synthetic.Parallelism, p.every("embedded", rep.Chunks, 5*time.Second)); err != nil {
		return nil, err
	}
	rep.Embed = time.Since(start)
	p.printf("embedded in %s (%.0f chunks/s)", rep.Embed.Round(time.Millisecond), float64(rep.Chunks)/rep.Embed.Seconds())

	queries := GenerateQueries(o.Vocabulary, syn.Tickers(), o.Queries, o.Synthetic.Seed)
	for _, q := range queries {
		if q.filtered() {
			rep.FilteredQueries++
		}
	}
	rep.Queries = len(queries)
	start = time.Now()
	exact, err := exactAnswers(ctx, syn, o.Embedder, queries, o.K, o.Synthetic.Parallelism)
	if err != nil {
		return nil, err
	}
	rep.Exact = time.Since(start)
	p.printf("exact top %d of %d queries (%d filtered to a ticker) in %s", o.K, len(queries), rep.FilteredQueries, rep.Exact.Round(time.Millisecond))

	b := &scaleRun{o: o, p: p, syn: syn, queries: queries, exact: exact}
	if pool != nil {
		sr, err := b.postgres(ctx, pool)
		if err != nil {
			return nil, err
		}
		rep.Stores = append(rep.Stores, sr)
	}
	if o.EmbeddedDir != "" {
		sr, err := b.embedded(ctx)
		if err != nil {
			return nil, err
		}
		rep.Stores = append(rep.Stores, sr)
	}
	p.printf("done")
	return rep, nil
}

func scaleDefaults(opts *ScaleOpts) (ScaleOpts, error) {
	var o ScaleOpts
	if opts != nil {
		o = *opts
	}
	if err := o.Synthetic.validate(); err != nil {
		return o, err
	}
	o.Synthetic = o.Synthetic.withDefaults()
	switch {
	case o.Queries < 0:
		return o, fmt.Errorf("bench: ScaleOpts.Queries %d is negative", o.Queries)
	case o.K < 0 || o.K > corpus.MaxK:
		return o, fmt.Errorf("bench: ScaleOpts.K %d: want 0 to %d", o.K, corpus.MaxK)
	case o.LoadParallelism < 0:
		return o, fmt.Errorf("bench: ScaleOpts.LoadParallelism %d is negative", o.LoadParallelism)
	}
	for _, ef := range o.EfSearch {
		if ef < 0 {
			return o, fmt.Errorf("bench: ScaleOpts.EfSearch %d is negative", ef)
		}
	}
	for _, n := range o.FullTextCandidates {
		if n < -1 {
			return o, fmt.Errorf("bench: ScaleOpts.FullTextCandidates %d is below -1", n)
		}
	}
	if o.Vocabulary == nil {
		o.Vocabulary = BuiltinVocabulary(3000, o.Synthetic.Seed)
	}
	if o.Embedder == nil {
		o.Embedder = corpus.HashEmbedder{}
	}
	if o.Queries == 0 {
		o.Queries = 200
	}
	if o.K == 0 {
		o.K = 10
	}
	if len(o.EfSearch) == 0 {
		o.EfSearch = []int{0, 400}
	}
	if len(o.FullTextCandidates) == 0 {
		o.FullTextCandidates = []int{0, -1}
	}
	if o.Tenant == "" {
		o.Tenant = "bench"
	}
	if o.MaintenanceWorkMem == "" {
		o.MaintenanceWorkMem = "2GB"
	}
	if o.LoadParallelism == 0 {
		o.LoadParallelism = runtime.GOMAXPROCS(0)
	}
	return o, nil
}

// exactAnswers returns, for each query, the ids of the k chunks nearest to
// its embedding under its filter, by brute force.
func exactAnswers(ctx context.Context, syn *Synthetic, emb corpus.Embedder, queries []Query, k, parallelism int) ([][]string, error) {
	var vecs [][]float32
	var ids []string
	byTicker := map[string][]int{}
	for _, d := range syn.Docs {
		for _, c := range d.Chunks {
			byTicker[d.Doc.Ticker] = append(byTicker[d.Doc.Ticker], len(vecs))
			vecs = append(vecs, c.Embedding)
			ids = append(ids, c.ID)
		}
	}
	texts := make([]string, len(queries))
	for i, q := range queries {
		texts[i] = q.Text
	}
	qvecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(queries))
	g, ctx := errgroup.WithContext(ctx)
	if parallelism <= 0 {
		parallelism = runtime.GOMAXPROCS(0)
	}
	g.SetLimit(parallelism)
	for i, q := range queries {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			var rows []int // GenerateQueries filters on one ticker at most
			if len(q.Filter.Tickers) > 0 {
				rows = byTicker[q.Filter.Tickers[0]]
				if rows == nil {
					rows = []int{}
				}
			}
			for _, row := range ExactTopK(qvecs[i], vecs, rows, k) {
				out[i] = append(out[i], ids[row])
			}
			return nil
		})
	}
	return out, g.Wait()
}

// scaleRun holds what the stores' measurements share.
type scaleRun struct {
	o       ScaleOpts
	p       *progress
	syn     *Synthetic
	queries []Query
	exact   [][]string
}

func (b *scaleRun) postgres(ctx context.Context, pool *pgxpool.Pool) (StoreReport, error) {
	sr := StoreReport{Store: "postgres"}
	var used bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks)`).Scan(&used); err != nil {
		return sr, fmt.Errorf("bench: %w", err)
	}
	if used {
		return sr, errors.New("bench: the schema already holds chunks; the scale benchmark needs a fresh one (it rebuilds the HNSW index)")
	}
	var indexDef string
	err := pool.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1`, hnswIndex).Scan(&indexDef)
	if err != nil {
		return sr, fmt.Errorf("bench: find index %s: %w", hnswIndex, err)
	}
	if !b.o.IndexDuringLoad {
		if _, err := pool.Exec(ctx, "DROP INDEX "+hnswIndex); err != nil {
			return sr, fmt.Errorf("bench: %w", err)
		}
	}
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: b.o.Tenant})
	if err != nil {
		return sr, err
	}
	if sr.Load, err = b.load(ctx, "postgres", store, b.o.LoadParallelism); err != nil {
		return sr, err
	}
	// What the ingester does after a load: statistics, and the full-text
	// index's pending list merged.
	if err := store.RefreshStats(ctx); err != nil {
		return sr, fmt.Errorf("bench: %w", err)
	}
	if b.o.IndexDuringLoad {
		sr.Index = "HNSW index kept during the load"
	} else {
		var workers string
		b.p.printf("postgres: building the HNSW index (maintenance_work_mem %s)", b.o.MaintenanceWorkMem)
		start := time.Now()
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config('maintenance_work_mem', $1, true)`, b.o.MaintenanceWorkMem); err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `SHOW max_parallel_maintenance_workers`).Scan(&workers); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, indexDef)
			return err
		})
		if err != nil {
			return sr, fmt.Errorf("bench: build the HNSW index: %w", err)
		}
		sr.IndexBuild = time.Since(start)
		sr.Index = fmt.Sprintf("HNSW index built after the load: maintenance_work_mem %s, max_parallel_maintenance_workers %s",
			b.o.MaintenanceWorkMem, workers)
		b.p.printf("postgres: HNSW index built in %s", sr.IndexBuild.Round(time.Millisecond))
	}
	var table, hnsw, gin int64
	err = pool.QueryRow(ctx, `SELECT pg_total_relation_size('chunks'), pg_relation_size('chunks_embedding_idx'), pg_relation_size('chunks_tsv_idx')`).
		Scan(&table, &hnsw, &gin)
	if err != nil {
		return sr, fmt.Errorf("bench: sizes: %w", err)
	}
	sr.Sizes = map[string]int64{"chunks_total": table, "hnsw_index": hnsw, "gin_index": gin}

	var mainVector timedRun
	if sr.Latency, mainVector, err = b.modes(ctx, "postgres", store); err != nil {
		return sr, err
	}
	for _, ef := range b.o.EfSearch {
		setting := fmt.Sprintf("ef_search=%d", ef)
		run := mainVector
		if ef == 0 {
			setting = "ef_search=default"
		} else {
			s, err := pgstore.New(pool, &pgstore.Config{Tenant: b.o.Tenant, EfSearch: ef})
			if err != nil {
				return sr, err
			}
			searcher := corpus.NewSearcher(s, b.o.Embedder)
			if run, err = timeSearches(ctx, searcher, b.queries, corpus.ModeVector, b.o.K, len(b.queries), b.p, "postgres "+setting); err != nil {
				return sr, err
			}
		}
		sr.Recall = append(sr.Recall, b.recall(setting, ef, run))
	}
	if sr.FullText, err = b.fullText(ctx, pool); err != nil {
		return sr, err
	}
	return sr, nil
}

func (b *scaleRun) embedded(ctx context.Context) (StoreReport, error) {
	sr := StoreReport{Store: "embedded", Index: "none: exact scan over vectors in memory"}
	store, err := embedded.Open(b.o.EmbeddedDir, nil)
	if err != nil {
		return sr, err
	}
	defer store.Close()
	st, err := store.Stats(ctx)
	if err != nil {
		return sr, err
	}
	if st.Documents > 0 {
		return sr, fmt.Errorf("bench: %s already holds an embedded store; the scale benchmark needs an empty directory", b.o.EmbeddedDir)
	}
	// The store serialises its writes: more goroutines would only queue.
	if sr.Load, err = b.load(ctx, "embedded", store, 1); err != nil {
		return sr, err
	}
	if size, err := dirSize(b.o.EmbeddedDir); err == nil {
		sr.Sizes = map[string]int64{"files": size}
	}
	var vector timedRun
	if sr.Latency, vector, err = b.modes(ctx, "embedded", store); err != nil {
		return sr, err
	}
	sr.Recall = append(sr.Recall, b.recall("exact scan", 0, vector))
	return sr, nil
}

// load stores every document, parallelism at a time.
func (b *scaleRun) load(ctx context.Context, name string, store corpus.Store, parallelism int) (time.Duration, error) {
	chunks := b.syn.Chunks()
	b.p.printf("%s: loading %d documents, %d chunks", name, len(b.syn.Docs), chunks)
	tick := b.p.every(name+": loaded chunks", chunks, 10*time.Second)
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelism)
	var loaded atomic.Int64
	for _, d := range b.syn.Docs {
		g.Go(func() error {
			added, err := store.AddDocument(gctx, d.Doc, d.Chunks, nil)
			if err != nil {
				return err
			}
			if !added {
				return fmt.Errorf("bench: %s: document %s was already stored", name, d.Doc.ID)
			}
			tick(int(loaded.Add(int64(len(d.Chunks)))))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	elapsed := time.Since(start)
	b.p.printf("%s: loaded in %s (%.0f chunks/s)", name, elapsed.Round(time.Millisecond), float64(chunks)/elapsed.Seconds())
	return elapsed, nil
}

// modes times every mode on store and returns the latencies and the vector
// run, whose results recall is computed from.
func (b *scaleRun) modes(ctx context.Context, name string, store corpus.Store) ([]ModeLatency, timedRun, error) {
	searcher := corpus.NewSearcher(store, b.o.Embedder)
	var out []ModeLatency
	var vector timedRun
	for _, mode := range allModes {
		run, err := timeSearches(ctx, searcher, b.queries, mode, b.o.K, len(b.queries), b.p, name)
		if err != nil {
			return nil, timedRun{}, err
		}
		out = append(out, run.breakdown(mode, b.queries)...)
		if mode == corpus.ModeVector {
			vector = run
		}
	}
	return out, vector, nil
}

// recall compares a vector run, which ran each query once in order, with
// the exact answers.
func (b *scaleRun) recall(setting string, ef int, run timedRun) RecallReport {
	var plain, filtered []float64
	for i, q := range b.queries {
		ids := make([]string, len(run.results[i]))
		for j, r := range run.results[i] {
			ids[j] = r.ChunkID
		}
		r := Recall(ids, b.exact[i])
		if !q.filtered() {
			plain = append(plain, r)
		} else {
			filtered = append(filtered, r)
		}
	}
	rr := RecallReport{Setting: setting, EfSearch: ef, Unfiltered: mean(plain), Filtered: mean(filtered),
		Latency: run.breakdown(corpus.ModeVector, b.queries)}
	b.p.printf("recall@%d at %s: unfiltered %.3f, filtered %.3f", b.o.K, setting, rr.Unfiltered, rr.Filtered)
	return rr
}

// mean returns the mean of xs, 0 when empty.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return n, err
}
