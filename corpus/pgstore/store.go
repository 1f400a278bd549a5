package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/ledgerline/research/corpus"

	"github.com/ledgerline/research/internal/pgtx"
)

// DefaultTenant is the tenant of a store whose Config names none.
const DefaultTenant = "default"

// Config configures a Store. A nil *Config means the defaults.
type Config struct {
	// Tenant scopes every read and write of the store; "" means
	// DefaultTenant.
	Tenant string

	// EfSearch is the HNSW candidate list size (hnsw.ef_search) of a
	// vector search, raised to k when smaller and capped at pgvector's
	// 1000; 0 means 100. pgvector's own default, 40, recalls too little of
	// the true top 10 on hard data (see BenchmarkVectorSearch).
	EfSearch int

	// MaxScanTuples bounds the tuples an iterative HNSW scan visits
	// (hnsw.max_scan_tuples) before the search falls back to an exact scan
	// under the filter; 0 means 20000 (pgvector's default), and it is
	// raised to 100·k when smaller.
	MaxScanTuples int

	// ExactScanLimit is the most chunks a filtered vector search scores
	// exactly instead of walking the HNSW index; 0 means 20000, -1 never.
	// A filter that keeps a small share of a large table (one ticker among
	// forty at 200,000 chunks) leaves the iterative index walk with poor
	// recall (0.21 at ef_search 100), while scoring the few thousand chunks
	// it keeps takes milliseconds and is exact.
	ExactScanLimit int

	// FullTextCandidates is the most matches one search of a full-text
	// search ranks (the AND reading, the OR reading, or one level between
	// them), raised to k when smaller; 0 means 1000, -1 no bound (every
	// match is ranked, as before the bound). Which matches are ranked is
	// the index's order, not their relevance: for a query of very common
	// words a bound trades the best of its matches for latency (see
	// FullTextSearch).
	FullTextCandidates int

	// BulkLoadThreshold is the most chunks the chunks table, every
	// tenant's, may hold for a bulk load (BeginBulkLoad) to drop the HNSW
	// index and build it after loading; it is also the most a table that
	// was not empty may reach without the index. 0 means 20000 (a search
	// without the index then scores at most as many chunks as a filtered
	// search scores exactly, ExactScanLimit), -1 never: a bulk load then
	// inserts into the index like any other.
	BulkLoadThreshold int

	// IndexBuildMemoryMB caps maintenance_work_mem, in MB, for building the
	// HNSW index after a bulk load; the setting is the graph's estimated
	// need (3 kB a chunk, at least 64 MB) up to this cap. 0 means 4096,
	// enough to build 1.4 million chunks in memory.
	IndexBuildMemoryMB int

	// IndexBuildWorkers is max_parallel_maintenance_workers for building
	// the HNSW index after a bulk load (Postgres may start fewer for a
	// small table); 0 means 2, -1 none.
	IndexBuildWorkers int
}

func (c *Config) validate() error {
	if c.ExactScanLimit < -1 {
		return fmt.Errorf("pgstore: Config.ExactScanLimit %d is below -1", c.ExactScanLimit)
	}
	if c.EfSearch < 0 {
		return fmt.Errorf("pgstore: Config.EfSearch %d is negative", c.EfSearch)
	}
	if c.FullTextCandidates < -1 {
		return fmt.Errorf("pgstore: Config.FullTextCandidates %d is below -1", c.FullTextCandidates)
	}
	if c.MaxScanTuples < 0 {
		return fmt.Errorf("pgstore: Config.MaxScanTuples %d is negative", c.MaxScanTuples)
	}
	if c.BulkLoadThreshold < -1 {
		return fmt.Errorf("pgstore: Config.BulkLoadThreshold %d is below -1", c.BulkLoadThreshold)
	}
	if c.IndexBuildMemoryMB < 0 {
		return fmt.Errorf("pgstore: Config.IndexBuildMemoryMB %d is negative", c.IndexBuildMemoryMB)
	}
	if c.IndexBuildWorkers < -1 {
		return fmt.Errorf("pgstore: Config.IndexBuildWorkers %d is below -1", c.IndexBuildWorkers)
	}
	return nil
}

// Store is a corpus.Store on Postgres, scoped to one tenant. It is safe for
// concurrent use.
type Store struct {
	pool           *pgxpool.Pool
	tenant         string
	efSearch       int
	maxScanTuples  int
	exactScanLimit int // -1: never
	ftsCandidates  int // -1: no bound
	bulkThreshold  int // -1: never
	indexMemMB     int
	indexWorkers   int

	bulkMu sync.Mutex // guards bulk
	bulk   *bulkLoad  // nil: no bulk load
}

var (
	_ corpus.Store          = (*Store)(nil)
	_ corpus.ConceptLabeler = (*Store)(nil)
)

// New returns a store for cfg.Tenant on pool, whose schema must be migrated
// (package migrations). The pool stays the caller's: Close does not close it.
//
// Chunks carry pgvector embeddings, so the pool's connections should know the
// vector type; register it when the pool connects:
//
//	cfg, err := pgxpool.ParseConfig(url)
//	...
//	cfg.AfterConnect = pgxvec.RegisterTypes // github.com/pgvector/pgvector-go/pgx
//	pool, err := pgxpool.NewWithConfig(ctx, cfg)
//
// A connection that was not set up so registers the type on first use, at
// the cost of one query.
func New(pool *pgxpool.Pool, cfg *Config) (*Store, error) {
	if pool == nil {
		return nil, errors.New("pgstore: nil pool")
	}
	if cfg == nil {
		cfg = &Config{}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Store{pool: pool, tenant: cfg.Tenant, efSearch: cfg.EfSearch, maxScanTuples: cfg.MaxScanTuples, exactScanLimit: cfg.ExactScanLimit,
		ftsCandidates: cfg.FullTextCandidates}
	if s.tenant == "" {
		s.tenant = DefaultTenant
	}
	if s.efSearch == 0 {
		s.efSearch = defaultEfSearch
	}
	if s.maxScanTuples == 0 {
		s.maxScanTuples = defaultMaxScanTuples
	}
	if s.exactScanLimit == 0 {
		s.exactScanLimit = defaultExactScanLimit
	}
	if s.ftsCandidates == 0 {
		s.ftsCandidates = defaultFullTextCandidates
	}
	s.bulkThreshold, s.indexMemMB, s.indexWorkers = cfg.BulkLoadThreshold, cfg.IndexBuildMemoryMB, cfg.IndexBuildWorkers
	if s.bulkThreshold == 0 {
		s.bulkThreshold = defaultBulkLoadThreshold
	}
	if s.indexMemMB == 0 {
		s.indexMemMB = defaultIndexBuildMemMB
	}
	switch s.indexWorkers {
	case 0:
		s.indexWorkers = defaultIndexBuildWorkers
	case -1:
		s.indexWorkers = 0
	}
	return s, nil
}

// Tenant returns the tenant the store reads and writes.
func (s *Store) Tenant() string { return s.tenant }

// Close ends a bulk load that RefreshStats did not (BeginBulkLoad),
// building the HNSW index if it is missing; the build is not cut short,
// since without the index every vector search scans the table. Close
// releases nothing else: the pool belongs to the caller.
func (s *Store) Close() error { return s.endBulkLoad(context.Background()) }

// withTx runs fn in a transaction, committed when fn returns nil.
func (s *Store) withTx(ctx context.Context, opts pgx.TxOptions, fn func(tx pgx.Tx) error) error {
	return pgtx.WithTx(ctx, s.pool, opts, fn)
}

// ensureVector registers the pgvector types on a connection that does not
// know them yet (a pool without pgxvec.RegisterTypes in AfterConnect).
func ensureVector(ctx context.Context, conn *pgx.Conn) error {
	if _, ok := conn.TypeMap().TypeForName("vector"); ok {
		return nil
	}
	if err := pgxvec.RegisterTypes(ctx, conn); err != nil {
		return fmt.Errorf("pgstore: register pgvector types: %w", err)
	}
	return nil
}

const insertDocumentSQL = `
INSERT INTO documents (tenant_id, id, ticker, company, form, fiscal_year, period_end, filed, source, format, pages, embedder, entity, text)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
ON CONFLICT (tenant_id, id) DO NOTHING`

var chunkColumns = []string{"tenant_id", "id", "document_id", "ordinal", "section", "page", "start_offset", "end_offset", "text", "embedding"}

var factColumns = []string{"tenant_id", "document_id", "ordinal", "concept", "value", "unit", "decimals", "period_start", "period_end", "instant", "dimensions", "context_id", "start_offset", "end_offset", "kind", "label"}

// AddDocument stores a document with its chunks and facts in one
// transaction, the chunks and facts each with one COPY. It returns false,
// and writes nothing, when the tenant already holds a document with
// doc.ID. Chunks and facts belong to doc: a DocumentID naming another
// document is an error, an empty one means doc. During a bulk load
// (BeginBulkLoad) the chunks may be stored without the HNSW index, which
// is built after the load.
func (s *Store) AddDocument(ctx context.Context, doc *corpus.Document, chunks []corpus.Chunk, facts []corpus.Fact) (added bool, err error) {
	if err := validateDocument(doc, chunks, facts); err != nil {
		return false, err
	}
	if err := s.beforeChunks(ctx, doc.ID, len(chunks)); err != nil {
		return false, err
	}
	err = s.withTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		added, err = s.AddDocumentTx(ctx, tx, doc, chunks, facts)
		return err
	})
	if added && err == nil {
		s.afterChunks(len(chunks))
	}
	return added, err
}

// AddDocumentTx is AddDocument within the caller's transaction. It takes
// no part in a bulk load: its chunks go into whatever index the table has.
func (s *Store) AddDocumentTx(ctx context.Context, tx pgx.Tx, doc *corpus.Document, chunks []corpus.Chunk, facts []corpus.Fact) (added bool, err error) {
	if err := validateDocument(doc, chunks, facts); err != nil {
		return false, err
	}
	if len(chunks) > 0 {
		if err := ensureVector(ctx, tx.Conn()); err != nil {
			return false, err
		}
	}
	tag, err := tx.Exec(ctx, insertDocumentSQL, s.tenant, doc.ID, doc.Ticker, doc.Company, doc.Form,
		doc.FiscalYear, date(doc.PeriodEnd), nullDate(doc.Filed), doc.Source, string(doc.Format), doc.Pages,
		doc.Embedder, doc.Entity, doc.Text)
	if err != nil {
		return false, fmt.Errorf("pgstore: add document %s: %w", doc.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	if len(chunks) > 0 {
		rows := make([][]any, len(chunks))
		for i, c := range chunks {
			var emb any
			if c.Embedding != nil {
				emb = pgvector.NewVector(c.Embedding)
			}
			rows[i] = []any{s.tenant, c.ID, doc.ID, c.Ordinal, c.Section, c.Page, c.Start, c.End, c.Text, emb}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"chunks"}, chunkColumns, pgx.CopyFromRows(rows)); err != nil {
			return false, fmt.Errorf("pgstore: add chunks of %s: %w", doc.ID, err)
		}
	}
	if len(facts) > 0 {
		rows := make([][]any, len(facts))
		for i, f := range facts {
			dims := f.Dimensions
			if dims == nil {
				dims = map[string]string{}
			}
			rows[i] = []any{s.tenant, doc.ID, i, f.Concept, numeric(f.Value), f.Unit, f.Decimals,
				nullDate(f.PeriodStart), date(f.PeriodEnd), f.Instant, dims, f.ContextID, f.Start, f.End, factKind(f.Kind), f.Label}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"facts"}, factColumns, pgx.CopyFromRows(rows)); err != nil {
			return false, fmt.Errorf("pgstore: add facts of %s: %w", doc.ID, err)
		}
	}
	return true, nil
}

func validateDocument(doc *corpus.Document, chunks []corpus.Chunk, facts []corpus.Fact) error {
	if doc == nil {
		return errors.New("pgstore: nil document")
	}
	if doc.ID == "" {
		return errors.New("pgstore: document has no ID")
	}
	for i, c := range chunks {
		if c.ID == "" {
			return fmt.Errorf("pgstore: chunk %d of %s has no ID", i, doc.ID)
		}
		if c.DocumentID != "" && c.DocumentID != doc.ID {
			return fmt.Errorf("pgstore: chunk %s belongs to document %s, not %s", c.ID, c.DocumentID, doc.ID)
		}
	}
	for i, f := range facts {
		if f.DocumentID != "" && f.DocumentID != doc.ID {
			return fmt.Errorf("pgstore: fact %d (%s) belongs to document %s, not %s", i, f.Concept, f.DocumentID, doc.ID)
		}
	}
	return nil
}

const documentColumns = `id, ticker, company, form, fiscal_year, period_end, filed, source, format, pages, embedder, entity`

const documentSQL = `SELECT ` + documentColumns + `, text FROM documents WHERE tenant_id = $1 AND id = $2`

// Document returns the stored document with its Text, or corpus.ErrNotFound.
func (s *Store) Document(ctx context.Context, id string) (*corpus.Document, error) {
	rows, _ := s.pool.Query(ctx, documentSQL, s.tenant, id)
	doc, err := pgx.CollectExactlyOneRow(rows, scanDocument(true))
	if err != nil {
		return nil, notFound(err, "document %s", id)
	}
	return &doc, nil
}

const findFilingSQL = `
SELECT ` + documentColumns + ` FROM documents
WHERE tenant_id = $1 AND ticker = $2 AND form = $3 AND period_end = $4
ORDER BY created_at, id
LIMIT 1`

// FindFiling returns the stored document (without Text) for the filing
// identified by ticker, form and period end, or corpus.ErrNotFound. Of
// duplicates (the ingester normally prevents them) the first stored wins.
func (s *Store) FindFiling(ctx context.Context, ticker, form string, periodEnd time.Time) (*corpus.Document, error) {
	rows, _ := s.pool.Query(ctx, findFilingSQL, s.tenant, ticker, form, date(periodEnd))
	doc, err := pgx.CollectExactlyOneRow(rows, scanDocument(false))
	if err != nil {
		return nil, notFound(err, "filing %s %s %s", ticker, form, periodEnd.Format(time.DateOnly))
	}
	return &doc, nil
}

const documentsSQL = `SELECT ` + documentColumns + ` FROM documents WHERE tenant_id = $1 ORDER BY ticker, period_end, form, id`

// Documents lists the stored documents without their Text, ordered by
// ticker, period end and form.
func (s *Store) Documents(ctx context.Context) ([]corpus.Document, error) {
	rows, _ := s.pool.Query(ctx, documentsSQL, s.tenant)
	docs, err := pgx.CollectRows(rows, scanDocument(false))
	if err != nil {
		return nil, fmt.Errorf("pgstore: documents: %w", err)
	}
	return docs, nil
}

func scanDocument(withText bool) pgx.RowToFunc[corpus.Document] {
	return func(row pgx.CollectableRow) (corpus.Document, error) {
		var d corpus.Document
		var filed pgtype.Date
		var format string
		dest := []any{&d.ID, &d.Ticker, &d.Company, &d.Form, &d.FiscalYear, &d.PeriodEnd, &filed, &d.Source, &format, &d.Pages, &d.Embedder, &d.Entity}
		if withText {
			dest = append(dest, &d.Text)
		}
		if err := row.Scan(dest...); err != nil {
			return d, err
		}
		d.Format = corpus.Format(format)
		if filed.Valid {
			d.Filed = filed.Time
		}
		return d, nil
	}
}

// resultColumns select a corpus.SearchResult from chunks c joined with
// documents d, the score excepted.
const resultColumns = `c.id, c.document_id, d.ticker, d.company, d.form, d.fiscal_year, d.period_end, c.section, c.page, c.start_offset, c.end_offset, c.text`

const resultJoin = `chunks c JOIN documents d ON d.tenant_id = c.tenant_id AND d.id = c.document_id`

const chunksSQL = `SELECT ` + resultColumns + `, 0::float8 FROM ` + resultJoin + ` WHERE c.tenant_id = $1 AND c.id = ANY($2)`

// Chunks returns the chunks with the given ids, in the order asked, as
// search results with score 0. Unknown ids are skipped.
func (s *Store) Chunks(ctx context.Context, ids []string) ([]corpus.SearchResult, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, _ := s.pool.Query(ctx, chunksSQL, s.tenant, ids)
	found, err := pgx.CollectRows(rows, scanResult)
	if err != nil {
		return nil, fmt.Errorf("pgstore: chunks: %w", err)
	}
	byID := make(map[string]corpus.SearchResult, len(found))
	for _, r := range found {
		byID[r.ChunkID] = r
	}
	out := make([]corpus.SearchResult, 0, len(found))
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// scanResult scans resultColumns followed by a float8 score.
func scanResult(row pgx.CollectableRow) (corpus.SearchResult, error) {
	var r corpus.SearchResult
	err := row.Scan(&r.ChunkID, &r.DocumentID, &r.Ticker, &r.Company, &r.Form, &r.FiscalYear, &r.PeriodEnd,
		&r.Section, &r.Page, &r.Start, &r.End, &r.Text, &r.Score)
	return r, err
}

const statsSQL = `
SELECT
	(SELECT count(*) FROM documents WHERE tenant_id = $1),
	(SELECT count(*) FROM chunks WHERE tenant_id = $1),
	(SELECT count(*) FROM facts WHERE tenant_id = $1),
	(SELECT coalesce(array_agg(DISTINCT embedder ORDER BY embedder), '{}') FROM documents WHERE tenant_id = $1 AND embedder <> '')`

// Stats summarises the tenant's documents, chunks and facts. Embedders
// lists the distinct non-empty Document.Embedder values, sorted.
func (s *Store) Stats(ctx context.Context) (corpus.StoreStats, error) {
	var st corpus.StoreStats
	err := s.pool.QueryRow(ctx, statsSQL, s.tenant).Scan(&st.Documents, &st.Chunks, &st.Facts, &st.Embedders)
	if err != nil {
		return corpus.StoreStats{}, fmt.Errorf("pgstore: stats: %w", err)
	}
	if len(st.Embedders) == 0 {
		st.Embedders = nil
	}
	slices.Sort(st.Embedders) // the database's collation may order differently from Go
	return st, nil
}

// notFound translates pgx.ErrNoRows into corpus.ErrNotFound.
func notFound(err error, format string, args ...any) error {
	what := fmt.Sprintf(format, args...)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("pgstore: %s: %w", what, corpus.ErrNotFound)
	}
	return fmt.Errorf("pgstore: %s: %w", what, err)
}

// date is the calendar date of t, as seen in t's location, for a date column.
func date(t time.Time) pgtype.Date {
	return pgtype.Date{Time: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), Valid: true}
}

// nullDate is date, with the zero time as NULL.
func nullDate(t time.Time) pgtype.Date {
	if t.IsZero() {
		return pgtype.Date{}
	}
	return date(t)
}

// RefreshStats updates the planner's statistics of the corpus tables and
// merges the full-text index's pending entries into the index. The ingester
// calls it after storing documents: with the statistics of an empty table
// the planner does not use the HNSW index (a vector search over the sample
// corpus took 36 ms instead of 2 ms); and the GIN index keeps new entries in
// a list that every full-text search reads through until a vacuum merges it,
// which autovacuum may never do (the sample corpus left 2.7 MB there, and a
// bounded search over it took 13 ms at the median instead of 31 ms).
//
// It also ends a bulk load (BeginBulkLoad), building the HNSW index after
// the statistics, whose row count sizes the build's memory.
func (s *Store) RefreshStats(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, "ANALYZE documents, chunks, facts"); err != nil {
		return err
	}
	if err := s.endBulkLoad(ctx); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, cleanPendingSQL)
	return err
}

// cleanPendingSQL merges the GIN index's pending list. Like ANALYZE, which
// passes over tables a role does not own, it does nothing for a role that
// does not own the index, rather than fail.
const cleanPendingSQL = `
SELECT gin_clean_pending_list(i.oid) FROM pg_class i
WHERE i.oid = 'chunks_tsv_idx'::regclass AND pg_has_role(i.relowner, 'USAGE')`
