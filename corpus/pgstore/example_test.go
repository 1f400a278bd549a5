package pgstore_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/migrations"
)

// A pool whose connections know the vector type, a migrated schema, and a
// store for one tenant.
func ExampleNew() {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	cfg.AfterConnect = pgxvec.RegisterTypes
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		log.Fatal(err)
	}

	store, err := pgstore.New(pool, &pgstore.Config{Tenant: "acme"})
	if err != nil {
		log.Fatal(err)
	}
	results, err := store.FullTextSearch(ctx, `"gross margin" -tariff`, corpus.Filter{Tickers: []string{"AAPL"}}, 10)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range results {
		fmt.Println(r.Ticker, r.Section, r.Text)
	}
}
