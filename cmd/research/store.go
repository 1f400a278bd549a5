package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/migrations"
)

// storeFlags selects and configures the store and the embedder.
type storeFlags struct {
	db         string
	dataDir    string
	tenant     string
	embedder   string
	embedModel string
	embedDims  int
}

func (f *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.db, "db", os.Getenv("DATABASE_URL"), "Postgres URL (default $DATABASE_URL); empty means the embedded store")
	fs.StringVar(&f.dataDir, "data-dir", envOr("RESEARCH_DATA_DIR", ".research"), "embedded store directory (default $RESEARCH_DATA_DIR or .research)")
	fs.StringVar(&f.tenant, "tenant", "default", "tenant whose documents to use (Postgres)")
	fs.StringVar(&f.embedder, "embedder", envOr("RESEARCH_EMBEDDER", "hash"), "embedder: hash (offline, deterministic) or openai (OPENAI_BASE_URL, OPENAI_API_KEY)")
	fs.StringVar(&f.embedModel, "embed-model", envOr("RESEARCH_EMBED_MODEL", "text-embedding-3-small"), "embedding model for --embedder openai")
	fs.IntVar(&f.embedDims, "embed-dims", corpus.EmbeddingDim, "embedding dimensions for --embedder openai (the stores hold 384)")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// open builds the embedder and opens the store the flags select; the
// embedder first, so a bad flag fails before any connection is made.
func (f *storeFlags) open(ctx context.Context) (corpus.Store, corpus.Embedder, func(), error) {
	emb, err := f.newEmbedder()
	if err != nil {
		return nil, nil, nil, err
	}
	store, closeStore, err := f.openStore(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	return store, emb, closeStore, nil
}

// openStore opens the store the flags select: Postgres (migrated first)
// when a URL is given, the embedded store otherwise.
func (f *storeFlags) openStore(ctx context.Context) (corpus.Store, func(), error) {
	if f.db == "" {
		s, err := embedded.Open(f.dataDir, nil)
		if err != nil {
			return nil, nil, err
		}
		return s, func() { s.Close() }, nil
	}
	pool, err := openMigratedPool(ctx, f.db)
	if err != nil {
		return nil, nil, err
	}
	s, err := pgstore.New(pool, &pgstore.Config{Tenant: f.tenant})
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return s, func() { s.Close(); pool.Close() }, nil
}

// openMigratedPool connects to Postgres and applies pending migrations.
func openMigratedPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	pool, err := openPool(ctx, url)
	if err != nil {
		return nil, err
	}
	if err := applyMigrations(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// migrateWithin bounds how long a process starting while the database
// restarts keeps trying to check its migrations.
const migrateWithin = 30 * time.Second

// applyMigrations applies the pending migrations, trying again while the
// database is unreachable or restarting (a connection refused or cut, an
// administrator's shutdown) for up to migrateWithin, so a worker started
// during a database restart waits for it instead of exiting. Any other
// error, or the last one, is returned.
func applyMigrations(ctx context.Context, pool *pgxpool.Pool) error {
	deadline := time.Now().Add(migrateWithin)
	wait := 200 * time.Millisecond
	for {
		_, err := migrations.Apply(ctx, pool)
		if err == nil || !connectionLost(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// connectionLost reports whether err says the database went away or
// refused the connection, not that a statement failed.
func connectionLost(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08: connection exceptions; class 57: an operator's
		// intervention (shutdown, crash, cannot connect now).
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57")
	}
	var connErr *pgconn.ConnectError
	return errors.As(err, &connErr) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err)
}

// openPool connects to Postgres and checks the connection, so a bad URL
// fails here with a clear message rather than at the first query.
func openPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %v", redact(err.Error(), url))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: %v", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cannot reach the database at %s: %v", cfg.ConnConfig.Host, err)
	}
	return pool, nil
}

// redact removes a URL (which may hold a password) from a message.
func redact(msg, url string) string {
	if url == "" {
		return msg
	}
	return strings.ReplaceAll(msg, url, "<url>")
}

// newEmbedder builds the embedder the flags select.
func (f *storeFlags) newEmbedder() (corpus.Embedder, error) {
	switch f.embedder {
	case "hash", "":
		return corpus.HashEmbedder{}, nil
	case "openai":
		return llm.NewEmbedder(&llm.EmbedderConfig{
			BaseURL:    os.Getenv("OPENAI_BASE_URL"),
			APIKey:     os.Getenv("OPENAI_API_KEY"),
			Model:      f.embedModel,
			Dimensions: f.embedDims,
		})
	}
	return nil, fmt.Errorf("--embedder %q: want hash or openai", f.embedder)
}
