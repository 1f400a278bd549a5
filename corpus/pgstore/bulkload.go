package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// BulkLoader is implemented by a store that loads many documents faster
// when told they are coming. A caller about to store a batch detects it:
//
//	if b, ok := store.(pgstore.BulkLoader); ok { b.BeginBulkLoad() }
//
// RefreshStats, which the ingester calls after storing, ends the load; Close
// ends a load that RefreshStats did not.
type BulkLoader interface {
	BeginBulkLoad()
}

var _ BulkLoader = (*Store)(nil)

const (
	defaultBulkLoadThreshold = 20_000
	defaultIndexBuildMemMB   = 4096
	defaultIndexBuildWorkers = 2

	// indexBuildBytesPerChunk estimates the memory pgvector's HNSW build
	// holds per chunk: 384 float32s and the neighbour lists of m = 16. A
	// build in 8 MB left memory after 3,621 chunks (2.3 kB each); the rest
	// is headroom, since a graph that outgrows maintenance_work_mem goes on
	// to disk and builds several times slower.
	indexBuildBytesPerChunk = 3 << 10
	minIndexBuildMemMB      = 64

	// dropLockTimeout bounds how long dropping the index waits for the
	// table's lock. While it waits, new searches of the table queue behind
	// it; when it cannot have the lock that soon (a long search is
	// running), the load inserts into the index instead.
	dropLockTimeout = 2 * time.Second
)

// vectorIndex is the HNSW index a bulk load drops and builds again.
const vectorIndex = "chunks_embedding_idx"

// vectorIndexSQL is migration 0001's definition of vectorIndex, used to
// build it when a load finds it missing (a bulk load whose process died
// before it built the index). A load that drops the index itself builds it
// from the definition it read from the catalog. TestVectorIndexSQL keeps
// the two in step.
const vectorIndexSQL = `CREATE INDEX ` + vectorIndex + ` ON chunks USING hnsw (embedding vector_cosine_ops)`

// vectorIndexDefSQL reads the index's definition, NULL when it is missing,
// under the lock that drops it; pg_get_indexdef qualifies the table with
// its schema.
const vectorIndexDefSQL = `SELECT pg_get_indexdef(to_regclass($1))`

// indexLockSQL serialises dropping and building the chunks table's HNSW
// index across processes; the key is the table's, so stores of other
// schemas do not wait for each other.
const indexLockSQL = `SELECT pg_advisory_xact_lock(hashtextextended('ledgerline/research pgstore hnsw ' || 'chunks'::regclass::oid, 0))`

const documentExistsSQL = `SELECT EXISTS (SELECT 1 FROM documents WHERE tenant_id = $1 AND id = $2)`

const countChunksUpToSQL = `SELECT count(*) FROM (SELECT 1 FROM chunks LIMIT $1) AS c`

// bulkLoad is the state of a bulk load; the store's bulkMu guards it.
type bulkLoad struct {
	decided bool   // n0 has been counted
	n0      int    // chunks of the table when the load wrote its first chunk, counted up to the threshold + 1
	added   int    // chunks this load has stored
	dropped bool   // the index is missing and this load is to build it
	def     string // the dropped index's definition; "" means vectorIndexSQL
	stayed  bool   // dropping failed for want of the lock or the privilege: insert into the index
}

// BeginBulkLoad tells the store that many documents are about to be added,
// so that it may build the HNSW index once after them instead of inserting
// every chunk into it: for the sample corpus's 7,346 chunks, a build with
// two workers took 2.3–2.6 s where the inserts cost about 12 s (see
// docs/benchmarks.md). Whether it does is decided when the load stores its
// first chunks, from the size of the chunks table, which every tenant
// shares:
//
//   - An empty table: the index is dropped before the first new document
//     and built after the last. There is no reader to protect.
//   - A table of at most Config.BulkLoadThreshold chunks (20,000): the
//     index is dropped once the load has added a quarter of what the table
//     held (by then the inserts have cost about what rebuilding the old
//     chunks costs), so a filing or two added to a small store still go
//     into the index; and it is built again before the table would pass
//     the threshold, the load going on with the index. Searches meanwhile
//     score every chunk exactly: correct results, from at most 20,000
//     chunks (a filtered search scores as many in about 13 ms).
//   - A larger table: every chunk goes into the index, as without the hint.
//
// RefreshStats builds the index, or Close when RefreshStats was not called,
// with maintenance_work_mem and parallel maintenance workers set for the
// build (Config.IndexBuildMemoryMB, Config.IndexBuildWorkers). While it is
// built, searches go on without it, exactly, and other writers of chunks
// wait for it. A process that dies before then leaves the table without
// the index, searched exactly, until the next bulk load ends, whether that
// load adds anything or not.
func (s *Store) BeginBulkLoad() {
	s.bulkMu.Lock()
	defer s.bulkMu.Unlock()
	if s.bulk == nil {
		s.bulk = &bulkLoad{}
	}
}

// beforeChunks is called by AddDocument before it writes document docID
// with n chunks: during a bulk load it drops the HNSW index, or builds it
// again, as BeginBulkLoad describes.
func (s *Store) beforeChunks(ctx context.Context, docID string, n int) error {
	if n == 0 || s.bulkThreshold < 0 {
		return nil
	}
	s.bulkMu.Lock()
	defer s.bulkMu.Unlock()
	b := s.bulk
	if b == nil {
		return nil
	}
	if !b.decided {
		var missing bool
		err := s.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NULL`, vectorIndex).Scan(&missing)
		if err != nil {
			return fmt.Errorf("pgstore: bulk load: %w", err)
		}
		if err := s.pool.QueryRow(ctx, countChunksUpToSQL, s.bulkThreshold+1).Scan(&b.n0); err != nil {
			return fmt.Errorf("pgstore: bulk load: %w", err)
		}
		b.decided, b.dropped = true, missing
	}
	after := b.n0 + b.added + n
	switch {
	case b.n0 > s.bulkThreshold:
		return nil // a large table: the index stays (or a missing one is built at the end)
	case b.dropped && b.n0 > 0 && after > s.bulkThreshold:
		// Readers of a non-empty table are not left to scan more than the
		// threshold without the index: build it now and go on with it.
		if err := s.buildIndex(ctx, b); err != nil {
			return err
		}
		b.stayed = true
	case !b.dropped && !b.stayed && (b.n0 == 0 || (4*(b.added+n) >= b.n0 && after <= s.bulkThreshold)):
		// Not for a document that is stored already, which AddDocument
		// will leave as it is.
		var stored bool
		if err := s.pool.QueryRow(ctx, documentExistsSQL, s.tenant, docID).Scan(&stored); err != nil {
			return fmt.Errorf("pgstore: bulk load: %w", err)
		}
		if !stored {
			return s.dropIndex(ctx, b)
		}
	}
	return nil
}

// afterChunks counts n chunks a bulk load has stored.
func (s *Store) afterChunks(n int) {
	s.bulkMu.Lock()
	defer s.bulkMu.Unlock()
	if s.bulk != nil {
		s.bulk.added += n
	}
}

// dropIndex drops the HNSW index, remembering its definition. It takes the
// table's strongest lock, briefly; when it cannot have the lock within
// dropLockTimeout, or the role may not drop the index, the load keeps the
// index instead.
func (s *Store) dropIndex(ctx context.Context, b *bulkLoad) error {
	err := s.withTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, indexLockSQL); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, strconv.FormatInt(dropLockTimeout.Milliseconds(), 10)); err != nil {
			return err
		}
		var def *string
		if err := tx.QueryRow(ctx, vectorIndexDefSQL, vectorIndex).Scan(&def); err != nil {
			return err
		}
		if def == nil {
			return nil // dropped meanwhile by another load, which will build it
		}
		b.def = *def
		_, err := tx.Exec(ctx, `DROP INDEX `+vectorIndex)
		return err
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "55P03" || pgErr.Code == "42501") {
		// lock_not_available, insufficient_privilege
		b.def, b.stayed = "", true
		return nil
	}
	if err != nil {
		b.def = ""
		return fmt.Errorf("pgstore: bulk load: drop the HNSW index: %w", err)
	}
	b.dropped = true
	return nil
}

// endBulkLoad ends the bulk load, if one is on, building the HNSW index if
// it is missing.
func (s *Store) endBulkLoad(ctx context.Context) error {
	s.bulkMu.Lock()
	defer s.bulkMu.Unlock()
	b := s.bulk
	if b == nil {
		return nil
	}
	if err := s.buildIndex(ctx, b); err != nil {
		return err
	}
	s.bulk = nil
	return nil
}

// buildIndex builds the HNSW index unless it exists, with
// maintenance_work_mem sized to the table and parallel workers.
func (s *Store) buildIndex(ctx context.Context, b *bulkLoad) error {
	err := s.withTx(ctx, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, indexLockSQL); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, vectorIndex).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return nil
		}
		var estimate int64 // the planner's row count, -1 before the first ANALYZE
		if err := tx.QueryRow(ctx, `SELECT reltuples::int8 FROM pg_class WHERE oid = 'chunks'::regclass`).Scan(&estimate); err != nil {
			return err
		}
		rows := max(estimate, int64(b.n0+b.added))
		if _, err := tx.Exec(ctx, `SELECT set_config('maintenance_work_mem', $1, true), set_config('max_parallel_maintenance_workers', $2, true)`,
			strconv.FormatInt(s.indexBuildMemMB(rows), 10)+"MB", strconv.Itoa(s.indexWorkers)); err != nil {
			return err
		}
		def := b.def
		if def == "" {
			def = vectorIndexSQL
		}
		_, err := tx.Exec(ctx, def)
		return err
	})
	if err != nil {
		return fmt.Errorf("pgstore: bulk load: build the HNSW index: %w", err)
	}
	b.dropped, b.def = false, ""
	return nil
}

// indexBuildMemMB is the maintenance_work_mem, in MB, for building the
// index over rows chunks. pgvector allocates all of it up front as shared
// memory in a parallel build, so it is sized to the need rather than set
// high once.
func (s *Store) indexBuildMemMB(rows int64) int64 {
	mb := (rows*indexBuildBytesPerChunk)>>20 + 1
	return min(max(mb, minIndexBuildMemMB), int64(s.indexMemMB))
}
